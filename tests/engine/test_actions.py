"""Battle-level actions with fixed dice: ACT-1..7, DEF-2, DEF-3, DEF-7 and stun (DMG-6).

Each battle is driven through ``battle.pending`` / ``battle.choose``; FILLER faces (2)
make rolls that neither succeed nor botch, so only the pools matter.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from rule_helpers import (
    ACT,
    DECLARE,
    DEFEND,
    DODGE,
    FILLER,
    NONE,
    ONE,
    PASS,
    attack,
    battle,
    block,
    declare_all,
    events,
    one_success,
    rolls,
    run,
    step,
)

from vtm_sim.core.choices import (
    AbortMethod,
    Action,
    ActionKind,
    Choice,
    Decision,
    Declaration,
    Defense,
    DefenseKind,
)
from vtm_sim.data.stat_blocks import StatBlock
from vtm_sim.engine.battle import Battle, Fighter
from vtm_sim.events import EventKind, StunEvent

MANY = [FILLER] * 200


def decider(
    declarations: dict[int, Declaration],
    acts: dict[int, list[Choice]],
    defend: Choice = NONE,
) -> Callable[[Decision], Choice]:
    """Declarations per actor, a queue of actions per actor (then PASS), one defense."""
    queues = {k: list(v) for k, v in acts.items()}

    def decide(d: Decision) -> Choice:
        if d.kind is DECLARE:
            return declarations.get(d.actor, ONE)
        if d.kind is ACT:
            q = queues.get(d.actor, [])
            return q.pop(0) if q else PASS
        return defend if defend in d.options else NONE

    return decide


def brawler(name: str = "b", dex: int = 5, brawl: int = 5) -> StatBlock:
    return block(name, attrs={"dexterity": dex, "wits": 3, "strength": 1}, abil={"brawl": brawl})


# --- ACT-1: multiple actions ----------------------------------------------------------


@pytest.mark.parametrize(
    ("n", "pools"),
    [(1, [10]), (2, [8, 7]), (3, [7, 6, 5]), (4, [6, 5, 4, 3])],
)
def test_ACT_1_each_declared_action_loses_one_more_die(n: int, pools: list[int]) -> None:
    """ACT-1: N actions: the first pool loses N dice, the second N+1, ..."""
    b = battle([Fighter(brawler("a"), 0, 0, 0), Fighter(block("t"), 1, 1, 0)], [9, 1, *MANY])
    run(b, decider({0: Declaration(actions=n)}, {0: [attack("punch", 1)] * n}))
    assert [r["pool"] for r in rolls(b, "attack")] == pools


def test_ACT_1_a_defense_inside_multiple_actions_takes_the_next_penalty() -> None:
    """ACT-1: punch (-2) then a dodge as the second of two actions (-3)."""
    hero = block("h", attrs={"dexterity": 4, "wits": 4}, abil={"brawl": 2, "dodge": 3})
    foe = block("f", attrs={"dexterity": 2}, abil={"brawl": 2})
    faces = [9, 1, *[FILLER] * 4, *one_success(4), *one_success(4)]
    b = battle([Fighter(hero, 0, 0, 0), Fighter(foe, 1, 1, 0)], faces)
    declare_all(b, {0: Declaration(actions=2)})
    step(b, ACT, 0, attack("punch", 1))
    step(b, DEFEND, 1, NONE)
    step(b, ACT, 1, attack("punch", 0))
    step(b, DEFEND, 0, DODGE)
    assert [(r["what"], r["pool"]) for r in rolls(b)] == [
        ("attack", 6 - 2),
        ("attack", 4),
        ("dodge", 7 - 3),
    ]
    assert b.pending is None  # both of hero's actions are spent


# --- ACT-2: Celerity ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("declared", "celerity", "pools"),
    [(1, 2, [10, 10, 10]), (2, 1, [8, 7, 10]), (1, 0, [10])],
)
def test_ACT_2_celerity_actions_have_no_multiple_action_penalty(
    declared: int, celerity: int, pools: list[int]
) -> None:
    vamp = block(
        "v",
        kind="vampire",
        attrs={"dexterity": 5, "wits": 3},
        abil={"brawl": 5},
        disc={"celerity": 3},
    )
    b = battle([Fighter(vamp, 0, 0, 0), Fighter(block("t"), 1, 1, 0)], [9, 1, *MANY])
    blood = b.combatants[0].blood
    n = declared + celerity
    run(
        b,
        decider(
            {0: Declaration(actions=declared, celerity=celerity)}, {0: [attack("punch", 1)] * n}
        ),
    )
    assert [r["pool"] for r in rolls(b, "attack")] == pools
    assert b.combatants[0].blood == blood - celerity  # VAMP-3: one blood each


# --- ACT-3: discipline rolls inside multiple actions ----------------------------------


@pytest.mark.parametrize(("n", "penalties"), [(2, [2, 3]), (3, [3, 4, 5])])
def test_ACT_3_any_rolled_action_in_multiple_actions_takes_the_penalty(
    n: int, penalties: list[int]
) -> None:
    """ACT-3: the engine has no discipline that needs a roll yet; every rolled action
    inside multiple actions (attack, defense, ready, get up) draws its penalty from
    the same per-action sequence, whatever the action is. Checked here on a mix of
    a weapon draw (a non-attack roll) and attacks."""
    s = block(
        "s",
        attrs={"dexterity": 4, "wits": 4},
        abil={"melee": 4, "brawl": 4},
        weapons=["knife", "club"],
    )
    b = battle([Fighter(s, 0, 0, 0), Fighter(block("t"), 1, 1, 0)], [9, 1, *MANY])
    draw = Action(ActionKind.DRAW, weapon=1)
    seen: list[int] = []
    decide = decider({0: Declaration(actions=n)}, {0: [draw] + [attack("punch", 1)] * (n - 1)})

    def spy(d: Decision) -> Choice:
        if d.kind is ACT and d.actor == 0:
            seen.append(b.action_penalty(b.combatants[0]))
        return decide(d)

    run(b, spy)
    assert seen == penalties
    assert rolls(b, "draw")[0]["pool"] == 8 - penalties[0]
    assert [r["pool"] for r in rolls(b, "attack")] == [8 - p for p in penalties[1:]]


# --- ACT-4: moving and acting ------------------------------------------------------


@pytest.mark.parametrize(
    ("distance", "moved", "pool"),
    [
        (1.0, 0.0, 6),
        (10.0, 9.0, 6),
        (14.0, 13.0, 6),  # exactly half of 26 yards: no penalty
        (15.0, 14.0, 5),  # one yard more: one die
        (18.0, 17.0, 2),
        (20.0, None, None),  # 6 dice lost: nothing left to roll
        (28.0, None, None),  # farther than a full run
    ],
)
def test_ACT_4_moving_past_half_the_run_costs_a_die_per_yard(
    distance: float, moved: float | None, pool: int | None
) -> None:
    """ACT-4: Dex 2 runs 26 yards; up to 13 free, then one die per yard (punch: 6 dice)."""
    s = block("m", attrs={"dexterity": 2, "wits": 4}, abil={"brawl": 4})
    b = battle([Fighter(s, 0, 0, 0), Fighter(block("t"), 1, distance, 0)], [9, 1, *MANY])
    declare_all(b)
    assert b.pending is not None and b.pending.actor == 0
    punch = attack("punch", 1)
    if pool is None:
        assert punch not in b.pending.options
        return
    step(b, ACT, 0, punch)
    step(b, DEFEND, 1, NONE)
    assert rolls(b, "attack")[0]["pool"] == pool
    yards = [e["yards"] for e in events(b, EventKind.MOVE, who=0)]
    assert yards == ([moved] if moved else [])


# --- ACT-5: ready a weapon -----------------------------------------------------------


def _armed(**abilities: int) -> StatBlock:
    # a club (not one-handed) and a pistol: the pistol is not in the off hand (RNG-9)
    return block(
        "s", attrs={"dexterity": 3, "wits": 4}, abil=abilities, weapons=["club", "light_pistol"]
    )


def test_ACT_5_drawing_as_the_only_action_needs_no_roll() -> None:
    b = battle(
        [Fighter(_armed(melee=1, firearms=3), 0, 0, 0), Fighter(block("t"), 1, 5, 0)], [9, 1]
    )
    declare_all(b)
    assert b.combatants[0].weapon.name == "club"
    step(b, ACT, 0, Action(ActionKind.DRAW, weapon=1))
    assert not rolls(b)
    assert b.combatants[0].weapon.name == "light_pistol"
    (act,) = events(b, EventKind.ACTION, who=0)
    assert (act["action"], act["ok"]) == ("draw", True)


@pytest.mark.parametrize(
    ("draw", "faces", "ok", "pool", "wielding"),
    [
        # drawing the pistol: Dex 3 + Firearms 3 - 2 actions, difficulty 4
        (1, [4, 2, 2, 2], True, 4, "light_pistol"),
        (1, [3, 3, 3, 3], False, 4, "club"),
        (1, [3, 1, 2, 2], False, 4, "club"),
    ],
)
def test_ACT_5_drawing_in_multiple_actions_rolls_dex_plus_skill_at_4(
    draw: int, faces: list[int], ok: bool, pool: int, wielding: str
) -> None:
    """ACT-5: the roll uses the Skill of the weapon being readied (Firearms for a pistol)."""
    b = battle(
        [Fighter(_armed(melee=0, firearms=3), 0, 0, 0), Fighter(block("t"), 1, 5, 0)],
        [9, 1, *faces],
    )
    declare_all(b, {0: Declaration(actions=2)})
    step(b, ACT, 0, Action(ActionKind.DRAW, weapon=draw))
    (r,) = rolls(b, "draw")
    assert (r["pool"], r["diff"]) == (pool, 4)
    assert b.combatants[0].weapon.name == wielding
    assert events(b, EventKind.ACTION, who=0)[0]["ok"] is ok


def test_ACT_5_drawing_a_melee_weapon_in_multiple_actions_rolls_melee() -> None:
    s = block(
        "s",
        attrs={"dexterity": 3, "wits": 4},
        abil={"melee": 2, "firearms": 0},
        weapons=["rifle", "knife"],
    )
    b = battle([Fighter(s, 0, 0, 0), Fighter(block("t"), 1, 5, 0)], [9, 1, 4, 2, 2])
    declare_all(b, {0: Declaration(actions=2)})
    step(b, ACT, 0, Action(ActionKind.DRAW, weapon=1))
    assert rolls(b, "draw")[0]["pool"] == 3 + 2 - 2
    assert b.combatants[0].weapon.name == "knife"


# --- ACT-6: getting up ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("actions", "faces", "prone_after", "pool"),
    [
        (1, [], False, None),  # alone: no roll
        (2, [4, 2, 2], False, 3),  # Dex 3 + Athletics 2 - 2, difficulty 4
        (2, [3, 3, 2], True, 3),  # failed: still prone
        (3, [4, 2], False, 2),
    ],
)
def test_ACT_6_getting_up_from_prone(
    actions: int, faces: list[int], prone_after: bool, pool: int | None
) -> None:
    s = block("p", attrs={"dexterity": 3, "wits": 4}, abil={"athletics": 2})
    b = battle([Fighter(s, 0, 0, 0), Fighter(block("t"), 1, 5, 0)], [9, 1, *faces])
    b.combatants[0].prone = True
    declare_all(b, {0: Declaration(actions=actions)})
    up = Action(ActionKind.GET_UP)
    assert b.pending is not None and up in b.pending.options
    step(b, ACT, 0, up)
    r = rolls(b, "get_up")
    assert [x["pool"] for x in r] == ([pool] if pool is not None else [])
    if r:
        assert r[0]["diff"] == 4
    assert b.combatants[0].prone is prone_after


def test_ACT_6_get_up_is_offered_only_when_prone() -> None:
    s = block("p", attrs={"dexterity": 3, "wits": 4})
    b = battle([Fighter(s, 0, 0, 0), Fighter(block("t"), 1, 5, 0)], [9, 1])
    declare_all(b)
    assert b.pending is not None
    assert Action(ActionKind.GET_UP) not in b.pending.options


# --- ACT-7: reload ------------------------------------------------------------------------


def _gunman() -> StatBlock:
    return block(
        "g", attrs={"dexterity": 3, "wits": 4}, abil={"firearms": 3}, weapons=["heavy_revolver"]
    )


def test_ACT_7_reload_takes_the_action_and_refills_the_magazine() -> None:
    b = battle([Fighter(_gunman(), 0, 0, 0), Fighter(block("t"), 1, 10, 0)], [9, 1])
    g = b.combatants[0]
    g.ammo[0] = 0
    declare_all(b)
    assert b.pending is not None
    assert attack("single_shot", 1) not in b.pending.options  # empty (RNG-10)
    step(b, ACT, 0, Action(ActionKind.RELOAD))
    assert g.ammo[0] == 6
    assert not rolls(b)  # the only action: no roll (ACT-5)
    assert events(b, EventKind.ACTION, who=0)[0]["action"] == "reload"


def test_ACT_7_reload_can_be_one_of_multiple_actions() -> None:
    """ACT-7: shoot (-2), then reload as the second action (-3, Dex + Firearms at 4)."""
    b = battle(
        [Fighter(_gunman(), 0, 0, 0), Fighter(block("t"), 1, 10, 0)], [9, 1, *[FILLER] * 4, 4, 2, 2]
    )
    g = b.combatants[0]
    declare_all(b, {0: Declaration(actions=2)})
    step(b, ACT, 0, attack("single_shot", 1))
    step(b, DEFEND, 1, NONE)
    assert g.ammo[0] == 5
    step(b, ACT, 1, PASS)
    d = b.pending
    assert d is not None and d.actor == 0 and Action(ActionKind.RELOAD) in d.options
    step(b, ACT, 0, Action(ActionKind.RELOAD))
    (r,) = rolls(b, "reload")
    assert (r["pool"], r["diff"]) == (6 - 3, 4)
    assert g.ammo[0] == 6


def test_ACT_7_reload_is_not_offered_with_a_full_magazine() -> None:
    b = battle([Fighter(_gunman(), 0, 0, 0), Fighter(block("t"), 1, 10, 0)], [9, 1])
    declare_all(b)
    assert b.pending is not None
    assert Action(ActionKind.RELOAD) not in b.pending.options


# --- DEF-2: a defense needs an action left -------------------------------------------


def test_DEF_2_no_defense_once_the_only_action_is_spent() -> None:
    fast = block("f", attrs={"dexterity": 4, "wits": 4}, abil={"brawl": 2, "dodge": 3})
    slow = block("s", attrs={"dexterity": 2}, abil={"brawl": 2})
    b = battle([Fighter(fast, 0, 0, 0), Fighter(slow, 1, 1, 0)], [9, 1, *MANY])
    declare_all(b)
    step(b, ACT, 0, PASS)
    step(b, ACT, 1, attack("punch", 0))
    assert b.pending is None  # no DEFEND decision: the attack was rolled at once
    assert [r["what"] for r in rolls(b)] == ["attack"]


def test_DEF_2_defense_is_chosen_before_the_attack_roll() -> None:
    fast = block("f", attrs={"dexterity": 4, "wits": 4}, abil={"brawl": 2, "dodge": 3})
    slow = block("s", attrs={"dexterity": 2}, abil={"brawl": 2})
    b = battle(
        [Fighter(fast, 0, 0, 0), Fighter(slow, 1, 1, 0)], [9, 1, *one_success(4), *one_success(4)]
    )
    declare_all(b, {0: Declaration(actions=2)})
    step(b, ACT, 0, PASS)
    step(b, ACT, 1, attack("punch", 0))
    d = b.pending
    assert d is not None and (d.kind, d.actor, d.attacker) == (DEFEND, 0, 1)
    assert not rolls(b)  # nothing rolled yet
    assert set(d.options) == {NONE, DODGE, Defense(DefenseKind.BLOCK)}
    step(b, DEFEND, 0, DODGE)
    assert [(r["what"], r["pool"]) for r in rolls(b)] == [("attack", 4), ("dodge", 7 - 3)]


# --- DEF-3: abort to defense -----------------------------------------------------------------


def _abort_battle(willpower: int = 3) -> Battle:
    fast = block("f", attrs={"dexterity": 4, "wits": 4}, abil={"brawl": 2})
    slow = block("s", attrs={"dexterity": 2}, abil={"dodge": 2, "brawl": 1}, willpower=willpower)
    b = battle([Fighter(fast, 0, 0, 0), Fighter(slow, 1, 1, 0)], [9, 1, *MANY[:20]])
    declare_all(b)
    step(b, ACT, 0, attack("punch", 1))
    return b


def test_DEF_3_abort_options_before_acting() -> None:
    b = _abort_battle()
    d = b.pending
    assert d is not None and (d.kind, d.actor) == (DEFEND, 1)
    roll_, wp = AbortMethod.ROLL, AbortMethod.WILLPOWER
    assert set(d.options) == {
        NONE,
        Defense(DefenseKind.DODGE, roll_),
        Defense(DefenseKind.DODGE, wp),
        Defense(DefenseKind.BLOCK, roll_),
        Defense(DefenseKind.BLOCK, wp),
    }


def test_DEF_3_abort_without_willpower_points_needs_the_roll() -> None:
    b = _abort_battle(willpower=0)
    d = b.pending
    assert d is not None
    assert all(getattr(o, "abort", None) is not AbortMethod.WILLPOWER for o in d.options)


def _abort_with(faces: list[int]) -> Battle:
    fast = block("f", attrs={"dexterity": 4, "wits": 4}, abil={"brawl": 2})
    slow = block("s", attrs={"dexterity": 2}, abil={"dodge": 2, "brawl": 1}, willpower=3)
    b = battle([Fighter(fast, 0, 0, 0), Fighter(slow, 1, 1, 0)], [9, 1, *faces])
    declare_all(b)
    step(b, ACT, 0, attack("punch", 1))
    return b


def test_DEF_3_abort_roll_succeeds_defense_replaces_the_declared_action() -> None:
    # Willpower roll 3 dice at 6; attack 6 dice; dodge 2 + 2 = 4 dice (no penalty)
    b = _abort_with([6, 2, 2, *one_success(6), *one_success(4)])
    step(b, DEFEND, 1, Defense(DefenseKind.DODGE, AbortMethod.ROLL))
    assert [(r["what"], r["pool"], r["diff"]) for r in rolls(b)] == [
        ("abort", 3, 6),
        ("attack", 6, 6),
        ("dodge", 4, 6),
    ]
    (ab,) = events(b, EventKind.ABORT)
    assert (ab["who"], ab["method"], ab["ok"]) == (1, "roll", True)
    assert b.pending is None  # the aborted character does not act this turn
    assert b.combatants[1].willpower == 3


def test_DEF_3_failed_abort_roll_no_defense_and_the_declared_action_stands() -> None:
    b = _abort_with([5, 2, 1, *[FILLER] * 6])
    step(b, DEFEND, 1, Defense(DefenseKind.DODGE, AbortMethod.ROLL))
    assert [r["what"] for r in rolls(b)] == ["abort", "attack"]
    assert events(b, EventKind.ABORT)[0]["ok"] is False
    assert not events(b, EventKind.DEFENSE)
    d = b.pending
    assert d is not None and (d.kind, d.actor) == (ACT, 1)  # it must still act


def test_DEF_3_abort_by_spending_willpower() -> None:
    b = _abort_with([*one_success(6), *one_success(4)])
    step(b, DEFEND, 1, Defense(DefenseKind.DODGE, AbortMethod.WILLPOWER))
    assert [r["what"] for r in rolls(b)] == ["attack", "dodge"]
    assert b.combatants[1].willpower == 2
    assert b.pending is None


def test_DEF_3_no_abort_needed_with_a_spare_declared_action() -> None:
    """DEF-3 applies only to the last action: with 2 declared, a plain defense is offered."""
    fast = block("f", attrs={"dexterity": 4, "wits": 4}, abil={"brawl": 2})
    slow = block("s", attrs={"dexterity": 2}, abil={"dodge": 2, "brawl": 1})
    b = battle([Fighter(fast, 0, 0, 0), Fighter(slow, 1, 1, 0)], [9, 1, *MANY])
    declare_all(b, {1: Declaration(actions=2)})
    step(b, ACT, 0, attack("punch", 1))
    d = b.pending
    assert d is not None and set(d.options) == {NONE, DODGE, Defense(DefenseKind.BLOCK)}


# --- DEF-7: full defense -----------------------------------------------------------------


def test_DEF_7_full_defense_pools_drop_one_die_per_defense() -> None:
    """DEF-7: full pool first, then one die less each time; no multiple-action penalty."""
    hero = block("h", attrs={"dexterity": 3, "wits": 1}, abil={"dodge": 3, "brawl": 1})
    foe = brawler("f")
    faces = [1, 9]
    for attack_pool, dodge_pool in ((7, 6), (6, 5), (5, 4)):  # each attack is dodged
        faces += one_success(attack_pool) + one_success(dodge_pool)
    b = battle([Fighter(hero, 0, 0, 0), Fighter(foe, 1, 1, 0)], faces)
    full = Declaration(actions=1, full_defense=True)
    step(b, DECLARE, 0, full)
    step(b, DECLARE, 1, Declaration(actions=3))
    for _ in range(3):
        step(b, ACT, 1, attack("punch", 0))
        d = b.pending
        assert d is not None and d.kind is DEFEND
        assert all(getattr(o, "abort", None) is None for o in d.options)
        step(b, DEFEND, 0, DODGE)
    assert b.pending is None  # the full defender never acts
    assert [r["pool"] for r in rolls(b, "dodge")] == [6, 5, 4]
    assert [r["pool"] for r in rolls(b, "attack")] == [7, 6, 5]
    assert not [e for e in events(b, EventKind.DECIDE, kind="act") if e["who"] == 0]


def test_DEF_7_full_defense_declaration_is_offered_and_skips_actions() -> None:
    hero = block("h", attrs={"dexterity": 3, "wits": 4}, abil={"dodge": 3})
    b = battle([Fighter(hero, 0, 0, 0), Fighter(block("t"), 1, 1, 0)], [9, 1])
    step(b, DECLARE, 1, ONE)
    full = Declaration(actions=1, full_defense=True)
    assert b.pending is not None and full in b.pending.options
    step(b, DECLARE, 0, full)
    d = b.pending
    assert d is not None and (d.kind, d.actor) == (ACT, 1)  # the fast hero is skipped


# --- DMG-6 (CPX-2): a stunned character loses its next turn ------------------------------


def test_DMG_6_stunned_character_loses_its_next_turn() -> None:
    a = block("a", attrs={"dexterity": 3, "wits": 3, "strength": 4}, abil={"brawl": 2})
    t = block("t", attrs={"stamina": 1}, abil={"brawl": 1})
    # turn 1: init; punch 5 dice (1 success); damage 4 dice (2); soak 1 die (0)
    # turn 2: init; punch 5 dice (a miss)
    faces = [9, 1, 6, 2, 2, 2, 2, 6, 6, 2, 2, 2, 9, 9, *[FILLER] * 5]
    b = battle([Fighter(a, 0, 0, 0), Fighter(t, 1, 1, 0)], faces, turn_limit=2)
    declare_all(b)
    step(b, ACT, 0, attack("punch", 1))
    step(b, DEFEND, 1, NONE)
    assert events(b, EventKind.STUN) == [StunEvent(1, 2)]
    step(b, ACT, 1, PASS)  # the stun costs the next turn, not the rest of this one
    # turn 2: only a declares and acts; t gets no defense either
    step(b, DECLARE, 0, ONE)
    step(b, ACT, 0, attack("punch", 1))
    assert b.pending is None
    turn2 = b.log.events.index(events(b, EventKind.TURN, turn=2)[0])
    later = [e for e in b.log.events[turn2:] if e["e"] == EventKind.DECIDE]
    assert {e["who"] for e in later} == {0}


def test_DMG_6_CPX_2_stunned_again_in_the_lost_turn_it_stays_lost() -> None:
    """t, stunned in turn 1, loses turn 2; stunned again by a's first blow of turn 2, it
    loses turn 3 too, and the rest of turn 2 stays lost: no defense against a's second
    blow (the second stun used to move the lost turn to 3 and let t dodge it)."""
    a = block("a", attrs={"dexterity": 3, "wits": 3, "strength": 4}, abil={"brawl": 2})
    t = block("t", attrs={"stamina": 1, "dexterity": 3}, abil={"brawl": 1, "dodge": 2})
    # turn 1: init; punch 5 dice (1 success); damage 4 dice (2); soak 1 die (0)
    # turn 2: init; two actions: punch 3 dice (1), damage (2), soak (0); punch 2 dice (0)
    faces = [9, 1, 6, 2, 2, 2, 2, 6, 6, 2, 2, 2, 9, 9, 6, 2, 2, 6, 6, 2, 2, 2,
             *[FILLER] * 10]
    b = battle([Fighter(a, 0, 0, 0), Fighter(t, 1, 1, 0)], faces, turn_limit=2)
    declare_all(b)
    step(b, ACT, 0, attack("punch", 1))
    step(b, DEFEND, 1, NONE)
    step(b, ACT, 1, PASS)
    step(b, DECLARE, 0, Declaration(actions=2))  # turn 2: t is stunned, only a declares
    step(b, ACT, 0, attack("punch", 1))
    assert events(b, EventKind.STUN) == [StunEvent(1, 2), StunEvent(1, 3)]
    step(b, ACT, 0, attack("punch", 1))  # t may not dodge it
    assert b.pending is None
    turn2 = b.log.events.index(events(b, EventKind.TURN, turn=2)[0])
    assert {e["who"] for e in b.log.events[turn2:] if e["e"] == EventKind.DECIDE} == {0}
