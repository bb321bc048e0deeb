"""A battle as a steppable state machine (INIT-*, ACT-*, DEF-2/3/7).

The turn sequence is written as a generator that yields a :class:`Decision`
whenever a combatant must decide and receives the choice back. From outside
the battle is a plain state: ``battle.pending`` says who must decide what and
lists the legal options; ``battle.choose(choice)`` advances to the next
decision (or the end). Policies, environments and the CLI all drive it the
same way.
"""

from __future__ import annotations

import math
from collections.abc import Generator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from vtm_sim.attack import (
    CLOSE_MANEUVERS,
    AttackPlan,
    defense_pool,
    legal_defenses,
    log_roll,
    plan_attack,
    resolve_attack,
)
from vtm_sim.choices import (
    NO_DEFENSE,
    AbortMethod,
    Action,
    ActionKind,
    Choice,
    Decision,
    DecisionKind,
    Declaration,
    Defense,
    DefenseKind,
)
from vtm_sim.combatant import Combatant
from vtm_sim.dice import DiceSource, RngDice, roll
from vtm_sim.errors import IllegalActionError
from vtm_sim.events import EventKind, EventLog
from vtm_sim.rules import RuleSet, load_rules
from vtm_sim.space import OPEN_FIELD, CoverLevel, CoverZone, Field, Lighting, Wall
from vtm_sim.stats import StatBlock
from vtm_sim.tables import Tables, WeaponClass, load_tables

LOG_VERSION = 1
# Every attack maneuver, in a fixed order (environments build their action space on it).
MANEUVERS = (
    "punch", "kick", "weapon_strike", "sweep", "tackle", "clinch", "hold", "bite", "kiss",
    "disarm", "claws", "single_shot", "burst", "full_auto", "spray", "thrown",
)
ENGAGE_YARDS = 2.0  # ATK-8: an enemy this close is engaging the character
ADJACENT_YARDS = 1.0

Flow = Generator[Decision, Choice, None]


@dataclass(frozen=True, slots=True)
class Fighter:
    """A combatant's place in a battle's setup."""

    stats: StatBlock
    side: int
    x: float = 0.0
    y: float = 0.0
    prone: bool = False
    blinded: bool = False  # CPX-1


def field_to_json(field: Field) -> dict[str, Any]:
    return {
        "lighting": field.lighting.value,
        "cover": [[z.name, z.x, z.y, z.radius, z.level.value] for z in field.cover],
        "walls": [[w.x1, w.y1, w.x2, w.y2] for w in field.walls],
    }


def field_from_json(data: dict[str, Any]) -> Field:
    return Field(
        tuple(CoverZone(n, x, y, r, CoverLevel(lv)) for n, x, y, r, lv in data["cover"]),
        tuple(Wall(*w) for w in data["walls"]),
        Lighting(data["lighting"]),
    )


def sheet_of(stats: StatBlock) -> dict[str, Any]:
    """The stat block as written in a log header (enough to rebuild it)."""
    d: dict[str, Any] = {
        "name": stats.name, "kind": stats.kind.value, "attributes": stats.attributes,
        "abilities": stats.abilities, "disciplines": stats.disciplines,
        "specialties": stats.specialties, "willpower": stats.willpower,
        "weapons": [w.name for w in stats.weapons], "merits": sorted(stats.merits),
    }
    if stats.generation is not None:
        d["generation"] = stats.generation
    if stats.blood_pool:
        d["blood"] = stats.blood
    if stats.armor is not None:
        d["armor"] = stats.armor.name
    return d


