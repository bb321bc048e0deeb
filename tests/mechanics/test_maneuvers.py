"""Close-combat maneuvers with fixed dice: MAN-1..11, weapon length (ATK-9), ambush (ATK-11).

Every battle runs on ScriptedDice; each test lists the faces it feeds, in the order the
engine reads them (see ``rule_helpers``). FILLER faces (2) neither succeed nor botch.
"""

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
    battle_on,
    combatant,
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

from vtm_sim.core.choices import Action, ActionKind, Declaration, Defense, DefenseKind
from vtm_sim.core.maneuvers import Effect
from vtm_sim.data.rules import RuleSet, load_rules
from vtm_sim.data.stat_blocks import StatBlock
from vtm_sim.data.tables import DamageType, load_tables
from vtm_sim.engine.battle import Fighter
from vtm_sim.events import EventKind
from vtm_sim.mechanics.attack import plan_attack

BASH, LETHAL, AGG = DamageType.BASHING, DamageType.LETHAL, DamageType.AGGRAVATED
V20 = load_rules("v20")
ATTACK_DISARM = V20.model_copy(update={"disarm_successes": "attack"})  # MAN-10 option
CRUSH = ActionKind.CRUSH
BREAK = ActionKind.BREAK_FREE


def striker(kind: str = "mortal", **kw: Any) -> StatBlock:
    """Strength 3, Dexterity 4, Brawl 2, Melee 3 (Wits 3)."""
    traits: dict[str, Any] = {
        "strength": 3,
        "dexterity": 4,
        "wits": 3,
        "brawl": 2,
        "melee": 3,
    }
    traits.update(kw)
    return sheet("striker", kind=kind, **traits)


def victim(**kw: Any) -> StatBlock:
    """Strength 2, Dexterity 2, Stamina 1, Brawl 1, Athletics 1 (Wits 1)."""
    traits: dict[str, Any] = {
        "strength": 2,
        "dexterity": 2,
        "stamina": 1,
        "brawl": 1,
        "athletics": 1,
    }
    traits.update(kw)
    return sheet("victim", **traits)


def close_pair(a: StatBlock, t: StatBlock, faces: list[int], turns: int = 1) -> Any:
    """Attacker 0 at the origin, target 1 a yard away; turn 1 declared, 0 to act."""
    b = battle([Fighter(a, 0, 0, 0), Fighter(t, 1, 1, 0)], faces, turn_limit=turns)
    declare_all(b)
    return b


def act_options(b: Any, actor: int) -> set[tuple[ActionKind, str | None]]:
    d = b.pending
    assert d is not None and (d.kind, d.actor) == (ACT, actor), d
    return {(o.kind, o.maneuver) for o in d.options}


# --- MAN-1..11: pools, difficulties, damage, as plan_attack computes them -------------


@pytest.mark.parametrize(
    ("rule", "maneuver", "kind", "extra", "pool", "diff", "damage", "dtype", "effect"),
    [
        ("MAN-1", "punch", "mortal", {}, 6, 6, 3, BASH, None),
        ("MAN-2", "kick", "mortal", {}, 6, 7, 4, BASH, None),
        ("MAN-3", "weapon_strike", "mortal", {"weapons": ["knife"]}, 7, 6, 4, LETHAL, None),
        ("MAN-3", "weapon_strike", "mortal", {"weapons": ["club"]}, 7, 6, 5, BASH, None),
        ("MAN-3", "weapon_strike", "mortal", {"weapons": ["axe"]}, 7, 6, 6, LETHAL, None),
        ("MAN-4", "sweep", "mortal", {}, 6, 7, 3, BASH, "knockdown"),
        # a knife does not trip: Brawl and Strength
        ("MAN-4", "sweep", "mortal", {"weapons": ["knife"]}, 6, 7, 3, BASH, "knockdown"),
        # a staff or chain: Melee, and the weapon's damage
        ("MAN-4", "sweep", "mortal", {"weapons": ["staff"]}, 7, 7, 4, BASH, "knockdown"),
        ("MAN-4", "sweep", "mortal", {"weapons": ["chain"]}, 7, 7, 4, BASH, "knockdown"),
        ("MAN-5", "tackle", "mortal", {}, 6, 7, 4, BASH, "tackle"),
        ("MAN-6", "clinch", "mortal", {}, 5, 6, 3, BASH, "clinch"),  # Strength + Brawl
        ("MAN-8", "bite", "vampire", {}, 7, 6, 4, AGG, None),  # accuracy +1
        ("MAN-10", "disarm", "mortal", {"weapons": ["knife"]}, 7, 7, 4, LETHAL, "disarm"),
        ("MAN-11", "claws", "vampire", {"protean": 2}, 6, 6, 4, AGG, None),
        ("MAN-11", "claws", "vampire", {"vicissitude": 3}, 6, 6, 4, LETHAL, None),
    ],
)
def test_MAN_maneuver_pool_difficulty_and_damage(
    rule: str,
    maneuver: str,
    kind: str,
    extra: dict[str, Any],
    pool: int,
    diff: int,
    damage: int,
    dtype: DamageType,
    effect: str | None,
) -> None:
    """MAN-1 punch, MAN-2 kick, MAN-3 weapon strike, MAN-4 sweep, MAN-5 tackle, MAN-6
    clinch, MAN-8 bite, MAN-10 disarm, MAN-11 claws: Strength 3, Dexterity 4, Brawl 2,
    Melee 3."""
    a, t = combatant(striker(kind, **extra)), combatant(victim(), 1, 1, 1.0)
    p = plan_attack(a, t, maneuver, load_tables(), V20)
    assert p is not None, rule
    assert (p.pool, p.difficulty, p.damage_base, p.damage_type, p.effect) == (
        pool,
        diff,
        damage,
        dtype,
        None if effect is None else Effect(effect),
    )
    assert not p.no_damage


