"""Battle.chance: the roll an option leads to, read without touching the battle.

The point is checked against the attack the battle really rolls: its first
attack roll's pool and difficulty, and the defense logged for it.
"""

from __future__ import annotations

import numpy as np
import pytest
from rule_helpers import block, puncher_at_its_action

from vtm_sim.core.choices import (
    NO_DEFENSE,
    AbortMethod,
    Action,
    ActionKind,
    Choice,
    Decision,
    DecisionKind,
    Declaration,
    Defense,
    DefenseKind,
)
from vtm_sim.core.dice import RngDice, ScriptedDice
from vtm_sim.engine.battle import Battle, Fighter
from vtm_sim.engine.chances import ChancePoint, with_weapon_drawn
from vtm_sim.events import DefenseEvent, RollEvent
from vtm_sim.files.scenarios import load_scenario
from vtm_sim.mechanics.attack import BASE_DIFFICULTY
from vtm_sim.policies.nearest import NearestEnemyPolicy

NEAREST = NearestEnemyPolicy()


def _dodge(_b: Battle, d: Decision) -> Choice:
    return next(o for o in d.options if isinstance(o, Defense) and o.kind is DefenseKind.DODGE)


def test_the_point_is_the_attack_as_planned_and_the_battle_is_untouched() -> None:
    b, punch = puncher_at_its_action(Declaration(1, full_defense=True))
    before = (len(b.log), b.to_state(log=False))
    point = b.chance(punch, _dodge)
    assert isinstance(point, ChancePoint)
    assert (len(b.log), b.to_state(log=False)) == before
    assert point.actor == 0 and point.target == 1 and point.targets == (1,)
    assert point.plan == b.plan(0, punch)
    assert point.defense is DefenseKind.DODGE and point.abort_roll is None
    assert NO_DEFENSE in point.offered and len(point.offered) > 1
    assert point.defense_difficulty == BASE_DIFFICULTY + point.defense_extra
    assert point.defender.id == 1 and point.defender is not b.combatants[1]


def test_the_point_is_what_the_battle_rolls() -> None:
    """Played on, the battle rolls the point's pool at its difficulty and logs its defense."""
    for declares in (Declaration(2), Declaration(1, full_defense=True)):
        scripted, punch = puncher_at_its_action(declares)
        b = scripted.clone(dice=RngDice(np.random.default_rng(7)))
        point = b.chance(punch, _dodge)
        assert point is not None
        start = len(b.log)
        b.choose(punch)
        while b.pending is not None and b.pending.kind is DecisionKind.DEFEND:
            b.choose(_dodge(b, b.pending))
        events = b.log.events[start:]
        roll = next(e for e in events if isinstance(e, RollEvent) and e.what == "attack")
        assert (roll.pool, roll.diff) == (point.plan.pool, point.plan.difficulty)
        logged = [e.kind for e in events if isinstance(e, DefenseEvent)]
        assert logged == ([] if point.defense is DefenseKind.NONE else [point.defense])


def test_an_abort_by_roll_gives_the_roll_it_hangs_on() -> None:
    b, punch = puncher_at_its_action(Declaration(1))

    def by_roll(_b: Battle, d: Decision) -> Choice:
        return next(o for o in d.options if isinstance(o, Defense)
                    and o.abort is AbortMethod.ROLL)

    point = b.chance(punch, by_roll)
    assert point is not None and point.abort_roll == (1, b.rules.abort_difficulty)
    assert point.defense is not DefenseKind.NONE


def test_no_defense_by_default_and_none_for_what_is_not_an_attack() -> None:
    b, punch = puncher_at_its_action(Declaration(2))
    point = b.chance(punch)
    assert point is not None and point.defense is DefenseKind.NONE
    assert point.defense_penalty == 0
    assert b.pending is not None
    others = [o for o in b.pending.options
              if not (isinstance(o, Action) and o.kind is ActionKind.ATTACK)]
    assert others and all(b.chance(o) is None for o in others)


