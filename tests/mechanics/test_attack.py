"""The attack chain with fixed dice: pools, defense, damage, soak, stun, armor.

ATK-1..6, ATK-8, DEF-1, DEF-4..6, DEF-8, DMG-1..6, SOAK-1..5.
"""

from __future__ import annotations

from typing import Any

import pytest
from rule_helpers import (
    ACT,
    DECLARE,
    DEFEND,
    FILLER,
    ONE,
    attack,
    battle,
    block,
    combatant,
    dice_for,
    one_success,
    rolls,
    step,
)

from vtm_sim.core.choices import AbortMethod, Declaration, Defense, DefenseKind
from vtm_sim.core.dice import ScriptedDice
from vtm_sim.core.space import Field
from vtm_sim.data.rules import RuleSet, load_rules
from vtm_sim.data.stat_blocks import StatBlock
from vtm_sim.data.tables import DamageType, WeaponClass, load_tables
from vtm_sim.engine.battle import Battle, Fighter
from vtm_sim.events import EventKind, EventLog
from vtm_sim.mechanics.attack import (
    AttackChain,
    AttackOutcome,
    AttackPlan,
    apply_levels,
    defense_pool,
    effective_damage_type,
    legal_defenses,
    plan_attack,
    resolve_attack,
    soak_pool,
    stun_threshold,
)
from vtm_sim.mechanics.combatant import Combatant

BASH, LETHAL, AGG = DamageType.BASHING, DamageType.LETHAL, DamageType.AGGRAVATED
DODGE, BLOCK, PARRY, NO = (
    DefenseKind.DODGE,
    DefenseKind.BLOCK,
    DefenseKind.PARRY,
    DefenseKind.NONE,
)
V20 = load_rules("v20")
DA = load_rules("dark_ages")
STUN_LEVELS = V20.model_copy(update={"stun_counts": "levels"})  # DMG-6 option


def fighter(
    name: str = "f",
    *,
    kind: str = "mortal",
    weapons: list[str] | None = None,
    armor: str | None = None,
    **attrs: int,
) -> StatBlock:
    """A stat block: keyword traits are sorted into attributes/abilities/disciplines."""
    from vtm_sim.data.stat_blocks import ABILITIES, ATTRIBUTES

    a = {k: v for k, v in attrs.items() if k in ATTRIBUTES}
    ab = {k: v for k, v in attrs.items() if k in ABILITIES}
    d = {k: v for k, v in attrs.items() if k not in ATTRIBUTES and k not in ABILITIES}
    extra: dict[str, Any] = {"weapons": weapons or []}
    if armor:
        extra["armor"] = armor
    return block(name, kind=kind, attrs=a, abil=ab, disc=d, **extra)


def pair(
    attacker: StatBlock, defender: StatBlock, distance: float = 1.0
) -> tuple[Combatant, Combatant]:
    return combatant(attacker, 0, 0, 0.0, 0.0), combatant(defender, 1, 1, distance, 0.0)


def plan(
    a: Combatant,
    d: Combatant,
    maneuver: str,
    rules: RuleSet = V20,
    **kw: Any,
) -> AttackPlan:
    p = plan_attack(a, d, maneuver, load_tables(), rules, **kw)
    assert p is not None, f"{maneuver} not possible"
    return p


def resolve(
    p: AttackPlan,
    a: Combatant,
    d: Combatant,
    defense: DefenseKind = NO,
    rules: RuleSet = V20,
    *,
    penalty: int = 0,
    difficulty: int = 6,
    **faces: list[int],
) -> tuple[AttackOutcome, EventLog]:
    log = EventLog()
    out = resolve_attack(AttackChain(
        p, a, d, defense, penalty, difficulty, rules, dice_for(**faces), log, turn=1
    ))
    return out, log


def kinds(log: EventLog) -> list[str]:
    return [e["e"] for e in log.events if e["e"] != EventKind.ROLL]


def roll_of(log: EventLog, what: str) -> dict[str, Any]:
    (r,) = [e for e in log.events if e["e"] == EventKind.ROLL and e["what"] == what]
    return r


# --- ATK-1: close combat ----------------------------------------------------------


@pytest.mark.parametrize(
    ("maneuver", "weapons", "pool", "difficulty", "damage", "dtype"),
    [
        ("punch", [], 5, 6, 4, BASH),  # Dex 3 + Brawl 2, Strength 4
        ("kick", [], 5, 7, 5, BASH),
        ("weapon_strike", ["knife"], 6, 6, 5, LETHAL),  # Dex 3 + Melee 3, Str 4 + 1
        ("weapon_strike", ["club"], 6, 6, 6, BASH),
        ("weapon_strike", ["sword"], 6, 6, 6, LETHAL),
    ],
)
def test_ATK_1_close_combat_pools(
    maneuver: str, weapons: list[str], pool: int, difficulty: int, damage: int, dtype: DamageType
) -> None:
    """ATK-1: unarmed Dexterity + Brawl, armed Dexterity + Melee."""
    s = fighter(strength=4, dexterity=3, brawl=2, melee=3, weapons=weapons)
    a, d = pair(s, fighter())
    p = plan(a, d, maneuver)
    assert (p.pool, p.difficulty, p.damage_base, p.damage_type) == (pool, difficulty, damage, dtype)
    assert p.close


def test_ATK_1_weapon_strike_needs_a_melee_weapon() -> None:
    a, d = pair(fighter(dexterity=3, melee=3), fighter())
    assert plan_attack(a, d, "weapon_strike", load_tables(), V20) is None
    a, d = pair(fighter(dexterity=3, melee=3, weapons=["light_pistol"]), fighter())
    assert plan_attack(a, d, "weapon_strike", load_tables(), V20) is None


@pytest.mark.parametrize(
    ("maneuver", "weapons", "reach"),
    [("punch", [], 1.0), ("kick", [], 1.0), ("weapon_strike", ["knife"], 2.0)],
)
def test_ATK_1_close_attack_closes_to_one_yard_unarmed_two_armed(
    maneuver: str, weapons: list[str], reach: float
) -> None:
    """ATK-1: the attacker moves in until the target is within 1 yard (unarmed) or 2 (armed)."""
    a = fighter("a", dexterity=3, wits=3, brawl=2, melee=2, weapons=weapons)
    b = battle([Fighter(a, 0, 0, 0), Fighter(fighter("t"), 1, 6, 0)], [9, 2, *[FILLER] * 9])
    step(b, DECLARE, 1, ONE)
    step(b, DECLARE, 0, ONE)
    step(b, ACT, 0, attack(maneuver, 1))
    (move,) = [e for e in b.log.events if e["e"] == EventKind.MOVE]
    assert move["to"][0] == pytest.approx(6 - reach)
    assert b.combatants[0].distance(b.combatants[1]) == pytest.approx(reach)