@pytest.mark.parametrize(("rule", "maneuver", "pool"), [("MAN-7", "hold", 6), ("MAN-9", "kiss", 7)])
def test_MAN_7_MAN_9_hold_and_kiss_deal_no_damage(rule: str, maneuver: str, pool: int) -> None:
    """MAN-7 hold: Dex + Brawl, no damage. MAN-9 kiss: like a bite (accuracy +1), no damage."""
    a, t = combatant(striker("vampire")), combatant(victim(), 1, 1, 1.0)
    p = plan_attack(a, t, maneuver, load_tables(), V20)
    assert p is not None, rule
    assert (p.pool, p.difficulty, p.no_damage) == (pool, 6, True)


@pytest.mark.parametrize(
    ("maneuver", "kind", "extra"),
    [
        ("bite", "mortal", {}),  # MAN-8: vampires only
        ("kiss", "mortal", {}),  # MAN-9
        ("claws", "vampire", {}),  # MAN-11: no Protean or Vicissitude
        ("claws", "vampire", {"protean": 1}),  # Feral Claws is Protean 2
        ("claws", "vampire", {"vicissitude": 2}),  # Bone Craft spurs need Vicissitude 3
        ("claws", "mortal", {}),
        ("weapon_strike", "mortal", {}),  # MAN-3: needs a melee weapon
        ("disarm", "mortal", {}),  # MAN-10: with a melee weapon
        ("disarm", "mortal", {"weapons": ["light_pistol"]}),
    ],
)
def test_MAN_8_MAN_10_MAN_11_who_cannot_perform_a_maneuver(
    maneuver: str, kind: str, extra: dict[str, Any]
) -> None:
    a, t = combatant(striker(kind, **extra)), combatant(victim(), 1, 1, 1.0)
    assert plan_attack(a, t, maneuver, load_tables(), V20) is None


# --- MAN-1..3 in a battle: damage roll and damage type ---------------------------------


@pytest.mark.parametrize(
    ("maneuver", "weapons", "pool", "diff", "damage_pool", "marks"),
    [
        ("punch", [], 6, 6, 3 + 1, "//....."),  # MAN-1: Strength, bashing
        ("kick", [], 6, 7, 4 + 1, "//....."),  # MAN-2: Strength + 1
        ("weapon_strike", ["knife"], 7, 6, 4 + 1, "XX....."),  # MAN-3: Str + 1 lethal
        ("weapon_strike", ["club"], 7, 6, 5 + 1, "//....."),  # MAN-3: Str + 2 bashing
    ],
)
def test_MAN_1_2_3_strikes_hit_with_their_damage(
    maneuver: str, weapons: list[str], pool: int, diff: int, damage_pool: int, marks: str
) -> None:
    """MAN-1..3: two attack successes (one extra damage die, ATK-5); two damage
    successes; the mortal soaks bashing with Stamina 1 (nothing) and cannot soak lethal."""
    soak = [FILLER] if marks[0] == "/" else []
    faces = [9, 1, *successes(2, pool), *successes(2, damage_pool, 7), *soak]
    b = close_pair(striker(weapons=weapons), victim(), faces)
    step(b, ACT, 0, attack(maneuver, 1))
    step(b, DEFEND, 1, NONE)
    r = single_roll(b, "attack")
    assert (r["pool"], r["diff"]) == (pool, diff)
    d = single_roll(b, "damage")
    assert (d["pool"], d["diff"]) == (damage_pool, 6)
    assert b.combatants[1].health.marks() == marks


# --- MAN-4: sweep ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("footing", "knockdown", "prone"),
    [
        ([6, 2, 2], [], False),  # keeps its footing: no knockdown roll
        ([2, 2, 2], [2, 2, 2], True),  # loses it and falls (CPX-4 roll failed)
        ([2, 2, 2], [6, 2, 2], False),  # loses it, rolls well and is up at once
    ],
)
def test_MAN_4_sweep_target_rolls_dex_athletics_or_is_knocked_down(
    footing: list[int], knockdown: list[int], prone: bool
) -> None:
    """MAN-4: on a hit (Dex + Brawl at +1) the target takes Strength damage and rolls
    Dexterity + Athletics (2 + 1) or is knocked down (CPX-4)."""
    faces = [9, 1, *successes(1, 6), *[FILLER] * 3, *footing, *knockdown]
    b = close_pair(striker(), victim(), faces)
    step(b, ACT, 0, attack("sweep", 1))
    step(b, DEFEND, 1, NONE)
    assert single_roll(b, "attack")["diff"] == 7
    f = single_roll(b, "footing", 1)
    assert (f["pool"], f["diff"]) == (3, 6)
    assert len(rolls(b, "knockdown", 1)) == (1 if knockdown else 0)
    assert b.combatants[1].prone is prone


