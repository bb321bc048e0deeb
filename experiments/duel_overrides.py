"""Would a Storyteller's rule of thumb make trained:duel stronger against the top rung?

    python experiments/duel_overrides.py --battles 500 --jobs 2 --out runs/duel_overrides.json

Each override replaces one kind of choice of the shipped ``trained:duel`` with a fixed
rule, in one seat, and plays the same seeded battles against ``--opponent`` (default
ladder:4, the planner) as the plain policy does (``seeded_battle``, seeds 0..N-1). The
rules are the ones its losses suggest: the Knife Fighter loses almost only battles in which
the Brawler clinches it, and the Brawler wins about half of the battles it gets a clinch
in, against a quarter of the others. If a rule scored higher, the policy would have room
to learn it; if every rule scores lower, the shipped choices are better than the obvious
alternatives at each of those decisions (a local optimum against that opponent).
``hold_lock`` is no override but a scripted Brawler (hold, then keep holding, MAN-7),
which asks whether a hold can buy the Brawler draws.

Measured 2026-12-06 (seventeenth session, pure build; experiments/results/shipped.md, "Why
not 0.65"): every override scores below the plain policy on its seat.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

import agents  # noqa: F401  (registers the agents' policy names, trained:NAME among them)
from vtm_sim.arena.intervals import wilson
from vtm_sim.arena.tournament import seeded_battle
from vtm_sim.core.choices import (
    Action,
    ActionKind,
    Choice,
    Decision,
    DecisionKind,
    Declaration,
    Defense,
    DefenseKind,
)
from vtm_sim.engine.battle import Battle
from vtm_sim.files.scenarios import load_scenario
from vtm_sim.mechanics.combatant import Combatant
from vtm_sim.policies.play import Policy
from vtm_sim.policies.registry import PolicyMaker, maker

BRAWLER, KNIFE_FIGHTER = 0, 1  # the duel's seats (configs/scenarios/duel.yaml)
Rule = Callable[[Battle, Decision, Combatant, Choice], Choice | None]


def _declare(actions: int, willpower: bool) -> Rule:
    """Declare ``actions`` actions (with or without Willpower) where the policy declares."""
    def rule(b: Battle, d: Decision, c: Combatant, pick: Choice) -> Choice | None:
        if d.kind is not DecisionKind.DECLARE:
            return None
        return next((o for o in d.options if isinstance(o, Declaration)
                     and o.actions == actions and o.willpower == willpower
                     and not o.full_defense), None)
    return rule


def _act(kind: ActionKind, maneuver: str | None = None) -> Rule:
    """Take the first legal action of ``kind`` (and ``maneuver``) where the policy acts."""
    def rule(b: Battle, d: Decision, c: Combatant, pick: Choice) -> Choice | None:
        if d.kind is not DecisionKind.ACT:
            return None
        return next((o for o in d.options if isinstance(o, Action) and o.kind is kind
                     and (maneuver is None or o.maneuver == maneuver)), None)
    return rule


def _both(*rules: Rule) -> Rule:
    def rule(b: Battle, d: Decision, c: Combatant, pick: Choice) -> Choice | None:
        return next((o for r in rules if (o := r(b, d, c, pick)) is not None), None)
    return rule


def _free(r: Rule) -> Rule:
    """Only while in no grapple."""
    return lambda b, d, c, pick: r(b, d, c, pick) if c.grip is None else None


def _clinched(r: Rule) -> Rule:
    """Only inside a clinch (MAN-6)."""
    return lambda b, d, c, pick: r(b, d, c, pick) if c.clinch_with >= 0 else None


def _dodge_clinch(b: Battle, d: Decision, c: Combatant, pick: Choice) -> Choice | None:
    if d.kind is not DecisionKind.DEFEND or d.maneuver != "clinch":
        return None
    return next((o for o in d.options if isinstance(o, Defense)
                 and o.kind is DefenseKind.DODGE), None)


def _attacks_clinch(b: Battle, d: Decision, c: Combatant, pick: Choice) -> Choice | None:
    if isinstance(pick, Action) and pick.kind is ActionKind.ATTACK:
        return _act(ActionKind.ATTACK, "clinch")(b, d, c, pick)
    return None


# name: (seat, rule, what it does)
OVERRIDES: dict[str, tuple[int, Rule, str]] = {
    "kf_one_action": (KNIFE_FIGHTER, _free(_declare(1, False)),
                      "out of a grapple, declares one action, no Willpower"),
    "kf_one_action_wp": (KNIFE_FIGHTER, _free(_declare(1, True)),
                         "out of a grapple, declares one action with Willpower"),
    "kf_three_actions_wp": (KNIFE_FIGHTER, _free(_declare(3, True)),
                            "out of a grapple, declares three actions with Willpower"),
    "kf_dodge_clinch": (KNIFE_FIGHTER, _dodge_clinch, "dodges a clinch instead of parrying"),
    "kf_clinch_one_action": (KNIFE_FIGHTER, _clinched(_declare(1, False)),
                             "in a clinch, declares one action (a full break-free pool)"),
    "kf_clinch_break": (KNIFE_FIGHTER, _clinched(_both(_declare(1, False),
                                                       _act(ActionKind.BREAK_FREE))),
                        "in a clinch, one action, and always tries to break free"),
    "kf_clinch_crush": (KNIFE_FIGHTER, _clinched(_both(_declare(1, False),
                                                       _act(ActionKind.CRUSH))),
                        "in a clinch, one action, and always crushes"),
    "br_clinch": (BRAWLER, _free(_attacks_clinch),
                  "every attack the policy makes out of a grapple is a clinch"),
    "br_always_clinch": (BRAWLER, _free(_act(ActionKind.ATTACK, "clinch")),
                         "clinches whenever a clinch is legal"),
    "br_clinch_one_action_wp": (BRAWLER, _free(_both(_declare(1, True), _attacks_clinch)),
                                "one action with Willpower, and every attack a clinch"),
}


class Overridden:
    """``inner``'s choice, unless ``rule`` has one for the decision."""

    def __init__(self, inner: Policy, rule: Rule) -> None:
        self.inner, self.rule = inner, rule
        self.overruled = 0

    def choose(self, battle: Battle, decision: Decision) -> Choice:
        pick = self.inner.choose(battle, decision)
        mine = self.rule(battle, decision, battle.combatants[decision.actor], pick)
        if mine is None or mine is pick:
            return pick
        self.overruled += 1
        return mine


