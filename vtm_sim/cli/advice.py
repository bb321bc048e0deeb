"""What should this NPC do now: ``vtm-sim suggest``; ``vtm-sim export-behaviors``.

The engine is imported inside each command, so a command's ``--help`` imports
click and the decision kinds it lists, nothing more (tests/cli/test_startup.py).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING

import click

from vtm_sim.cli.base import SEED, _dump, main, user_errors
from vtm_sim.core.choices import DecisionKind

if TYPE_CHECKING:
    from vtm_sim.analysis.advice import Advice
    from vtm_sim.engine.battle import Battle
    from vtm_sim.policies.play import Policy


def _playout(name: str, battle: Battle, seed: int) -> Callable[[int], Policy]:
    """Who plays on in the simulated fights: ``planner`` means the planner's own playouts
    (:func:`vtm_sim.policies.planner.playout_for`: nearest in a duel, the tactician in a bigger
    fight); any other name of the registry plays itself."""
    import numpy as np

    from vtm_sim.errors import ConfigError
    from vtm_sim.policies import registry
    from vtm_sim.policies.planner import playout_for

    if name == "planner":
        return playout_for(len(battle.combatants))
    try:
        make = registry.maker(name, registry.scenario_of(battle))
    except ConfigError as exc:
        raise ConfigError(f"--policy: {exc}") from None
    rng = np.random.default_rng([seed, 7])
    return lambda cid: make(rng, cid)


def _fmt(p: float | None, pct: bool = True) -> str:
    if p is None:
        return "-"
    return f"{p:.0%}" if pct else f"{p:.1f}"


@main.command("suggest")
@click.argument("source", metavar="SCENARIO|STATE")
@click.option("--npc", required=True, metavar="NAME",
              help="The combatant to advise (its name; Name#2 where names repeat).")
@click.option("--policy", "policy_name", default="planner", show_default=True, metavar="NAME",
              help="Who plays on in the simulated fights (and decides for the others until "
              "the NPC is asked): the planner's playouts (nearest in a duel, the tactician in a "
              "bigger fight), or any policy name (`vtm-sim policies`).")
@click.option("--rollouts", type=click.IntRange(10, 100000), default=500, show_default=True,
              metavar="N", help="Simulated fights per option at first (more go to close calls).")
@click.option("--seed", type=SEED, default=0, metavar="N",
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
    from vtm_sim.analysis.advice import advise, find_combatant
    from vtm_sim.cli.battles import _is_state_file
    from vtm_sim.files.scenarios import load_scenario

    with user_errors():
        if _is_state_file(source):
            from vtm_sim.files.state_files import load_state

            battle: Battle = load_state(source, seed=seed)
        else:
            battle = load_scenario(source).battle(seed=seed)
        who = find_combatant(battle, npc)
        playout = _playout(policy_name, battle, seed)
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


@main.command("export-behaviors")
@click.argument("scenario_name", metavar="SCENARIO")
@click.option("--npc", required=True, metavar="NAME", help="The combatant to describe.")
@click.option("--policy", "policy_name", default="tactician", show_default=True,
              metavar="NAME", help="How the NPC plays: any policy name (`vtm-sim policies`), "
              "e.g. nearest, tactician, planner, gunman, ladder:2 or model:PATH.")
@click.option("--others", "others_name", default="nearest", show_default=True, metavar="NAME",
              help="How everyone else plays.")
@click.option("--battles", type=click.IntRange(1, 100000), default=200, show_default=True,
              metavar="N", help="Simulated battles to learn from.")
@click.option("--seed", type=SEED, default=0, metavar="N", help="First seed (default 0).")
@click.option("--format", "fmt", type=click.Choice(["md", "json", "yaml"]), default="md",
              show_default=True, help="Markdown to print, or JSON/YAML for tools.")
@click.option("--out", "out_file", type=click.Path(dir_okay=False), default=None,
              metavar="FILE", help="Write the card here instead of printing it.")
def export_behaviors_cmd(scenario_name: str, npc: str, policy_name: str, others_name: str,
                         battles: int, seed: int, fmt: str, out_file: str | None) -> None:
    """A tactic card for one NPC, learned from simulated battles.

    In the situations that matter (its wounds, the range, cover, ammunition,
    the enemy's state) what it does, how often, and how well that worked.
    """
    from vtm_sim.analysis.advice import find_combatant
    from vtm_sim.analysis.behaviors import card_markdown, learn
    from vtm_sim.cli.battles import _write
    from vtm_sim.errors import ConfigError
    from vtm_sim.files.scenarios import load_scenario
    from vtm_sim.policies import registry

    with user_errors():
        scenario = load_scenario(scenario_name)
        makers = {}
        for option, name in (("--policy", policy_name), ("--others", others_name)):
            try:
                makers[name] = registry.maker(name, scenario)
            except ConfigError as exc:
                raise ConfigError(f"{option}: {exc}") from None
        who = find_combatant(scenario.battle(seed=seed), npc)
        card = learn(scenario, who, makers[policy_name], policy_name=policy_name,
                     others=makers[others_name], battles=battles, seed=seed,
                     npc_label=npc)
    if fmt == "md":
        text = card_markdown(card)
    elif fmt == "json":
        text = json.dumps(card.to_json(), indent=1) + "\n"
    else:
        import yaml

        text = yaml.safe_dump(card.to_json(), sort_keys=False, allow_unicode=True)
    if out_file is not None:
        _write(out_file, "--out", text)
        click.echo(f"Card for {card.npc} written to {out_file}.")
        return
    click.echo(text, nl=False)