def test_ATK_1_no_close_attack_beyond_running_distance() -> None:
    """ATK-1: a target farther than the move allowance plus reach cannot be struck."""
    a = fighter("a", dexterity=3, brawl=3)  # runs 20 + 3 x 3 = 29 yards
    b = battle([Fighter(a, 0, 0, 0), Fighter(fighter("t"), 1, 31, 0)], [9, 2])
    step(b, DECLARE, 1, ONE)
    step(b, DECLARE, 0, ONE)
    assert b.pending is not None
    assert not [o for o in b.pending.options if getattr(o, "maneuver", None)]
    assert b.plan(0, attack("punch", 1)) is None
    # 15 yards: 14 to close, within half the running distance: no penalty (ACT-4)
    b2 = battle([Fighter(a, 0, 0, 0), Fighter(fighter("t"), 1, 15, 0)], [9, 2])
    step(b2, DECLARE, 1, ONE)
    step(b2, DECLARE, 0, ONE)
    assert b2.pending is not None and attack("punch", 1) in b2.pending.options
    p = b2.plan(0, attack("punch", 1))
    assert p is not None and p.pool == 6


# --- ATK-2: ranged -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("maneuver", "weapon", "ability", "rules"),
    [
        ("single_shot", "light_pistol", "firearms", V20),
        ("thrown", "throwing_knife", "athletics", V20),
        ("single_shot", "short_bow", "archery", DA),
        ("single_shot", "crossbow", "archery", DA),
    ],
)
def test_ATK_2_ranged_pools_by_weapon(
    maneuver: str, weapon: str, ability: str, rules: RuleSet
) -> None:
    """ATK-2: Dex + Firearms, Dex + Athletics (thrown), Dex + Archery (bows, crossbows)."""
    traits = {"firearms": 1, "athletics": 1, "archery": 1, ability: 3}
    a, d = pair(fighter(dexterity=2, weapons=[weapon], **traits), fighter(), distance=5)
    p = plan(a, d, maneuver, rules)
    assert (p.ability, p.pool, p.ranged) == (ability, 5, True)


@pytest.mark.parametrize(
    ("distance", "difficulty"),
    [(1.0, 4), (2.0, 4), (3.0, 6), (20.0, 6), (21.0, 8), (40.0, 8), (41.0, None)],
)
def test_ATK_2_ranged_attack_needs_the_target_in_range(
    distance: float, difficulty: int | None
) -> None:
    """ATK-2 (with RNG-2): light pistol range 20: point blank 4, 6, up to 40 at 8, beyond none."""
    a, d = pair(fighter(dexterity=3, firearms=2, weapons=["light_pistol"]), fighter(), distance)
    p = plan_attack(a, d, "single_shot", load_tables(), V20)
    assert (p.difficulty if p else None) == difficulty


def test_ATK_2_no_firearms_in_dark_ages() -> None:
    a, d = pair(fighter(dexterity=3, firearms=2, weapons=["light_pistol"]), fighter(), 5)
    assert plan_attack(a, d, "single_shot", load_tables(), V20) is not None
    assert plan_attack(a, d, "single_shot", load_tables(), DA) is None


# --- ATK-3: unskilled ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("rules", "maneuver", "weapon", "traits", "pool", "difficulty"),
    [
        (V20, "weapon_strike", "knife", {}, 3, 6),
        (DA, "weapon_strike", "knife", {}, 3, 7),  # a Skill: +1 difficulty
        (DA, "weapon_strike", "knife", {"melee": 2}, 5, 6),
        (DA, "punch", "knife", {}, 3, 6),  # Brawl is a Talent: no +1
        (DA, "thrown", "throwing_knife", {}, 3, 6),  # Athletics is a Talent
        (DA, "single_shot", "short_bow", {}, 3, 7),  # Archery is a Skill
        (V20, "single_shot", "short_bow", {}, 3, 6),
        (V20, "single_shot", "light_pistol", {}, 3, 6),
    ],
)
def test_ATK_3_unskilled_rolls_the_attribute_alone(
    rules: RuleSet,
    maneuver: str,
    weapon: str,
    traits: dict[str, int],
    pool: int,
    difficulty: int,
) -> None:
    distance = 1.0 if maneuver in ("weapon_strike", "punch") else 5.0  # short range
    a, d = pair(fighter(dexterity=3, weapons=[weapon], **traits), fighter(), distance)
    p = plan(a, d, maneuver, rules)
    assert (p.pool, p.difficulty) == (pool, difficulty)


# --- ATK-4: difficulty 6, miss, botch ------------------------------------------------


@pytest.mark.parametrize(
    ("faces", "events", "botch"),
    [
        ([6, 2, 2, 2, 2], ["hit", "damage"], False),
        ([2, 3, 4, 5, 5], ["miss"], False),  # no success: a miss, no damage roll
        ([6, 1, 2, 2, 2], ["miss"], False),  # cancelled: a miss, not a botch
        ([1, 2, 3, 4, 5], ["miss"], True),  # botch: a miss (the mishap is the battle's)
    ],
)
def test_ATK_4_no_success_misses(faces: list[int], events: list[str], botch: bool) -> None:
    a, d = pair(fighter(dexterity=3, brawl=2, strength=1), fighter(stamina=1))
    p = plan(a, d, "punch")
    assert p.difficulty == 6
    out, log = resolve(p, a, d, attack=faces, damage=[6], soak=[2])
    assert kinds(log) == events
    assert out.hit is ("hit" in events)
    assert (out.damage is None) is ("hit" not in events)
    assert out.attack.botch is botch


