"""Tactic cards: every attack one character can make on another, with exact odds.

A Storyteller's answer to "what does this NPC do now, and what are the
odds?": for each maneuver the attacker can use at this distance, the pool,
difficulty, chance to hit, expected health levels and the chance of a
crippling blow, against the defender's best defense and soak; and the
attack the tactician would choose.
"""

from __future__ import annotations

from dataclasses import dataclass

from vtm_sim.attack import defense_pool, effective_damage_type, soak_pool
from vtm_sim.battle import Battle, Fighter
from vtm_sim.choices import Action, ActionKind, DefenseKind
from vtm_sim.dice import ScriptedDice
from vtm_sim.forecast import best_defense, expected, plan_odds
from vtm_sim.rules import RuleSet
from vtm_sim.stats import StatBlock

BIG_HIT = 3  # levels that make a blow "crippling" on the card


@dataclass(frozen=True, slots=True)
class CardRow:
    maneuver: str
    weapon: str
    pool: int
    difficulty: int
    defense: str
    defense_pool: int
    damage_pool: int
    damage_type: str
    soak_pool: int
    p_hit: float
    expected_levels: float
    p_big_hit: float
    distribution: tuple[float, ...]


@dataclass(frozen=True, slots=True)
class TacticCard:
    attacker: str
    defender: str
    distance: float
    rules: str
    rows: tuple[CardRow, ...]

    @property
    def best(self) -> CardRow | None:
        return max(self.rows, key=lambda r: r.expected_levels, default=None)


def tactic_card(attacker: StatBlock, defender: StatBlock, *, distance: float,
                rules: RuleSet, defend: bool = True) -> TacticCard:
    """Exact odds of every attack ``attacker`` can make on ``defender`` now.

    The defender is assumed to use its best legal defense (unless ``defend``
    is false), before the turn's first action, both unhurt and standing.
    """
    fighters = [Fighter(attacker, 0, 0.0, 0.0), Fighter(defender, 1, float(distance), 0.0)]
    # initiative faces only: no other die is rolled before the first decision
    battle = Battle(fighters, dice=ScriptedDice([10, 1]), rules=rules, turn_limit=1)
    foe = battle.combatants[1]
    rows = []
    for m in battle.tables.maneuvers:
        plan = battle.plan(0, Action(ActionKind.ATTACK, m, 1))
        if plan is None or plan.pool <= 0 or plan.no_damage:
            continue
        kind = best_defense(foe, plan, room=not battle.field.cramped) if defend else (
            DefenseKind.NONE)
        d_pool = defense_pool(foe, kind, 0) if kind is not DefenseKind.NONE else 0
        dtype = effective_damage_type(plan.damage_type, plan.weapon, foe, rules)
        s_pool = soak_pool(foe, dtype, rules, elemental=plan.weapon.elemental)
        dist = plan_odds(plan, foe, rules, kind)
        d_kind = kind.value
        rows.append(CardRow(
            m, plan.weapon.name, plan.pool, plan.difficulty, d_kind, d_pool,
            plan.damage_base, dtype.value, s_pool, 1.0 - dist[0],
            expected(dist), sum(dist[BIG_HIT:]), dist,
        ))
    return TacticCard(attacker.name, defender.name, float(distance), rules.name, tuple(rows))


def card_lines(card: TacticCard) -> list[str]:
    """The card as plain text a Storyteller can read at the table."""
    out = [f"{card.attacker} against {card.defender}, {card.distance:g} yards apart "
           f"({card.rules} rules)."]
    if not card.rows:
        return [*out, f"{card.attacker} has no attack that reaches from here."]
    out.append(f"{'maneuver':<14}{'weapon':<16}{'dice':>5}{'diff':>5}  {'defense':<10}"
               f"{'hit':>6}{'levels':>8}{f'{BIG_HIT}+ lv':>7}")
    for r in sorted(card.rows, key=lambda r: -r.expected_levels):
        defense = f"{r.defense} {r.defense_pool}" if r.defense_pool else "none"
        out.append(f"{r.maneuver.replace('_', ' '):<14}{r.weapon.replace('_', ' '):<16}"
                   f"{r.pool:>5}{r.difficulty:>5}  {defense:<10}{r.p_hit:>6.0%}"
                   f"{r.expected_levels:>8.2f}{r.p_big_hit:>7.0%}")
    best = card.best
    assert best is not None
    out.append(
        f"Best: {best.maneuver.replace('_', ' ')} with the {best.weapon.replace('_', ' ')}: "
        f"{best.p_hit:.0%} to hit, {best.expected_levels:.2f} {best.damage_type} levels "
        f"expected, {best.p_big_hit:.0%} chance of {BIG_HIT} or more."
    )
    return out
