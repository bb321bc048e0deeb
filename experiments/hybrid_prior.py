"""The planner searching over a trained policy: is search plus the learned prior stronger?

    python experiments/hybrid_prior.py tournament duel --policies hybrid:64,ladder:4 \
        --battles 100 --seed 1 --jobs 1

Registers one more policy family, ``hybrid:N`` (N rollouts a duel decision; 64 is the
tournament's budget, as ``planner``): :class:`vtm_sim.policies.planner.PlannerPolicy`
with ``prior=`` the shipped ``trained:duel`` policy instead of the tactician, so that the
rollouts overrule the learned pick only where they say it is worse. Then runs
``vtm-sim`` with the remaining arguments (any command that names policies; ``--jobs 1``:
worker processes do not see this registration).

Measured 2026-12-02 (experiments/results/shipped.md, shipped.json ``tried_not_shipped``):
0.575 against ladder:4 over 200 battles, no better than trained:duel alone (0.594), so
it is not a registered policy.
"""

from __future__ import annotations

import sys

import numpy as np

import agents  # noqa: F401  (registers the agents' policy names, trained:NAME among them)
from vtm_sim.files.scenarios import Scenario
from vtm_sim.policies.planner import PlannerPolicy
from vtm_sim.policies.registry import PolicyMaker, maker, register


def _hybrid(scenario: Scenario, arg: str) -> PolicyMaker:
    trained = maker("trained:duel", scenario)
    rollouts = int(arg)

    def make(rng: np.random.Generator, cid: int) -> PlannerPolicy:
        prior = trained(rng, cid)
        return PlannerPolicy(rollouts, seed=int(rng.integers(2**31)), prior=prior)

    return make


register("hybrid", _hybrid, "the planner with trained:duel as its prior", prefix=True)

if __name__ == "__main__":
    from vtm_sim.cli import main

    main(sys.argv[1:])
