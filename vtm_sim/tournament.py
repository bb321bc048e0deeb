"""Tournaments: policies play a scenario's sides against each other, seed by seed.

Every pairing (policy A on one side, policy B on the others, both ways
round) plays the same seeded battles, so a difference in the table is a
difference in play, not in dice. Results come with Wilson 95% intervals.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from vtm_sim import registry
from vtm_sim.errors import ConfigError
from vtm_sim.registry import PolicyMaker
from vtm_sim.scenario import Scenario
from vtm_sim.simulate import play

Z95 = 1.959964  # two-sided 95% normal quantile

PLANNER_ROLLOUTS = 64  # the planner's rollouts a decision wherever it is named

__all__ = ["PLANNER_ROLLOUTS", "PolicyMaker", "check_setup", "run_tournament", "table_lines"]


def wilson(wins: float, n: int) -> tuple[float, float]:
    """Wilson score interval (95%) for a rate of ``wins`` out of ``n``."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    z2 = Z95 * Z95
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass(slots=True)
class Tally:
    wins: int = 0
    losses: int = 0
    draws: int = 0
    turns: int = 0

    @property
    def games(self) -> int:
        return self.wins + self.losses + self.draws

    @property
    def score(self) -> float:
        """Wins plus half the draws, per game."""
        return (self.wins + 0.5 * self.draws) / self.games if self.games else 0.0

    def add(self, result: int, turns: int) -> None:
        if result > 0:
            self.wins += 1
        elif result < 0:
            self.losses += 1
        else:
            self.draws += 1
        self.turns += turns


@dataclass(frozen=True, slots=True)
class Row:
    """One policy's line in the results table."""

    policy: str
    games: int
    wins: int
    draws: int
    losses: int
    score: float
    ci95: tuple[float, float]
    mean_turns: float


@dataclass(slots=True)
class TournamentResult:
    scenario: str
    policies: tuple[str, ...]
    battles: int
    seed: int
    side: int  # the side each policy plays when it is "A"
    totals: dict[str, Tally] = field(default_factory=dict)
    pairs: dict[tuple[str, str], Tally] = field(default_factory=dict)

    def table(self) -> list[Row]:
        """One row per policy, best score first."""
        rows = []
        for name in self.policies:
            t = self.totals[name]
            rows.append(
                Row(
                    name,
                    t.games,
                    t.wins,
                    t.draws,
                    t.losses,
                    t.score,
                    wilson(t.wins + 0.5 * t.draws, t.games),
                    t.turns / t.games if t.games else 0.0,
                )
            )
        rows.sort(key=lambda r: (-r.score, r.policy))
        return rows


def check_setup(
    scenario: Scenario,
    policies: Sequence[str],
    side: int | None,
    known: Mapping[str, PolicyMaker] | None = None,
) -> dict[str, PolicyMaker]:
    """Validate the policy names (``known`` first, then :mod:`vtm_sim.registry`) and the
    side; returns every policy's maker."""
    if not policies:
        raise ConfigError("--policies: expected at least one policy name")
    makers = {}
    for name in policies:
        if known is not None and name in known:
            makers[name] = known[name]
            continue
        try:
            makers[name] = registry.maker(name, scenario)
        except ConfigError as exc:
            raise ConfigError(f"--policies: {exc}") from None
    sides = sorted({f.side for f in scenario.fighters})
    a_side = sides[0] if side is None else side
    if a_side not in sides:
        raise ConfigError(f"--side: {a_side} is not a side of {scenario.name} (sides {sides})")
    return makers


def first_side(scenario: Scenario, side: int | None) -> int:
    """The side policy A plays: ``side``, or the scenario's first."""
    return min(f.side for f in scenario.fighters) if side is None else side


def run_tournament(
    scenario: Scenario,
    policies: Sequence[str],
    *,
    battles: int,
    seed: int = 0,
    side: int | None = None,
    progress: Callable[[int], None] | None = None,
    makers: Mapping[str, PolicyMaker] | None = None,
) -> TournamentResult:
    """Every ordered pairing of ``policies`` plays ``battles`` seeded battles.

    Policy A runs ``side`` (default: the scenario's first) and policy B every
    other side; a pairing is scored from A's point of view and each policy's
    totals count its games on either side. Seeds ``seed .. seed + battles - 1``
    are the same for every pairing. Names are resolved by :mod:`vtm_sim.registry`;
    ``makers`` adds (or overrides) policies of the caller's own.
    """
    known = check_setup(scenario, policies, side, makers)
    a_side = first_side(scenario, side)
    result = TournamentResult(scenario.name, tuple(policies), battles, seed, a_side)
    for name in policies:
        result.totals[name] = Tally()
    for a in policies:
        for b in policies:
            pair = Tally()
            for k in range(battles):
                s = seed + k
                rng = np.random.default_rng([s, 7])
                pols = [
                    known[a if f.side == a_side else b](rng, i)
                    for i, f in enumerate(scenario.fighters)
                ]
                battle = play(scenario.battle(seed=s), pols)
                outcome = 0 if battle.winner is None else (1 if battle.winner == a_side else -1)
                pair.add(outcome, battle.turn)
                result.totals[a].add(outcome, battle.turn)
                result.totals[b].add(-outcome, battle.turn)
                if progress is not None:
                    progress(1)
            result.pairs[(a, b)] = pair
    return result


def table_lines(result: TournamentResult) -> list[str]:
    """The results table as plain text."""
    out = [
        f"Tournament on {result.scenario}: {len(result.policies)} policies, every pairing "
        f"both ways, {result.battles} seeded battles each (seeds {result.seed}.."
        f"{result.seed + result.battles - 1}).",
        f"{'policy':<12}{'games':>7}{'wins':>6}{'draws':>7}{'losses':>8}{'score':>8}"
        f"{'95% interval':>16}{'turns':>7}",
    ]
    for r in result.table():
        lo, hi = r.ci95
        out.append(
            f"{r.policy:<12}{r.games:>7}{r.wins:>6}{r.draws:>7}{r.losses:>8}"
            f"{r.score:>8.3f}{f'{lo:.3f}-{hi:.3f}':>16}{r.mean_turns:>7.1f}"
        )
    out.append(f"Pairings (score of the row policy on side {result.side}):")
    width = max(len(p) for p in result.policies) + 2
    out.append(" " * width + "".join(f"{p:>{width}}" for p in result.policies))
    for a in result.policies:
        cells = "".join(f"{result.pairs[(a, b)].score:>{width}.2f}" for b in result.policies)
        out.append(f"{a:<{width}}{cells}")
    return out
