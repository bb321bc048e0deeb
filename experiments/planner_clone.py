"""A fast numpy clone of the duel's planner (ladder:4), and is it a faithful stand-in?

    python experiments/planner_clone.py [--battles 4000] [--jobs 2] [--out runs/clone]

Records the planner's decisions over seeded duels (:func:`agents.imitation.record`:
the planner on each seat in turn, against trained:duel, itself, the tactician,
berserker, nearest and random), fits a 256x256 tanh MLP to its picks
(:func:`agents.imitation.fit_clone`, needs torch: the ``training`` extra) and writes
``OUT/decisions.npz`` and ``OUT/planner_clone.npz``. The clone then plays as
``model:OUT/planner_clone.npz`` anywhere a policy is named, e.g. as a training opponent:

    vtm-sim train --opponents model:runs/clone/planner_clone.npz --init STAGE1.zip ...
    vtm-sim evaluate trained:duel --opponents model:runs/clone/planner_clone.npz,ladder:4

Measured 2026-12-03 (692519a, compiled build, 2-core machine, ``--jobs 1`` beside a
training run; experiments/results/shipped.md, shipped.json ``tried_not_shipped``): 4,000
battles, 43,241 decisions in 732 s, fitted in 15 s; the clone picks the planner's action on
98.1% of held-out decisions, and trained:duel scores 0.589 against it (Brawler 0.330,
Knife Fighter 0.848, 500 battles a seat) where it scores 0.594 against ladder:4 over the
same seeds (0.347 / 0.840). A learner trains against the clone at 340-640 steps a second
where the planner allows 59-133, yet neither 400,000 steps of the shipped recipe's stage 2
against a clone nor 1,000,000 steps (scoring 0.56-0.58 against it all along) lifted the
duel past 0.59, against the clone or against ladder:4.
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from agents.imitation import Decisions, fit_clone, record
from vtm_sim.files.scenarios import load_scenario

TEACHER = "ladder:4"
# trained:duel weighted 4 (the learner's states), the planner itself 2, the rest 1 each
OPPONENTS = ("trained:duel",) * 4 + ("ladder:4",) * 2 + ("tactician", "berserker", "nearest",
                                                          "random")
CHUNK = 10  # battles a task: any --jobs gives the same rows in the same order


def _chunk(lo: int, hi: int, seed: int) -> Decisions:
    return record(load_scenario("duel"), TEACHER, OPPONENTS, range(lo, hi), seed=seed)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--battles", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--out", type=Path, default=Path("runs/clone"))
    args = parser.parse_args(argv)
    if args.battles < 1 or args.jobs < 1 or args.epochs < 1:
        sys.exit("planner_clone.py: --battles, --jobs and --epochs must be at least 1")
    args.out.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    bounds = [(lo, min(lo + CHUNK, args.battles)) for lo in range(0, args.battles, CHUNK)]
    with ProcessPoolExecutor(args.jobs) as pool:
        parts = list(pool.map(_chunk, *zip(*bounds, strict=True),
                              [args.seed] * len(bounds)))
    data = Decisions.join(parts)
    data.save(args.out / "decisions.npz")
    recorded = time.perf_counter() - start
    print(f"{args.battles} battles, {len(data)} decisions of {TEACHER} in {recorded:.0f} s",
          flush=True)
    path, agreement = fit_clone(data, args.out / "planner_clone.npz",
                                scenario=load_scenario("duel"), teacher=TEACHER,
                                env_id="vtm_sim/Duel-v6", epochs=args.epochs, seed=args.seed)
    fitted = time.perf_counter() - start - recorded
    print(f"fitted in {fitted:.0f} s: {path}, the teacher's pick on {agreement:.1%} of the "
          "held-out decisions")


if __name__ == "__main__":
    main()
