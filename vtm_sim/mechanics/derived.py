"""A stat block's derived numbers, as the engine computes them in a fight (``vtm-sim
sheets NAME``): soak per damage type, defense pools, initiative, speeds, the health track,
blood, and the attack pools of every maneuver with every weapon it carries.

Nothing is recomputed here: each number is the engine's own function
(:func:`~vtm_sim.mechanics.attack.soak_pool`, :func:`~vtm_sim.mechanics.attack.defense_pool`,
:func:`~vtm_sim.mechanics.attack.plan_attack`, :func:`~vtm_sim.mechanics.movement.run_allowance`,
...) asked of a fresh combatant, unhurt, in the open, in normal light, against an unarmed
mortal target at the maneuver's usual distance (1 yard in close combat; for a shot, the
weapon's short range, RNG-2: no range modifier).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from vtm_sim.core.choices import DefenseKind
from vtm_sim.core.maneuvers import Need
from vtm_sim.core.sheet import StatBlock
from vtm_sim.core.weapons import DamageType, Weapon
from vtm_sim.data.rules import RuleSet
from vtm_sim.data.tables import Tables
from vtm_sim.mechanics.attack import (
    defense_pool,
    maneuver_weapon,
    plan_attack,
    soak_pool,
    stun_threshold,
)
from vtm_sim.mechanics.combatant import Combatant
from vtm_sim.mechanics.movement import burden, carry_limit, run_allowance

__all__ = ["AttackLine", "SheetNumbers", "sheet_numbers"]

CLOSE_YARDS = 1.0  # where a close-combat maneuver is counted from (in reach, ATK-1)


@dataclass(frozen=True, slots=True)
class AttackLine:
    """One maneuver with one weapon: its dice and difficulty, and its damage."""

    maneuver: str
    weapon: str
    pool: int
    difficulty: int
    damage: int  # the damage pool before extra successes (DMG-2); 0: no damage (hold, kiss)
    potence: int  # automatic damage successes (VAMP-5)
    damage_type: str
    distance: float
    after_grapple: bool  # MAN-8: only after a clinch, hold or tackle

    def to_json(self) -> dict[str, Any]:
        return {"maneuver": self.maneuver, "weapon": self.weapon, "pool": self.pool,
                "difficulty": self.difficulty, "damage": self.damage,
                "potence": self.potence, "damage_type": self.damage_type,
                "distance": self.distance, "after_grapple": self.after_grapple}


@dataclass(frozen=True, slots=True)
class SheetNumbers:
    """What a fight makes of one stat block (see the module's docstring)."""

    stats: StatBlock
    soak: dict[str, int]  # damage type -> soak dice; "fire": aggravated elemental
    defense: dict[str, int]  # dodge / block / parry -> dice
    initiative: int  # INIT-1: Dexterity + Wits, to which the d10 is added
    stun: int  # DMG-6: levels in one blow past this stun
    health: tuple[tuple[str, int], ...]  # DMG-7: each level's name and dice penalty
    run: float  # MOVE-1: yards a turn at a run
    carry_limit: float  # MOVE-2: pounds carried without penalty
    burden_difficulty: int  # MOVE-2: +difficulty from what it carries
    attacks: tuple[AttackLine, ...]

    def to_json(self) -> dict[str, Any]:
        s = self.stats
        return {
            "name": s.name, "kind": s.kind.value, "short": s.short, "source": s.source,
            "generation": s.generation,
            "blood": {"pool": s.blood_pool, "start": s.blood, "per_turn": s.blood_per_turn}
            if s.blood_pool else None,
            "willpower": s.willpower,
            "attributes": dict(s.attributes), "abilities": dict(s.abilities),
            "disciplines": {k: v for k, v in s.disciplines.items() if v},
            "specialties": dict(s.specialties), "merits": sorted(s.merits),
            "weapons": [w.name for w in s.weapons],
            "armor": None if s.armor is None else {
                "name": s.armor.name, "rating": s.armor.rating, "penalty": s.armor.penalty},
            "soak": dict(self.soak), "defense": dict(self.defense),
            "initiative": self.initiative, "stun_above": self.stun,
            "health": [{"level": n, "penalty": p} for n, p in self.health],
            "run_yards": self.run, "carry_limit_lb": self.carry_limit,
            "burden_difficulty": self.burden_difficulty,
            "attacks": [a.to_json() for a in self.attacks],
        }


def sheet_numbers(stats: StatBlock, rules: RuleSet, tables: Tables) -> SheetNumbers:
    """The derived numbers of ``stats`` under ``rules`` (see the module's docstring)."""
    me = Combatant.create(0, stats, 0, tables)
    soak = {t.value: soak_pool(me, t, rules) for t in DamageType}
    soak["fire"] = soak_pool(me, DamageType.AGGRAVATED, rules, elemental=True)  # SOAK-3
    defense = {k.value: defense_pool(me, k, 0)
               for k in (DefenseKind.DODGE, DefenseKind.BLOCK, DefenseKind.PARRY)}
    health = tuple((lv.name, lv.penalty) for lv in me.health.levels)
    return SheetNumbers(
        stats, soak, defense, me.rating, stun_threshold(me), health,
        run_allowance(me, tables), carry_limit(me), burden(me)[0],
        _attacks(me, stats, rules, tables),
    )


def _attacks(me: Combatant, stats: StatBlock, rules: RuleSet,
             tables: Tables) -> tuple[AttackLine, ...]:
    hands: list[tuple[int, Weapon]] = [(i, w) for i, w in enumerate(stats.weapons)]
    if all(w.name != "unarmed" for _i, w in hands):
        hands.append((-1, tables.weapon("unarmed")))
    out: list[AttackLine] = []
    seen: set[tuple[str, str]] = set()
    for idx, _w in hands:
        me.wielding = idx
        for name, spec in tables.maneuvers.items():
            weapon = maneuver_weapon(me, spec)
            if weapon is None or (name, weapon.name) in seen:
                continue
            dist = CLOSE_YARDS if spec.close else float(max(weapon.range, 1))
            target = Combatant.create(1, stats, 1, tables, dist)  # only where it stands counts
            plan = plan_attack(me, target, name, tables, rules, distance=dist, weapon=weapon)
            if plan is None:
                continue
            seen.add((name, weapon.name))
            out.append(AttackLine(
                name, weapon.name, plan.pool, plan.difficulty,
                0 if plan.no_damage else plan.damage_base,
                0 if plan.no_damage else plan.damage_auto,
                plan.damage_type.value, dist, Need.GRAPPLE in spec.needs))
    me.wielding = 0 if stats.weapons else -1
    return tuple(out)
