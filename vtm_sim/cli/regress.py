"""``vtm-sim regress``: the regression suite, checked or rewritten (docs/regress.md)."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from vtm_sim.cli.base import main, user_errors

if TYPE_CHECKING:  # the engine is imported inside the command: --help stays light
    from vtm_sim.regress.balance import Check
    from vtm_sim.regress.suite import Change, SuiteRun, SuiteSpec

DEFAULT_SUITE = "tests/golden"


@contextmanager
def _progress(total: int, quiet: bool, label: str) -> Iterator[Callable[[int], None]]:
    """A progress bar on a terminal's stderr; nothing when quiet or not a TTY."""
    if quiet or not sys.stderr.isatty():
        yield lambda _n: None
        return
    with click.progressbar(length=total, label=label, file=sys.stderr) as bar:
        yield bar.update


@main.command("regress")
@click.option("--suite", "suite_dir", default=DEFAULT_SUITE, show_default=True, metavar="DIR",
              help="The suite: a folder with suite.yaml, battles.jsonl, logs/ and balance.json.")
@click.option("--update", is_flag=True,
              help="Rewrite the goldens and baselines from this run and print what changed.")
@click.option("--json", "as_json", is_flag=True, help="Print the results as JSON.")
def regress_cmd(suite_dir: str, update: bool, as_json: bool) -> None:
    """Replay the golden battles and balance checks (docs/regress.md).

    Plays every battle of the suite (every scenario under both rules profiles,
    seeded) and compares each event log's hash and summary with its golden;
    the first differing event of a kept log is printed side by side in plain
    words. Then plays the balance match-ups and tests their win rates against
    the baselines. Exits with status 1 on any difference; with --update,
    rewrites the goldens instead and exits 0.
    """
    from vtm_sim.errors import ConfigError
    from vtm_sim.regress.balance import check, play_matchup, read_baselines, write_baselines
    from vtm_sim.regress.suite import (
        BATTLES_FILE,
        compare,
        count_cases,
        load_suite,
        read_goldens,
        run_suite,
        write_goldens,
    )

    folder = Path(suite_dir)
    started = time.perf_counter()
    with user_errors():
        spec = load_suite(folder)
        unreadable: list[str] = []
        # --update writes the goldens anew even when the old ones are missing or broken
        try:
            goldens = read_goldens(folder)
        except ConfigError as exc:
            if not update:
                raise
            goldens = {}
            if (folder / BATTLES_FILE).exists():
                unreadable.append(str(exc))
        try:
            baselines = read_baselines(folder)
        except ConfigError as exc:
            if not update:
                raise
            baselines = {}
            unreadable.append(str(exc))
        with _progress(count_cases(spec), as_json, "golden battles") as step:
            run = run_suite(spec, step)
        golden_seconds = time.perf_counter() - started
        total = sum(m.battles for m in spec.balance.matchups)
        with _progress(total, as_json, "balance battles") as step:
            tallies = [(m, play_matchup(m, step)) for m in spec.balance.matchups]
        changes = compare(folder, run, goldens, strict=not update)
        checks = check(spec, baselines, tallies)
    seconds = time.perf_counter() - started
    if update:
        write_goldens(folder, run)
        write_baselines(folder, spec, tallies)
    failed = bool(changes) or not all(c.ok for c in checks)
    if as_json:
        click.echo(json.dumps(_json(folder, run, changes, checks, spec, update, failed),
                              indent=2, ensure_ascii=False))
    else:
        left, right = ("before", "after") if update else ("golden", "now")
        for line in _text(folder, run, changes, checks, spec, update, unreadable, left, right):
            click.echo(line)
        click.echo(f"({len(run.played)} golden battles in {golden_seconds:.1f} s, {total} "
                   f"balance battles in {seconds - golden_seconds:.1f} s)")
    if failed and not update:
        sys.exit(1)


def _text(folder: Path, run: SuiteRun, changes: list[Change], checks: list[Check],
          spec: SuiteSpec, update: bool, unreadable: list[str], left: str,
          right: str) -> list[str]:
    from vtm_sim.regress.balance import level

    out = []
    for problem in unreadable:
        out.append(f"(the old goldens could not be read and are written anew: {problem})")
    n = len(run.played)
    if not changes:
        out.append(f"Golden battles ({folder}): all {n} as {'before' if update else 'committed'}.")
    else:
        kinds = {k: sum(c.kind == k for c in changes) for k in ("changed", "new", "removed")}
        head = "Updated the goldens" if update else "Golden battles differ"
        out.append(f"{head} ({folder}): {kinds['changed']} of {n} battles changed, "
                   f"{kinds['new']} new, {kinds['removed']} removed.")
        if any(c.kind == "changed" and c.old is not None and c.old.log is None
               for c in changes):
            out.append("(A battle keeps only its hash and summary; the kept log of its "
                       "scenario shows the first differing event.)")
        for c in changes:
            out.extend(c.lines(left, right))
    for s in run.skipped:
        out.append(f"  not played: {s}")
    if checks:
        out.append(f"Balance: {len(checks)} match-ups, false-alarm rate "
                   f"{spec.balance.false_alarm:g} in all (each tested at {level(spec):.3g}):")
        for k in checks:
            out.extend("  " + line for line in (k.update_lines() if update else k.lines()))
    shifted = sum(not k.ok for k in checks)
    if update:
        out.append(f"Wrote {folder}: {n} golden battles, balance baselines for {len(checks)} "
                   "match-ups. Review the changes above, then commit them.")
    elif changes or shifted:
        out.append(f"FAILED: {len(changes)} battles differ from their goldens, {shifted} "
                   "match-ups' balance shifted or has no baseline. If the change is "
                   "intended, run vtm-sim regress --update and commit the goldens "
                   "(docs/regress.md).")
    else:
        out.append("OK: every battle matches its golden and the balance holds.")
    return out


def _json(folder: Path, run: SuiteRun, changes: list[Change], checks: list[Check],
          spec: SuiteSpec, update: bool, failed: bool) -> dict[str, Any]:
    from vtm_sim.regress.balance import level
    from vtm_sim.regress.eventdiff import side_by_side

    def change(c: Change) -> dict[str, Any]:
        d: dict[str, Any] = {"id": c.id, "kind": c.kind,
                             "old": None if c.old is None else c.old.to_json(),
                             "new": None if c.new is None else c.new.to_json()}
        if c.diff is not None:
            d["first_difference"] = {
                "event": c.diff.index + 1,
                "old": None if c.diff.old is None else c.diff.old.to_json(),
                "new": None if c.diff.new is None else c.diff.new.to_json(),
                "text": side_by_side(c.diff),
            }
        return d

    return {
        "suite": str(folder),
        "ok": not failed,
        "updated": update,
        "battles": len(run.played),
        "skipped": run.skipped,
        "changes": [change(c) for c in changes],
        "balance": {"false_alarm": spec.balance.false_alarm, "level": level(spec),
                    "matchups": [c.to_json() for c in checks]},
    }