class Battle:
    """One fight from the first initiative roll to the end.

    Args:
        fighters: the combatants, their sides and starting positions (yards).
        seed: seeds the dice when ``dice`` is not given; recorded in the log.
        dice: where every die comes from (DICE-9); default a seeded RngDice.
        rules: the rules profile (default v20).
        turn_limit: the battle ends undecided after this many turns.
    """

    def __init__(
        self,
        fighters: Sequence[Fighter],
        *,
        seed: int | None = None,
        dice: DiceSource | None = None,
        rules: RuleSet | None = None,
        tables: Tables | None = None,
        turn_limit: int = 20,
        field: Field = OPEN_FIELD,
        ambush: Sequence[tuple[int, int]] = (),
    ) -> None:
        self.rules = rules or load_rules("v20")
        self.tables = tables or load_tables()
        self.dice: DiceSource = dice if dice is not None else RngDice(np.random.default_rng(seed))
        self.seed = seed
        self.turn_limit = turn_limit
        self.field = field
        self.ambush = tuple((int(a), int(t)) for a, t in ambush)
        self.combatants = [
            Combatant.create(i, f.stats, f.side, self.tables, float(f.x), float(f.y))
            for i, f in enumerate(fighters)
        ]
        for f, c in zip(fighters, self.combatants, strict=True):
            c.prone = f.prone
            c.blinded = f.blinded
        self.log = EventLog()
        self.turn = 0
        self.winner: int | None = None
        self.over = False
        self.end_reason = ""
        self.order: list[Combatant] = []
        self._dice_for = lambda _label: self.dice
        self.log.emit({
            "e": EventKind.BATTLE, "version": LOG_VERSION, "seed": seed,
            "rules": self.rules.model_dump(), "turn_limit": turn_limit,
            "field": field_to_json(field), "ambush": [list(p) for p in self.ambush],
            "combatants": [
                {"id": c.id, "side": c.side, "x": c.x, "y": c.y, "prone": c.prone,
                 "blinded": c.blinded, "sheet": sheet_of(c.stats)}
                for c in self.combatants
            ],
        })
        self._flow = self._run()
        self.pending: Decision | None = next(self._flow, None)

    # --- driving --------------------------------------------------------
    def choose(self, choice: Choice) -> Decision | None:
        """Answer the pending decision; returns the next one (None at the end)."""
        decision = self.pending
        if decision is None:
            raise IllegalActionError("the battle is over: nothing to decide")
        if choice not in decision.options:
            raise IllegalActionError(
                f"{self.combatants[decision.actor].name} cannot choose {choice} "
                f"at this {decision.kind.value} decision"
            )
        self.log.emit({"e": EventKind.DECIDE, "who": decision.actor,
                       "kind": decision.kind.value, "choice": choice.to_json()})
        try:
            self.pending = self._flow.send(choice)
        except StopIteration:
            self.pending = None
        return self.pending

    # --- queries ---------------------------------------------------------
    def enemies(self, c: Combatant) -> list[Combatant]:
        return [o for o in self.combatants if o.side != c.side and o.active]

    def initiative_now(self, c: Combatant) -> int:
        """INIT-4: the rolled total less the wound penalty taken so far."""
        return c.initiative - c.health.penalty

    def run_allowance(self, c: Combatant) -> float:
        """MOVE-1, DMG-9: the farthest this character can move this turn."""
        dex = c.attr("dexterity")
        mv = self.tables.movement
        level = c.health.level
        run = mv.run.base + mv.run.per_dexterity * dex
        if level is None or level.move == "full":
            return float(run)
        if level.move == "half":
            return run / 2
        if level.move == "no_run":
            return float(mv.jog.base + mv.jog.per_dexterity * dex)
        return float(level.yards or 0)

    def opponents_modifier(self, c: Combatant) -> int:
        """ATK-8: +1 difficulty per engaging opponent after the first, capped."""
        n = sum(1 for o in self.enemies(c) if c.distance(o) <= ENGAGE_YARDS)
        return min(self.rules.multiple_opponents_cap, max(0, n - 1))

    def action_penalty(self, c: Combatant) -> int:
        """ACT-1/ACT-2: the multiple-action penalty of this character's next action."""
        if c.declared - c.declared_used >= 1:
            return c.declared + c.declared_used if c.declared > 1 else 0
        return 0

    def approach(self, c: Combatant, target: Combatant, reach: float) -> tuple[float, int] | None:
        """ACT-4: yards to close for ``reach`` and the dice it costs, None if too far."""
        need = max(0.0, c.distance(target) - reach)
        if need <= 1e-9:
            return 0.0, 0
        allowance = self.run_allowance(c)
        if c.moved + need > allowance + 1e-9:
            return None
        half = allowance / 2
        extra = max(0.0, c.moved + need - half) - max(0.0, c.moved - half)
        return need, math.ceil(extra - 1e-9)

    def plan(self, actor: int, action: Action) -> AttackPlan | None:
        """The pool and difficulty an ATTACK action would roll now."""
        if action.kind is not ActionKind.ATTACK or action.maneuver is None:
            return None
        if action.target is None:
            return None
        c, t = self.combatants[actor], self.combatants[action.target]
        move_pen, dist = 0, None
        if action.maneuver in CLOSE_MANEUVERS:
            spec = self.tables.maneuvers[action.maneuver]
            reach = float(spec.reach or 1)
            app = self.approach(c, t, reach)
            if app is None:
                return None
            move_pen = app[1]
            dist = min(c.distance(t), reach)
        return plan_attack(
            c, t, action.maneuver, self.tables, self.rules,
            penalty=self.action_penalty(c) + move_pen,
            difficulty_mod=self.opponents_modifier(c), distance=dist,
        )

    # --- the turn sequence -------------------------------------------------
    def _run(self) -> Flow:
        while not self._decided():
            if self.turn >= self.turn_limit:
                self._finish("turn limit")
                return
            self.turn += 1
            self.log.emit({"e": EventKind.TURN, "turn": self.turn})
            self._roll_initiative()
            for c in reversed(self.order):  # INIT-5: slowest declares first
                if self._can_decide(c):
                    decl = yield Decision(DecisionKind.DECLARE, c.id, self._declare_options(c))
                    assert isinstance(decl, Declaration)
                    self._apply_declaration(c, decl)
            yield from self._first_pass()
            if not self._decided():
                yield from self._extra_rounds()
        self._finish("victory")

    def _decided(self) -> bool:
        return len({c.side for c in self.combatants if c.active}) <= 1

    def _finish(self, reason: str) -> None:
        sides = {c.side for c in self.combatants if c.active}
        self.winner = next(iter(sides)) if len(sides) == 1 else None
        if reason == "victory" and not sides:
            reason = "all down"
        self.over = True
        self.end_reason = reason
        self.log.emit({"e": EventKind.END, "winner": self.winner, "turns": self.turn,
                       "reason": reason})

    def _can_decide(self, c: Combatant) -> bool:
        return c.active and not c.stunned(self.turn)  # CPX-2

    def _roll_initiative(self) -> None:
        """INIT-2/3/4: 1d10 + Dexterity + Wits - wounds; ties by rating."""
        for c in self.combatants:
            c.reset_turn()
            if not c.active:
                continue
            r = roll(1, 2, self.dice, damage=True)
            c.initiative = c.rating + r.faces[0]  # wounds come off when read (INIT-4)
            self.log.emit({"e": EventKind.INITIATIVE, "who": c.id, "die": r.faces[0],
                           "rating": c.rating, "penalty": c.health.penalty,
                           "total": self.initiative_now(c)})
        self.order = sorted(
            (c for c in self.combatants if c.active),
            key=lambda c: (-self.initiative_now(c), -c.rating, c.id),
        )
        self.log.emit({"e": EventKind.ORDER, "order": [c.id for c in self.order]})

    def _declare_options(self, c: Combatant) -> tuple[Choice, ...]:
        celerity = 0
        if c.vampire:
            celerity = min(c.stats.discipline("celerity"), c.blood)  # VAMP-3
        wp = [False, True] if c.willpower_available(self.turn, self.rules.willpower_per_turn) \
            else [False]
        opts: list[Choice] = [
            Declaration(n, False, cel, w)
            for n in range(1, self.rules.max_actions + 1)
            for cel in range(celerity + 1)
            for w in wp
        ]
        opts.append(Declaration(1, True, 0, False))  # DEF-7
        return tuple(opts)

    def _apply_declaration(self, c: Combatant, d: Declaration) -> None:
        c.full_defense = d.full_defense
        c.declared = 0 if d.full_defense else d.actions
        c.wp_declared = d.willpower
        if d.celerity:
            c.celerity = d.celerity
            c.blood -= d.celerity  # VAMP-3: one blood per extra action
            c.blood_spent += d.celerity

    # first actions, in initiative order with delays and waits
    def _may_take_first(self, c: Combatant) -> bool:
        return (
            self._can_decide(c) and not c.full_defense and not c.acted
            and c.declared - c.declared_used >= 1
        )

    def _first_pass(self) -> Flow:
        pending = [c for c in self.order if self._may_take_first(c)]
        while pending:
            top = max((self.initiative_now(c), c.rating) for c in pending)
            group = [c for c in pending if (self.initiative_now(c), c.rating) == top]
            pending = [c for c in pending if c not in group]
            group = [c for c in group if self._may_take_first(c)]
            if not group:
                continue
            yield from self._interrupts()
            if self._decided():
                return
            group = [c for c in group if self._may_take_first(c)]
            simultaneous = len(group) > 1  # INIT-3: both resolve before either is removed
            if simultaneous:
                for c in group:
                    c.sim_penalty = c.health.penalty
            for c in group:
                if c.acted or (not simultaneous and not self._may_take_first(c)):
                    continue
                yield from self._act(c, first=True)
            for c in group:
                c.sim_penalty = None
            if self._decided():
                return
        # INIT-6/7: delayed and waiting characters act at the end of the pass
        for c in sorted(self.order, key=lambda c: (-self.initiative_now(c), -c.rating, c.id)):
            if (c.delayed or c.waiting) and self._may_take_first(c):
                yield from self._act(c, first=True, final=True)
                if self._decided():
                    return

    def _interrupts(self) -> Flow:
        """INIT-6: delayed characters may act before the next one does."""
        for d in sorted(self.order, key=lambda c: (-self.initiative_now(c), -c.rating, c.id)):
            if d.delayed and self._may_take_first(d):
                yield from self._act(d, first=True, interrupt=True)
                if self._decided():
                    return

    def _extra_rounds(self) -> Flow:
        """INIT-8: second actions of everyone, then third actions, ..."""
        while True:
            ready = [
                c for c in self.order
                if self._can_decide(c) and c.acted and not c.full_defense and c.actions_left > 0
            ]
            if not ready:
                return
            ready.sort(key=lambda c: (-self.initiative_now(c), -c.rating, c.id))
            for c in ready:
                if self._can_decide(c) and c.actions_left > 0:
                    yield from self._act(c, first=False)
                    if self._decided():
                        return

    # actions
    def _action_options(self, c: Combatant, *, first: bool, interrupt: bool,
                        final: bool) -> tuple[Choice, ...]:
        opts: list[Choice] = []
        enemies = self.enemies(c)
        for t in enemies:
            for m in MANEUVERS:
                a = Action(ActionKind.ATTACK, m, t.id)
                p = self.plan(c.id, a)
                if p is not None and p.pool > 0:  # DICE-7: a pool of 0 cannot be rolled
                    opts.append(a)
            left = self.run_allowance(c) - c.moved
            if left > 0 and c.distance(t) > ADJACENT_YARDS:
                opts.append(Action(ActionKind.MOVE, target=t.id))
            if left > 0:
                opts.append(Action(ActionKind.MOVE, target=t.id, away=True))
        for i, w in enumerate(c.stats.weapons):
            if i != c.wielding and (w.cls is not WeaponClass.THROWN or c.ammo[i] > 0):
                opts.append(Action(ActionKind.DRAW, weapon=i))  # ACT-5
        w = c.weapon
        if c.wielding >= 0 and w.magazine and c.ammo[c.wielding] < w.magazine:
            opts.append(Action(ActionKind.RELOAD))  # ACT-7
        if c.prone:
            opts.append(Action(ActionKind.GET_UP))  # ACT-6
        if interrupt:
            opts.append(Action(ActionKind.DELAY))  # keep delaying
        elif first and not final:
            opts.append(Action(ActionKind.DELAY))
            opts.append(Action(ActionKind.WAIT))
        opts.append(Action(ActionKind.PASS))
        return tuple(opts)

    def _act(self, c: Combatant, *, first: bool, interrupt: bool = False,
             final: bool = False) -> Flow:
        options = self._action_options(c, first=first, interrupt=interrupt, final=final)
        choice = yield Decision(DecisionKind.ACT, c.id, options, interrupt=interrupt)
        assert isinstance(choice, Action)
        kind = choice.kind
        if kind is ActionKind.DELAY:
            if not interrupt:
                c.delayed = True
            return
        if kind is ActionKind.WAIT:
            c.waiting = True
            return
        c.delayed = c.waiting = False
        if first:
            c.acted = True
        penalty = self._use_slot(c, keep_first=False)
        if kind is ActionKind.ATTACK:
            yield from self._attack(c, choice, penalty)
        elif kind is ActionKind.MOVE:
            self._move_action(c, choice)
        elif kind is ActionKind.DRAW:
            self._ready(c, penalty, lambda: setattr(c, "wielding", choice.weapon), "draw")
        elif kind is ActionKind.RELOAD:
            self._ready(c, penalty, lambda: self._reload(c), "reload")
        elif kind is ActionKind.GET_UP:
            self._get_up(c, penalty)
        else:
            self.log.emit({"e": EventKind.ACTION, "who": c.id, "action": "pass"})

    def _use_slot(self, c: Combatant, *, keep_first: bool) -> int:
        """Spend one action; returns its ACT-1 penalty (Celerity: none, ACT-2)."""
        reserve = 1 if keep_first else 0
        if c.declared - c.declared_used - reserve >= 1:
            pen = c.declared + c.declared_used if c.declared > 1 else 0
            c.declared_used += 1
            return pen
        c.celerity_used += 1
        return 0

    def _multi(self, c: Combatant) -> bool:
        return c.declared + c.celerity > 1

    def _ready(self, c: Combatant, penalty: int, effect: Any, what: str) -> None:
        """ACT-5: no roll alone; within multiple actions Dex + skill at difficulty 4."""
        ok = True
        if self._multi(c):
            ability = "melee" if c.weapon.cls is WeaponClass.MELEE else "firearms"
            pool = c.attr("dexterity") + c.stats.ability(ability) - c.penalty - penalty
            r = roll(pool, 4, self.dice)
            log_roll(self.log, c.id, what, r)
            ok = r.successes > 0
        if ok:
            effect()
        self.log.emit({"e": EventKind.ACTION, "who": c.id, "action": what, "ok": ok,
                       "weapon": c.weapon.name})

    def _reload(self, c: Combatant) -> None:
        c.ammo[c.wielding] = c.weapon.magazine  # ACT-7, RNG-10

    def _get_up(self, c: Combatant, penalty: int) -> None:
        """ACT-6: no roll alone; within multiple actions Dex + Athletics at 4."""
        ok = True
        if self._multi(c):
            pool = c.attr("dexterity") + c.stats.ability("athletics") - c.penalty - penalty
            r = roll(pool, 4, self.dice)
            log_roll(self.log, c.id, "get_up", r)
            ok = r.successes > 0
        if ok:
            c.prone = False
        self.log.emit({"e": EventKind.ACTION, "who": c.id, "action": "get_up", "ok": ok})

    def _move_action(self, c: Combatant, a: Action) -> None:
        assert a.target is not None
        t = self.combatants[a.target]
        left = max(0.0, self.run_allowance(c) - c.moved)
        if a.away:
            self._move(c, t, -left)
        else:
            self._move(c, t, min(left, max(0.0, c.distance(t) - ADJACENT_YARDS)))

    def _move(self, c: Combatant, toward: Combatant, yards: float) -> None:
        """Move ``yards`` toward (negative: away from) another combatant."""
        if yards == 0:
            return
        d = c.distance(toward)
        if d > 0:
            ux, uy = (toward.x - c.x) / d, (toward.y - c.y) / d
        else:
            ux, uy = -1.0, 0.0
        fx, fy = c.x, c.y
        c.x = round(c.x + ux * yards, 3)
        c.y = round(c.y + uy * yards, 3)
        c.moved += abs(yards)
        self.log.emit({"e": EventKind.MOVE, "who": c.id, "from": [fx, fy], "to": [c.x, c.y],
                       "yards": round(abs(yards), 3)})

    def _attack(self, c: Combatant, a: Action, penalty: int) -> Flow:
        assert a.target is not None and a.maneuver is not None
        t = self.combatants[a.target]
        move_pen = 0
        if a.maneuver in CLOSE_MANEUVERS:
            reach = float(self.tables.maneuvers[a.maneuver].reach or 1)
            app = self.approach(c, t, reach)
            if app is not None and app[0] > 0:
                move_pen = app[1]
                self._move(c, t, app[0])
        plan = plan_attack(c, t, a.maneuver, self.tables, self.rules,
                           penalty=penalty + move_pen,
                           difficulty_mod=self.opponents_modifier(c))
        self.log.emit({"e": EventKind.ATTACK, "who": c.id, "target": t.id,
                       "maneuver": a.maneuver, "weapon": plan.weapon.name if plan else None})
        if plan is None or plan.pool <= 0 or not t.active:
            self.log.emit({"e": EventKind.MISS, "who": c.id, "target": t.id, "net": 0})
            return
        if plan.ranged and c.wielding >= 0:
            c.ammo[c.wielding] -= max(1, plan.rounds)  # RNG-10
            if plan.weapon.cls is WeaponClass.THROWN:
                c.wielding = -1
        defense, d_pen = yield from self._ask_defense(t, c, plan)
        wp = False
        if c.wp_declared and c.willpower_available(self.turn, self.rules.willpower_per_turn):
            wp = True  # DICE-8
            c.willpower -= 1
            c.wp_spent_turn = self.turn
            c.wp_declared = False
        resolve_attack(plan, c, t, defense, d_pen,
                       6 + self.opponents_modifier(t), self.rules, self._dice_for,
                       self.log, self.turn, willpower=wp)

    # defense
    def _defense_options(self, d: Combatant, plan: AttackPlan) -> tuple[Defense, ...]:
        if not self._can_decide(d):
            return (NO_DEFENSE,)
        kinds = legal_defenses(d, plan)
        if d.full_defense:  # DEF-7
            return (NO_DEFENSE,) + tuple(
                Defense(k) for k in kinds if defense_pool(d, k, d.defenses_used) > 0)
        if d.actions_left <= 0:  # DEF-2
            return (NO_DEFENSE,)
        pen = self.action_penalty(d)
        abort = not d.acted and d.actions_left - 1 < 1  # DEF-3
        if not abort and not d.acted and d.declared - d.declared_used < 2:
            pen = 0  # the spare action is a Celerity one (ACT-2)
        usable = [k for k in kinds if defense_pool(d, k, pen) > 0]
        if not abort:
            return (NO_DEFENSE,) + tuple(Defense(k) for k in usable)
        opts: list[Defense] = [NO_DEFENSE]
        wp = d.willpower_available(self.turn, self.rules.willpower_per_turn)
        for k in usable:
            opts.append(Defense(k, AbortMethod.ROLL))
            if wp:
                opts.append(Defense(k, AbortMethod.WILLPOWER))
        return tuple(opts)

    def _ask_defense(
        self, d: Combatant, attacker: Combatant, plan: AttackPlan
    ) -> Generator[Decision, Choice, tuple[DefenseKind, int]]:
        options = self._defense_options(d, plan)
        if len(options) == 1:
            return DefenseKind.NONE, 0
        choice = yield Decision(DecisionKind.DEFEND, d.id, options, attacker.id, plan.maneuver)
        assert isinstance(choice, Defense)
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
        self.log.emit({"e": EventKind.DEFENSE, "who": d.id, "kind": choice.kind.value,
                       "against": attacker.id})
        return choice.kind, pen

    def _abort(self, d: Combatant, method: AbortMethod) -> bool:
        """DEF-3: a Willpower roll at difficulty 6, or one Willpower point."""
        if method is AbortMethod.WILLPOWER:
            d.willpower -= 1
            d.wp_spent_turn = self.turn
            ok = True
        else:
            r = roll(d.stats.willpower, self.rules.abort_difficulty, self.dice)
            log_roll(self.log, d.id, "abort", r)
            ok = r.successes > 0
        self.log.emit({"e": EventKind.ABORT, "who": d.id, "method": method.value, "ok": ok})
        return ok
