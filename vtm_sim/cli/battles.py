"""Battles: fight, scenarios, replay (tournaments are in cli/tournaments.py).

The engine is imported inside each command, so a command's ``--help`` imports
click and nothing of the engine (tests/cli/test_startup.py).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from vtm_sim.cli.base import (
    APART,
    RULES_HELP,
    SEED,
    ReplayFailed,
    _dump,
    _fail,
    _health_json,
    main,
    user_errors,
)

if TYPE_CHECKING:
    from vtm_sim.engine.battle import Battle
    from vtm_sim.policies.play import Policy


@main.command("fight")
@click.argument("a_file", metavar="SCENARIO|STATE|A.yaml", required=False)
@click.argument("b_file", metavar="[B.yaml]", required=False)
@click.option(
    "--seed",
    type=SEED,
    default=None,
    metavar="N",
    help="Seed of every die in the battle (default 0; a saved state continues its own "
    "dice unless a seed is given).",
)
@click.option(
    "--narrate", "tell", type=click.Choice(["story", "dice"]), is_flag=False,
    flag_value="story", default=None,
    help="Print the battle as a story to read aloud (--narrate), or with every roll "
    "(--narrate dice).",
)
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
    type=APART,
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
    "--policy", "policy_name", default="nearest", show_default=True, metavar="NAME",
    help="How every combatant decides: any policy name (`vtm-sim policies`), e.g. nearest "
    "(rules of thumb), tactician (exact odds), gunman, ladder:3 or model:PATH.",
)
@click.option(
    "--state", "state_file", type=click.Path(dir_okay=False), default=None, metavar="FILE",
    help="Continue a fight from a state file: one saved with --save-state, or written by "
    "hand (docs/states.md).",
)
@click.option(
    "--stop-after-turn", "stop_after", type=click.IntRange(0, 1000), default=None,
    metavar="N", help="Stop at the first decision of turn N+1 (save it with --save-state).",
)
@click.option(
    "--save-state", "save_file", type=click.Path(dir_okay=False), default=None,
    metavar="FILE", help="Write the battle's state (JSON) here where it stops.",
)
def fight_cmd(
    a_file: str | None,
    b_file: str | None,
    seed: int | None,
    tell: str | None,
    log_file: str | None,
    as_json: bool,
    distance: float,
    turns: int | None,
    rules_name: str | None,
    policy_name: str,
    state_file: str | None,
    stop_after: int | None,
    save_file: str | None,
) -> None:
    """Run a seeded battle with a built-in policy on every side.

    Either a scenario (a name from `vtm-sim scenarios`, or a scenario file),
    a state file (the fight as it stands: `--state FILE`, or the file alone),
    or two stat blocks: A (side 0) against B (side 1), DISTANCE yards apart.
    """
    from vtm_sim.data.rules import load_rules
    from vtm_sim.data.stat_blocks import load_stat_block
    from vtm_sim.data.tables import load_tables
    from vtm_sim.engine.battle import Battle, Fighter
    from vtm_sim.files.scenarios import load_scenario

    if state_file is None and a_file is not None and b_file is None and _is_state_file(a_file):
        state_file, a_file = a_file, None
    if state_file is not None and (a_file is not None or b_file is not None):
        _fail("fight: give a state file or a scenario or two stat blocks, not both")
    if state_file is None and a_file is None:
        _fail("fight: expected a scenario, a state file (--state FILE) or two stat blocks")
    with user_errors():
        if state_file is not None:
            if rules_name:
                _fail("--rules: a state file names its own rules (its scenario's)")
            from vtm_sim.files.state_files import load_state

            battle = load_state(state_file, seed=seed)
            if turns:
                battle.turn_limit = turns
        elif b_file is None:
            assert a_file is not None
            _not_a_stat_block(a_file)
            scenario = load_scenario(a_file)
            rules = load_rules(rules_name) if rules_name else scenario.rules
            battle = Battle(
                scenario.fighters, seed=seed, rules=rules,
                turn_limit=turns or scenario.turn_limit, field=scenario.field,
                ambush=scenario.ambush,
            )
        else:
            assert a_file is not None
            tables = load_tables()
            a = load_stat_block(a_file, tables)
            b = load_stat_block(b_file, tables)
            battle = Battle(
                [Fighter(a, 0, 0.0), Fighter(b, 1, float(distance))],
                seed=seed, rules=load_rules(rules_name or "v20"),
                turn_limit=turns or 20,
            )
        play_until(battle, _policies(policy_name, battle, 0 if seed is None else seed),
                   stop_after)
    stopped = battle.pending is not None
    if save_file is not None:
        _write(save_file, "--save-state", json.dumps(battle.to_state(), separators=(",", ":"))
               + "\n")
    if log_file is not None:
        _write(log_file, "--log", battle.log.jsonl())
    _report(battle, tell=tell, as_json=as_json, stopped=stopped, saved=save_file)


def play_until(battle: Battle, policies: list[Policy], stop_after: int | None) -> None:
    """Play on, stopping at the first decision of turn ``stop_after + 1``."""
    while battle.pending is not None:
        if stop_after is not None and battle.turn > stop_after:
            return
        d = battle.pending
        battle.choose(policies[d.actor].choose(battle, d))


def _is_state_file(path: str) -> bool:
    """A file (not a scenario name) whose top level names a scenario or a state format."""
    p = Path(path)
    if p.suffix not in (".yaml", ".yml", ".json") or not p.is_file():
        return False
    import yaml

    from vtm_sim.data.config import parse_yaml

    try:
        data = parse_yaml(p.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError, UnicodeDecodeError):
        return False
    return isinstance(data, dict) and ("format" in data or "scenario" in data)


def _not_a_stat_block(path: str) -> None:
    """One stat block alone is a common slip: say what fight takes."""
    p = Path(path)
    if p.suffix not in (".yaml", ".yml") or not p.is_file():
        return
    import yaml

    from vtm_sim.data.config import parse_yaml

    try:
        data = parse_yaml(p.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError, UnicodeDecodeError):
        return
    if isinstance(data, dict) and "title" not in data and (
        "attributes" in data or "kind" in data
    ):
        _fail(f"fight: {path} is a stat block; give two (A.yaml B.yaml), a scenario or a "
              "state file")


def _write(path: str, option: str, text: str) -> None:
    """Write atomically: a file is never left half written."""
    target = Path(path)
    tmp = target.with_name(target.name + ".tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, target)
    except OSError as exc:
        _fail(f"{option} {path}: cannot write ({exc.strerror})")


def _report(battle: Battle, *, tell: str | None, as_json: bool, stopped: bool,
            saved: str | None) -> None:
    from vtm_sim.text.narration import narrate, plural

    winner = None
    if battle.winner is not None:
        winner = ", ".join(c.name for c in battle.combatants if c.side == battle.winner)
    lines: list[str] = []
    if tell == "dice":
        lines = narrate(battle.log.events)
    elif tell is not None:
        from vtm_sim.text.story import tell as story

        lines = story(battle.log.events)
    if as_json:
        data: dict[str, Any] = {
            "winner": winner,
            "winner_side": battle.winner,
            "reason": "stopped" if stopped else battle.end_reason,
            "turns": battle.turn,
            "events": len(battle.log),
            "log_sha256": battle.log.sha256(),
            "seed": battle.seed,
            "rules": battle.rules.name,
            "final": [
                {"name": c.name, "side": c.side, **_health_json(c)} for c in battle.combatants
            ],
        }
        if stopped:
            data["stopped_at_turn"] = battle.turn
        if saved is not None:
            data["state_file"] = saved
        if tell:
            data["narration"] = lines
        click.echo(_dump(data))
        return
    if tell:
        for line in lines:
            click.echo(line)
        return
    if stopped:
        outcome = f"Stopped at the start of turn {battle.turn}"
    else:
        outcome = f"{winner} wins" if winner else "no winner"
        if battle.end_reason == "turn limit":
            outcome += " (turn limit)"
        outcome += f" after {plural(battle.turn, 'turn')}"
    click.echo(f"{outcome} (seed {battle.seed}, rules {battle.rules.name}).")
    for c in battle.combatants:
        click.echo(
            f"  {c.name} (side {c.side}): {c.health.marks()} "
            f"{c.health.level_name}, {c.health.status.value}"
            + (", escaped" if c.escaped else "")
        )
    click.echo(f"{len(battle.log)} events, sha256 {battle.log.sha256()}")
    if saved is not None:
        click.echo(f"State saved to {saved} (continue it with `vtm-sim fight --state {saved}`).")


def _policies(name: str, battle: Battle, seed: int) -> list[Policy]:
    """One policy of ``name`` per combatant, from a generator of the battle's seed."""
    make = _policy_maker(name, battle, seed)
    return [make(c.id) for c in battle.combatants]


