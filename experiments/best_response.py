"""How far above trained:duel can a duel policy get against the top rung? One step of
policy improvement with the opponent known.

    python experiments/best_response.py --rollouts 512 --seeds 0:250 --out rows.jsonl \
        --clone runs/clone/planner_clone.npz

``RespondPolicy`` plays the duel's seat given by ``--seats`` (both by default). At each of
its declare, act and defend decisions it scores the planner's candidate options
(:func:`vtm_sim.policies.planner.candidates`, the shipped ``trained:duel`` pick first) by
``--rollouts`` rollouts in all (sequential halving, :func:`vtm_sim.policies.planner.evaluate`). Each
is **played to the end of the fight**, ``trained:duel`` on its own side and a numpy clone
of the planner (``experiments/planner_clone.py``, 98% agreement) on the other. It takes the
best option unless that beats the trained pick by less than ``CONFIDENCE`` standard errors.
So it is the shipped policy improved by one step of lookahead against an accurate model of
ladder:4; the planner's own search assumes nearest plays on for two turns. The battles are
``seeded_battle``'s, against ``--opponent`` (default ladder:4), one JSON row a battle in
``--out``; a rerun skips the rows already there.

It is an experiment, not a registered policy: a second or more a decision is far too slow
to train against or to ship. It asks whether there is headroom above trained:duel's 0.594
for a policy to learn.

Measured 2026-12-03 (fourteenth session, compiled build, two processes; shipped.json
``tried_not_shipped``), trained:duel on the very same seeds and seats for comparison:

| rollouts | opponent | battles | Brawler | Knife Fighter | pooled | trained:duel |
|---:|---|---:|---:|---:|---:|---:|
| 64 | ladder:4 | 1,000 (seeds 0..499) | 0.352 | 0.834 | 0.593 | 0.594 |
| 512 | ladder:4 | 520 (seeds 0..140, 250..368) | 0.385 | 0.762 | 0.573 | 0.576 |
| 512 | the clone | 400 (seeds 0..99, 250..349) | 0.350 | 0.855 | 0.603 | 0.570 |

- Against the model it searches with, one step of lookahead at 512 rollouts gains 0.033:
  the search works, and the headroom it finds is small: 0.65 needs 0.08 over trained:duel.
- Against the real planner it gains 0.056 as the Brawler and loses 0.062 as the Knife
  Fighter, who draws 17% of its battles (trained:duel: none). The search steers into
  states the clone never saw the planner in: both fighters back away turn after turn until
  the turn limit, where the clone would have closed in.
- A Brawler that only backs away and dodges does not buy draws either: 0.025 against
  ladder:4 over 40 battles (38 losses); the planner runs it down.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

import agents  # noqa: F401  (registers the agents' policy names, trained:NAME among them)
from vtm_sim.arena.tournament import seeded_battle
from vtm_sim.core.choices import Choice, Decision
from vtm_sim.engine.battle import Battle
from vtm_sim.files.scenarios import Scenario, load_scenario
from vtm_sim.policies.planner import DELIBERATE, candidates, evaluate
from vtm_sim.policies.play import Policy
from vtm_sim.policies.registry import PolicyMaker, maker

CONFIDENCE = 1.0  # standard errors by which an option must beat the trained pick


class RespondPolicy:
    """trained:duel, overruled where rollouts against the planner's clone say better."""

    def __init__(self, rollouts: int, seed: int, own: Policy, other: Policy,
                 sides: Sequence[int], side: int) -> None:
        """``sides[cid]`` is combatant ``cid``'s side, ``side`` the one this policy plays."""
        self.rollouts = rollouts
        self.rng = np.random.default_rng(seed)
        self.own = own
        self.other = other
        # who plays on in the rollouts: trained:duel on its own side, the clone elsewhere
        self.playout: Callable[[int], Policy] = \
            lambda cid: own if sides[cid] == side else other
        self.searched = 0  # decisions scored by rollouts
        self.overruled = 0  # of them, where the rollouts beat the trained pick

    def choose(self, battle: Battle, decision: Decision) -> Choice:
        pick = self.own.choose(battle, decision)
        if len(decision.options) == 1 or decision.kind not in DELIBERATE:
            return pick
        opts = candidates(battle, decision, pick)
        if len(opts) == 1:
            return pick
        seed = int(self.rng.integers(0, 2**63 - 1))
        self.searched += 1
        values = evaluate(battle, decision, budget=self.rollouts, seed=seed,
                          playout=self.playout, options=opts, horizon=None,
                          min_rollouts=max(1, self.rollouts // (2 * len(opts))), keep=0)
        best = values[0]
        base = next(v for v in values if v.choice == pick)
        if best.choice != pick and \
                best.p_win > base.p_win + CONFIDENCE * math.sqrt(best.variance + base.variance):
            self.overruled += 1
            return best.choice
        return pick


def respond_maker(scenario: Scenario, rollouts: int, clone: str,
                  made: list[RespondPolicy]) -> PolicyMaker:
    trained = maker("trained:duel", scenario)
    model = maker(f"model:{clone}", scenario)

    sides = [f.side for f in scenario.fighters]

    def make(rng: np.random.Generator, cid: int) -> RespondPolicy:
        made.append(RespondPolicy(rollouts, int(rng.integers(2**31)), trained(rng, cid),
                                  model(rng, cid), sides, sides[cid]))
        return made[-1]

    return make


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rollouts", type=int, default=64)
    parser.add_argument("--seeds", default="0:50", help="first:last (last not played)")
    parser.add_argument("--seats", default="0,1")
    parser.add_argument("--opponent", default="ladder:4")
    parser.add_argument("--clone", default="runs/clone/planner_clone.npz")
    parser.add_argument("--out", type=Path, required=True, help="JSON lines, one a battle")
    args = parser.parse_args()
    scenario = load_scenario("duel")
    made: list[RespondPolicy] = []
    mine = respond_maker(scenario, args.rollouts, args.clone, made)
    theirs = maker(args.opponent, scenario)
    done = set()
    if args.out.is_file():
        done = {(r["seed"], r["seat"]) for r in map(json.loads, args.out.read_text().splitlines())}
    first, last = (int(x) for x in args.seeds.split(":"))
    with args.out.open("a") as out:
        for seed in range(first, last):
            for seat in (int(x) for x in args.seats.split(",")):
                if (seed, seat) in done:
                    continue
                made.clear()
                start = time.perf_counter()
                battle = seeded_battle(scenario, {seat: mine, 1 - seat: theirs}, seed)
                score = 0.5 if battle.winner is None else float(battle.winner == seat)
                row = {"seed": seed, "seat": seat, "score": score,
                       "seconds": round(time.perf_counter() - start, 2),
                       "searched": sum(p.searched for p in made),
                       "overruled": sum(p.overruled for p in made)}
                out.write(json.dumps(row) + "\n")
                out.flush()
                print(row, flush=True)


if __name__ == "__main__":
    main()
