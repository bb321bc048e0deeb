"""What should this NPC do now: ``vtm-sim suggest``."""

from __future__ import annotations

from collections.abc import Callable

import click

from vtm_sim.advice import Advice, advise, find_combatant
from vtm_sim.battle import Battle
from vtm_sim.choices import DecisionKind
from vtm_sim.cli.base import _dump, main, user_errors
from vtm_sim.policy import NearestEnemyPolicy
from vtm_sim.scenario import load_scenario
from vtm_sim.simulate import Policy
from vtm_sim.tactics import TacticianPolicy

PLAYOUTS: dict[str, Callable[[int], Policy]] = {
    # the planner judges options by rollouts played on by the nearest policy (cheap)
    "planner": lambda _cid: NearestEnemyPolicy(),
    "nearest": lambda _cid: NearestEnemyPolicy(),
    "tactician": lambda _cid: TacticianPolicy(),
}


def _fmt(p: float | None, pct: bool = True) -> str:
    if p is None:
        return "-"
    return f"{p:.0%}" if pct else f"{p:.1f}"


@main.command("suggest")
@click.argument("source", metavar="SCENARIO|STATE")
@click.option("--npc", required=True, metavar="NAME",
              help="The combatant to advise (its name; Name#2 where names repeat).")
@click.option("--policy", "policy_name", type=click.Choice(sorted(PLAYOUTS)), default="planner",
              show_default=True,
              help="Who plays on in the simulated fights (and decides for the others until "
              "the NPC is asked): the planner's cheap playouts, nearest or tactician.")
@click.option("--rollouts", type=click.IntRange(10, 100000), default=500, show_default=True,
              metavar="N", help="Simulated fights per option at first (more go to close calls).")
@click.option("--seed", type=int, default=0, metavar="N",
              help="Seeds the simulated fights (and a scenario's or hand-written state's dice).")
@click.option("--decision", "kind", type=click.Choice([k.value for k in DecisionKind]),
              default=None,
              help="Rank the NPC's next decision of this kind (default: its next decision; "
              "earlier ones of its own are made by the policy).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def suggest_cmd(source: str, npc: str, policy_name: str, rollouts: int, seed: int,
                kind: str | None, as_json: bool) -> None:
    """Rank every legal option of an NPC's decision, best first.

    For a scenario, the fight as it starts; for a state file, the fight as it
    stands. Each option gets exact odds where one attack decides it (to hit,
    to wound, levels on average, to take the target down) and its chance to
    win the whole fight by simulated fights, with a 95% interval.
    """
    from vtm_sim.cli.battles import _is_state_file

    with user_errors():
        if _is_state_file(source):
            from vtm_sim import load_state

            battle: Battle = load_state(source, seed=seed)
        else:
            battle = load_scenario(source).battle(seed=seed)
        who = find_combatant(battle, npc)
        playout = PLAYOUTS[policy_name]
        advice = advise(battle, who, playout=playout, policy_name=policy_name,
                        rollouts=rollouts, seed=seed,
                        kind=None if kind is None else DecisionKind(kind))
    if as_json:
        click.echo(_dump(advice.to_json()))
        return
    for line in _lines(advice):
        click.echo(line)


def _lines(a: Advice) -> list[str]:
    out = [f"{a.npc}, turn {a.turn}: {a.decision.value} decision "
           f"({a.rollouts} simulated fights, policy {a.policy}, seed {a.seed})."]
    out += [f"  {s}" for s in a.situation]
    out.append(f"Do this: {a.recommended.reason}")
    out.append("")
    out.append(f"{'#':>2}  {'option':48} {'hit':>5} {'wound':>6} {'lvls':>5} {'down':>5} "
               f"{'win':>5}  95%")
    for i, o in enumerate(a.options, 1):
        ex = o.exchange
        lo, hi = o.value.ci95
        out.append(
            f"{i:>2}  {o.action[:48]:48} {_fmt(ex.p_hit if ex else None):>5} "
            f"{_fmt(ex.p_damage if ex else None):>6} "
            f"{_fmt(ex.expected_levels if ex else None, pct=False):>5} "
            f"{_fmt(ex.p_incapacitate if ex else None):>5} {o.value.p_win:>5.0%}  "
            f"{lo:.0%}-{hi:.0%}"
        )
    return out
