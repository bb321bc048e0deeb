"""A search-based NPC: every option judged by how often the fight is won after it.

At a decision with more than one legal option, the planner forks the battle
(:meth:`~vtm_sim.battle.Battle.clone`) once per rollout, takes the option in
the fork, and lets a cheap playout policy finish the fight with dice of its
own (never the battle's own dice stream: the planner cannot see the future).
Rollout budgets are spent by sequential halving (Karnin, Koren and Somekh,
2013): every option gets a share, the worse half is dropped, and the rest
share the next round, so the budget goes where the choice is close. Rollout
``k`` of every option uses the same dice seed (common random numbers), so two
options are compared on the same luck.

The result of a rollout is 1 for a win of the deciding side, 1/2 for a draw
(turn limit, or nobody left), 0 for a loss.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from vtm_sim.battle import Battle
from vtm_sim.choices import Action, ActionKind, Choice, Decision, DecisionKind, Declaration
from vtm_sim.dice import RngDice
from vtm_sim.policy import NearestEnemyPolicy
from vtm_sim.simulate import Policy
from vtm_sim.tactics import TacticianPolicy, estimate

Z95 = 1.959963984540054  # two-sided 95% normal quantile


@dataclass(frozen=True, slots=True)
class OptionValue:
    """What the rollouts say of one option."""

    choice: Choice
    rollouts: int
    wins: float  # wins plus half the draws

    @property
    def p_win(self) -> float:
        return self.wins / self.rollouts if self.rollouts else 0.0

    @property
    def ci95(self) -> tuple[float, float]:
        """Wilson score interval of ``p_win``."""
        n = self.rollouts
        if n == 0:
            return 0.0, 1.0
        p = self.p_win
        z2 = Z95 * Z95
        centre = (p + z2 / (2 * n)) / (1 + z2 / n)
        half = Z95 * math.sqrt(max(0.0, p * (1 - p) / n + z2 / (4 * n * n))) / (1 + z2 / n)
        return max(0.0, centre - half), min(1.0, centre + half)


def rollout(battle: Battle, choice: Choice, side: int, seed: int,
            playout: Callable[[int], Policy], max_decisions: int = 5000) -> float:
    """Fork ``battle``, take ``choice``, play on with ``playout``; 1, 1/2 or 0 for ``side``."""
    fork = battle.clone(dice=RngDice(np.random.default_rng(seed), batch=256))
    fork.choose(choice)
    policies = [playout(c.id) for c in fork.combatants]
    n = 0
    while fork.pending is not None and n < max_decisions:
        d = fork.pending
        fork.choose(policies[d.actor].choose(fork, d))
        n += 1
    if fork.winner is None:
        return 0.5
    return 1.0 if fork.winner == side else 0.0


def evaluate(
    battle: Battle,
    decision: Decision,
    *,
    budget: int,
    seed: int,
    playout: Callable[[int], Policy] | None = None,
    options: Sequence[Choice] | None = None,
    min_rollouts: int = 1,
) -> list[OptionValue]:
    """Every option's win chance by rollouts, best first (sequential halving).

    ``budget`` is the total number of rollouts; each option gets at least
    ``min_rollouts`` (more when the budget allows) before any is dropped.
    Deterministic for a ``seed``.
    """
    make = playout or _nearest
    opts = list(options if options is not None else decision.options)
    side = battle.combatants[decision.actor].side
    wins = [0.0] * len(opts)
    runs = [0] * len(opts)
    alive = list(range(len(opts)))
    rounds = max(1, math.ceil(math.log2(len(opts)))) if len(opts) > 1 else 1
    spent = 0
    seeds = np.random.default_rng(seed).integers(0, 2**63 - 1, size=max(1, budget * 2))
    for r in range(rounds):
        left = budget - spent
        if left <= 0 or not alive:
            break
        per = max(min_rollouts if r == 0 else 1, left // ((rounds - r) * len(alive)))
        for i in alive:
            for _ in range(per):
                k = runs[i]
                wins[i] += rollout(battle, opts[i], side, int(seeds[k % seeds.size]), make)
                runs[i] += 1
                spent += 1
        if r < rounds - 1 and len(alive) > 1:
            alive.sort(key=lambda i: (-wins[i] / max(1, runs[i]), i))
            alive = alive[: max(1, math.ceil(len(alive) / 2))]
    values = [OptionValue(o, runs[i], wins[i]) for i, o in enumerate(opts)]
    order = sorted(range(len(opts)), key=lambda i: (-runs[i], -values[i].p_win, i))
    # the survivors of the last round first (most rollouts), then by win chance
    return [values[i] for i in order]


def _nearest(_cid: int) -> Policy:
    return NearestEnemyPolicy()


# what the planner always keeps among an ACT decision's options (besides the best attacks)
KEPT_ACTIONS = frozenset({
    ActionKind.MOVE, ActionKind.TAKE_COVER, ActionKind.RELOAD, ActionKind.AIM,
    ActionKind.GET_UP, ActionKind.CLEAR, ActionKind.CRUSH, ActionKind.BREAK_FREE,
    ActionKind.FEED, ActionKind.RELEASE, ActionKind.DRAW,
})
TOP_ATTACKS = 3  # attack options kept, best by exact odds


def candidates(battle: Battle, decision: Decision) -> list[Choice]:
    """The options worth rollouts: what the tactician and nearest would pick, the best
    attacks by exact odds, and every kind of non-attack move; all of a small decision."""
    opts = list(decision.options)
    if len(opts) <= 6:
        return opts
    picks: list[Choice] = [TacticianPolicy().choose(battle, decision),
                           NearestEnemyPolicy().choose(battle, decision)]
    me = battle.combatants[decision.actor]
    if decision.kind is DecisionKind.ACT:
        scored = []
        for o in opts:
            if isinstance(o, Action) and o.kind is ActionKind.ATTACK:
                plan = battle.plan(me.id, o)
                if plan is not None:
                    scored.append((-estimate(battle, me, o, plan).value, opts.index(o), o))
        picks += [o for _, _, o in sorted(scored)[:TOP_ATTACKS]]
        picks += [o for o in opts if isinstance(o, Action) and o.kind in KEPT_ACTIONS]
    elif decision.kind is DecisionKind.DECLARE:
        picks += [o for o in opts if isinstance(o, Declaration) and (
            o.full_defense or (o.actions <= 2 and o.celerity in (0, max_celerity(opts))))]
    else:
        picks = opts
    out: list[Choice] = []
    for o in picks:
        if o not in out:
            out.append(o)
    return out


def max_celerity(opts: Sequence[Choice]) -> int:
    return max((o.celerity for o in opts if isinstance(o, Declaration)), default=0)


class PlannerPolicy:
    """Picks the option with the best win chance by rollouts (see the module).

    Args:
        rollouts: rollouts per decision, spread over its options.
        seed: seeds the rollouts' dice (the planner's own generator).
        playout: policy factory for every combatant in the rollouts (default nearest).
    """

    def __init__(self, rollouts: int = 64, seed: int = 0,
                 playout: Callable[[int], Policy] | None = None) -> None:
        self.rollouts = rollouts
        self.rng = np.random.default_rng(seed)
        self.playout = playout
        self.last: list[OptionValue] = []

    def explain(self) -> str:
        return (f"tries every option in {self.rollouts} simulated fights a decision "
                "and takes the one that wins most")

    def choose(self, battle: Battle, decision: Decision) -> Choice:
        if len(decision.options) == 1:
            return decision.options[0]
        seed = int(self.rng.integers(0, 2**63 - 1))
        opts = candidates(battle, decision)
        if len(opts) == 1:
            return opts[0]
        self.last = evaluate(battle, decision, budget=self.rollouts, seed=seed,
                             playout=self.playout, options=opts)
        return self.last[0].choice