def test_MAN_4_missed_sweep_knocks_nobody_down() -> None:
    faces = [9, 1, *successes(0, 6)]
    b = close_pair(striker(), victim(), faces)
    step(b, ACT, 0, attack("sweep", 1))
    step(b, DEFEND, 1, NONE)
    assert not rolls(b, "footing")
    assert not b.combatants[1].prone


# --- MAN-5: tackle -----------------------------------------------------------------------


def test_MAN_5_tackle_both_roll_at_7_and_a_target_that_stays_up_is_off_balance() -> None:
    """MAN-5: both roll Dex + Athletics at difficulty 7; the target keeps its feet but
    is off balance: +1 difficulty on its action next turn (and only then)."""
    a = striker(athletics=1)  # footing pool 4 + 1
    faces = [9, 1, *successes(1, 6), *[FILLER] * 4, 7, 2, 2, 7, 2, 2, 2, 2]
    faces += [1, 9]  # turn 2: the target acts first
    b = close_pair(a, victim(), faces, turns=2)
    step(b, ACT, 0, attack("tackle", 1))
    step(b, DEFEND, 1, NONE)
    feet = rolls(b, "footing")
    assert [(r["who"], r["pool"], r["diff"]) for r in feet] == [(1, 3, 7), (0, 5, 7)]
    assert not b.combatants[0].prone and not b.combatants[1].prone
    assert b.combatants[1].off_balance_turn == 2
    plan_now = b.plan(1, attack("punch", 0))
    assert plan_now is not None and plan_now.difficulty == 6  # not this turn
    step(b, ACT, 1, PASS)
    declare_all(b)
    p = b.plan(1, attack("punch", 0))
    assert p is not None and p.difficulty == 7  # next turn: off balance
    q = b.plan(0, attack("punch", 1))
    assert q is not None and q.difficulty == 6  # the tackler is not


def test_MAN_5_tackle_a_6_is_not_enough_at_difficulty_7_both_fall() -> None:
    """MAN-5: a footing roll of all 6s fails at 7; both then roll CPX-4 knockdown."""
    a = striker(athletics=1)
    faces = [9, 1, *successes(1, 6), *[FILLER] * 4]
    faces += [6, 6, 6, 2, 2, 2]  # target: footing fails, knockdown fails
    faces += [6] * 5 + [2] * 5  # tackler: the same
    b = close_pair(a, victim(), faces)
    step(b, ACT, 0, attack("tackle", 1))
    step(b, DEFEND, 1, NONE)
    assert [(r["who"], r["what"], r["succ"]) for r in rolls(b) if r["what"] != "attack"] == [
        (0, "damage", 0),
        (1, "footing", 0),
        (1, "knockdown", 0),
        (0, "footing", 0),
        (0, "knockdown", 0),
    ]
    assert b.combatants[0].prone and b.combatants[1].prone
    assert b.combatants[1].off_balance_turn != 2  # fell: not merely off balance


# --- MAN-6: clinch -------------------------------------------------------------------


def _clinched(turns: int = 2, extra: list[int] | None = None) -> Any:
    """Turn 1: striker (Str 3 + Brawl 2) clinches the victim; the clinch damage (Str 3)
    scores nothing."""
    faces = [9, 1, *successes(1, 5), *[FILLER] * 3, 9, 1, *(extra or [])]
    b = close_pair(striker(), victim(), faces, turns=turns)
    step(b, ACT, 0, attack("clinch", 1))
    step(b, DEFEND, 1, NONE)
    return b


def test_MAN_6_clinch_first_turn_damage_is_strength() -> None:
    b = _clinched()
    assert single_roll(b, "attack")["pool"] == 5  # Strength 3 + Brawl 2
    assert single_roll(b, "damage")["pool"] == 3  # Strength
    a, t = b.combatants
    assert (a.clinch_with, t.clinch_with) == (1, 0)


@pytest.mark.parametrize(("reading", "pool"), [("strength", 3), ("successes", 6)])
def test_MAN_6_variant_clinch_first_damage(reading: str, pool: int) -> None:
    """MAN-6 variant (``clinch_first_damage``): 000 "в первом раунде атакующий
    выбрасывает повреждения, равные значению своей Силы" (the attacker rolls damage
    equal to its Strength): 4 successes, Strength 3 -> 3 dice (``strength``, v20's
    default); ATK-5's general reading adds the 3 extra successes -> 6 dice."""
    rules = load_rules("v20").model_copy(update={"clinch_first_damage": reading})
    assert load_rules("v20").clinch_first_damage == "strength"
    faces = [9, 1, *successes(4, 5), *[FILLER] * pool, FILLER]
    b = battle_on([Fighter(striker(), 0, 0, 0), Fighter(victim(), 1, 1, 0)], faces,
                  rules_set=rules)
    declare_all(b)
    step(b, ACT, 0, attack("clinch", 1))
    step(b, DEFEND, 1, NONE)
    assert single_roll(b, "damage")["pool"] == pool