def test_ATK_4_botch_in_battle_is_a_miss_and_a_mishap() -> None:
    """ATK-4 / DICE-4: a botched punch misses and draws a mishap (CPX-6 table)."""
    a = fighter("a", dexterity=3, wits=3, brawl=2)
    # init; punch 5 dice: a 1 and no success; the mishap die (3: off balance)
    b = battle([Fighter(a, 0, 0, 0), Fighter(fighter("t"), 1, 1, 0)], [9, 2, 1, 2, 2, 2, 2, 3])
    step(b, DECLARE, 1, ONE)
    step(b, DECLARE, 0, ONE)
    step(b, ACT, 0, attack("punch", 1))
    step(b, DEFEND, 1, Defense(NO))
    (r,) = rolls(b, "attack")
    assert r.get("botch") is True
    tags = [
        e["e"]
        for e in b.log.events
        if e["e"] in (EventKind.MISS, EventKind.MISHAP, EventKind.HIT, EventKind.DAMAGE)
    ]
    assert tags == [EventKind.MISS, EventKind.MISHAP]
    assert b.combatants[1].health.filled == 0


# --- ATK-5: each success beyond the first adds a damage die ---------------------------


@pytest.mark.parametrize(
    ("faces", "net", "damage_pool"),
    [
        ([6, 2, 2, 2, 2], 1, 3),
        ([6, 7, 2, 2, 2], 2, 4),
        ([6, 7, 8, 2, 2], 3, 5),
        ([10, 10, 10, 10, 10], 5, 7),
        ([6, 7, 8, 1, 2], 2, 4),  # net successes count
    ],
)
def test_ATK_5_extra_successes_add_damage_dice(
    faces: list[int], net: int, damage_pool: int
) -> None:
    a, d = pair(fighter(dexterity=3, brawl=2, strength=3), fighter(stamina=1))
    p = plan(a, d, "punch")
    out, log = resolve(p, a, d, attack=faces, damage=[2] * damage_pool, soak=[])
    assert out.net == net
    assert roll_of(log, "damage")["pool"] == damage_pool


# --- ATK-6: thrown weapons (and bows in Dark Ages) add no damage dice -------------


@pytest.mark.parametrize(
    ("maneuver", "weapon", "rules", "damage_pool"),
    [
        ("thrown", "throwing_knife", V20, 4),  # Str 3 + 1, extras ignored
        ("thrown", "throwing_knife", DA, 4),
        (
            "thrown",
            "throwing_knife",
            V20.model_copy(update={"thrown_extra_successes_add": True}),
            6,
        ),
        ("single_shot", "light_pistol", V20, 6),  # firearms add (000's full-auto example)
        ("single_shot", "short_bow", V20, 6),
        ("single_shot", "short_bow", DA, 4),
        ("single_shot", "crossbow", DA, 5),
        ("weapon_strike", "knife", V20, 6),
        ("weapon_strike", "knife", DA, 6),
    ],
)
def test_ATK_6_extra_successes_and_missile_weapons(
    maneuver: str, weapon: str, rules: RuleSet, damage_pool: int
) -> None:
    s = fighter(
        dexterity=3, strength=3, athletics=2, firearms=2, archery=2, melee=2, weapons=[weapon]
    )
    a, d = pair(s, fighter(stamina=0), distance=1.0 if maneuver == "weapon_strike" else 5.0)
    p = plan(a, d, maneuver, rules)
    out, log = resolve(p, a, d, NO, rules, attack=[6, 7, 8, 2, 2], damage=[2] * damage_pool)
    assert out.net == 3
    assert roll_of(log, "damage")["pool"] == damage_pool


# --- ATK-8: multiple opponents ------------------------------------------------------


def _crowd(n: int, rules: RuleSet = V20) -> Battle:
    """One fighter (id 0) surrounded by ``n`` enemies within 2 yards."""
    spots = [(1, 0), (0, 1), (-1, 0), (0, -1), (1, 1), (-1, -1), (1, -1), (-1, 1)]
    hero = fighter("hero", dexterity=3, brawl=2, dodge=2)
    fs = [Fighter(hero, 0, 0, 0)] + [Fighter(fighter(f"e{i}"), 1, *spots[i]) for i in range(n)]
    return Battle(fs, dice=ScriptedDice([5] * (n + 1)), rules=rules, turn_limit=1)


@pytest.mark.parametrize(("n", "mod"), [(1, 0), (2, 1), (3, 2), (5, 4), (6, 4), (8, 4)])
def test_ATK_8_plus_one_difficulty_per_extra_opponent_up_to_4(n: int, mod: int) -> None:
    b = _crowd(n)
    assert b.opponents_modifier(b.combatants[0]) == mod
    assert b.opponents_modifier(b.combatants[1]) == 0  # each enemy faces only the hero


def test_ATK_8_cap_comes_from_the_rules_profile() -> None:
    b = _crowd(6, V20.model_copy(update={"multiple_opponents_cap": 2}))
    assert b.opponents_modifier(b.combatants[0]) == 2


def test_ATK_8_far_enemies_are_not_engaging() -> None:
    hero = fighter("hero")
    fs = [Fighter(hero, 0, 0, 0), Fighter(fighter("a"), 1, 1, 0), Fighter(fighter("b"), 1, 10, 0)]
    b = battle(fs, [5, 5, 5])
    assert b.opponents_modifier(b.combatants[0]) == 0


def test_ATK_8_applies_to_attack_and_defense_rolls() -> None:
    """ATK-8: the hero engaged by 3 attacks at 6+2 and dodges at 6+2; enemies roll at 6."""
    spots = [(1.0, 0.0), (0.8, 0.6), (0.8, -0.6)]  # all 1 yard away, in front of the hero
    hero = fighter("hero", dexterity=4, wits=4, brawl=2, dodge=2)
    fs = [Fighter(hero, 0, 0, 0)] + [Fighter(fighter(f"e{i}"), 1, *spots[i]) for i in range(3)]
    # init (hero first); hero's punch 4 dice (6 - 2 actions) at 8, one success;
    # e0's dodge (1 die) cancels it; e1's punch (1 die), one success; hero's dodge
    # (6 - 3 = 3 dice) at 8 cancels it
    faces = [9, 1, 1, 1, *one_success(4, 8), 6, 6, *one_success(3, 8)]
    b = battle(fs, faces)
    for who in (3, 2, 1):
        step(b, DECLARE, who, ONE)
    step(b, DECLARE, 0, Declaration(actions=2))
    step(b, ACT, 0, attack("punch", 1))
    step(b, DEFEND, 1, Defense(DODGE, AbortMethod.WILLPOWER))
    step(b, ACT, 2, attack("punch", 0))
    step(b, DEFEND, 0, Defense(DODGE))
    r = rolls(b)
    assert [(e["who"], e["what"], e["pool"], e["diff"]) for e in r] == [
        (0, "attack", 4, 8),
        (1, "dodge", 1, 6),
        (2, "attack", 1, 6),
        (0, "dodge", 3, 8),
    ]


