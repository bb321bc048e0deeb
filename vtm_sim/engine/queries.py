"""A battle's state and what it says about an attack before any die is rolled.

The queries here (who is able, who are enemies, how far one can move, what
modifies an attack from the battlefield) are shared by the option lists
(:mod:`vtm_sim.engine.options`), the attack flow (:mod:`vtm_sim.engine.strikes`) and the
turn sequence (:mod:`vtm_sim.engine.battle`).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Final

from vtm_sim.core.choices import (
    Action,
    ActionKind,
)
from vtm_sim.core.maneuvers import Maneuver
from vtm_sim.core.space import CoverLevel, Lighting
from vtm_sim.data.tables import Weapon, WeaponClass
from vtm_sim.engine.obstacles import approach_detour, cross
from vtm_sim.engine.positions import (
    able,
    enemies,
    running_room,
    step,
)
from vtm_sim.mechanics.attack import (
    AttackNumbers,
    AttackPlan,
    Situation,
    hand_weapon,
    maneuver_weapon,
    plan_attack,
    reach_of,
)
from vtm_sim.mechanics.combatant import Combatant
from vtm_sim.mechanics.movement import approach_cost, burden

if TYPE_CHECKING:
    from vtm_sim.engine.battle import Battle

ENGAGE_YARDS: Final = 2.0  # ATK-8: an enemy this close is engaging the character
REACH_SLACK: Final = 0.01  # positions are rounded to 1/1000 yard: this close counts as in reach
DODGE_YARDS: Final = 1.0  # DEF-5: room a dodge under fire needs to reach cover
FLANK_COS: Final = 0.5  # ATK-7: within 60 degrees of facing is the front, beyond 120 behind


def spray_shares(successes: int, targets: int) -> list[int]:
    """RNG-6: one spray roll's successes shared among the targets in its area.

    The targets are counted with the aimed-at one first (then by distance). A lone
    target gets half (rounded down); fewer successes than targets give one each to the
    first ones; otherwise an even split, the remainder to the aimed-at target.
    """
    if targets <= 0:
        return []
    if targets == 1:
        return [successes // 2]
    if successes < targets:
        return [1] * successes + [0] * (targets - successes)
    q, r = divmod(successes, targets)
    return [q + r] + [q] * (targets - 1)


# what an ACT option's attack plan is made of: target, maneuver, off hand, dice penalty,
# distance (close attacks), situation, weapon and its attack_numbers
PlanParts = tuple[int, str, bool, int, float | None, Situation, Weapon, AttackNumbers]


# --- the queries on a battle's combatants, field and rules -------------------------


def initiative_now(b: Battle, c: Combatant) -> int:
    """INIT-4: the rolled total less the wound penalty taken so far.

    New wounds lower it at once; healing within the turn does not raise it
    above what was rolled (the penalty at the roll still counts).
    """
    return c.initiative - max(c.health.penalty, c.rolled_penalty)


def rolled_total(c: Combatant, face: int, turn: int) -> int:
    """INIT-2, CPX-4: the initiative total a face of the die gives at the start of ``turn``
    (Dexterity + Wits + the face, 2 less after a failed Willpower roll against pain);
    the wound penalty comes off when it is read (:func:`initiative_now`)."""
    return c.rating + face - (2 if c.init_penalty_turn == turn else 0)


def ahead_odds(b: Battle, c: Combatant, turn: int,
               given: dict[int, int] | None = None) -> dict[tuple[int, ...], float]:
    """INIT-2/3/4: the exact chance of each set of enemies whose initiative will beat
    ``c``'s when ``turn`` starts (ties act together: not ahead), the dice not rolled yet.

    ``given`` holds totals already rolled (a state file's, wound penalties taken off).
    Given ``c``'s face, the enemies' dice are independent, so each set's chance is the
    mean over ``c``'s ten faces of a product of per-enemy chances.
    """
    given = given or {}
    foes = [o for o in enemies(b, c) if able(b, o)]

    def now(x: Combatant, face: int) -> int:
        if x.id in given:
            return given[x.id]
        return rolled_total(x, face, turn) - x.health.penalty

    out: dict[tuple[int, ...], float] = {}
    mine_faces = [0] if c.id in given else list(range(1, 11))
    for f in mine_faces:
        mine = now(c, f)
        p_each = []
        for o in foes:
            faces = [0] if o.id in given else list(range(1, 11))
            p_each.append(sum(1 for g in faces if now(o, g) > mine) / len(faces))
        for mask in range(1 << len(foes)):
            p = 1.0
            for j, pj in enumerate(p_each):
                p *= pj if mask >> j & 1 else 1.0 - pj
            if p > 0.0:
                key = tuple(sorted(foes[j].id for j in range(len(foes)) if mask >> j & 1))
                out[key] = out.get(key, 0.0) + p / len(mine_faces)
    return out


def opponents_modifier(b: Battle, c: Combatant) -> int:
    """ATK-8: +1 difficulty per engaging opponent after the first, capped."""
    n = 0
    for o in enemies(b, c):  # a loop: sum() of a generator costs more on the step path
        if c.distance(o) <= ENGAGE_YARDS + REACH_SLACK and able(b, o):
            n += 1
    return min(b.rules.multiple_opponents_cap, max(0, n - 1))


def action_penalty(b: Battle, c: Combatant) -> int:
    """ACT-1/ACT-2: the multiple-action penalty of this character's next action."""
    if c.declared - c.declared_used >= 1:
        return c.declared + c.declared_used if c.declared > 1 else 0
    return 0


def approach(b: Battle, c: Combatant, target: Combatant, reach: float) -> tuple[float, int] | None:
    """ACT-4: yards to close for ``reach`` and the dice it costs, None if too far."""
    need = max(0.0, c.distance(target) - reach)
    if need <= REACH_SLACK:
        return 0.0, 0
    if c.prone or c.grappling:
        return None
    path = need
    if b.field.obstacles:  # MOVE-3: going around costs its yards too
        path += approach_detour(b, c, target, need)
    cost = approach_cost(c.moved, path, running_room(b, c))
    return None if cost is None else (need, cost)


def cover_of(b: Battle, c: Combatant, against: Combatant) -> CoverLevel:
    """RNG-1: cover from a zone the attacker is not in, or light cover when prone."""
    zone = b.field.cover_at(c.x, c.y)
    level = CoverLevel.NONE
    if zone is not None and not zone.contains(against.x, against.y):
        level = zone.level
    if c.prone and level.value < CoverLevel.LIGHT.value:
        level = CoverLevel.LIGHT
    return level


def sees_in_dark(b: Battle, c: Combatant) -> bool:
    """ATK-10: Heightened Senses (Auspex 1) or Eyes of the Beast (Protean 1)."""
    d = c.stats.discipline
    return d("auspex") >= 1 or d("protean") >= 1


def situation_of(b: Battle, c: Combatant, t: Combatant, maneuver: str,
              offhand: bool = False) -> Situation | None:
    """Battlefield and state modifiers for ``c`` attacking ``t`` (None: impossible)."""
    spec = b.tables.maneuvers.get(maneuver)
    close = spec is not None and spec.close
    base = base_situation(b, c, t, close, offhand)
    if base is None or spec is None or not close:
        return base
    return with_length(b, base, c, t, spec, offhand)


def base_situation(b: Battle, c: Combatant, t: Combatant, close: bool,
                    offhand: bool) -> Situation | None:
    dice = 0
    diff = opponents_modifier(b, c)  # ATK-8
    if c.off_balance_turn == b.turn:
        diff += 1  # MAN-5
    if c.stats.carrying:
        diff += burden(c)[0]  # MOVE-2
    dark = b.field.lighting is Lighting.DARK and not sees_in_dark(b, c)
    if c.blinded or dark:
        if not close:
            return None  # ATK-10: firing blind is not possible
        diff += 2  # ATK-10, CPX-1
    if t.blinded:
        dice += 2  # CPX-1
    auto = t.staked  # CPX-3: completely immobilized
    if not auto and t.grip is not None and (t.held_by >= 0 or t.fed_on_by >= 0):
        dice += 2  # CPX-3: held and struggling
    cover = 0
    if close:
        dice += flank_bonus(c, t)  # ATK-7
    else:
        if b.field.walls and not b.field.line_of_sight(c.x, c.y, t.x, t.y):
            return None  # ATK-2
        if b.field.cover or c.prone or t.prone:
            cover = cover_of(b, t, c).value  # RNG-1 (RNG-11: a called shot may replace it)
            diff += cover + cover_of(b, c, t).shooter_penalty
        if c.aim_target == t.id and c.aim_dice > 0 and c.aim_turn >= b.turn - 1:
            w, _ = hand_weapon(c, offhand)
            dice += c.aim_dice + (2 if w.scope else 0)  # RNG-7
    surprise = b.surprise
    if surprise is not None and surprise.attacker == c.id and surprise.target == t.id:
        dice += surprise.dice  # ATK-11
    return Situation(dice, diff, auto, cover)


def with_length(b: Battle, base: Situation, c: Combatant, t: Combatant, spec: Maneuver,
                 offhand: bool) -> Situation:
    """ATK-9: held off by a longer weapon, one die less."""
    tw, _ = hand_weapon(t, False)
    if tw.cls is WeaponClass.MELEE:
        mine = maneuver_weapon(c, spec, offhand)
        if mine is not None and tw.length > mine.length:
            return Situation(base.dice - 1, base.difficulty, base.auto_hit)
    return base


def plan_action(b: Battle, actor: int, action: Action) -> AttackPlan | None:
    """The pool and difficulty an ATTACK action would roll now."""
    return plan_with(b, actor, action, b.planned(actor, action))


def plan_with(b: Battle, actor: int, action: Action,
              parts: PlanParts | None) -> AttackPlan | None:
    """:func:`plan_action`, given what the option list kept for ``action`` (if anything)."""
    if parts is not None:
        t_id, m, off, pen, dist, sit, weapon, nums = parts
        c = b.combatants[actor]
        return plan_attack(c, b.combatants[t_id], m, b.tables, b.rules,
                           penalty=pen, distance=dist, situation=sit, offhand=off,
                           weapon=weapon, numbers=nums)
    if action.kind is not ActionKind.ATTACK or action.maneuver is None:
        return None
    if action.target is None:
        return None
    spec = b.tables.maneuvers.get(action.maneuver)
    if spec is None:
        return None
    c, t = b.combatants[actor], b.combatants[action.target]
    move_pen, dist = 0, None
    if spec.close:
        if c.prone:
            return None
        reach = reach_of(spec)
        app = approach(b, c, t, reach)
        if app is None:
            return None
        move_pen = app[1]
        dist = min(c.distance(t), reach)
    situation = situation_of(b, c, t, action.maneuver, action.offhand)
    if situation is None:
        return None
    return plan_attack(
        c, t, action.maneuver, b.tables, b.rules,
        penalty=action_penalty(b, c) + move_pen, distance=dist, situation=situation,
        called=action.called, offhand=action.offhand,
    )


def can_decide(b: Battle, c: Combatant) -> bool:
    return able(b, c) and not c.stunned(b.turn)  # CPX-2, CPX-5


def move(b: Battle, c: Combatant, toward: Combatant, yards: float, *,
         jump: bool = False) -> None:
    """Move ``yards`` toward (negative: away from) another combatant (``jump``: jump
    obstacles even where it could go around, MOVE-3)."""
    if yards == 0:
        return
    d = c.distance(toward)
    if d > 0:
        ux, uy = (toward.x - c.x) / d, (toward.y - c.y) / d
    else:
        ux, uy = -1.0, 0.0
    if b.field.obstacles:  # MOVE-3: jump them or go around (vtm_sim.engine.obstacles)
        cross(b, c, ux, uy, yards, jump=jump)
    else:
        step(b, c, ux, uy, yards)
    c.facing = (ux, uy)


def move_to(b: Battle, c: Combatant, x: float, y: float, yards: float, *,
            jump: bool = False) -> None:
    d = math.hypot(x - c.x, y - c.y)
    if d <= 1e-9:
        return
    if b.field.obstacles:  # MOVE-3 (vtm_sim.engine.obstacles)
        cross(b, c, (x - c.x) / d, (y - c.y) / d, min(yards, d), jump=jump)
        return
    step(b, c, (x - c.x) / d, (y - c.y) / d, min(yards, d))


def face_nearest(b: Battle, c: Combatant) -> None:
    foes = [o for o in b.combatants if o.side != c.side]
    if foes:
        t = min(foes, key=lambda o: (c.distance(o), o.id))
        face(b, c, t)


def face(b: Battle, c: Combatant, t: Combatant) -> None:
    d = c.distance(t)
    if d > 0:
        c.facing = ((t.x - c.x) / d, (t.y - c.y) / d)


def flank_bonus(c: Combatant, t: Combatant) -> int:
    """ATK-7: +1 die from the flank, +2 from behind, by the target's facing."""
    d = c.distance(t)
    if d <= 0:
        return 0
    ux, uy = (c.x - t.x) / d, (c.y - t.y) / d
    cos = ux * t.facing[0] + uy * t.facing[1]
    if cos <= -FLANK_COS:
        return 2
    if cos < FLANK_COS:
        return 1
    return 0