def test_MAN_6_in_a_clinch_only_crush_break_free_or_pass() -> None:
    """MAN-6: neither can do anything else (no strikes, moves, draws, delays, full
    defense) until the clinch ends; crush or break free come "in later turns", so the
    victim's own action in the turn the clinch began can only pass."""
    b = _clinched()
    assert act_options(b, 1) == {(ActionKind.PASS, None)}
    step(b, ACT, 1, PASS)
    skip = offered(b)  # turn 2: declarations
    assert not any(getattr(o, "full_defense", False) for o in skip)  # DEF-7 not offered
    declare_all(b)
    assert act_options(b, 0) == {(CRUSH, None), (BREAK, None), (ActionKind.PASS, None)}


def test_MAN_6_crush_is_automatic_strength_damage() -> None:
    """MAN-6: in a later turn, an automatic Strength damage roll: no attack roll, no
    defense."""
    b = _clinched(extra=[7, 7, 2, FILLER])  # damage 3 dice: 2 successes; soak 1 die: 0
    step(b, ACT, 1, PASS)
    declare_all(b)
    step(b, ACT, 0, Action(CRUSH, target=1))
    assert len(rolls(b, "attack")) == 1  # only the clinch itself
    crush = rolls(b, "damage")[-1]
    assert (crush["who"], crush["pool"], crush["succ"]) == (0, 3, 2)
    assert b.combatants[1].health.marks() == "//....."
    assert not events(b, EventKind.DECIDE, kind="defend", who=1)[1:]


def test_MAN_6_one_crush_or_break_free_a_turn() -> None:
    """MAN-6: each may crush or try to break free once a turn, even with more actions
    declared; the spare action can only pass."""
    b = _clinched(extra=[*[FILLER] * 3])
    step(b, ACT, 1, PASS)
    declare_all(b, {0: Declaration(actions=2)})
    step(b, ACT, 0, Action(CRUSH, target=1))
    step(b, ACT, 1, PASS)
    assert act_options(b, 0) == {(ActionKind.PASS, None)}


@pytest.mark.parametrize(
    ("escaper", "holder", "freed"),
    [
        ([7, 7, 2], [7, 2, 2, 2, 2], True),  # 2 > 1
        ([7, 2, 2], [7, 2, 2, 2, 2], False),  # a tie holds
        ([2, 2, 2], [2, 2, 2, 2, 2], False),
        ([7, 2, 2], [2, 2, 2, 2, 2], True),
    ],
)
def test_MAN_6_break_free_needs_more_successes(
    escaper: list[int], holder: list[int], freed: bool
) -> None:
    """MAN-6: resisted Strength + Brawl (victim 2 + 1, striker 3 + 2)."""
    b = _clinched(extra=[*escaper, *holder])
    step(b, ACT, 1, PASS)
    declare_all(b)
    step(b, ACT, 0, PASS)
    step(b, ACT, 1, Action(BREAK, target=0))
    e, h = single_roll(b, "break_free", 1), single_roll(b, "hold_on", 0)
    assert (e["pool"], e["diff"], h["pool"], h["diff"]) == (3, 6, 5, 6)
    a, t = b.combatants
    assert (t.clinch_with == -1, a.clinch_with == -1) == (freed, freed)


# --- MAN-7: hold ---------------------------------------------------------------------


def _held(extra: list[int] | None = None, turns: int = 2, holder: StatBlock | None = None) -> Any:
    faces = [9, 1, *successes(1, 6), *(extra or [])]
    b = close_pair(holder or striker(), victim(), faces, turns=turns)
    step(b, ACT, 0, attack("hold", 1))
    step(b, DEFEND, 1, NONE)
    return b


def test_MAN_7_hold_deals_no_damage_and_the_victim_may_only_struggle() -> None:
    """MAN-7: Dex + Brawl, no damage roll; the victim's only options: break free or pass."""
    b = _held(extra=[9, 1])
    assert single_roll(b, "attack")["pool"] == 6
    assert not rolls(b, "damage")
    a, t = b.combatants
    assert (a.holding, t.held_by) == (1, 0)
    assert act_options(b, 1) == {(BREAK, None), (ActionKind.PASS, None)}
    step(b, ACT, 1, PASS)
    declare_all(b)
    # the (mortal) holder keeps the hold or lets go
    assert act_options(b, 0) == {(ActionKind.RELEASE, None), (ActionKind.PASS, None)}


@pytest.mark.parametrize(
    ("escaper", "holder", "freed"),
    [([7, 7, 2], [7, 2, 2, 2, 2], True), ([7, 2, 2], [7, 2, 2, 2, 2], False)],
)
def test_MAN_7_held_victim_stays_held_until_it_gets_more_successes(
    escaper: list[int], holder: list[int], freed: bool
) -> None:
    """MAN-7: at the victim's next action both roll resisted Str + Brawl."""
    b = _held(extra=[*escaper, *holder], turns=1)
    step(b, ACT, 1, Action(BREAK, target=0))
    assert (single_roll(b, "break_free", 1)["pool"], single_roll(b, "hold_on", 0)["pool"]) == (3, 5)
    assert (b.combatants[1].held_by == -1) is freed


# --- MAN-8: bite ---------------------------------------------------------------------


def fang(kind: str = "vampire") -> StatBlock:
    """Strength 2, Dexterity 3, Brawl 2, Wits 3 (13th generation when a vampire)."""
    return sheet("fang", kind=kind, strength=2, dexterity=3, wits=3, brawl=2)


