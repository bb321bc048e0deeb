"""Benchmark the table (vtm_sim.table): one step, choose and persist, in milliseconds.

Usage:
    python experiments/bench_table.py [--fights N] [--json]

Plays ``--fights`` whole fights of each scenario through
:class:`vtm_sim.table.TableService` on a database file in a temporary folder (WAL,
one transaction per step), the options picked by a seeded generator, and times
every ``choose`` call: the clone, the decision, the checks of the dice, the
narration, the state's hash and the transaction. The reference, measured in the
same process and the same run, is the engine alone making the same decisions on a
plain :class:`~vtm_sim.engine.battle.Battle` (``battle.choose``); the report gives
the step's median, 95th percentile and worst, the engine's median, and their
ratio. Then reopening (a fresh service replaying the longest fight) and a
``vtm-sim table choose`` process from its start to its exit. The target of issue 33
is a step of at most 50 ms (pure build).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

try:
    import vtm_sim
except ImportError:  # a checkout that is not installed
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    import vtm_sim

import numpy as np

from vtm_sim.table import TableService

SCENARIOS = ("duel", "gunfight", "swat_raid")


def pct(xs: list[float], q: float) -> float:
    return float(np.percentile(xs, q)) if xs else 0.0


def bench(fights: int, folder: Path) -> dict[str, Any]:
    svc = TableService(folder / "bench.sqlite3")
    rows: dict[str, Any] = {}
    longest = ("", 0)
    for scenario in SCENARIOS:
        table_ms: list[float] = []
        engine_ms: list[float] = []
        for k in range(fights):
            name = f"{scenario}-{k}"
            svc.new(name, scenario=scenario, seed=k)
            rng = np.random.default_rng(k)
            picks: list[int] = []
            while True:
                shown = svc.show(name)
                p = shown["pending"]
                if p is None:
                    break
                i = int(rng.integers(len(p["options"])))
                picks.append(i)
                t0 = time.perf_counter()
                svc.choose(name, i)
                table_ms.append(1000 * (time.perf_counter() - t0))
            if len(picks) > longest[1]:
                longest = (name, len(picks))
            # the reference: the engine alone, the same decisions from the same start
            from vtm_sim.engine.battle import Battle

            start = json.loads(svc.store.encounter(name).start)
            b = Battle.from_state(start)
            for i in picks:
                assert b.pending is not None
                choice = b.pending.options[i]
                t0 = time.perf_counter()
                b.choose(choice)
                engine_ms.append(1000 * (time.perf_counter() - t0))
        med_t, med_e = statistics.median(table_ms), statistics.median(engine_ms)
        rows[scenario] = {
            "steps": len(table_ms), "step_ms_median": round(med_t, 2),
            "step_ms_p95": round(pct(table_ms, 95), 2), "step_ms_max": round(max(table_ms), 2),
            "engine_ms_median": round(med_e, 3), "ratio_median": round(med_t / med_e, 1),
        }
    name, steps = longest
    t0 = time.perf_counter()
    TableService(folder / "bench.sqlite3").verify(name)
    reopen = 1000 * (time.perf_counter() - t0)
    return {"scenarios": rows, "reopen": {"table": name, "steps": steps,
                                         "ms": round(reopen, 1)}}


def bench_cli(folder: Path) -> float:
    """Seconds of one ``vtm-sim table choose`` process (new Python, imports, replay)."""
    db = str(folder / "cli.sqlite3")
    env = {**os.environ, "PYTHONPATH": str(Path(vtm_sim.__file__).resolve().parents[1])}
    cmd = [sys.executable, "-c", "from vtm_sim.cli import main; main()", "table"]
    subprocess.run([*cmd, "new", "c", "--scenario", "duel", "--db", db], check=True,
                   capture_output=True, env=env)
    times = []
    for _ in range(5):
        t0 = time.perf_counter()
        subprocess.run([*cmd, "choose", "c", "0", "--db", db], check=True,
                       capture_output=True, env=env)
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fights", type=int, default=5)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        out = bench(args.fights, Path(tmp))
        out["cli_choose_s"] = round(bench_cli(Path(tmp)), 3)
    out["compiled"] = sorted(vtm_sim.compiled_modules())
    out["load"] = os.getloadavg()[0]
    if args.json:
        print(json.dumps(out, indent=2))
        return
    print(f"{'scenario':<10} {'steps':>6} {'median':>8} {'p95':>8} {'worst':>8} "
          f"{'engine':>8} {'ratio':>6}  (ms a step: choose and persist)")
    for sc, r in out["scenarios"].items():
        print(f"{sc:<10} {r['steps']:>6} {r['step_ms_median']:>8} {r['step_ms_p95']:>8} "
              f"{r['step_ms_max']:>8} {r['engine_ms_median']:>8} {r['ratio_median']:>6}")
    ro = out["reopen"]
    print(f"reopen and replay {ro['table']} ({ro['steps']} steps): {ro['ms']} ms")
    print(f"a `vtm-sim table choose` process: {out['cli_choose_s']} s")
    print(f"build: {'compiled ' + str(len(out['compiled'])) if out['compiled'] else 'pure'}; "
          f"load {out['load']:.2f}")


if __name__ == "__main__":
    main()
