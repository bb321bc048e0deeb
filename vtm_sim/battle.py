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
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np

from vtm_sim.attack import (
    BASE_DIFFICULTY,
    CLOSE_MANEUVERS,
    SHOOTING,
    AttackOutcome,
    AttackPlan,
    Situation,
    attack_numbers,
    defense_pool,
    hand_weapon,
    legal_defenses,
    maneuver_weapon,
    plan_attack,
    reach_of,
    resolve_attack,
    roll_attack,
)
from vtm_sim.blood import blood_options, spend_blood
from vtm_sim.choices import (
    NO_DEFENSE,
    AbortMethod,
    Action,
    ActionKind,
    BloodSpend,
    CalledShot,
    Choice,
    Decision,
    DecisionKind,
    Declaration,
    Defense,
    DefenseKind,
)
from vtm_sim.combatant import Combatant
from vtm_sim.dice import DiceSource, RngDice, roll
from vtm_sim.effects import Effects
from vtm_sim.errors import IllegalActionError
from vtm_sim.events import EventKind, EventLog
from vtm_sim.movement import approach_cost, burden, run_allowance, walk_speed
from vtm_sim.rules import RuleSet, load_rules
from vtm_sim.space import OPEN_FIELD, CoverLevel, CoverZone, Field, Lighting, Wall
from vtm_sim.stats import StatBlock
from vtm_sim.tables import ManeuverSpec, Tables, Weapon, WeaponClass, load_tables

LOG_VERSION = 1
# Every attack maneuver, in a fixed order (environments build their action space on it).
MANEUVERS = (
    "punch", "kick", "weapon_strike", "sweep", "tackle", "clinch", "hold", "bite", "kiss",
    "disarm", "claws", "single_shot", "burst", "full_auto", "spray", "thrown",
)
ENGAGE_YARDS = 2.0  # ATK-8: an enemy this close is engaging the character
ADJACENT_YARDS = 1.0
CACHE_LIMIT = 256  # entries in a battle's memo of usable maneuvers
REACH_SLACK = 0.01  # positions are rounded to 1/1000 yard: this close counts as in reach
DODGE_YARDS = 1.0  # DEF-5: room a dodge under fire needs to reach cover
SPRAY_DODGE = 1  # RNG-6: dodging autofire spray is +1 difficulty
FLANK_COS = 0.5  # ATK-7: within 60 degrees of facing is the front, beyond 120 behind
GRAPPLE_MANEUVERS = frozenset({"bite", "kiss"})  # MAN-6/7: all a grappler may attack with
HAND_MANEUVERS = frozenset({"weapon_strike", "disarm", "single_shot", "burst", "thrown"})
CALLABLE = frozenset({"punch", "kick", "weapon_strike", "claws", "single_shot", "burst",
                      "thrown"})  # RNG-8: no called shot with full auto or spray

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
        "cramped": field.cramped,
        "cover": [[z.name, z.x, z.y, z.radius, z.level.value] for z in field.cover],
        "walls": [[w.x1, w.y1, w.x2, w.y2] for w in field.walls],
    }


