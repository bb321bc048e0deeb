"""Replaying a battle log: rebuild the setup, re-feed dice and choices, compare."""

from __future__ import annotations

from typing import Any

from vtm_sim.core.choices import shared
from vtm_sim.core.dice import ScriptedDice
from vtm_sim.data.rules import RuleSet
from vtm_sim.data.stat_blocks import StatBlockSpec, build_stat_block
from vtm_sim.engine.battle import Battle, Fighter, field_from_json
from vtm_sim.errors import (
    ConfigError,
    IllegalActionError,
    LogFormatError,
    ReplayError,
    StateError,
)
from vtm_sim.events import (
    BattleEvent,
    DecideEvent,
    Event,
    EventLog,
    InitiativeEvent,
    RollEvent,
    dumps,
)
from vtm_sim.files.state_files import Standing, apply_standing


def fighters_from_header(header: BattleEvent) -> list[Fighter]:
    out = []
    for c in header.combatants:
        spec = StatBlockSpec.model_validate(c["sheet"])
        stats = build_stat_block(spec, f"log combatant {c['id']}")
        out.append(Fighter(stats, int(c["side"]), float(c["x"]), float(c["y"]),
                           bool(c.get("prone", False)), bool(c.get("blinded", False))))
    return out


def replay(log: EventLog) -> Battle:
    """Re-run a logged battle from its header, dice and decisions.

    Raises ReplayError unless the re-run produces the very same events.
    """
    try:
        return _replay(log)
    except ReplayError:
        raise
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
        raise ReplayError(f"log does not replay: {type(exc).__name__}: {exc}") from None


def _replay(log: EventLog) -> Battle:
    events = log.events
    if not events or not isinstance(events[0], BattleEvent):
        raise LogFormatError("log does not start with a 'battle' header event")
    header = events[0]
    if header.state is not None:  # a log begun from a saved state (Battle.from_state)
        return _replay_from_state(log, header.state)
    if header.turn_limit is None:  # only a saved-state header has none
        raise ReplayError("bad battle header: no turn_limit")
    try:
        rules = RuleSet.model_validate(header.rules)
        fighters = fighters_from_header(header)
    except (KeyError, TypeError, ValueError, ConfigError) as exc:
        raise LogFormatError(f"bad battle header: {exc}") from None
    faces, decisions = _dice_and_decisions(events)
    try:
        field = field_from_json(header.field or {})
    except (KeyError, TypeError, ValueError) as exc:
        raise ReplayError(f"bad battle header field: {exc}") from None
    standing = header.standing
    battle = Battle(
        fighters, seed=header.seed, dice=ScriptedDice(faces, "log"), rules=rules,
        turn_limit=header.turn_limit, field=field, ambush=header.ambush,
        start=standing is None,
    )
    if standing is not None:  # a battle started from a state file (vtm_sim.files.state_files)

        apply_standing(battle, Standing.model_validate(standing))
        battle.begin()
    _decide(battle, decisions)
    verify(log, battle.log)
    return battle


def _dice_and_decisions(events: list[Event]) -> tuple[list[int], list[DecideEvent]]:
    """Every die rolled (in order) and every decision taken, as the log records them."""
    faces: list[int] = []
    decisions: list[DecideEvent] = []
    for ev in events:
        if isinstance(ev, RollEvent):
            faces.extend(ev.faces)
        elif isinstance(ev, InitiativeEvent):
            if ev.die is not None:
                faces.append(ev.die)
        elif isinstance(ev, DecideEvent):
            decisions.append(ev)
    return faces, decisions


def _replay_from_state(log: EventLog, state: dict[str, Any]) -> Battle:
    faces, decisions = _dice_and_decisions(log.events)
    try:
        battle = Battle.from_state(state, dice=ScriptedDice(faces, "log"))
    except StateError as exc:
        raise LogFormatError(f"bad battle header: {exc}") from None
    _decide(battle, decisions)
    verify(log, battle.log)
    return battle


def _decide(battle: Battle, decisions: list[DecideEvent]) -> None:
    for n, ev in enumerate(decisions):
        pending = battle.pending
        if pending is None:
            raise ReplayError(f"decision {n + 1}: the battle had already ended")
        if pending.kind is not ev.kind or pending.actor != ev.who:
            raise ReplayError(
                f"decision {n + 1}: log has {ev.kind.value} by {ev.who}, "
                f"replay asks {pending.kind.value} of {pending.actor}"
            )
        try:
            battle.choose(shared(ev.choice))
        except IllegalActionError as exc:
            raise ReplayError(f"decision {n + 1}: {exc}") from None


def verify(original: EventLog, replayed: EventLog) -> None:
    """The two logs must match event for event."""
    for n, (a, b) in enumerate(zip(original.events, replayed.events, strict=False), 1):
        la, lb = dumps(a.to_json()), dumps(b.to_json())
        if la != lb:
            raise ReplayError(f"event {n} differs: log {la} vs replay {lb}")
    if len(original) != len(replayed):
        raise ReplayError(f"log has {len(original)} events, replay {len(replayed)}")
