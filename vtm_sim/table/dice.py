"""The dice of a table: faces entered for a step's rolls, else the encounter's seeded dice.

A step hands :class:`TableDice` the faces the Storyteller entered, one list per roll,
and the ``plan``: which of the step's calls for faces take them (each call of
:meth:`TableDice.faces` is one roll, or the extra dice of a specialty's exploding 10s,
DICE-5), in order; every other call rolls the seeded stream. Without a plan the
entered lists go to the first calls. Entered faces never draw from the stream,
so the tool's dice after a step are the same whatever was entered. Every call is
kept (:attr:`TableDice.draws`): the service checks the counts once the step is done
and records what each roll drew, so a replay is exact.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from vtm_sim.core.dice import RngDice
from vtm_sim.events import EventLog

__all__ = ["Draw", "TableDice"]


@dataclass(frozen=True, slots=True)
class Draw:
    """One call for faces: ``dice`` asked, the ``faces`` handed out, whether they were
    ``entered``, what was entered (``given``: its count may be wrong) and how many events
    the log held then (the roll's own event comes after)."""

    dice: int
    faces: tuple[int, ...]
    entered: bool
    given: tuple[int, ...]
    at: int


class TableDice:
    """A :class:`~vtm_sim.core.dice.DiceSource`: the entered rolls first, then ``rng``."""

    __slots__ = ("_entered", "_i", "_log", "_plan", "draws", "rng")

    def __init__(self, rng: RngDice, entered: Sequence[Sequence[int]] = (),
                 log: EventLog | None = None, plan: Sequence[int] | None = None) -> None:
        self.rng = rng
        self._entered = [tuple(r) for r in entered]
        self._plan = None if plan is None else frozenset(plan)
        self._i = 0
        self._log = log
        self.draws: list[Draw] = []

    @property
    def unused(self) -> int:
        """Entered rolls not asked for (yet)."""
        return len(self._entered) - self._i

    def faces(self, n: int) -> list[int]:
        at = len(self._log.events) if self._log is not None else -1
        k = len(self.draws)
        if self._i < len(self._entered) and (self._plan is None or k in self._plan):
            given = self._entered[self._i]
            self._i += 1
            # a wrong count is reported once the step is done (the service discards it):
            # hand out n faces anyway, without touching the stream
            out = list(given[:n]) + [1] * (n - len(given))
            self.draws.append(Draw(n, tuple(out), True, given, at))
            return out
        out = self.rng.faces(n)
        self.draws.append(Draw(n, tuple(out), False, (), at))
        return out

    def clone(self) -> TableDice:
        """The seeded stream's copy, nothing entered (what ``Battle.clone`` forks)."""
        return TableDice(self.rng.clone())

    def to_json(self) -> dict[str, Any]:
        """The seeded stream as a saved state holds it (an exported state rolls on alike)."""
        return self.rng.to_json()
