"""Shared pieces of the command line: the group, error handling, dice, JSON.

This module is what ``vtm-sim --help`` imports (with click and nothing of the
engine): the engine modules it needs for dice and rolls are imported inside the
helpers that use them, and the commands are loaded only when named (``COMMANDS``).
"""

from __future__ import annotations

import importlib
import json
import math
import re
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

import click

from vtm_sim.errors import VtmSimError

if TYPE_CHECKING:
    from vtm_sim.core.dice import RngDice, Roll
    from vtm_sim.mechanics.combatant import Combatant



def _process_age() -> float:
    """Seconds since this process started (Linux: /proc; elsewhere 0): the interpreter's
    own start and the imports count against ``suggest --time`` too."""
    try:
        with open("/proc/self/stat", encoding="ascii") as f:
            ticks = int(f.read().rsplit(")", 1)[1].split()[19])
        with open("/proc/uptime", encoding="ascii") as f:
            uptime = float(f.read().split()[0])
        import os

        return max(0.0, uptime - ticks / os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError, IndexError):
        return 0.0


# when this process started, on the monotonic clock: `suggest --time` counts from here
STARTED = time.monotonic() - _process_age()
SEED_HELP = "Seed of the dice not given with --faces (default 0)."
# Every --seed of every command: a whole number from 0 (numpy's generators take no
# negative seed; a negative one is a usage error, not a traceback)
SEED = click.IntRange(min=0)


class Yards(click.FloatRange):
    """Yards on the command line: a finite number within the range (click's FloatRange
    lets ``nan`` through, as nan compares false with every bound)."""

    name = "yards"

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> Any:
        rv = super().convert(value, param, ctx)
        if not math.isfinite(rv):
            self.fail(f"{value!r} is not a finite number of yards", param, ctx)
        return rv


# A distance in yards: 0 up to vtm_sim.data.config.MAX_YARDS (not imported: the
# data layer loads pydantic, and ``vtm-sim --help`` imports this module)
YARDS = Yards(min=0, max=10_000)
# ... where 0 would put two combatants on one spot
APART = Yards(min=0, min_open=True, max=10_000)
RULES_HELP = "Rules profile: a name under configs/rules/ or a YAML file."
MAX_POOL = 100
FACES_LABELS = ("attack", "defense", "damage", "soak")


class UserError(click.ClickException):
    """Bad input: one line on stderr, exit status 2."""

    exit_code = 2


class ReplayFailed(click.ClickException):
    """A log that does not replay: one line on stderr, exit status 1."""

    exit_code = 1


@contextmanager
def user_errors() -> Iterator[None]:
    """Turn the library's errors into one-line messages (STYLE 12)."""
    try:
        yield
    except VtmSimError as exc:
        raise UserError(str(exc)) from None


F = TypeVar("F", bound=Callable[..., Any])


def backend_options(command: F) -> F:
    """``--jobs J``, ``--backend local|ray`` and ``--address ADDR``: where a command's
    battles run (:func:`vtm_sim.arena.backends.backend`), for every command that plays them as
    a tournament's chunks (``tournament``, ``evaluate``). ``--jobs`` defaults to 1."""
    return _backend_options(command, every_core=False)


def every_core_backend_options(command: F) -> F:
    """:func:`backend_options` with ``--jobs`` None by default: the command then runs a
    worker on every core it may use (:func:`vtm_sim.arena.backends.usable_cpus`)."""
    return _backend_options(command, every_core=True)


def _backend_options(command: F, *, every_core: bool) -> F:
    if every_core:
        jobs = click.option("--jobs", type=click.IntRange(1, 1024), default=None, metavar="J",
                            help="Worker processes (or Ray CPUs); results do not depend on "
                            "it. Default: one for each core this process may use.")
    else:
        jobs = click.option("--jobs", type=click.IntRange(1, 1024), default=1,
                            show_default=True, metavar="J",
                            help="Worker processes (or Ray CPUs); results do not depend on it.")
    for option in reversed((
        jobs,
        click.option("--backend", "backend_name", type=click.Choice(["local", "ray"]),
                     default="local", show_default=True,
                     help="local: this machine; ray: Ray tasks (the optional `ray` extra)."),
        click.option("--address", default=None, metavar="ADDR",
                     help="With --backend ray: the cluster to join (default: start a local "
                     "Ray)."),
    )):
        command = option(command)
    return command


def _fail(message: str) -> NoReturn:
    raise UserError(message)


_NUMBER_LIST = re.compile(r"\[\s*([-+0-9.eE,\s]*?)\s*\]")


