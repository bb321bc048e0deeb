"""Blood and disciplines with fixed dice: VAMP-1..6, and fire soak (SOAK-3)."""

from __future__ import annotations

from typing import Any

import pytest
from rule_helpers import (
    ACT,
    BLOOD,
    DECLARE,
    DEFEND,
    FILLER,
    NONE,
    PASS,
    attack,
    battle,
    combatant,
    declare_all,
    dice_for,
    events,
    offered,
    rolls,
    sheet,
    single_roll,
    step,
    successes,
)

from vtm_sim.core.choices import (
    Action,
    ActionKind,
    BloodSpend,
    BloodUse,
    Declaration,
    DefenseKind,
)
from vtm_sim.data.rules import load_rules
from vtm_sim.data.stat_blocks import StatBlock
from vtm_sim.data.tables import DamageType, load_tables
from vtm_sim.engine.battle import Fighter
from vtm_sim.events import EventKind, EventLog
from vtm_sim.mechanics.attack import (
    AttackChain,
    legal_defenses,
    plan_attack,
    resolve_attack,
    soak_pool,
)
from vtm_sim.mechanics.blood import NO_BLOOD, blood_budget, blood_options
from vtm_sim.mechanics.movement import carry_limit

V20, DA = load_rules("v20"), load_rules("dark_ages")
TABLES = load_tables()
BASH, LETHAL, AGG = DamageType.BASHING, DamageType.LETHAL, DamageType.AGGRAVATED


def vamp(name: str = "v", **kw: Any) -> StatBlock:
    """A vampire (13th generation unless told): Dexterity 3, Wits 3, Strength 2, Brawl 2."""
    traits: dict[str, Any] = {"dexterity": 3, "wits": 3, "strength": 2, "brawl": 2}
    traits.update(kw)
    return sheet(name, kind="vampire", **traits)


def mortal(name: str = "m", **kw: Any) -> StatBlock:
    return sheet(name, **kw)


# --- VAMP-1: blood pool and spending limit by generation ------------------------------------


@pytest.mark.parametrize(
    ("generation", "pool", "per_turn"),
    [
        (13, 10, 1),
        (12, 11, 1),
        (11, 12, 1),
        (10, 13, 1),
        (9, 14, 2),
        (8, 15, 3),
        (7, 20, 4),
        (6, 30, 6),
        (5, 40, 8),
        (4, 50, 10),
    ],
)
def test_VAMP_1_blood_pool_and_per_turn_limit_by_generation(
    generation: int, pool: int, per_turn: int
) -> None:
    s = vamp(generation=generation)
    assert (s.blood_pool, s.blood_per_turn, s.blood) == (pool, per_turn, pool)
    c = combatant(s)
    assert blood_budget(c) == per_turn
    c.blood = 1
    assert blood_budget(c) == 1  # never more than is left
    c.blood = pool
    c.blood_spent = per_turn
    assert blood_budget(c) == 0  # the turn's limit is spent


def test_VAMP_1_unstated_generation_is_13th_and_mortals_have_no_pool() -> None:
    s = vamp()
    assert (s.generation, s.blood_pool, s.blood_per_turn) == (13, 10, 1)
    m = combatant(mortal())
    assert (m.stats.blood_pool, blood_budget(m), blood_options(m)) == (0, 0, (NO_BLOOD,))


def test_VAMP_1_in_battle_an_8th_generation_heals_at_most_3_a_turn() -> None:
    b = battle([Fighter(vamp(generation=8), 0, 0, 0), Fighter(mortal(), 1, 5, 0)], [9, 1])
    v = b.combatants[0]
    v.health.take(5, LETHAL)
    step(b, DECLARE, 1, Declaration())
    d = b.pending
    assert d is not None and (d.kind, d.actor) == (BLOOD, 0)
    heals = [o.points for o in d.options if isinstance(o, BloodSpend) and o.use is BloodUse.HEAL]
    assert heals == [1, 2, 3]
    step(b, BLOOD, 0, BloodSpend(BloodUse.HEAL, 3))
    assert (v.blood, v.health.lethal) == (15 - 3, 2)
    (ev,) = events(b, EventKind.ACTION, action="blood")
    assert (ev["use"], ev["points"], ev["healed"]) == ("heal", 3, 3)


