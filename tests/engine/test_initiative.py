"""Turn order with fixed dice: INIT-1..8, driven through ``Battle.pending``/``choose``."""

from __future__ import annotations

import pytest
from rule_helpers import (
    ACT,
    DECLARE,
    DEFEND,
    DELAY,
    DODGE,
    NONE,
    ONE,
    PASS,
    WAIT,
    attack,
    battle,
    battle_on,
    block,
    declare_all,
    events,
    offered,
    one_success,
    rolls,
    run,
    skip_blood,
    step,
)

from vtm_sim.core.choices import (
    Action,
    ActionKind,
    BloodSpend,
    BloodUse,
    Decision,
    DecisionKind,
    Declaration,
)
from vtm_sim.core.dice import ScriptedDice
from vtm_sim.data.rules import RuleSet, load_rules
from vtm_sim.data.stat_blocks import StatBlock
from vtm_sim.data.tables import DamageType
from vtm_sim.engine.battle import Battle, Fighter
from vtm_sim.events import EventKind

BLOOD = DecisionKind.BLOOD


def profile(preliminary: str, **more: object) -> RuleSet:
    """v20 with INIT-9's order (and any other option) set."""
    return load_rules("v20").model_copy(update={"preliminary_actions": preliminary, **more})


def quick(dex: int, wits: int, name: str = "c", **kw: object) -> StatBlock:
    return block(name, attrs={"dexterity": dex, "wits": wits, **kw})  # type: ignore[dict-item]


def act_actors(b: Battle) -> list[int]:
    return [e["who"] for e in events(b, EventKind.DECIDE, kind="act")]


def pass_everything(d: Decision) -> object:
    if d.kind is DECLARE:
        return ONE
    if d.kind is ACT:
        return PASS
    return NONE


# --- INIT-1: a turn is initiative, actions, resolution ------------------------------


@pytest.mark.parametrize("preliminary", ["001", "004"])
def test_INIT_1_turn_stages_initiative_then_declarations_then_actions(preliminary: str) -> None:
    """INIT-1, INIT-9: 001 rolls initiative, then declares; 004 declares first."""
    fs = [Fighter(quick(2, 2, "a"), 0, 0, 0), Fighter(quick(3, 3, "b"), 1, 1, 0)]
    b = battle_on(fs, [4, 4, 7, 1], turn_limit=2, rules_set=profile(preliminary))
    run(b, pass_everything)  # type: ignore[arg-type]
    seq = []
    for e in b.log.events[1:]:
        tag = e["e"] if e["e"] != EventKind.DECIDE else f"decide:{e['kind']}"
        if not seq or seq[-1] != tag:
            seq.append(tag)
    turn_seq = [
        "turn",
        *(["initiative", "order", "decide:declare"] if preliminary == "001"
          else ["decide:declare", "initiative", "order"]),
        "decide:act",
        "action",
        "decide:act",
        "action",
    ]
    expected = [*turn_seq, *turn_seq, "end"]
    expected = [t for i, t in enumerate(expected) if i == 0 or t != expected[i - 1]]
    assert [str(s) for s in seq] == expected
    assert [e["turn"] for e in events(b, EventKind.TURN)] == [1, 2]
    (end,) = events(b, EventKind.END)
    assert (end["turns"], end["reason"], end["winner"]) == (2, "turn limit", None)


# --- INIT-2: Dexterity + Wits + 1d10, highest first -----------------------------------


@pytest.mark.parametrize(
    ("ratings", "dice", "order"),
    [
        ([(2, 2), (3, 3), (1, 1)], [5, 5, 5], [1, 0, 2]),  # 9, 11, 7
        ([(2, 2), (3, 3), (1, 1)], [10, 1, 9], [0, 2, 1]),  # 14, 7, 11
        ([(5, 4), (1, 1), (2, 3)], [1, 10, 3], [1, 0, 2]),  # 10, 12, 8
    ],
)
def test_INIT_2_initiative_is_dex_plus_wits_plus_d10_highest_first(
    ratings: list[tuple[int, int]], dice: list[int], order: list[int]
) -> None:
    fs = [Fighter(quick(d, w, f"c{i}"), i % 2, i, 0) for i, (d, w) in enumerate(ratings)]
    b = battle(fs, dice)
    declare_all(b)  # INIT-9 (004): the roll comes after the declarations
    inits = events(b, EventKind.INITIATIVE)
    totals = [d + w + die for (d, w), die in zip(ratings, dice, strict=True)]
    assert [e["total"] for e in inits] == totals
    assert [e["rating"] for e in inits] == [d + w for d, w in ratings]
    assert [e["die"] for e in inits] == dice
    (order_event,) = events(b, EventKind.ORDER)
    assert order_event["order"] == order
    assert [c.id for c in b.order] == order


