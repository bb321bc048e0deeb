"""Attacks as they happen: defenses asked for, rolls made, effects applied."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from vtm_sim.core.choices import (
    NO_DEFENSE,
    AbortMethod,
    Action,
    Choice,
    Decision,
    DecisionKind,
    Defense,
    DefenseKind,
    defenses,
)
from vtm_sim.data.tables import WeaponClass
from vtm_sim.engine.effects import EFFECTS, check_stake, instead_of_damage, mishap, roll_logged, say
from vtm_sim.engine.flow import (
    ATTACK_DEFENDING,
    ATTACK_ROLLING,
    DEFEND_ASKED,
    Frame,
    Routine,
)
from vtm_sim.engine.positions import physical_difficulty
from vtm_sim.engine.queries import (
    DODGE_YARDS,
    REACH_SLACK,
    action_penalty,
    approach,
    can_decide,
    face,
    move,
    move_to,
    opponents_modifier,
    situation_of,
    spray_shares,
)
from vtm_sim.events import AbortEvent, AmmoEvent, AttackEvent, DefenseEvent, MissEvent
from vtm_sim.mechanics.attack import (
    BASE_DIFFICULTY,
    SPRAY_DODGE,
    AttackChain,
    AttackOutcome,
    AttackPlan,
    defense_pool,
    hand_weapon,
    legal_defenses,
    plan_attack,
    rate_cost,
    reach_of,
    resolve_attack,
    roll_attack,
)
from vtm_sim.mechanics.combatant import Combatant

if TYPE_CHECKING:
    from vtm_sim.engine.battle import Battle


# Action slots, attacks (single, spray), defenses and aborts.


def use_slot(b: Battle, c: Combatant, *, keep_first: bool) -> int:
    """Spend one action; returns its ACT-1 penalty (Celerity: none, ACT-2)."""
    reserve = 1 if keep_first else 0
    if c.declared - c.declared_used - reserve >= 1:
        pen = c.declared + c.declared_used if c.declared > 1 else 0
        c.declared_used += 1
        return pen
    c.celerity_used += 1
    return 0


def use_willpower(b: Battle, c: Combatant) -> bool:
    if c.wp_declared and c.willpower_available(b.turn, b.rules.willpower_per_turn):
        c.spend_willpower(b.turn)  # DICE-8
        c.wp_declared = False
        return True
    return False


def attack(b: Battle, f: Frame) -> Decision | None:
    """An attack: planned and announced, then each target's defense asked
    (a DEFEND frame each, when the target has a choice), then rolled and applied."""
    c = b.combatants[f.actor]
    a = f.action
    assert isinstance(a, Action) and a.target is not None
    t = b.combatants[a.target]
    if f.pc == 0:
        plan = announce(b, c, t, a, f.penalty)
        if plan is None:
            b.stack.pop()
            return None
        f.plan = plan
        f.wp = use_willpower(b, c)
        if plan.area > 0:  # RNG-6: everyone in the area
            half = plan.area / 2
            f.ids = tuple(o.id for o in sorted(
                (o for o in b.combatants
                 if o.id != c.id and o.active and t.distance(o) <= half + 1e-9),
                key=lambda o: (o.id != t.id, t.distance(o), o.id),
            ))
            f.pc = ATTACK_DEFENDING
        elif (sur := b.surprise) is not None and sur.no_defense:  # ATK-11: no defense
            f.defenses = ((DefenseKind.NONE, 0),)
            f.pc = ATTACK_ROLLING
        else:
            f.pc = ATTACK_ROLLING
            asked = ask_defense(b, f, t, c)
            if asked is not None:
                return asked
    plan = f.plan
    assert plan is not None
    if f.pc == ATTACK_DEFENDING:  # RNG-6: every target in the spray defends first
        while f.i < len(f.ids):
            f.i += 1
            asked = ask_defense(b, f, b.combatants[f.ids[f.i - 1]], c)
            if asked is not None:
                return asked
        spray(b, c, t, plan, f.wp, [b.combatants[i] for i in f.ids], f.defenses)
    else:
        defense, d_pen = f.defenses[0]
        strike(b, c, t, plan, f.wp, defense, d_pen)
    b.stack.pop()
    return None


def announce(b: Battle, c: Combatant, t: Combatant, a: Action,
              penalty: int) -> AttackPlan | None:
    """Close in, plan and log the attack, spend the rounds (None: it fails at once)."""
    assert a.maneuver is not None
    m = a.maneuver
    move_pen = 0
    spec = b.tables.maneuvers.get(m)
    if spec is not None and spec.close:
        app = approach(b, c, t, reach_of(spec))
        if app is not None and app[0] > 0:
            move_pen = app[1]
            move(b, c, t, app[0])
    sit = situation_of(b, c, t, m, a.offhand)
    if b.field.obstacles and spec is not None and spec.close and (
        c.distance(t) > reach_of(spec) + REACH_SLACK
    ):
        sit = None  # MOVE-3: stopped short at an obstacle, out of reach
    plan = None if sit is None else plan_attack(
        c, t, m, b.tables, b.rules, penalty=penalty + move_pen, situation=sit,
        called=a.called, offhand=a.offhand)
    b.log.emit(AttackEvent(c.id, t.id, m, plan.weapon.name if plan else None,
                              a.called, a.offhand))
    face(b, c, t)
    if plan is None or plan.pool <= 0 or not t.active:
        b.log.emit(MissEvent(c.id, t.id, 0))
        return None
    spend_ammo(b, c, plan, a.offhand)
    return plan


def strike(b: Battle, c: Combatant, t: Combatant, plan: AttackPlan, wp: bool,
            defense: DefenseKind, d_pen: int) -> None:
    """Roll one attack against one defended target and apply what it does."""
    passive = b.rules.passive_defense_difficulty
    if passive and defense is DefenseKind.NONE:  # DEF-9: a profile's number (004 gives none)
        plan = plan.harder(passive)
    atk = roll_attack(plan, c, b.rules, b.dice_for, b.log, willpower=wp)
    if plan.ranged:
        c.aim = None  # RNG-7: the aim is spent on the shot
    if atk.botch and not plan.auto_hit:
        b.log.emit(MissEvent(c.id, t.id, 0))
        mishap(b, c, plan, t)  # ATK-4, DICE-4, CPX-6
        return
    d_diff = BASE_DIFFICULTY + opponents_modifier(b, t) + physical_difficulty(b, t)
    out = resolve_attack(AttackChain(plan, c, t, defense, d_pen, d_diff, b.rules, b.dice_for,
                                     b.log, b.turn, attack_roll=atk,
                                     instead_of_damage=instead_of_damage(plan)))
    if defense is DefenseKind.DODGE and plan.ranged:
        dodge_to_cover(b, t)
    if out.hit:
        after_hit(b, c, t, plan, out)


def after_hit(b: Battle, c: Combatant, t: Combatant, plan: AttackPlan,
               out: AttackOutcome) -> None:
    """The maneuver's effect (vtm_sim/engine/effects.py: EFFECTS), then a stake (CPX-5)."""
    if plan.effect is not None:
        after = EFFECTS[plan.effect].after_hit
        if after is not None:
            after(b, c, t)
    check_stake(b, plan, t, out)


