"""The command line starts light: commands are imported when named (vtm_sim/cli/base.py).

`vtm-sim --help` imports no command module and no engine module; a command's
`--help` imports none of the engine, numpy, pydantic or YAML either (the
command modules import the engine inside each command); `vtm-sim roll`
imports neither the tables nor the battle, and the commands that roll no dice
import no numpy (the dice import it on their first draw); no scripted-only
command imports torch or matplotlib. Each is checked in a fresh subprocess.
How fast it starts is measured by experiments/bench_startup.py.
"""

from __future__ import annotations

import importlib
import json
import pkgutil
import subprocess
import sys
from pathlib import Path

import click
from click.testing import CliRunner

import vtm_sim.cli
from vtm_sim.cli import main
from vtm_sim.cli.base import COMMANDS, LazyGroup

HEAVY = ("torch", "matplotlib", "stable_baselines3")
# commands that need the training extra; every other command is scripted-only
TRAINING_ONLY = {"train"}


# the libraries and engine modules a light start leaves out (where the tests below say)
ENGINE = ("vtm_sim.engine.battle", "vtm_sim.data.tables", "vtm_sim.data.stat_blocks",
          "vtm_sim.mechanics.combatant", "vtm_sim.files.scenarios")
PROBED = (*HEAVY, "numpy", "pydantic", "yaml", "scipy", *ENGINE, "vtm_sim.cli.battles")


