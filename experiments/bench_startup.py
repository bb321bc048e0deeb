"""Benchmark how fast the command line starts: ``vtm-sim --help`` and every scripted command.

Usage: python experiments/bench_startup.py [--runs N] [--only TEXT] [--baseline VTM_SIM]
                                           [--json]

Runs each case N times (default 21) as a fresh process and prints the median
wall time and CPU time (user + system), next to ``python -c pass`` measured the
same way in the same run (the interpreter's own start, the reference), and
the import of click, numpy, PyYAML and pydantic (the floor under a command
that rolls seeded dice and reads a config). The
cases: ``vtm-sim --help``, every command's ``--help`` (the command table,
``vtm_sim.cli.base.COMMANDS``), and a real run of every cheap scripted-only
command (``CHEAP``: a roll, an attack, a card, a jump, a chase, the scenario and
policy lists, a schema, a state file shown, a seeded duel, a log replayed).
The target (issue 11) is a wall median under 0.3 s for each; the expensive
commands (tournament, ladder, regress, suggest, export-behaviors, and the
training commands) are timed by their ``--help`` only.

``--baseline`` names another ``vtm-sim`` (e.g. the console script of a checkout
of the commit before a change, installed in its own venv): its runs are
interleaved with this one's, so both see the same load, and a ratio is printed.
``--only`` keeps the cases whose name contains TEXT.

The ``vtm-sim`` console script beside this interpreter is used when there is
one, else ``python -c`` calling the same entry point. Every case runs once first
(not timed) so the bytecode caches exist: ``PYTHONDONTWRITEBYTECODE`` is dropped
from the children's environment, since with it every start would compile the
sources again, which no installed copy does. A state file and a battle log for
the cases that read one are written to a temporary folder first. Run it on a
quiet machine (`nice` it on a shared one): the figures are wall times.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET_S = 0.3
ENTRY = "import sys; from vtm_sim.cli import main; sys.argv[0] = 'vtm-sim'; main()"
# the libraries a command that rolls dice from a seed and reads a config cannot do
# without: the floor under those commands (measured as a second reference)
LIBRARIES = "import click, numpy.random, yaml; from pydantic import BaseModel"
ROOT = Path(__file__).resolve().parent.parent
CHARACTERS = ROOT / "configs" / "characters"
# a real run of every cheap scripted-only command ({state} and {log}: files made first)
CHEAP: dict[str, list[str]] = {
    "roll 6 --seed 1": ["roll", "6", "--seed", "1"],
    "roll 6 -d 7 --specialty --odds": ["roll", "6", "-d", "7", "--specialty", "--odds"],
    "attack ... --defense dodge --odds": [
        "attack", "--attacker", "knife_fighter", "--defender", "brawler", "--defense", "dodge",
        "--odds"],
    "card --attacker knife_fighter --against brawler": [
        "card", "--attacker", "knife_fighter", "--against", "brawler"],
    "jump elder.yaml --running": ["jump", str(CHARACTERS / "elder.yaml"), "--running"],
    "pursuit thug/elder --lead 14": [
        "pursuit", "--quarry", str(CHARACTERS / "thug.yaml"), "--pursuer",
        str(CHARACTERS / "elder.yaml"), "--lead", "14"],
    "scenarios": ["scenarios"],
    "policies": ["policies"],
    "schema state": ["schema", "state"],
    "state show STATE": ["state", "show", "{state}"],
    "fight duel --seed 1": ["fight", "duel", "--seed", "1"],
    "replay LOG": ["replay", "{log}"],
}
# how the files of {state} and {log} are made (with the measured vtm-sim)
FILES = {
    "state": ["fight", "gunfight", "--seed", "7", "--stop-after-turn", "2", "--save-state"],
    "log": ["fight", "duel", "--seed", "1", "--log"],
}


def vtm_sim_command() -> list[str]:
    script = Path(sys.executable).with_name("vtm-sim")
    if script.exists():
        return [str(script)]
    found = shutil.which("vtm-sim")
    return [found] if found else [sys.executable, "-c", ENTRY]


def child_env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def run_once(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU time (user + system) of one fresh process; exits on a failure."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    _pid, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        raise SystemExit(f"{' '.join(argv)}: exit status {code}")
    return wall, usage.ru_utime + usage.ru_stime


def cases(cli: list[str], files: dict[str, str]) -> dict[str, list[str]]:
    from vtm_sim.cli.base import COMMANDS

    out = {"python -c pass": [sys.executable, "-c", "pass"],
           "python -c 'import click, numpy, yaml, pydantic'": [sys.executable, "-c", LIBRARIES],
           "vtm-sim --help": [*cli, "--help"]}
    for name in sorted(COMMANDS):
        out[f"vtm-sim {name} --help"] = [*cli, name, "--help"]
    out["vtm-sim state show --help"] = [*cli, "state", "show", "--help"]
    for name, args in CHEAP.items():
        out[f"vtm-sim {name}"] = [*cli, *(a.format(**files) for a in args)]
    return out


def make_files(cli: list[str], folder: Path, env: dict[str, str]) -> dict[str, str]:
    files = {"state": str(folder / "state.json"), "log": str(folder / "battle.jsonl")}
    for key, args in FILES.items():
        run_once([*cli, *args, files[key]], env)
    return files


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=21)
    ap.add_argument("--only", default=None, metavar="TEXT")
    ap.add_argument("--baseline", default=None, metavar="VTM_SIM",
                    help="Another vtm-sim executable, measured interleaved with this one.")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    env = child_env()
    cli = vtm_sim_command()
    base_cli = [args.baseline] if args.baseline else None
    with tempfile.TemporaryDirectory() as tmp:
        files = make_files(cli, Path(tmp), env)
        todo = cases(cli, files)
        keep = {k for k in todo
                if k.startswith("python") or args.only is None or args.only in k}
        todo = {k: v for k, v in todo.items() if k in keep}
        base = None
        if base_cli is not None:
            base = {k: v for k, v in cases(base_cli, files).items() if k in keep}
            base = {k: v for k, v in base.items() if k in todo}
        times: dict[str, list[tuple[float, float]]] = {k: [] for k in todo}
        base_times: dict[str, list[tuple[float, float]]] = {k: [] for k in base or {}}
        for name, argv in todo.items():  # warm-up: bytecode caches, disk cache
            run_once(argv, env)
            if base is not None and name in base:
                run_once(base[name], env)
        for _ in range(args.runs):
            for name, argv in todo.items():
                times[name].append(run_once(argv, env))
                if base is not None and name in base:
                    base_times[name].append(run_once(base[name], env))
    med = {k: (statistics.median(w for w, _c in v), statistics.median(c for _w, c in v))
           for k, v in times.items()}
    base_med = {k: (statistics.median(w for w, _c in v), statistics.median(c for _w, c in v))
                for k, v in base_times.items()}
    load = os.getloadavg()[0]
    over = [k for k, (w, _c) in med.items() if k.startswith("vtm-sim") and w >= TARGET_S]
    if args.json:
        print(json.dumps({
            "runs": args.runs, "load_average": load, "target_s": TARGET_S, "cli": cli,
            "baseline": base_cli,
            "median_wall_s": {k: w for k, (w, _c) in med.items()},
            "median_cpu_s": {k: c for k, (_w, c) in med.items()},
            "baseline_median_wall_s": {k: w for k, (w, _c) in base_med.items()},
            "baseline_median_cpu_s": {k: c for k, (_w, c) in base_med.items()},
            "over_target": over,
        }, indent=1))
        return
    ref = med["python -c pass"][0]
    print(f"Median of {args.runs} fresh processes each ({' '.join(cli)}; "
          f"load average {load:.1f} on {os.cpu_count()} cores):")
    head = f"  {'case':<52}{'wall':>8}  {'vs pass':>7}{'CPU':>8}"
    if base_med:
        head += f"{'baseline wall':>15}{'CPU':>8}{'wall ratio':>12}"
    print(head)
    for name, (w, c) in med.items():
        line = f"  {name:<52}{w:7.3f}s  {w / ref:6.1f}x{c:7.3f}s"
        if name in base_med:
            bw, bc = base_med[name]
            line += f"{bw:14.3f}s{bc:7.3f}s{w / bw:11.2f}x"
        print(line)
    if over:
        print(f"OVER the {TARGET_S} s target (wall median): {', '.join(over)}")
    else:
        print(f"Every case is under the {TARGET_S} s target (wall median).")


if __name__ == "__main__":
    main()
