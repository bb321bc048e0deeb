"""Battles: fight, tournament, scenarios, replay."""

from __future__ import annotations

import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any, Literal

import click
import numpy as np

from vtm_sim.battle import Battle, Fighter
from vtm_sim.cli.base import (
    RULES_HELP,
    ReplayFailed,
    _dump,
    _fail,
    _health_json,
    main,
    user_errors,
)
from vtm_sim.errors import ConfigError, VtmSimError
from vtm_sim.events import EventLog
from vtm_sim.narration import narrate, plural
from vtm_sim.policy import NearestEnemyPolicy
from vtm_sim.replay import replay as replay_log
from vtm_sim.rules import load_rules
from vtm_sim.scenario import Scenario, list_scenarios, load_scenario
from vtm_sim.simulate import Policy, play
from vtm_sim.simulate import fight as run_fight
from vtm_sim.stats import load_stat_block
from vtm_sim.tables import load_tables
from vtm_sim.tactics import TacticianPolicy
from vtm_sim.tournament import POLICIES, PolicyMaker, check_setup, run_tournament, table_lines


@main.command("fight")
@click.argument("a_file", metavar="SCENARIO|A.yaml")
@click.argument("b_file", metavar="[B.yaml]", required=False)
@click.option(
    "--seed",
    type=int,
    default=0,
    metavar="N",
    help="Seed of every die in the battle (default 0).",
)
@click.option("--narrate", "tell", is_flag=True, help="Print the battle as narration.")
@click.option(
    "--log",
    "log_file",
    type=click.Path(dir_okay=False, writable=True),
    metavar="FILE",
    help="Write the JSONL event log here (replay it with `vtm-sim replay`).",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.option(
    "--distance",
    type=click.FloatRange(min=0),
    metavar="YARDS",
    default=10.0,
    show_default=True,
    help="Yards between A (side 0, at x=0) and B (side 1); not for scenarios.",
)
@click.option(
    "--turns",
    type=click.IntRange(1, 1000),
    metavar="N",
    default=None,
    help="Turn limit: the battle ends undecided after this many turns "
    "(default 20, or the scenario's).",
)
@click.option(
    "--rules", "rules_name", default=None, metavar="NAME",
    help=RULES_HELP + " Default v20, or the scenario's.",
)
@click.option(
    "--policy", "policy_name", type=click.Choice(["nearest", "tactician"]), default="nearest",
    show_default=True,
    help="How every combatant decides: rules of thumb, or the best attack by exact odds.",
)
def fight_cmd(
    a_file: str,
    b_file: str,
    seed: int,
    tell: bool,
    log_file: str | None,
    as_json: bool,
    distance: float,
    turns: int | None,
    rules_name: str | None,
    policy_name: str,
) -> None:
    """Run a seeded battle with a built-in policy on every side.

    Either a scenario (a name from `vtm-sim scenarios`, or a scenario file),
    or two stat blocks: A (side 0) against B (side 1), DISTANCE yards apart.
    """
    with user_errors():
        if b_file is None:
            scenario = load_scenario(a_file)
            rules = load_rules(rules_name) if rules_name else scenario.rules
            battle = play(Battle(
                scenario.fighters, seed=seed, rules=rules,
                turn_limit=turns or scenario.turn_limit, field=scenario.field,
                ambush=scenario.ambush,
            ), _policies(policy_name, len(scenario.fighters)))
        else:
            rules = load_rules(rules_name or "v20")
            tables = load_tables()
            a = load_stat_block(a_file, tables)
            b = load_stat_block(b_file, tables)
            battle = run_fight(
                [Fighter(a, 0, 0.0), Fighter(b, 1, float(distance))],
                seed=seed,
                rules=rules,
                turn_limit=turns or 20,
                policies=_policies(policy_name, 2),
            )
    if log_file is not None:
        try:
            battle.log.write(Path(log_file))
        except OSError as exc:
            _fail(f"--log {log_file}: cannot write ({exc.strerror})")
    winner = None
    if battle.winner is not None:
        winner = ", ".join(c.name for c in battle.combatants if c.side == battle.winner)
    lines = narrate(battle.log.events) if tell else []
    if as_json:
        data: dict[str, Any] = {
            "winner": winner,
            "winner_side": battle.winner,
            "reason": battle.end_reason,
            "turns": battle.turn,
            "events": len(battle.log),
            "log_sha256": battle.log.sha256(),
            "seed": seed,
            "rules": rules.name,
            "final": [
                {"name": c.name, "side": c.side, **_health_json(c)} for c in battle.combatants
            ],
        }
        if tell:
            data["narration"] = lines
        click.echo(_dump(data))
        return
    if tell:
        for line in lines:
            click.echo(line)
        return
    outcome = f"{winner} wins" if winner else "no winner"
    if battle.end_reason == "turn limit":
        outcome += " (turn limit)"
    click.echo(f"{outcome} after {plural(battle.turn, 'turn')} (seed {seed}, rules {rules.name}).")
    for c in battle.combatants:
        click.echo(
            f"  {c.name} (side {c.side}): {c.health.marks()} "
            f"{c.health.level_name}, {c.health.status.value}"
        )
    click.echo(f"{len(battle.log)} events, sha256 {battle.log.sha256()}")


def _policies(name: str, n: int) -> list[Policy]:
    if name == "tactician":
        return [TacticianPolicy() for _ in range(n)]
    return [NearestEnemyPolicy() for _ in range(n)]


def _agent_makers(names: list[str], scenario: Scenario) -> dict[str, PolicyMaker]:
    """Scripted and learned env agents as battle policies (imports envs only if asked)."""
    makers: dict[str, PolicyMaker] = {}
    wanted = [n for n in names if n == "brawler" or n.startswith("model:")]
    if not wanted:
        return makers
    from agents.scripted import BrawlerAgent
    from envs.adapter import AgentPolicy

    def brawler(_rng: np.random.Generator, cid: int) -> Policy:
        return AgentPolicy(lambda catalog, encoder: BrawlerAgent(catalog, encoder, cid), scenario)

    for name in wanted:
        if name == "brawler":
            makers[name] = brawler
        else:
            makers[name] = _learned_maker(name.removeprefix("model:"), scenario)
    return makers


def _learned_maker(path: str, scenario: Scenario) -> PolicyMaker:
    from agents.learned import LearnedAgent
    from envs.adapter import AgentPolicy

    try:
        agent = LearnedAgent.load(path)
    except (OSError, ValueError, ImportError) as exc:
        raise ConfigError(f"--policies: {path}: cannot load the model ({exc})") from None
    mode: Literal["flat", "dict"] = "dict" if agent.info.obs_mode == "dict" else "flat"

    def make(_rng: np.random.Generator, _cid: int) -> Policy:
        return AgentPolicy(agent, scenario, obs_mode=mode)

    return make


@main.command("tournament")
@click.argument("scenario_name", metavar="[SCENARIO]", default="duel")
@click.option("--policies", default="nearest,tactician,random", show_default=True,
              metavar="A,B,...",
              help="Policies to pit against each other: nearest, tactician, random, "
              "brawler (the scripted env agent), or model:PATH (a saved trained agent).")
@click.option("--battles", type=click.IntRange(1, 100000), default=100, show_default=True,
              metavar="N", help="Seeded battles per pairing.")
@click.option("--seed", type=int, default=0, metavar="N", help="First seed (default 0).")
@click.option("--side", type=int, default=None, metavar="S",
              help="The side the row policy plays (default the scenario's first).")
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default=None,
              metavar="DIR", help="Write results.json (with the resolved setup) here.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def tournament_cmd(scenario_name: str, policies: str, battles: int, seed: int,
                   side: int | None, out_dir: str | None, as_json: bool) -> None:
    """Pit policies against each other on a scenario: a results table with 95% intervals."""
    names = [p.strip() for p in policies.split(",") if p.strip()]
    with user_errors():
        scenario = load_scenario(scenario_name)
        makers = _agent_makers(names, scenario)
        check_setup(scenario, names, side, {**POLICIES, **makers})
        total = len(names) ** 2 * battles
        with click.progressbar(length=total, label="battles", file=sys.stderr,
                               show_pos=True) as bar:
            result = run_tournament(scenario, names, battles=battles, seed=seed, side=side,
                                    progress=bar.update, makers=makers)
    data = {
        "scenario": result.scenario, "scenario_file": scenario.source,
        "rules": scenario.rules.model_dump(), "policies": list(result.policies),
        "battles": battles, "seed": seed, "side": result.side,
        "table": [asdict(r) for r in result.table()],
        "pairs": [{"a": a, "b": b, **asdict(t), "score": t.score}
                  for (a, b), t in result.pairs.items()],
    }
    if out_dir is not None:
        try:
            Path(out_dir).mkdir(parents=True, exist_ok=True)
            (Path(out_dir) / "results.json").write_text(_dump(data) + "\n", encoding="utf-8")
        except OSError as exc:
            _fail(f"--out {out_dir}: cannot write ({exc.strerror})")
    if as_json:
        click.echo(_dump(data))
        return
    for line in table_lines(result):
        click.echo(line)


