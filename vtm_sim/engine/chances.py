"""Chance points: the roll an option leads to, before any die is cast.

:func:`chance_point` (``Battle.chance``) takes an ATTACK option of the pending
decision in a copy of the battle and runs the turn machine on the copy until it
asks for its first die. When that first die is the attack's, the attack stands
as it will be rolled: closed in (ACT-4), planned, its rounds spent, Willpower
spent on it (DICE-8), and the target's defense asked (by ``defend``) and taken
with its multiple-action penalty (DEF-2, DEF-3, DEF-7). The
:class:`ChancePoint` says all of that; the battle itself is not changed.

A defense that aborts the target's declared action by a Willpower roll
(DEF-3) is a roll too: the copy takes it as a success (the point's
``abort_roll`` gives the roll, so a caller mixes the odds with and without the
defense by its chance), and the point is the attack roll after it. An option
that reaches another roll first (a jump on the way in, MOVE-3), or none at all
(an attack that fails at once: out of reach, no pool), has no chance point.

:func:`with_weapon_drawn` is the other look ahead the tools take: the pending
action asked again as if a weapon were in hand already (what drawing it would
offer next). :func:`acting` asks any combatant's action in a copy, the state
otherwise as it stands (no decision played, no die rolled): what a tactic card
reads off a state file.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from vtm_sim.core.choices import (
    NO_DEFENSE,
    AbortMethod,
    Action,
    ActionKind,
    Choice,
    Decision,
    DecisionKind,
    Defense,
    DefenseKind,
)
from vtm_sim.engine.flow import ACT_ASKED, TURNS_LOOP, Frame, Routine
from vtm_sim.engine.queries import can_decide
from vtm_sim.mechanics.attack import BASE_DIFFICULTY, SPRAY_DODGE, AttackPlan
from vtm_sim.mechanics.combatant import Combatant

if TYPE_CHECKING:
    from vtm_sim.engine.battle import Battle

# who picks a defense asked on the way to the roll: (the copy, its DEFEND decision) -> choice
DefenseChooser = Callable[["Battle", Decision], Choice]


@dataclass(frozen=True, slots=True)
class ChancePoint:
    """An attack about to be rolled: what its one roll decides.

    ``plan`` is the attack as rolled (pool, difficulty, damage, after closing in);
    ``targets`` everyone the roll is against (a spray's area, RNG-6; else the
    target alone); ``defense`` and ``defense_penalty`` the target's defense as
    taken (DefenseKind.NONE: none) and its dice penalty; ``defense_extra`` what
    the target's defense difficulty has over the base (ATK-8 opponents, CPX-1,
    MOVE-2; not the spray's +1, see :attr:`defense_difficulty`); ``offered``
    the defenses the target was offered (empty: it had no choice);
    ``abort_roll`` the (pool, difficulty) of the DEF-3 Willpower roll the
    defense hangs on (None: none; failed, the target does not defend);
    ``defender`` a copy of the target as it stands at the roll (its defense
    taken: the actions it has used, its health).
    """

    actor: int
    target: int
    plan: AttackPlan
    willpower: bool
    targets: tuple[int, ...]
    defense: DefenseKind
    defense_penalty: int
    defense_extra: int
    defender: Combatant
    offered: tuple[Defense, ...] = ()
    abort_roll: tuple[int, int] | None = None

    @property
    def defense_difficulty(self) -> int:
        """The difficulty of the target's defense roll (RNG-6: +1 against a spray)."""
        return BASE_DIFFICULTY + self.defense_extra + (SPRAY_DODGE if self.plan.area > 0 else 0)


@dataclass(frozen=True, slots=True)
class _Seen:
    """The attack frame and the target's modifiers when the first die was asked for."""

    plan: AttackPlan | None
    willpower: bool
    ids: tuple[int, ...]
    defenses: tuple[tuple[DefenseKind, int], ...]
    extra: int
    action: Action | None
    defender: Combatant | None


class _Watch:
    """Dice for the copy: ``free`` rolls of all tens (aborts taken as made), then the
    state at the first roll is noted (:class:`_Seen`), and the copy plays the routine
    under way out on faces of 2 (read by no one) and ends."""

    __slots__ = ("battle", "free", "seen", "target")

    def __init__(self, target: int) -> None:
        self.battle: Battle | None = None
        self.free = 0
        self.seen: _Seen | None = None
        self.target = target

    @property
    def rolled(self) -> bool:
        return self.seen is not None

    def faces(self, n: int) -> list[int]:
        if self.seen is not None:
            return [2] * n
        if self.free > 0:
            self.free -= 1
            return [10] * n
        b = self.battle
        assert b is not None
        f = b.stack[-1] if b.stack else None
        if f is None or f.routine is not Routine.ATTACK:
            self.seen = _Seen(None, False, (), (), 0, None, None)
        else:
            t = b.combatants[self.target]
            self.seen = _Seen(f.plan, f.wp, f.ids, f.defenses,
                              b.opponents_modifier(t) + b.physical_difficulty(t), f.action,
                              t.copy())
        # Nothing after this roll is read: everyone on one side, the copy's fight ends
        # once the routine under way is done, and no next decision's options are built.
        for c in b.combatants:
            c.side = 0
        return [2] * n


