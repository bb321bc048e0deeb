"""Who plays on in ``suggest``'s simulated fights: cheap policies that still fight well.

The tactician's declaration (INIT-5 by exact odds over every mix of actions,
Celerity and Willpower) is two thirds of a rollout's cost in a fight of three or
four; :class:`QuickTactician` declares by the nearest policy's rule of thumb
(one action, every Celerity action it can afford) and plays every other
decision as the tactician does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from vtm_sim.core.choices import Action, ActionKind, Choice, Decision, DecisionKind
from vtm_sim.engine.battle import Battle
from vtm_sim.policies.nearest import NearestEnemyPolicy
from vtm_sim.policies.play import Policy
from vtm_sim.policies.tactician import TacticianPolicy

if TYPE_CHECKING:
    from vtm_sim.policies.registry import PolicyMaker


class QuickTactician:
    """The tactician, declaring as the nearest policy does (far cheaper). Built by
    composition: the tactician is compiled in the compiled build, where an interpreted
    class may not inherit from it."""

    def __init__(self) -> None:
        self.tactician = TacticianPolicy()

    def choose(self, battle: Battle, decision: Decision) -> Choice:
        if decision.kind is DecisionKind.DECLARE:
            return NearestEnemyPolicy._declare(decision)
        return self.tactician.choose(battle, decision)


class Runner:
    """An NPC that wants out (``suggest --goal escape``, in the simulated fights): flees
    (MOVE-4) or keeps running when it may, else moves away from the nearest enemy, else
    plays as ``base`` does; declares one action (the nearest policy's rule)."""

    def __init__(self, base: Policy) -> None:
        self.base = base

    def choose(self, battle: Battle, decision: Decision) -> Choice:
        if decision.kind is DecisionKind.DECLARE:
            return NearestEnemyPolicy._declare(decision)
        if decision.kind is DecisionKind.ACT:
            acts = [o for o in decision.options if isinstance(o, Action)]
            for o in acts:
                if o.kind is ActionKind.FLEE:
                    return o
            for o in acts:
                if o.kind is ActionKind.MOVE and o.away:
                    return o
        return self.base.choose(battle, decision)


def runner(playout: Callable[[int], Policy]) -> Callable[[int], Policy]:
    """A runner for every combatant, falling back on ``playout``'s policy."""
    return lambda cid: Runner(playout(cid))


def _nearest(_cid: int) -> Policy:
    return NearestEnemyPolicy()


def _quick(_cid: int) -> Policy:
    return QuickTactician()


def advice_playout(combatants: int) -> Callable[[int], Policy]:
    """``suggest``'s playouts: nearest in a duel (as the planner's), the quick tactician
    past two."""
    return _nearest if combatants <= 2 else _quick


class SeededPlayout:
    """A registry policy as a playout (combatant id -> policy) whose draws come from one
    generator, seeded ``[seed, 7]`` (as a battle's policies are); :meth:`reseed` renews
    it, so that each simulated fight, reseeded with its own key first, draws the same
    whichever worker plays it and in whatever order (:mod:`vtm_sim.analysis.search`)."""

    def __init__(self, make: PolicyMaker, seed: int) -> None:
        import numpy as np

        self._make = make
        self._seed = seed
        self._np = np
        self.rng = np.random.default_rng([seed, 7])

    def __call__(self, cid: int) -> Policy:
        return self._make(self.rng, cid)

    def reseed(self, *key: int) -> None:
        """Draw from now on from a generator of ``[seed, 7, *key]``."""
        self.rng = self._np.random.default_rng([self._seed, 7, *key])


def reseed(playout: Callable[[int], Policy], *key: int) -> None:
    """Renew a playout's draws for the simulated fight ``key`` (those that draw at all:
    a :class:`SeededPlayout`); the others are deterministic already."""
    if isinstance(playout, SeededPlayout):
        playout.reseed(*key)
