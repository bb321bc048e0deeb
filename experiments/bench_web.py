"""Benchmark the web page's update (issue 33: within 300 ms): from a choose POST to the
updated page, against a real `vtm-sim serve`.

Usage:
    python experiments/bench_web.py [--steps N] [--scenario S ...] [--json]

Starts ``vtm-sim serve`` on a free port with a fresh database, starts encounters of
each scenario with every roll rolled by the tool, and plays ``--steps`` decisions
through HTTP as the page does: ``POST /api/tables/NAME/choose`` with the version seen,
then ``GET /tables/NAME`` (the page's HTML, which the page's script swaps in). The
options are picked by a seeded generator; an encounter that ends is undone to its
start and played on. It reports, in milliseconds, the choose POST alone, the POST plus
the page's HTML (what a click costs the Storyteller) and the POST plus the JSON
(``GET /api/tables/NAME``): median, 95th percentile and worst, with the machine's
load (``uptime``) before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
CLI = "import sys; from vtm_sim.cli import main; sys.argv[0] = 'vtm-sim'; main()"
TARGET_MS = 300.0


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _uptime() -> str:
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True,
                              check=False).stdout.strip()
    except OSError:
        return f"load average: {os.getloadavg()}"


def _summary(ms: list[float]) -> dict[str, float]:
    s = sorted(ms)
    return {"median": round(statistics.median(s), 2),
            "p95": round(s[min(len(s) - 1, int(0.95 * len(s)))], 2),
            "max": round(s[-1], 2), "n": len(s)}


def run(steps: int, scenarios: list[str], seed: int = 0) -> dict[str, Any]:
    """Play ``steps`` decisions per scenario through a served app; times in ms."""
    port = _free_port()
    before = _uptime()
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        proc = subprocess.Popen([sys.executable, "-c", CLI, "serve", "--db",
                                 str(Path(tmp) / "bench.sqlite3"), "--port", str(port)],
                                env=env, cwd=tmp, stderr=subprocess.DEVNULL)
        base = f"http://127.0.0.1:{port}"
        try:
            with httpx.Client(base_url=base, timeout=30) as http:
                deadline = time.monotonic() + 60
                while True:
                    try:
                        http.get("/api/tables")
                        break
                    except httpx.TransportError:
                        if time.monotonic() > deadline:
                            raise RuntimeError("vtm-sim serve did not start") from None
                        time.sleep(0.2)
                rng = np.random.default_rng(seed)
                post: list[float] = []
                page: list[float] = []
                as_json: list[float] = []
                for scenario in scenarios:
                    shown = http.post("/api/tables", json={
                        "name": scenario, "scenario": scenario}).raise_for_status().json()
                    for k in range(steps):
                        if shown["pending"] is None:
                            shown = http.post(f"/api/tables/{scenario}/undo", json={
                                "to": 0}).raise_for_status().json()
                        n = len(shown["pending"]["options"])
                        body = {"option": int(rng.integers(n)), "version": shown["version"]}
                        t0 = time.perf_counter()
                        r = http.post(f"/api/tables/{scenario}/choose", json=body)
                        t1 = time.perf_counter()
                        r.raise_for_status()
                        if k % 2 == 0:
                            html = http.get(f"/tables/{scenario}")
                            t2 = time.perf_counter()
                            html.raise_for_status()
                            page.append((t2 - t0) * 1000)
                            shown = r.json()["table"]
                        else:
                            shown = http.get(f"/api/tables/{scenario}").raise_for_status().json()
                            t2 = time.perf_counter()
                            as_json.append((t2 - t0) * 1000)
                        post.append((t1 - t0) * 1000)
        finally:
            proc.terminate()
            proc.wait(timeout=10)
    result = {"scenarios": scenarios, "steps": steps, "choose_post": _summary(post),
              "choose_then_page_html": _summary(page),
              "choose_then_show_json": _summary(as_json), "target_ms": TARGET_MS,
              "uptime_before": before, "uptime_after": _uptime()}
    result["within_target"] = result["choose_then_page_html"]["p95"] <= TARGET_MS
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--steps", type=int, default=100, help="decisions per scenario")
    ap.add_argument("--scenario", action="append", default=None,
                    help="a scenario (repeatable; default: duel, gunfight, bar_brawl)")
    ap.add_argument("--json", action="store_true", help="print JSON")
    args = ap.parse_args()
    out = run(args.steps, args.scenario or ["duel", "gunfight", "bar_brawl"])
    if args.json:
        print(json.dumps(out, indent=2))
        return
    print(f"uptime before: {out['uptime_before']}")
    for key in ("choose_post", "choose_then_page_html", "choose_then_show_json"):
        s = out[key]
        print(f"{key:24s} median {s['median']:7.2f} ms   p95 {s['p95']:7.2f} ms   "
              f"max {s['max']:7.2f} ms   (n={s['n']})")
    print(f"uptime after:  {out['uptime_after']}")
    print(f"target: the page within {TARGET_MS:.0f} ms (95th percentile): "
          f"{'met' if out['within_target'] else 'NOT met'}")


if __name__ == "__main__":
    main()
