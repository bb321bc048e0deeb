"""Evaluating a policy against opponents: win / draw / loss per seat and pooled.

A seat is a side of the scenario. For every opponent and every seat the
player runs every combatant of that side and the opponent every other one,
over the seeded battles ``seed .. seed + episodes - 1`` (the same seeds for
every seat and opponent, as in :mod:`vtm_sim.arena.tournament`, so differences are
differences in play). Rates come with Wilson 95% intervals
(:func:`vtm_sim.arena.intervals.wilson`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from vtm_sim.arena.intervals import wilson
from vtm_sim.arena.outcomes import Outcomes
from vtm_sim.arena.tournament import Backend, seat_results, seeded_battle
from vtm_sim.files.scenarios import Scenario
from vtm_sim.policies.play import Policy
from vtm_sim.policies.registry import maker

__all__ = ["Evaluation", "Rates", "evaluate", "evaluate_named", "seats"]

PolicyMaker = Callable[[np.random.Generator, int], Policy]
POOLED = "pooled"


def wilson95(count: int, n: int) -> tuple[float, float]:
    """The Wilson 95% interval of ``count`` successes out of ``n``."""
    return wilson(count, n)


@dataclass(frozen=True, slots=True)
class Rates(Outcomes):
    """Results of a set of battles, from the player's point of view."""

    wins: int
    draws: int
    losses: int

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {"games": self.games, "score": round(self.score, 4)}
        for key, count in (("win", self.wins), ("draw", self.draws), ("loss", self.losses)):
            lo, hi = wilson95(count, self.games)
            out[key] = {"count": count, "rate": round(self.rate(count), 4),
                        "ci95": [round(lo, 4), round(hi, 4)]}
        return out

    def __add__(self, other: Rates) -> Rates:
        return Rates(self.wins + other.wins, self.draws + other.draws,
                     self.losses + other.losses)


@dataclass(frozen=True, slots=True)
class Evaluation:
    """Rates per opponent, per seat (side number) and pooled over the seats."""

    scenario: str
    episodes: int
    seed: int
    results: dict[str, dict[str, Rates]]  # opponent -> seat ("0", "1", ..., "pooled")

    def pooled(self, opponent: str) -> Rates:
        return self.results[opponent][POOLED]

    def to_json(self) -> dict[str, object]:
        return {
            "scenario": self.scenario, "episodes_per_seat": self.episodes, "seed": self.seed,
            "opponents": {opp: {seat: r.to_json() for seat, r in by_seat.items()}
                          for opp, by_seat in self.results.items()},
        }

    def lines(self) -> list[str]:
        """A plain-text table: one row per opponent and seat (score: wins plus half the
        draws)."""
        w = max([14, *(len(opp) + 2 for opp in self.results)])
        out = [f"Evaluation on {self.scenario}: {self.episodes} seeded battles per seat "
               f"(seeds {self.seed}..{self.seed + self.episodes - 1}), 95% intervals.",
               f"{'opponent':<{w}}{'seat':>7}{'games':>7}  "
               f"{'win':<21}{'draw':<21}{'loss':<21}score"]
        for opp, by_seat in self.results.items():
            for seat, r in by_seat.items():
                cells = ""
                for count in (r.wins, r.draws, r.losses):
                    lo, hi = wilson95(count, r.games)
                    cells += f"{r.rate(count):.3f} [{lo:.3f}-{hi:.3f}]".ljust(21)
                out.append(f"{opp:<{w}}{seat:>7}{r.games:>7}  {cells}{r.score:.3f}")
        return out


def seats(scenario: Scenario) -> list[int]:
    """The scenario's sides, in order."""
    return sorted({f.side for f in scenario.fighters})


def evaluate(
    scenario: Scenario,
    player: PolicyMaker,
    opponents: Mapping[str, PolicyMaker],
    *,
    episodes: int,
    seed: int = 0,
    progress: Callable[[int], None] | None = None,
) -> Evaluation:
    """Play ``player`` against each opponent on every seat, ``episodes`` battles a seat.

    The same seeds as :func:`evaluate_named` (a test checks the figures agree), in this
    process. It does not go through :func:`vtm_sim.arena.tournament.seat_results`: a chunk's
    makers come from a named resolver and are cached per process by name
    (``tournament._maker``), so the training's ever-changing model, which has no name,
    would be served its first evaluation's weights."""
    results: dict[str, dict[str, Rates]] = {}
    for name, opponent in opponents.items():
        by_seat: dict[str, Rates] = {}
        for side in seats(scenario):
            tally = [0, 0, 0]  # wins, draws, losses
            by_side = {s: player if s == side else opponent for s in seats(scenario)}
            for k in range(episodes):
                battle = seeded_battle(scenario, by_side, seed + k)
                if battle.winner is None:
                    tally[1] += 1
                else:
                    tally[0 if battle.winner == side else 2] += 1
                if progress is not None:
                    progress(1)
            by_seat[str(side)] = Rates(*tally)
        results[name] = _with_pooled(by_seat)
    return Evaluation(scenario.name, episodes, seed, results)


def evaluate_named(
    scenario: Scenario,
    player: str,
    opponents: Sequence[str],
    *,
    episodes: int,
    seed: int = 0,
    backend: Backend | None = None,
    progress: Callable[[int], None] | None = None,
) -> Evaluation:
    """:func:`evaluate` for a player and opponents named as every command names a policy
    (``model:PATH``, ``trained:NAME``, ``ladder:4``, ...): the same battles, played as a
    tournament's chunks (:func:`vtm_sim.arena.tournament.play_chunk`), so ``backend``
    (``--jobs``, ``--backend ray``) decides only where they run, not the result.
    A player against itself plays each seed once; each seat is then scored on it."""

    counts = seat_results(scenario, [(player, opp) for opp in opponents],
                          battles=lambda _a, _b: episodes, seed=seed, resolver=maker,
                          backend=backend, progress=progress)
    return Evaluation(scenario.name, episodes, seed, {
        opp: _with_pooled({str(side): Rates(*c) for side, c in counts[(player, opp)].items()})
        for opp in opponents})


def _with_pooled(by_seat: dict[str, Rates]) -> dict[str, Rates]:
    """The seats' rates and, under ``"pooled"``, their sum."""
    pooled = Rates(0, 0, 0)
    for r in by_seat.values():
        pooled = pooled + r
    return {**by_seat, POOLED: pooled}