# --- VAMP-2: what blood buys ------------------------------------------------------------------


def test_VAMP_2_heal_bashing_or_lethal_never_aggravated() -> None:
    c = combatant(vamp(generation=7))  # 4 a turn
    c.health.take(2, AGG)
    assert not [o for o in blood_options(c) if o.use is BloodUse.HEAL]
    c.health.take(1, LETHAL)
    c.health.take(1, BASH)
    heals = [o.points for o in blood_options(c) if o.use is BloodUse.HEAL]
    assert heals == [1, 2]  # two healable levels, within the 4 a turn


@pytest.mark.parametrize(
    ("generation", "strength", "most"),
    [
        (13, 2, 1),  # 1 a turn
        (13, 5, 0),  # already at the 13th generation's maximum of 5
        (9, 2, 2),
        (8, 4, 1),  # 3 a turn, but only up to 5
        (7, 4, 2),  # 7th generation: up to 6
        (4, 2, 7),  # 10 a turn, up to 9
    ],
)
def test_VAMP_2_raise_a_physical_attribute_up_to_the_generations_maximum(
    generation: int, strength: int, most: int
) -> None:
    c = combatant(vamp(generation=generation, strength=strength))
    ups = [o.points for o in blood_options(c) if o.use is BloodUse.STRENGTH]
    assert ups == list(range(1, most + 1))
    assert {o.use for o in blood_options(c)} >= {BloodUse.NONE}


def test_VAMP_2_strength_bought_with_blood_raises_damage_for_the_scene() -> None:
    """VAMP-2: +1 Strength before acting: the punch deals 3 + 1 dice; it lasts into the
    next turn."""
    faces = [9, 1, *successes(1, 5), *[FILLER] * 3, 9, 1, *successes(1, 5), *[FILLER] * 3]
    b = battle([Fighter(vamp(), 0, 0, 0), Fighter(mortal(), 1, 1, 0)], faces, turn_limit=2)
    step(b, DECLARE, 1, Declaration())
    step(b, BLOOD, 0, BloodSpend(BloodUse.STRENGTH, 1))
    step(b, DECLARE, 0, Declaration())
    step(b, ACT, 0, attack("punch", 1))
    step(b, DEFEND, 1, NONE)
    step(b, ACT, 1, PASS)
    declare_all(b)
    step(b, ACT, 0, attack("punch", 1))
    step(b, DEFEND, 1, NONE)
    assert [r["pool"] for r in rolls(b, "damage")] == [3, 3]
    assert b.combatants[0].blood == 10 - 1


# --- VAMP-3: Celerity ------------------------------------------------------------------------


@pytest.mark.parametrize(("blood", "most"), [(10, 3), (2, 2), (0, 0)])
def test_VAMP_3_celerity_is_paid_in_blood_not_limited_by_generation(blood: int, most: int) -> None:
    """VAMP-3: a 13th generation (1 blood a turn) with Celerity 3 may still buy three
    actions, as far as its blood goes."""
    b = battle(
        [Fighter(vamp(celerity=3, blood=blood), 0, 0, 0), Fighter(mortal(), 1, 1, 0)], [9, 1]
    )
    step(b, DECLARE, 1, Declaration())
    opts = offered(b)
    assert max(o.celerity for o in opts if isinstance(o, Declaration)) == most


