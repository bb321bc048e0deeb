"""What maneuvers and complications do after the dice (MAN-4..10, CPX-3..6).

Functions over a :class:`vtm_sim.engine.battle.Battle`: each rolls what it needs
from the battle's dice, logs it, and changes the combatants' state.
:data:`EFFECTS` maps each maneuver ``effect`` of ``configs/maneuvers.yaml``
to the one function that carries it out.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from vtm_sim.core.choices import CalledShot
from vtm_sim.core.dice import Roll, roll
from vtm_sim.core.relations import Grip, GripKind
from vtm_sim.data.tables import DamageType, Effect, Maneuver, WeaponClass
from vtm_sim.engine.positions import physical_difficulty
from vtm_sim.events import ActionEvent, HitEvent, MishapEvent
from vtm_sim.mechanics.attack import (
    AttackOutcome,
    AttackPlan,
    InsteadOfDamage,
    apply_damage,
    apply_levels,
    disarm,
    effective_damage_type,
    hand_weapon,
    log_roll,
    soak_pool,
    weapon_damage,
)
from vtm_sim.mechanics.combatant import Combatant

if TYPE_CHECKING:
    from vtm_sim.engine.battle import Battle

KNOCKDOWN_DIFFICULTY: Final = 6  # CPX-4
SWEEP_DIFFICULTY: Final = 6  # MAN-4
TACKLE_DIFFICULTY: Final = 7  # MAN-5
STAKE_LEVELS: Final = 3  # CPX-5
STAKE_WEAPON: Final = "stake"
ALLY_LINE_YARDS: Final = 1.5  # CPX-6: an ally this close to the line of fire can be hit
GRAPPLE_DIFFICULTY: Final = 6  # MAN-6/MAN-7: resisted Strength + Brawl
CLOSE_YARDS: Final = 2.01  # CPX-6: allies within a melee reach (positions are rounded)


def segment_distance(px: float, py: float, ax: float, ay: float, bx: float, by: float) -> float:
    """Distance from point p to the segment a-b."""
    dx, dy = bx - ax, by - ay
    length2 = dx * dx + dy * dy
    t = 0.0 if length2 == 0 else max(0.0, min(1.0, ((px - ax) * dx + (py - ay) * dy) / length2))
    return math.hypot(px - (ax + t * dx), py - (ay + t * dy))




def roll_logged(b: Battle, who: int, what: str, pool: int, difficulty: int) -> Roll:
    r = roll(pool, difficulty, b.dice)
    log_roll(b.log, who, what, r)
    return r


def say(b: Battle, who: int, action: str, **data: object) -> None:
    """An ACTION event; list details are passed as tuples (events are immutable)."""
    b.log.emit(ActionEvent(who, action, data))


def keep_footing(b: Battle, v: Combatant, difficulty: int, what: str) -> bool:
    """MAN-4/MAN-5: Dexterity + Athletics to stay standing."""
    pool = v.attr("dexterity") + v.stats.ability("athletics") - v.penalty - v.armor_penalty
    return roll_logged(b, v.id, what, pool, difficulty + physical_difficulty(b, v)
                            ).successes > 0


def knockdown(b: Battle, v: Combatant) -> None:
    """CPX-4: success, up at once with -2 initiative next turn; failure,
    the next action is spent getting up; botch, one level of bashing too."""
    pool = v.attr("dexterity") + v.stats.ability("athletics") - v.penalty - v.armor_penalty
    r = roll_logged(b, v.id, "knockdown", pool,
                         KNOCKDOWN_DIFFICULTY + physical_difficulty(b, v))
    if r.successes > 0:
        v.init_penalty_turn = b.turn + 1
        say(b, v.id, "regains footing")
        return
    v.prone = True
    say(b, v.id, "falls prone")
    if r.botch:
        apply_levels(v, 1, DamageType.BASHING, b.log, b.turn)


def sweep_effect(b: Battle, v: Combatant) -> None:
    """MAN-4: the target rolls Dexterity + Athletics or is knocked down."""
    if v.active and not keep_footing(b, v, SWEEP_DIFFICULTY, "footing"):
        knockdown(b, v)


def tackle_effect(b: Battle, a: Combatant, v: Combatant) -> None:
    """MAN-5: both roll at difficulty 7 or fall; a target that stays up is off balance."""
    if v.active:
        if keep_footing(b, v, TACKLE_DIFFICULTY, "footing"):
            v.off_balance_turn = b.turn + 1
            say(b, v.id, "off balance")
        else:
            knockdown(b, v)
    if not keep_footing(b, a, TACKLE_DIFFICULTY, "footing"):
        knockdown(b, a)
    a.grapple_turn[v.id] = b.turn  # MAN-8: a bite may follow next turn


def start_clinch(b: Battle, a: Combatant, v: Combatant) -> None:
    """MAN-6: both are in a clinch; the attack's damage was the first turn's."""
    if not v.active:
        return
    end_grapples(b, a)
    end_grapples(b, v)
    a.grip = v.grip = Grip(GripKind.CLINCH, a.id, v.id, b.turn)
    a.grapple_turn[v.id] = b.turn  # MAN-8: the one who made the clinch may bite
    say(b, a.id, "clinch", target=v.id)


def start_hold(b: Battle, a: Combatant, v: Combatant) -> None:
    """MAN-7: the victim is immobilized until it wins a resisted roll."""
    if not v.active:
        return
    end_grapples(b, a)
    end_grapples(b, v)
    a.grip = v.grip = Grip(GripKind.HOLD, a.id, v.id, b.turn)
    a.grapple_turn[v.id] = b.turn
    say(b, a.id, "hold", target=v.id)


def end_grapples(b: Battle, c: Combatant) -> None:
    """Release every grapple ``c`` is part of."""
    g = c.grip
    if g is None:
        return
    for other in b.combatants:
        if other.grip == g:  # (equal after a load, the same object otherwise)
            other.grip = None


def strength_pool(b: Battle, c: Combatant) -> tuple[int, bool]:
    """Strength + Brawl, with Potence's automatic success (VAMP-5)."""
    return c.attr("strength") + c.stats.ability("brawl") - c.penalty, (
        c.stats.discipline("potence") > 0)