def spend_ammo(b: Battle, c: Combatant, plan: AttackPlan, offhand: bool) -> None:
    """RNG-10: rounds spent (RNG-4: and the rate used); a thrown weapon leaves the hand."""
    _, idx = hand_weapon(c, offhand)
    if not plan.ranged or idx < 0:
        return
    spec = b.tables.maneuvers[plan.maneuver]
    c.shots[idx] = c.shots.get(idx, 0) + rate_cost(plan.weapon, spec, b.rules)  # RNG-4
    c.ammo[idx] -= plan.rounds
    if plan.weapon.cls is WeaponClass.THROWN:
        c.lost[idx] = True
        if c.wielding == idx:
            c.wielding = -1
        if c.offhand == idx:
            c.offhand = -1
    b.log.emit(AmmoEvent(c.id, plan.weapon.name, plan.rounds, c.ammo[idx]))


def spray(b: Battle, c: Combatant, center: Combatant, plan: AttackPlan, wp: bool,
           targets: list[Combatant], guards: tuple[tuple[DefenseKind, int], ...]) -> None:
    """RNG-6: one roll over the row's area (3 yards wide); successes split among targets."""
    atk = roll_attack(plan, c, b.rules, b.dice_for, b.log, willpower=wp)
    if atk.botch:
        mishap(b, c, plan, center)
        return
    shares = spray_shares(atk.successes, len(targets))
    say(b, c.id, "spray", targets=tuple(t.id for t in targets), shares=tuple(shares))
    for t, share, (defense, d_pen) in zip(targets, shares, guards, strict=True):
        d_diff = (BASE_DIFFICULTY + opponents_modifier(b, t) + SPRAY_DODGE
                  + physical_difficulty(b, t))
        out = resolve_attack(AttackChain(plan, c, t, defense, d_pen, d_diff, b.rules,
                                         b.dice_for, b.log, b.turn, attack_roll=atk,
                                         successes=share, spray=True,
                                         instead_of_damage=instead_of_damage(plan)))
        if defense is DefenseKind.DODGE:
            dodge_to_cover(b, t)
        if out.hit:
            after_hit(b, c, t, plan, out)