def test_VAMP_3_celerity_after_spending_the_turns_blood_limit() -> None:
    """VAMP-3: after healing with its one point a turn, a 13th generation still pays 3
    more for Celerity 3; the extra actions carry no multiple-action penalty (ACT-2)."""
    faces = [9, 1, *[FILLER] * (5 * 4)]
    b = battle([Fighter(vamp(celerity=3), 0, 0, 0), Fighter(mortal(), 1, 1, 0)], faces)
    v = b.combatants[0]
    v.health.take(1, BASH)
    step(b, DECLARE, 1, Declaration())
    step(b, BLOOD, 0, BloodSpend(BloodUse.HEAL, 1))
    d = b.pending
    assert d is not None and d.kind is DECLARE
    step(b, DECLARE, 0, Declaration(actions=1, celerity=3))
    assert v.blood == 10 - 1 - 3
    step(b, ACT, 0, attack("punch", 1))
    step(b, DEFEND, 1, NONE)
    step(b, ACT, 1, PASS)
    for _ in range(3):
        step(b, ACT, 0, attack("punch", 1))
    assert [r["pool"] for r in rolls(b, "attack")] == [5, 5, 5, 5]


# --- VAMP-4: Fortitude ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fortitude", "bashing", "lethal", "aggravated"),
    [(0, 2, 2, 0), (1, 3, 3, 1), (3, 5, 5, 3)],
)
def test_VAMP_4_fortitude_soaks_every_type_and_alone_aggravated(
    fortitude: int, bashing: int, lethal: int, aggravated: int
) -> None:
    c = combatant(vamp(stamina=2, fortitude=fortitude))
    assert [soak_pool(c, t, V20) for t in (BASH, LETHAL, AGG)] == [bashing, lethal, aggravated]


@pytest.mark.parametrize(
    ("maneuver", "weapons", "disc", "fortitude", "block"),
    [
        ("weapon_strike", ["knife"], {}, 0, False),  # lethal: no block
        ("weapon_strike", ["knife"], {}, 1, True),  # Fortitude allows it
        ("claws", [], {"protean": 2}, 0, False),  # aggravated
        ("claws", [], {"protean": 2}, 2, True),
        ("punch", [], {}, 0, True),  # bashing: always
    ],
)
def test_VAMP_4_fortitude_allows_blocking_lethal_and_aggravated(
    maneuver: str, weapons: list[str], disc: dict[str, int], fortitude: int, block: bool
) -> None:
    a = combatant(vamp("a", melee=2, weapons=weapons, **disc))
    d = combatant(vamp("d", fortitude=fortitude), 1, 1, 1.0)
    p = plan_attack(a, d, maneuver, TABLES, V20)
    assert p is not None
    assert (DefenseKind.BLOCK in legal_defenses(d, p)) is block


def test_VAMP_4_fortitude_soak_roll_against_claws_in_battle() -> None:
    """VAMP-4: Feral Claws (aggravated) on a vampire with Stamina 3, Fortitude 2: the
    soak roll has 2 dice."""
    faces = [9, 1, *successes(1, 5), 7, 7, 2, 7, 2]  # damage 3 dice: 2; soak 2 dice: 1
    a = vamp("a", protean=2)
    d = vamp("d", stamina=3, fortitude=2)
    b = battle([Fighter(a, 0, 0, 0), Fighter(d, 1, 1, 0)], faces)
    b.combatants[0].claws_out = True  # MAN-11: grown before
    declare_all(b)
    step(b, ACT, 0, attack("claws", 1))
    step(b, DEFEND, 1, NONE)
    soak = single_roll(b, "soak")
    assert (soak["pool"], soak["succ"]) == (2, 1)
    assert b.combatants[1].health.marks() == "*" + "." * 6  # 2 - 1


# --- VAMP-5: Potence -------------------------------------------------------------------------


def test_VAMP_5_potence_adds_automatic_successes_to_strength_damage() -> None:
    """VAMP-5: Potence 2: the punch's damage roll (Strength 2, nothing rolled) still
    deals 2; the mortal soaks 1 of it with Stamina 2."""
    faces = [9, 1, *successes(1, 5), FILLER, FILLER, 7, FILLER]
    b = battle([Fighter(vamp(potence=2), 0, 0, 0), Fighter(mortal(stamina=2), 1, 1, 0)], faces)
    declare_all(b)
    step(b, ACT, 0, attack("punch", 1))
    step(b, DEFEND, 1, NONE)
    dmg = single_roll(b, "damage")
    assert (dmg["pool"], dmg["succ"], dmg["auto"]) == (2, 0, 2)
    assert b.combatants[1].health.marks() == "/......"


