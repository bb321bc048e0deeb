"""Complications with fixed dice: blindness (CPX-1), stun (CPX-2), immobilized targets
(CPX-3), knockdown (CPX-4), staking (CPX-5) and weapon mishaps (CPX-6)."""

from __future__ import annotations

from typing import Any

import pytest
from rule_helpers import (
    ACT,
    DECLARE,
    DEFEND,
    FILLER,
    NONE,
    ONE,
    PASS,
    attack,
    battle,
    declare_all,
    events,
    offered,
    offered_kinds,
    offered_maneuvers,
    rolls,
    sheet,
    single_roll,
    step,
    successes,
)

from vtm_sim.core.choices import AbortMethod, Action, ActionKind, CalledShot, Declaration, Defense
from vtm_sim.core.choices import DefenseKind as DK
from vtm_sim.core.relations import Grip, GripKind
from vtm_sim.data.stat_blocks import StatBlock
from vtm_sim.engine.battle import Battle, Fighter
from vtm_sim.events import EventKind
from vtm_sim.mechanics.blood import blood_budget


def fighter(name: str = "f", **kw: Any) -> StatBlock:
    """Dexterity 3, Wits 3, Strength 2, Brawl 2, Dodge 2, Firearms 2, Athletics 1."""
    traits: dict[str, Any] = {
        "dexterity": 3,
        "wits": 3,
        "strength": 2,
        "brawl": 2,
        "dodge": 2,
        "firearms": 2,
        "athletics": 1,
    }
    traits.update(kw)
    return sheet(name, **traits)


# --- CPX-1: blinded -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("attacker_blind", "target_blind", "pool", "diff"),
    [
        (False, False, 5, 6),
        (False, True, 5 + 2, 6),  # attacks against a blinded target: +2 dice
        (True, False, 5, 6 + 2),  # the blinded character's actions: +2 difficulty
        (True, True, 5 + 2, 6 + 2),
    ],
)
def test_CPX_1_blindness_in_close_combat(
    attacker_blind: bool, target_blind: bool, pool: int, diff: int
) -> None:
    fs = [
        Fighter(fighter("a"), 0, 0, 0, blinded=attacker_blind),
        Fighter(fighter("t"), 1, 1, 0, blinded=target_blind),
    ]
    b = battle(fs, [9, 1])
    declare_all(b)
    p = b.plan(0, attack("punch", 1))
    assert p is not None and (p.pool, p.difficulty) == (pool, diff)


def test_CPX_1_a_blinded_character_cannot_fire() -> None:
    shooter = fighter("a", weapons=["heavy_pistol"])
    b = battle([Fighter(shooter, 0, 0, 0, blinded=True), Fighter(fighter("t"), 1, 10, 0)], [9, 1])
    declare_all(b)
    assert "single_shot" not in offered_maneuvers(b)
    assert b.plan(0, attack("single_shot", 1)) is None
    seeing = battle([Fighter(shooter, 0, 0, 0), Fighter(fighter("t"), 1, 10, 0)], [9, 1])
    declare_all(seeing)
    assert "single_shot" in offered_maneuvers(seeing)


def test_CPX_1_shooting_at_a_blinded_target_gets_two_dice() -> None:
    shooter = fighter("a", weapons=["heavy_pistol"])
    b = battle([Fighter(shooter, 0, 0, 0), Fighter(fighter("t"), 1, 10, 0, blinded=True)], [9, 1])
    declare_all(b)
    p = b.plan(0, attack("single_shot", 1))
    assert p is not None and (p.pool, p.difficulty) == (5 + 2, 6)


def test_CPX_1_a_blinded_defender_dodges_at_plus_two() -> None:
    faces = [9, 1, *successes(1, 7), *successes(1, 5)]  # 5 + 2 dice against the blind
    fs = [Fighter(fighter("a"), 0, 0, 0), Fighter(fighter("t"), 1, 1, 0, blinded=True)]
    b = battle(fs, faces)
    declare_all(b)
    step(b, ACT, 0, attack("punch", 1))
    step(b, DEFEND, 1, Defense(DK.DODGE, AbortMethod.WILLPOWER))
    dodge = single_roll(b, "dodge")
    assert dodge["pool"] == 5
    assert dodge["diff"] == 6 + 2


