"""The difficulty ladder: NPC opponents from weakest (``ladder:1``) to strongest.

The rungs are policy names in ``configs/ladder.yaml``, weakest first. Each is
measured (:func:`round_robin`, ``vtm-sim ladder``, ``experiments/ladder.py``)
to beat the rung below with a score (wins plus half the draws) of at least
:data:`MIN_EDGE` over seeded battles in the duel and gunfight scenarios. A
match plays every seed with each policy on each seat (side), so seats are
reported separately as well as pooled, and both policies face the same dice.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from vtm_sim.arena.outcomes import Outcomes
from vtm_sim.arena.tournament import Backend, seat_results
from vtm_sim.files.scenarios import Scenario
from vtm_sim.policies.registry import maker

__all__ = ["MIN_EDGE", "Match", "SeatTally", "round_robin"]

MIN_EDGE = 0.55  # the score each rung must reach against the rung below


@dataclass(slots=True)
class SeatTally(Outcomes):
    """Results of one policy on one seat: wins, draws, losses."""

    wins: int = 0
    draws: int = 0
    losses: int = 0

    def add(self, other: SeatTally) -> SeatTally:
        return SeatTally(self.wins + other.wins, self.draws + other.draws,
                         self.losses + other.losses)

    def interval(self) -> tuple[float, float]:
        """95% interval of the score: Student's t over battles scored 1, 1/2 or 0."""
        n = self.games
        if n < 2:
            return 0.0, 1.0
        from scipy import stats  # imported only when an interval is asked for

        mean = self.score
        second = (self.wins + 0.25 * self.draws) / n
        var = max(0.0, second - mean * mean) * n / (n - 1)
        half = float(stats.t.ppf(0.975, n - 1)) * math.sqrt(var / n)
        return max(0.0, mean - half), min(1.0, mean + half)

    def to_json(self) -> dict[str, Any]:
        lo, hi = self.interval()
        return {"games": self.games, "wins": self.wins, "draws": self.draws,
                "losses": self.losses, "score": round(self.score, 4),
                "ci95": [round(lo, 4), round(hi, 4)]}


@dataclass(slots=True)
class Match:
    """Policy ``a`` against ``b``, every seed with ``a`` on each seat (scored for ``a``)."""

    a: str
    b: str
    seats: dict[int, SeatTally] = field(default_factory=dict)  # a's side -> a's results

    @property
    def pooled(self) -> SeatTally:
        total = SeatTally()
        for t in self.seats.values():
            total = total.add(t)
        return total

    def to_json(self) -> dict[str, Any]:
        return {"a": self.a, "b": self.b, "pooled": self.pooled.to_json(),
                "seats": {str(s): t.to_json() for s, t in sorted(self.seats.items())}}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Match:
        seats = {int(s): SeatTally(t["wins"], t["draws"], t["losses"])
                 for s, t in data["seats"].items()}
        return cls(data["a"], data["b"], seats)

    @property
    def per_seat(self) -> int:
        """Seeds played on each seat."""
        return min((t.games for t in self.seats.values()), default=0)

    def extend(self, more: Match) -> Match:
        """This match and ``more`` (the following seeds) as one."""
        seats = {s: self.seats.get(s, SeatTally()).add(t) for s, t in more.seats.items()}
        return Match(self.a, self.b, seats)


def play_match(
    scenario: Scenario, a: str, b: str, *, battles: int, seed: int = 0,
    progress: Callable[[int], None] | None = None, backend: Backend | None = None,
) -> Match:
    """``battles`` seeded battles with ``a`` on each side in turn, ``b`` on every other.

    The battles are a tournament's chunks (:func:`vtm_sim.arena.tournament.play_chunk`,
    the same seeds and generators), so ``backend`` (``--jobs``, Ray) only decides
    where they run: the match is the same.
    """
    return round_robin(scenario, [b, a], battles=battles, seed=seed, progress=progress,
                       backend=backend)[0]


