"""The event log: the single source of truth for narration, logs and replay.

An event is a typed, read-only object, one class per :class:`EventKind`
(``RollEvent``, ``AttackEvent``, ...), built once where the thing happens and
never changed after. Events are appended to an :class:`EventLog` in the order
things happen; every die rolled is in a ``roll`` event and every decision in a
``decide`` event, so a log replays (:mod:`vtm_sim.files.replay`).

Each event has one JSON form, :meth:`Event.to_json`: a flat dict whose ``"e"``
key is the kind, optional keys present only when set (a roll's ``botch``, an
attack's ``called``). A log file is those dicts as JSON Lines
(:meth:`EventLog.write`); :meth:`EventLog.read` and :func:`event_from_json` parse
them back through one table keyed by kind, refusing unknown kinds, unknown keys
and ill-typed values. ``ev["who"]``, ``ev.get("botch")`` and ``"given" in ev``
read the JSON form by key (a convenience; hot code reads attributes).

The modules: :mod:`~vtm_sim.events.event` (the base and the kinds),
:mod:`~vtm_sim.events.header` (``battle``, ``exchange``),
:mod:`~vtm_sim.events.turn` (turns, initiative, order, decisions, the end),
:mod:`~vtm_sim.events.roll`, :mod:`~vtm_sim.events.attack` (an attack up to its
hit or miss), :mod:`~vtm_sim.events.damage` (what a blow does),
:mod:`~vtm_sim.events.action` (moves and named actions),
:mod:`~vtm_sim.events.chase` (flights, chase rolls, jumps) and
:mod:`~vtm_sim.events.log`.
"""

from __future__ import annotations

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
from vtm_sim.events.event import Event, EventKind
from vtm_sim.events.header import BattleEvent, ExchangeEvent
from vtm_sim.events.log import EVENT_CLASSES, EventLog, dumps, event_from_json
from vtm_sim.events.roll import RollEvent
from vtm_sim.events.turn import DecideEvent, EndEvent, InitiativeEvent, OrderEvent, TurnEvent

__all__ = [
    "EVENT_CLASSES",
    "AbortEvent",
    "ActionEvent",
    "AmmoEvent",
    "ArmorEvent",
    "AttackEvent",
    "BattleEvent",
    "CaughtEvent",
    "ChaseEvent",
    "DamageEvent",
    "DecideEvent",
    "DefenseEvent",
    "EndEvent",
    "EscapeEvent",
    "Event",
    "EventKind",
    "EventLog",
    "ExchangeEvent",
    "FleeEvent",
    "HitEvent",
    "InitiativeEvent",
    "JumpEvent",
    "MishapEvent",
    "MissEvent",
    "MoveEvent",
    "OrderEvent",
    "RollEvent",
    "StatusEvent",
    "StunEvent",
    "TurnEvent",
    "dumps",
    "event_from_json",
]
