"""``vtm-sim table``: run a live fight that persists (:mod:`vtm_sim.table`).

Every command is a thin call of one :class:`~vtm_sim.table.service.TableService`
method: the rules, the options and their labels, the dice and the narration come from
the service. The engine is imported inside each command, so ``--help`` imports click
and nothing of the engine (tests/cli/test_startup.py).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from vtm_sim.cli.base import SEED, _dump, _fail, main, user_errors

if TYPE_CHECKING:
    from vtm_sim.table.service import TableService

F = TypeVar("F", bound=Callable[..., Any])


def db_option(command: F) -> F:
    """``--db PATH``: the database (default: tables.sqlite3 in the user's data folder)."""
    return click.option(
        "--db", "db", type=click.Path(dir_okay=False), default=None, metavar="PATH",
        help="The tables' database (SQLite; default: tables.sqlite3 in the user's data "
        "folder, platformdirs' user_data_dir(\"vtm-sim\")).")(command)


def json_option(command: F) -> F:
    return click.option("--json", "as_json", is_flag=True, help="Print JSON.")(command)


@contextmanager
def service(db: str | None) -> Iterator[TableService]:
    """The service on ``--db``, its errors as one line and exit status 2."""
    with user_errors():
        from vtm_sim.table.service import TableService

        svc = TableService(db)
        try:
            yield svc
        finally:
            svc.close()


@main.group("table")
def table_group() -> None:
    """A live fight that persists: every decision and die kept in SQLite (docs/table.md).

    Start one with `table new`, look with `table show`, decide with `table choose`
    (or let the NPCs play with `table auto`), take it back with `table undo`; or run
    it all at one prompt with `table play`.
    """


@table_group.command("new")
@click.argument("name")
@click.option("--scenario", default=None, metavar="S",
              help="Start from a scenario (a name of `vtm-sim scenarios`, or a file).")
@click.option("--state", "state_file", type=click.Path(dir_okay=False), default=None,
              metavar="FILE", help="Start from a state file (docs/states.md), hand-written "
              "or saved by `table export` or `fight --save-state`.")
@click.option("--sheet", "sheets", multiple=True, metavar="SHEET",
              help="Start from stat blocks: a combatant on side 0 (a file or a shipped "
              "sheet's name; repeat for more).")
@click.option("--foe", "foes", multiple=True, metavar="SHEET",
              help="With --sheet: a combatant on side 1 (repeat for more).")
@click.option("--distance", type=click.FloatRange(0.5, 10000), default=10.0,
              show_default=True, metavar="YARDS", help="With --sheet: yards between sides.")
@click.option("--damage", "damage", multiple=True, type=click.Path(dir_okay=False),
              metavar="FILE", help="A file of `vtm-sim import foundry --damage-out`: a "
              "combatant's damage, Willpower and blood at the start (repeatable).")
@click.option("--pc", "pcs", multiple=True, metavar="NAME",
              help="A combatant the players run (repeatable); everyone else is an NPC.")
@click.option("--seed", type=SEED, default=0, show_default=True, metavar="N",
              help="Seeds the dice the tool rolls.")
@click.option("--dice", type=click.Choice(["tool", "pcs", "all"]), default="tool",
              show_default=True, help="Who enters dice: nobody (the tool rolls), the PCs' "
              "rolls, or every roll (`table choose --faces`).")
@db_option
@json_option
def new_cmd(name: str, scenario: str | None, state_file: str | None, sheets: tuple[str, ...],
            foes: tuple[str, ...], distance: float, damage: tuple[str, ...],
            pcs: tuple[str, ...], seed: int, dice: str, db: str | None,
            as_json: bool) -> None:
    """Start the encounter NAME from a scenario, a state file or stat blocks."""
    with service(db) as svc:
        shown = svc.new(name, scenario=scenario, state=state_file, sheets=sheets, foes=foes,
                        distance=distance, damage=damage, pcs=pcs, seed=seed, dice=dice)
    _print_show(shown, as_json)


@table_group.command("list")
@db_option
@json_option
def list_cmd(db: str | None, as_json: bool) -> None:
    """Every encounter in the database."""
    with service(db) as svc:
        rows = svc.tables()
    if as_json:
        click.echo(_dump(rows))
        return
    if not rows:
        click.echo("No tables yet: start one with `vtm-sim table new NAME --scenario S`.")
    for r in rows:
        where = ("over" if r["over"] else
                 f"{r['pending']['actor']} to {r['pending']['decision']}")
        click.echo(f"{r['name']}: {r['scenario']}, turn {r['turn']}, version {r['version']}, "
                   f"{where} (updated {r['updated']})")


@table_group.command("show")
@click.argument("name")
@click.option("--story", is_flag=True, help="Also print the narration so far.")
@db_option
@json_option
def show_cmd(name: str, story: bool, db: str | None, as_json: bool) -> None:
    """Where the fight stands: whose decision, its options, every combatant."""
    with service(db) as svc:
        shown = svc.show(name)
    _print_show(shown, as_json, story=story)


@table_group.command("choose")
@click.argument("name")
@click.argument("option")
@click.option("--faces", "faces", multiple=True, metavar="F",
              help="Faces entered for the step's rolls, in the order they come: one roll's "
              "faces split by commas or spaces, rolls split by / (or one --faces per roll); "
              "0 stands for a 10. Rolls not given are rolled by the tool unless the table's "
              "dice setting says they are entered.")
@click.option("--version", "version", type=click.IntRange(0), default=None, metavar="V",
              help="The version this choice was made on: refused if the table moved on.")
@db_option
@json_option
def choose_cmd(name: str, option: str, faces: tuple[str, ...], version: int | None,
               db: str | None, as_json: bool) -> None:
    """Answer the pending decision with OPTION: its index, its label, its short name or a
    unique prefix of either."""
    with service(db) as svc:
        rolls = _faces(faces)
        out = svc.choose(name, option, faces=rolls if rolls else None, version=version)
    if as_json:
        click.echo(_dump(out))
        return
    _print_step(out["step"])
    _print_show(out["table"], False, brief=True)


@table_group.command("suggest")
@click.argument("name")
@click.option("--time", "seconds", type=click.FloatRange(0.1, 3600), default=2.0,
              show_default=True, metavar="S", help="Seconds to think.")
@click.option("--rollouts", type=click.IntRange(8, 100000), default=None, metavar="N",
              help="Stop when every option left has N simulated fights (the same answer on "
              "any machine) instead of at a time.")
@click.option("--seed", type=SEED, default=0, metavar="N", help="Seeds the simulated fights.")
@click.option("--accept", is_flag=True, help="Take the suggestion: choose it at once.")
@db_option
@json_option
def suggest_cmd(name: str, seconds: float, rollouts: int | None, seed: int, accept: bool,
                db: str | None, as_json: bool) -> None:
    """What the pending decision's combatant should do, for its goal, and why."""
    with service(db) as svc:
        s = svc.suggest(name, seconds=None if rollouts else seconds, rollouts=rollouts,
                        seed=seed)
        done = (svc.choose(name, s["index"], version=s["version"], by="suggestion")
                if accept else None)
    if as_json:
        click.echo(_dump({"suggestion": s, **({"chosen": done} if done else {})}))
        return
    click.echo(f"{s['actor']} ({s['decision']}), to {s['goal_words']}: "
               f"{s['index']}. {s['label']}")
    for k, r in enumerate(s["ranked"][:3], 1):
        click.echo(f"  {k}. {r['reason']}")
    if done is not None:
        _print_step(done["step"])
        _print_show(done["table"], False, brief=True)


@table_group.command("auto")
@click.argument("name")
@click.option("--policy", default=None, metavar="P",
              help="How NPCs without a policy of their own play (default tactician; any "
              "name of `vtm-sim policies`).")
@click.option("--steps", "max_steps", type=click.IntRange(1, 100000), default=1000,
              show_default=True, metavar="N", help="Stop after N steps at most.")
@db_option
@json_option
def auto_cmd(name: str, policy: str | None, max_steps: int, db: str | None,
             as_json: bool) -> None:
    """Let the NPCs play until a PC must decide (or the fight ends)."""
    with service(db) as svc:
        out = svc.auto(name, policy=policy, max_steps=max_steps)
    if as_json:
        click.echo(_dump(out))
        return
    for step in out["steps"]:
        _print_step(step)
    click.echo(f"(stopped: {out['stopped']})")
    if out["proposed"] is not None:
        click.echo(f"({out['proposed']['by']} would choose {out['proposed']['index']}. "
                   f"{out['proposed']['label']}: choose it with --faces)")
    _print_show(out["table"], False, brief=True)


@table_group.command("undo")
@click.argument("name")
@click.option("--to", "to", type=click.IntRange(0), default=None, metavar="V",
              help="Go back to version V (default: one step back).")
@click.option("--version", "version", type=click.IntRange(0), default=None, metavar="V",
              help="The version this undo was asked on: refused if the table moved on.")
@db_option
@json_option
def undo_cmd(name: str, to: int | None, version: int | None, db: str | None,
             as_json: bool) -> None:
    """Take back the last step (or go back to --to V)."""
    with service(db) as svc:
        shown = svc.undo(name, to=to, version=version)
    _print_show(shown, as_json, brief=True)


@table_group.command("fork")
@click.argument("name")
@click.argument("new")
@click.option("--at", "at", type=click.IntRange(0), default=None, metavar="V",
              help="Copy the steps up to version V (default: all).")
@db_option
@json_option
def fork_cmd(name: str, new: str, at: int | None, db: str | None, as_json: bool) -> None:
    """A "what if" copy of NAME under the name NEW: the two go on apart."""
    with service(db) as svc:
        shown = svc.fork(name, new, at=at)
    _print_show(shown, as_json, brief=True)


@table_group.command("export")
@click.argument("name")
@click.option("--out", "out", type=click.Path(dir_okay=False), required=True, metavar="FILE",
              help="Write the state (JSON) here; `vtm-sim fight --state FILE` continues it.")
@db_option
@json_option
def export_cmd(name: str, out: str, db: str | None, as_json: bool) -> None:
    """Write the fight as it stands to a state file."""
    with service(db) as svc:
        state = svc.export(name)
    try:
        Path(out).write_text(json.dumps(state, separators=(",", ":")) + "\n", encoding="utf-8")
    except OSError as exc:
        _fail(f"--out {out}: cannot write ({exc.strerror})")
    if as_json:
        click.echo(_dump({"name": name, "out": out, "turn": state["turn"]}))
    else:
        click.echo(f"Wrote {out} (turn {state['turn']}); continue it with "
                   f"`vtm-sim fight --state {out}`.")


@table_group.command("delete")
@click.argument("name")
@db_option
@json_option
def delete_cmd(name: str, db: str | None, as_json: bool) -> None:
    """Remove the encounter NAME and its steps."""
    with service(db) as svc:
        svc.delete(name)
    click.echo(_dump({"deleted": name}) if as_json else f"Deleted {name}.")


@table_group.command("player")
@click.argument("name")
@click.argument("combatant")
@click.argument("player", type=click.Choice(["pc", "npc"]))
@click.option("--policy", default=None, metavar="P",
              help="For an NPC: the policy it plays by in `table auto`.")
@db_option
@json_option
def player_cmd(name: str, combatant: str, player: str, policy: str | None, db: str | None,
               as_json: bool) -> None:
    """Who decides for COMBATANT: pc (the Storyteller enters it) or npc (suggested, or
    played by a policy)."""
    with service(db) as svc:
        shown = svc.set_player(name, combatant, player, policy)
    _print_show(shown, as_json, brief=True)


@table_group.command("dice")
@click.argument("name")
@click.argument("mode", type=click.Choice(["tool", "pcs", "all"]))
@db_option
@json_option
def dice_cmd(name: str, mode: str, db: str | None, as_json: bool) -> None:
    """Who enters dice from now on: nobody (tool), the PCs' rolls (pcs), every roll (all)."""
    with service(db) as svc:
        shown = svc.set_dice(name, mode)
    _print_show(shown, as_json, brief=True)


@table_group.command("log")
@click.argument("name")
@click.option("--steps", "show_steps", is_flag=True,
              help="The steps (decision, choice, rolls) instead of the event log.")
@db_option
@json_option
def log_cmd(name: str, show_steps: bool, db: str | None, as_json: bool) -> None:
    """The event log as JSONL (`vtm-sim replay` reads it), or the steps so far."""
    with service(db) as svc:
        if show_steps:
            steps = svc.steps(name)
        else:
            click.echo(svc.log(name), nl=False)
            return
    if as_json:
        click.echo(_dump(steps))
        return
    for s in steps:
        dice = "; ".join(f"{r['who']} {r['what']} {''.join(str(f % 10) for f in r['faces'])}"
                         + (" (entered)" if r["entered"] else "") for r in s["rolls"])
        click.echo(f"{s['version']:>4}  turn {s['turn']}  {s['actor']}: {s['label']}"
                   + (f"  [{dice}]" if dice else "") + f"  ({s['by']})")


@table_group.command("play")
@click.argument("name")
@click.option("--time", "seconds", type=click.FloatRange(0.1, 3600), default=2.0,
              show_default=True, metavar="S", help="Seconds an NPC's suggestion thinks.")
@db_option
def play_cmd(name: str, seconds: float, db: str | None) -> None:
    """Run the fight at one prompt: type an option (its index, label, short name or a
    prefix; Tab completes), `OPTION @ FACES` with entered dice; `s` asks the NPC's
    suggestion and Enter then takes it; `a` lets the NPCs play until a PC must decide;
    `u` undoes; `?` shows the table; `q` quits."""
    from vtm_sim.cli.table_play import play_loop

    with service(db) as svc:
        play_loop(svc, name, seconds=seconds)


# --- printing ----------------------------------------------------------------------


def _faces(texts: tuple[str, ...]) -> list[list[int]]:
    from vtm_sim.table.service import parse_faces

    rolls: list[list[int]] = []
    for t in texts:
        rolls += parse_faces(t)
    return rolls


def _print_step(step: dict[str, Any]) -> None:
    click.echo(f"[{step['version']}] {step['actor']}: {step['label']}")
    for line in step["narration"]:
        click.echo(f"    {line}")


def show_lines(shown: dict[str, Any], *, brief: bool = False,
               story: bool = False) -> list[str]:
    """The table as a Storyteller reads it at the terminal."""
    out = []
    if story:
        out += shown["narration"]
        out.append("")
    head = f"{shown['name']} ({shown['scenario']}): turn {shown['turn']}, version " \
           f"{shown['version']}"
    p = shown["pending"]
    if p is None:
        r = shown["result"] or {}
        won = "nobody" if r.get("winner") is None else f"side {r['winner']}"
        out.append(f"{head}: over, {won} won ({r.get('reason', '')}).")
    else:
        against = f" against {p['attacker']}" if p.get("attacker") else ""
        out.append(f"{head}: {p['actor']} ({p['player']}) to {p['decision']}{against}.")
    if not brief or p is None:
        for c in shown["combatants"]:
            bits = [f"{c['health']} {c['track']}", f"Willpower {c['willpower']}/"
                    f"{c['willpower_max']}"]
            if c["blood"] is not None:
                bits.append(f"blood {c['blood']}/{c['blood_pool']}")
            for w in c["weapons"]:
                if w["in_hand"]:
                    rounds = f" ({w['rounds']}/{w['magazine']})" if w["magazine"] else ""
                    bits.append(f"{w['name']}{rounds}")
            bits += c["conditions"]
            out.append(f"  {c['name']} [{c['player']}, side {c['side']}, at "
                       f"{c['at'][0]:g},{c['at'][1]:g}]: " + ", ".join(bits))
    if p is not None:
        for ch in p["choices"]:
            out.append(f"  {ch['index']:>2}. {ch['label']}  [{ch['short']}]")
    return out


def _print_show(shown: dict[str, Any], as_json: bool, *, brief: bool = False,
                story: bool = False) -> None:
    if as_json:
        click.echo(_dump(shown))
        return
    for line in show_lines(shown, brief=brief, story=story):
        click.echo(line)
