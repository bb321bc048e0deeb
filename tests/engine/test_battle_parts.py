"""The battle's state declared once (vtm_sim.engine.battle.STATE), and how a battle reads.

Every attribute a battle has is either part of its setup or a row of STATE,
and each row is started, copied, saved and loaded as it says; the ambush's
surprise is a named value and the plans cache is the battle's own; ``repr``
and ``str`` say where the fight stands.
"""

from __future__ import annotations

import json

import numpy as np

from vtm_sim.core.choices import ActionKind, DecisionKind
from vtm_sim.core.relations import Grip, GripKind, Surprise
from vtm_sim.engine.battle import STATE, Battle
from vtm_sim.engine.flow import Routine
from vtm_sim.files.scenarios import load_scenario
from vtm_sim.policies.nearest import NearestEnemyPolicy, RandomPolicy
from vtm_sim.policies.play import play

# Battle's setup: its arguments, never changed after (the dice are a STATE row: saved)
SETUP = {"rules", "tables", "turn_limit", "field", "seed", "ambush", "scenario"}


def mid_fight(name: str, steps: int, seed: int = 3) -> Battle:
    b = load_scenario(name).battle(seed=seed)
    pol = NearestEnemyPolicy()
    for _ in range(steps):
        assert b.pending is not None
        b.choose(pol.choose(b, b.pending))
    return b


def test_every_attribute_is_setup_or_a_row_of_state() -> None:
    rows = {p.attr for p in STATE if p.attr}
    assert len(rows) == len([p for p in STATE if p.attr]), "an attribute declared twice"
    for b in (load_scenario("duel").battle(seed=1), mid_fight("bar_brawl", 12),
              Battle.from_state(mid_fight("duel", 7).to_state()), mid_fight("duel", 7).clone()):
        for name in SETUP | rows:
            getattr(b, name)  # set, whichever way the battle was made
        if hasattr(b, "__dict__"):  # pure Python (mypyc's compiled class has fixed fields)
            assert set(vars(b)) == SETUP | rows, set(vars(b)) ^ (SETUP | rows)
    if hasattr(Battle, "__annotations__") and Battle.__annotations__:
        # each one's type is declared on the class (for mypy and mypyc), and nothing else is
        assert set(Battle.__annotations__) == SETUP | rows


def test_keys_are_saved_in_the_declared_order() -> None:
    b = mid_fight("duel", 9)
    keys = ["format", "version", "log_version"] + [p.key for p in STATE if p.key is not None]
    assert list(b.to_state()) == keys
    assert list(b.to_state(log=False)) == [k for k in keys if k != "log"]


def test_clone_copies_what_changes_and_shares_the_rest() -> None:
    b = mid_fight("bar_brawl", 15)
    b.plan(b.pending.actor, b.pending.options[0])  # type: ignore[union-attr]
    c = b.clone()
    for p in STATE:
        if not p.attr or p.attr == "dice":
            continue
        mine, theirs = getattr(b, p.attr), getattr(c, p.attr)
        if p.copy is None:
            assert theirs is mine, p.attr
        else:
            assert (theirs is not mine and theirs == mine) or p.attr == "log", p.attr
    assert c.dice is not b.dice
    assert c.log.events == b.log.events
    assert [x.id for x in c.order] == [x.id for x in b.order]
    assert all(x is c.combatants[x.id] for x in c.order)  # the clone's own combatants
    assert c.scenario == b.scenario == "bar_brawl"


def test_a_new_battle_starts_every_row_fresh() -> None:
    one, two = (load_scenario("duel").battle(seed=1, turn_limit=1) for _ in range(2))
    for p in STATE:
        if p.fresh:
            assert getattr(one, p.attr) is not getattr(two, p.attr), p.attr


