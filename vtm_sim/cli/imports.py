"""``vtm-sim import foundry``: characters from other tools as stat blocks
(:mod:`vtm_sim.files.foundry`).

The engine is imported inside the command, so ``--help`` imports click and nothing of
the engine (tests/cli/test_startup.py).
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from vtm_sim.cli.base import _fail, main, user_errors


@main.group("import")
def import_group() -> None:
    """Bring characters from other tools: `import foundry ACTOR.json`."""


@import_group.command("foundry")
@click.argument("actor_file", metavar="ACTOR.json")
@click.option("--out", "out", type=click.Path(dir_okay=False), default=None,
              metavar="SHEET.yaml", help="Write the stat block here (default: standard output).")
@click.option("--damage-out", "damage_out", type=click.Path(dir_okay=False), default=None,
              metavar="FILE", help="Write its damage, Willpower and blood here (YAML; "
              "`table new --damage FILE` starts it so).")
@click.option("--map", "mapping", multiple=True, metavar="ITEM=NAME",
              help="Play an item the tables do not know as one they do: "
              "\"Grandpa's Shotgun=shotgun\" (repeatable).")
def foundry_cmd(actor_file: str, out: str | None, damage_out: str | None,
                mapping: tuple[str, ...]) -> None:
    """A Foundry VTT WoD20 actor export -> a stat block (docs/sheets.md)."""
    from vtm_sim.files.foundry import convert_actor, dump_yaml, parse_map, read_actor

    with user_errors():
        actor = read_actor(actor_file)
        result = convert_actor(actor, parse_map(mapping), source=actor_file)
    for line in result.notes:
        click.echo(line, err=True)
    text = dump_yaml(result.sheet)
    if out is None:
        click.echo(text, nl=False)
    else:
        _write(out, "--out", text)
    if damage_out is not None:
        _write(damage_out, "--damage-out", dump_yaml(result.standing))


def _write(path: str, option: str, text: str) -> None:
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as exc:
        _fail(f"{option} {path}: cannot write ({exc.strerror})")
    if sys.stdout.isatty():
        click.echo(f"Wrote {path}.", err=True)