def field_from_json(data: dict[str, Any]) -> Field:
    return Field(
        tuple(CoverZone(n, x, y, r, CoverLevel(lv)) for n, x, y, r, lv in data["cover"]),
        tuple(Wall(*w) for w in data["walls"]),
        Lighting(data["lighting"]),
        bool(data.get("cramped", False)),
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
    if stats.carrying:
        d["carrying"] = stats.carrying
    return d


class Battle(Effects):
    """One fight from the first initiative roll to the end.

    Args:
        fighters: the combatants, their sides and starting positions (yards).
        seed: seeds the dice when ``dice`` is not given; recorded in the log.
        dice: where every die comes from (DICE-9); default a seeded RngDice.
        rules: the rules profile (default v20).
        turn_limit: the battle ends undecided after this many turns.
        field: cover, walls and lighting (default an open, lit field).
        ambush: (attacker, target) pairs that try ATK-11 before the first turn.
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
        self.dice = dice if dice is not None else RngDice(np.random.default_rng(seed))
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
        for c in self.combatants:
            self._face_nearest(c)
        self.log = EventLog()
        self.turn = 0
        self.winner: int | None = None
        self.over = False
        self.end_reason = ""
        self.order: list[Combatant] = []
        self._surprise: tuple[int, int, int, bool] | None = None  # ATK-11 free attack
        # what the pending ACT options' plans are made of (built on demand)
        self._plans: dict[Action, tuple[int, str, bool, int, float | None, Situation, Weapon]] = {}
        self._plans_for = -1
        self._action_cache: dict[tuple[str, int, bool], tuple[Action, ...]] = {}
        self._candidate_cache: dict[tuple[object, ...], list[
            tuple[str, ManeuverSpec, bool, bool, Weapon]]] = {}
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
                f"{self.combatants[decision.actor].name} cannot choose {choice.to_json()} "
                f"at this {decision.kind.value} decision"
            )
        self.log.emit({"e": EventKind.DECIDE, "who": decision.actor,
                       "kind": decision.kind.value, "choice": choice.to_json()})
        self._plans_for = -1
        self._plans.clear()
        try:
            self.pending = self._flow.send(choice)
        except StopIteration:
            self.pending = None
        return self.pending

    # --- queries ---------------------------------------------------------
    def able(self, c: Combatant) -> bool:
        """Still fighting: active and not paralyzed by a stake (CPX-5)."""
        return c.active and not c.staked

    def enemies(self, c: Combatant) -> list[Combatant]:
        return [o for o in self.combatants if o.side != c.side and o.active]

    def initiative_now(self, c: Combatant) -> int:
        """INIT-4: the rolled total less the wound penalty taken so far."""
        return c.initiative - c.health.penalty

    def run_allowance(self, c: Combatant) -> float:
        """MOVE-1, DMG-9, MOVE-2: the farthest this character can move this turn."""
        return run_allowance(c, self.tables)

    def opponents_modifier(self, c: Combatant) -> int:
        """ATK-8: +1 difficulty per engaging opponent after the first, capped."""
        n = sum(1 for o in self.enemies(c)
                if c.distance(o) <= ENGAGE_YARDS + REACH_SLACK and self.able(o))
        return min(self.rules.multiple_opponents_cap, max(0, n - 1))

    def action_penalty(self, c: Combatant) -> int:
        """ACT-1/ACT-2: the multiple-action penalty of this character's next action."""
        if c.declared - c.declared_used >= 1:
            return c.declared + c.declared_used if c.declared > 1 else 0
        return 0

    def approach(self, c: Combatant, target: Combatant, reach: float) -> tuple[float, int] | None:
        """ACT-4: yards to close for ``reach`` and the dice it costs, None if too far."""
        need = max(0.0, c.distance(target) - reach)
        if need <= REACH_SLACK:
            return 0.0, 0
        if c.prone or c.grappling:
            return None
        cost = approach_cost(c.moved, need, self.run_allowance(c))
        return None if cost is None else (need, cost)

    def cover_of(self, c: Combatant, against: Combatant) -> CoverLevel:
        """RNG-1: cover from a zone the attacker is not in, or light cover when prone."""
        zone = self.field.cover_at(c.x, c.y)
        level = CoverLevel.NONE
        if zone is not None and not zone.contains(against.x, against.y):
            level = zone.level
        if c.prone and level.value < CoverLevel.LIGHT.value:
            level = CoverLevel.LIGHT
        return level

    def physical_difficulty(self, c: Combatant) -> int:
        """CPX-1: a blinded character's actions +2; MOVE-2: a heavy burden +1."""
        return (2 if c.blinded else 0) + (burden(c)[0] if c.stats.carrying else 0)

    def sees_in_dark(self, c: Combatant) -> bool:
        """ATK-10: Heightened Senses (Auspex 1) or Eyes of the Beast (Protean 1)."""
        d = c.stats.discipline
        return d("auspex") >= 1 or d("protean") >= 1

    def situation(self, c: Combatant, t: Combatant, maneuver: str,
                  offhand: bool = False) -> Situation | None:
        """Battlefield and state modifiers for ``c`` attacking ``t`` (None: impossible)."""
        close = maneuver in CLOSE_MANEUVERS
        base = self._base_situation(c, t, close, offhand)
        if base is None or not close:
            return base
        return self._with_length(base, c, t, maneuver, offhand)

    def _base_situation(self, c: Combatant, t: Combatant, close: bool,
                        offhand: bool) -> Situation | None:
        dice = 0
        diff = self.opponents_modifier(c)  # ATK-8
        if c.off_balance_turn == self.turn:
            diff += 1  # MAN-5
        if c.stats.carrying:
            diff += burden(c)[0]  # MOVE-2
        dark = self.field.lighting is Lighting.DARK and not self.sees_in_dark(c)
        if c.blinded or dark:
            if not close:
                return None  # ATK-10: firing blind is not possible
            diff += 2  # ATK-10, CPX-1
        if t.blinded:
            dice += 2  # CPX-1
        auto = t.staked  # CPX-3: completely immobilized
        if not auto and (t.held_by >= 0 or t.fed_on_by >= 0):
            dice += 2  # CPX-3: held and struggling
        if close:
            dice += flank_bonus(c, t)  # ATK-7
        else:
            if self.field.walls and not self.field.line_of_sight(c.x, c.y, t.x, t.y):
                return None  # ATK-2
            if self.field.cover or c.prone or t.prone:
                diff += self.cover_of(t, c).value + self.cover_of(c, t).shooter_penalty  # RNG-1
            if c.aim_target == t.id and c.aim_dice > 0 and c.aim_turn >= self.turn - 1:
                w, _ = hand_weapon(c, offhand)
                dice += c.aim_dice + (2 if w.scope else 0)  # RNG-7
        if self._surprise is not None and self._surprise[:2] == (c.id, t.id):
            dice += self._surprise[2]  # ATK-11
        return Situation(dice, diff, auto)

    def _with_length(self, base: Situation, c: Combatant, t: Combatant, maneuver: str,
                     offhand: bool) -> Situation:
        """ATK-9: held off by a longer weapon, one die less."""
        tw, _ = hand_weapon(t, False)
        if tw.cls is WeaponClass.MELEE:
            mine = maneuver_weapon(c, maneuver, self.tables.maneuvers[maneuver], offhand)
            if mine is not None and tw.length > mine.length:
                return Situation(base.dice - 1, base.difficulty, base.auto_hit)
        return base

    def plan(self, actor: int, action: Action) -> AttackPlan | None:
        """The pool and difficulty an ATTACK action would roll now."""
        if self._plans_for == actor and action.called is None and action in self._plans:
            t_id, m, off, pen, dist, sit, weapon = self._plans[action]
            c = self.combatants[actor]
            return plan_attack(c, self.combatants[t_id], m, self.tables, self.rules,
                               penalty=pen, distance=dist, situation=sit, offhand=off,
                               weapon=weapon)
        if action.kind is not ActionKind.ATTACK or action.maneuver is None:
            return None
        if action.target is None:
            return None
        c, t = self.combatants[actor], self.combatants[action.target]
        move_pen, dist = 0, None
        if action.maneuver in CLOSE_MANEUVERS:
            if c.prone:
                return None
            reach = reach_of(self.tables.maneuvers[action.maneuver])
            app = self.approach(c, t, reach)
            if app is None:
                return None
            move_pen = app[1]
            dist = min(c.distance(t), reach)
        situation = self.situation(c, t, action.maneuver, action.offhand)
        if situation is None:
            return None
        return plan_attack(
            c, t, action.maneuver, self.tables, self.rules,
            penalty=self.action_penalty(c) + move_pen, distance=dist, situation=situation,
            called=action.called, offhand=action.offhand,
        )

    # --- the turn sequence -------------------------------------------------
    def _run(self) -> Flow:
        if self.ambush:
            yield from self._ambushes()
        while not self._decided():
            if self.turn >= self.turn_limit:
                self._finish("turn limit")
                return
            self.turn += 1
            self.log.emit({"e": EventKind.TURN, "turn": self.turn})
            self._roll_initiative()
            for c in reversed(self.order):  # INIT-5: slowest declares first
                if not self._can_decide(c):
                    continue
                options = blood_options(c)
                if len(options) > 1:  # VAMP-2: reflexive, before declaring (004)
                    spend = yield Decision(DecisionKind.BLOOD, c.id, options)
                    assert isinstance(spend, BloodSpend)
                    self._spend_blood(c, spend)
                decl = yield Decision(DecisionKind.DECLARE, c.id, self._declare_options(c))
                assert isinstance(decl, Declaration)
                self._apply_declaration(c, decl)
            yield from self._first_pass()
            if not self._decided():
                yield from self._extra_rounds()
        self._finish("victory")

    def _decided(self) -> bool:
        return len({c.side for c in self.combatants if self.able(c)}) <= 1

    def _finish(self, reason: str) -> None:
        sides = {c.side for c in self.combatants if self.able(c)}
        self.winner = next(iter(sides)) if len(sides) == 1 else None
        if reason == "victory" and not sides:
            reason = "all down"
        self.over = True
        self.end_reason = reason
        self.log.emit({"e": EventKind.END, "winner": self.winner, "turns": self.turn,
                       "reason": reason})

    def _can_decide(self, c: Combatant) -> bool:
        return self.able(c) and not c.stunned(self.turn)  # CPX-2, CPX-5

    def _roll_initiative(self) -> None:
        """INIT-2/3/4: 1d10 + Dexterity + Wits - wounds; ties by rating."""
        for c in self.combatants:
            c.reset_turn()
            if not self.able(c):
                continue
            r = roll(1, 2, self.dice, damage=True)
            c.initiative = c.rating + r.faces[0]  # wounds come off when read (INIT-4)
            if c.init_penalty_turn == self.turn:
                c.initiative -= 2  # CPX-4
            self.log.emit({"e": EventKind.INITIATIVE, "who": c.id, "die": r.faces[0],
                           "rating": c.rating, "penalty": c.health.penalty,
                           "total": self.initiative_now(c)})
        self.order = sorted(
            (c for c in self.combatants if self.able(c)),
            key=lambda c: (-self.initiative_now(c), -c.rating, c.id),
        )
        self.log.emit({"e": EventKind.ORDER, "order": [c.id for c in self.order]})

    def _spend_blood(self, c: Combatant, spend: BloodSpend) -> None:
        healed = spend_blood(c, spend)
        self.log.emit({"e": EventKind.ACTION, "who": c.id, "action": "blood",
                       "use": spend.use.value, "points": spend.points, "healed": healed,
                       "blood": c.blood, "track": c.health.marks()})

    def _declare_options(self, c: Combatant) -> tuple[Choice, ...]:
        celerity = 0
        if c.stats.blood_pool and not c.staked:
            celerity = min(c.stats.discipline("celerity"), c.blood)  # VAMP-3
        wp = c.willpower_available(self.turn, self.rules.willpower_per_turn)
        return declarations(self.rules.max_actions, celerity, wp, not c.grappling)

    def _apply_declaration(self, c: Combatant, d: Declaration) -> None:
        c.full_defense = d.full_defense
        c.declared = 0 if d.full_defense else d.actions
        c.wp_declared = d.willpower
        if d.celerity:
            c.celerity = d.celerity
            c.blood -= d.celerity  # VAMP-3: one blood per extra action, any generation

    # first actions, in initiative order with delays and waits
    def _may_take_first(self, c: Combatant) -> bool:
        return (
            self._can_decide(c) and not c.full_defense and not c.acted
            and c.declared - c.declared_used >= 1
        )

    def _by_initiative(self, cs: Sequence[Combatant]) -> list[Combatant]:
        return sorted(cs, key=lambda c: (-self.initiative_now(c), -c.rating, c.id))

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
                if c.acted or c.staked or (not simultaneous and not self._may_take_first(c)):
                    continue
                yield from self._act(c, first=True)
            for c in group:
                c.sim_penalty = None
            if self._decided():
                return
        # INIT-7: if everyone waited, nobody acts this turn
        able = [c for c in self.order if self._can_decide(c)]
        if able and all(c.waiting for c in able):
            return
        # INIT-6/7: delayed and waiting characters act at the end of the pass
        for c in self._by_initiative(self.order):
            if (c.delayed or c.waiting) and self._may_take_first(c):
                yield from self._act(c, first=True, final=True)
                if self._decided():
                    return

    def _interrupts(self) -> Flow:
        """INIT-6: delayed characters may act before the next one does."""
        for d in self._by_initiative(self.order):
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
            for c in self._by_initiative(ready):
                if self._can_decide(c) and c.actions_left > 0:
                    yield from self._act(c, first=False)
                    if self._decided():
                        return

    def _ambushes(self) -> Flow:
        """ATK-11: Dexterity + Stealth against Perception + Alertness before combat."""
        for ai, ti in self.ambush:
            a, t = self.combatants[ai], self.combatants[ti]
            if not (self.able(a) and self.able(t)):
                continue
            ra = self.roll_logged(a.id, "stealth", a.attr("dexterity") + a.stats.ability(
                "stealth") - a.penalty - a.armor_penalty, 6)
            rt = self.roll_logged(t.id, "notice",
                                  t.attr("perception") + t.stats.ability("alertness"), 6)
            diff = ra.successes - rt.successes
            self.say(a.id, "ambush", target=t.id, margin=diff)
            if diff < 0:
                continue  # the target notices: normal initiative
            self._surprise = (a.id, t.id, diff, diff > 0)
            opts = [o for o in self._action_options(a, first=False, interrupt=False,
                                                    final=True)
                    if isinstance(o, Action) and (
                        (o.kind is ActionKind.ATTACK and o.target == t.id)
                        or o.kind is ActionKind.PASS)]
            choice = yield Decision(DecisionKind.ACT, a.id, tuple(opts))
            assert isinstance(choice, Action)
            if choice.kind is ActionKind.ATTACK:
                yield from self._attack(a, choice, 0)
            self._surprise = None
            a.moved = 0.0

    # actions
    def _attack_options(self, c: Combatant, opts: list[Choice]) -> None:
        hands = [False, True] if c.offhand >= 0 and not c.lost[c.offhand] else [False]
        penalty = self.action_penalty(c)
        self._plans.clear()
        self._plans_for = c.id
        candidates = self._candidates(c, hands)
        if not candidates:
            return
        rules = self.rules
        for t in self.enemies(c):
            bases: dict[tuple[bool, bool], Situation | None] = {}
            approaches: dict[float, tuple[float, int] | None] = {}
            bite = self._may_bite(c, t)
            tw = hand_weapon(t, False)[0]
            longer = tw.length if tw.cls is WeaponClass.MELEE else -1
            for m, spec, off, close, w in candidates:
                if m in GRAPPLE_MANEUVERS and not bite:
                    continue
                move_pen = 0
                if close:
                    reach = reach_of(spec)
                    if reach not in approaches:
                        approaches[reach] = self.approach(c, t, reach)
                    app = approaches[reach]
                    if app is None:
                        continue
                    move_pen = app[1]
                    dist = min(c.distance(t), reach)
                else:
                    dist = c.distance(t)
                key = (close, off)
                if key not in bases:
                    bases[key] = self._base_situation(c, t, close, off)
                sit = bases[key]
                if sit is None:
                    continue
                if close and longer > w.length:
                    sit = Situation(sit.dice - 1, sit.difficulty, sit.auto_hit)  # ATK-9
                nums = attack_numbers(c, m, spec, w, rules, sit, dist,
                                      penalty=penalty + move_pen, offhand=off)
                if nums is None or nums[0] <= 0:  # DICE-7: a pool of 0 cannot be rolled
                    continue
                variants = self._attack_actions(m, t.id, off)
                opts.extend(variants)
                self._plans[variants[0]] = (t.id, m, off, penalty + move_pen,
                                            dist if close else None, sit, w)

    def _attack_actions(self, m: str, target: int, off: bool) -> tuple[Action, ...]:
        """The ATTACK choices for one maneuver and target: plain, then called shots."""
        key = (m, target, off)
        got = self._action_cache.get(key)
        if got is None:
            plain = Action(ActionKind.ATTACK, m, target, offhand=off)
            got = (plain,) + (tuple(
                Action(ActionKind.ATTACK, m, target, called=k, offhand=off) for k in CalledShot
            ) if m in CALLABLE else ())
            self._action_cache[key] = got
        return got

    def _candidates(self, c: Combatant, hands: list[bool]) -> list[
        tuple[str, ManeuverSpec, bool, bool, Weapon]
    ]:
        """Maneuvers ``c`` could use on anyone now (weapon, stance, rate of fire)."""
        key = (c.id, c.wielding, c.offhand, tuple(c.jammed), tuple(c.lost), c.prone,
               c.grappling, tuple(sorted(c.shots.items())), c.claws_out, c.blood > 0)
        got = self._candidate_cache.get(key)
        if got is not None:
            return got
        out: list[tuple[str, ManeuverSpec, bool, bool, Weapon]] = []
        for m in MANEUVERS:
            spec = self.tables.maneuvers.get(m)
            if spec is None:
                continue
            close = m in CLOSE_MANEUVERS
            if (close and c.prone) or (c.grappling and m not in GRAPPLE_MANEUVERS):
                continue
            for off in hands:
                if off and m not in HAND_MANEUVERS:
                    continue
                w = maneuver_weapon(c, m, spec, off)
                if w is None:
                    continue
                if not close and not self._rate_allows(c, m, off):
                    continue
                out.append((m, spec, off, close, w))
        if len(self._candidate_cache) > CACHE_LIMIT:
            self._candidate_cache.clear()
        self._candidate_cache[key] = out
        return out

    def _clinch_began(self, c: Combatant) -> int:
        partner = self.combatants[c.clinch_with]
        return max(c.grapple_turn.get(partner.id, -1), partner.grapple_turn.get(c.id, -1))

    def _may_bite(self, c: Combatant, t: Combatant) -> bool:
        """MAN-8: after a successful clinch, hold or tackle, in a following turn."""
        since = c.grapple_turn.get(t.id)
        if since is None or since >= self.turn or not c.vampire:
            return False
        return (
            c.clinch_with == t.id or c.holding == t.id
            or (since == self.turn - 1 and c.distance(t) <= ADJACENT_YARDS + REACH_SLACK)
        )

    def _rate_allows(self, c: Combatant, maneuver: str, offhand: bool) -> bool:
        """RNG-4: shots a turn up to the weapon's rate (RNG-9: each weapon's)."""
        w, idx = hand_weapon(c, offhand)
        if idx < 0:
            return maneuver != "thrown"
        return c.shots.get(idx, 0) < w.rate

    def _action_options(self, c: Combatant, *, first: bool, interrupt: bool,
                        final: bool) -> tuple[Choice, ...]:
        opts: list[Choice] = []
        passive = Action(ActionKind.PASS)
        if c.fed_on_by >= 0:
            return (passive,)  # MAN-9: the victim can do nothing
        if c.feeding_on >= 0:
            if c.drunk < self.tables.feeding.feed_per_turn:  # MAN-9: 3 a turn
                return (Action(ActionKind.FEED, target=c.feeding_on),
                        Action(ActionKind.RELEASE), passive)
            return (Action(ActionKind.RELEASE), passive)
        if c.held_by >= 0:  # MAN-7
            if c.grappled_turn == self.turn:
                return (passive,)
            return (Action(ActionKind.BREAK_FREE, target=c.held_by), passive)
        if c.clinch_with >= 0:  # MAN-6: strike, break free, bite: nothing else
            if c.grappled_turn != self.turn and self._clinch_began(c) < self.turn:
                # MAN-6: once a turn, from the turn after the clinch began
                opts = [Action(ActionKind.CRUSH, target=c.clinch_with),
                        Action(ActionKind.BREAK_FREE, target=c.clinch_with)]
            self._attack_options(c, opts)
            opts.append(passive)
            return tuple(opts)
        if c.holding >= 0:
            self._attack_options(c, opts)
            opts.extend((Action(ActionKind.RELEASE), passive))
            return tuple(opts)
        self._attack_options(c, opts)
        left = self.run_allowance(c) - c.moved
        if not c.prone and left > 0:
            for t in self.enemies(c):
                if c.distance(t) > ADJACENT_YARDS + REACH_SLACK:
                    opts.append(Action(ActionKind.MOVE, target=t.id))
                opts.append(Action(ActionKind.MOVE, target=t.id, away=True))
            zone = self.field.nearest_cover(c.x, c.y, left)
            if zone is not None and self.field.cover_at(c.x, c.y) is None:
                opts.append(Action(ActionKind.TAKE_COVER))
        if first and not final and c.declared == 1 and not c.celerity:
            w, idx = hand_weapon(c, False)
            skill = "archery" if w.cls in (WeaponClass.BOW, WeaponClass.CROSSBOW) else "firearms"
            if idx >= 0 and w.cls in SHOOTING and not c.jammed[idx] and (
                c.stats.ability(skill) >= 1
            ):
                walk = walk_speed(self.tables)
                for t in self.enemies(c):
                    if t.moved <= walk and self.plan(
                        c.id, Action(ActionKind.ATTACK, "single_shot", t.id)
                    ) is not None:
                        opts.append(Action(ActionKind.AIM, target=t.id))  # RNG-7
        for i in range(len(c.stats.weapons)):
            if i != c.wielding and i != c.offhand and not c.lost[i]:
                opts.append(Action(ActionKind.DRAW, weapon=i))  # ACT-5
        w, idx = hand_weapon(c, False)
        if idx >= 0 and c.jammed[idx]:
            opts.append(Action(ActionKind.CLEAR))  # CPX-6
        elif idx >= 0 and w.magazine and w.cls not in (WeaponClass.THROWN, WeaponClass.BOW) and (
            c.ammo[idx] < w.magazine
        ):
            opts.append(Action(ActionKind.RELOAD))  # ACT-7 (a bow's quiver is its supply)
        if c.prone:
            opts.append(Action(ActionKind.GET_UP))  # ACT-6
        else:
            opts.append(Action(ActionKind.DROP_PRONE))
        if interrupt:
            opts.append(Action(ActionKind.DELAY))  # keep delaying
        elif first and not final:
            opts.append(Action(ActionKind.DELAY))
            opts.append(Action(ActionKind.WAIT))
        opts.append(passive)
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
        if kind is not ActionKind.AIM and not (
            kind is ActionKind.ATTACK and choice.target == c.aim_target
        ):
            c.aim_dice = 0  # RNG-7: aiming allows nothing else
            c.aim_target = -1
        if kind is ActionKind.ATTACK:
            yield from self._attack(c, choice, penalty)
        elif kind is ActionKind.MOVE:
            self._move_action(c, choice)
        elif kind is ActionKind.DRAW:
            drawn = c.stats.weapons[choice.weapon] if choice.weapon is not None else None
            self._ready(c, penalty, lambda: setattr(c, "wielding", choice.weapon), "draw",
                        drawn)
        elif kind is ActionKind.RELOAD:
            self._ready(c, penalty, lambda: self._reload(c), "reload")
        elif kind is ActionKind.CLEAR:
            self._ready(c, penalty, lambda: self._clear(c), "clear")
        elif kind is ActionKind.GET_UP:
            self._get_up(c, penalty)
        elif kind is ActionKind.AIM:
            self._aim(c, choice)
        elif kind is ActionKind.TAKE_COVER:
            self._take_cover(c)
        elif kind is ActionKind.DROP_PRONE:
            c.prone = True
            self.say(c.id, "drop_prone")
        elif kind is ActionKind.CRUSH:
            c.grappled_turn = self.turn
            self.crush(c)
        elif kind is ActionKind.BREAK_FREE:
            c.grappled_turn = self.turn
            self.break_free(c)
        elif kind is ActionKind.RELEASE:
            self.release(c)
        elif kind is ActionKind.FEED:
            self.drink(c)
        else:
            self.say(c.id, "pass")
        self._drop_grapples_of_the_fallen()

    def _drop_grapples_of_the_fallen(self) -> None:
        """A grapple ends when either side is out of the fight or staked."""
        for o in self.combatants:
            if o.grappling and not self.able(o):
                self.end_grapples(o)

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

    def _ready(self, c: Combatant, penalty: int, effect: Callable[[], None], what: str,
               weapon: Weapon | None = None) -> None:
        """ACT-5: no roll alone; within multiple actions Dex + skill at difficulty 4.

        The skill is the one of ``weapon`` (the weapon being drawn), else of the
        weapon in hand (reload, clear)."""
        ok = True
        if self._multi(c):
            w = weapon if weapon is not None else hand_weapon(c, False)[0]
            ability = "melee" if w.cls is WeaponClass.MELEE else "firearms"
            if w.cls in (WeaponClass.BOW, WeaponClass.CROSSBOW):
                ability = "archery"  # ATK-2
            elif w.cls is WeaponClass.THROWN:
                ability = "athletics"  # ATK-2
            pool = (c.attr("dexterity") + c.stats.ability(ability) - c.penalty - penalty
                    - c.armor_penalty)  # SOAK-4
            ok = self.roll_logged(c.id, what, pool, 4 + self.physical_difficulty(c)).successes > 0
        if ok:
            effect()
        self.say(c.id, what, ok=ok, weapon=hand_weapon(c, False)[0].name)

    def _reload(self, c: Combatant) -> None:
        c.ammo[c.wielding] = c.stats.weapons[c.wielding].magazine  # ACT-7, RNG-10

    def _clear(self, c: Combatant) -> None:
        c.jammed[c.wielding] = False  # CPX-6

    def _get_up(self, c: Combatant, penalty: int) -> None:
        """ACT-6: no roll alone; within multiple actions Dex + Athletics at 4."""
        ok = True
        if self._multi(c):
            pool = (c.attr("dexterity") + c.stats.ability("athletics") - c.penalty - penalty
                    - c.armor_penalty)
            diff = 4 + self.physical_difficulty(c)
            ok = self.roll_logged(c.id, "get_up", pool, diff).successes > 0
        if ok:
            c.prone = False
        self.say(c.id, "get_up", ok=ok)

    def _aim(self, c: Combatant, a: Action) -> None:
        """RNG-7: +1 die a full turn spent aiming, up to Perception."""
        assert a.target is not None
        if c.aim_target == a.target and c.aim_turn == self.turn - 1:
            c.aim_dice = min(c.attr("perception"), c.aim_dice + 1)
        else:
            c.aim_dice = 1
        c.aim_target = a.target
        c.aim_turn = self.turn
        self.say(c.id, "aim", target=a.target, dice=c.aim_dice)

    def _take_cover(self, c: Combatant) -> None:
        left = max(0.0, self.run_allowance(c) - c.moved)
        zone = self.field.nearest_cover(c.x, c.y, left)
        if zone is not None:
            self._move_to(c, zone.x, zone.y, min(left, math.hypot(zone.x - c.x, zone.y - c.y)))
            self.say(c.id, "take_cover", cover=zone.name)

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
        self._step(c, ux, uy, yards)
        c.facing = (ux, uy)

    def _move_to(self, c: Combatant, x: float, y: float, yards: float) -> None:
        d = math.hypot(x - c.x, y - c.y)
        if d <= 1e-9:
            return
        self._step(c, (x - c.x) / d, (y - c.y) / d, min(yards, d))

    def _step(self, c: Combatant, ux: float, uy: float, yards: float) -> None:
        fx, fy = c.x, c.y
        c.x = round(c.x + ux * yards, 3)
        c.y = round(c.y + uy * yards, 3)
        c.moved += abs(yards)
        self.log.emit({"e": EventKind.MOVE, "who": c.id, "from": [fx, fy], "to": [c.x, c.y],
                       "yards": round(abs(yards), 3)})

    def _face_nearest(self, c: Combatant) -> None:
        foes = [o for o in self.combatants if o.side != c.side]
        if foes:
            t = min(foes, key=lambda o: (c.distance(o), o.id))
            self._face(c, t)

    def _face(self, c: Combatant, t: Combatant) -> None:
        d = c.distance(t)
        if d > 0:
            c.facing = ((t.x - c.x) / d, (t.y - c.y) / d)

    # attacks
    def _attack(self, c: Combatant, a: Action, penalty: int) -> Flow:
        assert a.target is not None and a.maneuver is not None
        t = self.combatants[a.target]
        m = a.maneuver
        move_pen = 0
        if m in CLOSE_MANEUVERS:
            app = self.approach(c, t, reach_of(self.tables.maneuvers[m]))
            if app is not None and app[0] > 0:
                move_pen = app[1]
                self._move(c, t, app[0])
        sit = self.situation(c, t, m, a.offhand)
        plan = None if sit is None else plan_attack(
            c, t, m, self.tables, self.rules, penalty=penalty + move_pen, situation=sit,
            called=a.called, offhand=a.offhand)
        ev: dict[str, Any] = {"e": EventKind.ATTACK, "who": c.id, "target": t.id,
                              "maneuver": m, "weapon": plan.weapon.name if plan else None}
        if a.called is not None:
            ev["called"] = a.called.value
        if a.offhand:
            ev["offhand"] = True
        self.log.emit(ev)
        self._face(c, t)
        if plan is None or plan.pool <= 0 or not t.active:
            self.log.emit({"e": EventKind.MISS, "who": c.id, "target": t.id, "net": 0})
            return
        self._spend_ammo(c, plan, a.offhand)
        wp = self._use_willpower(c)
        if m == "spray":
            yield from self._spray(c, t, plan, wp)
            return
        no_defense = self._surprise is not None and self._surprise[3]  # ATK-11
        defense, d_pen = (DefenseKind.NONE, 0) if no_defense else (
            yield from self._ask_defense(t, c, plan))
        atk = roll_attack(plan, c, self.rules, self._dice_for, self.log, willpower=wp)
        if plan.ranged:
            c.aim_dice = 0
            c.aim_target = -1
        if atk.botch and not plan.auto_hit:
            self.log.emit({"e": EventKind.MISS, "who": c.id, "target": t.id, "net": 0})
            self.mishap(c, plan, t)  # ATK-4, DICE-4, CPX-6
            return
        d_diff = BASE_DIFFICULTY + self.opponents_modifier(t) + self.physical_difficulty(t)
        out = resolve_attack(plan, c, t, defense, d_pen, d_diff, self.rules, self._dice_for,
                             self.log, self.turn, attack_roll=atk)
        if defense is DefenseKind.DODGE and plan.ranged:
            self._dodge_to_cover(t)
        if out.hit:
            self._after_hit(c, t, plan, out)

    def _after_hit(self, c: Combatant, t: Combatant, plan: AttackPlan,
                   out: AttackOutcome) -> None:
        effect = plan.effect
        if effect == "knockdown":
            self.sweep_effect(t)
        elif effect == "tackle":
            self.tackle_effect(c, t)
        elif effect == "clinch":
            self.start_clinch(c, t)
        elif effect == "hold":
            self.start_hold(c, t)
        elif effect == "feed" and t.active:
            self.start_feeding(c, t)
        self.check_stake(plan, t, out)

    def _spend_ammo(self, c: Combatant, plan: AttackPlan, offhand: bool) -> None:
        """RNG-10: rounds spent; a thrown weapon leaves the hand."""
        _, idx = hand_weapon(c, offhand)
        if not plan.ranged or idx < 0:
            return
        c.shots[idx] = c.shots.get(idx, 0) + 1
        c.ammo[idx] -= plan.rounds
        if plan.weapon.cls is WeaponClass.THROWN:
            c.lost[idx] = True
            if c.wielding == idx:
                c.wielding = -1
            if c.offhand == idx:
                c.offhand = -1
        self.log.emit({"e": EventKind.AMMO, "who": c.id, "weapon": plan.weapon.name,
                       "spent": plan.rounds, "left": c.ammo[idx]})

    def _use_willpower(self, c: Combatant) -> bool:
        if c.wp_declared and c.willpower_available(self.turn, self.rules.willpower_per_turn):
            c.spend_willpower(self.turn)  # DICE-8
            c.wp_declared = False
            return True
        return False

    def _spray(self, c: Combatant, center: Combatant, plan: AttackPlan, wp: bool) -> Flow:
        """RNG-6: one roll over an area 3 yards wide; successes split among targets."""
        half = plan.area / 2
        targets = sorted(
            (o for o in self.combatants
             if o.id != c.id and o.active and center.distance(o) <= half + 1e-9),
            key=lambda o: (o.id != center.id, center.distance(o), o.id),
        )
        defenses: list[tuple[DefenseKind, int]] = []
        for t in targets:
            defenses.append((yield from self._ask_defense(t, c, plan)))
        atk = roll_attack(plan, c, self.rules, self._dice_for, self.log, willpower=wp)
        if atk.botch:
            self.mishap(c, plan, center)
            return
        s, n = atk.successes, len(targets)
        if n == 1:
            shares = [s // 2]  # a lone target gets half
        elif s < n:
            shares = [1] * s + [0] * (n - s)
        else:
            q, r = divmod(s, n)
            shares = [q + r] + [q] * (n - 1)  # the remainder goes where the shooter aims
        self.say(c.id, "spray", targets=[t.id for t in targets], shares=shares)
        for t, share, (defense, d_pen) in zip(targets, shares, defenses, strict=True):
            d_diff = (BASE_DIFFICULTY + self.opponents_modifier(t) + SPRAY_DODGE
                      + self.physical_difficulty(t))
            out = resolve_attack(plan, c, t, defense, d_pen, d_diff, self.rules,
                                 self._dice_for, self.log, self.turn, attack_roll=atk,
                                 successes=share, spray=True)
            if defense is DefenseKind.DODGE:
                self._dodge_to_cover(t)
            if out.hit:
                self.check_stake(plan, t, out)

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
        if plan.maneuver == "spray":
            kinds = [k for k in kinds if k is DefenseKind.DODGE]
        if d.full_defense:  # DEF-7
            return (NO_DEFENSE,) + tuple(
                Defense(k) for k in kinds if defense_pool(d, k, d.defenses_used) > 0)
        if self._surprise is not None and self._surprise[1] == d.id:
            # ATK-11 tie: the target has declared nothing and may simply defend
            return (NO_DEFENSE,) + tuple(Defense(k) for k in kinds if defense_pool(d, k, 0) > 0)
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
            d.spend_willpower(self.turn)
            ok = True
        else:
            r = self.roll_logged(d.id, "abort", d.stats.willpower, self.rules.abort_difficulty)
            ok = r.successes > 0
        self.log.emit({"e": EventKind.ABORT, "who": d.id, "method": method.value, "ok": ok})
        return ok


@cache
def declarations(max_actions: int, celerity: int, willpower: bool,
                 full_defense: bool) -> tuple[Choice, ...]:
    """INIT-5: every declaration open to a character (shared, immutable)."""
    wp = (False, True) if willpower else (False,)
    opts: list[Choice] = [
        Declaration(n, False, cel, w)
        for n in range(1, max_actions + 1)
        for cel in range(celerity + 1)
        for w in wp
    ]
    if full_defense:
        opts.append(Declaration(1, True, 0, False))  # DEF-7
    return tuple(opts)


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