GRAPPLE_FACES = {
    # clinch: Str 2 + Brawl 2, damage Str 2 (nothing)
    "clinch": [*successes(1, 4), FILLER, FILLER],
    # hold: Dex 3 + Brawl 2, no damage
    "hold": successes(1, 5),
    # tackle: 5 dice at 7, damage 3 (nothing); both keep their footing at 7
    "tackle": [*successes(1, 5), *[FILLER] * 3, 7, 2, 2, 7, 2, 2],
}


def _grappled(maneuver: str, kind: str = "vampire", extra: list[int] | None = None) -> Any:
    faces = [9, 1, *GRAPPLE_FACES[maneuver], 9, 1, *(extra or [])]
    b = close_pair(fang(kind), victim(), faces, turns=2)
    assert "bite" not in offered_maneuvers(b)  # no grapple yet
    step(b, ACT, 0, attack(maneuver, 1))
    step(b, DEFEND, 1, NONE)
    step(b, ACT, 1, PASS)
    declare_all(b)
    return b


@pytest.mark.parametrize(
    ("maneuver", "kind", "bite"),
    [
        ("clinch", "vampire", True),
        ("hold", "vampire", True),
        ("tackle", "vampire", True),
        ("clinch", "mortal", False),  # vampires only
        ("hold", "mortal", False),
    ],
)
def test_MAN_8_bite_follows_a_clinch_hold_or_tackle_next_turn(
    maneuver: str, kind: str, bite: bool
) -> None:
    b = _grappled(maneuver, kind)
    assert b.turn == 2
    assert ("bite" in offered_maneuvers(b, 1)) is bite
    assert ("kiss" in offered_maneuvers(b, 1)) is bite  # MAN-9: the same condition


@pytest.mark.parametrize(("tx", "ty"), [(5.0, 1.0), (1.3, 2.9)])
def test_MAN_8_bite_after_a_tackle_that_closed_in(tx: float, ty: float) -> None:
    """MAN-8: the tackler ran in from a few yards off; next turn it is in reach (a
    punch is offered) and may bite."""
    faces = [9, 1, *GRAPPLE_FACES["tackle"], 9, 1]
    b = battle([Fighter(fang(), 0, 0, 0), Fighter(victim(), 1, tx, ty)], faces, turn_limit=2)
    declare_all(b)
    step(b, ACT, 0, attack("tackle", 1))
    step(b, DEFEND, 1, NONE)
    step(b, ACT, 1, PASS)
    declare_all(b)
    assert events(b, EventKind.MOVE, who=0)  # it closed in
    assert "punch" in offered_maneuvers(b, 1)
    assert "bite" in offered_maneuvers(b, 1)


def test_MAN_8_no_bite_in_the_same_turn_as_the_clinch() -> None:
    """MAN-8: "the bite comes in a following turn", even with a second action."""
    faces = [9, 1, *successes(1, 2), FILLER, FILLER]
    b = battle([Fighter(fang(), 0, 0, 0), Fighter(victim(), 1, 1, 0)], faces)
    declare_all(b, {0: Declaration(actions=2)})
    step(b, ACT, 0, attack("clinch", 1))
    step(b, DEFEND, 1, NONE)
    assert b.combatants[0].clinch_with == 1
    step(b, ACT, 1, PASS)
    assert b.pending is not None and b.pending.actor == 0  # the second action
    assert not offered_maneuvers(b) & {"bite", "kiss"}


def test_MAN_8_bite_is_aggravated_strength_plus_one() -> None:
    """MAN-8: Dex + Brawl + 1 die, damage Strength + 1 aggravated; a mortal cannot soak
    it; the clinched victim cannot defend."""
    b = _grappled("clinch", extra=[*successes(2, 6), 7, 7, 2, 2])
    step(b, ACT, 0, attack("bite", 1))
    bite = rolls(b, "attack")[-1]
    assert (bite["pool"], bite["diff"]) == (6, 6)
    dmg = rolls(b, "damage")[-1]
    assert (dmg["pool"], dmg["succ"]) == (3 + 1, 2)
    assert rolls(b, "soak")[-1]["pool"] == 0
    assert b.combatants[1].health.marks() == "**....."
    assert events(b, EventKind.DAMAGE)[-1]["type"] == "aggravated"


# --- MAN-9: kiss and feeding ----------------------------------------------------------


def _kissed(feeder: StatBlock, prey: StatBlock, extra: list[int] | None = None) -> Any:
    """Turn 1 clinch; turn 2 the kiss (6 dice, one success)."""
    faces = [9, 1, *GRAPPLE_FACES["clinch"], 9, 1, *successes(1, 6), *(extra or [])]
    b = battle([Fighter(feeder, 0, 0, 0), Fighter(prey, 1, 1, 0)], faces, turn_limit=3)
    declare_all(b)
    step(b, ACT, 0, attack("clinch", 1))
    step(b, DEFEND, 1, NONE)
    step(b, ACT, 1, PASS)
    declare_all(b)
    step(b, ACT, 0, attack("kiss", 1))
    return b


def feeder(blood: int) -> StatBlock:
    return sheet("fang", kind="vampire", strength=2, dexterity=3, wits=3, brawl=2, blood=blood)


