"""Measure the difficulty ladder and write docs/ladder.md (and docs/ladder.json).

Usage:
    python experiments/ladder.py [--battles N] [--planner-battles M] [--seed S]
                                 [--scenarios duel,gunfight]

Plays the whole round robin of the rungs in configs/ladder.yaml on each
scenario: every pair, ``N`` seeded battles a seat (seeds S..S+N-1, the higher
rung on each side in turn, same seeds), ``M`` for the pairs with the planner
(slow). The table gives every pair by seat and pooled with Student-t 95%
intervals (scipy), and says whether each rung beats the one below by at least
0.55. ``vtm-sim ladder SCENARIO`` prints the same table for one scenario.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import vtm_sim
from vtm_sim.ladder import MIN_EDGE, adjacent, round_robin, rungs, table_lines, to_json
from vtm_sim.scenario import load_scenario
from vtm_sim.tournament import PLANNER_ROLLOUTS

DOCS = Path(__file__).resolve().parent.parent / "docs"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--battles", type=int, default=1000)
    ap.add_argument("--planner-battles", type=int, default=20)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--scenarios", default="duel,gunfight")
    args = ap.parse_args()
    names = list(rungs())
    if args.planner_battles == 0:
        names = [n for n in names if n != "planner"]

    def count(a: str, b: str) -> int:
        return args.planner_battles if "planner" in (a, b) else args.battles

    build = "mypyc" if vtm_sim.compiled_modules() else "pure Python"
    lines = [
        "# The difficulty ladder",
        "",
        "Rungs `ladder:1` (weakest) to `ladder:N` (strongest), usable wherever a policy is "
        "named (`vtm-sim fight duel --policy ladder:3`, `--opponents`, tournaments). The "
        "rungs are listed in `configs/ladder.yaml`; each must beat the rung below with a "
        f"score (wins plus half the draws) of at least {MIN_EDGE} in both scenarios below.",
        "",
        f"Written by `python experiments/ladder.py --battles {args.battles} --planner-battles "
        f"{args.planner_battles} --seed {args.seed}` ({build} build, planner at "
        f"{PLANNER_ROLLOUTS} rollouts a decision). `vtm-sim ladder SCENARIO` re-measures one "
        "scenario. Every pair plays the same seeds with the higher rung on each seat; "
        "the pooled score is over both seats.",
        "",
    ]
    data = {"battles": args.battles, "planner_battles": args.planner_battles,
            "seed": args.seed, "planner_rollouts": PLANNER_ROLLOUTS, "build": build,
            "scenarios": []}
    summary = []
    for name in args.scenarios.split(","):
        scenario = load_scenario(name)
        start = time.perf_counter()
        done = [0]

        def tick(n: int, label: str = name, done: list[int] = done) -> None:
            done[0] += n
            if done[0] % 500 == 0:
                print(f"{label}: {done[0]} battles", file=sys.stderr, flush=True)

        matches = round_robin(scenario, names, battles=args.battles, seed=args.seed,
                              battles_for=count, progress=tick)
        secs = time.perf_counter() - start
        print(f"{name}: {done[0]} battles in {secs:.0f} s", file=sys.stderr, flush=True)
        lines += table_lines(scenario, matches, names) + [""]
        data["scenarios"].append(to_json(scenario, matches, names, args.seed))
        for m in adjacent(matches, names):
            summary.append((name, m))
    lines += ["## Adjacent rungs", "",
              "| scenario | rung | beats | pooled score | battles | at least 0.55 |",
              "|---|---|---|---|---|---|"]
    for name, m in summary:
        lo, hi = m.pooled.interval()
        ok = "yes" if m.pooled.score >= MIN_EDGE else "**no**"
        lines.append(f"| {name} | {m.a} | {m.b} | {m.pooled.score:.3f} ({lo:.3f}-{hi:.3f}) | "
                     f"{m.pooled.games} | {ok} |")
    (DOCS / "ladder.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (DOCS / "ladder.json").write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {DOCS / 'ladder.md'}", file=sys.stderr)


if __name__ == "__main__":
    main()