# --- CPX-2: stunned ---------------------------------------------------------------------------


def test_CPX_2_stunned_character_loses_the_next_turn_then_acts_again() -> None:
    """CPX-2 / DMG-6: 2 levels beat Stamina 1. Next turn: no declaration, no action, no
    defense against a punch; the turn after, all of them come back."""
    a = fighter("a", strength=4)
    t = fighter("t", stamina=1)
    faces = [9, 1, *successes(1, 5), 7, 7, 2, 2, FILLER]  # 2 levels of bashing
    faces += [9, 1, *successes(0, 5)]  # turn 2: a misses
    faces += [9, 1, *successes(0, 5)]  # turn 3
    b = battle([Fighter(a, 0, 0, 0), Fighter(t, 1, 1, 0)], faces, turn_limit=3)
    declare_all(b)
    step(b, ACT, 0, attack("punch", 1))
    step(b, DEFEND, 1, NONE)
    assert b.combatants[1].stunned_turn == 2
    step(b, ACT, 1, PASS)  # the rest of this turn is still its own
    # turn 2
    step(b, DECLARE, 0, ONE)
    step(b, ACT, 0, attack("punch", 1))
    assert b.turn == 3  # no defense asked, no action for the stunned one
    turn2 = [e for e in b.log.events if e["e"] == EventKind.DECIDE][-2:]
    assert {e["who"] for e in turn2} == {0}
    # turn 3: back in the fight (slowest declares first)
    step(b, DECLARE, 1, ONE)
    step(b, DECLARE, 0, ONE)
    step(b, ACT, 0, attack("punch", 1))
    d = b.pending
    assert d is not None and (d.kind, d.actor) == (DEFEND, 1)


# --- CPX-3: immobilized --------------------------------------------------------------------


def _three(held: bool, staked: bool = False, faces: list[int] | None = None) -> Battle:
    """Holder (0) and striker (1) against the victim (2); a spare foe (3) far away keeps
    the battle going when the victim is staked."""
    victim = sheet("v", kind="vampire" if staked else "mortal", stamina=2)
    fs = [
        Fighter(fighter("holder"), 0, 0, 1),
        Fighter(fighter("striker"), 0, 1, 0),
        Fighter(victim, 1, 0, 0),
        Fighter(fighter("spare"), 1, 50, 0),
    ]
    b = battle(fs, faces or [9, 8, 1, 1, *[FILLER] * 20])
    if held:
        grip = Grip(GripKind.HOLD, 0, 2, 0)  # MAN-7: 0 holds 2
        b.combatants[0].grip = b.combatants[2].grip = grip
    if staked:
        b.combatants[2].staked = True
    declare_all(b)
    return b


def test_CPX_3_attacks_on_a_held_struggling_target_get_two_dice() -> None:
    free, held = _three(False), _three(True)
    pf, ph = free.plan(1, attack("punch", 2)), held.plan(1, attack("punch", 2))
    assert pf is not None and ph is not None
    assert ph.pool == pf.pool + 2
    assert ph.difficulty == pf.difficulty and not ph.auto_hit


def test_CPX_3_held_target_in_battle_gets_no_defense_and_the_striker_two_dice() -> None:
    """CPX-3 / MAN-7: the holder holds (Dex 3 + Brawl 2, one success); then the striker
    punches the held victim with 5 + 2 dice (flank +1: the victim faces the holder)."""
    faces = [9, 8, 1, 1, *successes(1, 5), *successes(0, 8)]
    b = _three(False, faces=faces)
    step(b, ACT, 0, attack("hold", 2))
    step(b, DEFEND, 2, NONE)
    assert b.combatants[2].held_by == 0
    step(b, ACT, 1, attack("punch", 2))  # no DEFEND decision: the victim is held
    punch = rolls(b, "attack")[-1]
    assert punch["pool"] == 5 + 1 + 2


