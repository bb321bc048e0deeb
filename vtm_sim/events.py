"""The event log: the single source of truth for narration, logs and replay.

An event is a flat JSON-ready dict whose ``"e"`` key is an :class:`EventKind`
value. Events are appended in the order things happen; every die rolled is in
a ``roll`` event and every decision in a ``decide`` event, so a log replays.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator
from enum import StrEnum
from pathlib import Path
from typing import Any

from vtm_sim.errors import ReplayError

Event = dict[str, Any]


class EventKind(StrEnum):
    BATTLE = "battle"  # header: setup needed to replay
    EXCHANGE = "exchange"  # header of a single attack outside a battle (vtm_sim.exchange)
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


def dumps(event: Event) -> str:
    return json.dumps(event, separators=(",", ":"), ensure_ascii=False)


class EventLog:
    """An append-only list of events."""

    __slots__ = ("events",)

    def __init__(self, events: Iterable[Event] = ()) -> None:
        self.events: list[Event] = list(events)

    def emit(self, event: Event) -> None:
        self.events.append(event)

    def __iter__(self) -> Iterator[Event]:
        return iter(self.events)

    def __len__(self) -> int:
        return len(self.events)

    def jsonl(self) -> str:
        return "".join(dumps(e) + "\n" for e in self.events)

    def sha256(self) -> str:
        return hashlib.sha256(self.jsonl().encode("utf-8")).hexdigest()

    def write(self, path: Path) -> None:
        path.write_text(self.jsonl(), encoding="utf-8")

    @classmethod
    def read(cls, path: Path) -> EventLog:
        events: list[Event] = []
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except OSError as exc:
            raise ReplayError(f"{path}: cannot read ({exc.strerror})") from None
        for n, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                ev = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ReplayError(f"{path}: line {n}: not JSON ({exc.msg})") from None
            if not isinstance(ev, dict) or "e" not in ev:
                raise ReplayError(f"{path}: line {n}: expected an event object with key 'e'")
            events.append(ev)
        return cls(events)