HOLD_LOCK = ("scripted Brawler: one action with Willpower; closes in and holds (MAN-7), "
             "then keeps holding; breaks free of a grapple; never defends")


class HoldLock:
    """A scripted Brawler (``HOLD_LOCK``)."""

    def choose(self, battle: Battle, decision: Decision) -> Choice:
        c = battle.combatants[decision.actor]
        opts = decision.options
        if decision.kind is DecisionKind.DECLARE:
            return _declare(1, True)(battle, decision, c, opts[0]) or opts[0]
        if decision.kind is not DecisionKind.ACT:
            return opts[0]  # no blood to spend; no defense
        if c.holding >= 0:
            return _act(ActionKind.PASS)(battle, decision, c, opts[0]) or opts[0]
        for kind, man in ((ActionKind.BREAK_FREE, None), (ActionKind.ATTACK, "hold"),
                          (ActionKind.MOVE, None)):
            pick = next((o for o in opts if isinstance(o, Action) and o.kind is kind
                         and o.maneuver == man and not o.away), None)
            if pick is not None:
                return pick
        return opts[0]


def variant_maker(name: str, scenario: Any) -> tuple[int, PolicyMaker]:
    """The seat and the policy maker of a variant: ``plain:SEAT``, an override or
    ``hold_lock``."""
    trained = maker("trained:duel", scenario)
    if name.startswith("plain:"):
        return int(name.split(":")[1]), trained
    if name == "hold_lock":
        return BRAWLER, lambda rng, cid: HoldLock()
    seat, rule, _ = OVERRIDES[name]

    def make(rng: np.random.Generator, cid: int) -> Policy:
        return Overridden(trained(rng, cid), rule)

    return seat, make


def measure(task: tuple[str, str, int]) -> dict[str, Any]:
    """One variant over seeds 0..battles-1 against the opponent, in its seat."""
    name, opponent, battles = task
    scenario = load_scenario("duel")
    seat, mine = variant_maker(name, scenario)
    theirs = maker(opponent, scenario)
    wins = draws = 0
    for seed in range(battles):
        winner = seeded_battle(scenario, {seat: mine, 1 - seat: theirs}, seed).winner
        wins += winner == seat
        draws += winner is None
    low, high = wilson(wins, battles)
    return {"variant": name, "seat": seat, "opponent": opponent, "battles": battles,
            "wins": wins, "draws": draws, "losses": battles - wins - draws,
            "win_95": [round(low, 3), round(high, 3)],
            "score": round((wins + draws / 2) / battles, 4)}


def table(rows: Sequence[dict[str, Any]]) -> str:
    what = {name: text for name, (_, _, text) in OVERRIDES.items()}
    what["hold_lock"] = HOLD_LOCK
    lines = ["| variant | seat | what it changes | wins | draws | losses | win (95%) | score |",
             "|---|---:|---|---:|---:|---:|---|---:|"]
    for r in rows:
        lo, hi = r["win_95"]
        lines.append(f"| {r['variant']} | {r['seat']} | {what.get(r['variant'], 'trained:duel')}"
                     f" | {r['wins']} | {r['draws']} | {r['losses']} | "
                     f"{r['wins'] / r['battles']:.3f} ({lo:.3f}-{hi:.3f}) | {r['score']:.3f} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--battles", type=int, default=500, help="seeded battles a variant")
    parser.add_argument("--opponent", default="ladder:4")
    parser.add_argument("--variants", default=",".join(
        ["plain:0", "plain:1", *OVERRIDES, "hold_lock"]))
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--out", type=Path, help="the rows as JSON")
    args = parser.parse_args()
    tasks = [(v, args.opponent, args.battles) for v in args.variants.split(",")]
    with ProcessPoolExecutor(args.jobs) as pool:
        rows = list(pool.map(measure, tasks))
    rows.sort(key=lambda r: (r["seat"], not r["variant"].startswith("plain")))
    print(table(rows))
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