@pytest.mark.parametrize("faces", [[FILLER] * 6, [1, *[FILLER] * 5]])
def test_CPX_3_attacks_on_a_staked_target_hit_automatically(faces: list[int]) -> None:
    """CPX-3: a completely immobilized (staked) target is hit even with no success, and
    a botch does not turn it into a mishap. Damage: Strength 2 alone."""
    b = _three(False, staked=True, faces=[9, 8, 1, 1, *faces, *[FILLER] * 2])
    p = b.plan(0, attack("punch", 2))
    assert p is not None and p.auto_hit
    step(b, ACT, 0, attack("punch", 2))
    assert [e["target"] for e in events(b, EventKind.HIT)] == [2]
    assert not events(b, EventKind.MISHAP)
    assert single_roll(b, "damage")["pool"] == 2


# --- CPX-4: knockdown -------------------------------------------------------------------------


def _swept(knockdown: list[int], turns: int = 2, turn2: list[int] | None = None) -> Battle:
    """The attacker sweeps (5 dice at 7, one success; Strength 2 damage, nothing); the
    target (Dex 3 + Athletics 1) fails its footing (4 dice) and rolls the knockdown."""
    faces = [9, 1, *successes(1, 5), *[FILLER] * 2, *[FILLER] * 4, *knockdown]
    faces += [1, 9] if turn2 is None else turn2
    b = battle(
        [Fighter(fighter("a"), 0, 0, 0), Fighter(fighter("t"), 1, 1, 0)], faces, turn_limit=turns
    )
    declare_all(b)
    step(b, ACT, 0, attack("sweep", 1))
    step(b, DEFEND, 1, NONE)
    r = single_roll(b, "knockdown", 1)
    assert (r["pool"], r["diff"]) == (4, 6)
    return b


def test_CPX_4_knockdown_success_up_at_once_minus_two_initiative_next_turn() -> None:
    b = _swept([6, 2, 2, 2])
    t = b.combatants[1]
    assert not t.prone
    step(b, ACT, 1, PASS)
    declare_all(b)  # INIT-9 (004): the roll comes after the declarations
    init = events(b, EventKind.INITIATIVE, who=1)[-1]
    assert init["total"] == 6 + 9 - 2
    assert events(b, EventKind.INITIATIVE, who=0)[-1]["total"] == 6 + 1


def test_CPX_4_knockdown_failure_next_action_is_getting_up() -> None:
    b = _swept([2, 2, 2, 2])
    t = b.combatants[1]
    assert t.prone
    assert not t.health.filled  # no damage on a plain failure
    kinds = offered_kinds(b)
    assert ActionKind.GET_UP in kinds
    assert not offered_maneuvers(b) & {"punch", "kick", "sweep", "tackle", "clinch"}
    step(b, ACT, 1, Action(ActionKind.GET_UP))
    assert not t.prone
    assert not rolls(b, "get_up")  # alone: no roll (ACT-6)
    # next turn: standing, no initiative penalty
    declare_all(b)  # INIT-9 (004): the roll comes after the declarations
    assert events(b, EventKind.INITIATIVE, who=1)[-1]["total"] == 6 + 9


def test_CPX_4_knockdown_botch_adds_one_level_of_bashing() -> None:
    b = _swept([1, 2, 2, 2], turns=1, turn2=[])
    t = b.combatants[1]
    assert t.prone
    assert t.health.marks() == "/......"
    assert events(b, EventKind.DAMAGE, who=1)[-1]["type"] == "bashing"


# --- CPX-5: staking ---------------------------------------------------------------------------


def hunter(weapon: str = "stake") -> StatBlock:
    """Strength 3, Dexterity 3 + Melee 3; a stake deals Strength + 1 lethal."""
    return sheet("hunter", strength=3, dexterity=3, wits=3, melee=3, weapons=[weapon])


def _stake(weapon: str, called: CalledShot | None, dmg_pool: int, levels: int) -> Battle:
    vamp = sheet("vamp", kind="vampire", stamina=2)
    faces = [9, 1, *successes(1, 6, 9), *successes(levels, dmg_pool, 7), FILLER, FILLER]
    b = battle([Fighter(hunter(weapon), 0, 0, 0), Fighter(vamp, 1, 1, 0)], faces)
    declare_all(b)
    act = Action(ActionKind.ATTACK, "weapon_strike", 1, called=called)
    assert act in offered(b)
    step(b, ACT, 0, act)
    step(b, DEFEND, 1, NONE)
    return b


