"""The package as pip builds it: shipped data, and the optional mypyc build's switch."""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.append(str(ROOT))  # after site-packages: an installed vtm_sim still wins

import build_hooks  # noqa: E402

# what the copy below leaves out: venvs, caches, runs (its build/ stays: a stale compiled
# module there must not reach the wheel)
NOT_SOURCE = (".git", ".venv*", "runs", "*.egg-info", "__pycache__", ".*_cache", ".hypothesis")


def test_wheel_carries_the_configs_and_no_compiled_code(tmp_path: Path) -> None:
    """A plain (not editable) install must find every YAML file without the checkout.

    The wheel is built from a copy of the tree: a build empties its tree's ``build/``
    (build_hooks), which would break a ``pip install .`` of the checkout running meanwhile."""
    src = tmp_path / "src"
    shutil.copytree(ROOT, src, ignore=shutil.ignore_patterns(*NOT_SOURCE))
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(tmp_path), str(src)],
        check=True, capture_output=True,
        env={k: v for k, v in os.environ.items() if k != build_hooks.COMPILE_ENV},
    )
    (wheel,) = tmp_path.glob("vtm_sim-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    shipped = {f"vtm_sim/configs/{p.relative_to(ROOT / 'configs')}"
               for p in (ROOT / "configs").rglob("*.yaml")}
    assert shipped and shipped <= names, sorted(shipped - names)[:5]
    tables = {f"agents/hyperparams/{p.name}"
              for p in (ROOT / "experiments" / "hyperparams").glob("*.yml")}
    assert tables and tables <= names, sorted(tables - names)
    assert "vtm_sim/py.typed" in names
    assert {"vtm_sim/engine/battle.py", "envs/env.py", "agents/base.py"} <= names
    assert not [n for n in names if n.endswith((".so", ".pyd"))]
    # the public API from the installed wheel alone (its dependencies are this venv's)
    site = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target",
                    str(site), str(wheel)], check=True, capture_output=True)
    script = (
        "import sys, vtm_sim\n"
        "from vtm_sim import Battle, load_scenario, load_state, play\n"
        "assert vtm_sim.__file__.startswith(sys.argv[1]), vtm_sim.__file__\n"
        "battle = play(load_scenario('duel').battle(seed=3))\n"
        "assert isinstance(battle, Battle) and battle.over\n"
        "print(vtm_sim.__version__)\n"
    )
    out = subprocess.run([sys.executable, "-c", script, str(site)], cwd=tmp_path,
                         env={**os.environ, "PYTHONPATH": str(site)},
                         capture_output=True, text=True, check=True).stdout.strip()
    assert out == wheel.name.split("-")[1]


@pytest.mark.parametrize(("value", "wanted"), [
    ("1", True), ("true", True), ("YES", True), ("", False), ("0", False), ("no", False),
])
def test_compile_switch(monkeypatch: pytest.MonkeyPatch, value: str, wanted: bool) -> None:
    monkeypatch.setenv(build_hooks.COMPILE_ENV, value)
    assert build_hooks.compile_requested() is wanted
    extra = build_hooks._compile_requires()
    if wanted:
        assert extra[0] == build_hooks.MYPY and "numpy>=1.26" in extra  # mypyc type-checks
    else:
        assert extra == []


def test_an_editable_compiled_build_is_refused(monkeypatch: pytest.MonkeyPatch,
                                               tmp_path: Path) -> None:
    """It would leave .so files in the checkout, shadowing the .py files being edited."""
    monkeypatch.setenv(build_hooks.COMPILE_ENV, "1")
    for hook in (build_hooks.get_requires_for_build_editable,
                 lambda: build_hooks.build_editable(str(tmp_path))):
        with pytest.raises(SystemExit, match=r"not 'pip install -e \.'"):
            hook()
    assert not list(tmp_path.iterdir())


def test_compiled_modules_exist_and_are_typed() -> None:
    """Every module named for compilation exists and is under the strict type check."""
    for path in build_hooks.COMPILED_MODULES:
        assert (ROOT / path).is_file(), path
        assert path.split("/")[0] in ("vtm_sim", "envs")