# --- DEF-1: defense successes come off the attack's ---------------------------------


@pytest.mark.parametrize(
    ("attack_faces", "dodge_faces", "net", "damage_pool"),
    [
        ([6, 7, 8, 2, 2], [2, 2, 2, 2], 3, 5),
        ([6, 7, 8, 2, 2], [6, 2, 2, 2], 2, 4),
        ([6, 7, 8, 2, 2], [6, 7, 2, 2], 1, 3),
        ([6, 7, 8, 2, 2], [6, 7, 8, 2], 0, None),  # equal: a miss
        ([6, 7, 2, 2, 2], [6, 7, 8, 9], 0, None),  # fewer: a miss
        ([6, 7, 8, 9, 2], [6, 7, 1, 2], 3, 5),  # the dodge's 1 cancels one of its successes
    ],
)
def test_DEF_1_defense_is_subtracted_from_attack_successes(
    attack_faces: list[int], dodge_faces: list[int], net: int, damage_pool: int | None
) -> None:
    a, d = pair(fighter(dexterity=3, brawl=2, strength=3), fighter(dexterity=2, dodge=2))
    p = plan(a, d, "punch")
    out, log = resolve(p, a, d, DODGE, attack=attack_faces, dodge=dodge_faces, damage=[2] * 9)
    assert out.net == net
    assert out.hit is (damage_pool is not None)
    if damage_pool is None:
        assert kinds(log) == ["miss"]
    else:
        assert roll_of(log, "damage")["pool"] == damage_pool


# --- DEF-4, DEF-5, DEF-6, DEF-8: which defenses, and their pools ------------------


@pytest.mark.parametrize(
    ("passive", "defense", "diff"),
    [(0, DefenseKind.NONE, 6), (1, DefenseKind.NONE, 7), (1, DefenseKind.DODGE, 6)],
)
def test_DEF_9_passive_defense_adds_only_what_a_profile_sets(
        passive: int, defense: DefenseKind, diff: int) -> None:
    """DEF-9 (004: the difficulty «может меняться с учетом ... пассивной защиты
    противника», may change with the target's passive defense, no number given): both
    shipped profiles add nothing; a profile's ``passive_defense_difficulty`` is added to
    an attack on a target that declares no defense (an active one: nothing)."""
    assert load_rules("v20").passive_defense_difficulty == 0
    assert load_rules("dark_ages").passive_defense_difficulty == 0
    rules = V20.model_copy(update={"passive_defense_difficulty": passive})
    a = fighter("a", dexterity=3, wits=3, brawl=2)
    d = fighter("d", dexterity=2, wits=1, dodge=2)
    b = Battle([Fighter(a, 0, 0, 0), Fighter(d, 1, 1, 0)],
               dice=ScriptedDice([9, 1, *[FILLER] * 5, *[FILLER] * 4]), rules=rules,
               turn_limit=1)
    full = Declaration(1, full_defense=True)  # DEF-7: dodges with no abort roll
    while b.pending is not None and b.pending.kind is not ACT:
        p = b.pending
        if p.kind is DECLARE:
            b.choose(full if p.actor == 1 and defense is DefenseKind.DODGE else ONE)
        else:
            b.choose(p.options[0])
    step(b, ACT, 0, attack("punch", 1))
    d = b.pending
    assert d is not None and d.kind is DEFEND
    b.choose(next(o for o in d.options if isinstance(o, Defense) and o.kind is defense))
    assert roll_of(b.log, "attack")["diff"] == diff


@pytest.mark.parametrize(
    ("maneuver", "attacker_weapon", "defender", "legal"),
    [
        ("punch", None, {}, {DODGE, BLOCK}),
        ("kick", None, {}, {DODGE, BLOCK}),
        ("weapon_strike", "club", {}, {DODGE, BLOCK}),  # bashing weapon: blockable
        ("weapon_strike", "knife", {}, {DODGE}),  # lethal: no block
        ("weapon_strike", "knife", {"armor": "armored_tshirt"}, {DODGE, BLOCK}),
        ("weapon_strike", "knife", {"kind": "vampire", "fortitude": 1}, {DODGE, BLOCK}),
        ("weapon_strike", "knife", {"kind": "vampire"}, {DODGE}),
        ("weapon_strike", "knife", {"weapons": ["knife"]}, {DODGE, PARRY}),
        ("punch", None, {"weapons": ["club"]}, {DODGE, BLOCK, PARRY}),
        ("punch", None, {"weapons": ["light_pistol"]}, {DODGE, BLOCK}),  # no melee weapon
        ("single_shot", "light_pistol", {"weapons": ["knife"], "armor": "kevlar_vest"}, {DODGE}),
        ("thrown", "throwing_knife", {"weapons": ["sword"]}, {DODGE}),
    ],
)
def test_DEF_4_5_6_8_legal_defenses(
    maneuver: str, attacker_weapon: str | None, defender: dict[str, Any], legal: set[DefenseKind]
) -> None:
    """DEF-4 block only bashing unless armor/Fortitude; DEF-5 dodge anything; DEF-6 parry
    with a melee weapon in close combat; DEF-8: no block or parry against a shot."""
    weapons = [attacker_weapon] if attacker_weapon else []
    a_stats = fighter(dexterity=3, brawl=2, melee=2, firearms=2, athletics=2, weapons=weapons)
    a, d = pair(
        a_stats, fighter("d", **defender), distance=1.0 if maneuver != "single_shot" else 5.0
    )
    p = plan(a, d, maneuver)
    assert set(legal_defenses(d, p)) == legal


