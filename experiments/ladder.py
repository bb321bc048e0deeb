"""Measure the difficulty ladder and write docs/ladder.md (and docs/ladder.json).

Usage:
    python experiments/ladder.py [--battles N] [--planner-battles M] [--seed S]
                                 [--scenarios duel,gunfight] [--resume] [--jobs J]

Plays the whole round robin of the rungs in configs/ladder.yaml on each
scenario: every pair, ``N`` seeded battles a seat (seeds S..S+N-1, the higher
rung on each side in turn, same seeds), ``M`` for the pairs with the planner
(slow). The table gives every pair by seat and pooled with Student-t 95%
intervals (scipy), and says whether each rung beats the one below by at least
0.55. ``vtm-sim ladder SCENARIO`` prints the same table for one scenario.
``--jobs`` plays the battles in worker processes (a tournament's chunks,
``vtm_sim.arena.ladder.round_robin``): the tables do not depend on it.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import vtm_sim
from vtm_sim.arena.backends import backend
from vtm_sim.arena.ladder import (
    MIN_EDGE,
    Match,
    adjacent,
    play_match,
    table_lines,
    to_json,
)
from vtm_sim.files.scenarios import load_scenario
from vtm_sim.policies.planner import PLANNER_ROLLOUTS
from vtm_sim.policies.rungs import rungs

DOCS = Path(__file__).resolve().parent.parent / "docs"
NOTES = "## Notes"


def kept_notes(page: Path) -> list[str]:
    """The hand-written `## Notes` section at the end of the page (provenance of matches
    measured by hand, or resumed), which a rewrite keeps: the tables are generated, the
    notes are not."""
    if not page.exists():
        return []
    text = page.read_text(encoding="utf-8")
    start = text.find("\n" + NOTES + "\n")
    return [] if start < 0 else ["", *text[start + 1:].rstrip("\n").split("\n")]


def write(args: argparse.Namespace, names: list[str],
          results: dict[str, list[Match]]) -> None:
    """docs/ladder.md and docs/ladder.json from the matches played so far."""
    build = "mypyc" if vtm_sim.compiled_modules() else "pure Python"
    lines = [
        "# The difficulty ladder",
        "",
        "Rungs `ladder:1` (weakest) to `ladder:N` (strongest), usable wherever a policy is "
        "named (`vtm-sim fight duel --policy ladder:3`, an env's `opponents=`, tournaments). "
        "The rungs are listed in `configs/ladder.yaml`; each must beat the rung below with a "
        f"score (wins plus half the draws) of at least {MIN_EDGE} in both scenarios below.",
        "",
        f"Written by `python experiments/ladder.py --battles {args.battles} --planner-battles "
        f"{args.planner_battles} --planner-pairs {args.planner_pairs} --seed {args.seed}"
        f"{' --resume' if args.resume else ''}` "
        f"({build} build, planner at {PLANNER_ROLLOUTS} rollouts a decision in a duel, "
        "fewer in bigger fights: `vtm_sim.policies.planner.budget`). "
        "`vtm-sim ladder SCENARIO` re-measures one scenario. Every pair plays the same seeds "
        "with the higher rung on each seat; the pooled score is over both seats.",
        "",
    ]
    data: dict[str, Any] = {
        "battles": args.battles, "planner_battles": args.planner_battles,
        "planner_pairs": args.planner_pairs, "seed": args.seed,
        "planner_rollouts": PLANNER_ROLLOUTS, "build": build, "scenarios": []}
    summary = []
    for name, matches in results.items():
        scenario = load_scenario(name)
        played = [n for n in names if any(n in (m.a, m.b) for m in matches)]
        lines += [*table_lines(scenario, matches, played), ""]
        data["scenarios"].append(to_json(scenario, matches, played, args.seed))
        summary += [(name, m) for m in adjacent(matches, played)]
    lines += ["## Adjacent rungs", "",
              "| scenario | rung | beats | pooled score (95%) | battles | at least 0.55 |",
              "|---|---|---|---|---|---|"]
    for name, m in summary:
        lo, hi = m.pooled.interval()
        ok = "yes" if m.pooled.score >= MIN_EDGE else "**no**"
        lines.append(f"| {name} | {m.a} | {m.b} | {m.pooled.score:.3f} ({lo:.3f}-{hi:.3f}) | "
                     f"{m.pooled.games} | {ok} |")
    page = DOCS / "ladder.md"
    lines += kept_notes(page)
    page.write_text("\n".join(lines) + "\n", encoding="utf-8")
    (DOCS / "ladder.json").write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {DOCS / 'ladder.md'}", file=sys.stderr, flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--battles", type=int, default=1000)
    ap.add_argument("--planner-battles", default="20",
                    help="battles a seat for the planner's pairs: N, or per scenario "
                    "(duel=10,gunfight=4)")
    ap.add_argument("--planner-pairs", choices=["adjacent", "all"], default="adjacent",
                    help="the planner against the rung below only, or against every rung")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--scenarios", default="duel,gunfight")
    ap.add_argument("--resume", action="store_true",
                    help="keep the matches of docs/ladder.json (same seed) and play only the "
                    "seeds they lack: the same table as a fresh run")
    ap.add_argument("--jobs", type=int, default=1,
                    help="worker processes (the tables do not depend on it)")
    args = ap.parse_args()
    runner = backend("local", args.jobs)
    old: dict[str, dict[tuple[str, str], Match]] = {}
    if args.resume and (DOCS / "ladder.json").is_file():
        saved = json.loads((DOCS / "ladder.json").read_text(encoding="utf-8"))
        if saved["seed"] == args.seed:
            for sc in saved["scenarios"]:
                old[sc["scenario"]] = {(m["a"], m["b"]): Match.from_json(m)
                                       for m in sc["matches"]}

    def measure(name: str, a: str, b: str, battles: int) -> Match:
        """``a`` against ``b`` on seeds seed..seed+battles-1, reusing a saved match."""
        have = old.get(name, {}).get((a, b))
        if have is not None and have.per_seat >= battles:
            return have
        done = 0 if have is None else have.per_seat
        more = play_match(load_scenario(name), a, b, battles=battles - done,
                          seed=args.seed + done, progress=tick, backend=runner)
        return more if have is None else have.extend(more)

    names = list(rungs())
    lower = [n for n in names if n != "planner"]
    results: dict[str, list[Match]] = {}

    def tick(n: int, done: list[int] = [0]) -> None:  # noqa: B006 (a running count)
        done[0] += n
        if done[0] % 500 == 0:
            print(f"{done[0]} battles", file=sys.stderr, flush=True)

    # first every pair without the planner (cheap), written as soon as it is done
    for name in args.scenarios.split(","):
        start = time.perf_counter()
        results[name] = [measure(name, b, a, args.battles)
                         for i, a in enumerate(lower) for b in lower[i + 1:]]
        print(f"{name}: lower rungs in {time.perf_counter() - start:.0f} s", file=sys.stderr)
    write(args, names, results)
    per = {n: int(v) for n, _, v in (x.partition("=") for x in
                                      args.planner_battles.split(",")) if v}
    default = 0 if per else int(args.planner_battles)
    if "planner" not in names:
        return
    k = names.index("planner")
    against = names[:k] if args.planner_pairs == "all" else names[k - 1:k]
    for name in args.scenarios.split(","):
        n_battles = per.get(name, default)
        for b in reversed(against):
            if n_battles == 0:
                break
            start = time.perf_counter()
            m = measure(name, "planner", b, n_battles)
            results[name].append(m)
            print(f"{name}: planner vs {b} {m.pooled.score:.3f} in "
                  f"{time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)
            write(args, names, results)


if __name__ == "__main__":
    main()
