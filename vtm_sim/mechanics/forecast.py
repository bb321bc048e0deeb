"""Exact odds of an attack plan against a defender (the plan meets :mod:`vtm_sim.mechanics.odds`).

One place, :func:`plan_query`, turns an :class:`~vtm_sim.mechanics.attack.AttackPlan`
and the defender's state into the :class:`~vtm_sim.mechanics.odds.OddsQuery` of its
odds: the defense pool and its specialty, the damage type after DMG-4, the soak pool (SOAK-*,
fire), vampires' halving of bashing (DMG-5), Potence's damage successes
(VAMP-5) and a lone target in a spray (RNG-6). The ``attack --odds``
command, tactic cards and the tactician all read their numbers here.
"""

from __future__ import annotations

from collections.abc import Sequence

from vtm_sim.core.choices import DefenseKind
from vtm_sim.data.rules import RuleSet
from vtm_sim.data.tables import DamageType
from vtm_sim.mechanics.attack import (
    BASE_DIFFICULTY,
    DEFENSE_ABILITY,
    SPRAY_DODGE,
    AttackPlan,
    defense_pool,
    effective_damage_type,
    legal_defenses,
    pierces,
    soak_pool,
)
from vtm_sim.mechanics.combatant import Combatant
from vtm_sim.mechanics.odds import OddsQuery, hit_chance_of, odds_of


def plan_query(
    plan: AttackPlan,
    defender: Combatant,
    rules: RuleSet,
    defense: DefenseKind = DefenseKind.NONE,
    *,
    defense_penalty: int = 0,
    defense_extra: int = 0,
    willpower: bool = False,
) -> OddsQuery:
    """The odds query of ``plan`` against ``defender`` (arguments as :func:`plan_odds`)."""
    return _query(plan, defender, rules, defense, defense_penalty, defense_extra, willpower)


def _query(plan: AttackPlan, defender: Combatant, rules: RuleSet, defense: DefenseKind,
           defense_penalty: int, defense_extra: int, willpower: bool) -> OddsQuery:
    """:func:`plan_query`, called positionally on the tactician's path."""
    spray = plan.area > 0  # RNG-6: a lone target in the area of fire
    d_pool, d_spec = 0, None
    if defense is not DefenseKind.NONE:
        d_pool = defense_pool(defender, defense, defense_penalty)
        if defender.stats.has_specialty(DEFENSE_ABILITY[defense]):
            d_spec = rules.specialty
    dtype = effective_damage_type(plan.damage_type, plan.weapon, defender, rules)
    return OddsQuery(  # positional, in field order: with keywords it costs 3x as much
        plan.pool,  # attack_pool
        plan.difficulty,  # attack_difficulty
        plan.damage_base,  # damage_base
        rules.specialty if plan.specialty else None,  # attack_specialty
        willpower,  # attack_willpower
        d_pool,  # defense_pool
        BASE_DIFFICULTY + defense_extra + (SPRAY_DODGE if spray else 0),  # defense_difficulty
        d_spec,  # defense_specialty
        BASE_DIFFICULTY,  # damage_difficulty
        plan.extra_successes_add,  # extra_successes_add
        soak_pool(defender, dtype, rules, elemental=plan.weapon.elemental,
                  pierced=pierces(plan, defender, rules)),  # soak_pool (RNG-11)
        BASE_DIFFICULTY,  # soak_difficulty
        dtype is DamageType.BASHING and defender.vampire,  # halve (DMG-5)
        plan.auto_hit,  # auto_hit
        plan.damage_auto,  # damage_auto
        spray,  # lone_spray
    )


def plan_odds(
    plan: AttackPlan,
    defender: Combatant,
    rules: RuleSet,
    defense: DefenseKind = DefenseKind.NONE,
    *,
    defense_penalty: int = 0,
    defense_extra: int = 0,
    willpower: bool = False,
) -> tuple[float, ...]:
    """Distribution of health levels ``plan`` deals to ``defender`` (index = levels).

    ``defense_extra``: difficulty the battle adds to the defense (ATK-8 several
    opponents, CPX-1 blind, ...); ``willpower``: the attack spends a Willpower
    point (DICE-8).
    """
    return odds_of(_query(plan, defender, rules, defense, defense_penalty, defense_extra,
                          willpower))


def plan_hit_chance(
    plan: AttackPlan,
    defender: Combatant,
    rules: RuleSet,
    defense: DefenseKind = DefenseKind.NONE,
    *,
    defense_penalty: int = 0,
    defense_extra: int = 0,
    willpower: bool = False,
) -> float:
    """P(``plan``'s net successes beat ``defender``'s ``defense``): the chance to hit
    (arguments as :func:`plan_odds`)."""
    return hit_chance_of(_query(plan, defender, rules, defense, defense_penalty,
                                defense_extra, willpower))


def best_defense(defender: Combatant, plan: AttackPlan, *, room: bool = True,
                 penalty: int = 0) -> DefenseKind:
    """The legal defense with the largest pool (NONE when none has a die)."""
    best, best_pool = DefenseKind.NONE, 0
    for kind in legal_defenses(defender, plan, room=room):
        pool = defense_pool(defender, kind, penalty)
        if pool > best_pool:
            best, best_pool = kind, pool
    return best


def expected(dist: Sequence[float]) -> float:
    """The mean of a distribution indexed by value."""
    return sum(k * p for k, p in enumerate(dist))
