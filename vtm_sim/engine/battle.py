"""A battle as an explicit state machine over plain data (INIT-*, ACT-*, DEF-2/3/7).

:class:`Battle` is the driver: it holds the state (combatants, turn, order,
the turn sequence's frames of :mod:`vtm_sim.engine.flow`, the pending decision, the
log), the rules and tables, and the dice. ``battle.pending`` says who must
decide what and lists the legal options; ``battle.choose(choice)`` advances to
the next decision (or the end). Policies, environments and the CLI all drive
it the same way, and ``clone()``/``to_state()``/``from_state()`` copy and
save it: every part of its state is one row of :data:`STATE` (how a new battle
starts it, how a clone copies it, its key and JSON in a saved state), so a
new part is written once. ``repr`` and ``str`` say where the fight stands.

The resolvers are functions over the battle, grouped by domain:
:mod:`vtm_sim.engine.queries` (queries and attack modifiers, movement),
:mod:`vtm_sim.engine.effects` (what maneuvers and complications do),
:mod:`vtm_sim.engine.options` (legal options) and :mod:`vtm_sim.engine.strikes` (attacks and
defenses); the turn sequence's routines and the other actions are here. The
queries policies and tools read (``plan``, ``able``, ``cover_of``, ...) are
thin methods on the battle.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from vtm_sim.core.choices import (
    Action,
    ActionKind,
    BloodSpend,
    Choice,
    Decision,
    DecisionKind,
    Declaration,
    choice_from_json,
    shared,
)
from vtm_sim.core.dice import DiceSource, RngDice, dice_from_json, roll
from vtm_sim.core.maneuvers import WeaponUse
from vtm_sim.core.relations import Aim, Surprise
from vtm_sim.core.space import (
    OPEN_FIELD,
    CoverLevel,
    CoverZone,
    Field,
    Lighting,
    Obstacle,
    ObstacleKind,
    Wall,
)
from vtm_sim.data.formats import LOG_VERSION, STATE_FORMAT, STATE_VERSION
from vtm_sim.data.rules import RuleSet, load_rules, rules_json
from vtm_sim.data.stat_blocks import StatBlock, StatBlockSpec, build_stat_block
from vtm_sim.data.tables import Tables, Weapon, WeaponClass, load_tables
from vtm_sim.engine.chase import chasing, flee, pursue
from vtm_sim.engine.chase import end_turn as end_chase_turn
from vtm_sim.engine.effects import break_free, crush, drink, end_grapples, release, roll_logged, say
from vtm_sim.engine.flow import (
    ACT_ASKED,
    ACT_ATTACKED,
    AMBUSH_ASKED,
    AMBUSH_DONE,
    DECLARE_ASK,
    DECLARE_BLOOD,
    FIRST_ACTING,
    FIRST_END,
    FIRST_FINAL,
    FIRST_GROUP,
    FIRST_INTERRUPTED,
    TURNS_DECLARED,
    TURNS_FIRST_DONE,
    TURNS_LOOP,
    TURNS_PRELIMINARY,
    Frame,
    Routine,
)
from vtm_sim.engine.options import action_options, declarations, declare_options
from vtm_sim.engine.positions import (
    ADJACENT_YARDS,
    able,
    enemies,
    physical_difficulty,
    running_room,
)
from vtm_sim.engine.queries import (
    ENGAGE_YARDS,
    REACH_SLACK,
    PlanParts,
    action_penalty,
    approach,
    can_decide,
    cover_of,
    face_nearest,
    flank_bonus,
    initiative_now,
    move,
    move_to,
    opponents_modifier,
    plan_with,
    rolled_total,
    sees_in_dark,
    situation_of,
)
from vtm_sim.engine.strikes import attack, defend, defense_options, use_slot
from vtm_sim.errors import IllegalActionError, StateError
from vtm_sim.events import (
    BattleEvent,
    DecideEvent,
    EndEvent,
    EventLog,
    InitiativeEvent,
    OrderEvent,
    TurnEvent,
)
from vtm_sim.mechanics.attack import (
    FERAL_CLAWS,
    AttackPlan,
    Situation,
    claws_of,
    hand_weapon,
)
from vtm_sim.mechanics.blood import blood_options, spend_blood
from vtm_sim.mechanics.combatant import Combatant

if TYPE_CHECKING:
    from vtm_sim.engine.chances import ChancePoint

# the routines _advance tells apart on every trip: module constants (see vtm_sim.core.symbol)
_ACT: Final = Routine.ACT
_ATTACK: Final = Routine.ATTACK
_DEFEND: Final = Routine.DEFEND
_FIRST: Final = Routine.FIRST
_DECLARE: Final = Routine.DECLARE
_EXTRA: Final = Routine.EXTRA
_INTERRUPTS: Final = Routine.INTERRUPTS
_TURNS: Final = Routine.TURNS


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
    d: dict[str, Any] = {
        "lighting": field.lighting.value,
        "cramped": field.cramped,
        "cover": [[z.name, z.x, z.y, z.radius, z.level.value] for z in field.cover],
        "walls": [[w.x1, w.y1, w.x2, w.y2] for w in field.walls],
    }
    if field.obstacles:  # MOVE-3 (written only when there are some: older logs stay as they were)
        d["obstacles"] = [[o.name, o.kind.value, o.x1, o.y1, o.x2, o.y2, o.feet, o.detour]
                          for o in field.obstacles]
    return d


def field_from_json(data: dict[str, Any]) -> Field:
    return Field(
        tuple(CoverZone(n, x, y, r, CoverLevel(lv)) for n, x, y, r, lv in data["cover"]),
        tuple(Wall(*w) for w in data["walls"]),
        Lighting(data["lighting"]),
        bool(data.get("cramped", False)),
        tuple(Obstacle(str(n), ObstacleKind(k), float(x1), float(y1), float(x2), float(y2),
                       float(ft), None if det is None else float(det))
              for n, k, x1, y1, x2, y2, ft, det in data.get("obstacles", [])),
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
    if stats.short is not None:  # narration's words, written only when set
        d["short"] = stats.short
    if stats.pronoun != "they":
        d["pronoun"] = stats.pronoun
    return d


class Battle:
    """One fight from the first initiative roll to the end.

    Args:
        fighters: the combatants, their sides and starting positions (yards).
        seed: seeds the dice when ``dice`` is not given (default 0, never the OS's
            entropy); recorded in the log.
        dice: where every die comes from (DICE-9); default a seeded RngDice.
        rules: the rules profile (default v20).
        turn_limit: the battle ends undecided after this many turns.
        field: cover, walls and lighting (default an open, lit field).
        ambush: (attacker, target) pairs that try ATK-11 before the first turn.
        start: begin at once (log the header, advance to the first decision).
        scenario: the scenario's name, if any (only shown: ``repr``, ``str``).
        _clone_of: :meth:`clone`'s (with ``dice`` its fork): this battle's setup and a
            copy of its state instead of the arguments'.

    The changing state (combatants, turn, order, the turn sequence's frames, the
    pending decision, the dice, the log, ...) is declared once, in :data:`STATE`:
    a new battle, :meth:`clone`, :meth:`to_state` and :meth:`from_state` all
    follow that table.
    """

    # The setup: Battle's arguments, never changed after (the dice are forked by clone()).
    rules: RuleSet
    tables: Tables
    dice: DiceSource
    seed: int | None
    turn_limit: int
    field: Field
    ambush: tuple[tuple[int, int], ...]
    scenario: str
    # The changing state, declared in STATE (its rows say how each part starts, is copied
    # and saved; tests/engine/test_battle_parts.py checks the two lists agree).
    combatants: list[Combatant]
    turn: int
    over: bool
    winner: int | None
    end_reason: str
    order: list[Combatant]
    _surprise: Surprise | None  # ATK-11: the ambusher's free attack, while it lasts
    initiative_given: dict[int, int] | None  # a state file's initiative totals, by id
    stack: list[Frame]  # the turn sequence (vtm_sim.engine.flow): empty until begun
    pending: Decision | None
    log: EventLog
    _plans: dict[int, PlanParts]  # what the pending ACT options' plans are made of
    _plans_for: int  # whose options _plans holds (-1: nobody's)
    standing: dict[str, Any] | None  # what apply_standing set before begin(), for the header

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
        scenario: str = "",
        _clone_of: Battle | None = None,
    ) -> None:
        self.rules = rules or load_rules("v20")
        self.tables = tables or load_tables()
        if _clone_of is not None:  # clone(): the setup shared, the state copied (STATE)
            assert dice is not None
            self.dice = dice
            self.seed = _clone_of.seed
            self.turn_limit = _clone_of.turn_limit
            self.field = _clone_of.field
            self.ambush = _clone_of.ambush
            self.scenario = _clone_of.scenario
            for name, copy in _CLONES:
                value = getattr(_clone_of, name)
                setattr(self, name, value if copy is None else copy(value, self))
            return
        if dice is None:
            import numpy as np  # here, not at the top: commands that make no battle skip numpy

            if seed is None:
                seed = 0  # never the OS's entropy: an unseeded battle is seed 0's battle
            dice = RngDice(np.random.default_rng(seed))
        self.dice = dice
        self.seed = seed
        self.turn_limit = turn_limit
        self.field = field
        self.ambush = tuple((int(a), int(t)) for a, t in ambush)
        self.scenario = scenario
        for name, value, fresh in _STARTS:  # the changing state as a new battle has it (STATE)
            setattr(self, name, value() if fresh else value)
        cs = self.combatants
        for i, f in enumerate(fighters):
            c = Combatant.create(i, f.stats, f.side, self.tables, float(f.x), float(f.y))
            c.prone = f.prone
            c.blinded = f.blinded
            cs.append(c)
        for c in cs:
            face_nearest(self, c)
        if start:
            self.begin()

    def dice_for(self, label: str) -> DiceSource:
        """Where the dice of a roll labelled ``label`` come from (one stream here)."""
        return self.dice

    # --- queries the policies, environments and tools read (vtm_sim.engine.queries) ---
    def able(self, c: Combatant) -> bool:
        """Still fighting: active and not paralyzed by a stake (CPX-5)."""
        return able(self, c)

    def enemies(self, c: Combatant) -> list[Combatant]:
        """See :func:`vtm_sim.engine.positions.enemies`."""
        return enemies(self, c)

    def initiative_now(self, c: Combatant) -> int:
        """INIT-4: the rolled total less the wound penalty taken so far."""
        return initiative_now(self, c)

    def run_allowance(self, c: Combatant) -> float:
        """MOVE-1, DMG-9, MOVE-2: the farthest this character can move this turn."""
        return running_room(self, c)

    def opponents_modifier(self, c: Combatant) -> int:
        """ATK-8: +1 difficulty per engaging opponent after the first, capped."""
        return opponents_modifier(self, c)

    def action_penalty(self, c: Combatant) -> int:
        """ACT-1/ACT-2: the multiple-action penalty of this character's next action."""
        return action_penalty(self, c)

    def approach(self, c: Combatant, target: Combatant, reach: float) -> tuple[float, int] | None:
        """ACT-4: yards to close for ``reach`` and the dice it costs, None if too far."""
        return approach(self, c, target, reach)

    def cover_of(self, c: Combatant, against: Combatant) -> CoverLevel:
        """RNG-1: cover from a zone the attacker is not in, or light cover when prone."""
        return cover_of(self, c, against)

    def physical_difficulty(self, c: Combatant) -> int:
        """CPX-1: a blinded character's actions +2; MOVE-2: a heavy burden +1."""
        return physical_difficulty(self, c)

    def sees_in_dark(self, c: Combatant) -> bool:
        """ATK-10: Heightened Senses (Auspex 1) or Eyes of the Beast (Protean 1)."""
        return sees_in_dark(self, c)

    def situation(self, c: Combatant, t: Combatant, maneuver: str,
                  offhand: bool = False) -> Situation | None:
        """Battlefield and state modifiers for ``c`` attacking ``t`` (None: impossible)."""
        return situation_of(self, c, t, maneuver, offhand)

    def plan(self, actor: int, action: Action) -> AttackPlan | None:
        """The pool and difficulty an ATTACK action would roll now."""
        parts = self._plans.get(id(action)) if self._plans_for == actor else None  # planned()
        return plan_with(self, actor, action, parts)

    def chance(self, choice: Choice,
               defend: Callable[[Battle, Decision], Choice] | None = None) -> ChancePoint | None:
        """The roll ATTACK option ``choice`` of the pending decision leads to, taken in a
        copy (``defend`` picks the defenses asked on the way; default none): see
        :func:`vtm_sim.engine.chances.chance_point`."""
        from vtm_sim.engine.chances import chance_point

        return chance_point(self, choice, defend)

    def begin(self) -> Decision | None:
        """Log the header and advance to the first decision.

        A battle made with ``start=False`` may be changed first (its
        combatants, ``turn`` as the turns already played, ``initiative_given``).
        """
        field = self.field
        seed = self.seed
        turn_limit = self.turn_limit
        self.log.emit(BattleEvent(
            LOG_VERSION, seed, rules_json(self.rules), turn_limit, field_to_json(field),
            self.ambush,
            tuple({"id": c.id, "side": c.side, "x": c.x, "y": c.y, "prone": c.prone,
                   "blinded": c.blinded, "sheet": sheet_of(c.stats)}
                  for c in self.combatants),
            self.standing,  # set only before begin(), on a start=False battle
        ))
        self.stack = [Frame(_TURNS)]
        self.pending = self._advance(None)
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
        self.log.emit(DecideEvent(decision.actor, decision.kind, choice))
        self._plans_for = -1
        self._plans.clear()
        self.pending = self._advance(choice)
        return self.pending

    def _advance(self, choice: Choice | None) -> Decision | None:
        """Run the turn sequence until someone must decide (None: the battle is over).

        ``choice`` answers the decision the top frame asked; each routine
        either asks (returns the Decision, its frame staying on top), or pushes
        a child frame, or pops its own, and the loop goes on with the new top.
        """
        stack = self.stack
        while stack:
            f = stack[-1]
            r = f.routine
            if r is _ACT:
                d = self._act(f, choice)
            elif r is _TURNS:
                d = self._turns(f)
            elif r is _DECLARE:
                d = self._declarations(f, choice)
            elif r is _FIRST:
                d = self._first_pass(f)
            elif r is _EXTRA:
                d = self._extra_rounds(f)
            elif r is _ATTACK:
                d = attack(self, f)
            elif r is _DEFEND:
                d = defend(self, f, choice)
            elif r is _INTERRUPTS:
                d = self._interrupts(f)
            else:
                d = self._ambushes(f, choice)
            if d is not None:
                return d
            choice = None
        return None

    def ask(self, f: Frame) -> Decision:
        """The decision a frame waiting at ``f.pc`` asks (rebuilt the same way on load)."""
        c = self.combatants[f.actor]
        r = f.routine
        if r is _ACT:
            return Decision(DecisionKind.ACT, c.id, action_options(self,
                c, first=f.first, interrupt=f.interrupt, final=f.final), interrupt=f.interrupt)
        if r is _DEFEND:
            plan = self.stack[-2].plan
            assert plan is not None
            return Decision(DecisionKind.DEFEND, c.id, defense_options(self, c, plan),
                            f.target, plan.maneuver)
        if r is _DECLARE:
            if f.pc == DECLARE_BLOOD:
                return Decision(DecisionKind.BLOOD, c.id, blood_options(c))
            return Decision(DecisionKind.DECLARE, c.id, declare_options(self, c))
        assert r is Routine.AMBUSH and self._surprise is not None
        t_id = self._surprise.target
        opts = [o for o in action_options(self, c, first=False, interrupt=False, final=True)
                if isinstance(o, Action) and (
                    (o.kind is ActionKind.ATTACK and o.target == t_id)
                    or o.kind is ActionKind.PASS)]
        return Decision(DecisionKind.ACT, c.id, tuple(opts))

    # --- copies and saved states (all three follow STATE) ----------------------
    def clone(self, *, dice: DiceSource | None = None) -> Battle:
        """An independent copy: it continues exactly as this battle would.

        Given the same choices (and, with ``dice``, the same dice) both go on
        identically, and nothing done to one changes the other. Stat blocks,
        rules, tables, the field and logged events are shared: none of them
        ever changes. Each part of the changing state is copied as :data:`STATE`
        says.
        """
        if dice is None:
            fork = getattr(self.dice, "clone", None)
            if fork is None:
                raise TypeError(f"{type(self.dice).__name__} dice cannot be copied: pass dice=")
            dice = fork()
        return Battle((), dice=dice, rules=self.rules, tables=self.tables, start=False,
                      _clone_of=self)

    def to_state(self, *, log: bool = True) -> dict[str, Any]:
        """The whole battle as JSON-ready data: setup, combatants, turn sequence,
        the pending decision, the dice stream and (with ``log``) the event log,
        each part as :data:`STATE` says, in its order.

        :meth:`from_state` rebuilds a battle that continues exactly as this one.
        """
        state: dict[str, Any] = {
            "format": STATE_FORMAT, "version": STATE_VERSION, "log_version": LOG_VERSION}
        for key, name, save, optional in _SAVED:
            if optional and not log:
                continue
            state[key] = getattr(self, name) if save is None else save(self)
        return state

    @classmethod
    def from_state(cls, data: dict[str, Any], *, seed: int | None = None,
                   dice: DiceSource | None = None, tables: Tables | None = None) -> Battle:
        """Rebuild a battle saved by :meth:`to_state`.

        Without ``seed`` or ``dice`` it continues the saved dice stream; a
        ``seed`` starts a fresh stream from that seed instead. A state saved
        without its log starts a new log whose header holds the state: ``data``
        itself, not a copy (copying would double the cost of a load), so it must
        not be changed afterwards.
        Raises :class:`~vtm_sim.errors.StateError` on a malformed state.
        """
        from vtm_sim.engine.serialisation import battle_from_state

        return battle_from_state(data, seed=seed, dice=dice, tables=tables)

    @property
    def initiative_rolled(self) -> bool:
        """INIT-9: whether this turn's initiative is rolled: False before the battle
        begins and while 004's preliminary blood and declarations are made."""
        stack = self.stack
        return (bool(stack) and stack[0].pc != TURNS_PRELIMINARY) or self.over

    @property
    def surprise(self) -> Surprise | None:
        """ATK-11: the ambusher's free attack being made (None outside an ambush)."""
        return self._surprise

    # --- the cache of the pending ACT options' plans (vtm_sim.engine.options) ---
    def start_plans(self, actor: int) -> dict[int, PlanParts]:
        """Forget the plans kept so far: ``actor``'s options are being listed. Returns
        the (emptied) cache the listing fills, by the id of each option (see
        :meth:`planned`); reused, not remade: no allocation on every option list."""
        plans = self._plans
        plans.clear()
        self._plans_for = actor
        return plans

    def planned(self, actor: int, action: Action) -> PlanParts | None:
        """The parts kept for ``action``, one of ``actor``'s pending options (None: none)."""
        if self._plans_for != actor:
            return None
        return self._plans.get(id(action))

    # --- how it reads ------------------------------------------------------------
    def __repr__(self) -> str:
        what = self.scenario or f"{len(self.combatants)} combatants"
        return f"<Battle {what} {self._standing_now()}>"

    def __str__(self) -> str:
        lines = [f"Battle {self.scenario or ''}".rstrip() + f": {self._standing_now()}"]
        if self.order:
            lines.append("initiative: " + ", ".join(
                f"{c.name} (#{c.id}) {initiative_now(self, c)}" for c in self.order))
        for c in self.combatants:
            lines.append(f"  #{c.id} {c.name}, side {c.side}: {c.health.level_name}, "
                         f"at ({c.x:g}, {c.y:g})" + "".join(f", {s}" for s in self._conditions(c)))
        return "\n".join(lines)

    def _standing_now(self) -> str:
        p = self.pending
        if p is not None:
            c = self.combatants[p.actor]
            return f"turn {self.turn}, {p.kind.name} for {c.name} (#{c.id})"
        if not self.stack and not self.over and not self.log.events:
            return "not begun"
        won = "nobody" if self.winner is None else f"side {self.winner}"
        return f"over after turn {self.turn}: {won} won ({self.end_reason})"

    def _conditions(self, c: Combatant) -> list[str]:
        """What a glance at ``c`` shows: prone, clinched, in cover, stunned, ..."""
        cs = self.combatants
        out: list[str] = []
        if not c.active:
            out.append(c.health.status.value)
        if c.escaped:
            out.append("escaped")
        if c.staked:
            out.append("staked")
        if c.stunned(self.turn):
            out.append("stunned")
        if c.prone:
            out.append("prone")
        if c.blinded:
            out.append("blinded")
        for what, other in (("clinched with", c.clinch_with), ("holding", c.holding),
                            ("held by", c.held_by), ("feeding on", c.feeding_on),
                            ("fed on by", c.fed_on_by)):
            if other >= 0:
                out.append(f"{what} {cs[other].name} (#{other})")
        zone = self.field.cover_at(c.x, c.y) if self.field.cover else None
        if zone is not None:
            out.append(f"in cover ({zone.name})")
        if c.aim is not None:
            out.append(f"aiming at #{c.aim.target}")
        if c.chase is not None:
            out.append("fleeing")
        if c.full_defense and c.active:
            out.append("full defense")
        return out

    # --- the turn sequence -------------------------------------------------
    def _turns(self, f: Frame) -> Decision | None:
        """The root routine: ambushes, then turn after turn until one side is left."""
        if f.pc == 0:
            f.pc = TURNS_LOOP
            if self.ambush:
                return self._ambushes(self._push(Frame(Routine.AMBUSH)), None)
        if f.pc == TURNS_PRELIMINARY:  # INIT-9 (004): declared; now the roll
            self._roll_initiative()
            f.pc = TURNS_DECLARED
        if f.pc == TURNS_DECLARED:
            f.pc = TURNS_FIRST_DONE
            return self._first_pass(self._push(Frame(_FIRST)))
        if f.pc == TURNS_FIRST_DONE:
            f.pc = TURNS_LOOP
            if not self._decided():
                return self._extra_rounds(self._push(Frame(_EXTRA)))
        if self.turn and chasing(self):
            end_chase_turn(self)  # MOVE-4: escapes at the turn's end
        if self._decided():
            self._finish("victory")
            self.stack.pop()
            return None
        if self.turn >= self.turn_limit:
            self._finish("turn limit")
            self.stack.pop()
            return None
        self.turn += 1
        self.log.emit(TurnEvent(self.turn))
        for c in self.combatants:
            c.reset_turn()
        if self.rules.preliminary_actions == "004" and self.initiative_given is None:
            # INIT-9 (004): blood, Celerity and the number of actions come before the
            # roll, so a Dexterity raise or healing counts for this turn's initiative;
            # nobody has rolled yet: the lowest Dexterity + Wits declares first (INIT-5).
            # (A state file's initiative is a roll already made: the declarations follow.)
            f.pc = TURNS_PRELIMINARY
            slowest = sorted((c for c in self.combatants if able(self, c)),
                             key=lambda c: (c.rating, -c.id))
            declare = Frame(_DECLARE, ids=tuple(c.id for c in slowest))
            return self._declarations(self._push(declare), None)
        self._roll_initiative()  # INIT-9 (001): initiative first, then the declarations
        f.pc = TURNS_DECLARED
        # INIT-5: slowest declares first
        declare = Frame(_DECLARE, ids=tuple(c.id for c in reversed(self.order)))
        return self._declarations(self._push(declare), None)

    def _push(self, f: Frame) -> Frame:
        """Start a routine: its frame goes on top (the caller runs it at once)."""
        self.stack.append(f)
        return f

    def _declarations(self, f: Frame, choice: Choice | None) -> Decision | None:
        """INIT-5 declarations, each after the blood spend it may make (VAMP-2, 004)."""
        cs = self.combatants
        if f.pc == DECLARE_BLOOD:
            assert isinstance(choice, BloodSpend)
            c = cs[f.actor]
            self._spend_blood(c, choice)
            f.pc = DECLARE_ASK
            return Decision(DecisionKind.DECLARE, c.id, declare_options(self, c))  # as ask(f)
        if f.pc == DECLARE_ASK:
            assert isinstance(choice, Declaration)
            self._apply_declaration(cs[f.actor], choice)
            f.i += 1
        while f.i < len(f.ids):
            c = cs[f.ids[f.i]]
            if not can_decide(self, c):
                f.i += 1
                continue
            f.actor = c.id
            spends = blood_options(c)
            # each decision as ask(f) rebuilds it
            if len(spends) > 1:  # VAMP-2: reflexive, before declaring (004)
                f.pc = DECLARE_BLOOD
                return Decision(DecisionKind.BLOOD, c.id, spends)
            f.pc = DECLARE_ASK
            return Decision(DecisionKind.DECLARE, c.id, declare_options(self, c))
        self.stack.pop()
        return None

    def _decided(self) -> bool:
        """At most one side is still fighting."""
        side = None
        for c in self.combatants:
            if able(self, c):
                if side is None:
                    side = c.side
                elif c.side != side:
                    return False
        return True

    def _finish(self, reason: str) -> None:
        sides = {c.side for c in self.combatants if able(self, c)}
        self.winner = next(iter(sides)) if len(sides) == 1 else None
        if reason == "victory" and not sides:
            reason = "all down"
        elif reason == "victory" and any(c.escaped for c in self.combatants
                                         if c.side != self.winner):
            reason = "escape"  # MOVE-4: the losers' last ran off
        self.over = True
        self.end_reason = reason
        self.log.emit(EndEvent(self.winner, self.turn, reason))

    def _roll_initiative(self) -> None:
        """INIT-2/3/4: 1d10 + Dexterity + Wits - wounds; ties by rating."""
        given, self.initiative_given = self.initiative_given, None
        for c in self.combatants:
            if not able(self, c):
                continue
            c.rating = c.attr("dexterity") + c.attr("wits")  # INIT-9: a raise before the roll
            if given is not None and c.id in given:  # a state file's initiative, already rolled
                c.rolled_penalty = c.health.penalty
                c.initiative = given[c.id] + c.health.penalty
                self.log.emit(InitiativeEvent(c.id, None, given[c.id], c.rating,
                                              c.health.penalty, initiative_now(self, c)))
                continue
            r = roll(1, 2, self.dice, damage=True)
            c.initiative = rolled_total(c, r.faces[0], self.turn)  # wounds: when read (INIT-4)
            c.rolled_penalty = c.health.penalty
            self.log.emit(InitiativeEvent(c.id, r.faces[0], None, c.rating, c.health.penalty,
                                          initiative_now(self, c)))
        self.order = sorted(
            (c for c in self.combatants if able(self, c)),
            key=lambda c: (-initiative_now(self, c), -c.rating, c.id),
        )
        self.log.emit(OrderEvent(tuple(c.id for c in self.order)))

    def _spend_blood(self, c: Combatant, spend: BloodSpend) -> None:
        healed = spend_blood(c, spend)
        say(self, c.id, "blood", use=spend.use.value, points=spend.points, healed=healed,
                 blood=c.blood, track=c.health.marks())

    def _apply_declaration(self, c: Combatant, d: Declaration) -> None:
        c.full_defense = d.full_defense
        c.declared = 0 if d.full_defense else d.actions
        c.wp_declared = d.willpower
        c.announced = d.delay  # INIT-10: delayed when its initiative comes
        if d.celerity:
            c.celerity = d.celerity
            c.blood -= d.celerity  # VAMP-3: one blood per extra action, any generation

    # first actions, in initiative order with delays and waits
    def _may_take_first(self, c: Combatant) -> bool:
        return (
            can_decide(self, c) and not c.full_defense and not c.acted
            and c.declared - c.declared_used >= 1
        )

    def _by_initiative(self, cs: Sequence[Combatant]) -> list[Combatant]:
        return sorted(cs, key=lambda c: (-initiative_now(self, c), -c.rating, c.id))

    def _may_interrupt(self) -> bool:
        """INIT-6: someone delayed may act before the next group does."""
        for c in self.order:  # noqa: SIM110  (a loop: any() of a generator costs more here)
            if c.delayed and self._may_take_first(c):
                return True
        return False

    def _ask_action(self, c: Combatant, *, first: bool, interrupt: bool = False,
                    final: bool = False) -> Decision:
        """Start an action of ``c``: its ACT frame goes on top, asking (as ask() rebuilds it)."""
        self.stack.append(Frame(_ACT, ACT_ASKED, c.id, first=first, interrupt=interrupt,
                                final=final))
        return Decision(DecisionKind.ACT, c.id, action_options(
            self, c, first=first, interrupt=interrupt, final=final), interrupt=interrupt)

    def _first_pass(self, f: Frame) -> Decision | None:
        """First actions in initiative order: groups of equal initiative act together
        (INIT-3), delayed characters may interrupt before each group (INIT-6), and
        delayed and waiting ones act at the end of the pass (INIT-6/7).

        ``f.rest`` holds who is still to be reached, ``f.ids`` the group acting
        (or, from FIRST_FINAL on, everyone by initiative), ``f.i`` the next of them.
        """
        cs = self.combatants
        may = self._may_take_first
        if f.pc == 0:
            f.rest = tuple(c.id for c in self.order if may(c))
            f.pc = FIRST_GROUP
        elif f.pc == FIRST_FINAL and self._decided():  # back from an action at the end
            self.stack.pop()
            return None
        while True:
            pc = f.pc
            if pc == FIRST_GROUP:  # the next group of equal initiative (INIT-3)
                rest = f.rest
                if not rest:
                    f.pc = FIRST_END
                    continue
                keys = [(initiative_now(self, cs[i]), cs[i].rating) for i in rest]
                top = max(keys)
                f.rest = tuple(i for i, k in zip(rest, keys, strict=True) if k != top)
                group = tuple(i for i, k in zip(rest, keys, strict=True)
                              if k == top and may(cs[i]))
                if not group:
                    continue
                f.ids = group
                f.pc = FIRST_INTERRUPTED
                if self._may_interrupt():
                    return self._interrupts(self._push(Frame(_INTERRUPTS)))
            elif pc == FIRST_INTERRUPTED:
                if self._decided():
                    self.stack.pop()
                    return None
                group = tuple(i for i in f.ids if may(cs[i]))
                f.simultaneous = len(group) > 1  # INIT-3: both resolve before either is removed
                if f.simultaneous:
                    for i in group:
                        cs[i].sim_penalty = cs[i].health.penalty
                f.ids = group
                f.i = 0
                f.pc = FIRST_ACTING
            elif pc == FIRST_ACTING:
                while f.i < len(f.ids):
                    c = cs[f.ids[f.i]]
                    f.i += 1
                    if c.acted or c.staked or (not f.simultaneous and not may(c)):
                        continue
                    if c.announced and not c.delayed:
                        c.delayed = True  # INIT-10: the delay said at the declaration
                        continue
                    return self._ask_action(c, first=True)
                for i in f.ids:
                    cs[i].sim_penalty = None
                if self._decided():
                    self.stack.pop()
                    return None
                f.pc = FIRST_GROUP
            elif pc == FIRST_END:
                # INIT-7: if everyone waited, nobody acts this turn
                able = [c for c in self.order if can_decide(self, c)]
                if able and all(c.waiting for c in able):
                    self.stack.pop()
                    return None
                f.ids = tuple(c.id for c in self._by_initiative(self.order))
                f.i = 0
                f.pc = FIRST_FINAL
            else:  # FIRST_FINAL: INIT-6/7, delayed and waiting characters act at the end
                while f.i < len(f.ids):
                    c = cs[f.ids[f.i]]
                    f.i += 1
                    if (c.delayed or c.waiting) and may(c):
                        return self._ask_action(c, first=True, final=True)
                self.stack.pop()
                return None

    def _interrupts(self, f: Frame) -> Decision | None:
        """INIT-6: delayed characters may act before the next one does."""
        cs = self.combatants
        if f.pc == 0:
            f.ids = tuple(c.id for c in self._by_initiative(self.order))
            f.pc = 1
        elif self._decided():
            self.stack.pop()
            return None
        while f.i < len(f.ids):
            d = cs[f.ids[f.i]]
            f.i += 1
            if d.delayed and self._may_take_first(d):
                return self._ask_action(d, first=True, interrupt=True)
        self.stack.pop()
        return None

    def _extra_rounds(self, f: Frame) -> Decision | None:
        """INIT-8: second actions of everyone, then third actions, ..."""
        cs = self.combatants
        if f.pc == 1 and self._decided():
            self.stack.pop()
            return None
        while True:
            if f.pc == 0:
                ready = [
                    c for c in self.order
                    if can_decide(self, c) and c.acted and not c.full_defense
                    and c.actions_left > 0
                ]
                if not ready:
                    self.stack.pop()
                    return None
                f.ids = tuple(c.id for c in self._by_initiative(ready))
                f.i = 0
                f.pc = 1
            while f.i < len(f.ids):
                c = cs[f.ids[f.i]]
                f.i += 1
                if can_decide(self, c) and c.actions_left > 0:
                    return self._ask_action(c, first=False)
            f.pc = 0

    def _ambushes(self, f: Frame, choice: Choice | None) -> Decision | None:
        """ATK-11: Dexterity + Stealth against Perception + Alertness before combat."""
        if f.pc == AMBUSH_ASKED:
            assert isinstance(choice, Action)
            f.pc = AMBUSH_DONE
            if choice.kind is ActionKind.ATTACK:
                return attack(self, self._push(Frame(_ATTACK, actor=f.actor,
                                                     action=choice)))
        if f.pc == AMBUSH_DONE:
            self._surprise = None
            self.combatants[f.actor].moved = 0.0
            f.pc = 0
        while f.i < len(self.ambush):
            ai, ti = self.ambush[f.i]
            f.i += 1
            a, t = self.combatants[ai], self.combatants[ti]
            if not (able(self, a) and able(self, t)):
                continue
            ra = roll_logged(self, a.id, "stealth", a.attr("dexterity") + a.stats.ability(
                "stealth") - a.penalty - a.armor_penalty, 6)
            rt = roll_logged(self, t.id, "notice",
                                  t.attr("perception") + t.stats.ability("alertness"), 6)
            diff = ra.successes - rt.successes
            say(self, a.id, "ambush", target=t.id, margin=diff)
            if diff < 0:
                continue  # the target notices: normal initiative
            self._surprise = Surprise(a.id, t.id, diff, diff > 0)
            f.actor = a.id
            f.pc = AMBUSH_ASKED
            return self.ask(f)
        self.stack.pop()
        return None

    def _act(self, f: Frame, choice: Choice | None) -> Decision | None:
        """One action, asked by _ask_action: carried out (an attack in a frame of its own)."""
        if f.pc == ACT_ATTACKED:
            self._drop_grapples_of_the_fallen()
            self.stack.pop()
            return None
        c = self.combatants[f.actor]
        assert isinstance(choice, Action)
        kind = choice.kind
        if kind is ActionKind.DELAY:
            if not f.interrupt:
                c.delayed = True
            self.stack.pop()
            return None
        if kind is ActionKind.WAIT:
            c.waiting = True
            self.stack.pop()
            return None
        c.delayed = c.waiting = False
        if f.first:
            c.acted = True
        penalty = use_slot(self, c, keep_first=False)
        if kind is not ActionKind.AIM and not (
            kind is ActionKind.ATTACK and choice.target == c.aim_target
        ):
            c.aim = None  # RNG-7: aiming allows nothing else
        if kind is ActionKind.ATTACK:
            if self._grow_claws(c, choice):  # MAN-11: the action went on growing them
                self.stack.pop()
                return None
            f.pc = ACT_ATTACKED
            return attack(self, self._push(Frame(_ATTACK, actor=c.id, action=choice,
                                                 penalty=penalty)))
        self._carry_out(c, choice, penalty)
        self._drop_grapples_of_the_fallen()
        self.stack.pop()
        return None

    def _grow_claws(self, c: Combatant, choice: Action) -> bool:
        """MAN-11: a claw attack by a vampire whose Feral Claws are not out grows them
        first, for ``claws_blood`` blood; True when that took the action
        (``claws_grow_action``: the published power's turn), else the attack follows."""
        spec = self.tables.maneuvers.get(choice.maneuver or "")
        if (spec is None or spec.weapon is not WeaponUse.CLAWS or c.claws_out
                or claws_of(c) is not FERAL_CLAWS):
            return False
        cost = min(self.rules.claws_blood, c.blood)
        c.blood -= cost
        c.claws_out = True
        say(self, c.id, "claws", blood=cost)
        return self.rules.claws_grow_action

    def _carry_out(self, c: Combatant, choice: Action, penalty: int) -> None:
        """Every action but an attack."""
        kind = choice.kind
        if kind is ActionKind.MOVE:
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
            self._take_cover(c, choice.jump)
        elif kind is ActionKind.DROP_PRONE:
            c.prone = True
            say(self, c.id, "drop_prone")
        elif kind is ActionKind.CRUSH:
            c.grappled_turn = self.turn
            crush(self, c)
        elif kind is ActionKind.BREAK_FREE:
            c.grappled_turn = self.turn
            break_free(self, c)
        elif kind is ActionKind.RELEASE:
            release(self, c)
        elif kind is ActionKind.FEED:
            drink(self, c)
        elif kind is ActionKind.FLEE:
            flee(self, c, choice.jump)  # MOVE-4 (vtm_sim.engine.chase)
        elif kind is ActionKind.PURSUE:
            assert choice.target is not None
            pursue(self, c, self.combatants[choice.target], choice.jump)
        else:
            say(self, c.id, "pass")

    def _drop_grapples_of_the_fallen(self) -> None:
        """A grapple ends when either side is out of the fight or staked."""
        for o in self.combatants:
            if o.grappling and not able(self, o):
                end_grapples(self, o)

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
            ok = roll_logged(self, c.id, what, pool, 4 + physical_difficulty(self, c)).successes > 0
        if ok:
            effect()
        say(self, c.id, what, ok=ok, weapon=hand_weapon(c, False)[0].name)

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
            diff = 4 + physical_difficulty(self, c)
            ok = roll_logged(self, c.id, "get_up", pool, diff).successes > 0
        if ok:
            c.prone = False
        say(self, c.id, "get_up", ok=ok)

    def _aim(self, c: Combatant, a: Action) -> None:
        """RNG-7: +1 die a full turn spent aiming, up to Perception."""
        assert a.target is not None
        dice = 1
        if c.aim_target == a.target and c.aim_turn == self.turn - 1:
            dice = min(c.attr("perception"), c.aim_dice + 1)
        c.aim = Aim(a.target, dice, self.turn)
        say(self, c.id, "aim", target=a.target, dice=dice)

    def _take_cover(self, c: Combatant, jump: bool = False) -> None:
        left = max(0.0, running_room(self, c) - c.moved)
        zone = self.field.nearest_cover(c.x, c.y, left)
        if zone is not None:
            move_to(self, c, zone.x, zone.y, min(left, math.hypot(zone.x - c.x, zone.y - c.y)),
                    jump=jump)
            say(self, c.id, "take_cover", cover=zone.name)

    def _move_action(self, c: Combatant, a: Action) -> None:
        assert a.target is not None
        t = self.combatants[a.target]
        left = max(0.0, running_room(self, c) - c.moved)
        if a.away:
            move(self, c, t, -left, jump=a.jump)
        else:
            move(self, c, t, min(left, max(0.0, c.distance(t) - ADJACENT_YARDS)), jump=a.jump)