def round_robin(
    scenario: Scenario, names: Sequence[str], *, battles: int, seed: int = 0,
    battles_for: Callable[[str, str], int] | None = None,
    progress: Callable[[int], None] | None = None, backend: Backend | None = None,
) -> list[Match]:
    """Every pair of ``names``, the later (``a``, the higher rung) against the earlier,
    ``battles`` seeds a seat each; ``battles_for(a, b)`` may give a pair fewer (an
    expensive policy). All the pairs' battles go to ``backend`` at once."""

    pairs = [(b, a) for i, a in enumerate(names) for b in names[i + 1:]]
    counts = seat_results(scenario, pairs, seed=seed, resolver=maker, backend=backend,
                          progress=progress,
                          battles=lambda a, b: battles if battles_for is None
                          else battles_for(a, b))
    return [Match(hi, lo, {side: SeatTally(*c) for side, c in counts[(hi, lo)].items()})
            for hi, lo in pairs]


def adjacent(matches: Sequence[Match], names: Sequence[str]) -> list[Match]:
    """The matches of each rung against the one below it, bottom first."""
    by_pair = {(m.a, m.b): m for m in matches}
    return [by_pair[(names[k], names[k - 1])] for k in range(1, len(names))
            if (names[k], names[k - 1]) in by_pair]


def _cell(t: SeatTally) -> str:
    lo, hi = t.interval()
    return f"{t.score:.3f} ({lo:.3f}-{hi:.3f})"


def table_lines(scenario: Scenario, matches: Sequence[Match], names: Sequence[str]) -> list[str]:
    """The round robin as Markdown: the rungs, each pair by seat and pooled, the matrix."""
    sides = sorted({f.side for f in scenario.fighters})
    out = [f"### {scenario.name}: {scenario.title}", ""]
    out += ["| rung | policy |", "|---|---|"]
    out += [f"| ladder:{k} | {n} |" for k, n in enumerate(names, 1)]
    out += ["", "Each row: the stronger (higher) rung's score against the lower one, wins plus "
            "half the draws, with Student-t 95% intervals; a seat column is the higher rung "
            "playing that side (" + ", ".join(f"{s} {scenario.side_name(s)}" for s in sides)
            + ") on every seed.", ""]
    head = "| higher | lower | battles | pooled score | " + " | ".join(
        f"seat {s}" for s in sides) + " | beats the rung below by 0.55 |"
    out += [head, "|" + "---|" * (5 + len(sides))]
    near = {(m.a, m.b) for m in adjacent(matches, names)}
    for m in sorted(matches, key=lambda m: (-names.index(m.a), -names.index(m.b))):
        p = m.pooled
        verdict = ("yes" if p.score >= MIN_EDGE else "**no**") if (m.a, m.b) in near else ""
        seats = " | ".join(_cell(m.seats[s]) for s in sides)
        out.append(f"| {m.a} | {m.b} | {p.games} | {_cell(p)} | {seats} | {verdict} |")
    by_pair = {(m.a, m.b): m.pooled.score for m in matches}
    by_pair.update({(m.b, m.a): 1 - m.pooled.score for m in matches})
    out += ["", "Pooled score of the row policy against the column policy:", "",
            "| | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
    for a in names:
        cells = ["-" if a == b else (f"{by_pair[(a, b)]:.2f}" if (a, b) in by_pair else "")
                 for b in names]
        out.append(f"| {a} | " + " | ".join(cells) + " |")
    return out


def to_json(scenario: Scenario, matches: Sequence[Match], names: Sequence[str],
            seed: int) -> dict[str, Any]:
    return {"scenario": scenario.name, "seed": seed, "rungs": list(names),
            "min_edge": MIN_EDGE, "matches": [m.to_json() for m in matches],
            "adjacent_ok": all(m.pooled.score >= MIN_EDGE for m in adjacent(matches, names))}