def test_the_surprise_of_an_ambush_is_a_named_value_that_round_trips() -> None:
    sc = load_scenario("ambushed_vampire")
    seen = 0
    for seed in range(20):
        b = sc.battle(seed=seed)
        rng = np.random.default_rng(seed)
        while b.pending is not None:
            if any(f.routine is Routine.AMBUSH for f in b.stack) and b.surprise is not None:
                s = b.surprise
                assert isinstance(s, Surprise) and s.no_defense == (s.dice > 0)
                data = b.to_state()
                assert data["surprise"] == [s.attacker, s.target, s.dice, s.no_defense]
                again = Battle.from_state(json.loads(json.dumps(data)))
                assert again.surprise == s
                assert again.pending is not None and b.pending.options == again.pending.options
                seen += 1
            b.choose(RandomPolicy(rng).choose(b, b.pending))
        assert b.surprise is None
    assert seen


def test_the_plans_cache_is_kept_for_one_actor_and_dropped_on_a_choice() -> None:
    b = mid_fight("duel", 0)
    while b.pending is not None and not (b.pending.kind is DecisionKind.ACT and any(
            getattr(o, "kind", None) is ActionKind.ATTACK for o in b.pending.options)):
        b.choose(NearestEnemyPolicy().choose(b, b.pending))
    d = b.pending
    assert d is not None
    attack = next(o for o in d.options if getattr(o, "kind", None) is ActionKind.ATTACK)
    parts = b.planned(d.actor, attack)  # type: ignore[arg-type]
    assert parts is not None
    assert b.planned(1 - d.actor, attack) is None  # type: ignore[arg-type]
    plan = b.plan(d.actor, attack)  # type: ignore[arg-type]
    assert plan is not None and plan.maneuver == attack.maneuver  # type: ignore[union-attr]
    b.choose(attack)
    assert b.planned(d.actor, attack) is None  # type: ignore[arg-type]
    kept = b.start_plans(0)
    assert kept == {} and b.planned(0, attack) is None  # type: ignore[arg-type]
    kept[id(attack)] = parts
    assert b.planned(0, attack) == parts  # type: ignore[arg-type]
    assert b.planned(1, attack) is None  # type: ignore[arg-type]


def test_repr_is_one_line_saying_where_the_fight_stands() -> None:
    b = load_scenario("duel").battle(seed=3)
    assert b.pending is not None
    actor = b.combatants[b.pending.actor]
    assert repr(b) == f"<Battle duel turn 1, DECLARE for {actor.name} (#{actor.id})>"
    again = Battle.from_state(b.to_state())  # the scenario's name is not saved
    assert repr(again) == f"<Battle 2 combatants turn 1, DECLARE for {actor.name} (#{actor.id})>"
    play(b, [NearestEnemyPolicy(), NearestEnemyPolicy()])
    assert repr(b).startswith(f"<Battle duel over after turn {b.turn}: ")
    assert b.end_reason in repr(b) and "\n" not in repr(b)
    fresh = load_scenario("duel").battle(seed=3, turn_limit=2)
    unbegun = Battle([], start=False)
    assert repr(unbegun) == "<Battle 0 combatants not begun>"
    assert repr(fresh).startswith("<Battle duel turn 1,")


def test_str_shows_the_order_and_each_combatant_with_its_conditions() -> None:
    b = mid_fight("gunfight", 4)
    pol = NearestEnemyPolicy()
    while not b.order:  # INIT-9 (004): the turn's preliminary declarations come first
        assert b.pending is not None
        b.choose(pol.choose(b, b.pending))
    cs = b.combatants
    cs[0].prone = True
    cs[1].stunned_turn = b.turn
    grip = Grip(GripKind.CLINCH, 2, 3, b.turn)
    cs[2].grip = cs[3].grip = grip
    zone = b.field.cover[0]
    cs[4].x, cs[4].y = zone.x, zone.y
    text = str(b)
    lines = text.splitlines()
    assert lines[0] == "Battle gunfight: " + repr(b)[len("<Battle gunfight "):-1]
    assert lines[1].startswith("initiative: ") and all(c.name in lines[1] for c in b.order)
    assert len(lines) == 2 + len(cs)
    for c, line in zip(cs, lines[2:], strict=True):
        assert line.startswith(f"  #{c.id} {c.name}, side {c.side}: {c.health.level_name}")
    assert "prone" in lines[2] and "stunned" in lines[3]
    assert f"clinched with {cs[3].name} (#3)" in lines[4]
    assert f"clinched with {cs[2].name} (#2)" in lines[5]
    assert f"in cover ({zone.name})" in lines[6]