@pytest.mark.parametrize(
    ("prey", "blood", "drunk", "marks", "prey_blood"),
    [
        (victim(stamina=3), 2, 3, "XXX....", None),  # 3 a turn; a mortal loses levels
        (victim(stamina=3), 9, 1, "X......", None),  # the feeder's pool holds 10
        (sheet("elder", kind="vampire", stamina=3, blood=2), 2, 2, ".......", 0),
        (sheet("elder", kind="vampire", stamina=3, blood=8), 2, 3, ".......", 5),
    ],
)
def test_MAN_9_kiss_deals_no_damage_and_drinks(
    prey: StatBlock, blood: int, drunk: int, marks: str, prey_blood: int | None
) -> None:
    """MAN-9 / VAMP-6: the kiss is an attack without damage; the vampire then drinks up
    to 3 points a turn, no more than its pool holds; a mortal loses a health level per
    point, a vampire loses blood points."""
    b = _kissed(feeder(blood), prey)
    assert single_roll(b, "damage")["pool"] == 2  # only the clinch rolled damage
    v, p = b.combatants
    assert v.blood == blood + drunk
    assert p.health.marks() == marks
    if prey_blood is not None:
        assert p.blood == prey_blood
    (drink,) = events(b, EventKind.ACTION, action="drink")
    assert drink["points"] == drunk


def test_MAN_9_victim_can_do_nothing_and_feeding_continues_next_turn() -> None:
    b = _kissed(feeder(2), victim(stamina=3), extra=[9, 1])
    assert act_options(b, 1) == {(ActionKind.PASS, None)}
    step(b, ACT, 1, PASS)
    declare_all(b)
    assert act_options(b, 0) == {
        (ActionKind.FEED, None),
        (ActionKind.RELEASE, None),
        (ActionKind.PASS, None),
    }
    step(b, ACT, 0, Action(ActionKind.FEED, target=1))
    assert b.combatants[0].blood == 2 + 3 + 3
    assert b.combatants[1].health.marks() == "XXXXXX."


def test_MAN_9_at_most_3_blood_a_turn_even_with_two_actions() -> None:
    """MAN-9: the kiss drinks 3; a second action the same turn cannot feed again (only
    let go or pass); the next turn the vampire may drink 3 more."""
    faces = [9, 1, *GRAPPLE_FACES["clinch"], 9, 1, *successes(1, 4), 9, 1]
    b = battle(
        [Fighter(feeder(2), 0, 0, 0), Fighter(victim(stamina=3), 1, 1, 0)], faces, turn_limit=3
    )
    declare_all(b)
    step(b, ACT, 0, attack("clinch", 1))
    step(b, DEFEND, 1, NONE)
    step(b, ACT, 1, PASS)
    declare_all(b, {0: Declaration(actions=2)})
    step(b, ACT, 0, attack("kiss", 1))
    step(b, ACT, 1, PASS)
    assert act_options(b, 0) == {(ActionKind.RELEASE, None), (ActionKind.PASS, None)}
    step(b, ACT, 0, PASS)
    assert b.combatants[0].blood == 2 + 3
    declare_all(b)
    assert (ActionKind.FEED, None) in act_options(b, 0)
    step(b, ACT, 0, Action(ActionKind.FEED, target=1))
    assert b.combatants[0].blood == 2 + 3 + 3


# --- MAN-10: disarm ---------------------------------------------------------------------


def _disarm(
    attack_faces: list[int], extra: list[int] | None = None, rules: RuleSet = V20, **kw: Any
) -> Any:
    """A knife (Dex 3 + Melee 3, difficulty 7) against a club held with Strength 2: the
    longer club holds the knife off, so 5 dice (ATK-9). Knife damage: Strength 2 + 1."""
    traits: dict[str, Any] = {"strength": 2, "dexterity": 3, "wits": 3, "melee": 3}
    a = sheet("a", weapons=["knife"], **{**traits, **kw})
    t = sheet("t", strength=2, dexterity=2, stamina=2, melee=1, weapons=["club"])
    b = battle_on(
        [Fighter(a, 0, 0, 0), Fighter(t, 1, 1, 0)], [9, 1, *attack_faces, *(extra or [])],
        rules_set=rules,
    )
    declare_all(b)
    step(b, ACT, 0, attack("disarm", 1))
    step(b, DEFEND, 1, NONE)
    return b


def _assert_disarmed(b: Any) -> None:
    t = b.combatants[1]
    assert t.lost[0] and t.wielding == -1 and t.weapon.name == "unarmed"
    assert not events(b, EventKind.DAMAGE) and not rolls(b, "soak")
    assert t.health.filled == 0
    (ev,) = events(b, EventKind.ACTION, action="disarmed")
    assert (ev["weapon"], ev["by"]) == ("club", 0)


@pytest.mark.parametrize(
    ("hits", "damage_hits", "potence", "disarmed"),
    [
        (2, 3, 0, True),  # 2 net hits would not beat Strength 2; 3 damage successes do
        (3, 2, 0, False),  # 3 net hits would; 2 damage successes do not: normal damage
        (1, 2, 1, True),  # Potence's success counts on the damage roll (VAMP-5)
    ],
)
def test_MAN_10_damage_successes_above_strength_disarm_without_damage(
    hits: int, damage_hits: int, potence: int, disarmed: bool
) -> None:
    """MAN-10 (default `disarm_successes: damage`, 000: "if the roll succeeds he rolls
    normal damage; if the successes exceed the opponent's Strength, no damage, and the
    opponent loses the weapon"): the damage roll's successes are compared."""
    pool = 3 + hits - 1
    vampire = {"kind": "vampire", "potence": potence} if potence else {}
    b = _disarm(successes(hits, 5), successes(damage_hits, pool), **vampire)
    assert (single_roll(b, "attack")["pool"], single_roll(b, "attack")["diff"]) == (5, 7)
    assert single_roll(b, "damage")["pool"] == pool
    if disarmed:
        _assert_disarmed(b)
    else:
        t = b.combatants[1]
        assert not t.lost[0] and t.weapon.name == "club"
        assert t.health.lethal == damage_hits  # a mortal cannot soak lethal


