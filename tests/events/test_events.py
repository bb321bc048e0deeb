"""Typed events (vtm_sim.events): one class per kind, one JSON form, read back exactly."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from vtm_sim.core.choices import Action, ActionKind, CalledShot, DecisionKind
from vtm_sim.core.dice import ScriptedDice
from vtm_sim.data.stat_blocks import load_stat_block
from vtm_sim.engine.battle import Battle
from vtm_sim.engine.exchange import resolve_exchange
from vtm_sim.errors import ReplayError, StateError
from vtm_sim.events import (
    EVENT_CLASSES,
    ActionEvent,
    AttackEvent,
    BattleEvent,
    CaughtEvent,
    ChaseEvent,
    DecideEvent,
    EscapeEvent,
    Event,
    EventKind,
    EventLog,
    FleeEvent,
    InitiativeEvent,
    JumpEvent,
    MoveEvent,
    RollEvent,
    dumps,
    event_from_json,
)
from vtm_sim.files.scenarios import list_scenarios, load_scenario
from vtm_sim.policies.nearest import RandomPolicy
from vtm_sim.policies.play import play

CHARS = Path(__file__).resolve().parents[2] / "configs" / "characters"


def test_one_class_per_kind() -> None:
    assert sorted(cls.e for cls in EVENT_CLASSES) == sorted(EventKind)


def _sample_events() -> list[Event]:
    """Events of every kind: random battles of the scenario library, a single attack
    and the header of a log begun from a saved state."""
    out: list[Event] = []
    for name in list_scenarios():
        sc = load_scenario(name)
        for seed in range(3):
            b = sc.battle(seed=seed)
            rng = np.random.default_rng(seed)
            play(b, [RandomPolicy(rng) for _ in sc.fighters])
            out.extend(b.log)
    b = load_scenario("duel").battle(seed=1)
    out.extend(Battle.from_state(b.to_state(log=False)).log)
    thug, elder = load_stat_block(CHARS / "thug.yaml"), load_stat_block(CHARS / "elder.yaml")
    out.extend(resolve_exchange(thug, elder, dice=ScriptedDice([8] * 40)).events)
    # MOVE-3/MOVE-4 (random play flees and escapes; jumps and catches need a field and luck)
    out += [FleeEvent(0, 4.5, 2), ChaseEvent(0, 0, 3, 5, -1), ChaseEvent(1, 0, 2, 2, 5, 1),
            CaughtEvent(1, 0), CaughtEvent(1, 0, dead_end=True), EscapeEvent(0, "outran"),
            JumpEvent(0, "gap", 8.0, 12.0, True, True),
            JumpEvent(0, "gap", 8.0, 4.0, False, False, prone=True),
            JumpEvent(0, "crates", 3.0, 0.0, False, True, detour=2.0)]
    return out


def test_every_kind_round_trips_through_its_json_form() -> None:
    """from_json(to_json(e)) is e again, and writes the very same line."""
    seen: set[EventKind] = set()
    for ev in _sample_events():
        line = dumps(ev.to_json())
        back = event_from_json(json.loads(line))
        assert type(back) is type(ev) and back == ev, line
        assert dumps(back.to_json()) == line
        assert next(iter(ev.to_json())) == "e" and ev["e"] == ev.e
        seen.add(ev.e)
    assert seen == set(EventKind)


def test_optional_keys_are_written_only_when_set() -> None:
    plain = RollEvent(0, "attack", 5, 6, (1, 7), 1)
    assert plain.to_json() == {"e": "roll", "who": 0, "what": "attack", "pool": 5, "diff": 6,
                               "faces": [1, 7], "succ": 1}
    assert list(RollEvent(0, "damage", 3, 6, (1,), 0, True, True, True, 2).to_json())[-4:] == [
        "botch", "wp", "spec", "auto"]
    assert "called" not in AttackEvent(0, 1, "punch", "unarmed")
    a = AttackEvent(0, 1, "single_shot", "pistol", CalledShot.SMALL, True)
    assert a.to_json() == {"e": "attack", "who": 0, "target": 1, "maneuver": "single_shot",
                           "weapon": "pistol", "called": "small", "offhand": True}
    rolled = InitiativeEvent(1, 7, None, 6, 0, 13).to_json()
    given = InitiativeEvent(1, None, 12, 6, 1, 11).to_json()
    assert list(rolled) == ["e", "who", "die", "rating", "penalty", "total"]
    assert list(given) == ["e", "who", "given", "rating", "penalty", "total"]


def test_read_only_access_by_json_key() -> None:
    ev = MoveEvent(2, (0.0, 1.0), (3.0, 1.0), 3.0)
    assert ev["from"] == [0.0, 1.0] and ev.from_ == (0.0, 1.0)
    assert "to" in ev and "from_" not in ev and ev.get("nope") is None
    assert list(ev) == list(ev.keys()) == ["e", "who", "from", "to", "yards"]
    d = DecideEvent(0, DecisionKind.ACT, Action(ActionKind.ATTACK, "punch", 1))
    assert d["choice"] == {"kind": "attack", "maneuver": "punch", "target": 1}


def test_nothing_reachable_from_an_event_changes_it() -> None:
    """to_json hands out fresh data; an action's details are a read-only view."""
    b = load_scenario("duel").battle(seed=0)
    header = b.log.events[0]
    assert isinstance(header, BattleEvent)
    before = dumps(header.to_json())
    j = header.to_json()
    j["rules"]["name"] = "changed"
    j["combatants"][0]["sheet"]["attributes"]["strength"] = 99
    j["ambush"].append([0, 1])
    assert dumps(header.to_json()) == before
    act = ActionEvent(0, "spray", {"targets": (1, 2), "shares": (2, 1)})
    with pytest.raises(TypeError):
        act.data["targets"] = ()  # type: ignore[index]
    act.to_json()["targets"].append(3)
    assert act.to_json()["targets"] == [1, 2]


