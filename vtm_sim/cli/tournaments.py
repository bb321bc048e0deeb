"""``vtm-sim tournament``: every pairing on both sides, in parallel, resumable, rated.

The library does the work (vtm_sim.arena.tournament plays, vtm_sim.arena.results sums up,
vtm_sim.arena.run_dirs keeps the files, vtm_sim.arena.backends runs the workers); this
module parses the options, names the policies, shows progress and prints.
Everything past click is imported inside the command, so ``vtm-sim --help``
stays fast.
"""

from __future__ import annotations

import sys
import time
from typing import TYPE_CHECKING, Any

import click

from vtm_sim.cli.base import SEED, _dump, _fail, every_core_backend_options, main, user_errors

if TYPE_CHECKING:
    from vtm_sim.files.scenarios import Scenario
    from vtm_sim.policies.registry import PolicyMaker

DEFAULT_SCENARIO = "duel"
# Seeded battles a side by default. The default line-up's 1,000 battles take under a minute
# on a quiet 2-core machine with the pure-Python build and a worker a core: the planner
# rung's 360 are nearly all the work, at about 0.2 s of CPU each where the others take
# milliseconds (experiments/bench_quickstart.py). Each standing still counts 320 battles
# (95% intervals of about +-0.055), each seat's column 160 (+-0.077).
DEFAULT_BATTLES = 40


def default_policies(scenario_names: tuple[str, ...]) -> str:
    """The default line-up: the difficulty ladder's rungs (configs/ladder.yaml, weakest
    first) and the trained policy shipped for each scenario (``trained:NAME``)."""
    from pathlib import Path

    from agents.registered import shipped
    from vtm_sim.policies.rungs import rungs

    trained = [f"trained:{Path(n).stem}" for n in scenario_names if Path(n).stem in shipped()]
    return ",".join([*rungs(), *trained])


def policy_maker(name: str, scenario: Scenario) -> PolicyMaker:
    """The one place a tournament turns a policy name into a policy maker.

    Names resolve in the project's registry (:func:`vtm_sim.policies.registry.maker`: engine
    policies, tactics, ladder rungs, agents, ``model:PATH``, ``trained:NAME``).
    Workers call this module-level function by name with the scenario, so nothing
    unpicklable crosses a process.
    """
    from vtm_sim.errors import ConfigError
    from vtm_sim.policies import registry

    try:
        return registry.maker(name, scenario)
    except ConfigError as exc:
        raise ConfigError(f"--policies: {exc}") from None


@main.command("tournament")
@click.argument("scenario_names", metavar="[SCENARIO]...", nargs=-1)
@click.option("--policies", default=None, metavar="A,B,...",
              help="Policies to pit against each other: any names of `vtm-sim policies` "
              "(nearest, tactician, planner, a tactic such as gunman, ladder:N, brawler, "
              "model:PATH, trained:NAME). Default: the ladder's rungs and the trained "
              "policy shipped for the scenario.")
@click.option("--battles", type=click.IntRange(1, 100000), default=DEFAULT_BATTLES,
              show_default=True,
              metavar="N", help="Seeded battles per pairing and side.")
@click.option("--seed", type=SEED, default=0, metavar="S",
              help="Battle k has seed S+k in every pairing (default 0).")
@every_core_backend_options
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default=None,
              metavar="DIR", help="Write tournament.json, battles.jsonl (as battles finish), "
              "results.json, results.csv, heatmap.png and timing.json here.")
@click.option("--resume", is_flag=True,
              help="Continue the tournament in --out DIR: same arguments, no battle lost "
              "or played twice.")