def _modules_after(code: str) -> dict[str, bool]:
    """Run ``code`` in a fresh interpreter; which heavy or engine modules it imported."""
    probe = (
        f"{code}\n"
        "import json, sys\n"
        f"names = {PROBED!r}\n"
        "print(json.dumps({m: m in sys.modules for m in names}))\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True, timeout=300)
    loaded: dict[str, bool] = json.loads(out.stdout.strip().splitlines()[-1])
    return loaded


def test_help_imports_no_command_and_no_engine() -> None:
    loaded = _modules_after(
        "import sys\nfrom vtm_sim.cli import main\n"
        "try:\n    main(['--help'], prog_name='vtm-sim')\nexcept SystemExit:\n    pass\n"
        "sys.stdout.flush()\nprint()"
    )
    assert not any(loaded[m] for m in HEAVY), loaded
    assert not loaded["vtm_sim.engine.battle"] and not loaded["vtm_sim.cli.battles"], loaded
    assert not loaded["numpy"] and not loaded["pydantic"] and not loaded["yaml"], loaded


def _invoke_all(runs: list[list[str]]) -> str:
    """Probe code: every ``vtm-sim ARGS`` of ``runs`` through CliRunner, each exit 0."""
    return (
        "from click.testing import CliRunner\nfrom vtm_sim.cli import main\n"
        f"for args in {runs!r}:\n"
        "    r = CliRunner().invoke(main, args)\n"
        "    assert r.exit_code == 0, (args, r.output)\n"
    )


def test_every_commands_help_imports_no_engine_numpy_pydantic_or_yaml() -> None:
    """A command's --help is built from its click command alone (the engine is imported
    inside the command), training commands included."""
    runs = [[name, "--help"] for name in sorted(COMMANDS)] + [["state", "show", "--help"]]
    loaded = _modules_after(_invoke_all(runs))
    assert not any(loaded[m] for m in (*HEAVY, *ENGINE)), loaded
    assert not any(loaded[m] for m in ("numpy", "pydantic", "yaml", "scipy")), loaded


def test_roll_imports_neither_the_tables_nor_the_battle() -> None:
    """`vtm-sim roll` needs the dice, the odds and a rules profile: nothing else."""
    loaded = _modules_after(_invoke_all([["roll", "6", "--seed", "1"],
                                         ["roll", "4", "--faces", "1,9,10,6", "--odds"]]))
    assert not any(loaded[m] for m in (*HEAVY, *ENGINE, "scipy")), loaded
    assert loaded["numpy"] and loaded["pydantic"]  # the dice and the rules profile


def test_commands_that_roll_no_dice_import_no_numpy(tmp_path: Path) -> None:
    """Listing scenarios and policies, a schema, replaying a log (its dice are in it)."""
    log = tmp_path / "battle.jsonl"
    assert CliRunner().invoke(main, ["fight", "duel", "--seed", "1", "--log",
                                     str(log)]).exit_code == 0
    loaded = _modules_after(_invoke_all([["scenarios"], ["policies"], ["schema", "state"],
                                         ["replay", str(log)]]))
    assert not any(loaded[m] for m in (*HEAVY, "numpy", "scipy")), loaded
    assert loaded["vtm_sim.engine.battle"] and loaded["pydantic"]  # the commands really ran


def test_listing_the_policies_imports_no_engine() -> None:
    """`vtm-sim policies` describes every name, tactic files and rungs included, from
    the registry and the YAML alone (vtm_sim.data.tactic_files, not the playbook's engine)."""
    loaded = _modules_after(_invoke_all([["policies"], ["policies", "--json"]]))
    # (the health table is read: a tactic's flee_at names a health level)
    engine = [m for m in ENGINE if m != "vtm_sim.data.tables"]
    assert not any(loaded[m] for m in (*HEAVY, *engine, "numpy", "scipy")), loaded
    assert loaded["pydantic"] and loaded["yaml"]  # the tactic files were read


def test_scripted_commands_import_no_torch_or_matplotlib() -> None:
    """Every scripted-only command's help, and a few run for real, in one fresh process."""
    scripted = sorted(set(COMMANDS) - TRAINING_ONLY)
    runs = [[name, "--help"] for name in scripted] + [
        ["roll", "3", "--seed", "1"], ["scenarios"], ["fight", "duel", "--seed", "1"],
        ["card", "--attacker", "knife_fighter", "--against", "brawler"],
    ]
    loaded = _modules_after(_invoke_all(runs))
    assert not any(loaded[m] for m in HEAVY), loaded
    assert loaded["vtm_sim.engine.battle"]  # the commands really ran


def test_the_command_table_names_every_command_and_only_those() -> None:
    """COMMANDS (one line a command) agrees with the commands the modules define."""
    for info in pkgutil.iter_modules(vtm_sim.cli.__path__):
        importlib.import_module(f"vtm_sim.cli.{info.name}")
    assert isinstance(main, LazyGroup)
    assert set(main.commands) == set(COMMANDS)
    for name, (target, summary) in COMMANDS.items():
        module, _, attr = target.partition(":")
        command = getattr(importlib.import_module(module), attr)
        assert isinstance(command, click.Command) and command.name == name
        assert main.commands[name] is command
        assert summary and len(summary) <= 56, name  # fits --help's column unabridged


def test_help_lists_every_command_with_its_summary() -> None:
    result = CliRunner().invoke(main, ["--help"])
    assert result.exit_code == 0
    for name, (_target, summary) in COMMANDS.items():
        assert f"  {name} " in result.output and summary in result.output, name


def test_every_command_has_help() -> None:
    for name in COMMANDS:
        result = CliRunner().invoke(main, [name, "--help"])
        assert result.exit_code == 0, (name, result.output)
        assert f"Usage: main {name}" in result.output or f"Usage: vtm-sim {name}" in (
            result.output), name


def test_unknown_command_and_bad_option_are_one_line_exit_2() -> None:
    for args, expect in ((["nosuch"], "No such command 'nosuch'"),
                         (["fight", "duel", "--bogus"], "No such option '--bogus'"),
                         (["regress", "--bogus"], "No such option '--bogus'")):
        out = subprocess.run([sys.executable, "-c",
                              "import sys; from vtm_sim.cli import main; main(sys.argv[1:])",
                              *args], capture_output=True, text=True, timeout=300)
        assert out.returncode == 2, (args, out.stderr)
        lines = out.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("Error: ") and expect in lines[0]
