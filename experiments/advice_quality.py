"""How good is the advice? Played as a policy, against the planner and the ladder.

Usage: python experiments/advice_quality.py win [--scenarios duel,gunfight] [--battles N]
       python experiments/advice_quality.py escape [--fights N]
       [--rollouts R] [--workers W] [--json]

``win``: :class:`vtm_sim.analysis.advisor.AdvisorPolicy` (``suggest``'s search at
every decision, goal ``win``, ``--rollouts`` simulated fights a decision: the
planner's own budget in a duel, :func:`vtm_sim.policies.planner.budget` past two)
plays every combatant of one side against the planner
(:meth:`~vtm_sim.policies.planner.PlannerPolicy.for_fight`, 64 rollouts for a duel)
on the other, ``--battles`` seeded battles a seat (seed ``k`` rolls the battle's
dice and seeds both searches). The score is the advisor's wins plus half the draws
over both seats, with a 95% Wilson interval; 0.5 is as good as the planner.

``escape``: from each state of ``experiments/states/escape/`` (the NPC: the combatant whose
``goal:`` is ``escape``), ``--fights`` seeded fights per contender: the NPC played by the
advisor with goal ``escape``, or by each ladder rung (``ladder:1`` .. ``ladder:4``); everyone
else by
the tactician. Counted: the share of fights in which the NPC got away (MOVE-4).
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
try:
    import vtm_sim  # noqa: F401
except ImportError:  # a checkout that is not installed
    sys.path.insert(0, str(ROOT))

from vtm_sim.analysis.advisor import AdvisorPolicy  # noqa: E402
from vtm_sim.core.goals import GoalKind  # noqa: E402
from vtm_sim.files.scenarios import load_scenario  # noqa: E402
from vtm_sim.policies.planner import PlannerPolicy, budget  # noqa: E402
from vtm_sim.policies.playouts import advice_playout  # noqa: E402
from vtm_sim.policies.tactician import TacticianPolicy  # noqa: E402

HORIZON = (int(os.environ["ADVISOR_HORIZON"]) if "ADVISOR_HORIZON" in os.environ
           else None)  # None: the advice's own (analysis.advice.horizon_for)
RUNGS = ("ladder:1", "ladder:2", "ladder:3", "ladder:4")


def wilson(k: float, n: int) -> tuple[float, float]:
    if n == 0:
        return 0.0, 1.0
    z = 1.959963984540054
    p = k / n
    c = (p + z * z / (2 * n)) / (1 + z * z / n)
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, c - h), min(1.0, c + h)


def win_battle(task: tuple[str, int, int, int]) -> float:
    """The advisor's points (1, 1/2, 0) in one battle: it plays side ``seat``."""
    name, seat, seed, rollouts = task
    sc = load_scenario(name)
    b = sc.battle(seed=seed)
    n = len(b.combatants)
    advisor = AdvisorPolicy(advice_playout(n), rollouts=budget(rollouts, n), seed=seed,
                            horizon=HORIZON)
    planner = PlannerPolicy.for_fight(n, rollouts, seed=seed)
    while b.pending is not None:
        d = b.pending
        who = advisor if b.combatants[d.actor].side == seat else planner
        b.choose(who.choose(b, d))
    return 0.5 if b.winner is None else 1.0 if b.winner == seat else 0.0


def escape_fight(task: tuple[str, str, str, int, int]) -> float:
    """1 when the NPC of state ``path`` got away, played by ``contender``."""
    from vtm_sim.analysis.advice import find_combatant
    from vtm_sim.files.state_files import load_state
    from vtm_sim.policies import registry

    path, npc_name, contender, seed, rollouts = task
    b = load_state(path, seed=seed)
    npc = find_combatant(b, npc_name)
    n = len(b.combatants)
    if contender == "advisor":
        mine = AdvisorPolicy(advice_playout(n), goal=GoalKind.ESCAPE, rollouts=rollouts,
                             seed=seed)
    else:
        import numpy as np

        mine = registry.maker(contender, registry.scenario_of(b))(
            np.random.default_rng([seed, 3]), npc)
    other = TacticianPolicy()
    while b.pending is not None:
        d = b.pending
        b.choose((mine if d.actor == npc else other).choose(b, d))
    return 1.0 if b.combatants[npc].escaped else 0.0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=["win", "escape"])
    ap.add_argument("--scenarios", default="duel,gunfight")
    ap.add_argument("--battles", type=int, default=500)
    ap.add_argument("--fights", type=int, default=300)
    ap.add_argument("--rollouts", type=int, default=64)
    ap.add_argument("--workers", type=int, default=None)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    out: dict[str, object] = {"rollouts": args.rollouts}
    with multiprocessing.get_context("fork").Pool(args.workers) as pool:
        if args.what == "win":
            rows = []
            for name in args.scenarios.split(","):
                tasks = [(name, seat, seed, args.rollouts) for seat in (0, 1)
                         for seed in range(args.battles)]
                pts = pool.map(win_battle, tasks, chunksize=1)
                n = len(pts)
                score = sum(pts) / n
                lo, hi = wilson(sum(pts), n)
                seats = [sum(pts[s * args.battles:(s + 1) * args.battles]) / args.battles
                         for s in (0, 1)]
                rows.append({"scenario": name, "battles": n, "score": round(score, 4),
                             "ci95": [round(lo, 4), round(hi, 4)],
                             "per_seat": [round(x, 4) for x in seats]})
                if not args.json:
                    print(f"{name}: advisor vs planner {score:.3f} ({lo:.3f}-{hi:.3f}) over {n} "
                          f"battles; seat 0 {seats[0]:.3f}, seat 1 {seats[1]:.3f}", flush=True)
            out["win"] = rows
        else:
            from vtm_sim.files.state_files import read_state

            rows = []
            for path in sorted((ROOT / "experiments" / "states" / "escape").glob("*.yaml")):
                loaded = read_state(path)
                npc = next(loaded.battle.combatants[i].name
                           for i, g in (loaded.goals or {}).items() if g == "escape")
                row: dict[str, object] = {"state": path.name, "npc": npc}
                for contender in ("advisor", *RUNGS):
                    tasks = [(str(path), npc, contender, seed, args.rollouts)
                             for seed in range(args.fights)]
                    got = sum(pool.map(escape_fight, tasks, chunksize=4))
                    lo, hi = wilson(got, args.fights)
                    row[contender] = [round(got / args.fights, 4), round(lo, 4), round(hi, 4)]
                rows.append(row)
                if not args.json:
                    print(path.name, {k: v for k, v in row.items() if k not in ("state",)},
                          flush=True)
            out["escape"] = rows
    if args.json:
        print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