@pytest.mark.parametrize(
    ("weapon", "called", "dmg_pool", "levels", "staked"),
    [
        ("stake", CalledShot.TINY, 4 + 4, 3, True),  # the heart: tiny, +4 damage (000)
        ("stake", CalledShot.TINY, 4 + 4, 5, True),
        ("stake", CalledShot.TINY, 4 + 4, 2, False),  # fewer than 3 levels
        ("stake", None, 4, 3, False),  # not aimed at the heart
        ("stake", CalledShot.SMALL, 4 + 2, 3, False),
        ("knife", CalledShot.TINY, 4 + 4, 3, False),  # not a stake
    ],
)
def test_CPX_5_stake_through_the_heart_paralyzes_on_three_levels(
    weapon: str, called: CalledShot | None, dmg_pool: int, levels: int, staked: bool
) -> None:
    """CPX-5: a called shot at the heart (tiny: difficulty 6 + 3 = 9) with a stake; 3 or
    more levels after soak paralyze the vampire, who then counts as out."""
    b = _stake(weapon, called, dmg_pool, levels)
    atk = single_roll(b, "attack")
    assert atk["diff"] == 6 + {None: 0, CalledShot.SMALL: 2, CalledShot.TINY: 3}[called]
    assert single_roll(b, "damage")["pool"] == dmg_pool
    v = b.combatants[1]
    assert v.health.lethal == levels
    assert v.staked is staked
    assert bool(events(b, EventKind.ACTION, action="staked")) is staked
    if staked:
        assert v.health.status.value == "active"  # conscious, not torpid
        assert not b.able(v)
        assert blood_budget(v) == 0  # cannot spend blood
        assert b.pending is None and b.winner == 0  # the only foe is out
    else:
        assert b.pending is not None


# --- CPX-6: weapon mishaps -----------------------------------------------------------------


MISHAP_CASES = [
    # weapon, maneuver, pool, mishap die, effect
    ("light_pistol", "single_shot", 5, 1, "jam"),
    ("light_pistol", "single_shot", 5, 6, "jam"),
    ("light_pistol", "single_shot", 5, 7, "hit_ally"),
    ("light_pistol", "single_shot", 5, 10, "break"),
    ("knife", "weapon_strike", 3, 5, "drop"),
    ("knife", "weapon_strike", 3, 6, "break"),
    ("knife", "weapon_strike", 3, 9, "hit_ally"),
    ("throwing_knife", "thrown", 4, 6, "drop"),
    ("throwing_knife", "thrown", 4, 7, "hit_ally"),
    (None, "punch", 5, 6, "off_balance"),
    (None, "punch", 5, 7, "fall"),
]


@pytest.mark.parametrize(("weapon", "maneuver", "pool", "face", "effect"), MISHAP_CASES)
def test_CPX_6_botched_attack_draws_from_the_mishap_table(
    weapon: str | None, maneuver: str, pool: int, face: int, effect: str
) -> None:
    """CPX-6: a botch (a 1, no success) misses and rolls one die on the weapon class's
    row of configs/mishaps.yaml."""
    weapons = [weapon] if weapon else []
    a = fighter("a", melee=0, weapons=weapons)
    ally = fighter("ally", stamina=1)
    ranged = maneuver in ("single_shot", "thrown")
    fs = [
        Fighter(a, 0, 0, 0),
        Fighter(ally, 0, -1, 0),
        Fighter(fighter("t"), 1, 5 if ranged else 1, 0),
    ]
    b = battle(fs, [9, 1, 1, 1, *[FILLER] * (pool - 1), face, *[FILLER] * 10])
    declare_all(b)
    step(b, ACT, 0, attack(maneuver, 2))
    if b.pending is not None and b.pending.kind is DEFEND:
        step(b, DEFEND, 2, NONE)
    r = single_roll(b, "attack")
    assert (r["pool"], r.get("botch")) == (pool, True)
    assert single_roll(b, "mishap")["faces"] == [face]
    (m,) = events(b, EventKind.MISHAP)
    assert m["effect"] == effect
    c = b.combatants[0]
    hits = events(b, EventKind.HIT)
    if effect == "jam":
        assert c.jammed[0] and not c.lost[0]
    elif effect in ("drop", "break"):
        assert c.lost[0] and c.wielding == -1
    elif effect == "off_balance":
        assert c.off_balance_turn == 2
    elif effect == "fall":
        assert c.prone
    if effect == "hit_ally":
        assert [(h["target"], h.get("mishap")) for h in hits] == [(1, True)]
        assert single_roll(b, "damage")["who"] == 0
    else:
        assert hits == []