def _dump(data: Any) -> str:
    """Indented JSON with lists of numbers (dice faces) kept on one line."""
    text = json.dumps(data, indent=2, ensure_ascii=False)
    return _NUMBER_LIST.sub(_one_line, text)


def _one_line(m: re.Match[str]) -> str:
    items = [x.strip() for x in m.group(1).split(",") if x.strip()]
    return "[" + ", ".join(items) + "]"


def _rng_dice(seed: int) -> RngDice:
    import numpy as np

    from vtm_sim.core.dice import RngDice

    return RngDice(np.random.default_rng(seed))


def _parse_faces(text: str, where: str) -> list[int]:
    """``"1, 9,10"`` -> [1, 9, 10]; faces are checked by ScriptedDice (1..10)."""
    items = [t.strip() for t in text.split(",")]
    if items == [""]:
        return []
    try:
        return [int(t) for t in items]
    except ValueError:
        _fail(f"{where}: expected comma-separated d10 faces such as 1,9,10 (got {text!r})")


def _roll_words(r: Roll) -> str:
    """A roll in the narration's words: ``6 dice at difficulty 6 -> ...: 2 successes``."""
    from vtm_sim.text.dicewords import roll_text

    return roll_text({
        "pool": r.pool, "diff": r.difficulty, "faces": list(r.faces), "succ": r.successes,
        "botch": r.botch, "spec": r.specialty, "wp": r.willpower,
    })


def _roll_json(r: Roll | None) -> dict[str, Any] | None:
    if r is None:
        return None
    return {
        "pool": r.pool,
        "difficulty": r.difficulty,
        "faces": list(r.faces),
        "successes": r.successes,
        "botch": r.botch,
    }


def _odds_summary(dist: tuple[float, ...]) -> str:
    """``0: 0.1560, 1: 0.1965, ...``; a tail below 0.00005 is summed as ``N+``."""
    last = max((k for k, p in enumerate(dist) if p >= 5e-5), default=0)
    parts = [f"{k}: {p:.4f}" for k, p in enumerate(dist[: last + 1])]
    if last + 1 < len(dist):
        parts.append(f"{last + 1}+: {sum(dist[last + 1 :]):.4f}")
    return ", ".join(parts)


class OneLineErrors(click.Group):
    """Click's usage errors in one line (``Error: ... (see --help)``), exit status 2.

    Click prints three (Usage / Try / Error) for a bad option or value; a user's
    mistake gets one line here, like every other bad input (STYLE 12).
    """

    def main(self, args: Sequence[str] | None = None, prog_name: str | None = None,
             complete_var: str | None = None, standalone_mode: bool = True,
             **extra: Any) -> Any:
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode, **extra)
        try:
            rv = super().main(args, prog_name, complete_var, False, **extra)
        except click.UsageError as exc:
            ctx = exc.ctx
            where = f" (see '{ctx.command_path} --help')" if ctx is not None else ""
            click.echo(f"Error: {exc.format_message()}{where}", err=True)
            sys.exit(exc.exit_code)
        except click.ClickException as exc:
            exc.show()
            sys.exit(exc.exit_code)
        except click.Abort:
            click.echo("Aborted!", err=True)
            sys.exit(1)
        sys.exit(rv if isinstance(rv, int) else 0)