# --- INIT-3: ties ---------------------------------------------------------------------


def test_INIT_3_tie_goes_to_higher_rating() -> None:
    """INIT-3: both total 12; the one with rating 8 (die 4) beats rating 4 (die 8)."""
    fs = [Fighter(quick(2, 2, "low"), 0, 0, 0), Fighter(quick(4, 4, "high"), 1, 1, 0)]
    b = battle(fs, [8, 4])
    declare_all(b)
    assert [c.id for c in b.order] == [1, 0]
    step(b, ACT, 1, PASS)
    step(b, ACT, 0, PASS)
    assert b.pending is None


@pytest.mark.parametrize("damage_successes", [6, 10])
def test_INIT_3_equal_total_and_rating_act_simultaneously(damage_successes: int) -> None:
    """INIT-3: same total and rating: the second still acts, with its pre-hit pool,
    even when the first's blow cripples (6 levels, -5) or incapacitates it (10)."""
    a = block(
        "a", attrs={"dexterity": 3, "wits": 3, "strength": 10, "stamina": 1}, abil={"brawl": 3}
    )
    b_ = block("b", attrs={"dexterity": 3, "wits": 3, "stamina": 1}, abil={"brawl": 1})
    dmg = [6] * damage_successes + [2] * (10 - damage_successes)
    # init 5/5; a's punch (6 dice, 1 success); damage 10 dice; soak 1 die;
    # b's punch (4 dice, 1 success); damage 1 die; a's soak 1 die
    faces = [5, 5, 6, 2, 2, 2, 2, 2, *dmg, 2, 6, 2, 2, 2, 6, 2]
    b = battle([Fighter(a, 0, 0, 0), Fighter(b_, 1, 1, 0)], faces)
    declare_all(b)
    step(b, ACT, 0, attack("punch", 1))
    step(b, DEFEND, 1, NONE)
    victim = b.combatants[1]
    assert victim.health.filled == (7 if damage_successes == 10 else damage_successes)
    assert victim.health.penalty in (0, 5)
    assert b.pending is not None and (b.pending.kind, b.pending.actor) == (ACT, 1)
    step(b, ACT, 1, attack("punch", 0))
    assert rolls(b, "attack", who=1)[0]["pool"] == 4  # no wound penalty in the same moment
    assert b.combatants[0].health.bashing == 1
    assert b.pending is None


def test_INIT_3_not_simultaneous_with_lower_rating() -> None:
    """INIT-3 (contrast): same total but lower rating: b acts after the hit, at -5."""
    a = block("a", attrs={"dexterity": 3, "wits": 3, "strength": 10}, abil={"brawl": 3})
    b_ = block("b", attrs={"dexterity": 3, "wits": 2, "stamina": 1}, abil={"brawl": 1})
    faces = [5, 6, 6, 2, 2, 2, 2, 2, *[6] * 6, *[2] * 4, 2]
    b = battle([Fighter(a, 0, 0, 0), Fighter(b_, 1, 1, 0)], faces)
    declare_all(b)
    step(b, ACT, 0, attack("punch", 1))
    step(b, DEFEND, 1, NONE)
    assert b.combatants[1].health.penalty == 5
    assert b.pending is not None and b.pending.actor == 1
    assert not [o for o in b.pending.options if getattr(o, "maneuver", None)]  # 4 - 5 < 1


# --- INIT-4: wound penalties and initiative -------------------------------------------


def test_INIT_4_wounds_taken_before_the_turn_lower_the_total() -> None:
    hurt = quick(3, 3, "hurt")
    fs = [Fighter(hurt, 0, 0, 0), Fighter(quick(3, 2, "ok"), 1, 1, 0)]
    b = battle(fs, [5, 5, 5, 5], turn_limit=2)
    declare_all(b)
    assert [c.id for c in b.order] == [0, 1]  # 11 vs 10
    b.combatants[0].health.take(4, DamageType.LETHAL)  # wounded: -2
    run(b, pass_everything)  # type: ignore[arg-type]
    inits = events(b, EventKind.INITIATIVE)
    assert [(e["who"], e["penalty"], e["total"]) for e in inits[2:]] == [(0, 2, 9), (1, 0, 10)]
    assert events(b, EventKind.ORDER)[1]["order"] == [1, 0]


