"""The worked examples of seed 000 (the combat chapter), as far as the rules allow."""

from __future__ import annotations

from rule_helpers import (
    DEFEND,
    DODGE,
    FILLER,
    NONE,
    ONE,
    attack,
    battle,
    block,
    combatant,
    dice_for,
    one_success,
    rolls,
    run,
    step,
)

from vtm_sim.core.choices import Choice, Decision, DecisionKind, Declaration, DefenseKind
from vtm_sim.data.config import config_dir
from vtm_sim.data.rules import load_rules
from vtm_sim.data.stat_blocks import StatBlock, load_stat_block
from vtm_sim.data.tables import DamageType, WeaponClass, load_tables
from vtm_sim.engine.battle import Fighter
from vtm_sim.events import EventKind, EventLog
from vtm_sim.mechanics.attack import AttackChain, plan_attack, resolve_attack
from vtm_sim.mechanics.combatant import Combatant

V20 = load_rules("v20")


def lisa() -> StatBlock:
    """Lisa: Dexterity 3, Brawl 2, Dodge 3."""
    return block("Lisa", attrs={"dexterity": 3, "wits": 4}, abil={"brawl": 2, "dodge": 3})


def test_ACT_1_lisa_punch_then_two_dodges() -> None:
    """ACT-1, seed 000: Lisa declares three actions: punch Dex 3 + Brawl 2 = 5 dice - 3
    = 2; dodge Dex 3 + Dodge 3 = 6 dice - 4 = 2; the second dodge 6 - 5 = 1 die."""
    thug = block("thug", attrs={"dexterity": 1, "wits": 5}, abil={"brawl": 1})
    gunman = block(
        "gunman", attrs={"dexterity": 1, "wits": 3}, abil={"firearms": 1}, weapons=["light_pistol"]
    )
    fs = [Fighter(lisa(), 0, 0, 0), Fighter(thug, 1, 1, 0), Fighter(gunman, 1, 10, 0)]
    # Lisa 16, thug 11, gunman 9. Lisa's punch (2 dice) misses; each attack on her
    # scores one success that her dodge cancels
    faces = [9, 5, 5, FILLER, FILLER, *one_success(2), *one_success(2), *one_success(2), 6]
    b = battle(fs, faces)
    step(b, DecisionKind.DECLARE, 2, ONE)
    step(b, DecisionKind.DECLARE, 1, ONE)
    step(b, DecisionKind.DECLARE, 0, Declaration(actions=3))
    step(b, DecisionKind.ACT, 0, attack("punch", 1))
    step(b, DEFEND, 1, NONE)
    step(b, DecisionKind.ACT, 1, attack("punch", 0))
    step(b, DEFEND, 0, DODGE)
    step(b, DecisionKind.ACT, 2, attack("single_shot", 0))
    step(b, DEFEND, 0, DODGE)
    assert b.pending is None  # Lisa's three actions are spent
    lisa_rolls = [(r["what"], r["pool"]) for r in rolls(b, who=0)]
    assert lisa_rolls == [("attack", 2), ("dodge", 2), ("dodge", 1)]