@pytest.mark.parametrize(
    ("maneuver", "weapons", "auto"),
    [
        ("punch", [], 2),
        ("kick", [], 2),
        ("weapon_strike", ["knife"], 2),  # Strength-based weapon
        ("single_shot", ["heavy_pistol"], 0),  # a gun's damage is its own
        ("thrown", ["throwing_knife"], 0),  # melee and brawl only
    ],
)
def test_VAMP_5_potence_only_on_strength_based_damage(
    maneuver: str, weapons: list[str], auto: int
) -> None:
    a = combatant(vamp(potence=2, melee=2, firearms=2, athletics=2, weapons=weapons))
    t = combatant(mortal(), 1, 1, 1.0)
    p = plan_attack(a, t, maneuver, TABLES, V20)
    assert p is not None and p.damage_auto == auto


@pytest.mark.parametrize(
    ("escaper_potence", "holder_potence", "escaper", "holder", "freed"),
    [
        (2, 0, [2, 2, 2, 2], [7, 2, 2, 2], True),  # 0 + 2 > 1
        (1, 0, [2, 2, 2, 2], [7, 2, 2, 2], False),  # 0 + 1 ties 1
        (0, 2, [7, 7, 2, 2], [2, 2, 2, 2], False),  # 2 against 0 + 2
        (0, 1, [7, 7, 2, 2], [2, 2, 2, 2], True),
    ],
)
def test_VAMP_5_potence_adds_successes_to_break_free(
    escaper_potence: int, holder_potence: int, escaper: list[int], holder: list[int], freed: bool
) -> None:
    """VAMP-5 / MAN-7: resisted Strength + Brawl (2 + 2 each); Potence adds automatic
    successes to either side."""
    h = vamp("h", potence=holder_potence)
    v = vamp("v", potence=escaper_potence, dexterity=1)
    faces = [9, 1, *successes(1, 5), *escaper, *holder]
    b = battle([Fighter(h, 0, 0, 0), Fighter(v, 1, 1, 0)], faces)
    declare_all(b)
    step(b, ACT, 0, attack("hold", 1))
    step(b, DEFEND, 1, NONE)
    step(b, ACT, 1, Action(ActionKind.BREAK_FREE, target=0))
    assert (single_roll(b, "break_free")["pool"], single_roll(b, "hold_on")["pool"]) == (4, 4)
    assert (b.combatants[1].held_by == -1) is freed


def test_VAMP_5_potence_adds_to_strength_for_carrying() -> None:
    assert carry_limit(combatant(vamp(strength=2))) == 50
    assert carry_limit(combatant(vamp(strength=2, potence=3))) == 125


def test_VAMP_5_potence_on_the_crush_inside_a_clinch() -> None:
    """VAMP-5 / MAN-6: the clinch's automatic Strength damage gets Potence's successes."""
    faces = [9, 1, *successes(1, 4), FILLER, FILLER, 9, 1, FILLER, FILLER]
    b = battle(
        [Fighter(vamp(potence=1), 0, 0, 0), Fighter(mortal(stamina=0), 1, 1, 0)],
        faces,
        turn_limit=2,
    )
    declare_all(b)
    step(b, ACT, 0, attack("clinch", 1))
    step(b, DEFEND, 1, NONE)
    step(b, ACT, 1, PASS)
    declare_all(b)
    step(b, ACT, 0, Action(ActionKind.CRUSH, target=1))
    clinch_dmg, crush = rolls(b, "damage")
    assert clinch_dmg["auto"] == 1 and crush["auto"] == 1 and crush["pool"] == 2
    assert b.combatants[1].health.bashing == 2  # one level from each


# --- VAMP-6: feeding restores blood; a dry vampire cannot spend ---------------------------------


