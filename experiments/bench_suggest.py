"""Benchmark `suggest`: a full answer on the duel mid-fight, at 500 rollouts an option.

Usage: python experiments/bench_suggest.py [--rollouts N] [--decision act|declare|both]
       [--workers W] [--repeat R] [--json]

The duel (seed 3) is played by the nearest policy to the first decision of
turn 2; the Knife Fighter's next declaration (what ``vtm-sim suggest`` ranks
for a state at a turn's start, 9 options) and its next ACT decision (23
options: every attack, called shot, move and stance) are then each ranked
with ``--rollouts`` simulated fights per option at first (the planner's
playouts), as ``vtm-sim suggest`` does. Reports the wall time, the options,
the rollouts in all, and a CartPole step measured in the same process as the
reference, and the time relative to it (``cartpole_steps``: the answer's
wall time in CartPole steps, which stays comparable on a busy machine). The
rollouts are spread over ``--workers`` processes (default: every core this
process may use, as ``suggest`` does). ``--repeat`` answers each decision R
times and reports the median time (the answers are identical). Run it with the interpreter of the
build to measure (pure, or the ``VTM_SIM_COMPILE=1`` build:
``experiments/bench_compiled.py --keep DIR`` leaves one).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

try:
    import vtm_sim
except ImportError:  # a checkout that is not installed
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    import vtm_sim

from vtm_sim.analysis.advice import advise, default_workers, find_combatant
from vtm_sim.core.choices import DecisionKind
from vtm_sim.files.scenarios import load_scenario
from vtm_sim.policies.nearest import NearestEnemyPolicy


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rollouts", type=int, default=500)
    ap.add_argument("--decision", choices=["act", "declare", "both"], default="both")
    ap.add_argument("--workers", type=int, default=None)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    b = load_scenario("duel").battle(seed=3)
    pol = NearestEnemyPolicy()
    while b.pending is not None and b.turn < 2:
        b.choose(pol.choose(b, b.pending))
    npc = find_combatant(b, "Knife Fighter")
    kinds = ["declare", "act"] if args.decision == "both" else [args.decision]
    answers = {}
    for kind in kinds:
        times = []
        for _ in range(max(1, args.repeat)):
            t0 = time.perf_counter()
            a = advise(b, npc, playout=lambda _c: NearestEnemyPolicy(), policy_name="planner",
                       rollouts=args.rollouts, seed=0, kind=DecisionKind(kind),
                       workers=args.workers)
            times.append(time.perf_counter() - t0)
        answers[kind] = (a, statistics.median(times))
    import gymnasium as gym

    env = gym.make("CartPole-v1")
    env.reset(seed=0)
    t1 = time.perf_counter()
    for _ in range(20000):
        _, _, term, trunc, _ = env.step(env.action_space.sample())
        if term or trunc:
            env.reset()
    cart = (time.perf_counter() - t1) / 20000 * 1e6
    out = {"build": "compiled" if vtm_sim.compiled_modules() else "pure",
           "workers": default_workers() if args.workers is None else args.workers,
           "cartpole_step_us": round(cart, 2), "answers": [
               {"decision": a.decision.value, "options": len(a.options),
                "rollouts": a.rollouts,
                "fewest_rollouts_an_option": min(o.value.rollouts for o in a.options),
                "seconds": round(secs, 3), "rollouts_per_second": round(a.rollouts / secs),
                "cartpole_steps": round(secs / (cart * 1e-6)),
                "recommended": a.recommended.action}
               for a, secs in answers.values()]}
    if args.json:
        print(json.dumps(out, indent=1))
        return
    print(f"build: {out['build']}, workers: {out['workers']}, "
          f"CartPole step: {out['cartpole_step_us']} us")
    for row in out["answers"]:
        print("  " + ", ".join(f"{k}: {v}" for k, v in row.items()))


if __name__ == "__main__":
    main()