def test_DEF_7_lisa_full_defense_6_5_4_3_2_1() -> None:
    """DEF-7, seed 000: on full defense Lisa (Dex 3 + Dodge 3) rolls 6 dice against the
    first attack, 5 against the second, ... 1 against the sixth; then no dice are left.
    (000 says "Dexterity 6 and Dodge 6" in the second telling but rolls 6, 5, 4, ...: the
    first telling's Dex 3 + Dodge 3 = 6 fits the numbers.)"""
    a1 = block("a1", attrs={"dexterity": 5, "wits": 5}, abil={"brawl": 5})
    a2 = block("a2", attrs={"dexterity": 5, "wits": 4}, abil={"brawl": 5})
    # both attackers stand 1 yard away in front of Lisa (no flank bonus)
    fs = [Fighter(lisa(), 0, 0, 0), Fighter(a1, 1, 1, 0), Fighter(a2, 1, 0.8, 0.6)]
    # attacks alternate a1, a2 with 6, 6, 5, 5, 4, 4, 3, 3 dice (4 actions each);
    # each of the first six scores one success and Lisa's dodge (at 7: two
    # opponents, ATK-8) cancels it; the last two meet no defense and miss
    faces = [1, 9, 9]
    for attack_pool, dodge_pool in zip([6, 6, 5, 5, 4, 4], [6, 5, 4, 3, 2, 1], strict=True):
        faces += one_success(attack_pool) + one_success(dodge_pool, 8)
    faces += [FILLER] * 6
    b = battle(fs, faces)
    four = Declaration(actions=4)

    def decide(d: Decision) -> Choice:
        if d.kind is DecisionKind.DECLARE:
            return Declaration(full_defense=True) if d.actor == 0 else four
        if d.kind is DecisionKind.ACT:
            assert d.actor != 0, "a full defender takes no action"
            return attack("punch", 0)
        return DODGE

    decisions = run(b, decide)
    assert [r["pool"] for r in rolls(b, "dodge")] == [6, 5, 4, 3, 2, 1]
    assert len(rolls(b, "attack")) == 8  # the last two attacks meet no defense
    assert sum(1 for d in decisions if d.kind is DEFEND) == 6


def _knife_duel() -> tuple[Combatant, Combatant]:
    kf = load_stat_block(config_dir() / "characters" / "knife_fighter.yaml")
    return combatant(kf, 0, 0), combatant(kf, 1, 1, 1.0)


def test_DMG_2_knife_example_attack_and_damage_as_printed() -> None:
    """DMG-2 / ATK-5 / DICE-6, seed 000's knife example up to the damage roll.

    Dexterity 3 + Melee 3 = 6 dice: 2 9 9 6 2 5 = 3 successes. Damage: knife Strength
    4 + 1, plus 2 for the two extra successes = 7 dice: 7 2 1 2 6 9 7 = 4 successes, the
    1 cancels nothing (DICE-6). These numbers agree with the rules. Without the dodge
    and with no soak against a knife for a mortal (SOAK-2), all 4 are health levels."""
    a, d = _knife_duel()
    plan = plan_attack(a, d, "weapon_strike", load_tables(), V20)
    assert plan is not None
    assert (plan.pool, plan.difficulty, plan.damage_base) == (6, 6, 5)
    assert plan.damage_type is DamageType.LETHAL
    log = EventLog()
    out = resolve_attack(AttackChain(
        plan,
        a,
        d,
        DefenseKind.NONE,
        0,
        6,
        V20,
        dice_for(attack=[2, 9, 9, 6, 2, 5], damage=[7, 2, 1, 2, 6, 9, 7], soak=[]),
        log,
        1,
    ))
    assert out.attack.successes == 3
    assert out.damage is not None and (out.damage.pool, out.damage.successes) == (7, 4)
    assert out.levels == 4
    assert d.health.marks() == "XXXX..."