def test_VAMP_6_a_dry_vampire_cannot_spend_blood() -> None:
    b = battle([Fighter(vamp(celerity=2, blood=0), 0, 0, 0), Fighter(mortal(), 1, 1, 0)], [9, 1])
    v = b.combatants[0]
    v.health.take(2, BASH)
    assert blood_budget(v) == 0 and blood_options(v) == (NO_BLOOD,)
    step(b, DECLARE, 1, Declaration())
    d = b.pending
    assert d is not None and (d.kind, d.actor) == (DECLARE, 0)  # no blood decision
    assert {o.celerity for o in d.options if isinstance(o, Declaration)} == {0}


def test_VAMP_6_feeding_refills_the_pool_and_blood_can_be_spent_again() -> None:
    """VAMP-6 / MAN-9: a dry vampire clinches (turn 1), kisses (turn 2: drinks 3) and
    may spend blood again in turn 3."""
    faces = [9, 1, *successes(1, 4), FILLER, FILLER, 9, 1, *successes(1, 6), 9, 1]
    b = battle(
        [Fighter(vamp(blood=0), 0, 0, 0), Fighter(mortal(stamina=3), 1, 1, 0)],
        faces,
        turn_limit=3,
    )
    v = b.combatants[0]
    declare_all(b)
    step(b, ACT, 0, attack("clinch", 1))
    step(b, DEFEND, 1, NONE)
    step(b, ACT, 1, PASS)
    step(b, DECLARE, 1, Declaration())
    step(b, DECLARE, 0, Declaration())  # still dry: no blood decision
    step(b, ACT, 0, attack("kiss", 1))
    assert v.blood == 3
    step(b, ACT, 1, PASS)
    step(b, DECLARE, 1, Declaration())
    d = b.pending
    assert d is not None and (d.kind, d.actor) == (BLOOD, 0)
    assert BloodSpend(BloodUse.STRENGTH, 1) in d.options


# --- SOAK-3: fire ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rules", "who", "pool"),
    [
        (V20, vamp("d", stamina=3, fortitude=2, armor="kevlar_vest"), 2),  # Fortitude alone
        (DA, vamp("d", stamina=3, fortitude=2, armor="chain_mail"), 3 + 2),  # Stamina joins
        (V20, vamp("d", stamina=3, armor="kevlar_vest"), 0),  # no Fortitude, no soak
        (DA, vamp("d", stamina=3, armor="chain_mail"), 0),
        (V20, mortal("d", stamina=3, armor="kevlar_vest"), 0),  # armor never helps
        (DA, mortal("d", stamina=3, armor="chain_mail"), 0),
    ],
)
def test_SOAK_3_torch_fire_soak_by_profile(rules: Any, who: StatBlock, pool: int) -> None:
    """SOAK-3: fire is aggravated; v20 soaks it with Fortitude alone (000), dark_ages with
    Stamina + Fortitude (004); armor does not help against fire (SOAK-4)."""
    a = combatant(sheet("a", dexterity=3, strength=2, melee=2, weapons=["torch"]))
    d = combatant(who, 1, 1, 1.0)
    p = plan_attack(a, d, "weapon_strike", TABLES, rules)
    assert p is not None and p.damage_type is AGG and p.weapon.elemental
    faces = dict(attack=successes(1, 5), damage=[7, 7], soak=[FILLER] * pool)
    log = EventLog()
    out = resolve_attack(
        AttackChain(p, a, d, DefenseKind.NONE, 0, 6, rules, dice_for(**faces), log, 1))
    (soak,) = [e for e in log.events if e["e"] == EventKind.ROLL and e["what"] == "soak"]
    assert soak["pool"] == pool
    assert out.levels == 2 and d.health.aggravated == 2


def test_SOAK_3_other_aggravated_damage_is_fortitude_alone_in_both_profiles() -> None:
    """SOAK-3: 004's Stamina + Fortitude is for fire and sunlight only: claws are soaked
    with Fortitude alone (plus armor, SOAK-4) under dark_ages too."""
    d = combatant(vamp("d", stamina=3, fortitude=2))
    for rules in (V20, DA):
        assert soak_pool(d, AGG, rules) == 2
        assert soak_pool(d, AGG, rules, elemental=True) == (2 if rules is V20 else 5)