def test_INIT_4_wounds_apply_at_once_and_can_drop_a_character_in_the_order() -> None:
    """INIT-4: A (19) wounds B (15 -> 13): C (14) now acts before B."""
    a = block("a", attrs={"dexterity": 5, "wits": 5, "strength": 4}, abil={"brawl": 1})
    b_ = block("b", attrs={"dexterity": 3, "wits": 3, "stamina": 1})
    c = quick(2, 2, "c")
    faces = [9, 9, 10, 6, 2, 2, 2, 2, 2, 6, 6, 6, 6, 2]
    b = battle([Fighter(a, 0, 0, 0), Fighter(b_, 1, 1, 0), Fighter(c, 0, 20, 0)], faces)
    declare_all(b)
    assert [x.id for x in b.order] == [0, 1, 2]
    step(b, ACT, 0, attack("punch", 1))
    step(b, DEFEND, 1, NONE)
    assert b.combatants[1].health.penalty == 2
    assert b.initiative_now(b.combatants[1]) == 13
    step(b, ACT, 2, PASS)
    step(b, ACT, 1, PASS)
    assert b.pending is None


def test_INIT_4_multiple_actions_do_not_lower_initiative() -> None:
    fs = [Fighter(quick(2, 2, "a"), 0, 0, 0), Fighter(quick(2, 2, "b"), 1, 1, 0)]
    b = battle(fs, [6, 5])
    declare_all(b, {0: Declaration(actions=4), 1: ONE})
    assert b.initiative_now(b.combatants[0]) == 10
    assert b.pending is not None and b.pending.actor == 0


# --- INIT-5: declaration slowest first -------------------------------------------------


def test_INIT_5_slowest_declares_first() -> None:
    """INIT-5 with INIT-9 (001): by the rolled initiative, lowest first."""
    fs = [Fighter(quick(2, 2, f"c{i}"), i % 2, i, 0) for i in range(4)]
    b = battle_on(fs, [3, 9, 1, 6], rules_set=profile("001"))  # totals 7, 13, 5, 10
    assert declare_all(b) == [2, 0, 3, 1]
    assert act_actors(b) == []  # nobody has acted yet


def test_INIT_9_preliminary_declarations_go_by_rating_before_the_roll() -> None:
    """INIT-9 (004): nobody has rolled when the preliminary actions are declared: the
    lowest Dexterity + Wits first (ties: the higher id first, as 001's reversed order)."""
    fs = [Fighter(quick(d, 2, f"c{i}"), i % 2, i, 0) for i, d in enumerate([3, 1, 2, 2])]
    b = battle_on(fs, [3, 9, 1, 6], rules_set=profile("004"))
    assert not events(b, EventKind.INITIATIVE)
    assert declare_all(b) == [1, 3, 2, 0]
    assert len(events(b, EventKind.INITIATIVE)) == 4


@pytest.mark.parametrize("preliminary", ["004", "001"])
def test_INIT_9_the_battle_says_whether_this_turns_initiative_is_rolled(
        preliminary: str) -> None:
    """INIT-9: ``Battle.initiative_rolled`` is False during 004's preliminary decisions
    (what advice and policies read before the roll), True once it is rolled."""
    fs = [Fighter(quick(2, 2, "a"), 0, 0, 0), Fighter(quick(3, 3, "b"), 1, 1, 0)]
    b = Battle(fs, dice=ScriptedDice([4, 4]), rules=profile(preliminary), start=False)
    assert not b.initiative_rolled
    b.begin()
    assert b.initiative_rolled is (preliminary == "001")
    declare_all(b)
    assert b.initiative_rolled


