"""Attacks as they happen: defenses asked for, rolls made, effects applied."""

from __future__ import annotations

import math

from vtm_sim.attack import (
    BASE_DIFFICULTY,
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
from vtm_sim.choices import (
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
from vtm_sim.combatant import Combatant
from vtm_sim.effects import EFFECTS, instead_of_damage
from vtm_sim.events import AbortEvent, AmmoEvent, AttackEvent, DefenseEvent, MissEvent
from vtm_sim.flow import (
    ATTACK_DEFENDING,
    ATTACK_ROLLING,
    DEFEND_ASKED,
    Frame,
    Routine,
)
from vtm_sim.options import Options
from vtm_sim.state import DODGE_YARDS, SPRAY_DODGE, spray_shares
from vtm_sim.tables import WeaponClass


class Strikes(Options):
    """Action slots, attacks (single, spray), defenses and aborts."""

    def _use_slot(self, c: Combatant, *, keep_first: bool) -> int:
        """Spend one action; returns its ACT-1 penalty (Celerity: none, ACT-2)."""
        reserve = 1 if keep_first else 0
        if c.declared - c.declared_used - reserve >= 1:
            pen = c.declared + c.declared_used if c.declared > 1 else 0
            c.declared_used += 1
            return pen
        c.celerity_used += 1
        return 0

    def _use_willpower(self, c: Combatant) -> bool:
        if c.wp_declared and c.willpower_available(self.turn, self.rules.willpower_per_turn):
            c.spend_willpower(self.turn)  # DICE-8
            c.wp_declared = False
            return True
        return False

    # attacks
    def _attack(self, f: Frame) -> Decision | None:
        """An attack: planned and announced, then each target's defense asked
        (one DEFEND frame each), then rolled and applied."""
        c = self.combatants[f.actor]
        a = f.action
        assert isinstance(a, Action) and a.target is not None
        t = self.combatants[a.target]
        if f.pc == 0:
            plan = self._announce(c, t, a, f.penalty)
            if plan is None:
                self.stack.pop()
                return None
            f.plan = plan
            f.wp = self._use_willpower(c)
            if plan.area > 0:  # RNG-6: everyone in the area
                half = plan.area / 2
                f.ids = [o.id for o in sorted(
                    (o for o in self.combatants
                     if o.id != c.id and o.active and t.distance(o) <= half + 1e-9),
                    key=lambda o: (o.id != t.id, t.distance(o), o.id),
                )]
                f.pc = ATTACK_DEFENDING
            elif self._surprise is not None and self._surprise[3]:  # ATK-11: no defense
                f.defenses.append((DefenseKind.NONE, 0))
                f.pc = ATTACK_ROLLING
            else:
                f.pc = ATTACK_ROLLING
                self.stack.append(Frame(Routine.DEFEND, actor=t.id, target=c.id))
                return None
        plan = f.plan
        assert plan is not None
        if f.pc == ATTACK_DEFENDING:  # RNG-6: every target in the spray defends first
            if f.i < len(f.ids):
                f.i += 1
                self.stack.append(Frame(Routine.DEFEND, actor=f.ids[f.i - 1], target=c.id))
                return None
            self._spray(c, t, plan, f.wp, [self.combatants[i] for i in f.ids], f.defenses)
        else:
            defense, d_pen = f.defenses[0]
            self._strike(c, t, plan, f.wp, defense, d_pen)
        self.stack.pop()
        return None

    def _announce(self, c: Combatant, t: Combatant, a: Action,
                  penalty: int) -> AttackPlan | None:
        """Close in, plan and log the attack, spend the rounds (None: it fails at once)."""
        assert a.maneuver is not None
        m = a.maneuver
        move_pen = 0
        spec = self.tables.maneuvers.get(m)
        if spec is not None and spec.close:
            app = self.approach(c, t, reach_of(spec))
            if app is not None and app[0] > 0:
                move_pen = app[1]
                self._move(c, t, app[0])
        sit = self.situation(c, t, m, a.offhand)
        plan = None if sit is None else plan_attack(
            c, t, m, self.tables, self.rules, penalty=penalty + move_pen, situation=sit,
            called=a.called, offhand=a.offhand)
        self.log.emit(AttackEvent(c.id, t.id, m, plan.weapon.name if plan else None,
                                  a.called, a.offhand))
        self._face(c, t)
        if plan is None or plan.pool <= 0 or not t.active:
            self.log.emit(MissEvent(c.id, t.id, 0))
            return None
        self._spend_ammo(c, plan, a.offhand)
        return plan

    def _strike(self, c: Combatant, t: Combatant, plan: AttackPlan, wp: bool,
                defense: DefenseKind, d_pen: int) -> None:
        """Roll one attack against one defended target and apply what it does."""
        atk = roll_attack(plan, c, self.rules, self._dice_for, self.log, willpower=wp)
        if plan.ranged:
            c.aim = None  # RNG-7: the aim is spent on the shot
        if atk.botch and not plan.auto_hit:
            self.log.emit(MissEvent(c.id, t.id, 0))
            self.mishap(c, plan, t)  # ATK-4, DICE-4, CPX-6
            return
        d_diff = BASE_DIFFICULTY + self.opponents_modifier(t) + self.physical_difficulty(t)
        out = resolve_attack(plan, c, t, defense, d_pen, d_diff, self.rules, self._dice_for,
                             self.log, self.turn, attack_roll=atk,
                             instead_of_damage=instead_of_damage(plan))
        if defense is DefenseKind.DODGE and plan.ranged:
            self._dodge_to_cover(t)
        if out.hit:
            self._after_hit(c, t, plan, out)

    def _after_hit(self, c: Combatant, t: Combatant, plan: AttackPlan,
                   out: AttackOutcome) -> None:
        """The maneuver's effect (vtm_sim/effects.py: EFFECTS), then a stake (CPX-5)."""
        if plan.effect is not None:
            after = EFFECTS[plan.effect].after_hit
            if after is not None:
                after(self, c, t)
        self.check_stake(plan, t, out)

    def _spend_ammo(self, c: Combatant, plan: AttackPlan, offhand: bool) -> None:
        """RNG-10: rounds spent (RNG-4: and the rate used); a thrown weapon leaves the hand."""
        _, idx = hand_weapon(c, offhand)
        if not plan.ranged or idx < 0:
            return
        spec = self.tables.maneuvers[plan.maneuver]
        c.shots[idx] = c.shots.get(idx, 0) + rate_cost(plan.weapon, spec, self.rules)  # RNG-4
        c.ammo[idx] -= plan.rounds
        if plan.weapon.cls is WeaponClass.THROWN:
            c.lost[idx] = True
            if c.wielding == idx:
                c.wielding = -1
            if c.offhand == idx:
                c.offhand = -1
        self.log.emit(AmmoEvent(c.id, plan.weapon.name, plan.rounds, c.ammo[idx]))

    def _spray(self, c: Combatant, center: Combatant, plan: AttackPlan, wp: bool,
               targets: list[Combatant], guards: list[tuple[DefenseKind, int]]) -> None:
        """RNG-6: one roll over the row's area (3 yards wide); successes split among targets."""
        atk = roll_attack(plan, c, self.rules, self._dice_for, self.log, willpower=wp)
        if atk.botch:
            self.mishap(c, plan, center)
            return
        shares = spray_shares(atk.successes, len(targets))
        self.say(c.id, "spray", targets=tuple(t.id for t in targets), shares=tuple(shares))
        for t, share, (defense, d_pen) in zip(targets, shares, guards, strict=True):
            d_diff = (BASE_DIFFICULTY + self.opponents_modifier(t) + SPRAY_DODGE
                      + self.physical_difficulty(t))
            out = resolve_attack(plan, c, t, defense, d_pen, d_diff, self.rules,
                                 self._dice_for, self.log, self.turn, attack_roll=atk,
                                 successes=share, spray=True,
                                 instead_of_damage=instead_of_damage(plan))
            if defense is DefenseKind.DODGE:
                self._dodge_to_cover(t)
            if out.hit:
                self._after_hit(c, t, plan, out)

    def _dodge_to_cover(self, d: Combatant) -> None:
        """DEF-5: dodging fire with room to move reaches cover or drops prone."""
        if self.field.cover_at(d.x, d.y) is not None or d.prone:
            return
        zone = self.field.nearest_cover(d.x, d.y, DODGE_YARDS)
        if zone is not None:
            self._move_to(d, zone.x, zone.y, math.hypot(zone.x - d.x, zone.y - d.y))
            self.say(d.id, "dodge_to_cover", cover=zone.name)
        else:
            d.prone = True
            self.say(d.id, "drop_prone")

    # defense
    def _defense_options(self, d: Combatant, plan: AttackPlan) -> tuple[Defense, ...]:
        if not self._can_decide(d) or d.clinch_with >= 0 or d.held_by >= 0 or (
            d.fed_on_by >= 0 or d.feeding_on >= 0
        ):
            return (NO_DEFENSE,)  # CPX-2, MAN-6/7/9
        kinds = legal_defenses(d, plan, room=not self.field.cramped)
        if plan.area > 0:  # RNG-6: an area of fire is only dodged
            kinds = [k for k in kinds if k is DefenseKind.DODGE]
        if d.full_defense:  # DEF-7
            return defenses(tuple(k for k in kinds if defense_pool(d, k, d.defenses_used) > 0))
        if self._surprise is not None and self._surprise[1] == d.id:
            # ATK-11 tie: the target has declared nothing and may simply defend
            return defenses(tuple(k for k in kinds if defense_pool(d, k, 0) > 0))
        if d.actions_left <= 0:  # DEF-2
            return (NO_DEFENSE,)
        pen = self.action_penalty(d)
        abort = not d.acted and d.actions_left - 1 < 1  # DEF-3
        if not abort and not d.acted and d.declared - d.declared_used < 2:
            pen = 0  # the spare action is a Celerity one (ACT-2)
        usable = tuple(k for k in kinds if defense_pool(d, k, pen) > 0)
        if not abort:
            return defenses(usable)
        return defenses(usable, True, d.willpower_available(self.turn,
                                                            self.rules.willpower_per_turn))

    def _defend(self, f: Frame, choice: Choice | None) -> Decision | None:
        """A target's defense against the attack of the frame below (DEF-2..7).

        The result, (defense, its multiple-action penalty), goes to that frame.
        """
        d = self.combatants[f.actor]
        parent = self.stack[-2]
        plan = parent.plan
        assert plan is not None
        if f.pc == 0:
            options = self._defense_options(d, plan)
            if len(options) == 1:
                parent.defenses.append((DefenseKind.NONE, 0))
                self.stack.pop()
                return None
            f.pc = DEFEND_ASKED  # what ask(f) rebuilds on load
            return Decision(DecisionKind.DEFEND, d.id, options, f.target, plan.maneuver)
        assert isinstance(choice, Defense)
        self.stack.pop()
        parent.defenses.append(self._take_defense(d, self.combatants[f.target], choice))
        return None

    def _take_defense(self, d: Combatant, attacker: Combatant,
                      choice: Defense) -> tuple[DefenseKind, int]:
        if choice.kind is DefenseKind.NONE:
            return DefenseKind.NONE, 0
        if d.full_defense:
            pen = d.defenses_used
            d.defenses_used += 1
        else:
            if choice.abort is not None and not self._abort(d, choice.abort):
                return DefenseKind.NONE, 0
            if choice.abort is not None:
                d.acted = True  # the declared action is abandoned
                d.delayed = d.waiting = False
            pen = self._use_slot(d, keep_first=not d.acted)
        self.log.emit(DefenseEvent(d.id, choice.kind, attacker.id))
        return choice.kind, pen

    def _abort(self, d: Combatant, method: AbortMethod) -> bool:
        """DEF-3: a Willpower roll at difficulty 6, or one Willpower point."""
        if method is AbortMethod.WILLPOWER:
            d.spend_willpower(self.turn)
            ok = True
        else:
            r = self.roll_logged(d.id, "abort", d.stats.willpower, self.rules.abort_difficulty)
            ok = r.successes > 0
        self.log.emit(AbortEvent(d.id, method, ok))
        return ok
