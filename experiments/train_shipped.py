"""Train, export and evaluate the shipped policies ``trained:duel`` and ``trained:gunfight``.

One command reruns the whole of experiments/results/shipped.md:

    python experiments/train_shipped.py

Runs, exactly as a user would (the two trainings concurrently, each ``nice -n 5``):

    vtm-sim train --env ID --algo maskable-ppo --timesteps N --seed S \\
        --opponents nearest,tactician,berserker --n-envs 4 \\
        --config experiments/hyperparams/shipped.yml --out runs/shipped/NAME --json
    vtm-sim export-policy runs/shipped/NAME/Env-v0.zip --out agents/policies/NAME.npz
    vtm-sim evaluate trained:NAME's file --opponents ladder:1,ladder:2,ladder:3 --episodes E
    vtm-sim evaluate ... --opponents ladder:4 --episodes P     (the planner: slow)

then writes ``runs/shipped/report.json`` (training summaries, evaluations) and
``runs/shipped/report.md`` (the table of experiments/results/shipped.md). The
run folders (.zip models, TensorBoard logs) stay under runs/, which git ignores;
only the exported .npz files are committed.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
VTM_SIM = [sys.executable, "-c", "from vtm_sim.cli import main; main()"]
ENVS = {"duel": "vtm_sim/Duel-v0", "gunfight": "vtm_sim/Gunfight-v0"}
# Timesteps that fit about 13 minutes of wall each, both trainings running at once on a
# shared 2-core machine (pure-Python build); the gunfight's env step costs ~3x the duel's.
TIMESTEPS = {"duel": 240_000, "gunfight": 100_000}
LADDER = ["ladder:1", "ladder:2", "ladder:3"]
TOP = "ladder:4"


def start(args: list[str]) -> subprocess.Popen[str]:
    print("vtm-sim " + " ".join(args), file=sys.stderr)
    return subprocess.Popen(["nice", "-n", "5", *VTM_SIM, *args], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish(proc: subprocess.Popen[str]) -> Any:
    out, err = proc.communicate()
    if proc.returncode != 0:
        sys.exit(f"{' '.join(map(str, proc.args))} failed: {err.strip()[-2000:]}")
    return json.loads(out[out.index("{"):])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--opponents", default="nearest,tactician,berserker")
    p.add_argument("--n-envs", type=int, default=4)
    p.add_argument("--episodes", type=int, default=500,
                   help="battles per seat against ladder:1..3")
    p.add_argument("--top-episodes", default="duel=300,gunfight=45",
                   help="battles per seat against ladder:4 (the planner), per scenario")
    p.add_argument("--out", default="runs/shipped")
    a = p.parse_args()
    out = ROOT / a.out
    top = {k: int(v) for k, v in (kv.split("=") for kv in a.top_episodes.split(","))}
    t0 = time.perf_counter()
    procs = {name: start(["train", "--env", env, "--timesteps", str(TIMESTEPS[name]),
                          "--seed", str(a.seed), "--opponents", a.opponents,
                          "--n-envs", str(a.n_envs),
                          "--config", "experiments/hyperparams/shipped.yml",
                          "--out", str(out / name), "--json"])
             for name, env in ENVS.items()}
    train = {name: finish(proc) for name, proc in procs.items()}
    for name, summary in train.items():
        npz = ROOT / "agents" / "policies" / f"{name}.npz"
        subprocess.run([*VTM_SIM, "export-policy", summary["model"], "--out", str(npz)],
                       cwd=ROOT, check=True, capture_output=True)
    evals: dict[str, list[subprocess.Popen[str]]] = {}
    for name in ENVS:
        npz = str(ROOT / "agents" / "policies" / f"{name}.npz")
        evals[name] = [
            start(["evaluate", npz, "--opponents", ",".join(LADDER),
                   "--episodes", str(a.episodes), "--json"]),
            start(["evaluate", npz, "--opponents", TOP, "--episodes", str(top[name]),
                   "--json"]),
        ]
    results: dict[str, dict[str, Any]] = {}
    for name, ps in evals.items():
        merged: dict[str, Any] = {}
        for proc in ps:
            merged.update(finish(proc)["opponents"])
        results[name] = merged
    report = {"train": train, "evaluation": results,
              "export_bytes": {n: (ROOT / "agents" / "policies" / f"{n}.npz").stat().st_size
                               for n in ENVS},
              "wall_seconds": round(time.perf_counter() - t0, 1)}
    (out / "report.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    lines = table(report)
    (out / "report.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))


def table(report: dict[str, Any]) -> list[str]:
    """The markdown table: every rung, per seat and pooled, with Wilson 95% intervals."""
    lines = ["| policy | opponent | seat | battles | win (95%) | draw | loss | score |",
             "|---|---|---|---|---|---|---|---|"]
    for name, opponents in report["evaluation"].items():
        for opp, seats in opponents.items():
            for seat, r in seats.items():
                lo, hi = r["win"]["ci95"]
                lines.append(f"| trained:{name} | {opp} | {seat} | {r['games']} | "
                             f"{r['win']['rate']:.3f} ({lo:.3f}-{hi:.3f}) | "
                             f"{r['draw']['rate']:.3f} | {r['loss']['rate']:.3f} | "
                             f"{r['score']:.3f} |")
    return lines


if __name__ == "__main__":
    main()