def resisted_strength(b: Battle, escaper: Combatant, holder: Combatant) -> bool:
    """MAN-6/MAN-7: resisted Strength + Brawl; the one escaping needs more."""
    pe, _ = strength_pool(b, escaper)
    ph, _ = strength_pool(b, holder)
    re = roll_logged(b, escaper.id, "break_free", pe, GRAPPLE_DIFFICULTY)
    rh = roll_logged(b, holder.id, "hold_on", ph, GRAPPLE_DIFFICULTY)
    se = re.successes + escaper.stats.discipline("potence")  # VAMP-5
    sh = rh.successes + holder.stats.discipline("potence")
    return se > sh


def break_free(b: Battle, c: Combatant) -> None:
    other_id = c.clinch_with if c.clinch_with >= 0 else c.held_by
    if other_id < 0:
        return
    other = b.combatants[other_id]
    ok = resisted_strength(b, c, other)
    say(b, c.id, "break_free", ok=ok, target=other_id)
    if ok:
        end_grapples(b, c)


def break_free_chance(b: Battle, escaper: Combatant, holder: Combatant) -> float:
    """The exact chance :func:`resisted_strength` frees ``escaper`` (MAN-6/MAN-7)."""
    from vtm_sim.mechanics.odds import roll_odds  # numpy: only for the tools that ask

    pe, _ = strength_pool(b, escaper)
    ph, _ = strength_pool(b, holder)
    de = roll_odds(pe, GRAPPLE_DIFFICULTY).distribution
    dh = roll_odds(ph, GRAPPLE_DIFFICULTY).distribution
    lead = escaper.stats.discipline("potence") - holder.stats.discipline("potence")  # VAMP-5
    return math.fsum(p * q for i, p in enumerate(de) for j, q in enumerate(dh)
                     if i + lead > j)


