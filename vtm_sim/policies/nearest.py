"""A simple built-in policy: attack the nearest able enemy with the best pool."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from vtm_sim.core.choices import (
    Action,
    ActionKind,
    BloodSpend,
    BloodUse,
    Choice,
    Decision,
    DecisionKind,
    Declaration,
    Defense,
    DefenseKind,
)
from vtm_sim.core.maneuvers import Maneuver, names_where
from vtm_sim.engine.battle import Battle
from vtm_sim.engine.chase import pursuit
from vtm_sim.engine.effects import hurts
from vtm_sim.mechanics.attack import SHOOTING, defense_pool, hand_weapon

if TYPE_CHECKING:
    import numpy as np


def _bites(spec: Maneuver) -> bool:
    return spec.grapple and hurts(spec)  # MAN-8: a bite (not the kiss)


# read for every option in the loops of _act: module constants (see vtm_sim.core.symbol)
_ATTACK: Final = ActionKind.ATTACK
_FEED: Final = ActionKind.FEED


class NearestEnemyPolicy:
    """Rules of thumb a Storyteller would use for a plain NPC.

    Declares one action (plus every Celerity action it can afford), attacks the
    nearest able enemy with the maneuver whose pool minus difficulty is best,
    closes in when nothing reaches, reloads an empty gun, and defends with the
    best pool when that costs no aborted action.
    """

    def choose(self, battle: Battle, decision: Decision) -> Choice:
        if decision.kind is DecisionKind.BLOOD:
            return self._blood(battle, decision)
        if decision.kind is DecisionKind.DECLARE:
            return self._declare(decision)
        if decision.kind is DecisionKind.DEFEND:
            return self._defend(battle, decision)
        return self._act(battle, decision)

    def explain(self) -> str:
        return "attacks the nearest able enemy with its best pool; defends when it is free"

    @staticmethod
    def _blood(battle: Battle, decision: Decision) -> Choice:
        heals = [o for o in decision.options
                 if isinstance(o, BloodSpend) and o.use is BloodUse.HEAL]
        if heals:
            return max(heals, key=lambda o: o.points)
        return decision.options[0]

    @staticmethod
    def _declare(decision: Decision) -> Choice:
        best = max(
            (
                o
                for o in decision.options
                if isinstance(o, Declaration)
                and o.actions == 1
                and not o.full_defense
                and not o.willpower
            ),
            key=lambda o: o.celerity,
        )
        return best

    @staticmethod
    def _defend(battle: Battle, decision: Decision) -> Choice:
        me = battle.combatants[decision.actor]
        best: Choice = decision.options[0]
        best_pool = 0
        spec = battle.tables.maneuvers.get(decision.maneuver or "")
        ranged = spec is not None and not spec.close
        if ranged and not me.prone and battle.field.nearest_cover(me.x, me.y, 1.0) is None and (
            hand_weapon(me, False)[0].cls not in SHOOTING
        ):
            return best  # DEF-5: dodging fire in the open means lying prone: not for a brawler
        for o in decision.options:
            if isinstance(o, Defense) and o.kind is not DefenseKind.NONE and o.abort is None:
                pool = defense_pool(me, o.kind, 0)
                if pool > best_pool:
                    best, best_pool = o, pool
        return best

    @staticmethod
    def _act(battle: Battle, decision: Decision) -> Choice:
        me = battle.combatants[decision.actor]
        actions = [o for o in decision.options if isinstance(o, Action)]
        for o in actions:
            if o.kind is _FEED:
                return o
        table = battle.tables.maneuvers
        hurting, bites = names_where(table, "hurts", hurts), names_where(table, "bites", _bites)
        for o in actions:  # MAN-8: a vampire in a clinch bites rather than squeezes
            if o.kind is _ATTACK and o.maneuver in bites and o.called is None:
                return o
        for kind in (ActionKind.CRUSH, ActionKind.BREAK_FREE):
            for o in actions:
                if o.kind is kind:
                    return o
        w, idx = hand_weapon(me, False)
        if idx >= 0 and w.cls in SHOOTING and me.ammo[idx] == 0:
            for o in actions:  # reload an empty gun rather than wade in with fists
                if o.kind in (ActionKind.RELOAD, ActionKind.CLEAR):
                    return o
        attacks = [
            o for o in actions
            if o.kind is _ATTACK and o.called is None and not o.offhand
            and o.maneuver in hurting
        ]
        if attacks:  # the nearest target (to 1/1000 yard), then the best pool and damage
            best, best_key = attacks[0], (0.0, 0.0)
            near: dict[int, float] = {}  # target -> minus its distance (round() is slow)
            for i, a in enumerate(attacks):
                t = a.target
                assert t is not None
                d = near.get(t)
                if d is None:
                    d = near[t] = -round(me.distance(battle.combatants[t]), 3)
                p = battle.plan(me.id, a)
                edge = -99.0 if p is None else p.pool * (11 - p.difficulty) / 10 + p.damage_base
                if i == 0 or (d, edge) > best_key:  # as max(): the first of equals
                    best, best_key = a, (d, edge)
            return best
        for kind in (ActionKind.CLEAR, ActionKind.RELOAD, ActionKind.GET_UP):
            for o in actions:
                if o.kind is kind:
                    return o
        run = pursuit(battle, me, actions)
        if run is not None:  # MOVE-4: nothing to hit: run after whoever flees
            return run
        enemies = battle.enemies(me)
        if enemies:
            nearest = min(enemies, key=lambda e: (me.distance(e), e.id))
            for o in actions:
                if o.kind is ActionKind.MOVE and o.target == nearest.id and not o.away:
                    return o
        return next((o for o in actions if o.kind is ActionKind.PASS), decision.options[-1])


class RandomPolicy:
    """Uniformly random legal choices from its own seeded generator (fuzzing, baselines)."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng

    def choose(self, battle: Battle, decision: Decision) -> Choice:
        return decision.options[int(self.rng.integers(len(decision.options)))]

    def explain(self) -> str:
        return "picks any legal option at random"
