"""The command line starts light: commands are imported when named (vtm_sim/cli/base.py).

`vtm-sim --help` imports no command module and no engine module, and no
scripted-only command imports torch or matplotlib (checked in a fresh
subprocess). How fast it starts is measured by experiments/bench_startup.py.
"""

from __future__ import annotations

import importlib
import json
import pkgutil
import subprocess
import sys

import click
from click.testing import CliRunner

import vtm_sim.cli
from vtm_sim.cli import main
from vtm_sim.cli.base import COMMANDS, LazyGroup

HEAVY = ("torch", "matplotlib", "stable_baselines3")
# commands that need the training extra; every other command is scripted-only
TRAINING_ONLY = {"train"}


def _modules_after(code: str) -> dict[str, bool]:
    """Run ``code`` in a fresh interpreter; which heavy or engine modules it imported."""
    probe = (
        f"{code}\n"
        "import json, sys\n"
        "names = ('torch', 'matplotlib', 'stable_baselines3', 'vtm_sim.battle', "
        "'vtm_sim.cli.battles', 'numpy', 'pydantic')\n"
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
    assert not loaded["vtm_sim.battle"] and not loaded["vtm_sim.cli.battles"], loaded
    assert not loaded["numpy"] and not loaded["pydantic"], loaded


def test_scripted_commands_import_no_torch_or_matplotlib() -> None:
    """Every scripted-only command's help, and a few run for real, in one fresh process."""
    scripted = sorted(set(COMMANDS) - TRAINING_ONLY)
    runs = [[name, "--help"] for name in scripted] + [
        ["roll", "3", "--seed", "1"], ["scenarios"], ["fight", "duel", "--seed", "1"],
        ["card", "--attacker", "knife_fighter", "--against", "brawler"],
    ]
    loaded = _modules_after(
        "from click.testing import CliRunner\nfrom vtm_sim.cli import main\n"
        f"for args in {runs!r}:\n"
        "    r = CliRunner().invoke(main, args)\n"
        "    assert r.exit_code == 0, (args, r.output)\n"
    )
    assert not any(loaded[m] for m in HEAVY), loaded
    assert loaded["vtm_sim.battle"]  # the commands really ran


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