def test_DEF_1_knife_example_with_the_dodge_as_the_rules_read_it() -> None:
    """DEF-1 / DICE-3 / SOAK-2 / DMG-7, seed 000's knife example with the dodge.

    The example contradicts its own rules in four places:
    1. It counts the dodge 5 9 1 4 6 as 2 successes; by DICE-3 the 1 cancels one: 1.
    2. It subtracts the dodge from the damage successes (4 -> 2); DEF-1 (and the same
       chapter's defense rules) subtract it from the attack successes before damage.
    3. The mortal defender soaks the knife with Stamina (7 5: one success); by SOAK-2
       mortals cannot soak lethal damage.
    4. It marks the level "/" (bashing) by Bruised; a knife deals lethal damage, "X".

    The engine instead: attack 3 - dodge 1 = 2 net successes, so one extra damage die:
    Strength 4 + 1 + 1 = 6 dice (the printed 7 2 1 2 6 9 -> 3 successes), no soak roll,
    3 lethal levels (Injured, -1), and a stun (3 > Stamina 2, DMG-6) where the example
    ends with one bashing level."""
    a, d = _knife_duel()
    plan = plan_attack(a, d, "weapon_strike", load_tables(), V20)
    assert plan is not None
    log = EventLog()
    out = resolve_attack(AttackChain(
        plan,
        a,
        d,
        DefenseKind.DODGE,
        0,
        6,
        V20,
        dice_for(
            attack=[2, 9, 9, 6, 2, 5], dodge=[5, 9, 1, 4, 6], damage=[7, 2, 1, 2, 6, 9], soak=[]
        ),
        log,
        1,
    ))
    assert out.defense is not None and (out.defense.pool, out.defense.successes) == (5, 1)
    assert out.net == 2
    assert out.damage is not None and (out.damage.pool, out.damage.successes) == (6, 3)
    assert out.soak is None or out.soak.faces == ()
    assert out.levels == 3 and out.damage_type is DamageType.LETHAL
    assert d.health.marks() == "XXX...."
    assert d.health.level_name == "injured" and d.health.penalty == 1
    assert out.stunned
    hit_events = [e["e"] for e in log.events if e["e"] != EventKind.ROLL]
    assert hit_events == [EventKind.HIT, EventKind.DAMAGE, EventKind.STUN]


def test_DMG_7_knife_example_two_levels_cost_a_die() -> None:
    """DMG-7, seed 000: "had the attacker taken two levels, the defender marks Hurt -1
    and rolls one die fewer next turn"."""
    a, d = _knife_duel()
    d.health.take(2, DamageType.LETHAL)
    plan = plan_attack(d, a, "weapon_strike", load_tables(), V20)
    assert plan is not None and plan.pool == 6 - 1
    assert d.health.level_name == "hurt"


def test_ATK_5_ak47_damage_7_and_extra_successes_add() -> None:
    """ATK-5 / ATK-6, seed 000's Nikolai example, the part that exists.

    The AK-47 (and the assault rifle) deal 7 lethal dice and can fire full auto. The
    full-auto maneuver itself (RNG-5: +10 dice, difficulty +2, so Dex 4 + Firearms 3 +
    10 = 17 dice at 8, emptying the magazine) does not exist yet; that arithmetic waits
    for it. What exists: with firearms, extra successes add damage dice, so 6 net
    successes on one AK-47 roll give 7 + 5 = 12 damage dice, as in the example."""
    w = load_tables().weapon("ak47")
    ar = load_tables().weapon("assault_rifle")
    for weapon in (w, ar):
        assert (weapon.cls, weapon.damage, weapon.damage_type) == (
            WeaponClass.FIREARM,
            7,
            DamageType.LETHAL,
        )
        assert weapon.autofire
    nikolai = block(
        "Nikolai", kind="vampire", attrs={"dexterity": 4}, abil={"firearms": 3}, weapons=["ak47"]
    )
    a = combatant(nikolai)
    t = combatant(block("t"), 1, 1, 30.0)
    plan = plan_attack(a, t, "single_shot", load_tables(), V20)
    assert plan is not None and (plan.pool, plan.damage_base) == (7, 7)
    out = resolve_attack(AttackChain(
        plan,
        a,
        t,
        DefenseKind.NONE,
        0,
        6,
        V20,
        dice_for(attack=[6, 7, 8, 9, 6, 7, 2], damage=[2] * 12),
        EventLog(),
        1,
    ))
    assert out.net == 6
    assert out.damage is not None and out.damage.pool == 12


def test_ATK_5_shipped_nikolai_loses_a_die_to_his_kevlar() -> None:
    """SOAK-4: the shipped nikolai.yaml wears a Kevlar vest (penalty 1), so his single
    shot is Dex 4 + Firearms 3 - 1 = 6 dice, not the example's 7 base dice."""
    n = load_stat_block(config_dir() / "characters" / "nikolai.yaml")
    a = combatant(n)
    t = combatant(block("t"), 1, 1, 30.0)
    plan = plan_attack(a, t, "single_shot", load_tables(), V20)
    assert plan is not None and plan.pool == 6 and plan.specialty