@pytest.mark.parametrize(("preliminary", "total"), [("004", 14), ("001", 12)])
def test_INIT_9_a_dexterity_raise_counts_for_this_turns_initiative(
        preliminary: str, total: int) -> None:
    """INIT-9: 004 spends blood before the roll (Dexterity 3 + 2 -> rating 8, die 6 = 14);
    001 after it (rating 6 + 6 = 12; the raise counts from the next turn)."""
    vamp = block("v", kind="vampire", attrs={"dexterity": 3, "wits": 3}, generation=8)
    fs = [Fighter(vamp, 0, 0, 0), Fighter(quick(1, 1, "m"), 1, 1, 0)]
    b = battle_on(fs, [6, 1], rules_set=profile(preliminary))
    while b.pending is not None and b.pending.kind is DECLARE:  # the slower mortal first
        b.choose(ONE)
    d = b.pending
    assert d is not None and d.kind is BLOOD and d.actor == 0
    b.choose(BloodSpend(BloodUse.DEXTERITY, 2))
    declare_all(b)
    (mine,) = events(b, EventKind.INITIATIVE, who=0)
    assert mine["total"] == total


@pytest.mark.parametrize(("preliminary", "penalty"), [("004", 0), ("001", 1)])
def test_INIT_9_healing_before_the_roll_lifts_the_wound_penalty(
        preliminary: str, penalty: int) -> None:
    """INIT-9: a vampire Hurt (-1) heals one level: 004 rolls after it (no penalty);
    001 rolled before it (the penalty at the roll counts this turn, INIT-4)."""
    vamp = block("v", kind="vampire", attrs={"dexterity": 3, "wits": 3}, generation=8)
    fs = [Fighter(vamp, 0, 0, 0), Fighter(quick(1, 1, "m"), 1, 1, 0)]
    b = Battle(fs, dice=ScriptedDice([6, 1]), rules=profile(preliminary), start=False)
    b.combatants[0].health.take(2, DamageType.BASHING)
    b.begin()
    while b.pending is not None and b.pending.kind is DECLARE:  # the slower mortal first
        b.choose(ONE)
    d = b.pending
    assert d is not None and d.kind is BLOOD
    b.choose(BloodSpend(BloodUse.HEAL, 1))
    declare_all(b)
    (mine,) = events(b, EventKind.INITIATIVE, who=0)
    assert mine["penalty"] == penalty
    assert b.initiative_now(b.combatants[0]) == 12 - penalty


def test_INIT_5_declaration_covers_actions_full_defense_celerity_and_willpower() -> None:
    vamp = block(
        "v", kind="vampire", attrs={"dexterity": 3, "wits": 3}, disc={"celerity": 2}, willpower=5
    )
    b = battle([Fighter(vamp, 0, 0, 0), Fighter(quick(1, 1, "m"), 1, 1, 0)], [9, 1])
    step(b, DECLARE, 1, ONE)
    skip_blood(b)  # VAMP-2 blood spending comes first; spend nothing
    assert b.pending is not None and b.pending.kind is DECLARE
    opts = set(b.pending.options)
    assert Declaration(actions=4, celerity=2, willpower=True) in opts
    assert Declaration(actions=1, full_defense=True) in opts
    assert {o.actions for o in opts if isinstance(o, Declaration)} == {1, 2, 3, 4}
    assert {o.celerity for o in opts if isinstance(o, Declaration)} == {0, 1, 2}
    blood = b.combatants[0].blood
    b.choose(Declaration(actions=2, celerity=2, willpower=True))
    v = b.combatants[0]
    assert (v.declared, v.celerity, v.wp_declared, v.blood) == (2, 2, True, blood - 2)


# --- INIT-6: delay ----------------------------------------------------------------------


def _three(dice: list[int]) -> Battle:
    fs = [
        Fighter(quick(2, 2, "a"), 0, 0, 0),
        Fighter(quick(2, 2, "b"), 1, 10, 0),
        Fighter(quick(2, 2, "c"), 1, 20, 0),
    ]
    return battle(fs, dice)


def test_INIT_6_delayed_character_interrupts_a_slower_one() -> None:
    b = _three([9, 6, 3])  # a 13, b 10, c 7
    declare_all(b)
    step(b, ACT, 0, DELAY)
    d = b.pending
    assert d is not None and (d.kind, d.actor, d.interrupt) == (ACT, 0, True)  # before b
    assert DELAY in d.options and WAIT not in d.options
    step(b, ACT, 0, DELAY)  # keep delaying
    step(b, ACT, 1, PASS)
    d = b.pending
    assert d is not None and (d.actor, d.interrupt) == (0, True)  # before c
    step(b, ACT, 0, Action(ActionKind.MOVE, target=2))
    step(b, ACT, 2, PASS)
    assert b.pending is None
    moves = events(b, EventKind.MOVE)
    assert len(moves) == 1 and moves[0]["who"] == 0