def _no_defense(_battle: Battle, d: Decision) -> Choice:
    return NO_DEFENSE if NO_DEFENSE in d.options else d.options[0]


def chance_point(battle: Battle, choice: Choice,
                 defend: DefenseChooser | None = None) -> ChancePoint | None:
    """The roll ATTACK option ``choice`` of the pending decision leads to (None: not an
    attack, or it fails or rolls something else first; see the module).

    ``defend`` picks every defense asked on the way (default: none taken); it is
    called with the copy at its DEFEND decision. ``battle`` is not changed.
    """
    if not isinstance(choice, Action) or choice.kind is not ActionKind.ATTACK:
        return None
    target = choice.target
    if target is None or battle.pending is None:
        return None
    pick = defend if defend is not None else _no_defense
    watch = _Watch(target)
    fork = battle.clone(dice=watch)
    watch.battle = fork
    actor = battle.pending.actor
    offered: tuple[Defense, ...] = ()
    abort_roll: tuple[int, int] | None = None
    d = fork.choose(choice)
    while watch.seen is None and d is not None and d.kind is DecisionKind.DEFEND:
        guard = pick(fork, d)
        assert isinstance(guard, Defense)
        if d.actor == target and not offered:
            offered = tuple(o for o in d.options if isinstance(o, Defense))
            if guard.abort is AbortMethod.ROLL:
                who = fork.combatants[target]
                abort_roll = (who.stats.willpower, fork.rules.abort_difficulty)
        if guard.abort is AbortMethod.ROLL:
            watch.free += 1  # the abort roll succeeds in the copy (abort_roll says its chance)
        d = fork.choose(guard)
    seen = watch.seen
    if seen is None or seen.plan is None or seen.defender is None or seen.action != choice:
        return None  # no roll, or another one first (a jump on the way in)
    plan = seen.plan
    targets = seen.ids if plan.area > 0 else (target,)
    kind, pen = DefenseKind.NONE, 0
    if target in targets and targets.index(target) < len(seen.defenses):
        kind, pen = seen.defenses[targets.index(target)]
    return ChancePoint(actor, target, plan, seen.willpower, targets, kind, pen, seen.extra,
                       seen.defender, offered, abort_roll)


def with_weapon_drawn(battle: Battle, weapon: int) -> Battle:
    """A copy of ``battle`` at its pending ACT decision with the actor's weapon number
    ``weapon`` in hand, the decision asked again: the options drawing it would lead to
    (the copy's ``pending``). ``battle`` is not changed."""
    d = battle.pending
    if d is None or d.kind is not DecisionKind.ACT or not battle.stack:
        raise ValueError("with_weapon_drawn: the battle is not at an ACT decision")
    fork = battle.clone()
    fork.combatants[d.actor].wielding = weapon
    fork.pending = fork.ask(fork.stack[-1])
    return fork


def acting(battle: Battle, actor: int, *, declared: int | None = None) -> Battle | None:
    """A copy of ``battle`` at an ACT decision of combatant ``actor``, everything else as
    it stands: no decision played, no die rolled (the copy's ``pending``; None when the
    actor cannot act now: down, staked, stunned, CPX-2, CPX-5, or out of actions this
    turn). ``battle`` is not changed.

    The pending ACT decision of ``actor`` when there is one. Otherwise the actor is asked
    as the engine asks it (:meth:`Battle.ask`) with what it has declared so far: at a
    turn's start (a state file's turn, begun at its declarations) everyone stands as the
    turn's start leaves them, one action declared (INIT-5) and not yet taken, so a target
    defends by aborting it (DEF-3). ``declared``: the actions the actor has declared
    this turn instead (INIT-5; ACT-1: its multiple-action penalty). The copy's turn
    sequence ends after the action (it is for looking at, or rolling, that one action:
    :func:`chance_point`, :func:`with_weapon_drawn`).
    """
    d = battle.pending
    if d is not None and d.kind is DecisionKind.ACT and d.actor == actor:
        fork = battle.clone()  # as asked (an ambush's attack too, ATK-11)
    else:
        if battle.over or not battle.stack:
            return None
        c = battle.combatants[actor]
        if not can_decide(battle, c) or c.full_defense or c.actions_left <= 0:
            return None
        fork = battle.clone()
        fork.stack = [Frame(Routine.TURNS, TURNS_LOOP),
                      Frame(Routine.ACT, ACT_ASKED, actor, first=not c.acted)]
    if declared is not None:
        fc = fork.combatants[actor]
        fc.declared = max(declared, fc.declared_used + 1)
    fork.pending = fork.ask(fork.stack[-1])
    return fork