# --- the battle's state, declared once ------------------------------------------------


@dataclass(frozen=True, slots=True)
class Loading:
    """What a part's loader reads besides its own value (Battle.from_state's arguments)."""

    data: dict[str, Any]  # the whole saved state
    tables: Tables
    seed: int | None  # a fresh dice stream from this seed (None: the saved stream)
    dice: DiceSource | None  # these dice instead of the saved stream
    battle: Battle | None  # the battle being rebuilt (None while its arguments load)

    @property
    def b(self) -> Battle:
        assert self.battle is not None
        return self.battle


@dataclass(frozen=True, slots=True)
class Part:
    """One part of a battle's state: how a new battle starts it, how :meth:`Battle.clone`
    copies it, and how :meth:`Battle.to_state`/:meth:`Battle.from_state` save and load it.
    """

    attr: str  # the Battle attribute ("": saved only, made from other parts)
    key: str | None  # its key in a saved state (None: never saved)
    start: Any = None  # a new battle's value (None: from Battle's arguments, or None itself)
    fresh: bool = False  # ``start`` makes the value: a new list, dict, log for each battle
    copy: Callable[[Any, Battle], Any] | None = None  # clone()'s copy (None: shared)
    save: Callable[[Battle], Any] | None = None  # its saved JSON (None: the value as it is)
    load: Callable[[Any, Loading], Any] | None = None  # from its JSON (None: as it is)
    arg: bool = False  # given to Battle() by clone() and from_state(), not set after
    optional: bool = False  # saved only on request (to_state(log=True)), may be missing


