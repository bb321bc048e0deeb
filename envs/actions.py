"""The action catalog: every choice the engine can offer, as one fixed ``Discrete`` index.

The catalog is built from the engine's own tables and constants (the rows of
``configs/maneuvers.yaml`` in file order, ``ActionKind``, ``DefenseKind``,
``AbortMethod``, ``CalledShot``, ``BloodUse``, ``RuleSet.max_actions``), so a
maneuver row or action kind added to the engine enters the catalog without a
change here (new rows go last in the file, so the ids of the others stay).
It depends only on the scenario's size (the target slots), its largest weapon
list and Celerity rating, the maneuver table and the rules profile, so one env
instance keeps one action space for its whole life.

Targets are relative to the observer, as the observation's rows are (layout
version 6): target slot ``k`` is the ``k``-th *other* combatant in id order, the
combatant of the observation's ``others`` row ``k``. So the same index means the
same thing from every seat, and one policy plays any of them. A catalog belongs to
one observer (:attr:`ActionCatalog.observer`); :meth:`ActionCatalog.seat` gives
another's, with the same indices and size, and :meth:`ActionCatalog.mask` reads a
decision in the catalog of the combatant it asks. ``slots`` may pad the target slots
beyond the fight's others (a common action space over fights of different sizes):
the padding slots name no combatant and are never legal.

Layout, in order (blocks by decision kind):

1. BLOOD: ``BloodSpend(NONE, 0)``, then every other ``BloodUse`` x points
   1..``blood_points`` (the largest per-turn spend of the generation table).
2. DECLARE: actions 1..``max_actions`` x Celerity 0..``max_celerity`` x
   Willpower x full defense.
3. ACT: ATTACK maneuver x target slot x called shot (none + every
   ``CalledShot``) x off hand; MOVE toward / away per target; DRAW per weapon
   slot (-1 unarmed, 0..``max_weapons``-1); RELOAD and CLEAR (no weapon, or per
   slot); kinds with a target (AIM, CRUSH, BREAK_FREE, RELEASE, FEED, PURSUE
   (MOVE-4), and any kind the engine adds later): no target, then per target;
   the remaining kinds (GET_UP, TAKE_COVER, DROP_PRONE, DELAY, WAIT, PASS,
   FLEE (MOVE-4)) once.
4. DEFEND: every ``DefenseKind`` x abort (none + every ``AbortMethod``).
5. ACT, jumping (MOVE-3, layout version 4): the moves that jump an obstacle
   the plain one would go around (``Action.jump``): MOVE toward / away per
   target, PURSUE per target, TAKE_COVER, FLEE. Last, so every earlier index
   keeps its version-3 place (a model trained on version 3 still fits:
   ``agents.numpy_policy``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Final

import numpy as np

from envs.errors import CatalogError
from vtm_sim.core.choices import (
    NO_DEFENSE,
    AbortMethod,
    Action,
    ActionKind,
    BloodSpend,
    BloodUse,
    CalledShot,
    Choice,
    Decision,
    Declaration,
    Defense,
    DefenseKind,
    shared,
)
from vtm_sim.core.maneuvers import Maneuver
from vtm_sim.data.rules import RuleSet
from vtm_sim.data.tables import Tables, load_tables
from vtm_sim.files.scenarios import Scenario

__all__ = ["MAX_CELERITY", "ActionCatalog", "CatalogError", "passive_choice"]

MAX_CELERITY: Final = 5  # VAMP-3: the catalog covers Celerity 0..5 (more if a sheet has it)
# options tuples remembered with their mask (one catalog-size array each)
MASK_CACHE_LIMIT: Final = 256

UNTARGETED: Final = frozenset(
    {
        ActionKind.GET_UP,
        ActionKind.TAKE_COVER,
        ActionKind.DROP_PRONE,
        ActionKind.DELAY,
        ActionKind.WAIT,
        ActionKind.PASS,
        ActionKind.FLEE,  # MOVE-4: away from the nearest enemy
    }
)
WEAPON_SLOTTED: Final = frozenset({ActionKind.RELOAD, ActionKind.CLEAR})
# The do-nothing answer to each decision kind (illegal_action="penalize").
PASSIVE: Final[tuple[Choice, ...]] = (
    NO_DEFENSE,
    Action(ActionKind.PASS),
    Declaration(),
    BloodSpend(BloodUse.NONE, 0),
)


def _gap(choice: Choice) -> CatalogError:
    return CatalogError(
        f"the engine offered {choice!r}, which the action catalog does not cover: "
        "extend envs/actions.py"
    )


def passive_choice(decision: Decision) -> Choice:
    """The first passive option of a decision (pass, no defense, ...), else its first."""
    options = decision.options
    for p in PASSIVE:
        if p in options:
            return p
    return options[0]


def _blood(points: int) -> list[Choice]:
    out: list[Choice] = [BloodSpend(BloodUse.NONE, 0)]
    for use in BloodUse:
        if use is not BloodUse.NONE:
            out += [BloodSpend(use, n) for n in range(1, points + 1)]
    return out


def _declarations(max_actions: int, max_celerity: int, delay: bool = False) -> list[Choice]:
    """INIT-5; with ``delay`` (INIT-10, ``delay_announced``) the announced delays after
    them (only then: the shipped profiles' catalogs are unchanged)."""
    plain: list[Choice] = [
        Declaration(n, fd, cel, wp)
        for fd in (False, True)
        for n in range(1, max_actions + 1)
        for cel in range(max_celerity + 1)
        for wp in (False, True)
    ]
    if not delay:
        return plain
    return plain + [
        Declaration(n, False, cel, wp, True)
        for n in range(1, max_actions + 1)
        for cel in range(max_celerity + 1)
        for wp in (False, True)
    ]


def _actions(targets: Sequence[int], max_weapons: int, maneuvers: Iterable[str]) -> list[Choice]:
    out: list[Choice] = []
    for kind in ActionKind:
        if kind is ActionKind.ATTACK:
            out += [
                Action(kind, m, t, called=c, offhand=off)
                for m in maneuvers
                for t in targets
                for c in (None, *CalledShot)
                for off in (False, True)
            ]
        elif kind is ActionKind.MOVE:
            out += [Action(kind, target=t, away=a) for t in targets for a in (False, True)]
        elif kind is ActionKind.DRAW:
            out += [Action(kind, weapon=w) for w in range(-1, max_weapons)]
        elif kind in WEAPON_SLOTTED:
            out += [Action(kind)] + [Action(kind, weapon=w) for w in range(max_weapons)]
        elif kind in UNTARGETED:
            out.append(Action(kind))
        else:  # AIM, CRUSH, BREAK_FREE, RELEASE, FEED and kinds added later
            out += [Action(kind)] + [Action(kind, target=t) for t in targets]
    return out


def _defenses() -> list[Choice]:
    return [Defense(k, a) for k in DefenseKind for a in (None, *AbortMethod)]


JUMPING: Final = (ActionKind.MOVE, ActionKind.PURSUE, ActionKind.TAKE_COVER, ActionKind.FLEE)


def _jumps(targets: Sequence[int]) -> list[Choice]:
    """MOVE-3: the moving actions that jump what the plain ones would go around."""
    out: list[Choice] = []
    return out + (
        [Action(ActionKind.MOVE, target=t, away=a, jump=True) for t in targets
         for a in (False, True)]
        + [Action(ActionKind.PURSUE, target=t, jump=True) for t in targets]
        + [Action(ActionKind.TAKE_COVER, jump=True), Action(ActionKind.FLEE, jump=True)]
    )


class ActionCatalog:
    """A fixed bijection between engine choices and ``Discrete`` indices.

    Args:
        num_combatants: the scenario's size.
        rules: the rules profile (``max_actions``).
        max_weapons: the longest weapon list of any combatant.
        max_celerity: the highest Celerity the catalog declares (at least 5).
        blood_points: the most blood points one spend may use.
        maneuvers: the maneuver table, in its order (default: the shipped one).
        observer: the combatant whose catalog this is: target slot ``k`` is its
            ``k``-th other combatant in id order.
        slots: the target slots (default ``num_combatants - 1``; more pads them).
    """

    __slots__ = ("_args", "_by_id", "_masks", "_seats", "choices", "index", "maneuvers",
                 "num_combatants", "observer", "pass_index", "size", "slots", "targets")

    def __init__(
        self,
        num_combatants: int,
        rules: RuleSet,
        *,
        max_weapons: int,
        max_celerity: int = MAX_CELERITY,
        blood_points: int = 10,
        maneuvers: Mapping[str, Maneuver] | None = None,
        observer: int = 0,
        slots: int | None = None,
    ) -> None:
        self.maneuvers = dict(maneuvers if maneuvers is not None else load_tables().maneuvers)
        others = [i for i in range(num_combatants) if i != observer]
        self.slots = len(others) if slots is None else slots
        if not 0 <= observer < num_combatants or self.slots < len(others):
            raise ValueError(f"observer {observer} of {num_combatants} combatants, "
                             f"{self.slots} target slots: expected an id of the fight and "
                             f"at least {len(others)} slots")
        # a padding slot names an id no combatant of the fight has: never offered
        pad = range(num_combatants, num_combatants + self.slots - len(others))
        self.targets: tuple[int, ...] = (*others, *pad)
        self.observer = observer
        self._args = (rules, max_weapons, max_celerity, blood_points)
        self._seats: dict[int, ActionCatalog] = {observer: self}
        choices = (
            _blood(blood_points)
            + _declarations(rules.max_actions, max(MAX_CELERITY, max_celerity),
                            rules.delay_announced)
            + _actions(self.targets, max_weapons, self.maneuvers)
            + _defenses()
            + _jumps(self.targets)
        )
        # The engine's shared objects (vtm_sim.core.choices.shared): the options it
        # offers are these very objects, found by identity below.
        self.choices: tuple[Choice, ...] = tuple(shared(c) for c in choices)
        self.index: dict[Choice, int] = {c: i for i, c in enumerate(self.choices)}
        if len(self.index) != len(self.choices):
            raise AssertionError("duplicate choices in the action catalog")
        # id -> index of the catalog's own choices (alive as long as the catalog,
        # so no other object can have their ids)
        self._by_id = {id(c): i for i, c in enumerate(self.choices)}
        self.size = len(self.choices)
        self.num_combatants = num_combatants
        # the one action legal in the mask once an episode is over (final_mask)
        self.pass_index = self.index[shared(Action(ActionKind.PASS))]
        # The masks of options tuples seen lately, by identity: id(options) ->
        # (options, mask). The entry keeps the tuple alive, so its id cannot
        # name another object meanwhile; a tuple of frozen choices never
        # changes, so one tuple has one mask. The engine hands out the same
        # tuple again for repeated option lists (every declaration list), and
        # looking choices up by value costs a Python-level hash and __eq__ each.
        self._masks: dict[int, tuple[tuple[Choice, ...], np.ndarray]] = {}

    @classmethod
    def for_scenario(cls, scenario: Scenario, tables: Tables | None = None, *,
                     observer: int = 0) -> ActionCatalog:
        """The catalog of a scenario (its size, weapons, Celerity and rules profile) for
        combatant ``observer``."""
        tables = tables or load_tables()
        stats = [f.stats for f in scenario.fighters]
        return cls(
            len(stats),
            scenario.rules,
            max_weapons=max(len(s.weapons) for s in stats),
            max_celerity=max(s.discipline("celerity") for s in stats),
            blood_points=max(g.per_turn for g in tables.generations.values()),
            maneuvers=tables.maneuvers,
            observer=observer,
        )

    def seat(self, observer: int) -> ActionCatalog:
        """The same catalog for combatant ``observer`` (same size and layout, targets
        relative to it), built once and shared by every seat's catalog."""
        got = self._seats.get(observer)
        if got is None:
            rules, max_weapons, max_celerity, blood_points = self._args
            got = ActionCatalog(self.num_combatants, rules, max_weapons=max_weapons,
                                max_celerity=max_celerity, blood_points=blood_points,
                                maneuvers=self.maneuvers, observer=observer, slots=self.slots)
            got._seats = self._seats
            self._seats[observer] = got
        return got

    def __len__(self) -> int:
        return self.size

    def indices(self, options: Iterable[Choice]) -> list[int]:
        """The indices of ``options``; raises :class:`CatalogError` on a gap."""
        index = self.index
        try:
            return [index[o] for o in options]
        except KeyError as exc:
            raise _gap(exc.args[0]) from None

    def mask(self, decision: Decision | None) -> np.ndarray:
        """A new int8 array with 1 at every legal index (all zeros with no decision), in
        the catalog of the combatant the decision asks (:meth:`seat`)."""
        if decision is None:
            return np.zeros(self.size, dtype=np.int8)
        if decision.actor != self.observer:
            return self.seat(decision.actor).mask(decision)
        options = decision.options
        masks = self._masks
        hit = masks.get(id(options))
        if hit is not None and hit[0] is options:
            return hit[1].copy()
        m = np.zeros(self.size, dtype=np.int8)
        index = self.index
        by_id = self._by_id
        try:
            for o in options:
                i = by_id.get(id(o))
                # one int index at a time: cheaper than m[list] for a few
                m[index[o] if i is None else i] = 1
        except KeyError as exc:
            raise _gap(exc.args[0]) from None
        if type(options) is tuple:  # immutable: safe to remember by identity
            if len(masks) >= MASK_CACHE_LIMIT:
                masks.clear()
            masks[id(options)] = (options, m)
        return m.copy()

    def final_mask(self) -> np.ndarray:
        """The mask once an episode is over: the pass action alone (int8).

        Never all zeros, so a masked softmax (logits at ``-inf`` outside the mask, as
        torch's ``Categorical`` takes them) stays finite on a final observation; the
        env never plays it (a finished episode takes no more steps)."""
        m = np.zeros(self.size, dtype=np.int8)
        m[self.pass_index] = 1
        return m

    def describe(self, i: int) -> str:
        """A short label of index ``i``, e.g. ``act:attack punch ->1`` (the target's
        combatant id; ``->slot 3`` for a padding slot)."""
        c = self.choices[i]
        if isinstance(c, BloodSpend):
            return f"blood:{c.use.value} {c.points}"
        if isinstance(c, Declaration):
            bits = ["full defense" if c.full_defense else f"{c.actions} actions"]
            if c.celerity:
                bits.append(f"celerity {c.celerity}")
            if c.willpower:
                bits.append("willpower")
            if c.delay:
                bits.append("delay")
            return "declare:" + ", ".join(bits)
        if isinstance(c, Defense):
            return f"defend:{c.kind.value}" + (f" abort {c.abort.value}" if c.abort else "")
        bits = [c.kind.value]
        if c.maneuver:
            bits.append(c.maneuver)
        if c.called:
            bits.append(f"called {c.called.value}")
        if c.offhand:
            bits.append("off hand")
        if c.weapon is not None:
            bits.append(f"weapon {c.weapon}")
        if c.target is not None:
            who = (str(c.target) if c.target < self.num_combatants
                   else f"slot {self.targets.index(c.target)}")
            bits.append(("<-" if c.away else "->") + who)
        if c.jump:
            bits.append("jumping")
        return "act:" + " ".join(bits)

    def labels(self) -> Sequence[str]:
        return [self.describe(i) for i in range(self.size)]