@pytest.mark.parametrize(
    ("kind", "pool"),
    [(DODGE, 3 + 2), (BLOCK, 3 + 4), (PARRY, 3 + 1)],
)
@pytest.mark.parametrize(
    ("armor", "wounds", "penalty", "minus"),
    [
        (None, 0, 0, 0),
        ("flak_jacket", 0, 0, 2),
        (None, 2, 0, 1),
        (None, 0, 3, 3),
        ("armored_tshirt", 4, 2, 5),
    ],
)
def test_DEF_4_5_6_defense_pools(
    kind: DefenseKind, pool: int, armor: str | None, wounds: int, penalty: int, minus: int
) -> None:
    """DEF-4 Dex + Brawl, DEF-5 Dex + Dodge, DEF-6 Dex + Melee; minus wounds, armor, actions."""
    d = combatant(fighter(dexterity=3, dodge=2, brawl=4, melee=1, weapons=["knife"], armor=armor))
    d.health.take(wounds, BASH)
    assert defense_pool(d, kind, penalty) == pool - minus


def test_DEF_5_dodge_works_against_a_shot() -> None:
    """DEF-5: a dodge against a pistol shot (the cover part of DEF-5 comes later)."""
    a, d = pair(
        fighter(dexterity=3, firearms=2, weapons=["light_pistol"]),
        fighter(dexterity=2, dodge=2),
        distance=5,
    )
    p = plan(a, d, "single_shot")
    out, log = resolve(p, a, d, DODGE, attack=[6, 7, 2, 2, 2], dodge=[8, 9, 2, 2])
    assert roll_of(log, "dodge")["pool"] == 4
    assert out.net == 0 and not out.hit


def test_DEF_5_dodging_fire_in_the_open_drops_prone() -> None:
    """DEF-5: a dodge under fire with no cover in reach drops the dodger prone (later
    shots then face light cover, RNG-1); a dodge in close combat does not."""
    gun = fighter("g", dexterity=3, wits=3, firearms=2, weapons=["light_pistol"])
    t = fighter("t", dexterity=2, dodge=2)
    # init; the shot (5 dice) scores one success; the dodge (4 dice) cancels it
    b = battle(
        [Fighter(gun, 0, 0, 0), Fighter(t, 1, 10, 0)], [9, 1, *one_success(5), *one_success(4)]
    )
    step(b, DECLARE, 1, ONE)
    step(b, DECLARE, 0, ONE)
    step(b, ACT, 0, attack("single_shot", 1))
    step(b, DEFEND, 1, Defense(DODGE, AbortMethod.WILLPOWER))
    assert [r["what"] for r in rolls(b)] == ["attack", "dodge"]
    assert b.combatants[1].prone
    # the same dodge against a punch leaves the dodger standing
    a = fighter("a", dexterity=3, wits=3, brawl=2)
    b2 = battle(
        [Fighter(a, 0, 0, 0), Fighter(t, 1, 1, 0)], [9, 1, *one_success(5), *one_success(4)]
    )
    step(b2, DECLARE, 1, ONE)
    step(b2, DECLARE, 0, ONE)
    step(b2, ACT, 0, attack("punch", 1))
    step(b2, DEFEND, 1, Defense(DODGE, AbortMethod.WILLPOWER))
    assert [r["what"] for r in rolls(b2)] == ["attack", "dodge"]
    assert not b2.combatants[1].prone


def test_DEF_8_no_dodge_without_room() -> None:
    """DEF-8: without room (a cramped field) a dodge is impossible; block still is."""
    a, d = pair(fighter(dexterity=3, brawl=2), fighter(dexterity=2, dodge=2, brawl=1))
    p = plan(a, d, "punch")
    assert set(legal_defenses(d, p, room=False)) == {BLOCK}
    assert set(legal_defenses(d, p)) == {DODGE, BLOCK}
    hero = fighter("h", dexterity=3, wits=3, brawl=2)
    fs = [Fighter(hero, 0, 0, 0), Fighter(fighter("t", dexterity=2, dodge=2, brawl=1), 1, 1, 0)]
    b = Battle(fs, dice=ScriptedDice([9, 1]), rules=V20, turn_limit=1, field=Field(cramped=True))
    step(b, DECLARE, 1, ONE)
    step(b, DECLARE, 0, ONE)
    step(b, ACT, 0, attack("punch", 1))
    d_ = b.pending
    assert d_ is not None and d_.kind is DEFEND
    assert {o.kind for o in d_.options} == {NO, BLOCK}  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("parry_weapon", "attack_faces", "parry_faces", "counter_pool"),
    [
        ("knife", [6, 2, 2, 2, 2], [6, 7, 8, 2], 5 + 2),  # 3 vs 1: Str 4 + 1, +2
        ("knife", [2, 2, 2, 2, 2], [6, 2, 2, 2], 5 + 1),  # 1 vs 0: +1
        ("knife", [6, 7, 2, 2, 2], [6, 7, 2, 2], None),  # equal: no counter
        ("club", [6, 2, 2, 2, 2], [6, 7, 8, 2], None),  # bashing weapon: no counter
    ],
)
def test_DEF_6_parrying_an_unarmed_attack_with_a_lethal_weapon_hurts_the_attacker(
    parry_weapon: str, attack_faces: list[int], parry_faces: list[int], counter_pool: int | None
) -> None:
    a, d = pair(
        fighter("a", dexterity=3, brawl=2, stamina=2),
        fighter("d", dexterity=3, melee=1, strength=4, weapons=[parry_weapon]),
    )
    p = plan(a, d, "punch")
    out, log = resolve(
        p, a, d, PARRY, attack=attack_faces, parry=parry_faces, damage=[7] * 9, soak=[2, 2]
    )
    assert not out.hit
    parry_hits = [e for e in log.events if e["e"] == EventKind.HIT and e.get("parry")]
    if counter_pool is None:
        assert not parry_hits
        assert a.health.filled == 0
    else:
        assert parry_hits[0]["who"] == 1 and parry_hits[0]["target"] == 0
        assert roll_of(log, "damage")["pool"] == counter_pool
        # lethal counter: a mortal attacker cannot soak it (SOAK-2)
        assert a.health.lethal == counter_pool and a.health.bashing == 0


