"""What a blow does: health levels taken, armor destroyed, a stun, a status change."""

from __future__ import annotations

from typing import Any, ClassVar, Final

from vtm_sim.core.health import Status
from vtm_sim.core.weapons import DamageType
from vtm_sim.events.event import Event, EventKind, bool_of, int_of, member_of, members, str_of

_DAMAGE_TYPES: Final = members(DamageType)
_STATUSES: Final = members(Status)


# Slotted with their own __init__, read-only by convention (see vtm_sim.events.event).
class DamageEvent(Event):
    """DMG-*: ``who`` takes ``levels`` of ``type`` damage; ``track`` is the health
    track after it (``/`` bashing, ``X`` lethal, ``*`` aggravated) and ``level``
    the health level's name."""

    __slots__ = ("level", "levels", "track", "type", "who")
    e: ClassVar[EventKind] = EventKind.DAMAGE
    KEYS: ClassVar[frozenset[str]] = frozenset(("e", "who", "levels", "type", "track", "level"))

    who: int
    levels: int
    type: DamageType
    track: str
    level: str

    def __init__(self, who: int, levels: int, type: DamageType, track: str,
                 level: str) -> None:
        self.who = who
        self.levels = levels
        self.type = type
        self.track = track
        self.level = level

    def to_json(self) -> dict[str, Any]:
        return {"e": EventKind.DAMAGE, "who": self.who, "levels": self.levels,
                "type": self.type.value, "track": self.track, "level": self.level}

    @staticmethod
    def from_json(d: dict[str, Any]) -> DamageEvent:
        return DamageEvent(int_of(d, "who"), int_of(d, "levels"),
                           member_of(d, "type", _DAMAGE_TYPES), str_of(d, "track"),
                           str_of(d, "level"))


class ArmorEvent(Event):
    """SOAK-5: ``who``'s armor is ``destroyed`` by a blow of twice its rating."""

    __slots__ = ("destroyed", "who")
    e: ClassVar[EventKind] = EventKind.ARMOR
    KEYS: ClassVar[frozenset[str]] = frozenset(("e", "who", "destroyed"))

    who: int
    destroyed: bool

    def __init__(self, who: int, destroyed: bool = True) -> None:
        self.who = who
        self.destroyed = destroyed

    def to_json(self) -> dict[str, Any]:
        return {"e": EventKind.ARMOR, "who": self.who, "destroyed": self.destroyed}

    @staticmethod
    def from_json(d: dict[str, Any]) -> ArmorEvent:
        return ArmorEvent(int_of(d, "who"), bool_of(d, "destroyed"))


class StunEvent(Event):
    """DMG-6: ``who`` is stunned and loses its action in ``turn``."""

    __slots__ = ("turn", "who")
    e: ClassVar[EventKind] = EventKind.STUN
    KEYS: ClassVar[frozenset[str]] = frozenset(("e", "who", "turn"))

    who: int
    turn: int

    def __init__(self, who: int, turn: int) -> None:
        self.who = who
        self.turn = turn

    def to_json(self) -> dict[str, Any]:
        return {"e": EventKind.STUN, "who": self.who, "turn": self.turn}

    @staticmethod
    def from_json(d: dict[str, Any]) -> StunEvent:
        return StunEvent(int_of(d, "who"), int_of(d, "turn"))


class StatusEvent(Event):
    """DMG-8: ``who``'s status changes (incapacitated, torpor, dead, active again)."""

    __slots__ = ("status", "who")
    e: ClassVar[EventKind] = EventKind.STATUS
    KEYS: ClassVar[frozenset[str]] = frozenset(("e", "who", "status"))

    who: int
    status: Status

    def __init__(self, who: int, status: Status) -> None:
        self.who = who
        self.status = status

    def to_json(self) -> dict[str, Any]:
        return {"e": EventKind.STATUS, "who": self.who, "status": self.status.value}

    @staticmethod
    def from_json(d: dict[str, Any]) -> StatusEvent:
        return StatusEvent(int_of(d, "who"), member_of(d, "status", _STATUSES))
