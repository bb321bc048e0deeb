"""Count the choices a policy makes in seeded battles against an opponent, per seat.

    python experiments/shipped_choices.py duel --policy trained:duel --opponent ladder:3
    python experiments/shipped_choices.py duel --policy ladder:3 --opponent ladder:3

Plays ``--battles`` seeded battles a seat (seeds S..S+N-1, as ``vtm-sim evaluate``
does) and prints, for each seat, the share of the policy's decisions of each kind
(declare / act / defend ...) that took each choice: e.g. how often it declares
two actions, spends Willpower, goes on full defense, calls a shot, parries or
dodges, moves. experiments/results/shipped.md uses it to say what the shipped
policies do that the ladder does not.
"""

from __future__ import annotations

import argparse
from collections import Counter

import agents  # noqa: F401  (registers the agents' policy names)
from vtm_sim.arena.tournament import seeded_battle
from vtm_sim.events.turn import DecideEvent
from vtm_sim.files.scenarios import load_scenario
from vtm_sim.policies import registry


def label(kind: str, choice: dict[str, object]) -> str:
    """A short name for a choice: what it does, without its target."""
    if kind == "declare":
        parts = [f"{choice.get('actions')} action(s)"]
        if choice.get("full_defense"):
            parts.append("full defense")
        if choice.get("willpower"):
            parts.append("willpower")
        if choice.get("celerity"):
            parts.append(f"celerity {choice['celerity']}")
        return ", ".join(parts)
    keep = {k: v for k, v in choice.items() if k not in ("target", "x", "y", "to")}
    return " ".join(k if v is True else f"{v}" for k, v in keep.items()
                    if v not in (None, False, 0, ""))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("scenario")
    p.add_argument("--policy", required=True)
    p.add_argument("--opponent", default="ladder:3")
    p.add_argument("--battles", type=int, default=100, help="per seat")
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args()
    scenario = load_scenario(a.scenario)
    player = registry.maker(a.policy, scenario)
    opponent = registry.maker(a.opponent, scenario)
    sides = sorted({f.side for f in scenario.fighters})
    for side in sides:
        counts: dict[str, Counter[str]] = {}
        wins = 0
        for k in range(a.battles):
            battle = seeded_battle(scenario, {s: player if s == side else opponent
                                              for s in sides}, a.seed + k)
            wins += battle.winner == side
            mine = {i for i, f in enumerate(scenario.fighters) if f.side == side}
            for ev in battle.log:
                if isinstance(ev, DecideEvent) and ev.who in mine:
                    d = ev.to_json()
                    counts.setdefault(str(d["kind"]), Counter())[label(str(d["kind"]),
                                                                     d["choice"])] += 1
        print(f"{a.policy} on seat {side} against {a.opponent}: {wins}/{a.battles} won")
        for kind, c in counts.items():
            total = sum(c.values())
            top = ", ".join(f"{name or 'none'} {n / total:.0%}" for name, n in c.most_common(8))
            print(f"  {kind} ({total}): {top}")


if __name__ == "__main__":
    main()
