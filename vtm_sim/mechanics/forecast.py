"""Exact odds of an attack plan against a defender (the plan meets :mod:`vtm_sim.mechanics.odds`).

One place turns an :class:`~vtm_sim.mechanics.attack.AttackPlan` and the defender's
state into the arguments of :func:`vtm_sim.mechanics.odds.attack_odds`: the defense
pool and its specialty, the damage type after DMG-4, the soak pool (SOAK-*,
fire), vampires' halving of bashing (DMG-5), Potence's damage successes
(VAMP-5) and a lone target in a spray (RNG-6). The ``attack --odds``
command, tactic cards and the tactician all read their numbers here.
"""

from __future__ import annotations

from collections.abc import Sequence

from vtm_sim.core.choices import DefenseKind
from vtm_sim.core.dice import SpecialtyRule
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
    soak_pool,
)
from vtm_sim.mechanics.combatant import Combatant
from vtm_sim.mechanics.odds import attack_odds, hit_chance


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
    spray, d_pool, d_diff, d_spec = _defense_side(plan, defender, rules, defense,
                                                  defense_penalty, defense_extra)
    dtype = effective_damage_type(plan.damage_type, plan.weapon, defender, rules)
    return attack_odds(
        attack_pool=plan.pool,
        attack_difficulty=plan.difficulty,
        attack_specialty=rules.specialty if plan.specialty else None,
        attack_willpower=willpower,
        defense_pool=d_pool,
        defense_difficulty=d_diff,
        defense_specialty=d_spec,
        damage_base=plan.damage_base,
        extra_successes_add=plan.extra_successes_add,
        soak_pool=soak_pool(defender, dtype, rules, elemental=plan.weapon.elemental),
        halve=dtype is DamageType.BASHING and defender.vampire,  # DMG-5
        auto_hit=plan.auto_hit,
        damage_auto=plan.damage_auto,
        lone_spray=spray,
    )


def _defense_side(plan: AttackPlan, defender: Combatant, rules: RuleSet, defense: DefenseKind,
                  penalty: int, extra: int) -> tuple[bool, int, int, SpecialtyRule | None]:
    """(lone spray, defense pool, its difficulty, its specialty rule) of an exchange."""
    spray = plan.area > 0  # RNG-6: a lone target in the area of fire
    d_pool, d_spec = 0, None
    if defense is not DefenseKind.NONE:
        d_pool = defense_pool(defender, defense, penalty)
        if defender.stats.has_specialty(DEFENSE_ABILITY[defense]):
            d_spec = rules.specialty
    return spray, d_pool, BASE_DIFFICULTY + extra + (SPRAY_DODGE if spray else 0), d_spec


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
    spray, d_pool, d_diff, d_spec = _defense_side(plan, defender, rules, defense,
                                                  defense_penalty, defense_extra)
    return hit_chance(
        attack_pool=plan.pool, attack_difficulty=plan.difficulty,
        attack_specialty=rules.specialty if plan.specialty else None,
        attack_willpower=willpower, defense_pool=d_pool,
        defense_difficulty=d_diff,
        defense_specialty=d_spec, auto_hit=plan.auto_hit, lone_spray=spray,
    )


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
