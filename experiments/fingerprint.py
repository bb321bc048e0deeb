"""Fingerprint the engine's behaviour: battle logs and env trajectories, hashed.

Usage:
    python experiments/fingerprint.py [--out FILE] [--compare FILE]

Hashes, per scenario and rules profile (the scenario's own and both shipped
profiles), the event logs of seeded battles played by the nearest, tactician
and random policies, and, per registered env id, 600 masked-random env steps
(observations, masks, rewards, terminations). A refactor that must not change
behaviour keeps every hash; ``--compare`` names a saved fingerprint and lists
what changed. Logs are compared both byte for byte (``log``) and event for
event with the version field and key order left out (``events``), so a log
format change under a bumped version can be told from a change in play.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

try:
    import envs
except ImportError:  # a checkout that is not installed
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    import envs

import gymnasium as gym

from vtm_sim.data.rules import load_rules
from vtm_sim.files.scenarios import list_scenarios, load_scenario
from vtm_sim.policies.nearest import NearestEnemyPolicy, RandomPolicy
from vtm_sim.policies.play import play
from vtm_sim.policies.tactician import TacticianPolicy

SEEDS = 15
ENV_STEPS = 600


def _event_key(ev: dict[str, Any]) -> str:
    ev = {k: v for k, v in ev.items() if k != "version"}
    return json.dumps(ev, sort_keys=True, separators=(",", ":"))


def battles() -> dict[str, dict[str, str]]:
    out: dict[str, dict[str, str]] = {}
    for name in list_scenarios():
        sc = load_scenario(name)
        for profile in (None, "v20", "dark_ages"):
            rules = sc.rules if profile is None else load_rules(profile)
            if profile is not None and rules.name == sc.rules.name:
                continue
            if any(w.cls.value == "firearm" for f in sc.fighters for w in f.stats.weapons) and (
                not rules.firearms_allowed
            ):
                continue
            for pol in ("nearest", "tactician", "random"):
                logs = hashlib.sha256()
                events = hashlib.sha256()
                for seed in range(SEEDS):
                    if pol == "random":
                        rng = np.random.default_rng(seed + 1000)
                        policies: list[Any] = [RandomPolicy(rng) for _ in sc.fighters]
                    elif pol == "tactician":
                        policies = [TacticianPolicy() for _ in sc.fighters]
                    else:
                        policies = [NearestEnemyPolicy() for _ in sc.fighters]
                    from vtm_sim.engine.battle import Battle

                    b = Battle(sc.fighters, seed=seed, rules=rules, turn_limit=sc.turn_limit,
                               field=sc.field, ambush=sc.ambush)
                    play(b, policies)
                    logs.update(b.log.jsonl().encode())
                    for ev in b.log.events:
                        events.update(_event_key(ev.to_json()).encode())
                key = f"{name}/{rules.name}/{pol}"
                out[key] = {"log": logs.hexdigest()[:16], "events": events.hexdigest()[:16]}
    return out


def env_steps() -> dict[str, str]:
    out: dict[str, str] = {}
    for env_id in sorted(i for i in gym.registry if i.startswith("vtm_sim/")):
        env = gym.make(env_id, illegal_action="penalize")
        h = hashlib.sha256()
        rng = np.random.default_rng(0)
        obs, info = env.reset(seed=0)
        for _ in range(ENV_STEPS):
            mask = info["action_mask"]
            idx = mask.nonzero()[0]
            a = int(idx[rng.integers(idx.size)]) if idx.size else 0
            obs, r, term, trunc, info = env.step(a)
            flat = obs if isinstance(obs, np.ndarray) else np.concatenate(
                [np.asarray(obs[k], dtype=np.float64).ravel() for k in sorted(obs)])
            h.update(np.asarray(flat, dtype=np.float64).tobytes())
            h.update(mask.tobytes())
            h.update(repr((round(float(r), 9), term, trunc)).encode())
            if term or trunc:
                obs, info = env.reset()
        out[env_id] = h.hexdigest()[:16]
        env.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--compare", type=Path, default=None)
    args = ap.parse_args()
    assert envs is not None
    fp = {"battles": battles(), "envs": env_steps()}
    text = json.dumps(fp, indent=1, sort_keys=True)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")
    if args.compare:
        old = json.loads(args.compare.read_text(encoding="utf-8"))
        changed = 0
        for part in ("battles", "envs"):
            for key in sorted(set(old[part]) | set(fp[part])):
                a, b = old[part].get(key), fp[part].get(key)
                if a != b:
                    changed += 1
                    print(f"{part} {key}: {a} -> {b}")
        print(f"{changed} fingerprints changed of {len(fp['battles']) + len(fp['envs'])}")
    elif not args.out:
        print(text)


if __name__ == "__main__":
    main()
