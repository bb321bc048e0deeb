"""A tournament at scale: battles per second with --jobs 1 and --jobs 2, and a run
killed mid-way (SIGKILL) then resumed, compared with the uninterrupted one.

    python experiments/tournament_resume.py                 # 4 scripted policies x duel x 1000
    python experiments/tournament_resume.py --battles 100   # a quick check

Runs `vtm-sim tournament` as a user would, in subprocesses, one after the other:
1. --jobs 1 (the reference), 2. --jobs 2 (same results.json?), 3. --jobs 2 killed
when half the battles are in battles.jsonl, then the same command with --resume.
Battles per second come from each run's timing.json (play time, without the
interpreter's start); the speed-up is measured against --jobs 1 in the same run.
Prints one JSON object; exits 1 if any results.json differs.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

POLICIES = "nearest,tactician,random,brawler"  # the scripted ones (planner searches)


def tournament(args: list[str], out: Path, *extra: str) -> list[str]:
    # -P: the installed build, never the checkout's packages from the working directory
    return [sys.executable, "-P", "-c", "from vtm_sim.cli import main; main()", "tournament",
            *args, "--out", str(out), *extra]


def timed(cmd: list[str], out: Path) -> dict[str, Any]:
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    timing: dict[str, Any] = json.loads((out / "timing.json").read_text())
    return timing


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenario", default="duel")
    ap.add_argument("--policies", default=POLICIES)
    ap.add_argument("--battles", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--dir", default=None, help="keep the runs here (default: a temp dir)")
    opts = ap.parse_args()
    base = Path(opts.dir or tempfile.mkdtemp(prefix="tournament_"))
    base.mkdir(parents=True, exist_ok=True)
    args = [opts.scenario, "--policies", opts.policies, "--battles", str(opts.battles),
            "--seed", str(opts.seed)]

    one = timed(tournament(args, base / "jobs1", "--jobs", "1"), base / "jobs1")
    two = timed(tournament(args, base / "jobs2", "--jobs", "2"), base / "jobs2")
    reference = (base / "jobs1" / "results.json").read_bytes()
    total = json.loads(reference)["games"]

    killed = base / "killed"
    battles = killed / "battles.jsonl"
    proc = subprocess.Popen(tournament(args, killed, "--jobs", "2"), stdout=subprocess.DEVNULL,
                            start_new_session=True)  # its own group: the workers die too
    while proc.poll() is None:
        if battles.exists() and battles.read_bytes().count(b"\n") >= total // 2:
            os.killpg(proc.pid, signal.SIGKILL)
            break
        time.sleep(0.05)
    proc.wait()
    at_kill = battles.read_bytes().count(b"\n")
    resumed = timed(tournament(args, killed, "--jobs", "2", "--resume"), killed)
    lines = battles.read_text().splitlines()

    report = {
        "command": " ".join(["vtm-sim tournament", *args, "--jobs J --out DIR"]),
        "battles": total,
        "jobs1_battles_per_s": one["battles_per_second"],
        "jobs2_battles_per_s": two["battles_per_second"],
        "speedup_jobs2": round(two["battles_per_second"] / one["battles_per_second"], 2),
        "jobs1_seconds": one["seconds"], "jobs2_seconds": two["seconds"],
        "killed_with_signal": -proc.returncode if proc.returncode else None,
        "battles_kept_at_kill": at_kill,
        "battles_played_on_resume": resumed["battles_played"],
        "battles_after_resume": len(lines), "distinct_after_resume": len(set(lines)),
        "jobs2_results_identical": (base / "jobs2" / "results.json").read_bytes() == reference,
        "resumed_results_identical": (killed / "results.json").read_bytes() == reference,
        "dir": str(base),
    }
    print(json.dumps(report, indent=2))
    ok = (report["jobs2_results_identical"] and report["resumed_results_identical"]
          and len(lines) == len(set(lines)) == total and at_kill < total)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
