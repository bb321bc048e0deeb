"""The advice as a policy: ``suggest``'s search at every decision, on a fixed budget.

:class:`AdvisorPolicy` plays a fight as an NPC following ``vtm-sim suggest
--decision`` would, with the same compute per decision as the planner (a total
number of simulated fights a decision): the options raced are the planner's
candidates plus what the goal adds (:func:`~vtm_sim.analysis.advice.act_candidates`),
over common dice, scored by the goal (:mod:`vtm_sim.analysis.goals`), the prior's
pick (the tactician's, with grapples, as the planner's prior) kept unless another option is
better beyond the noise.
``experiments/advice_quality.py`` measures it against the planner and the ladder.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from vtm_sim.analysis.advice import act_candidates, horizon_for, own_playout
from vtm_sim.analysis.goals import Goal
from vtm_sim.analysis.search import TIE_Z, Budget, Job, paired, race, tied
from vtm_sim.core.choices import Choice, Decision, DecisionKind
from vtm_sim.core.goals import GoalKind
from vtm_sim.engine.battle import Battle
from vtm_sim.policies.planner import candidates
from vtm_sim.policies.play import Policy
from vtm_sim.policies.playouts import Runner
from vtm_sim.policies.tactician import TacticianPolicy

MARGIN = 0.03  # the planner's margin: how much better than the prior another option must be
SEARCHED = frozenset({DecisionKind.DECLARE, DecisionKind.ACT, DecisionKind.DEFEND,
                      DecisionKind.BLOOD})


class AdvisorPolicy:
    """Decides as ``suggest`` advises, for ``goal`` (a :class:`~vtm_sim.analysis.goals.GoalKind`
    and, for the named goals, a combatant id), ``rollouts`` simulated fights a decision."""

    def __init__(self, playout: Callable[[int], Policy], *, goal: GoalKind = GoalKind.WIN,
                 target: int | None = None, rollouts: int = 64, seed: int = 0,
                 horizon: int | None = None, prior: Policy | None = None) -> None:
        self.playout = playout
        self.crowd_prior: Policy | None = None
        if prior is None:
            prior = TacticianPolicy(grapple=True)
            # past two, as the planner's (PlannerPolicy.for_fight): called shots weighed too
            self.crowd_prior = TacticianPolicy(grapple=True, called=True)
            if goal is GoalKind.ESCAPE:
                prior = Runner(prior)  # the flight, unless the rollouts say otherwise
        self.prior: Policy = prior
        self.goal = goal
        self.target = target
        self.rollouts = rollouts
        self.rng = np.random.default_rng(seed)
        self.horizon = horizon

    def choose(self, battle: Battle, decision: Decision) -> Choice:
        npc = decision.actor
        crowd = self.crowd_prior is not None and len(battle.combatants) > 2
        if crowd and self.goal is not GoalKind.ESCAPE:
            assert self.crowd_prior is not None
            prior = self.crowd_prior.choose(battle, decision)
        else:
            prior = self.prior.choose(battle, decision)
        if len(decision.options) == 1 or decision.kind not in SEARCHED:
            return prior
        goal = Goal(self.goal, npc, self.target)
        if decision.kind is DecisionKind.ACT:
            opts = act_candidates(battle, decision, goal, prior)
        else:
            opts = candidates(battle, decision, prior)
        opts = opts[: max(2, self.rollouts // 8)]
        if len(opts) == 1:
            return prior
        seed = int(self.rng.integers(0, 2**63 - 1))
        plans = tuple({decision.kind: o} for o in opts)
        horizon = (self.horizon if self.horizon is not None
                   else horizon_for(goal, len(battle.combatants)))
        job = Job(battle, npc, goal, self.playout, plans, seed, horizon,
                  own_playout(goal, self.playout))
        tallies = race(job, Budget(None, self.rollouts, floor=2, round_size=4,
                                   total=self.rollouts), workers=1)
        base = tallies[0]  # the prior's
        best = max(range(len(opts)), key=lambda i: (tallies[i].n, tallies[i].value, -i))
        if best == 0 or tied(base, tallies[best]):
            return prior
        gain, se = paired(tallies[best], base)
        if gain < MARGIN + TIE_Z * se:
            return prior  # as the planner: a few dozen rollouts must beat a good prior clearly
        return opts[best]
