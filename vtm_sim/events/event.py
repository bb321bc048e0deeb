"""What every event is: its kind, its JSON form, and read-only access by JSON key.

Events are built on the hot path (every die rolled is in one), so the classes are
plain slotted classes with their own ``__init__``, read-only by convention: a frozen
dataclass costs about five times as much to build (4-7% of a whole duel), and a
``__setattr__`` guard as much again. Not dataclasses at all: mypyc hands a compiled
dataclass's class variables (``e``, ``KEYS``) to ``dataclass`` as fields. Equality and
``repr`` come from the JSON form. Nothing may change an event once it is built, and
nothing reachable from one changes either: sequences are tuples, details mappings
read-only views, and ``to_json`` returns fresh lists and dicts.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, KeysView
from enum import Enum, StrEnum
from typing import Any, ClassVar, TypeVar

M = TypeVar("M", bound=Enum)


class EventKind(StrEnum):
    BATTLE = "battle"  # header: setup needed to replay
    EXCHANGE = "exchange"  # header of a single attack outside a battle (vtm_sim.engine.exchange)
    TURN = "turn"
    INITIATIVE = "initiative"
    ORDER = "order"
    DECIDE = "decide"
    ROLL = "roll"
    MOVE = "move"
    ATTACK = "attack"
    DEFENSE = "defense"
    ABORT = "abort"
    MISS = "miss"
    HIT = "hit"
    DAMAGE = "damage"
    ARMOR = "armor"
    STUN = "stun"
    STATUS = "status"
    ACTION = "action"
    AMMO = "ammo"
    MISHAP = "mishap"
    END = "end"
    FLEE = "flee"  # MOVE-4 (vtm_sim.events.chase)
    CHASE = "chase"
    CAUGHT = "caught"
    ESCAPED = "escaped"
    JUMP = "jump"  # MOVE-3


class Event:
    """The base of the event classes: one per :class:`EventKind`.

    ``e`` is the kind (the JSON ``"e"`` key). :meth:`to_json` is the one JSON
    form of the event, the line a log writes. The mapping methods read that
    form by key (``ev["who"]``, ``ev.get("botch")``, ``"given" in ev``): a
    convenience for tests and scripts, each call builds the JSON form, so
    the package's own readers (narration, the story) read the typed
    attributes instead.
    """

    __slots__ = ()
    e: ClassVar[EventKind]
    # the JSON keys an event of this kind may have (optional ones included)
    KEYS: ClassVar[frozenset[str]]

    def to_json(self) -> dict[str, Any]:
        """The event's JSON form, its log line: a fresh dict, ``"e"`` first, optional
        keys only when set."""
        raise NotImplementedError

    @staticmethod
    def from_json(d: dict[str, Any]) -> Event:
        """The event of a JSON form of this kind (key types checked; raises KeyError,
        TypeError or ValueError). Read through :func:`vtm_sim.events.event_from_json`."""
        raise NotImplementedError

    def __getitem__(self, key: str) -> Any:
        return self.to_json()[key]

    def get(self, key: str, default: Any = None) -> Any:
        return self.to_json().get(key, default)

    def __contains__(self, key: object) -> bool:
        return key in self.to_json()

    def __iter__(self) -> Iterator[str]:
        return iter(self.to_json())

    def keys(self) -> KeysView[str]:
        return self.to_json().keys()

    def __eq__(self, other: object) -> bool:
        """Same kind, same JSON form (events are not hashable)."""
        return type(other) is type(self) and isinstance(other, Event) and (
            self.to_json() == other.to_json())

    def __repr__(self) -> str:
        return f"{type(self).__name__}({json.dumps(self.to_json(), ensure_ascii=False)})"


# --- reading JSON values back (from_json): exact types, or a TypeError naming the key


def int_of(d: dict[str, Any], key: str) -> int:
    v = d[key]
    if type(v) is not int:
        raise TypeError(f"{key!r} must be an integer, not {v!r}")
    return v


def opt_int_of(d: dict[str, Any], key: str) -> int | None:
    v = d[key]
    return None if v is None else int_of(d, key)


def float_of(d: dict[str, Any], key: str) -> float:
    v = d[key]
    if type(v) is not float and type(v) is not int:
        raise TypeError(f"{key!r} must be a number, not {v!r}")
    return float(v)


def str_of(d: dict[str, Any], key: str) -> str:
    v = d[key]
    if type(v) is not str:
        raise TypeError(f"{key!r} must be a string, not {v!r}")
    return v


def opt_str_of(d: dict[str, Any], key: str) -> str | None:
    v = d[key]
    return None if v is None else str_of(d, key)


def bool_of(d: dict[str, Any], key: str) -> bool:
    v = d[key]
    if type(v) is not bool:
        raise TypeError(f"{key!r} must be true or false, not {v!r}")
    return v


def dict_of(d: dict[str, Any], key: str) -> dict[str, Any]:
    v = d[key]
    if type(v) is not dict:
        raise TypeError(f"{key!r} must be an object, not {v!r}")
    return v


def list_of(d: dict[str, Any], key: str) -> list[Any]:
    v = d[key]
    if type(v) is not list:
        raise TypeError(f"{key!r} must be a list, not {v!r}")
    return v


def ints_of(d: dict[str, Any], key: str) -> tuple[int, ...]:
    v = list_of(d, key)
    for x in v:
        if type(x) is not int:
            raise TypeError(f"{key!r} must be a list of integers, not {v!r}")
    return tuple(v)


def point_of(d: dict[str, Any], key: str) -> tuple[float, float]:
    v = list_of(d, key)
    if len(v) == 2:
        x, y = v
        if (type(x) is float or type(x) is int) and (type(y) is float or type(y) is int):
            return float(x), float(y)
    raise TypeError(f"{key!r} must be [x, y], not {v!r}")


def members(enum: type[M]) -> dict[str, M]:
    """An enumeration's members by value, for :func:`member_of`."""
    return {m.value: m for m in enum}


def member_of(d: dict[str, Any], key: str, by_value: dict[str, M]) -> M:
    """The member named by ``d[key]`` (a dict lookup: calling the enum costs ten times
    as much, and reading a saved log's every event pays it)."""
    v = d[key]
    m = by_value.get(v) if type(v) is str else None
    if m is None:
        raise ValueError(f"{key!r} must be one of {', '.join(map(repr, by_value))}, not {v!r}")
    return m


def copy_json(v: Any) -> Any:
    """A deep copy of a JSON value (tuples become lists), so no reader can change
    the value an event holds."""
    if type(v) is dict:
        return {k: copy_json(x) for k, x in v.items()}
    if type(v) is list or type(v) is tuple:
        return [copy_json(x) for x in v]
    return v
