"""What an NPC wants from a fight, as written: ``win``, ``escape``, ``protect:Tessa``, ...

The words only; :mod:`vtm_sim.analysis.goals` scores fights by them. A state file,
a scenario or a tactic file may give a combatant its goal (``goal: escape``), and
``vtm-sim suggest --goal`` overrides it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from vtm_sim.core.symbol import Symbol
from vtm_sim.errors import ConfigError


class GoalKind(Symbol):
    WIN = "win"
    SURVIVE = "survive"
    ESCAPE = "escape"
    PROTECT = "protect"
    TAKE_ALIVE = "take-alive"
    HURT = "hurt"


NAMED: Final = frozenset({GoalKind.PROTECT, GoalKind.TAKE_ALIVE, GoalKind.HURT})
GOAL_WORDS: Final = "win|survive|escape|protect:NAME|take-alive:NAME|hurt:NAME"


@dataclass(frozen=True, slots=True)
class GoalSpec:
    """A goal as written (``protect:Tessa``), before the names are matched to a fight."""

    kind: GoalKind
    name: str | None = None

    @classmethod
    def parse(cls, text: str, where: str = "--goal") -> GoalSpec:
        raw = text.strip()
        head, sep, rest = raw.partition(":")
        try:
            kind = GoalKind(head.strip().lower())
        except ValueError:
            raise ConfigError(f"{where}: unknown goal {raw!r} (expected {GOAL_WORDS})") from None
        if kind in NAMED:
            if not sep or not rest.strip():
                raise ConfigError(f"{where}: {kind.value} needs a name: {kind.value}:NAME "
                                  f"(expected {GOAL_WORDS})")
            return cls(kind, rest.strip())
        if sep:
            raise ConfigError(f"{where}: {kind.value} takes no name (expected {GOAL_WORDS})")
        return cls(kind)

    def __str__(self) -> str:
        return self.kind.value if self.name is None else f"{self.kind.value}:{self.name}"