def test_INIT_6_two_delayed_characters_higher_initiative_first() -> None:
    b = _three([9, 6, 3])
    declare_all(b)
    step(b, ACT, 0, DELAY)
    step(b, ACT, 0, DELAY)  # interrupt offered before b: keep delaying
    step(b, ACT, 1, DELAY)
    # before c: a (13) is asked first, then b (10)
    step(b, ACT, 0, PASS)
    step(b, ACT, 1, PASS)
    step(b, ACT, 2, PASS)
    assert b.pending is None
    assert act_actors(b) == [0, 0, 1, 0, 1, 2]


def test_INIT_6_a_delay_held_to_the_end_still_acts() -> None:
    b = _three([9, 6, 3])
    declare_all(b)
    step(b, ACT, 0, DELAY)
    step(b, ACT, 0, DELAY)
    step(b, ACT, 1, PASS)
    step(b, ACT, 0, DELAY)
    step(b, ACT, 2, PASS)
    d = b.pending
    assert d is not None and (d.actor, d.interrupt) == (0, False)
    assert DELAY not in d.options and WAIT not in d.options
    step(b, ACT, 0, PASS)
    assert b.pending is None


# --- INIT-10: a delay announced at the declaration ------------------------------------------


def _three_announced(announced: bool) -> Battle:
    fs = [Fighter(quick(2, 2, n), i % 2, i, 0) for i, n in enumerate("abc")]
    return Battle(fs, dice=ScriptedDice([9, 6, 3]),
                  rules=profile("004", delay_announced=announced), turn_limit=1)


def test_INIT_10_announced_the_delay_is_said_at_the_declaration() -> None:
    """INIT-10 (``delay_announced``, 004: «могут отложить свои действия ... при условии,
    что объявят о своем решении на данном этапе», they may delay provided they say so at
    the declaration): a (13) announces; at its initiative it is delayed without being
    asked, interrupts before c, and nobody may delay on the spot."""
    b = _three_announced(True)
    decl = offered(b)
    assert Declaration(1, delay=True) in decl and Declaration(1) in decl
    declare_all(b, {0: Declaration(1, delay=True)})
    d = b.pending
    assert d is not None and (d.actor, d.interrupt) == (0, True)  # past its own, delayed
    step(b, ACT, 0, DELAY)  # keep delaying (INIT-6)
    d = b.pending
    assert d is not None and (d.kind, d.actor) == (ACT, 1)
    assert DELAY not in d.options and WAIT in d.options  # b announced nothing
    step(b, ACT, 1, PASS)
    d = b.pending
    assert d is not None and (d.actor, d.interrupt) == (0, True)  # before c
    step(b, ACT, 0, PASS)
    step(b, ACT, 2, PASS)
    assert b.pending is None
    assert act_actors(b) == [0, 1, 0, 2]


def test_INIT_10_not_announced_a_delay_is_chosen_when_the_turn_comes() -> None:
    """INIT-10 off (000/001, both shipped profiles): no announced delays are declared,
    DELAY is offered at the character's initiative (INIT-6)."""
    assert not load_rules("v20").delay_announced and not load_rules("dark_ages").delay_announced
    b = _three_announced(False)
    assert not any(getattr(o, "delay", False) for o in offered(b))
    declare_all(b)
    d = b.pending
    assert d is not None and d.actor == 0 and DELAY in d.options


def test_INIT_10_an_announced_delay_survives_a_save_and_a_clone() -> None:
    """INIT-10: the announcement is part of the combatant's state (saved only when set)."""
    b = _three_announced(True)
    declare_all(b, {0: Declaration(1, delay=True)})
    assert b.combatants[0].announced
    loaded = Battle.from_state(b.to_state())
    for twin in (loaded, b.clone()):
        assert twin.combatants[0].announced and twin.pending == b.pending
    assert "announced" not in b.combatants[1].to_json()


# --- INIT-7: wait -------------------------------------------------------------------------


