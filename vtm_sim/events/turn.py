"""The turn sequence's events: turns, initiative, the acting order, decisions, the end."""

from __future__ import annotations

from typing import Any, ClassVar, Final

from vtm_sim.core.choices import Choice, DecisionKind, choice_from_json, shared
from vtm_sim.events.event import (
    Event,
    EventKind,
    dict_of,
    int_of,
    ints_of,
    member_of,
    members,
    opt_int_of,
    str_of,
)

_DECISIONS: Final = members(DecisionKind)
# Choices read back, by kind and JSON items: a log repeats a few choices many times,
# and a choice costs ten times as much to build as to look up. Shared (and equal to
# each other) like the choices a battle offers; the table stays as small as theirs.
_READ: Final[dict[tuple[DecisionKind, tuple[tuple[str, Any], ...]], Choice]] = {}


# Slotted with their own __init__, read-only by convention (see vtm_sim.events.event).
class TurnEvent(Event):
    """A turn begins (numbered from 1)."""

    __slots__ = ("turn",)
    e: ClassVar[EventKind] = EventKind.TURN
    KEYS: ClassVar[frozenset[str]] = frozenset(("e", "turn"))

    turn: int

    def __init__(self, turn: int) -> None:
        self.turn = turn

    def to_json(self) -> dict[str, Any]:
        return {"e": EventKind.TURN, "turn": self.turn}

    @staticmethod
    def from_json(d: dict[str, Any]) -> TurnEvent:
        return TurnEvent(int_of(d, "turn"))


class InitiativeEvent(Event):
    """INIT-2..4: ``who``'s initiative: the ``die`` rolled, or, for the first turn of
    a state file, the total ``given`` there (exactly one of the two is set); the
    ``rating``, the wound ``penalty`` and the ``total`` it stands at."""

    __slots__ = ("die", "given", "penalty", "rating", "total", "who")
    e: ClassVar[EventKind] = EventKind.INITIATIVE
    KEYS: ClassVar[frozenset[str]] = frozenset(
        ("e", "who", "die", "given", "rating", "penalty", "total"))

    who: int
    die: int | None
    given: int | None
    rating: int
    penalty: int
    total: int

    def __init__(self, who: int, die: int | None, given: int | None, rating: int,
                 penalty: int, total: int) -> None:
        self.who = who
        self.die = die
        self.given = given
        self.rating = rating
        self.penalty = penalty
        self.total = total

    def to_json(self) -> dict[str, Any]:
        if self.given is not None:
            return {"e": EventKind.INITIATIVE, "who": self.who, "given": self.given,
                    "rating": self.rating, "penalty": self.penalty, "total": self.total}
        return {"e": EventKind.INITIATIVE, "who": self.who, "die": self.die,
                "rating": self.rating, "penalty": self.penalty, "total": self.total}

    @staticmethod
    def from_json(d: dict[str, Any]) -> InitiativeEvent:
        if ("die" in d) == ("given" in d):
            raise ValueError("an initiative event has one of 'die' and 'given'")
        return InitiativeEvent(
            int_of(d, "who"), int_of(d, "die") if "die" in d else None,
            int_of(d, "given") if "given" in d else None, int_of(d, "rating"),
            int_of(d, "penalty"), int_of(d, "total"),
        )


class OrderEvent(Event):
    """INIT-3: the acting order of the turn, by combatant id."""

    __slots__ = ("order",)
    e: ClassVar[EventKind] = EventKind.ORDER
    KEYS: ClassVar[frozenset[str]] = frozenset(("e", "order"))

    order: tuple[int, ...]

    def __init__(self, order: tuple[int, ...]) -> None:
        self.order = order

    def to_json(self) -> dict[str, Any]:
        return {"e": EventKind.ORDER, "order": list(self.order)}

    @staticmethod
    def from_json(d: dict[str, Any]) -> OrderEvent:
        return OrderEvent(ints_of(d, "order"))


class DecideEvent(Event):
    """``who`` answered a ``kind`` decision with ``choice`` (a shared, immutable
    :mod:`vtm_sim.core.choices` object; its JSON is written)."""

    __slots__ = ("choice", "kind", "who")
    e: ClassVar[EventKind] = EventKind.DECIDE
    KEYS: ClassVar[frozenset[str]] = frozenset(("e", "who", "kind", "choice"))

    who: int
    kind: DecisionKind
    choice: Choice

    def __init__(self, who: int, kind: DecisionKind, choice: Choice) -> None:
        self.who = who
        self.kind = kind
        self.choice = choice

    def to_json(self) -> dict[str, Any]:
        return {"e": EventKind.DECIDE, "who": self.who, "kind": self.kind.value,
                "choice": self.choice.to_json()}

    @staticmethod
    def from_json(d: dict[str, Any]) -> DecideEvent:
        kind = member_of(d, "kind", _DECISIONS)
        return DecideEvent(int_of(d, "who"), kind, _read_choice(kind, dict_of(d, "choice")))


def _read_choice(kind: DecisionKind, data: dict[str, Any]) -> Choice:
    key = (kind, tuple(data.items()))
    try:
        choice = _READ.get(key)
    except TypeError:  # a list or an object in it: no choice (choice_from_json says why)
        return choice_from_json(kind, data)
    if choice is None:
        choice = _READ[key] = shared(choice_from_json(kind, data))
    return choice


class EndEvent(Event):
    """The battle is over after ``turns``: ``winner`` the side left (None: nobody),
    ``reason`` ``victory``, ``escape`` (the losers' last ran off, MOVE-4), ``all down``
    or ``turn limit``."""

    __slots__ = ("reason", "turns", "winner")
    e: ClassVar[EventKind] = EventKind.END
    KEYS: ClassVar[frozenset[str]] = frozenset(("e", "winner", "turns", "reason"))

    winner: int | None
    turns: int
    reason: str

    def __init__(self, winner: int | None, turns: int, reason: str) -> None:
        self.winner = winner
        self.turns = turns
        self.reason = reason

    def to_json(self) -> dict[str, Any]:
        return {"e": EventKind.END, "winner": self.winner, "turns": self.turns,
                "reason": self.reason}

    @staticmethod
    def from_json(d: dict[str, Any]) -> EndEvent:
        return EndEvent(opt_int_of(d, "winner"), int_of(d, "turns"), str_of(d, "reason"))
