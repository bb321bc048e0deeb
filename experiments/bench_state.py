"""Benchmark a battle's copies and saved states: clone(), to_state(), from_state().

Usage: python experiments/bench_state.py [--repeat N] [--json]

Measures, on a duel mid-fight (the first decision of turn 3, seed 3, nearest
policy) and on the bar brawl (8 combatants): ``Battle.clone()``,
``to_state(log=False)``, ``to_state()`` with the log, a JSON round trip,
and ``Battle.from_state``; plus one full duel battle and a CartPole step,
measured in the same process as the reference (ratios are what compares across
machines). Run it with the interpreter of the build to measure (pure or
``VTM_SIM_COMPILE=1``); ``experiments/bench_compiled.py`` runs both.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

try:
    import vtm_sim
except ImportError:  # a checkout that is not installed
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    import vtm_sim

import gymnasium as gym

from vtm_sim.engine.battle import Battle
from vtm_sim.files.scenarios import load_scenario
from vtm_sim.policies.nearest import NearestEnemyPolicy
from vtm_sim.policies.play import play


def per_call(fn: Callable[[], Any], repeat: int) -> float:
    """Best of 3 runs of ``repeat`` calls, in microseconds per call."""
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        for _ in range(repeat):
            fn()
        best = min(best, (time.perf_counter() - t0) / repeat)
    return best * 1e6


def mid_fight(name: str, turn: int) -> Battle:
    b = load_scenario(name).battle(seed=3)
    pol = NearestEnemyPolicy()
    while b.pending is not None and b.turn < turn:
        b.choose(pol.choose(b, b.pending))
    return b


def cartpole_step_us(repeat: int) -> float:
    env = gym.make("CartPole-v1")
    env.reset(seed=0)

    def step() -> None:
        _, _, term, trunc, _ = env.step(env.action_space.sample())
        if term or trunc:
            env.reset()

    return per_call(step, repeat)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=2000)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    n = args.repeat
    out: dict[str, Any] = {"build": "compiled" if vtm_sim.compiled_modules() else "pure"}
    duel_scenario = load_scenario("duel")
    for name in ("duel", "bar_brawl"):
        b = mid_fight(name, 3)
        state = b.to_state(log=False)
        text = json.dumps(b.to_state())
        out[name] = {
            "combatants": len(b.combatants),
            "clone_us": per_call(b.clone, n * 5),
            "to_state_us": per_call(lambda b=b: b.to_state(log=False), n),
            "to_state_with_log_json_us": per_call(lambda b=b: json.dumps(b.to_state()), n // 4),
            "from_state_us": per_call(lambda s=state: Battle.from_state(s), n // 2),
            "from_json_us": per_call(lambda t=text: Battle.from_state(json.loads(t)), n // 4),
        }
    policies = [NearestEnemyPolicy(), NearestEnemyPolicy()]
    seeds = iter(range(10**9))
    out["duel_battle_us"] = per_call(
        lambda: play(duel_scenario.battle(seed=next(seeds)), policies), n // 4)
    out["cartpole_step_us"] = cartpole_step_us(n * 5)
    out["clone_per_cartpole_step"] = out["duel"]["clone_us"] / out["cartpole_step_us"]
    if args.json:
        print(json.dumps(out, indent=1))
        return
    print(f"build: {out['build']}")
    for name in ("duel", "bar_brawl"):
        r = out[name]
        print(f"{name} ({r['combatants']} combatants), first decision of turn 3:")
        for key in ("clone_us", "to_state_us", "to_state_with_log_json_us", "from_state_us",
                    "from_json_us"):
            print(f"  {key:28s} {r[key]:9.1f}")
    print(f"a whole duel battle (nearest)   {out['duel_battle_us']:9.1f} us")
    print(f"CartPole-v1 step (reference)    {out['cartpole_step_us']:9.2f} us")
    print(f"duel clone / CartPole step      {out['clone_per_cartpole_step']:9.2f}")


if __name__ == "__main__":
    main()
