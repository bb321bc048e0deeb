"""An attack's events, from the declared attack to its outcome (damage is in ``damage``)."""

from __future__ import annotations

from typing import Any, ClassVar, Final

from vtm_sim.core.choices import AbortMethod, CalledShot, DefenseKind
from vtm_sim.events.event import (
    Event,
    EventKind,
    bool_of,
    int_of,
    member_of,
    members,
    opt_str_of,
    str_of,
)

_CALLED: Final = members(CalledShot)
_DEFENSES: Final = members(DefenseKind)
_ABORTS: Final = members(AbortMethod)


# Slotted with their own __init__, read-only by convention (see vtm_sim.events.event).
class AttackEvent(Event):
    """``who`` attacks ``target`` with ``maneuver`` and ``weapon`` (None: no plan could
    be made, the attack is lost); ``called`` (RNG-8) and ``offhand`` (RNG-9) are
    written only when set."""

    __slots__ = ("called", "maneuver", "offhand", "target", "weapon", "who")
    e: ClassVar[EventKind] = EventKind.ATTACK
    KEYS: ClassVar[frozenset[str]] = frozenset(
        ("e", "who", "target", "maneuver", "weapon", "called", "offhand"))

    who: int
    target: int
    maneuver: str
    weapon: str | None
    called: CalledShot | None
    offhand: bool

    def __init__(self, who: int, target: int, maneuver: str, weapon: str | None,
                 called: CalledShot | None = None, offhand: bool = False) -> None:
        self.who = who
        self.target = target
        self.maneuver = maneuver
        self.weapon = weapon
        self.called = called
        self.offhand = offhand

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"e": EventKind.ATTACK, "who": self.who, "target": self.target,
                             "maneuver": self.maneuver, "weapon": self.weapon}
        if self.called is not None:
            d["called"] = self.called.value
        if self.offhand:
            d["offhand"] = True
        return d

    @staticmethod
    def from_json(d: dict[str, Any]) -> AttackEvent:
        return AttackEvent(
            int_of(d, "who"), int_of(d, "target"), str_of(d, "maneuver"),
            opt_str_of(d, "weapon"),
            member_of(d, "called", _CALLED) if "called" in d else None,
            "offhand" in d and bool_of(d, "offhand"),
        )


class DefenseEvent(Event):
    """``who`` defends against the attack of ``against`` (DEF-4..6)."""

    __slots__ = ("against", "kind", "who")
    e: ClassVar[EventKind] = EventKind.DEFENSE
    KEYS: ClassVar[frozenset[str]] = frozenset(("e", "who", "kind", "against"))

    who: int
    kind: DefenseKind
    against: int

    def __init__(self, who: int, kind: DefenseKind, against: int) -> None:
        self.who = who
        self.kind = kind
        self.against = against

    def to_json(self) -> dict[str, Any]:
        return {"e": EventKind.DEFENSE, "who": self.who, "kind": self.kind.value,
                "against": self.against}

    @staticmethod
    def from_json(d: dict[str, Any]) -> DefenseEvent:
        return DefenseEvent(int_of(d, "who"), member_of(d, "kind", _DEFENSES),
                            int_of(d, "against"))


class AbortEvent(Event):
    """DEF-3: ``who`` tried to abandon its declared action to defend (``ok``: it did)."""

    __slots__ = ("method", "ok", "who")
    e: ClassVar[EventKind] = EventKind.ABORT
    KEYS: ClassVar[frozenset[str]] = frozenset(("e", "who", "method", "ok"))

    who: int
    method: AbortMethod
    ok: bool

    def __init__(self, who: int, method: AbortMethod, ok: bool) -> None:
        self.who = who
        self.method = method
        self.ok = ok

    def to_json(self) -> dict[str, Any]:
        return {"e": EventKind.ABORT, "who": self.who, "method": self.method.value,
                "ok": self.ok}

    @staticmethod
    def from_json(d: dict[str, Any]) -> AbortEvent:
        return AbortEvent(int_of(d, "who"), member_of(d, "method", _ABORTS),
                          bool_of(d, "ok"))


