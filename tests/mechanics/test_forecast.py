"""Exact odds of a plan against a defender: the shared bridge to attack_odds."""

from __future__ import annotations

import pytest

from vtm_sim.core.choices import DefenseKind
from vtm_sim.data.rules import load_rules
from vtm_sim.data.stat_blocks import StatBlockSpec, build_stat_block
from vtm_sim.data.tables import load_tables
from vtm_sim.mechanics.attack import plan_attack
from vtm_sim.mechanics.combatant import Combatant
from vtm_sim.mechanics.forecast import (
    best_defense,
    expected,
    plan_hit_chance,
    plan_odds,
    plan_query,
)
from vtm_sim.mechanics.odds import OddsQuery, attack_odds, hit_chance_of, odds_of

T = load_tables()
V20 = load_rules("v20")


def fighter(cid: int, **kw: object) -> Combatant:
    return Combatant.create(
        cid, build_stat_block(StatBlockSpec(name=f"c{cid}", **kw), "t"), cid, T, float(cid), 0.0
    )


def test_SOAK_4_fire_ignores_armor_in_the_odds() -> None:
    """SOAK-4/SOAK-3: a torch's fire is not soaked by armor; a club's blow is."""
    attacker_torch = fighter(
        0, attributes={"strength": 3, "dexterity": 3}, abilities={"melee": 3}, weapons=["torch"]
    )
    attacker_club = fighter(
        0, attributes={"strength": 3, "dexterity": 3}, abilities={"melee": 3}, weapons=["club"]
    )
    guard = fighter(1, attributes={"stamina": 3}, armor="kevlar_vest")
    fire = plan_attack(attacker_torch, guard, "weapon_strike", T, V20)
    blow = plan_attack(attacker_club, guard, "weapon_strike", T, V20)
    assert fire is not None and blow is not None
    assert plan_odds(fire, guard, V20) == pytest.approx(
        attack_odds(attack_pool=6, attack_difficulty=6, damage_base=3, soak_pool=0)
    )
    assert plan_odds(blow, guard, V20) == pytest.approx(
        attack_odds(attack_pool=6, attack_difficulty=6, damage_base=5, soak_pool=6)
    )


def test_DEF_1_best_defense_and_its_pool_in_the_odds() -> None:
    """DEF-1/DEF-4/DEF-6: the largest legal defense pool; the odds subtract it."""
    boxer = fighter(0, attributes={"dexterity": 3}, abilities={"brawl": 3})
    dancer = fighter(
        1,
        attributes={"dexterity": 4},
        abilities={"dodge": 4, "brawl": 1},
        specialties={"dodge": "sidestep"},
    )
    punch = plan_attack(boxer, dancer, "punch", T, V20)
    assert punch is not None
    assert best_defense(dancer, punch) is DefenseKind.DODGE
    dist = plan_odds(punch, dancer, V20, DefenseKind.DODGE)
    want = attack_odds(
        attack_pool=6,
        attack_difficulty=6,
        defense_pool=8,
        defense_specialty=V20.specialty,
        damage_base=1,
        soak_pool=1,
    )
    assert dist == pytest.approx(want)
    assert expected(dist) < expected(plan_odds(punch, dancer, V20))


def test_DEF_1_plan_query_is_the_one_query_of_the_odds_and_the_hit_chance() -> None:
    """plan_odds and plan_hit_chance ask the odds of one OddsQuery, plan_query's."""
    boxer = fighter(0, attributes={"dexterity": 3}, abilities={"brawl": 3})
    dancer = fighter(1, attributes={"dexterity": 4}, abilities={"dodge": 4},
                     specialties={"dodge": "sidestep"})
    punch = plan_attack(boxer, dancer, "punch", T, V20)
    assert punch is not None
    q = plan_query(punch, dancer, V20, DefenseKind.DODGE, defense_extra=1, willpower=True)
    assert q == OddsQuery(attack_pool=6, attack_difficulty=6, damage_base=1,
                          attack_willpower=True, defense_pool=8, defense_difficulty=7,
                          defense_specialty=V20.specialty, soak_pool=1)
    assert plan_odds(punch, dancer, V20, DefenseKind.DODGE, defense_extra=1,
                     willpower=True) is odds_of(q)
    assert plan_hit_chance(punch, dancer, V20, DefenseKind.DODGE, defense_extra=1,
                           willpower=True) == hit_chance_of(q)