def test_INIT_7_waiting_lets_the_next_act_and_acts_at_the_end() -> None:
    b = _three([9, 6, 3])
    declare_all(b)
    step(b, ACT, 0, WAIT)
    step(b, ACT, 1, PASS)  # no interrupt offered to a waiting character
    step(b, ACT, 2, PASS)
    d = b.pending
    assert d is not None and d.actor == 0
    assert WAIT not in d.options and DELAY not in d.options
    step(b, ACT, 0, PASS)
    assert b.pending is None


def test_INIT_7_if_everyone_waits_nobody_acts() -> None:
    b = _three([9, 6, 3])
    declare_all(b)
    step(b, ACT, 0, WAIT)
    step(b, ACT, 1, WAIT)
    step(b, ACT, 2, WAIT)
    assert b.pending is None  # turn over: nobody acted
    assert not events(b, EventKind.ACTION)
    assert b.turn == 1 and b.over


def test_INIT_7_waiters_act_when_someone_else_acted() -> None:
    b = _three([9, 6, 3])
    declare_all(b)
    step(b, ACT, 0, WAIT)
    step(b, ACT, 1, WAIT)
    step(b, ACT, 2, PASS)
    step(b, ACT, 0, PASS)
    step(b, ACT, 1, PASS)
    assert b.pending is None


# --- INIT-8: extra actions at the end of the turn ----------------------------------------


def test_INIT_8_second_actions_before_third_in_initiative_order() -> None:
    b = _three([9, 6, 3])
    declare_all(b, {0: Declaration(actions=3), 1: Declaration(actions=2), 2: ONE})
    run(b, pass_everything)  # type: ignore[arg-type]
    assert act_actors(b) == [0, 1, 2, 0, 1, 0]


def test_INIT_8_defensive_actions_come_when_the_attack_comes() -> None:
    """INIT-8: b's second action is a dodge made during a's attack, before b's first action."""
    a = block("a", attrs={"dexterity": 3, "wits": 3}, abil={"brawl": 2})
    d = block("d", attrs={"dexterity": 2, "wits": 2}, abil={"dodge": 2})
    # init; a's punch 5 dice; d's dodge Dex 2 + Dodge 2 - 2 = 2 dice
    faces = [9, 2, *one_success(5), *one_success(2)]  # the dodge cancels the one success
    b = battle([Fighter(a, 0, 0, 0), Fighter(d, 1, 1, 0)], faces)
    declare_all(b, {1: Declaration(actions=2)})
    step(b, ACT, 0, attack("punch", 1))
    step(b, DEFEND, 1, DODGE)
    (dodge,) = rolls(b, "dodge")
    # the dodge is the first of d's two actions to happen: it takes the first
    # penalty (2, ACT-1); d's own action later in the turn takes the second (3)
    assert dodge["pool"] == 4 - 2
    assert b.action_penalty(b.combatants[1]) == 3
    step(b, ACT, 1, PASS)
    assert b.pending is None
    assert act_actors(b) == [0, 1]


def test_INIT_4_healing_does_not_raise_initiative_within_the_turn() -> None:
    """INIT-4: wounds lower initiative at once; blood healed in the same turn does
    not lift the character past the total it rolled."""
    from vtm_sim.core.dice import ScriptedDice
    from vtm_sim.data.stat_blocks import Kind, StatBlockSpec, build_stat_block
    from vtm_sim.data.tables import DamageType
    from vtm_sim.engine.battle import Battle, Fighter

    vamp = build_stat_block(
        StatBlockSpec(
            name="v", kind=Kind.VAMPIRE, generation=8, attributes={"dexterity": 2, "wits": 2}
        ),
        "t",
    )
    foe = build_stat_block(StatBlockSpec(name="f"), "t")
    b = Battle([Fighter(vamp, 0, 0, 0), Fighter(foe, 1, 30, 0)], dice=ScriptedDice([5] * 50))
    v = b.combatants[0]
    v.health.take(3, DamageType.LETHAL)  # Injured: -1
    b.turn = 1
    v.initiative, v.rolled_penalty = 9, v.health.penalty
    assert b.initiative_now(v) == 8
    v.health.heal(3)
    assert b.initiative_now(v) == 8  # healed, but still what was rolled
    v.health.take(4, DamageType.LETHAL)  # Wounded: -2, worse than at the roll
    assert b.initiative_now(v) == 7
