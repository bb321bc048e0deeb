"""Benchmark how fast the command line starts: ``vtm-sim --help`` and a few commands.

Usage: python experiments/bench_startup.py [--runs N] [--json]

Runs each command N times (default 21) as a fresh process and prints the median
wall time, next to ``python -c pass`` measured the same way in the same run (the
interpreter's own start, the reference). The target is a median under 0.3 s for
``vtm-sim --help`` (issue 11). The ``vtm-sim`` console script beside this
interpreter is used when there is one, else ``python -c`` calling the same entry
point. Run it on a quiet machine (`nice` it on a shared one): the figures are
wall times.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

TARGET_S = 0.3
ENTRY = "import sys; from vtm_sim.cli import main; sys.argv[0] = 'vtm-sim'; main()"


def vtm_sim_command() -> list[str]:
    script = Path(sys.executable).with_name("vtm-sim")
    if script.exists():
        return [str(script)]
    found = shutil.which("vtm-sim")
    return [found] if found else [sys.executable, "-c", ENTRY]


def median_seconds(argv: list[str], runs: int) -> tuple[float, float]:
    """Medians of the wall time and of the CPU time (user + system) of fresh processes."""
    wall, cpu = [], []
    for _ in range(runs):
        t0 = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _pid, status, usage = os.wait4(proc.pid, 0)
        wall.append(time.perf_counter() - t0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            raise SystemExit(f"{' '.join(argv)}: exit status {proc.returncode}")
        cpu.append(usage.ru_utime + usage.ru_stime)
    return statistics.median(wall), statistics.median(cpu)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=21)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    cli = vtm_sim_command()
    cases = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "vtm-sim --help": [*cli, "--help"],
        "vtm-sim roll --help": [*cli, "roll", "--help"],
        "vtm-sim roll 6 --seed 1": [*cli, "roll", "6", "--seed", "1"],
        "vtm-sim scenarios": [*cli, "scenarios"],
    }
    medians = {name: median_seconds(argv, args.runs) for name, argv in cases.items()}
    load = os.getloadavg()[0]
    if args.json:
        print(json.dumps({"runs": args.runs, "load_average": load, "target_s": TARGET_S,
                          "median_wall_s": {k: w for k, (w, _c) in medians.items()},
                          "median_cpu_s": {k: c for k, (_w, c) in medians.items()}}))
        return
    ref = medians["python -c pass"][0]
    print(f"Median of {args.runs} fresh processes each ({' '.join(cli)}; "
          f"load average {load:.1f} on {os.cpu_count()} cores):")
    print(f"  {'command':<26}{'wall':>8}  {'vs pass':>8}{'CPU':>9}")
    for name, (w, c) in medians.items():
        print(f"  {name:<26}{w:7.3f}s  {w / ref:7.1f}x{c:8.3f}s")
    verdict = "under" if medians["vtm-sim --help"][0] < TARGET_S else "OVER"
    print(f"vtm-sim --help: {verdict} the {TARGET_S} s target (wall median).")


if __name__ == "__main__":
    main()