def test_with_weapon_drawn_asks_the_action_again() -> None:
    b = load_scenario("duel").battle(seed=2)
    while b.pending is not None and b.pending.kind is not DecisionKind.ACT:
        b.choose(NEAREST.choose(b, b.pending))
    d = b.pending
    assert d is not None
    me = b.combatants[d.actor]
    spare = [i for i in range(len(me.stats.weapons)) if i != me.wielding]
    before = b.to_state(log=False)
    for i in spare:
        fork = with_weapon_drawn(b, i)
        assert fork.combatants[d.actor].wielding == i
        assert fork.pending is not None and fork.pending.actor == d.actor
        fork.choose(fork.pending.options[0])  # the engine takes its options
    assert b.to_state(log=False) == before


# --- acting: any combatant's action, asked in a copy of the battle as it stands -------------


def _state(tmp_path: object, text: str) -> Battle:
    from pathlib import Path

    from vtm_sim.files.state_files import load_state

    p = Path(str(tmp_path)) / "s.yaml"
    p.write_text(text, encoding="utf-8")
    return load_state(p)


def test_acting_asks_without_playing_and_leaves_the_battle_alone(tmp_path: object) -> None:
    from vtm_sim.engine.chances import acting

    b = _state(tmp_path, "scenario: gunfight\nturn: 2\ncombatants:\n"
                         "  Detective Ortiz: {damage: {lethal: 4}}\n")
    before = b.to_state()
    pending = b.pending
    fork = acting(b, 2)
    assert fork is not None and fork.pending is not None
    assert fork.pending.kind is DecisionKind.ACT and fork.pending.actor == 2
    assert b.to_state() == before and b.pending is pending
    assert fork.combatants[2].health.marks() == b.combatants[2].health.marks()
    assert fork.turn == b.turn and len(fork.log) == len(b.log)  # no decision, no die
    assert any(isinstance(o, Action) and o.kind is ActionKind.ATTACK
               for o in fork.pending.options)
    two = acting(b, 2, declared=2)  # ACT-1: two actions declared, -2 dice on the first
    assert two is not None
    shot = next(o for o in fork.pending.options if isinstance(o, Action)
                and o.kind is ActionKind.ATTACK and o.maneuver == "single_shot")
    p1, p2 = fork.plan(2, shot), two.plan(2, shot)
    assert p1 is not None and p2 is not None and p2.pool == p1.pool - 2


def test_CPX_2_a_stunned_combatant_is_not_asked(tmp_path: object) -> None:
    from vtm_sim.engine.chances import acting

    b = _state(tmp_path, "scenario: gunfight\nturn: 2\ncombatants:\n"
                         "  Detective Ortiz: {stunned: true}\n")
    assert acting(b, 2) is None


def test_acting_at_the_actors_own_pending_action_is_that_decision() -> None:
    from vtm_sim.engine.chances import acting

    b, _ = puncher_at_its_action(Declaration())
    d = b.pending
    assert d is not None and d.kind is DecisionKind.ACT
    fork = acting(b, d.actor)
    assert fork is not None and fork.pending is not None
    assert fork.pending.options == d.options


def test_MAN_6_break_free_chance_is_the_resisted_roll_enumerated() -> None:
    """MAN-6: the escaper needs more successes than the holder (Strength + Brawl, diff 6);
    checked against a plain enumeration of two one-die rolls."""
    from vtm_sim.engine.effects import break_free_chance

    one = block("One", attrs={"strength": 1, "dexterity": 1, "stamina": 1, "wits": 1})
    b = Battle([Fighter(one, 0, 0.0), Fighter(one, 1, 1.0)], dice=ScriptedDice([10, 1]),
               turn_limit=1)
    e, h = b.combatants
    # one die each: a success on 6-10 (10 counts once here), a 1 botches to 0
    p_one = 5 / 10
    assert break_free_chance(b, e, h) == pytest.approx(p_one * (1 - p_one))