def test_DEF_6_no_counter_against_an_armed_attack() -> None:
    a, d = pair(
        fighter("a", dexterity=3, melee=2, weapons=["knife"]),
        fighter("d", dexterity=3, melee=1, weapons=["knife"]),
    )
    p = plan(a, d, "weapon_strike")
    out, log = resolve(p, a, d, PARRY, attack=[6, 2, 2, 2, 2], parry=[6, 7, 8, 2])
    assert kinds(log) == ["miss"]
    assert a.health.filled == 0 and out.net == 0


# --- DMG-1..6 ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("weapon", "dtype"),
    [
        ("unarmed", BASH),
        ("sap", BASH),
        ("club", BASH),
        ("staff", BASH),
        ("knife", LETHAL),
        ("sword", LETHAL),
        ("axe", LETHAL),
        ("light_pistol", LETHAL),
        ("rifle", LETHAL),
        ("short_bow", LETHAL),
        ("throwing_knife", LETHAL),
    ],
)
def test_DMG_1_damage_types_of_the_weapon_table(weapon: str, dtype: DamageType) -> None:
    assert load_tables().weapon(weapon).damage_type is dtype


def test_DMG_1_three_damage_types_with_their_marks() -> None:
    assert [t.value for t in DamageType] == ["bashing", "lethal", "aggravated"]
    assert (BASH.mark, LETHAL.mark, AGG.mark) == ("/", "X", "*")
    assert BASH.severity < LETHAL.severity < AGG.severity


@pytest.mark.parametrize(
    ("maneuver", "weapon", "base"),
    [
        ("single_shot", "light_pistol", 4),
        ("single_shot", "rifle", 8),
        ("weapon_strike", "sword", 3 + 2),
        ("punch", None, 3),
        ("kick", None, 4),
    ],
)
def test_DMG_2_damage_pool_is_rating_plus_extra_successes_at_difficulty_6(
    maneuver: str, weapon: str | None, base: int
) -> None:
    s = fighter(
        dexterity=3, strength=3, brawl=2, melee=2, firearms=2, weapons=[weapon] if weapon else []
    )
    a, d = pair(s, fighter(stamina=0), distance=1.0 if maneuver != "single_shot" else 5.0)
    p = plan(a, d, maneuver)
    assert p.damage_base == base
    attack_faces = [6, 7, 2, 2, 2] if maneuver != "kick" else [7, 8, 2, 2, 2]
    dmg_faces = [6, 5, 9, 1, 10, 2, 3, 4, 6, 6][: base + 1]
    out, log = resolve(p, a, d, attack=attack_faces, damage=dmg_faces, soak=[])
    r = roll_of(log, "damage")
    assert (r["pool"], r["diff"]) == (base + 1, 6)
    expected = sum(1 for f in dmg_faces if f >= 6)
    assert out.damage is not None and out.damage.successes == expected
    assert out.levels == expected  # stamina 0: nothing soaked


def test_DMG_3_damage_pool_never_below_one_die() -> None:
    """DMG-3: Strength 0 punch still rolls 1 damage die."""
    a, d = pair(fighter(strength=0, dexterity=3, brawl=2), fighter(stamina=0))
    p = plan(a, d, "punch")
    assert p.damage_base == 0
    out, log = resolve(p, a, d, attack=[6, 2, 2, 2, 2], damage=[8], soak=[])
    assert roll_of(log, "damage")["pool"] == 1
    assert out.levels == 1


@pytest.mark.parametrize(
    ("weapon", "target_kind", "rules", "dtype"),
    [
        ("light_pistol", "vampire", V20, BASH),
        ("light_pistol", "mortal", V20, LETHAL),
        (
            "light_pistol",
            "vampire",
            V20.model_copy(update={"firearms_bashing_vs_vampires": False}),
            LETHAL,
        ),
        ("light_pistol", "vampire", DA, LETHAL),
        ("knife", "vampire", V20, LETHAL),
        ("short_bow", "vampire", V20, LETHAL),
    ],
)
def test_DMG_4_firearms_count_as_bashing_against_vampires(
    weapon: str, target_kind: str, rules: RuleSet, dtype: DamageType
) -> None:
    t = combatant(fighter(kind=target_kind), 1, 1)
    w = load_tables().weapon(weapon)
    assert effective_damage_type(w.damage_type, w, t, rules) is dtype


def test_DMG_4_pistol_shot_at_a_vampire_is_soaked_and_halved_as_bashing() -> None:
    a, d = pair(
        fighter(dexterity=3, firearms=2, weapons=["light_pistol"]),
        fighter(kind="vampire", stamina=2),
        distance=5,
    )
    p = plan(a, d, "single_shot")
    out, _ = resolve(p, a, d, attack=[6, 2, 2, 2, 2], damage=[6, 7, 8, 9], soak=[2, 2])
    assert out.damage_type is BASH
    assert out.levels == 2  # 4 successes, none soaked, halved
    assert (d.health.bashing, d.health.lethal) == (2, 0)


@pytest.mark.parametrize(
    ("kind", "dtype", "damage_faces", "soak_faces", "levels"),
    [
        ("vampire", BASH, [6, 7, 8, 9, 10], [6, 2], 2),  # 5 - 1 = 4, halved
        ("vampire", BASH, [6, 7, 8, 9, 10], [2, 2], 2),  # 5 halved, rounded down
        ("vampire", BASH, [6, 2, 2, 2, 2], [2, 2], 0),  # 1 halved: 0
        ("vampire", LETHAL, [6, 7, 8, 9, 10], [6, 2], 4),  # lethal is not halved
        ("mortal", BASH, [6, 7, 8, 9, 10], [6, 2], 4),  # mortals do not halve
    ],
)
def test_DMG_5_vampires_halve_bashing_after_soak(
    kind: str, dtype: DamageType, damage_faces: list[int], soak_faces: list[int], levels: int
) -> None:
    weapon, strength = ("club", 3) if dtype is BASH else ("knife", 4)  # 5 damage dice
    a, d = pair(
        fighter(dexterity=3, melee=2, strength=strength, weapons=[weapon]),
        fighter(kind=kind, stamina=2),
    )
    p = plan(a, d, "weapon_strike")
    out, _ = resolve(
        p, a, d, attack=[6, 2, 2, 2, 2], damage=damage_faces[: p.damage_base], soak=soak_faces
    )
    assert out.levels == levels
    assert d.health.filled == levels