def _dice_json(b: Battle) -> dict[str, Any]:
    to_json = getattr(b.dice, "to_json", None)
    if to_json is None:
        raise TypeError(f"{type(b.dice).__name__} dice cannot be saved")
    data: dict[str, Any] = to_json()
    return data


def _load_dice(data: Any, ld: Loading) -> DiceSource:
    if ld.dice is not None:
        return ld.dice
    if ld.seed is not None:
        import numpy as np  # here: a saved state's own dice build their generator when drawn

        return RngDice(np.random.default_rng(ld.seed))
    return dice_from_json(data)


def _load_combatants(data: Any, ld: Loading) -> list[Combatant]:
    cs: list[Combatant] = []
    for n, (sheet, c) in enumerate(zip(ld.data["sheets"], data, strict=True)):
        stats = build_stat_block(StatBlockSpec.model_validate(sheet), f"combatants.{n}")
        cs.append(Combatant.from_json(c, stats, ld.tables))
    if [c.id for c in cs] != list(range(len(cs))):
        raise StateError("combatants: ids must be 0, 1, 2, ... in order")
    return cs


def _pending_json(b: Battle) -> dict[str, Any] | None:
    p = b.pending
    if p is None:
        return None
    return {"kind": p.kind.value, "actor": p.actor, "options": [o.to_json() for o in p.options]}