@main.command("scenarios")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def scenarios_cmd(as_json: bool) -> None:
    """List the shipped scenarios (configs/scenarios/)."""
    rows: list[dict[str, Any]] = []
    with user_errors():
        for name in list_scenarios():
            sc = load_scenario(name)
            sides = sorted({f.side for f in sc.fighters})
            rows.append({
                "name": name, "title": sc.title, "rules": sc.rules.name,
                "combatants": len(sc.fighters), "turn_limit": sc.turn_limit,
                "sides": {str(k): sc.side_name(k) for k in sides},
                "description": " ".join(sc.description.split()),
            })
    if as_json:
        click.echo(_dump(rows))
        return
    width = max((len(r["name"]) for r in rows), default=4)
    for r in rows:
        versus = " vs ".join(r["sides"].values())
        click.echo(f"{r['name']:<{width}}  {r['title']} ({r['rules']}, "
                   f"{r['combatants']} combatants: {versus})")


@main.command("replay")
@click.argument("log_file", metavar="FILE", type=click.Path(exists=True, dir_okay=False))
def replay_cmd(log_file: str) -> None:
    """Replay a JSONL battle log and verify it event for event (exit 1 if it does not)."""
    try:
        log = EventLog.read(Path(log_file))
        replay_log(log)
    except (VtmSimError, KeyError, IndexError, TypeError, ValueError, AttributeError) as exc:
        msg = str(exc) if isinstance(exc, VtmSimError) else f"{type(exc).__name__}: {exc}"
        raise ReplayFailed(f"{log_file}: replay failed: {msg}") from None
    for line in narrate(log.events):
        click.echo(line)
    click.echo(f"replay verified: {len(log)} events, sha256 {log.sha256()}")


__all__ = ["main"]