def dodge_to_cover(b: Battle, d: Combatant) -> None:
    """DEF-5: dodging fire with room to move reaches cover or drops prone."""
    if b.field.cover_at(d.x, d.y) is not None or d.prone:
        return
    zone = b.field.nearest_cover(d.x, d.y, DODGE_YARDS)
    if zone is not None:
        move_to(b, d, zone.x, zone.y, math.hypot(zone.x - d.x, zone.y - d.y))
        say(b, d.id, "dodge_to_cover", cover=zone.name)
    else:
        d.prone = True
        say(b, d.id, "drop_prone")


def defense_options(b: Battle, d: Combatant, plan: AttackPlan) -> tuple[Defense, ...]:
    if not can_decide(b, d) or (d.grip is not None and (
        d.clinch_with >= 0 or d.held_by >= 0 or d.fed_on_by >= 0 or d.feeding_on >= 0)
    ):
        return (NO_DEFENSE,)  # CPX-2, MAN-6/7/9
    kinds = legal_defenses(d, plan, room=not b.field.cramped)
    if plan.area > 0:  # RNG-6: an area of fire is only dodged
        kinds = [k for k in kinds if k is DefenseKind.DODGE]
    if d.full_defense:  # DEF-7
        return defenses(tuple(k for k in kinds if defense_pool(d, k, d.defenses_used) > 0))
    if (sur := b.surprise) is not None and sur.target == d.id:
        # ATK-11 tie: the target has declared nothing and may simply defend
        return defenses(tuple(k for k in kinds if defense_pool(d, k, 0) > 0))
    if d.actions_left <= 0:  # DEF-2
        return (NO_DEFENSE,)
    pen = action_penalty(b, d)
    abort = not d.acted and d.actions_left - 1 < 1  # DEF-3
    if not abort and not d.acted and d.declared - d.declared_used < 2:
        pen = 0  # the spare action is a Celerity one (ACT-2)
    usable = tuple(k for k in kinds if defense_pool(d, k, pen) > 0)
    if not abort:
        return defenses(usable)
    return defenses(usable, True, d.willpower_available(b.turn,
                                                        b.rules.willpower_per_turn))


def ask_defense(b: Battle, f: Frame, d: Combatant, attacker: Combatant) -> Decision | None:
    """Ask ``d``'s defense against the attack of frame ``f`` (DEF-2..7): a DEFEND frame goes
    on top, asking (as ask() rebuilds it). None when ``d`` has no choice: no defense then
    goes to ``f`` at once."""
    plan = f.plan
    assert plan is not None
    options = defense_options(b, d, plan)
    if len(options) == 1:
        f.defenses += ((DefenseKind.NONE, 0),)
        return None
    b.stack.append(Frame(Routine.DEFEND, DEFEND_ASKED, d.id, target=attacker.id))
    return Decision(DecisionKind.DEFEND, d.id, options, attacker.id, plan.maneuver)


def defend(b: Battle, f: Frame, choice: Choice | None) -> Decision | None:
    """A target's defense, answered: (defense, its multiple-action penalty) goes to the
    attack frame below."""
    assert isinstance(choice, Defense)
    b.stack.pop()
    parent = b.stack[-1]
    parent.defenses += (take_defense(b, b.combatants[f.actor], b.combatants[f.target], choice),)
    return None


def take_defense(b: Battle, d: Combatant, attacker: Combatant,
                  choice: Defense) -> tuple[DefenseKind, int]:
    if choice.kind is DefenseKind.NONE:
        return DefenseKind.NONE, 0
    if d.full_defense:
        pen = d.defenses_used
        d.defenses_used += 1
    else:
        if choice.abort is not None and not abort(b, d, choice.abort):
            return DefenseKind.NONE, 0
        if choice.abort is not None:
            d.acted = True  # the declared action is abandoned
            d.delayed = d.waiting = False
        pen = use_slot(b, d, keep_first=not d.acted)
    b.log.emit(DefenseEvent(d.id, choice.kind, attacker.id))
    return choice.kind, pen


def abort(b: Battle, d: Combatant, method: AbortMethod) -> bool:
    """DEF-3: a Willpower roll at difficulty 6, or one Willpower point."""
    if method is AbortMethod.WILLPOWER:
        d.spend_willpower(b.turn)
        ok = True
    else:
        r = roll_logged(b, d.id, "abort", d.stats.willpower, b.rules.abort_difficulty)
        ok = r.successes > 0
    b.log.emit(AbortEvent(d.id, method, ok))
    return ok
