"""Chases and jumps (MOVE-3, MOVE-4): a flight begun, each chase roll's tally, a
quarry caught or escaped, a jump over an obstacle. The dice are in ``roll`` events
(``chase``, ``jump``, ``landing``); these say what they did."""

from __future__ import annotations

from typing import Any, ClassVar

from vtm_sim.events.event import Event, EventKind, bool_of, float_of, int_of, str_of


# Slotted with their own __init__, read-only by convention (see vtm_sim.events.event).
class FleeEvent(Event):
    """MOVE-4: ``who`` runs from the fight with ``lead`` yards on the nearest enemy,
    worth ``start`` successes (one per 2 yards)."""

    __slots__ = ("lead", "start", "who")
    e: ClassVar[EventKind] = EventKind.FLEE
    KEYS: ClassVar[frozenset[str]] = frozenset(("e", "who", "lead", "start"))

    who: int
    lead: float
    start: int

    def __init__(self, who: int, lead: float, start: int) -> None:
        self.who = who
        self.lead = lead
        self.start = start

    def to_json(self) -> dict[str, Any]:
        return {"e": EventKind.FLEE, "who": self.who, "lead": self.lead, "start": self.start}

    @staticmethod
    def from_json(d: dict[str, Any]) -> FleeEvent:
        return FleeEvent(int_of(d, "who"), float_of(d, "lead"), int_of(d, "start"))


class ChaseEvent(Event):
    """MOVE-4: ``who`` (the quarry, or a pursuer of ``quarry``) adds ``added``
    successes to its ``total``; ``rival`` is the other side's total (the quarry's, or
    its best pursuer's, -1 for none yet); ``tired`` the dice a mortal lost."""

    __slots__ = ("added", "quarry", "rival", "tired", "total", "who")
    e: ClassVar[EventKind] = EventKind.CHASE
    KEYS: ClassVar[frozenset[str]] = frozenset(
        ("e", "who", "quarry", "added", "total", "rival", "tired"))

    who: int
    quarry: int
    added: int
    total: int
    rival: int
    tired: int

    def __init__(self, who: int, quarry: int, added: int, total: int, rival: int,
                 tired: int = 0) -> None:
        self.who = who
        self.quarry = quarry
        self.added = added
        self.total = total
        self.rival = rival
        self.tired = tired

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"e": EventKind.CHASE, "who": self.who, "quarry": self.quarry,
                             "added": self.added, "total": self.total, "rival": self.rival}
        if self.tired:
            d["tired"] = self.tired
        return d

    @staticmethod
    def from_json(d: dict[str, Any]) -> ChaseEvent:
        return ChaseEvent(int_of(d, "who"), int_of(d, "quarry"), int_of(d, "added"),
                          int_of(d, "total"), int_of(d, "rival"),
                          int_of(d, "tired") if "tired" in d else 0)


class CaughtEvent(Event):
    """MOVE-4: ``who`` catches ``quarry`` (its total passed the quarry's, or the
    quarry ran into a dead end: ``dead_end``); the chase is over, the fight goes on."""

    __slots__ = ("dead_end", "quarry", "who")
    e: ClassVar[EventKind] = EventKind.CAUGHT
    KEYS: ClassVar[frozenset[str]] = frozenset(("e", "who", "quarry", "dead_end"))

    who: int
    quarry: int
    dead_end: bool

    def __init__(self, who: int, quarry: int, dead_end: bool = False) -> None:
        self.who = who
        self.quarry = quarry
        self.dead_end = dead_end

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"e": EventKind.CAUGHT, "who": self.who, "quarry": self.quarry}
        if self.dead_end:
            d["dead_end"] = True
        return d

    @staticmethod
    def from_json(d: dict[str, Any]) -> CaughtEvent:
        return CaughtEvent(int_of(d, "who"), int_of(d, "quarry"),
                           bool_of(d, "dead_end") if "dead_end" in d else False)


class EscapeEvent(Event):
    """MOVE-4/5: ``who`` gets away (``reason``: ``unpursued``, ``lost`` from sight,
    ``outpaced`` by a much faster quarry, or ``outran`` by the margin's stand-in) and is
    out of the fight: not down, not the winner's."""

    __slots__ = ("reason", "who")
    e: ClassVar[EventKind] = EventKind.ESCAPED
    KEYS: ClassVar[frozenset[str]] = frozenset(("e", "who", "reason"))

    who: int
    reason: str

    def __init__(self, who: int, reason: str) -> None:
        self.who = who
        self.reason = reason

    def to_json(self) -> dict[str, Any]:
        return {"e": EventKind.ESCAPED, "who": self.who, "reason": self.reason}

    @staticmethod
    def from_json(d: dict[str, Any]) -> EscapeEvent:
        return EscapeEvent(int_of(d, "who"), str_of(d, "reason"))


class JumpEvent(Event):
    """MOVE-3: ``who`` jumps ``obstacle`` (``feet`` needed, ``reached`` feet made,
    ``running`` or standing); ``ok`` across, else stopped at it (``prone`` if the
    landing failed). Going around is a ``detour`` (``ok`` true, no roll)."""

    __slots__ = ("detour", "feet", "obstacle", "ok", "prone", "reached", "running", "who")
    e: ClassVar[EventKind] = EventKind.JUMP
    KEYS: ClassVar[frozenset[str]] = frozenset(
        ("e", "who", "obstacle", "feet", "reached", "running", "ok", "prone", "detour"))

    who: int
    obstacle: str
    feet: float
    reached: float
    running: bool
    ok: bool
    prone: bool
    detour: float

    def __init__(self, who: int, obstacle: str, feet: float, reached: float, running: bool,
                 ok: bool, prone: bool = False, detour: float = 0.0) -> None:
        self.who = who
        self.obstacle = obstacle
        self.feet = feet
        self.reached = reached
        self.running = running
        self.ok = ok
        self.prone = prone
        self.detour = detour

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"e": EventKind.JUMP, "who": self.who, "obstacle": self.obstacle,
                             "feet": self.feet, "reached": self.reached,
                             "running": self.running, "ok": self.ok}
        if self.prone:
            d["prone"] = True
        if self.detour:
            d["detour"] = self.detour
        return d

    @staticmethod
    def from_json(d: dict[str, Any]) -> JumpEvent:
        return JumpEvent(int_of(d, "who"), str_of(d, "obstacle"), float_of(d, "feet"),
                         float_of(d, "reached"), bool_of(d, "running"), bool_of(d, "ok"),
                         bool_of(d, "prone") if "prone" in d else False,
                         float_of(d, "detour") if "detour" in d else 0.0)
