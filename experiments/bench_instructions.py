"""Instructions per battle, counted by callgrind: a speed figure a loaded machine cannot blur.

Usage:
    python experiments/bench_instructions.py [--root CHECKOUT] [--battles N] [SCENARIO ...]

Runs, for each scenario (default duel, bar_brawl, gunfight), N seeded battles
with the nearest policy on every side under ``valgrind --tool=callgrind``,
collecting only inside the battles (they run inside ``map()``, and
``--toggle-collect=map_next`` counts only that C function's calls), and prints
instructions per battle. Wall-clock benchmarks
(benchmark.py, bench_env.py) measure ratios against CartPole in the same
process, but on a shared 2-core machine their noise is larger than a 5%
change; instruction counts repeat exactly for the same code and inputs, so two
checkouts (``--root``, run with the same interpreter) compare exactly.
``PYTHONHASHSEED`` is fixed so set and dict orders repeat.

The nearest policy plays the same battles event for event in every checkout
since the pre-fight-states base (94c8e9f), except where a rule fix changes
gunfight (RNG-4, RNG-6), so duel and bar_brawl compare like for like.

With ``--env-steps`` (default 2,000) it also counts env steps: the scenario's
Gymnasium env on default arguments, masked-random actions, episodes reset as
they end. Both counts run on the layered package and, through ``--root``, on a
checkout from before it (its old module paths are tried second).

``--no-gc`` turns the garbage collector off while counting. With it on, a full
collection's cost grows with everything on the heap, so loading more code (a
new module, an import moved to the top) adds instructions to battles that run
no new code: 07b8009 -> 37102bb measured 5.03 -> 5.12 M a duel with it on and
5.02 -> 5.02 M with it off. Compare with ``--no-gc`` to see the code's own cost.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
CHILD = """
import collections
import sys
sys.path.insert(0, {root!r})
try:  # the layered package (0.2)
    from vtm_sim.policies.nearest import NearestEnemyPolicy
    from vtm_sim.files.scenarios import load_scenario
    from vtm_sim.policies.play import play
except ImportError:  # a checkout from before the layers, measured with --root
    from vtm_sim.policy import NearestEnemyPolicy
    from vtm_sim.scenario import load_scenario
    from vtm_sim.simulate import play

scenario = load_scenario({scenario!r})
n = len(scenario.fighters)


def one(seed):
    play(scenario.battle(seed=seed), [NearestEnemyPolicy() for _ in range(n)])


for seed in range(1000, 1002):  # warm caches (imports, tables) outside the count
    one(seed)
{gc}collections.deque(map(one, range({battles})), maxlen=0)  # counted
"""
# env steps: the scenario's env on default arguments, masked-random actions from a seeded
# generator (drawn before the count), episodes reset inside the count as training does
ENV_CHILD = """
import collections
import sys
sys.path.insert(0, {root!r})
import numpy as np
import gymnasium as gym
import envs

eid = envs.env_id({scenario!r})
env = gym.make(eid)
rng = np.random.default_rng(0)
obs, info = env.reset(seed=0)


def step(_):
    global obs, info
    legal = np.flatnonzero(info["action_mask"])
    a = int(legal[rng.integers(len(legal))]) if len(legal) else 0
    obs, r, term, trunc, info = env.step(a)
    if term or trunc:
        obs, info = env.reset()


collections.deque(map(step, range(200)), maxlen=0)  # warm
{gc}collections.deque(map(step, range({steps})), maxlen=0)  # counted
"""


def count(root: Path, scenario: str, battles: int, *, env_steps: int = 0,
          gc: bool = True) -> int:
    """Instructions collected inside the counted battles (or, with ``env_steps``, steps);
    without ``gc`` the garbage collector is off while they run."""
    off = "" if gc else "import gc; gc.disable()\n"
    code = (ENV_CHILD.format(root=str(root), scenario=scenario, steps=env_steps, gc=off)
            if env_steps else
            CHILD.format(root=str(root), scenario=scenario, battles=battles, gc=off))
    env = {**os.environ, "PYTHONHASHSEED": "0", "PYTHONPATH": str(root)}
    out = subprocess.run(
        ["valgrind", "--tool=callgrind", "--toggle-collect=map_next",
         "--callgrind-out-file=/dev/null", sys.executable, "-c", code],
        capture_output=True, text=True, env=env, check=True,
    ).stderr
    m = re.search(r"Collected : (\d+)", out)
    if m is None:
        raise SystemExit(f"callgrind printed no count:\n{out[-2000:]}")
    return int(m.group(1))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("scenarios", nargs="*", default=["duel", "bar_brawl", "gunfight"])
    ap.add_argument("--root", type=Path, default=HERE.parent, help="checkout to measure")
    ap.add_argument("--battles", type=int, default=20)
    ap.add_argument("--env-steps", type=int, default=2000,
                    help="env steps counted per scenario (0: battles only)")
    ap.add_argument("--no-gc", action="store_true",
                    help="garbage collector off while counting: the code's own instructions")
    args = ap.parse_args()
    for sc in args.scenarios:
        per = count(args.root, sc, args.battles, gc=not args.no_gc) / args.battles
        print(f"{sc}: {per / 1e6:.2f} M instructions a battle ({args.battles} battles, "
              f"{args.root})", flush=True)
        if args.env_steps:
            per = count(args.root, sc, 0, env_steps=args.env_steps,
                        gc=not args.no_gc) / args.env_steps
            print(f"{sc}: {per / 1e3:.1f} k instructions an env step ({args.env_steps} steps, "
                  f"masked random)", flush=True)


if __name__ == "__main__":
    main()