# Every command of ``vtm-sim``: its name -> ("module:function", the summary that
# ``vtm-sim --help`` lists). ``vtm-sim --help`` reads only this table, and a command's
# module is imported when the command is named, so the command line starts without
# the engine (and never imports torch or matplotlib unless a command needs them).
# To add a command: write it in its module under vtm_sim/cli/ with ``@main.command``
# as usual, and add its one line here (tests/cli/test_startup.py checks the two agree).
# Import the engine inside the command function, not at the module's top, so the
# command's ``--help`` imports click and nothing of the engine (checked there too).
COMMANDS: dict[str, tuple[str, str]] = {
    "attack": ("vtm_sim.cli.attacks:attack_cmd", "Resolve one attack through the whole chain."),
    "card": ("vtm_sim.cli.attacks:card_cmd", "A tactic card: every legal attack, exact odds."),
    "export-behaviors": ("vtm_sim.cli.advice:export_behaviors_cmd",
                         "A tactic card for one NPC, learned from battles."),
    "fight": ("vtm_sim.cli.battles:fight_cmd", "Run a seeded battle with a policy on every side."),
    "ladder": ("vtm_sim.cli.ladder:ladder_cmd", "Measure the difficulty ladder's rungs."),
    "policies": ("vtm_sim.cli.ladder:policies_cmd", "Every policy name and how it plays."),
    "jump": ("vtm_sim.cli.rolls:jump_cmd", "MOVE-3: how far a character jumps."),
    "pursuit": ("vtm_sim.cli.rolls:pursuit_cmd", "MOVE-4: a chase, turn by turn."),
    "regress": ("vtm_sim.cli.regress:regress_cmd", "Replay the golden battles and balance checks."),
    "replay": ("vtm_sim.cli.battles:replay_cmd", "Replay a JSONL battle log and verify it."),
    "roll": ("vtm_sim.cli.rolls:roll_cmd", "Roll POOL d10 against a difficulty (DICE-1..8)."),
    "scenarios": ("vtm_sim.cli.battles:scenarios_cmd", "List the shipped scenarios."),
    "schema": ("vtm_sim.cli.states:schema_cmd", "Print the JSON Schema of a file format."),
    "sheets": ("vtm_sim.cli.sheets:sheets_cmd",
               "List the stat blocks, or one with its derived numbers."),
    "state": ("vtm_sim.cli.states:state_group", "State files: the fight as it stands."),
    "serve": ("vtm_sim.cli.serve:serve_cmd", "The table in a browser (needs the web extra)."),
    "mcp": ("vtm_sim.cli.serve:mcp_cmd", "The table for an AI assistant: an MCP server."),
    "suggest": ("vtm_sim.cli.advice:suggest_cmd", "Rank every legal option of an NPC's decision."),
    "table": ("vtm_sim.cli.tables:table_group",
              "A live fight kept in a database: decide, undo, fork."),
    "import": ("vtm_sim.cli.imports:import_group",
               "Import characters (Foundry VTT WoD20 actors)."),
    "tournament": ("vtm_sim.cli.tournaments:tournament_cmd",
                   "Pit policies against each other: both sides, rated."),
    "weapons": ("vtm_sim.cli.sheets:weapons_cmd", "List every weapon of the weapon table."),
    "train": ("vtm_sim.cli.training:train_cmd", "Train an agent with stable-baselines3."),
    "evaluate": ("vtm_sim.cli.training:evaluate_cmd", "Win rates of a trained model, per seat."),
    "export-policy": ("vtm_sim.cli.training:export_policy_cmd",
                      "Write a trained policy to a numpy-only file."),
}


class LazyGroup(OneLineErrors):
    """A group whose commands are imported when named (``lazy``: name -> target, summary).

    ``--help`` lists the summaries without importing any command; a command's
    module is imported the first time the command is looked up (its own
    ``@main.command`` registers it). Usage errors stay one line (OneLineErrors).
    """

    def __init__(self, *args: Any, lazy: Mapping[str, tuple[str, str]] | None = None,
                 **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lazy: dict[str, tuple[str, str]] = dict(lazy or {})

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*self.commands, *self.lazy})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in self.lazy:
            self.commands[cmd_name] = self.load(cmd_name)
        return self.commands.get(cmd_name)

    def load(self, cmd_name: str) -> click.Command:
        """Import the command named in the table (``module:function``)."""
        module_name, _, attr = self.lazy[cmd_name][0].partition(":")
        command = getattr(importlib.import_module(module_name), attr)
        if not isinstance(command, click.Command):
            raise TypeError(f"{module_name}:{attr} is not a click command")
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """Click's command list, with the table's summaries (no command imported)."""
        names = self.list_commands(ctx)
        if not names:
            return
        limit = formatter.width - 6 - max(len(n) for n in names)
        rows = []
        for name in names:
            if name in self.lazy:
                summary = click.Command(name, help=self.lazy[name][1])
                rows.append((name, summary.get_short_help_str(limit)))
                continue
            command = self.commands[name]
            if not command.hidden:
                rows.append((name, command.get_short_help_str(limit)))
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup, lazy=COMMANDS,
             context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="vtm-sim")
def main() -> None:
    """Vampire: The Masquerade (V20) combat simulator.

    Commands that roll dice take --seed (default 0): the same seed prints the
    same output, byte for byte. Bad input prints one line on stderr and exits
    with status 2; a log that fails to replay exits with status 1.
    """


# --- roll -------------------------------------------------------------------


def _health_json(c: Combatant) -> dict[str, Any]:
    d: dict[str, Any] = {
        "track": c.health.marks(),
        "level": c.health.level_name,
        "status": c.health.status.value,
    }
    if c.escaped:  # MOVE-4: ran from the fight (written only then)
        d["escaped"] = True
    return d
