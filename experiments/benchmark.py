"""Benchmark: full battles per second and exact-odds calls per second.

Usage: python experiments/benchmark.py [--battles N] [--json]

Not a timed test: it reports rates (and, with gymnasium installed, a
reference rate of Gymnasium's CartPole-v1 in the same process, so figures
from different machines can be compared as ratios).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from vtm_sim.data.stat_blocks import load_stat_block
from vtm_sim.engine.battle import Battle, Fighter
from vtm_sim.mechanics import odds
from vtm_sim.policies.play import play

ROOT = Path(__file__).resolve().parent.parent
PAIRS = [
    ("brawler", "knife_fighter", 3.0),
    ("thug", "brawler", 10.0),
    ("nikolai", "elder", 30.0),
    ("elder", "thug", 5.0),
]


def bench_battles(n: int) -> dict[str, float]:
    out: dict[str, float] = {}
    total_battles = 0
    total_time = 0.0
    for a, b, dist in PAIRS:
        sa = load_stat_block(ROOT / "configs" / "characters" / f"{a}.yaml")
        sb = load_stat_block(ROOT / "configs" / "characters" / f"{b}.yaml")
        fighters = [Fighter(sa, 0, 0.0, 0.0), Fighter(sb, 1, dist, 0.0)]
        t0 = time.perf_counter()
        for seed in range(n):
            play(Battle(fighters, seed=seed))
        dt = time.perf_counter() - t0
        out[f"{a}_vs_{b}"] = n / dt
        total_battles += n
        total_time += dt
    out["all"] = total_battles / total_time
    return out


def bench_scenarios(n: int) -> dict[str, float]:
    """Battles per second for every shipped scenario, built-in policy on all sides."""
    from vtm_sim.files.scenarios import list_scenarios, load_scenario

    out: dict[str, float] = {}
    for name in list_scenarios():
        sc = load_scenario(name)
        t0 = time.perf_counter()
        for seed in range(n):
            play(sc.battle(seed=seed))
        out[name] = n / (time.perf_counter() - t0)
    return out


def bench_odds(n: int) -> dict[str, float]:
    rng = np.random.default_rng(0)
    args = [
        dict(attack_pool=int(rng.integers(1, 21)), attack_difficulty=int(rng.integers(4, 10)),
             defense_pool=int(rng.integers(0, 11)), damage_base=int(rng.integers(1, 11)),
             soak_pool=int(rng.integers(0, 11)), halve=bool(rng.integers(2)))
        for _ in range(n)
    ]
    odds.odds_of.cache_clear()
    odds._attack_odds.cache_clear()  # type: ignore[attr-defined]
    odds._roll_odds.cache_clear()  # type: ignore[attr-defined]
    t0 = time.perf_counter()
    for kw in args:
        odds.attack_odds(**kw)  # type: ignore[arg-type]
    cold = n / (time.perf_counter() - t0)
    t0 = time.perf_counter()
    for kw in args:
        odds.attack_odds(**kw)  # type: ignore[arg-type]
    warm = n / (time.perf_counter() - t0)
    t0 = time.perf_counter()
    for k in range(n):
        odds.roll_odds(1 + k % 20, 6)
    roll_warm = n / (time.perf_counter() - t0)
    return {"attack_odds_cold_per_s": cold, "attack_odds_warm_per_s": warm,
            "roll_odds_warm_per_s": roll_warm}


def bench_cartpole(steps: int) -> float | None:
    try:
        import gymnasium as gym
    except ImportError:
        return None
    env = gym.make("CartPole-v1")
    env.reset(seed=0)
    env.action_space.seed(0)
    t0 = time.perf_counter()
    for _ in range(steps):
        _, _, term, trunc, _ = env.step(env.action_space.sample())
        if term or trunc:
            env.reset()
    return steps / (time.perf_counter() - t0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--battles", type=int, default=500, help="battles per pairing")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    result = {
        "battles_per_s": bench_battles(args.battles),
        "scenario_battles_per_s": bench_scenarios(max(1, args.battles // 5)),
        "odds": bench_odds(2000),
        "cartpole_steps_per_s": bench_cartpole(20000),
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return
    for k, v in result["battles_per_s"].items():
        print(f"battles/s {k:<28} {v:10.0f}")
    for k, v in result["scenario_battles_per_s"].items():
        print(f"scenario battles/s {k:<19} {v:10.0f}")
    for k, v in result["odds"].items():
        print(f"{k:<38} {v:10.0f}")
    cp = result["cartpole_steps_per_s"]
    if cp:
        print(f"{'CartPole-v1 steps/s (reference)':<38} {cp:10.0f}")


if __name__ == "__main__":
    main()
