"""What a combatant does besides attacking: moves, and named actions with their details."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, ClassVar, Final

from vtm_sim.events.event import Event, EventKind, float_of, int_of, point_of, str_of

_NOTHING: Final[Mapping[str, Any]] = MappingProxyType({})


# Slotted with their own __init__, read-only by convention (see vtm_sim.events.event).
class MoveEvent(Event):
    """``who`` moves ``yards`` in a straight line ``from_`` one point ``to`` another
    (JSON ``from`` and ``to``, ``[x, y]`` each)."""

    __slots__ = ("from_", "to", "who", "yards")
    e: ClassVar[EventKind] = EventKind.MOVE
    KEYS: ClassVar[frozenset[str]] = frozenset(("e", "who", "from", "to", "yards"))

    who: int
    from_: tuple[float, float]
    to: tuple[float, float]
    yards: float

    def __init__(self, who: int, from_: tuple[float, float], to: tuple[float, float],
                 yards: float) -> None:
        self.who = who
        self.from_ = from_
        self.to = to
        self.yards = yards

    def to_json(self) -> dict[str, Any]:
        return {"e": EventKind.MOVE, "who": self.who, "from": list(self.from_),
                "to": list(self.to), "yards": self.yards}

    @staticmethod
    def from_json(d: dict[str, Any]) -> MoveEvent:
        return MoveEvent(int_of(d, "who"), point_of(d, "from"), point_of(d, "to"),
                         float_of(d, "yards"))


class ActionEvent(Event):
    """``who`` does ``action`` (``aim``, ``clinch``, ``drink``, ``blood``, ``spray``...);
    ``data`` holds its details, written after ``action`` in their order.

    One class for every action, not one per action: there are some thirty, most
    with a detail or two (``target``, ``ok``, ``cover``...), they are told by
    name (narration) and compared as a whole (replay), and nothing decides
    anything by reading them; a class each would be thirty more to keep in step
    with the emit sites for no reader that needs their types. ``data`` is a
    read-only view of a dict the event owns; list details are tuples in it (JSON
    lists in :meth:`to_json`), so nothing reachable from the event can change.
    """

    __slots__ = ("action", "data", "who")
    e: ClassVar[EventKind] = EventKind.ACTION
    KEYS: ClassVar[frozenset[str]] = frozenset()  # any detail may follow "action"

    who: int
    action: str
    data: Mapping[str, Any]

    def __init__(self, who: int, action: str, data: dict[str, Any] | None = None) -> None:
        """``data`` becomes the event's own: the caller passes a dict it no longer
        uses (``say(**data)``'s is fresh), with tuples, not lists."""
        self.who = who
        self.action = action
        self.data = _NOTHING if not data else MappingProxyType(data)

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"e": EventKind.ACTION, "who": self.who, "action": self.action}
        for k, v in self.data.items():
            d[k] = list(v) if type(v) is tuple else v
        return d

    @staticmethod
    def from_json(d: dict[str, Any]) -> ActionEvent:
        data: dict[str, Any] = {}
        for k, v in d.items():
            if k not in ("e", "who", "action"):
                if type(v) is list:
                    v = tuple(v)
                elif type(v) is dict:
                    raise TypeError(f"{k!r}: an action's details are not objects")
                data[k] = v
        return ActionEvent(int_of(d, "who"), str_of(d, "action"), data)
