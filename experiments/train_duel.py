"""Train a duel policy end to end with the pipeline, export it, and evaluate it.

Runs, in order, exactly what a user would:

    vtm-sim train --env vtm_sim/Duel-v6 --timesteps N --seed S --opponents O \\
        --n-envs K --out DIR/run --json
    vtm-sim export-policy DIR/run/Duel-v6.zip --out DIR/duel.npz
    vtm-sim evaluate DIR/duel.npz --opponents nearest,tactician --episodes E --json

and writes ``DIR/report.json`` (the training summary: wall time and the env's
share of it, the evaluation per seat and pooled with 95% intervals, the
export's size) and ``DIR/report.md`` (the same as a table). The model files
stay in ``DIR`` (not committed: the observation layout is still changing).

    python experiments/train_duel.py --timesteps 100000 --out runs/duel_baseline
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

# -P: never the checkout's own packages ahead of the installed ones (with cwd the tree,
# `python -c` would import the pure source even from the compiled build's interpreter)
VTM_SIM = [sys.executable, "-P", "-c", "from vtm_sim.cli import main; main()"]


def run(args: list[str]) -> str:
    t = time.perf_counter()
    out = subprocess.run([*VTM_SIM, *args], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"vtm-sim {' '.join(args)} failed: {out.stderr.strip()}")
    print(f"vtm-sim {' '.join(args)}  ({time.perf_counter() - t:.0f} s)", file=sys.stderr)
    return out.stdout


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--timesteps", type=int, default=100_000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--opponents", default="nearest,tactician")
    p.add_argument("--n-envs", type=int, default=4)
    p.add_argument("--episodes", type=int, default=500, help="evaluation battles per seat")
    p.add_argument("--config", default=None)
    p.add_argument("--out", default="runs/duel_baseline")
    a = p.parse_args()
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    train = ["train", "--env", "vtm_sim/Duel-v6", "--timesteps", str(a.timesteps),
             "--seed", str(a.seed), "--opponents", a.opponents, "--n-envs", str(a.n_envs),
             "--out", str(out / "run"), "--json"]
    if a.config:
        train += ["--config", a.config]
    summary = json.loads(run(train))
    npz = out / "duel.npz"
    run(["export-policy", summary["model"], "--out", str(npz)])
    text = run(["evaluate", str(npz), "--opponents", "nearest,tactician",
                "--episodes", str(a.episodes), "--json"])
    evaluation = json.loads(text[text.index("{"):])
    report = {"train": summary, "export_bytes": npz.stat().st_size, "evaluation": evaluation}
    (out / "report.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    lines = [f"Duel policy: {summary['timesteps']} steps in {summary['wall_seconds']:.0f} s "
             f"({summary['env_share']:.0%} of it in the env), export "
             f"{npz.stat().st_size // 1024} KB; {a.episodes} battles per seat.", "",
             "| opponent | seat | win | 95% | draw | loss |", "|---|---|---|---|---|---|"]
    for opp, seats in evaluation["opponents"].items():
        for seat, r in seats.items():
            lo, hi = r["win"]["ci95"]
            lines.append(f"| {opp} | {seat} | {r['win']['rate']:.3f} | {lo:.3f}-{hi:.3f} | "
                         f"{r['draw']['rate']:.3f} | {r['loss']['rate']:.3f} |")
    (out / "report.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
