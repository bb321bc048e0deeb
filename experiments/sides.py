"""Side balance of every shipped scenario: who wins when both sides play the same policy.

Usage:
    python experiments/sides.py [--battles N] [--seed S] [--write] [--scenario NAME ...]

For each scenario and each of the nearest and tactician policies, plays
``N`` seeded battles (seeds S..S+N-1) with that policy on every side and
counts each side's wins and the draws, with Wilson 95% intervals (scipy's
``binomtest``). ``--write`` replaces the side-balance
section of docs/scenarios.md (between its two marker comments) with the table;
with ``--scenario`` only those scenarios are played, and ``--write`` replaces (or
adds, in name order) just their rows of the table already there.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from scipy.stats import binomtest

from vtm_sim.arena.tournament import seeded_battle
from vtm_sim.files.scenarios import list_scenarios, load_scenario
from vtm_sim.policies.registry import maker

DOC = Path(__file__).resolve().parent.parent / "docs" / "scenarios.md"
START, END = "<!-- side-balance:start -->", "<!-- side-balance:end -->"
POLICIES = ("nearest", "tactician")


def balance(name: str, policy: str, battles: int, seed: int) -> tuple[dict[int, int], int]:
    scenario = load_scenario(name)
    make = maker(policy, scenario)
    wins = dict.fromkeys(sorted({f.side for f in scenario.fighters}), 0)
    draws = 0
    for k in range(battles):
        b = seeded_battle(scenario, dict.fromkeys(wins, make), seed + k)
        if b.winner is None:
            draws += 1
        else:
            wins[b.winner] += 1
    return wins, draws


def _rate(k: int, n: int) -> str:
    ci = binomtest(k, n).proportion_ci(method="wilson")
    return f"{k / n:.0%} ({ci.low:.0%}-{ci.high:.0%})"


def rows(names: list[str], battles: int, seed: int) -> list[str]:
    out = []
    for name in names:
        scenario = load_scenario(name)
        for policy in POLICIES:
            wins, draws = balance(name, policy, battles, seed)
            sides = sorted(wins)
            cells = [f"{scenario.side_name(s)}: {_rate(wins[s], battles)}" for s in sides[:2]]
            rest = ", ".join(f"{scenario.side_name(s)}: {_rate(wins[s], battles)}"
                             for s in sides[2:]) or "-"
            out.append(f"| {name} | {policy} | {cells[0]} | {cells[1]} | {rest} | "
                       f"{_rate(draws, battles)} |")
            print(out[-1], file=sys.stderr, flush=True)
    return out


def merge(doc: str, new: list[str]) -> str:
    """The doc with ``new`` table rows in place of the same scenario's (or added, sorted)."""
    head, rest = doc.split(START, 1)
    body, tail = rest.split(END, 1)
    lines = body.split("\n")
    names = {r.split("|")[1].strip() for r in new}
    first = next(i for i, x in enumerate(lines) if x.startswith("|---"))
    kept = [x for x in lines[first + 1:] if x.startswith("| ")
            and x.split("|")[1].strip() not in names]
    table = sorted(kept + new, key=lambda r: (r.split("|")[1].strip(),
                                               POLICIES.index(r.split("|")[2].strip())))
    after = [x for x in lines[first + 1:] if not x.startswith("| ")]
    return head + START + "\n".join(lines[: first + 1] + table + after) + END + tail


def table(battles: int, seed: int) -> list[str]:
    out = [
        START,
        "",
        f"Win rate of each side when every combatant plays the same policy, over {battles} "
        f"seeded battles (seeds {seed}..{seed + battles - 1}), Wilson 95% intervals; "
        "written by `python experiments/sides.py --write`. A scenario's sides are not "
        "meant to be even: compare policies seat by seat (`vtm-sim ladder` reports each "
        "seat).",
        "",
        "| scenario | policy | side 0 wins | side 1 wins | other sides | draws |",
        "|---|---|---|---|---|---|",
    ]
    out += rows(list_scenarios(), battles, seed)
    out += ["", END]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--battles", type=int, default=500)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--write", action="store_true", help="update docs/scenarios.md")
    ap.add_argument("--scenario", action="append", default=[], metavar="NAME",
                    help="only this scenario (repeatable); --write updates its rows")
    args = ap.parse_args()
    if args.scenario:
        new = rows(args.scenario, args.battles, args.seed)
        if not args.write:
            print("\n".join(new))
            return
        DOC.write_text(merge(DOC.read_text(encoding="utf-8"), new), encoding="utf-8")
        print(f"wrote {DOC}")
        return
    lines = table(args.battles, args.seed)
    text = "\n".join(lines) + "\n"
    if not args.write:
        print(text, end="")
        return
    doc = DOC.read_text(encoding="utf-8")
    if START in doc:
        head, rest = doc.split(START, 1)
        doc = head + text.rstrip("\n") + rest.split(END, 1)[1]
    else:
        doc = doc.rstrip("\n") + "\n\n## Side balance\n\n" + text
    DOC.write_text(doc, encoding="utf-8")
    print(f"wrote {DOC}")


if __name__ == "__main__":
    main()