@pytest.mark.parametrize(
    ("ally_at", "hit"),
    [((-1.0, 0.0), True), ((2.5, 1.4), True), ((2.5, 2.0), False), ((0.0, -3.0), False)],
)
def test_CPX_6_a_stray_shot_hits_an_ally_near_the_line_of_fire(
    ally_at: tuple[float, float], hit: bool
) -> None:
    """CPX-6: the hit_ally row strikes an ally within 1.5 yards of the line of fire;
    with none there the shot goes astray harmlessly."""
    a = fighter("a", weapons=["light_pistol"])
    fs = [
        Fighter(a, 0, 0, 0),
        Fighter(fighter("ally"), 0, *ally_at),
        Fighter(fighter("t"), 1, 5, 0),
    ]
    b = battle(fs, [9, 1, 1, 1, *[FILLER] * 4, 8, *[FILLER] * 4])
    declare_all(b)
    step(b, ACT, 0, attack("single_shot", 2))
    step(b, DEFEND, 2, NONE)
    assert events(b, EventKind.MISHAP)[0]["effect"] == "hit_ally"
    assert [h["target"] for h in events(b, EventKind.HIT)] == ([1] if hit else [])
    assert len(rolls(b, "damage")) == (1 if hit else 0)


def test_CPX_6_jammed_gun_needs_a_clear_action() -> None:
    """CPX-6: a jam stops the gun (no shot, no reload) until an action clears it; inside
    multiple actions the clearing is a Dex + Firearms roll at 4 (ACT-5)."""
    a = fighter("a", weapons=["light_pistol"])
    faces = [9, 1, 1, *[FILLER] * 4, 3]  # turn 1: botch, the mishap die says jam
    faces += [9, 1, 4, FILLER, FILLER, *[FILLER] * 2]  # turn 2: clear (3 dice), then shoot
    b = battle([Fighter(a, 0, 0, 0), Fighter(fighter("t"), 1, 5, 0)], faces, turn_limit=2)
    declare_all(b)
    step(b, ACT, 0, attack("single_shot", 1))
    step(b, DEFEND, 1, NONE)
    assert b.combatants[0].jammed[0]
    step(b, ACT, 1, PASS)
    declare_all(b, {0: Declaration(actions=2)})
    kinds = offered_kinds(b)
    assert ActionKind.CLEAR in kinds and ActionKind.RELOAD not in kinds
    assert not offered_maneuvers(b, 1) & {"single_shot"}
    step(b, ACT, 0, Action(ActionKind.CLEAR))
    clear = single_roll(b, "clear")
    assert (clear["pool"], clear["diff"]) == (5 - 2, 4)
    assert not b.combatants[0].jammed[0]
    step(b, ACT, 1, PASS)
    assert "single_shot" in offered_maneuvers(b, 1)


def test_CPX_6_jam_needs_no_roll_as_the_only_action() -> None:
    a = fighter("a", weapons=["light_pistol"])
    b = battle([Fighter(a, 0, 0, 0), Fighter(fighter("t"), 1, 5, 0)], [9, 1])
    b.combatants[0].jammed[0] = True
    declare_all(b)
    step(b, ACT, 0, Action(ActionKind.CLEAR))
    assert not rolls(b, "clear")
    assert not b.combatants[0].jammed[0]