def _load_pending(saved: Any, ld: Loading) -> Decision | None:
    """The decision the rules ask at the top frame, checked against the saved one."""
    b = ld.b
    if not b.stack:
        if saved is not None:
            raise StateError("pending: a decision is saved but the battle is over")
        return None
    if saved is None:
        raise StateError("pending: missing (the battle is not over)")
    pending = b.ask(b.stack[-1])
    kind = DecisionKind(saved["kind"])
    options = tuple(shared(choice_from_json(kind, o)) for o in saved["options"])
    if pending.kind is not kind or pending.actor != int(saved["actor"]) or (
        pending.options != options
    ):
        raise StateError(
            f"pending: the saved {kind.value} decision of combatant {saved['actor']} is not "
            f"what the rules ask here ({pending.kind.value} of {pending.actor})"
        )
    return pending


def _load_log(data: Any, ld: Loading) -> EventLog:
    if data is not None:
        return EventLog.from_json(data)
    log = EventLog()  # saved without it: a new log headed by the state (see from_state)
    log.emit(BattleEvent.saved(LOG_VERSION, ld.data))
    return log


def _optional_int(v: Any) -> int | None:
    return None if v is None else int(v)


# Every part of a battle's state, in the order of a saved state's keys (after
# "format", "version" and "log_version"). A new part is one more row: a new
# battle starts it, clone() copies it, to_state() saves it and from_state()
# loads it as its row says. The class annotations on Battle give each its type.
STATE: Final[tuple[Part, ...]] = (
    # the setup: Battle's arguments (the dice change, but are forked by clone() itself)
    Part("seed", "seed", arg=True, load=lambda v, ld: v if ld.seed is None else ld.seed),
    Part("rules", "rules", arg=True, save=lambda b: rules_json(b.rules),
         load=lambda v, ld: RuleSet.model_validate(v)),
    Part("turn_limit", "turn_limit", arg=True, load=lambda v, ld: int(v)),
    Part("field", "field", arg=True, save=lambda b: field_to_json(b.field),
         load=lambda v, ld: field_from_json(v)),
    Part("ambush", "ambush", arg=True, save=lambda b: [list(a) for a in b.ambush],
         load=lambda v, ld: tuple((int(a), int(t)) for a, t in v)),
    Part("", "sheets", save=lambda b: [sheet_of(c.stats) for c in b.combatants]),
    # what changes
    Part("combatants", "combatants", list, fresh=True,
         copy=lambda cs, new: [c.copy() for c in cs],
         save=lambda b: [c.to_json() for c in b.combatants], load=_load_combatants),
    Part("turn", "turn", 0, load=lambda v, ld: int(v)),
    Part("over", "over", False, load=lambda v, ld: bool(v)),
    Part("winner", "winner", load=lambda v, ld: _optional_int(v)),
    Part("end_reason", "end_reason", "", load=lambda v, ld: str(v)),
    Part("order", "order", list, fresh=True,
         copy=lambda order, new: [new.combatants[c.id] for c in order],  # after combatants
         save=lambda b: [c.id for c in b.order],
         load=lambda v, ld: [ld.b.combatants[int(i)] for i in v]),
    Part("_surprise", "surprise",
         save=lambda b: None if b._surprise is None else b._surprise.to_json(),
         load=lambda v, ld: None if v is None else Surprise.from_json(v)),
    Part("initiative_given", "initiative_given",
         save=lambda b: None if b.initiative_given is None else [
             [k, v] for k, v in b.initiative_given.items()],
         load=lambda v, ld: None if v is None else {int(k): int(n) for k, n in v}),
    Part("stack", "flow", list, fresh=True, copy=lambda stack, new: [f.copy() for f in stack],
         save=lambda b: [f.to_json() for f in b.stack],
         load=lambda v, ld: [Frame.from_json(f, ld.tables) for f in v]),
    Part("pending", "pending", save=_pending_json, load=_load_pending),  # after flow
    Part("dice", "dice", arg=True, save=_dice_json, load=_load_dice),
    Part("log", "log", EventLog, fresh=True, copy=lambda log, new: EventLog(log.events),
         save=lambda b: b.log.to_json(), load=_load_log, optional=True),
    # never saved: a cache, rebuilt on demand, and the header's note of a state file
    Part("_plans", None, dict, fresh=True, copy=lambda plans, new: dict(plans)),
    Part("_plans_for", None, -1),
    Part("standing", None),
)
# what Battle() sets, clone() copies and to_state() writes, worked out once
_STARTS: Final[tuple[tuple[str, Any, bool], ...]] = tuple(
    (p.attr, p.start, p.fresh) for p in STATE if p.attr and not p.arg)
_CLONES: Final = tuple((p.attr, p.copy) for p in STATE if p.attr and not p.arg)
_SAVED: Final[tuple[tuple[str, str, Callable[[Battle], Any] | None, bool], ...]] = tuple(
    (p.key, p.attr, p.save, p.optional) for p in STATE if p.key is not None)


__all__ = [
    "ADJACENT_YARDS",
    "ENGAGE_YARDS",
    "LOG_VERSION",
    "REACH_SLACK",
    "STATE",
    "Battle",
    "Fighter",
    "Loading",
    "Part",
    "declarations",
    "field_from_json",
    "field_to_json",
    "flank_bonus",
    "sheet_of",
]
