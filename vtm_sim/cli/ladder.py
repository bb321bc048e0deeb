"""Policies by name and the difficulty ladder: ``vtm-sim policies``, ``vtm-sim ladder``.

The engine is imported inside each command, so a command's ``--help`` imports
click and nothing of the engine (tests/cli/test_startup.py).
"""

from __future__ import annotations

import sys

import click

from vtm_sim.cli.base import SEED, _dump, backend_options, main, user_errors


@main.command("policies")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def policies_cmd(as_json: bool) -> None:
    """Every policy name a command or an env's opponents= accepts, and how it plays."""
    from vtm_sim.policies import registry

    with user_errors():
        rows = [{"name": n, "plays": registry.describe(n)} for n in registry.names()]
    if as_json:
        click.echo(_dump(rows))
        return
    width = max(len(r["name"]) for r in rows)
    for r in rows:
        click.echo(f"{r['name']:<{width}}  {r['plays']}")


@main.command("ladder")
@click.argument("scenario_name", metavar="SCENARIO")
@click.option("--battles", type=click.IntRange(1, 100000), default=1000, show_default=True,
              metavar="N", help="Seeded battles a seat for every pair of rungs.")
@click.option("--planner-battles", type=click.IntRange(0, 100000), default=20,
              show_default=True, metavar="N",
              help="Seeded battles a seat for the pairs with the planner (slow); 0 leaves "
              "them out.")
@click.option("--seed", type=SEED, default=0, metavar="S", help="First seed (default 0).")
@backend_options
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def ladder_cmd(scenario_name: str, battles: int, planner_battles: int, seed: int, jobs: int,
               backend_name: str, address: str | None, as_json: bool) -> None:
    """Re-measure the difficulty ladder: every pair of rungs, both seats, same seeds."""
    from vtm_sim.arena.backends import backend
    from vtm_sim.arena.ladder import round_robin, table_lines, to_json
    from vtm_sim.files.scenarios import load_scenario
    from vtm_sim.policies.rungs import rungs

    with user_errors():
        scenario = load_scenario(scenario_name)
        names = list(rungs())
        if planner_battles == 0:
            names = [n for n in names if n != "planner"]

        def count(a: str, b: str) -> int:
            return planner_battles if "planner" in (a, b) else battles

        sides = len({f.side for f in scenario.fighters})
        total = sum(count(a, b) for i, a in enumerate(names) for b in names[i + 1:]) * sides
        with click.progressbar(length=total, label="battles", file=sys.stderr,
                               show_pos=True) as bar:
            matches = round_robin(scenario, names, battles=battles, seed=seed,
                                  battles_for=count, progress=bar.update,
                                  backend=backend(backend_name, jobs, address))
    if as_json:
        click.echo(_dump(to_json(scenario, matches, names, seed)))
        return
    for line in table_lines(scenario, matches, names):
        click.echo(line)
