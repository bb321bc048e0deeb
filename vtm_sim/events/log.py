"""The event log, and reading events back from their JSON form."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, Final

from vtm_sim.errors import ReplayError
from vtm_sim.events.action import ActionEvent, MoveEvent
from vtm_sim.events.attack import (
    AbortEvent,
    AmmoEvent,
    AttackEvent,
    DefenseEvent,
    HitEvent,
    MishapEvent,
    MissEvent,
)
from vtm_sim.events.chase import CaughtEvent, ChaseEvent, EscapeEvent, FleeEvent, JumpEvent
from vtm_sim.events.damage import ArmorEvent, DamageEvent, StatusEvent, StunEvent
from vtm_sim.events.event import Event
from vtm_sim.events.header import BattleEvent, ExchangeEvent
from vtm_sim.events.roll import RollEvent
from vtm_sim.events.turn import DecideEvent, EndEvent, InitiativeEvent, OrderEvent, TurnEvent

EVENT_CLASSES: Final[tuple[type[Event], ...]] = (
    BattleEvent, ExchangeEvent, TurnEvent, InitiativeEvent, OrderEvent, DecideEvent,
    RollEvent, MoveEvent, AttackEvent, DefenseEvent, AbortEvent, MissEvent, HitEvent,
    DamageEvent, ArmorEvent, StunEvent, StatusEvent, ActionEvent, AmmoEvent, MishapEvent,
    EndEvent, FleeEvent, ChaseEvent, CaughtEvent, EscapeEvent, JumpEvent,
)
# Each kind's reader, keyed by the JSON "e" value (EventKind is a str enum).
_FROM_JSON: Final[dict[str, tuple[frozenset[str], Callable[[dict[str, Any]], Event]]]] = {
    str(cls.e): (cls.KEYS, cls.from_json) for cls in EVENT_CLASSES
}


def dumps(data: dict[str, Any]) -> str:
    """One JSON line of a log (compact, UTF-8 kept as is)."""
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False)


def event_from_json(data: Any) -> Event:
    """The typed event an event's JSON form (:meth:`Event.to_json`) describes.

    Raises:
        ReplayError: not an event object, an unknown kind, a key the kind does not
            have, a missing key or a value of the wrong type.
    """
    if not isinstance(data, dict) or "e" not in data:
        raise ReplayError("expected an event object with key 'e'")
    kind = data["e"]
    entry = _FROM_JSON.get(kind) if isinstance(kind, str) else None
    if entry is None:
        raise ReplayError(f"unknown event kind {kind!r}")
    keys, from_json = entry
    if keys and not data.keys() <= keys:
        extra = ", ".join(repr(k) for k in data if k not in keys)
        raise ReplayError(f"bad {kind} event: unexpected {extra}")
    try:
        return from_json(data)
    except KeyError as exc:
        raise ReplayError(f"bad {kind} event: missing {exc}") from None
    except (TypeError, ValueError, ReplayError) as exc:
        raise ReplayError(f"bad {kind} event: {exc}") from None


class EventLog:
    """An append-only list of typed events (:mod:`vtm_sim.events`)."""

    __slots__ = ("events",)

    def __init__(self, events: Iterable[Event] = ()) -> None:
        self.events: list[Event] = list(events)

    def emit(self, event: Event) -> None:
        self.events.append(event)

    def __iter__(self) -> Iterator[Event]:
        return iter(self.events)

    def __len__(self) -> int:
        return len(self.events)

    def to_json(self) -> list[dict[str, Any]]:
        """Every event's JSON form, in order (what a saved state holds as ``log``)."""
        return [e.to_json() for e in self.events]

    @classmethod
    def from_json(cls, data: Any) -> EventLog:
        """A log from :meth:`to_json`'s list; a bad item is a ReplayError naming it."""
        if not isinstance(data, list):
            raise ReplayError("a log is a list of events")
        events: list[Event] = []
        for n, item in enumerate(data, 1):
            try:
                events.append(event_from_json(item))
            except ReplayError as exc:
                raise ReplayError(f"event {n}: {exc}") from None
        return cls(events)

    def jsonl(self) -> str:
        return "".join(dumps(e.to_json()) + "\n" for e in self.events)

    def sha256(self) -> str:
        return hashlib.sha256(self.jsonl().encode("utf-8")).hexdigest()

    def write(self, path: Path) -> None:
        path.write_text(self.jsonl(), encoding="utf-8")

    @classmethod
    def read(cls, path: Path) -> EventLog:
        """A log written by :meth:`write`; a bad line is a ReplayError naming it."""
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise ReplayError(f"{path}: cannot read ({exc.strerror})") from None
        return cls.parse(text, str(path))

    @classmethod
    def parse(cls, text: str, source: str = "log") -> EventLog:
        """A log from JSON Lines text; errors name ``source`` and the line."""
        events: list[Event] = []
        for n, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                data = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ReplayError(f"{source}: line {n}: not JSON ({exc.msg})") from None
            try:
                events.append(event_from_json(data))
            except ReplayError as exc:
                raise ReplayError(f"{source}: line {n}: {exc}") from None
        return cls(events)