def test_the_build_under_test_is_the_one_asked_for() -> None:
    """With VTM_SIM_COMPILE=1 set for the run (CI's compiled pass) every hot module must
    be compiled; otherwise (the editable checkout) none may be."""
    import importlib

    import vtm_sim

    names = [p.removesuffix(".py").replace("/", ".") for p in build_hooks.COMPILED_MODULES]
    for name in names:
        importlib.import_module(name)
    compiled = vtm_sim.compiled_modules()
    if build_hooks.compile_requested():
        assert sorted(names) == compiled
    else:
        assert compiled == []


def test_the_installed_build_replays_the_source_tree_byte_for_byte() -> None:
    """Battles in this process (the build under test: compiled in CI's second pass)
    and in a subprocess importing the checkout's pure-Python source give identical logs."""
    from vtm_sim.files.scenarios import load_scenario
    from vtm_sim.policies.nearest import NearestEnemyPolicy
    from vtm_sim.policies.play import play
    from vtm_sim.policies.tactician import TacticianPolicy

    cases = [("duel", 1), ("bar_brawl", 2), ("grapple_and_bite", 3), ("swat_raid", 4)]
    code = (
        "import json, sys, vtm_sim\n"
        "from vtm_sim.files.scenarios import load_scenario\n"
        "from vtm_sim.policies.play import play\n"
        "from vtm_sim.policies.nearest import NearestEnemyPolicy\n"
        "from vtm_sim.policies.tactician import TacticianPolicy\n"
        "assert vtm_sim.__file__.startswith(sys.argv[1]), vtm_sim.__file__\n"
        "for name, seed in json.loads(sys.argv[2]):\n"
        "    b = load_scenario(name).battle(seed=seed)\n"
        "    n = len(b.combatants)\n"
        "    play(b, [TacticianPolicy() if i % 2 else NearestEnemyPolicy() for i in range(n)])\n"
        "    print(b.log.sha256())\n"
        "assert vtm_sim.compiled_modules() == [], vtm_sim.compiled_modules()\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(ROOT), json.dumps(cases)],
        cwd=ROOT, capture_output=True, text=True, check=True,
    ).stdout.split()
    mine = []
    for name, seed in cases:
        b = load_scenario(name).battle(seed=seed)
        n = len(b.combatants)
        play(b, [TacticianPolicy() if i % 2 else NearestEnemyPolicy() for i in range(n)])
        mine.append(b.log.sha256())
    assert mine == out


def _module_constants(path: Path) -> list[tuple[str, bool]]:
    """Module-level UPPER_CASE names bound once, and whether each is marked Final."""
    tree = ast.parse(path.read_text())
    out = []
    for node in tree.body:
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            ann = ast.unparse(node.annotation)
            out.append((node.target.id, ann.startswith("Final")))
        elif isinstance(node, ast.Assign):
            for t in node.targets:
                for n in ([t] if isinstance(t, ast.Name) else getattr(t, "elts", [])):
                    if isinstance(n, ast.Name):
                        alias = isinstance(node.value, (ast.Subscript, ast.BinOp)) or (
                            isinstance(node.value, ast.Call)
                            and ast.unparse(node.value.func) in ("TypeVar", "NewType"))
                        if not alias:
                            out.append((n.id, False))
    return [(name, final) for name, final in out if re.fullmatch(r"_?[A-Z][A-Z0-9_]*", name)]


def test_compiled_modules_mark_their_constants_final() -> None:
    """mypyc reads a module constant that is not ``Final`` out of the module's dict on
    every use (a hash lookup); a ``Final`` one is a C static or inlined. The step path
    reads dozens of them per decision (experiments/bench_instructions.py)."""
    root = Path(__file__).resolve().parent.parent
    missing = [f"{mod}: {name}" for mod in build_hooks.COMPILED_MODULES
               for name, final in _module_constants(root / mod) if not final]
    assert not missing, "not Final: " + ", ".join(missing)
    # mypyc leaves a bare ``Final`` tuple of literals unset for module-level
    # comprehensions ("value for final name ... was not set"): spell out its type
    bare = [f"{mod}: {node.target.id}" for mod in build_hooks.COMPILED_MODULES
            for node in ast.parse((root / mod).read_text()).body
            if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)
            and ast.unparse(node.annotation) == "Final" and isinstance(node.value, ast.Tuple)
            and all(isinstance(e, (ast.Constant, ast.UnaryOp)) for e in node.value.elts)]
    assert not bare, "Final tuples of literals need their type: " + ", ".join(bare)