@click.option("--json", "as_json", is_flag=True, help="Print results.json instead of the table.")
def tournament_cmd(scenario_names: tuple[str, ...], policies: str | None, battles: int,
                   seed: int, jobs: int | None, backend_name: str, address: str | None,
                   out_dir: str | None, resume: bool, as_json: bool) -> None:
    """Pit policies against each other on scenarios (default duel): every pairing on
    both sides on the same seeds, with 95% intervals, per-side figures and ratings."""
    from vtm_sim.arena.backends import backend, usable_cpus
    from vtm_sim.arena.results import csv_rows, summarize, table_lines
    from vtm_sim.arena.run_dirs import HEATMAP, RunDir
    from vtm_sim.arena.tournament import Setup, check_setup, play_all, record_key, total_battles
    from vtm_sim.files.scenarios import load_scenario

    if resume and out_dir is None:
        _fail("--resume: needs --out DIR, the directory of the tournament to continue")
    named = scenario_names or (DEFAULT_SCENARIO,)
    if jobs is None:
        jobs = usable_cpus()
    if policies is None:
        policies = default_policies(named)
    setup = Setup(named, tuple(p.strip() for p in policies.split(",") if p.strip()),
                  battles, seed)
    with user_errors():
        scenarios = [load_scenario(n) for n in named]
        check_setup(setup, scenarios, policy_maker)
        runner = backend(backend_name, jobs, address)
        rundir = RunDir(out_dir) if out_dir is not None else None
        records: list[dict[str, Any]] = []
        if rundir is not None:
            records, dropped = rundir.start(setup, scenarios, resume=resume)
            if dropped:
                click.echo(f"{rundir.battles}: dropped an unfinished last line (a write cut "
                           "short); its battles are played again", err=True)
        total = total_battles(setup, scenarios)
        bar = _progress(total, len(records), quiet=as_json)

        def finished(recs: list[dict[str, Any]]) -> None:
            if rundir is not None:
                rundir.append(recs)
            bar.update(len(recs))

        start = time.perf_counter()
        try:
            new = play_all(setup, scenarios, policy_maker, backend=runner,
                           done=[record_key(r) for r in records], on_records=finished)
        except KeyboardInterrupt:
            bar.close()
            where = f"; kept in {rundir.battles}, continue with --resume" if rundir else ""
            click.echo(f"tournament: interrupted after {bar.n} of {total} battles{where}",
                       err=True)
            sys.exit(130)
        bar.close()
        seconds = time.perf_counter() - start
        records += new
        results = summarize(setup, scenarios, records)
        text = _dump(results)
        timing = {"backend": backend_name, "jobs": jobs, "battles_played": len(new),
                  "seconds": round(seconds, 3),
                  "battles_per_second": round(len(new) / seconds, 1) if seconds > 0 else None}
        if rundir is not None:
            rundir.write_results(results, csv_rows(setup, scenarios, records), text)
            rundir.write_timing(timing)
            _heatmap(results, rundir.path / HEATMAP)
    if as_json:
        click.echo(text)
        return
    for line in table_lines(results):
        click.echo(line)
    click.echo(played_line(len(new), len(records) - len(new), seconds, jobs, backend_name,
                           out_dir))


def played_line(played: int, kept: int, seconds: float, jobs: int, backend_name: str,
                out_dir: str | None) -> str:
    """The table's last line: the battles this run played, how long they took and where
    (the one line of the output that depends on the machine)."""
    if backend_name == "ray":
        where = f"{jobs} Ray CPU{'s' if jobs > 1 else ''}"
    elif jobs == 1:
        where = "1 process (--jobs 1)"
    else:
        where = f"{jobs} worker processes (--jobs {jobs})"
    line = f"Played {played} battle{'s' if played != 1 else ''} in {seconds:.1f} s on {where}"
    if kept:
        line += f"; {kept} more were already in {out_dir}"
    return line + "."


class _Quiet:
    """A progress bar that shows nothing (not a terminal, or --json)."""

    def __init__(self, initial: int) -> None:
        self.n = initial

    def update(self, k: int) -> None:
        self.n += k

    def close(self) -> None:
        pass


def _progress(total: int, initial: int, *, quiet: bool) -> Any:
    """tqdm on stderr when it is a terminal, else a silent counter."""
    if quiet or not sys.stderr.isatty():
        return _Quiet(initial)
    from tqdm import tqdm

    return tqdm(total=total, initial=initial, unit="battle", file=sys.stderr,
                dynamic_ncols=True, leave=False)


def _heatmap(results: dict[str, Any], path: Any) -> None:
    from vtm_sim.arena.heatmap import have_matplotlib, write_heatmap

    if not have_matplotlib():
        click.echo(f"{path.name} skipped: matplotlib is not installed "
                   "(pip install -e '.[plots]')", err=True)
        return
    write_heatmap(results, path)
