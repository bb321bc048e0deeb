"""What should this NPC do now: ``vtm-sim suggest``; ``vtm-sim export-behaviors``.

The engine is imported inside each command, so a command's ``--help`` imports
click and the decision kinds it lists, nothing more (tests/cli/test_startup.py).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING

import click

from vtm_sim.cli.base import SEED, STARTED, _dump, main, user_errors
from vtm_sim.core.choices import DecisionKind

if TYPE_CHECKING:
    from vtm_sim.analysis.advice import Advice
    from vtm_sim.engine.battle import Battle
    from vtm_sim.policies.play import Policy


OUTPUT_MARGIN = 0.3  # seconds kept for printing the answer


def _playout(name: str, battle: Battle, seed: int) -> Callable[[int], Policy]:
    """Who plays on in the simulated fights: ``auto`` is
    :func:`vtm_sim.policies.playouts.advice_playout` (nearest in a duel, the quick tactician
    in a bigger fight), ``planner`` the planner's own playouts (nearest in a duel, the
    tactician past two); any other name of the registry plays itself."""
    from vtm_sim.cli.battles import _policy_maker
    from vtm_sim.policies.planner import playout_for
    from vtm_sim.policies.playouts import advice_playout

    if name == "auto":
        return advice_playout(len(battle.combatants))
    if name == "planner":
        return playout_for(len(battle.combatants))
    return _policy_maker(name, battle, seed)


def _fmt(p: float | None, pct: bool = True) -> str:
    if p is None:
        return "-"
    return f"{p:.0%}" if pct else f"{p:.1f}"


@main.command("suggest")
@click.argument("source", metavar="SCENARIO|STATE")
@click.option("--npc", required=True, metavar="NAME",
              help="The combatant to advise (its name; Name#2 where names repeat).")
@click.option("--goal", "goal_text", default=None, metavar="GOAL",
              help="What the NPC wants: win, survive, escape, protect:NAME, take-alive:NAME "
              "or hurt:NAME (default: the goal the state or scenario gives it, else win).")
@click.option("--time", "seconds", type=click.FloatRange(0.1, 3600), default=2.0,
              show_default=True, metavar="S",
              help="Seconds to think: the search stops then and answers with what it has.")
@click.option("--rollouts", type=click.IntRange(8, 100000), default=None, metavar="N",
              help="Stop when every option left has N simulated fights instead of at a time "
              "(the same answer on any machine and for any number of workers).")
@click.option("--policy", "policy_name", default="auto", show_default=True, metavar="NAME",
              help="Who plays on in the simulated fights: auto (nearest in a duel, a quick "
              "tactician in a bigger fight), planner (the planner's playouts: nearest in a "
              "duel, the tactician past two), or any policy name (`vtm-sim policies`).")
@click.option("--seed", type=SEED, default=0, metavar="N",
              help="Seeds the simulated fights.")
@click.option("--decision", "kind", type=click.Choice([k.value for k in DecisionKind]),
              default=None,
              help="Rank every option of the NPC's next decision of this kind alone "
              "(default: the whole turn as one plan).")
@click.option("--all", "show_all", is_flag=True, help="Every option raced, as a table.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def suggest_cmd(source: str, npc: str, goal_text: str | None, seconds: float,
                rollouts: int | None, policy_name: str, seed: int, kind: str | None,
                show_all: bool, as_json: bool) -> None:
    """What an NPC does this turn, for its goal, and why.

    For a scenario, the fight as it starts; for a state file, the fight as it
    stands. By default the answer is the whole turn as one plan (blood, the
    declaration and the first action), then the three best actions, each with
    the reason that decides it, its exact odds against the defense it names,
    and the goal's value with a 95% interval. Where the state gives no
    initiative, every simulated fight rolls it and the answer names the cases
    where it changes the advice.
    """
    import sys
    import time

    from vtm_sim.analysis.advice import advise
    from vtm_sim.analysis.goals import make_goal
    from vtm_sim.core.goals import GoalSpec
    from vtm_sim.files.names import find_combatant

    with user_errors():
        battle, goals = _unbegun(source, seed)
        who = find_combatant(battle, npc)
        written = goal_text if goal_text is not None else goals.get(who, "win")
        where = "--goal" if goal_text is not None else f"{source}: goal of {npc}"
        spec = GoalSpec.parse(written, where)
        goal = make_goal(spec, battle, who, where)
        playout = _playout(policy_name, battle, seed)
        progress = _progress() if sys.stderr.isatty() and not as_json else None
        # the time counts from the start of the command (imports and reading the files
        # included), less a little for printing the answer
        left = max(0.05, seconds - (time.monotonic() - STARTED) - OUTPUT_MARGIN)
        advice = advise(battle, who, playout=playout, policy_name=policy_name, goal=goal,
                        goal_text=str(spec), seconds=None if rollouts is not None else left,
                        rollouts=rollouts, seed=seed,
                        kind=None if kind is None else DecisionKind(kind), progress=progress)
        if progress is not None:
            click.echo("\r" + " " * 60 + "\r", nl=False, err=True)
    if as_json:
        click.echo(_dump(advice.to_json()))
        return
    for line in _lines(advice, show_all):
        click.echo(line)


def _unbegun(source: str, seed: int) -> tuple[Battle, dict[int, str]]:
    """The fight as the file has it, not begun (its initiative, if not given, still to
    roll), and the goals it gives its combatants (by id)."""
    from vtm_sim.cli.battles import _is_state_file
    from vtm_sim.engine.battle import Battle
    from vtm_sim.files.scenarios import load_scenario

    if _is_state_file(source):
        from vtm_sim.files.state_files import read_state

        loaded = read_state(source, seed=seed)
        goals = dict(loaded.goals or {})
        return loaded.battle, goals
    sc = load_scenario(source)
    b = Battle(sc.fighters, seed=seed, rules=sc.rules, turn_limit=sc.turn_limit,
               field=sc.field, ambush=sc.ambush, scenario=sc.name, start=False)
    return b, dict(sc.goals)


def _progress() -> Callable[[int], None]:
    def show(n: int) -> None:
        click.echo(f"\rthinking... {n} simulated fights", nl=False, err=True)

    return show


def _lines(a: Advice, show_all: bool = False) -> list[str]:
    out = [f"{a.npc}, turn {a.turn}: to {a.goal_words} (goal {a.goal}; {a.rollouts} simulated "
           f"fights in {a.seconds:.1f} s, policy {a.policy}, seed {a.seed})."]
    if len(a.plan) > 1 or (a.plan and a.plan[0].kind is not a.decision):
        out.append("This turn: " + "; then ".join(s.action for s in a.plan) + ". " + a.then)
    differs = [c for c in a.cases if c.differs]
    if a.cases and not differs:
        out.append("Initiative not rolled yet: the same action is best whoever acts first.")
    for c in differs:
        who = ", ".join(c.ahead) if c.ahead else "nobody"
        out.append(f"If {who} act{'s' if len(c.ahead) == 1 else ''} before {a.npc} "
                   f"({c.p:.0%}): {c.best} instead.")
    top = a.options if show_all else a.options[:3]
    tied = [i for i, o in enumerate(top, 1) if o.tied_with_best]
    for i, o in enumerate(top, 1):
        out.append(f"{i}. {o.reason}")
    if len(tied) > 1:
        out.append(f"Options {', '.join(map(str, tied))} are equally good within the noise"
                   + ("; the active one comes first." if tied[0] == 1 else "."))
    if show_all:
        out.append("")
        out.append(f"{'#':>2}  {'option':60} {'hit':>5} {'wound':>6} {'lvls':>5} {'down':>5} "
                   f"{'goal':>5}  95%        {'win':>5} fights")
        for i, o in enumerate(a.options, 1):
            ex = o.exchange
            lo, hi = o.tally.value_ci95
            out.append(
                f"{i:>2}  {o.action:60} {_fmt(ex.p_hit if ex else None):>5} "
                f"{_fmt(ex.p_damage if ex else None):>6} "
                f"{_fmt(ex.expected_levels if ex else None, pct=False):>5} "
                f"{_fmt(ex.p_incapacitate if ex else None):>5} {o.tally.goal:>5.0%}  "
                f"{lo:>4.0%}-{hi:<4.0%}  {o.p_win:>5.0%} {o.rollouts:>6}")
    return out


@main.command("export-behaviors")
@click.argument("scenario_name", metavar="SCENARIO|STATE")
@click.option("--npc", required=True, metavar="NAME", help="The combatant to describe.")
@click.option("--policy", "policy_name", default="tactician", show_default=True,
              metavar="NAME", help="How the NPC plays: any policy name (`vtm-sim policies`), "
              "e.g. nearest, tactician, planner, gunman, ladder:2 or model:PATH.")
@click.option("--others", "others_name", default="nearest", show_default=True, metavar="NAME",
              help="How everyone else plays.")
@click.option("--battles", type=click.IntRange(1, 100000), default=200, show_default=True,
              metavar="N", help="Simulated battles to learn from.")
@click.option("--wounded", type=click.FloatRange(0, 1), default=0.5, show_default=True,
              metavar="SHARE", help="The share of the battles begun with the NPC wounded "
              "further (2 to 6 lethal levels), so the card has rows for wounded situations; "
              "the win rate counts the others.")
@click.option("--seed", type=SEED, default=0, metavar="N", help="First seed (default 0).")
@click.option("--format", "fmt", type=click.Choice(["md", "json", "yaml"]), default="md",
              show_default=True, help="Markdown to print, or JSON/YAML for tools.")
@click.option("--out", "out_file", type=click.Path(dir_okay=False), default=None,
              metavar="FILE", help="Write the card here instead of printing it.")
def export_behaviors_cmd(scenario_name: str, npc: str, policy_name: str, others_name: str,
                         battles: int, wounded: float, seed: int, fmt: str,
                         out_file: str | None) -> None:
    """A tactic card for one NPC, learned from simulated battles.

    From a scenario's start, or from a state file's fight as it stands. In the
    situations that matter (its wounds, the range, cover, ammunition, the
    enemy's state) what it does, how often, and how well that worked, with a
    glossary of the situation words.
    """
    from vtm_sim.analysis.behaviors import card_markdown, learn, scenario_start, state_start
    from vtm_sim.cli.battles import _is_state_file, _write
    from vtm_sim.errors import ConfigError
    from vtm_sim.files.names import find_combatant
    from vtm_sim.files.scenarios import Scenario, load_scenario
    from vtm_sim.files.state_files import labels
    from vtm_sim.policies import registry

    with user_errors():
        scenario: Scenario
        if _is_state_file(scenario_name):
            from vtm_sim.files.state_files import read_state

            loaded = read_state(scenario_name, seed=seed)
            battle = loaded.battle
            scenario = loaded.scenario or registry.scenario_of(battle)
            who = find_combatant(battle, npc)
            start = state_start(scenario_name, who)
        else:
            scenario = load_scenario(scenario_name)
            who = find_combatant(scenario.battle(seed=seed), npc)
            start = scenario_start(scenario, who)
        makers = {}
        for option, name in (("--policy", policy_name), ("--others", others_name)):
            try:
                makers[name] = registry.maker(name, scenario)
            except ConfigError as exc:
                raise ConfigError(f"{option}: {exc}") from None
        card = learn(start, who, makers[policy_name], policy_name=policy_name,
                     others=makers[others_name], battles=battles, seed=seed,
                     npc_label=labels(start.names)[who], wounded=wounded)
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