@pytest.mark.parametrize(
    ("kind", "stamina", "levels", "stunned"),
    [
        ("mortal", 2, 2, False),
        ("mortal", 2, 3, True),
        ("mortal", 1, 2, True),
        ("vampire", 2, 4, False),  # Stamina + 2
        ("vampire", 2, 5, True),
        ("ghoul", 2, 3, True),  # ghouls count as mortals for the stun
    ],
)
@pytest.mark.parametrize("rules", [V20, STUN_LEVELS], ids=["unsoaked", "levels"])
def test_DMG_6_stun_when_one_attack_exceeds_stamina(
    kind: str, stamina: int, levels: int, stunned: bool, rules: RuleSet
) -> None:
    """DMG-6: lethal is never halved, so both `stun_counts` options agree here."""
    d = combatant(fighter(kind=kind, stamina=stamina), 1, 1)
    assert stun_threshold(d) == stamina + (2 if kind == "vampire" else 0)
    a = combatant(fighter(strength=9, dexterity=3, melee=2, weapons=["knife"]))
    p = plan(a, d, "weapon_strike", rules)
    dmg = [6] * levels + [2] * (p.damage_base - levels)
    soak = [2] * (stamina if kind == "vampire" else 0)
    out, log = resolve(p, a, d, rules=rules, attack=[6, 2, 2, 2, 2], damage=dmg, soak=soak)
    assert out.levels == levels
    assert out.stunned is stunned
    stun_events = [e for e in log.events if e["e"] == EventKind.STUN]
    assert bool(stun_events) is stunned
    assert d.stunned(2) is stunned and not d.stunned(1)


@pytest.mark.parametrize(
    ("rules", "kind", "soak_faces", "levels", "stunned"),
    [
        (V20, "vampire", [2, 2], 2, True),  # 5 unsoaked > Stamina 2 + 2, then halved to 2
        (V20, "vampire", [6, 2], 2, False),  # 4 unsoaked: not above 4
        (STUN_LEVELS, "vampire", [2, 2], 2, False),  # the 2 levels marked are compared
        (V20, "mortal", [6, 2], 4, True),  # mortals do not halve: 4 > 2 either way
        (STUN_LEVELS, "mortal", [6, 2], 4, True),
    ],
    ids=["unsoaked-5", "unsoaked-4", "levels-2", "mortal-unsoaked", "mortal-levels"],
)
def test_DMG_6_stun_counts_unsoaked_successes_before_vampires_halve_bashing(
    rules: RuleSet, kind: str, soak_faces: list[int], levels: int, stunned: bool
) -> None:
    """DMG-6 (default `stun_counts: unsoaked`; 000: "only the successes the victim could
    not soak count"): a club (Strength 3 + 2 = 5 dice, 5 successes) on Stamina 2. Halving
    (DMG-5) is not soak, so a vampire's stun counts before it; `levels` counts after."""
    a, d = pair(
        fighter(dexterity=3, melee=2, strength=3, weapons=["club"]),
        fighter(kind=kind, stamina=2),
    )
    p = plan(a, d, "weapon_strike", rules)
    out, log = resolve(
        p, a, d, rules=rules, attack=[6, 2, 2, 2, 2], damage=[6, 7, 8, 9, 10], soak=soak_faces
    )
    assert (out.levels, out.stunned) == (levels, stunned)
    assert d.health.filled == levels
    assert bool([e for e in log.events if e["e"] == EventKind.STUN]) is stunned


def test_DMG_6_stun_counts_levels_of_one_attack_not_the_total() -> None:
    d = combatant(fighter(stamina=2), 1, 1)
    a = combatant(fighter(strength=2, dexterity=3, brawl=2))
    p = plan(a, d, "punch")
    for _ in range(2):
        out, _log = resolve(p, a, d, attack=[6, 2, 2, 2, 2], damage=[6, 6], soak=[2, 2])
        assert out.levels == 2 and not out.stunned
    assert d.health.filled == 4 and d.stunned_turn == -1


def test_DMG_6_CPX_2_a_second_stun_in_the_lost_turn_keeps_it_lost() -> None:
    """Stunned in turn 1, the victim loses turn 2; stunned again during turn 2, it loses
    turn 3 as well, and the rest of turn 2 stays lost (it neither acts nor defends): the
    second stun used to move the lost turn to 3 and free the victim for the rest of 2."""
    d = combatant(fighter(stamina=1), 1, 1)
    log = EventLog()
    assert apply_levels(d, 2, DamageType.BASHING, log, 1)
    assert [d.stunned(t) for t in (1, 2, 3)] == [False, True, False]
    assert apply_levels(d, 2, DamageType.BASHING, log, 2)
    assert [d.stunned(t) for t in (1, 2, 3, 4)] == [False, True, True, False]
    again = Combatant.from_json(d.to_json(), d.stats, load_tables())  # a saved state keeps it
    assert [again.stunned(t) for t in (1, 2, 3, 4)] == [False, True, True, False]
    assert d.copy().stunned(3) and d.copy().stunned(2)
    # a stun after a turn that was not lost costs only the next one
    assert apply_levels(d, 0, DamageType.BASHING, log, 4, stun=2)
    assert [d.stunned(t) for t in (3, 4, 5, 6)] == [False, False, True, False]