def test_MAN_10_damage_successes_not_above_strength_roll_normal_damage() -> None:
    b = _disarm(successes(2, 5), extra=[*[FILLER] * 4])
    t = b.combatants[1]
    assert not t.lost[0] and t.weapon.name == "club"
    assert single_roll(b, "damage")["pool"] == 3 + 1  # knife Str 2 + 1, one extra success
    assert not events(b, EventKind.ACTION, action="disarmed")


def test_MAN_10_attack_option_more_net_successes_than_strength_disarm_without_damage() -> None:
    """MAN-10 with `disarm_successes: attack`: the net attack successes are compared, and
    a disarm rolls no damage at all."""
    b = _disarm(successes(3, 5), rules=ATTACK_DISARM)
    assert (single_roll(b, "attack")["pool"], single_roll(b, "attack")["diff"]) == (5, 7)
    assert not rolls(b, "damage")
    _assert_disarmed(b)


def test_MAN_10_attack_option_successes_not_above_strength_roll_normal_damage() -> None:
    b = _disarm(successes(2, 5), [*successes(3, 4)], rules=ATTACK_DISARM)
    t = b.combatants[1]
    assert not t.lost[0] and t.weapon.name == "club"
    assert single_roll(b, "damage")["pool"] == 3 + 1
    assert t.health.lethal == 3  # 3 damage successes do not disarm under this option


@pytest.mark.parametrize(
    ("face", "effect"),
    [(1, "drop"), (5, "drop"), (6, "struck_by_opponent"), (10, "struck_by_opponent")],
)
def test_MAN_10_botch_uses_the_disarm_mishap_row(face: int, effect: str) -> None:
    """MAN-10 / CPX-6: a botched disarm: the attacker drops its own weapon or takes the
    opponent's weapon damage (club: Strength 2 + 2, bashing)."""
    extra = [face] + ([FILLER] * 4 if effect == "struck_by_opponent" else [])
    b = _disarm([1, *[FILLER] * 4], extra=extra)
    (m,) = events(b, EventKind.MISHAP)
    assert m["effect"] == effect
    a = b.combatants[0]
    if effect == "drop":
        assert a.lost[0] and a.wielding == -1
        assert not rolls(b, "damage")
    else:
        assert not a.lost[0]
        d = single_roll(b, "damage")
        assert (d["who"], d["pool"]) == (1, 4)
    assert not b.combatants[1].lost[0]


# --- MAN-11: claws --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("disc", "marks", "dtype"),
    [({"protean": 2}, "*......", "aggravated"), ({"vicissitude": 3}, "X......", "lethal")],
)
def test_MAN_11_claws_in_battle(disc: dict[str, int], marks: str, dtype: str) -> None:
    """MAN-11: Dex + Brawl, Strength + 1; Feral Claws aggravated, bone spurs lethal."""
    a = sheet("c", kind="vampire", strength=2, dexterity=3, wits=3, brawl=2, **disc)
    faces = [9, 1, *successes(1, 5), 7, 2, 2]
    b = close_pair(a, victim(), faces)
    b.combatants[0].claws_out = True  # grown before (their cost: the tests below)
    assert "claws" in offered_maneuvers(b, 1)
    step(b, ACT, 0, attack("claws", 1))
    step(b, DEFEND, 1, NONE)
    assert single_roll(b, "damage")["pool"] == 3
    assert b.combatants[1].health.marks() == marks
    assert events(b, EventKind.DAMAGE)[0]["type"] == dtype


@pytest.mark.parametrize("grow_action", [True, False])
def test_MAN_11_feral_claws_cost_blood_and_the_action(grow_action: bool) -> None:
    """MAN-11 variant (``claws_grow_action``, ``claws_blood``): claws not out are grown
    first for a blood point; with v20's default that takes the action (no attack roll,
    the claws out for the next); without it the attack follows at once."""
    a = sheet("c", kind="vampire", strength=2, dexterity=3, wits=3, brawl=2, protean=2)
    rules = load_rules("v20").model_copy(update={"claws_grow_action": grow_action})
    faces = [9, 1, *successes(1, 5), 7, 2, 2, FILLER]
    b = battle_on([Fighter(a, 0, 0, 0), Fighter(victim(), 1, 1, 0)], faces, rules_set=rules,
                  turn_limit=1)
    declare_all(b)
    c = b.combatants[0]
    blood = c.blood
    step(b, ACT, 0, attack("claws", 1))
    assert c.claws_out and c.blood == blood - 1
    (grown,) = events(b, EventKind.ACTION, action="claws")
    assert grown["blood"] == 1
    if grow_action:
        assert not rolls(b, "attack")  # the action went on growing them
        assert b.pending is not None and (b.pending.kind, b.pending.actor) == (ACT, 1)
    else:
        step(b, DEFEND, 1, NONE)
        assert single_roll(b, "attack")["pool"] == 5


