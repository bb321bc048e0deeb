"""Time the README's main job, ``vtm-sim tournament`` with no arguments, as a new user runs it.

Usage: python experiments/bench_quickstart.py [--runs N] [--json FILE] [-- ARGS...]

Runs ``vtm-sim tournament ARGS`` (default: no arguments, the default tournament)
N times (default 1) as a fresh process, one after the other, and prints for each:
the wall time; the CPU time (user + system) of the whole process tree, the
command and every worker process it started (Linux: this script makes itself
the children's subreaper, so the workers a forkserver starts are counted when
they exit); the battles it played (the table's first line); the load average
(``os.getloadavg``) before and after; the cores this process may use; and
whether the engine is the pure-Python or the compiled build. The target (issue
31) is under 60 s of wall time on a quiet 2-core machine with the default
pure-Python install (``pip install -e .``). On a loaded machine the wall time is
the load's as much as the code's: the CPU time divided by the number of worker
processes is the fairer estimate of what a quiet machine takes (the CPU time
itself is inflated a little by contention too).

The ``vtm-sim`` console script beside this interpreter is used when there is
one, else ``python -c`` calling the same entry point (either honours
``PYTHONPATH``, so a worktree can be measured with another checkout's venv).
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import re
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

TARGET_S = 60.0
ENTRY = "import sys; from vtm_sim.cli import main; sys.argv[0] = 'vtm-sim'; main()"
PR_SET_CHILD_SUBREAPER = 36
HEADER = re.compile(r"^Tournament on .*?(\d+) seeded battles a side .*?, (\d+) battles\.$",
                    re.MULTILINE)


def command() -> list[str]:
    script = Path(sys.executable).parent / "vtm-sim"
    return [str(script)] if script.exists() else [sys.executable, "-c", ENTRY]


def subreaper() -> bool:
    """Adopt every orphaned descendant (Linux): the workers a forkserver started, and the
    forkserver itself, are then waited for here, and their CPU time counts."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False


def reap(timeout: float = 30.0) -> list[int]:
    """Wait for every adopted descendant still running (they exit with the tournament);
    the ones still there after ``timeout`` seconds (a leak), by pid."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return []
        if pid == 0:
            time.sleep(0.05)
    left = subprocess.run(["ps", "-o", "pid=", "--ppid", str(os.getpid())],
                          capture_output=True, text=True).stdout.split()
    return [int(p) for p in left]


def children_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def build() -> str:
    """``pure`` or ``compiled``: how the engine this interpreter imports was built."""
    code = "import vtm_sim.engine.battle as b; print(b.__file__)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip()
    return "pure" if out.endswith(".py") else "compiled"


def run_once(cmd: list[str]) -> dict[str, Any]:
    load_before = os.getloadavg()
    cpu_before = children_cpu()
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - start
    leaked = reap()
    cpu = children_cpu() - cpu_before
    if proc.returncode != 0:
        sys.exit(f"{' '.join(cmd)}: exit {proc.returncode}\n{proc.stderr[-2000:]}")
    m = HEADER.search(proc.stdout)
    played = [ln for ln in proc.stdout.splitlines() if ln.startswith("Played ")]
    return {
        "wall_s": round(wall, 2), "cpu_s": round(cpu, 2),
        "battles_a_side": int(m.group(1)) if m else None,
        "battles": int(m.group(2)) if m else None,
        "played_line": played[-1] if played else None,
        "load_before": [round(x, 2) for x in load_before],
        "load_after": [round(x, 2) for x in os.getloadavg()],
        "leaked_pids": leaked,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=1, help="fresh runs, one after the other")
    ap.add_argument("--json", type=Path, help="also write the figures to this file")
    ap.add_argument("args", nargs="*", help="arguments of `vtm-sim tournament` (after --)")
    opts = ap.parse_args()
    cmd = [*command(), "tournament", *opts.args]
    reaping = subreaper()
    info = {"command": " ".join(["vtm-sim", "tournament", *opts.args]),
            "cores": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
            else os.cpu_count(),
            "build": build(), "python": sys.version.split()[0],
            "cpu_counts_workers": reaping, "target_s": TARGET_S, "runs": []}
    print(f"{info['command']}: {info['build']} build, {info['cores']} cores, Python "
          f"{info['python']}" + ("" if reaping else " (CPU time: the command's own only)"))
    for k in range(opts.runs):
        r = run_once(cmd)
        info["runs"].append(r)
        print(f"run {k + 1}: wall {r['wall_s']:.1f} s, CPU {r['cpu_s']:.1f} s (user + sys, "
              f"every process), {r['battles']} battles ({r['battles_a_side']} a side), "
              f"load {r['load_before'][0]:.2f} before, {r['load_after'][0]:.2f} after "
              f"(1-min; 5-min {r['load_after'][1]:.2f})")
        if r["played_line"]:
            print(f"       {r['played_line']}")
        if r["leaked_pids"]:
            print(f"       processes left running after 30 s: {r['leaked_pids']}")
    if opts.json is not None:
        opts.json.write_text(json.dumps(info, indent=2) + "\n")


if __name__ == "__main__":
    main()