def crush_damage(c: Combatant) -> tuple[int, int]:
    """MAN-6: a crush's damage pool (Strength, at least 1) and its automatic successes
    (Potence, VAMP-5); bashing, soaked as usual."""
    return max(1, c.attr("strength")), c.stats.discipline("potence")


def crush_odds(b: Battle, c: Combatant, v: Combatant) -> tuple[float, ...]:
    """The exact distribution of health levels :func:`crush` deals ``v`` (index = levels)."""
    from vtm_sim.mechanics.odds import attack_odds  # numpy: only for the tools that ask

    pool, auto = crush_damage(c)
    return attack_odds(attack_pool=0, attack_difficulty=GRAPPLE_DIFFICULTY, auto_hit=True,
                       damage_base=pool, extra_successes_add=False,
                       soak_pool=soak_pool(v, DamageType.BASHING, b.rules),
                       halve=v.vampire, damage_auto=auto)  # DMG-5


def crush(b: Battle, c: Combatant) -> None:
    """MAN-6: inside a clinch, automatic Strength damage (no attack roll)."""
    v = b.combatants[c.clinch_with]
    say(b, c.id, "crush", target=v.id)
    pool, auto = crush_damage(c)
    apply_damage(c.id, v, pool, auto, DamageType.BASHING, b.rules, b.dice_for, b.log, b.turn)
    if not v.active:
        end_grapples(b, v)


def release(b: Battle, c: Combatant) -> None:
    say(b, c.id, "release")
    end_grapples(b, c)


def start_feeding(b: Battle, a: Combatant, v: Combatant) -> None:
    end_grapples(b, v)
    end_grapples(b, a)
    a.grip = v.grip = Grip(GripKind.FEED, a.id, v.id, b.turn)
    say(b, a.id, "kiss", target=v.id)
    drink(b, a)


def drink(b: Battle, a: Combatant) -> None:
    """MAN-9: up to 3 blood a turn. A mortal or ghoul loses one health level
    (lethal) per point drained; a vampire victim loses blood points."""
    v = b.combatants[a.feeding_on]
    room = max(0, a.stats.blood_pool - a.blood) if a.stats.blood_pool else 0
    have = v.blood if v.vampire else v.vitae
    points = min(b.tables.feeding.feed_per_turn - a.drunk, room, have)
    a.drunk += points
    if v.vampire:
        v.blood -= points
    else:
        v.vitae -= points
    a.blood += points  # VAMP-6
    say(b, a.id, "drink", target=v.id, points=points, blood=a.blood)
    if points and not v.vampire:
        apply_levels(v, points, DamageType.LETHAL, b.log, b.turn)
    if points == 0 or not v.active or (v.vampire and v.blood == 0):
        end_grapples(b, a)


def check_stake(b: Battle, plan: AttackPlan, v: Combatant, out: AttackOutcome) -> None:
    """CPX-5: a stake through the heart (a tiny called shot) dealing 3+ levels."""
    if (
        plan.weapon.name == STAKE_WEAPON and plan.called is CalledShot.TINY
        and v.vampire and out.levels >= STAKE_LEVELS and not v.staked
    ):
        v.staked = True
        end_grapples(b, v)
        say(b, v.id, "staked")


def mishap(b: Battle, c: Combatant, plan: AttackPlan, target: Combatant) -> None:
    """CPX-6: a botched attack draws its effect from the mishap table."""
    spec = b.tables.maneuvers.get(plan.maneuver)
    table = spec.mishaps if spec is not None and spec.mishaps else plan.weapon.cls.value
    r = roll(1, 2, b.dice, damage=True)
    log_roll(b.log, c.id, "mishap", r)
    effect = b.tables.mishaps.effect(table, r.faces[0])
    _, idx = hand_weapon(c, plan.offhand)
    b.log.emit(MishapEvent(c.id, plan.weapon.name, effect))
    if effect == "jam" and idx >= 0:
        c.jammed[idx] = True
    elif effect in ("drop", "break") and idx >= 0:
        c.lost[idx] = True
        if c.wielding == idx:
            c.wielding = -1
        if c.offhand == idx:
            c.offhand = -1
    elif effect == "off_balance":
        c.off_balance_turn = b.turn + 1
    elif effect == "fall":
        c.prone = True
    elif effect == "self_damage":
        base, auto = weapon_damage(c, plan.weapon)
        apply_damage(c.id, c, max(1, base), auto, plan.weapon.damage_type, b.rules,
                     b.dice_for, b.log, b.turn)
    elif effect == "struck_by_opponent":
        w, _ = hand_weapon(target, False)
        base, auto = weapon_damage(target, w)
        apply_damage(target.id, c, max(1, base), auto,
                     effective_damage_type(w.damage_type, w, c, b.rules), b.rules,
                     b.dice_for, b.log, b.turn)
    elif effect == "hit_ally":
        hit_ally(b, c, plan, target)