def test_a_saved_state_header_has_only_version_and_state() -> None:
    b = load_scenario("duel").battle(seed=4)
    state = b.to_state(log=False)
    header = Battle.from_state(state).log.events[0]
    assert isinstance(header, BattleEvent) and header.state is not None
    assert list(header.to_json()) == ["e", "version", "state"]
    assert header.to_json()["state"] == json.loads(json.dumps(state))


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("not json", "line 2: not JSON"),
        ("[1, 2]", "line 2: expected an event object with key 'e'"),
        ('{"e": "weather", "rain": true}', "line 2: unknown event kind 'weather'"),
        ('{"e": "turn", "turn": 2, "rain": true}', "line 2: bad turn event: unexpected 'rain'"),
        ('{"e": "stun", "who": 1}', "line 2: bad stun event: missing 'turn'"),
        ('{"e": "stun", "who": 1, "turn": "2"}', "line 2: bad stun event: 'turn' must be an"),
        ('{"e": "miss", "who": true, "target": 0, "net": 0}', "'who' must be an integer"),
        ('{"e": "defense", "who": 1, "kind": "duck", "against": 0}', "bad defense event"),
        ('{"e": "initiative", "who": 0, "rating": 5, "penalty": 0, "total": 5}',
         "one of 'die' and 'given'"),
        ('{"e": "decide", "who": 0, "kind": "act", "choice": {"kind": "fly"}}',
         "bad decide event: bad act choice"),
        ('{"e": "battle", "version": 1, "state": {}, "seed": 3}',
         "a saved-state header has no 'seed'"),
    ],
)
def test_a_bad_line_is_a_replay_error_naming_it(line: str, message: str, tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    path.write_text('{"e": "turn", "turn": 1}\n' + line + "\n", encoding="utf-8")
    with pytest.raises(ReplayError, match=f"log.jsonl: {message}" if "line" in message
                       else message):
        EventLog.read(path)


def test_a_saved_log_is_parsed_too() -> None:
    """Battle.from_state reads its log's events through the same table."""
    b = load_scenario("duel").battle(seed=2)
    state: dict[str, Any] = json.loads(json.dumps(b.to_state()))
    state["log"][1]["e"] = "weather"
    with pytest.raises(ReplayError, match="event 2: unknown event kind 'weather'"):
        EventLog.from_json(state["log"])
    with pytest.raises(StateError, match="event 2: unknown event kind 'weather'"):
        Battle.from_state(state)


def test_choices_read_back_are_the_shared_ones() -> None:
    """A decide event read back holds the very choice object a battle offers."""
    b = load_scenario("duel").battle(seed=5)
    assert b.pending is not None
    offered = b.pending.options[-1]
    b.choose(offered)
    line = json.loads(dumps(b.log.events[-1].to_json()))
    first, again = event_from_json(line), event_from_json(line)
    assert isinstance(first, DecideEvent) and isinstance(again, DecideEvent)
    assert first.choice is offered and again.choice is offered
