"""Benchmark and fuzz the Gymnasium environments.

Usage:
    python experiments/bench_env.py [--steps N] [--vec-envs K] [--json]
    python experiments/bench_env.py --fuzz 1000000

Reports env steps per second of ``vtm_sim/Duel-v6`` with masked random actions
next to Gymnasium's ``CartPole-v1`` measured in the same run (both built with
``gymnasium.make``, so both carry the same wrappers; best of ``--repeat``
interleaved runs), and their ratio; the same loop driving the engine without
the env (its ceiling) and so the env's own cost per step; then total env
steps per second of ``make_vec`` with ``vectorization_mode="sync"`` and
``"async"``.

``--fuzz N`` instead runs N masked-random steps spread over every registered
id, with the agent on each side, against the default and random opponents,
and with forced decisions not skipped, checking every observation against the
observation space; any exception (for example a catalog gap) stops it with the
id, the seed and the traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

try:
    import envs  # the installed package (pure or compiled: the report says which)
except ImportError:  # a checkout that is not installed
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    import envs

import vtm_sim

DUEL = "vtm_sim/Duel-v6"


def masked(mask: np.ndarray, rng: np.random.Generator) -> int:
    idx = mask.nonzero()[0]
    return int(idx[rng.integers(idx.size)]) if idx.size else 0


def bench_single(env_id: str, steps: int, *, use_mask: bool, **kwargs: Any) -> float:
    env = gym.make(env_id, **kwargs)
    rng = np.random.default_rng(0)
    n_actions = int(env.action_space.n)  # type: ignore[attr-defined]
    _, info = env.reset(seed=0)
    t0 = time.perf_counter()
    for _ in range(steps):
        a = masked(info["action_mask"], rng) if use_mask else int(rng.integers(n_actions))
        _, _, term, trunc, info = env.step(a)
        if term or trunc:
            _, info = env.reset()
    rate = steps / (time.perf_counter() - t0)
    env.close()
    return rate


def bench_vector(env_id: str, num_envs: int, steps: int, mode: str) -> float:
    vec = gym.make_vec(env_id, num_envs=num_envs, vectorization_mode=mode)
    rng = np.random.default_rng(0)
    _, info = vec.reset(seed=0)
    for _ in range(5):  # warm up the workers
        _, _, _, _, info = vec.step(np.array([masked(m, rng) for m in info["action_mask"]]))
    t0 = time.perf_counter()
    for _ in range(steps):
        actions = np.array([masked(m, rng) for m in info["action_mask"]])
        _, _, _, _, info = vec.step(actions)
    rate = steps * num_envs / (time.perf_counter() - t0)
    vec.close()
    return rate


def bench_engine(steps: int) -> float:
    """The same loop without the env: agent decisions per second driving the engine
    directly (random agent, NearestEnemyPolicy opponent, forced decisions skipped),
    the ceiling the env's own overhead is measured against."""
    from vtm_sim.files.scenarios import load_scenario
    from vtm_sim.policies.nearest import NearestEnemyPolicy, RandomPolicy

    scenario = load_scenario("duel")
    agent, other = RandomPolicy(np.random.default_rng(0)), NearestEnemyPolicy()
    done = seed = 0
    t0 = time.perf_counter()
    while done < steps:
        b = scenario.battle(seed=seed)
        seed += 1
        while b.pending is not None and done < steps:
            d = b.pending
            if len(d.options) == 1:
                b.choose(d.options[0])
            elif d.actor == 0:
                b.choose(agent.choose(b, d))
                done += 1
            else:
                b.choose(other.choose(b, d))
    return steps / (time.perf_counter() - t0)


def fuzz(total: int, seed: int = 0) -> dict[str, Any]:
    """Masked-random steps over every registered id and a few configurations."""
    rng = np.random.default_rng(seed)
    configs: list[tuple[str, dict[str, Any]]] = []
    for eid in envs.registered_ids():
        n = len(gym.make(eid).unwrapped.scenario.fighters)  # type: ignore[attr-defined]
        for agent_id in sorted({0, n - 1}):
            for opponents in ("nearest", "random"):
                configs.append(
                    (
                        eid,
                        {
                            "agent_id": agent_id,
                            "opponents": opponents,
                            "skip_forced": False,
                            "shaping": 0.1,
                        },
                    )
                )
    per = max(1, total // len(configs))
    done = episodes = 0
    t0 = time.perf_counter()
    for k, (eid, kwargs) in enumerate(configs):
        env = gym.make(eid, **kwargs)
        ep_seed = seed * 1_000_003 + k * 10_007
        _, info = env.reset(seed=ep_seed)
        steps = per if k < len(configs) - 1 else total - done
        for _ in range(steps):
            try:
                obs, _, term, trunc, info = env.step(masked(info["action_mask"], rng))
                if not env.observation_space.contains(obs):
                    raise AssertionError(f"observation out of bounds: {obs!r}")
                if term or trunc:
                    episodes += 1
                    ep_seed += 1
                    _, info = env.reset(seed=ep_seed)
            except Exception:
                print(f"fuzz: {eid} {kwargs} episode seed {ep_seed}", file=sys.stderr)
                raise
            done += 1
        env.close()
        if sys.stderr.isatty():
            print(f"\rfuzz: {done}/{total} steps", end="", file=sys.stderr)
    if sys.stderr.isatty():
        print(file=sys.stderr)
    return {
        "steps": done,
        "episodes": episodes,
        "configs": len(configs),
        "seconds": round(time.perf_counter() - t0, 1),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=20_000, help="single-env steps per measure")
    p.add_argument("--vec-envs", type=int, default=4, help="sub-envs of the vector envs")
    p.add_argument("--vec-steps", type=int, default=2_000, help="vector steps per measure")
    p.add_argument("--repeat", type=int, default=3, help="take the best of this many runs")
    p.add_argument("--fuzz", type=int, default=0, metavar="N", help="fuzz N steps instead")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    if args.fuzz:
        out: dict[str, Any] = {"fuzz": fuzz(args.fuzz, args.seed)}
    else:
        # Best of --repeat interleaved runs: the fairest figure on a shared machine.
        duel = cart = engine = 0.0
        for _ in range(args.repeat):
            duel = max(duel, bench_single(DUEL, args.steps, use_mask=True))
            cart = max(cart, bench_single("CartPole-v1", args.steps * 4, use_mask=False))
            engine = max(engine, bench_engine(args.steps))
        sync = max(
            bench_vector(DUEL, args.vec_envs, args.vec_steps, "sync") for _ in range(args.repeat)
        )
        asyn = max(
            bench_vector(DUEL, args.vec_envs, args.vec_steps, "async") for _ in range(args.repeat)
        )
        compiled = vtm_sim.compiled_modules()
        out = {
            "build": f"mypyc, {len(compiled)} modules compiled" if compiled else "pure Python",
            "duel_steps_per_s": round(duel),
            "cartpole_steps_per_s": round(cart),
            "ratio": round(duel / cart, 4),
            "engine_only_steps_per_s": round(engine),
            "env_overhead_us_per_step": round(1e6 / duel - 1e6 / engine, 1),
            "num_envs": args.vec_envs,
            "sync_steps_per_s": round(sync),
            "async_steps_per_s": round(asyn),
        }
    if args.json:
        print(json.dumps(out))
    else:
        for k, v in (out["fuzz"] if args.fuzz else out).items():
            print(f"{k:>22}: {v}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