class MissEvent(Event):
    """The attack of ``who`` on ``target`` misses (``net`` successes left: 0)."""

    __slots__ = ("net", "target", "who")
    e: ClassVar[EventKind] = EventKind.MISS
    KEYS: ClassVar[frozenset[str]] = frozenset(("e", "who", "target", "net"))

    who: int
    target: int
    net: int

    def __init__(self, who: int, target: int, net: int) -> None:
        self.who = who
        self.target = target
        self.net = net

    def to_json(self) -> dict[str, Any]:
        return {"e": EventKind.MISS, "who": self.who, "target": self.target, "net": self.net}

    @staticmethod
    def from_json(d: dict[str, Any]) -> MissEvent:
        return MissEvent(int_of(d, "who"), int_of(d, "target"), int_of(d, "net"))


class HitEvent(Event):
    """``who`` hits ``target`` with ``net`` successes: an attack, a parry's counterblow
    (``parry``, DEF-6) or a botched blow striking an ally (``mishap``, CPX-6);
    the two flags are written only when set."""

    __slots__ = ("mishap", "net", "parry", "target", "who")
    e: ClassVar[EventKind] = EventKind.HIT
    KEYS: ClassVar[frozenset[str]] = frozenset(
        ("e", "who", "target", "net", "parry", "mishap"))

    who: int
    target: int
    net: int
    parry: bool
    mishap: bool

    def __init__(self, who: int, target: int, net: int, parry: bool = False,
                 mishap: bool = False) -> None:
        self.who = who
        self.target = target
        self.net = net
        self.parry = parry
        self.mishap = mishap

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"e": EventKind.HIT, "who": self.who, "target": self.target,
                             "net": self.net}
        if self.parry:
            d["parry"] = True
        if self.mishap:
            d["mishap"] = True
        return d

    @staticmethod
    def from_json(d: dict[str, Any]) -> HitEvent:
        return HitEvent(
            int_of(d, "who"), int_of(d, "target"), int_of(d, "net"),
            "parry" in d and bool_of(d, "parry"), "mishap" in d and bool_of(d, "mishap"),
        )


class MishapEvent(Event):
    """CPX-6: ``who`` botched an attack with ``weapon``; ``effect`` is the mishap
    table's row (None: no effect)."""

    __slots__ = ("effect", "weapon", "who")
    e: ClassVar[EventKind] = EventKind.MISHAP
    KEYS: ClassVar[frozenset[str]] = frozenset(("e", "who", "weapon", "effect"))

    who: int
    weapon: str
    effect: str | None

    def __init__(self, who: int, weapon: str, effect: str | None) -> None:
        self.who = who
        self.weapon = weapon
        self.effect = effect

    def to_json(self) -> dict[str, Any]:
        return {"e": EventKind.MISHAP, "who": self.who, "weapon": self.weapon,
                "effect": self.effect}

    @staticmethod
    def from_json(d: dict[str, Any]) -> MishapEvent:
        return MishapEvent(int_of(d, "who"), str_of(d, "weapon"), opt_str_of(d, "effect"))


class AmmoEvent(Event):
    """RNG-10: ``who`` fired ``spent`` rounds of ``weapon``, ``left`` in it."""

    __slots__ = ("left", "spent", "weapon", "who")
    e: ClassVar[EventKind] = EventKind.AMMO
    KEYS: ClassVar[frozenset[str]] = frozenset(("e", "who", "weapon", "spent", "left"))

    who: int
    weapon: str
    spent: int
    left: int

    def __init__(self, who: int, weapon: str, spent: int, left: int) -> None:
        self.who = who
        self.weapon = weapon
        self.spent = spent
        self.left = left

    def to_json(self) -> dict[str, Any]:
        return {"e": EventKind.AMMO, "who": self.who, "weapon": self.weapon,
                "spent": self.spent, "left": self.left}

    @staticmethod
    def from_json(d: dict[str, Any]) -> AmmoEvent:
        return AmmoEvent(int_of(d, "who"), str_of(d, "weapon"), int_of(d, "spent"),
                         int_of(d, "left"))