# --- SOAK-1..5 -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("who", "dtype", "elemental", "rules", "pool"),
    [
        # SOAK-1/2: mortals soak bashing with Stamina only
        ({"stamina": 3}, BASH, False, V20, 3),
        ({"stamina": 3}, LETHAL, False, V20, 0),
        ({"stamina": 3}, AGG, False, V20, 0),
        # vampires soak bashing and lethal; aggravated only with Fortitude
        ({"kind": "vampire", "stamina": 3}, BASH, False, V20, 3),
        ({"kind": "vampire", "stamina": 3}, LETHAL, False, V20, 3),
        ({"kind": "vampire", "stamina": 3}, AGG, False, V20, 0),
        ({"kind": "vampire", "stamina": 3, "fortitude": 2}, BASH, False, V20, 5),
        ({"kind": "vampire", "stamina": 3, "fortitude": 2}, LETHAL, False, V20, 5),
        ({"kind": "vampire", "stamina": 3, "fortitude": 2}, AGG, False, V20, 2),
        # SOAK-3: fire and sunlight: 000 (v20) Fortitude alone, 004 (dark_ages) + Stamina
        ({"kind": "vampire", "stamina": 3, "fortitude": 2}, AGG, True, V20, 2),
        ({"kind": "vampire", "stamina": 3, "fortitude": 2}, AGG, True, DA, 5),
        ({"kind": "vampire", "stamina": 3, "fortitude": 2}, AGG, False, DA, 2),
        ({"kind": "vampire", "stamina": 3}, AGG, True, DA, 0),
        # SOAK-4: armor adds to every type except fire and sunlight
        ({"stamina": 3, "armor": "kevlar_vest"}, BASH, False, V20, 6),
        ({"stamina": 3, "armor": "kevlar_vest"}, LETHAL, False, V20, 3),
        ({"stamina": 3, "armor": "kevlar_vest"}, AGG, False, V20, 3),
        (
            {"kind": "vampire", "stamina": 3, "fortitude": 2, "armor": "kevlar_vest"},
            AGG,
            True,
            V20,
            2,
        ),
        (
            {"kind": "vampire", "stamina": 3, "fortitude": 2, "armor": "riot_gear"},
            LETHAL,
            False,
            V20,
            10,
        ),
    ],
)
def test_SOAK_1_2_3_4_soak_pools(
    who: dict[str, Any], dtype: DamageType, elemental: bool, rules: RuleSet, pool: int
) -> None:
    d = combatant(fighter("d", **who))
    assert soak_pool(d, dtype, rules, elemental=elemental) == pool


@pytest.mark.parametrize(
    ("soak_faces", "levels"),
    [([2, 2, 2], 4), ([6, 2, 2], 3), ([6, 7, 1], 2), ([6, 7, 10], 1)],
)
def test_SOAK_1_each_soak_success_removes_one_damage_success(
    soak_faces: list[int], levels: int
) -> None:
    """SOAK-1: Stamina 3 soak at difficulty 6, its 1s do not cancel (DICE-6)."""
    a, d = pair(fighter(strength=4, dexterity=3, brawl=2), fighter(stamina=3))
    p = plan(a, d, "punch")
    out, log = resolve(p, a, d, attack=[6, 2, 2, 2, 2], damage=[6, 7, 8, 9], soak=soak_faces)
    r = roll_of(log, "soak")
    assert (r["pool"], r["diff"]) == (3, 6)
    assert out.levels == levels and d.health.bashing == levels


def test_SOAK_2_mortal_does_not_roll_soak_against_lethal() -> None:
    a, d = pair(fighter(strength=4, dexterity=3, melee=2, weapons=["knife"]), fighter(stamina=5))
    p = plan(a, d, "weapon_strike")
    out, _log = resolve(p, a, d, attack=[6, 2, 2, 2, 2], damage=[6, 7, 2, 2, 2], soak=[])
    assert out.soak is None or out.soak.faces == ()
    assert out.levels == 2 and d.health.lethal == 2


def test_SOAK_2_no_soak_roll_when_damage_scores_nothing() -> None:
    a, d = pair(fighter(strength=2, dexterity=3, brawl=2), fighter(stamina=3))
    p = plan(a, d, "punch")
    out, log = resolve(p, a, d, attack=[6, 2, 2, 2, 2], damage=[2, 5], soak=[])
    assert out.soak is None and out.levels == 0
    assert not [e for e in log.events if e["e"] == EventKind.ROLL and e["what"] == "soak"]


@pytest.mark.parametrize(
    ("armor", "attack_pool", "dodge_pool"),
    [
        (None, 5, 4),
        ("reinforced_clothing", 5, 4),
        ("armored_tshirt", 4, 3),
        ("kevlar_vest", 4, 3),
        ("flak_jacket", 3, 2),
        ("riot_gear", 2, 1),
    ],
)
def test_SOAK_4_armor_penalizes_dexterity_pools(
    armor: str | None, attack_pool: int, dodge_pool: int
) -> None:
    me = combatant(fighter(dexterity=3, brawl=2, dodge=1, armor=armor))
    foe = combatant(fighter(), 1, 1, 1.0)
    assert plan(me, foe, "punch").pool == attack_pool
    assert defense_pool(me, DODGE, 0) == dodge_pool


@pytest.mark.parametrize(
    ("armor", "rating", "penalty"),
    [
        ("reinforced_clothing", 1, 0),
        ("armored_tshirt", 2, 1),
        ("kevlar_vest", 3, 1),
        ("flak_jacket", 4, 2),
        ("riot_gear", 5, 3),
    ],
)
def test_SOAK_4_armor_table(armor: str, rating: int, penalty: int) -> None:
    a = load_tables().armor[armor]
    assert (a.rating, a.penalty) == (rating, penalty)


@pytest.mark.parametrize(
    ("damage_successes", "destroyed"),
    [(5, False), (6, True), (7, True)],
)
def test_SOAK_5_armor_destroyed_by_twice_its_rating(damage_successes: int, destroyed: bool) -> None:
    """SOAK-5: a Kevlar vest (3) is destroyed by 6+ damage successes rolled against it."""
    a, d = pair(
        fighter(strength=6, dexterity=3, melee=2, weapons=["sword"]),
        fighter(stamina=1, armor="kevlar_vest"),
    )
    p = plan(a, d, "weapon_strike")
    dmg = [8] * damage_successes + [2] * (p.damage_base - damage_successes)
    out, log = resolve(p, a, d, attack=[6, 2, 2, 2, 2], damage=dmg, soak=[2, 2, 2])
    assert roll_of(log, "soak")["pool"] == 3  # this hit is still soaked by the armor
    assert out.levels == damage_successes
    armor_events = [e for e in log.events if e["e"] == EventKind.ARMOR]
    assert bool(armor_events) is destroyed
    assert d.armor_rating == (0 if destroyed else 3)
    assert d.armor_penalty == (0 if destroyed else 1)
    assert soak_pool(d, LETHAL, V20) == (0 if destroyed else 3)


def test_weapon_classes_are_ranged_or_not() -> None:
    """ATK-1/ATK-2: unarmed and melee are close combat; the rest are ranged."""
    assert not WeaponClass.UNARMED.ranged and not WeaponClass.MELEE.ranged
    assert all(
        c.ranged
        for c in (WeaponClass.THROWN, WeaponClass.FIREARM, WeaponClass.BOW, WeaponClass.CROSSBOW)
    )