def hit_ally(b: Battle, c: Combatant, plan: AttackPlan, target: Combatant) -> None:
    """The nearest ally within reach of the blow, or near the line of fire."""
    def in_harms_way(o: Combatant) -> bool:
        if plan.close:
            return c.distance(o) <= CLOSE_YARDS
        return segment_distance(o.x, o.y, c.x, c.y, target.x, target.y) <= ALLY_LINE_YARDS
    allies = [o for o in b.combatants
              if o.side == c.side and o.id != c.id and o.active and in_harms_way(o)]
    if not allies:
        return
    ally = min(allies, key=lambda o: (c.distance(o), o.id))
    base, auto = weapon_damage(c, plan.weapon)
    if plan.weapon.cls is WeaponClass.UNARMED:
        base, auto = c.attr("strength"), 0
    b.log.emit(HitEvent(c.id, ally.id, 1, mishap=True))
    apply_damage(c.id, ally, max(1, base), auto,
                 effective_damage_type(plan.damage_type, plan.weapon, ally, b.rules),
                 b.rules, b.dice_for, b.log, b.turn)


# --- maneuver effects ---------------------------------------------------------
AfterHit = Callable[["Battle", Combatant, Combatant], None]  # (battle, attacker, target)


@dataclass(frozen=True, slots=True)
class EffectRule:
    """What one maneuver effect does, by one function: once the hit is soaked and
    marked (``after_hit``, in battles), or in the damage's place (``instead``,
    MAN-10, in every attack chain: ``AttackChain.instead_of_damage``)."""

    after_hit: AfterHit | None = None
    instead: InsteadOfDamage | None = None


def _knockdown(b: Battle, a: Combatant, v: Combatant) -> None:
    sweep_effect(b, v)  # MAN-4


def _tackle(b: Battle, a: Combatant, v: Combatant) -> None:
    tackle_effect(b, a, v)  # MAN-5


def _clinch(b: Battle, a: Combatant, v: Combatant) -> None:
    start_clinch(b, a, v)  # MAN-6


def _hold(b: Battle, a: Combatant, v: Combatant) -> None:
    start_hold(b, a, v)  # MAN-7


def _feed(b: Battle, a: Combatant, v: Combatant) -> None:
    if v.active:
        start_feeding(b, a, v)  # MAN-9


EFFECTS: Final[dict[Effect, EffectRule]] = {
    Effect.KNOCKDOWN: EffectRule(after_hit=_knockdown),
    Effect.TACKLE: EffectRule(after_hit=_tackle),
    Effect.CLINCH: EffectRule(after_hit=_clinch),
    Effect.HOLD: EffectRule(after_hit=_hold),
    Effect.FEED: EffectRule(after_hit=_feed),
    Effect.DISARM: EffectRule(instead=disarm),  # MAN-10
}


def instead_of_damage(plan: AttackPlan) -> InsteadOfDamage | None:
    """The plan's effect if it may take the damage's place (MAN-10), else None."""
    return None if plan.effect is None else EFFECTS[plan.effect].instead


def hurts(spec: Maneuver) -> bool:
    """Whether a maneuver is meant to hurt: it deals damage, and no effect may take
    the damage's place (not hold, kiss or disarm)."""
    return not spec.no_damage and (spec.effect is None or EFFECTS[spec.effect].instead is None)
