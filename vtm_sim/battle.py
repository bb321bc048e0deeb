"""A battle as a steppable state machine (INIT-*, ACT-*, DEF-2/3/7).

The turn sequence is written as a generator that yields a :class:`Decision`
whenever a combatant must decide and receives the choice back. From outside
the battle is a plain state: ``battle.pending`` says who must decide what and
lists the legal options; ``battle.choose(choice)`` advances to the next
decision (or the end). Policies, environments and the CLI all drive it the
same way.

The class is layered: :class:`vtm_sim.state.BattleState` (state and queries),
:class:`vtm_sim.options.Options` (legal options),
:class:`vtm_sim.strikes.Strikes` (attacks and defenses), and :class:`Battle`
here (the turn sequence and the other actions).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from vtm_sim.attack import (
    hand_weapon,
)
from vtm_sim.blood import blood_options, spend_blood
from vtm_sim.choices import (
    Action,
    ActionKind,
    BloodSpend,
    Choice,
    Decision,
    DecisionKind,
    Declaration,
)
from vtm_sim.combatant import Combatant
from vtm_sim.dice import DiceSource, RngDice, roll
from vtm_sim.errors import IllegalActionError
from vtm_sim.events import EventKind, EventLog
from vtm_sim.options import declarations
from vtm_sim.rules import RuleSet, load_rules
from vtm_sim.space import OPEN_FIELD, CoverLevel, CoverZone, Field, Lighting, Wall
from vtm_sim.state import (
    ADJACENT_YARDS,
    ENGAGE_YARDS,
    LOG_VERSION,
    MANEUVERS,
    REACH_SLACK,
    Flow,
    PlanParts,
    flank_bonus,
)
from vtm_sim.stats import StatBlock
from vtm_sim.strikes import Strikes
from vtm_sim.tables import Tables, Weapon, WeaponClass, load_tables


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


class Battle(Strikes):
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
        start: bool = True,
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
        self._plans: dict[int, PlanParts] = {}
        self._plans_for = -1
        # initiative totals given for the turn about to start (a state file's), by id
        self.initiative_given: dict[int, int] | None = None
        # what vtm_sim.standing.apply_standing set before begin(), for the log header
        self.standing: dict[str, Any] | None = None
        self.pending: Decision | None = None
        if start:
            self.begin()

    def begin(self) -> Decision | None:
        """Log the header and advance to the first decision.

        A battle made with ``start=False`` may be changed first (its
        combatants, ``turn`` as the turns already played, ``initiative_given``).
        """
        field = self.field
        seed = self.seed
        turn_limit = self.turn_limit
        header: dict[str, Any] = {
            "e": EventKind.BATTLE, "version": LOG_VERSION, "seed": seed,
            "rules": self.rules.model_dump(), "turn_limit": turn_limit,
            "field": field_to_json(field), "ambush": [list(p) for p in self.ambush],
            "combatants": [
                {"id": c.id, "side": c.side, "x": c.x, "y": c.y, "prone": c.prone,
                 "blinded": c.blinded, "sheet": sheet_of(c.stats)}
                for c in self.combatants
            ],
        }
        if self.standing is not None:  # set only before begin(), on a start=False battle
            header["standing"] = self.standing
        self.log.emit(header)
        self._flow = self._run()
        self.pending = next(self._flow, None)
        return self.pending

    # --- driving --------------------------------------------------------
    def choose(self, choice: Choice) -> Decision | None:
        """Answer the pending decision; returns the next one (None at the end)."""
        decision = self.pending
        if decision is None:
            raise IllegalActionError("the battle is over: nothing to decide")
        for option in decision.options:  # by identity first: options are shared objects
            if option is choice:
                break
        else:
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

    def _roll_initiative(self) -> None:
        """INIT-2/3/4: 1d10 + Dexterity + Wits - wounds; ties by rating."""
        given, self.initiative_given = self.initiative_given, None
        for c in self.combatants:
            c.reset_turn()
            if not self.able(c):
                continue
            if given is not None and c.id in given:  # a state file's initiative, already rolled
                c.rolled_penalty = c.health.penalty
                c.initiative = given[c.id] + c.health.penalty
                self.log.emit({"e": EventKind.INITIATIVE, "who": c.id, "given": given[c.id],
                               "rating": c.rating, "penalty": c.health.penalty,
                               "total": self.initiative_now(c)})
                continue
            r = roll(1, 2, self.dice, damage=True)
            c.initiative = c.rating + r.faces[0]  # wounds come off when read (INIT-4)
            c.rolled_penalty = c.health.penalty
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


__all__ = [
    "ADJACENT_YARDS",
    "ENGAGE_YARDS",
    "LOG_VERSION",
    "MANEUVERS",
    "REACH_SLACK",
    "Battle",
    "Fighter",
    "Flow",
    "declarations",
    "field_from_json",
    "field_to_json",
    "flank_bonus",
    "sheet_of",
]