def test_MAN_11_claws_out_cost_nothing_more_and_spurs_are_free() -> None:
    """MAN-11: claws already out are not grown again; Bone Craft spurs (Vicissitude 3)
    cost nothing (the rule names Feral Claws)."""
    for disc, out in (({"protean": 2}, True), ({"vicissitude": 3}, False)):
        a = sheet("c", kind="vampire", strength=2, dexterity=3, wits=3, brawl=2, **disc)
        b = close_pair(a, victim(), [9, 1, *successes(1, 5), 7, 2, 2, FILLER])
        c = b.combatants[0]
        c.claws_out = out
        blood = c.blood
        step(b, ACT, 0, attack("claws", 1))
        step(b, DEFEND, 1, NONE)
        assert c.blood == blood and not events(b, EventKind.ACTION, action="claws")


def test_MAN_11_no_claws_offered_without_the_discipline() -> None:
    b = close_pair(fang(), victim(), [9, 1])
    assert "claws" not in offered_maneuvers(b)
    assert "punch" in offered_maneuvers(b)


# --- ATK-9: weapon length -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("mine", "maneuver", "theirs", "delta"),
    [
        ([], "punch", [], 0),
        ([], "punch", ["knife"], -1),  # fists against a knife
        (["knife"], "weapon_strike", ["sword"], -1),
        (["knife"], "weapon_strike", ["knife"], 0),
        (["sword"], "weapon_strike", ["knife"], 0),
        (["sword"], "weapon_strike", ["spear"], -1),
        (["spear"], "weapon_strike", ["sword"], 0),
        (["knife"], "weapon_strike", ["light_pistol"], 0),  # not a melee weapon
    ],
)
def test_ATK_9_held_off_by_a_longer_weapon_loses_a_die(
    mine: list[str], maneuver: str, theirs: list[str], delta: int
) -> None:
    a = sheet("a", dexterity=3, wits=3, brawl=2, melee=2, weapons=mine)
    t = sheet("t", weapons=theirs)
    b = battle([Fighter(a, 0, 0, 0), Fighter(t, 1, 1, 0)], [9, 1])
    declare_all(b)
    p = b.plan(0, attack(maneuver, 1))
    assert p is not None and p.pool == 5 + delta


# --- ATK-11: ambush ---------------------------------------------------------------------


def _ambush(stealth: int, notice: int) -> Any:
    """Stalker: Dex 3 + Stealth 2 = 5 dice; mark: Perception 2 + Alertness 1 = 3 dice."""
    a = sheet("stalker", dexterity=3, wits=2, stealth=2, brawl=2)
    t = sheet("mark", perception=2, alertness=1, dexterity=2, dodge=2)
    faces = [*successes(stealth, 5, 7), *successes(notice, 3, 7), *[FILLER] * 7, 9, 1]
    return battle_on([Fighter(a, 0, 0, 0), Fighter(t, 1, 1, 0)], faces, ambush=[(0, 1)])


def test_ATK_11_ambusher_with_more_successes_gets_a_free_attack_with_the_margin() -> None:
    """ATK-11: 3 against 1: a free attack before the first turn, +2 dice, no defense."""
    b = _ambush(3, 1)
    assert not events(b, EventKind.TURN)  # before combat starts
    assert (single_roll(b, "stealth")["pool"], single_roll(b, "notice")["pool"]) == (5, 3)
    assert events(b, EventKind.ACTION, action="ambush")[0]["margin"] == 2
    assert offered_kinds(b) == {ActionKind.ATTACK, ActionKind.PASS}
    step(b, ACT, 0, attack("punch", 1))
    assert single_roll(b, "attack")["pool"] == 5 + 2
    assert not events(b, EventKind.DECIDE, kind="defend")
    # then the first turn, with no bonus left
    assert b.pending is not None and b.pending.kind is DECLARE and b.turn == 1
    declare_all(b)
    p = b.plan(0, attack("punch", 1))
    assert p is not None and p.pool == 5


def test_ATK_11_tie_attacker_strikes_first_but_the_target_may_defend() -> None:
    b = _ambush(1, 1)
    assert events(b, EventKind.ACTION, action="ambush")[0]["margin"] == 0
    step(b, ACT, 0, attack("punch", 1))
    d = b.pending
    assert d is not None and (d.kind, d.actor) == (DEFEND, 1)
    # nothing was declared yet: a plain defense, no abort (DEF-3) needed
    assert Defense(DefenseKind.DODGE) in d.options
    step(b, DEFEND, 1, NONE)
    assert single_roll(b, "attack")["pool"] == 5
    kinds = [(e["e"], e.get("what")) for e in b.log.events]
    assert kinds.index((EventKind.ROLL, "attack")) < kinds.index((EventKind.TURN, None))


def test_ATK_11_target_with_more_successes_means_normal_initiative() -> None:
    b = _ambush(1, 2)
    assert events(b, EventKind.ACTION, action="ambush")[0]["margin"] == -1
    assert b.pending is not None and b.pending.kind is DECLARE
    assert events(b, EventKind.TURN)  # straight into turn 1
    assert not rolls(b, "attack")
    step(b, DECLARE, 1, ONE)