def _policy_maker(name: str, battle: Battle, seed: int) -> Callable[[int], Policy]:
    """``--policy NAME`` for ``battle``: a combatant's id -> its policy, every one drawn
    from one generator of the seed ``seed`` (renewed per simulated fight by suggest's
    search: :class:`~vtm_sim.policies.playouts.SeededPlayout`)."""
    from vtm_sim.errors import ConfigError
    from vtm_sim.policies import registry
    from vtm_sim.policies.playouts import SeededPlayout

    try:
        make = registry.maker(name, registry.scenario_of(battle))
    except ConfigError as exc:
        raise ConfigError(f"--policy: {exc}") from None
    return SeededPlayout(make, seed)


@main.command("scenarios")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def scenarios_cmd(as_json: bool) -> None:
    """List the shipped scenarios (configs/scenarios/)."""
    from vtm_sim.files.scenarios import list_scenarios, load_scenario

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
    """Replay a JSONL battle log and verify it event for event (exit 1 if it does not;
    2 if the file is not a battle log)."""
    from vtm_sim.errors import LogFormatError, VtmSimError
    from vtm_sim.events import EventLog
    from vtm_sim.files.replay import replay as replay_log
    from vtm_sim.text.narration import narrate

    try:
        log = EventLog.read(Path(log_file))
    except VtmSimError as exc:
        _fail(f"{log_file}: not a battle log: {exc}")
    try:
        replay_log(log)
    except LogFormatError as exc:
        _fail(f"{log_file}: not a battle log: {exc}")
    except (VtmSimError, KeyError, IndexError, TypeError, ValueError, AttributeError) as exc:
        msg = str(exc) if isinstance(exc, VtmSimError) else f"{type(exc).__name__}: {exc}"
        raise ReplayFailed(f"{log_file}: replay failed: {msg}") from None
    for line in narrate(log.events):
        click.echo(line)
    click.echo(f"replay verified: {len(log)} events, sha256 {log.sha256()}")


__all__ = ["main"]
