"""The package's layers: every module imports only from its own layer and those below.

A module's layer is the package it sits in (``vtm_sim.engine.battle`` is in
``engine``); the order is :data:`LAYERS`, lowest first. Every import counts:
at the top of a module, inside a function and under ``if TYPE_CHECKING:``
alike, so no cycle between layers can hide in a function. STYLE 1 too: the
rules engine imports neither gymnasium nor torch.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("vtm_sim", "envs", "agents")
# lowest first; a module may import from its own layer and any earlier one
LAYERS: tuple[str, ...] = (
    "vtm_sim.errors",  # cross-cutting: the errors every layer raises
    "vtm_sim.version",  # cross-cutting: the version and build
    "vtm_sim.core",
    "vtm_sim.data",
    "vtm_sim.events",
    "vtm_sim.mechanics",
    "vtm_sim.engine",
    "vtm_sim.files",
    "vtm_sim.text",
    "vtm_sim.policies",
    "vtm_sim.analysis",
    "vtm_sim.arena",
    "vtm_sim.regress",
    "vtm_sim.table",
    "vtm_sim.web",  # the table's web app and MCP server (over the table's service)
    "envs",
    "agents",
    "vtm_sim.cli",
    "vtm_sim",  # the public API (vtm_sim/__init__.py) re-exports from the layers
)


def layer_of(module: str) -> int | None:
    """The index in LAYERS of the longest layer name that ``module`` is or sits in."""
    best: int | None = None
    for i, name in enumerate(LAYERS):
        if (module == name or module.startswith(name + ".")) and (
                best is None or len(name) > len(LAYERS[best])):
            best = i
    return best


@dataclass(frozen=True)
class Upward:
    module: str
    line: int
    imported: str
    in_function: bool

    def __str__(self) -> str:
        where = " (inside a function)" if self.in_function else ""
        return (f"{self.module}:{self.line}{where} imports {self.imported}: "
                f"{LAYERS[layer_of(self.module) or 0]} is below "
                f"{LAYERS[layer_of(self.imported) or 0]}")


def module_name(path: Path, root: Path) -> str:
    return ".".join(path.relative_to(root).with_suffix("").parts).removesuffix(".__init__")


def imported_modules(node: ast.AST) -> list[str]:
    """The project modules (or names in them) an import statement reaches."""
    if isinstance(node, ast.Import):
        names = [a.name for a in node.names]
    elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
        names = [f"{node.module}.{a.name}" for a in node.names]
    else:
        return []
    return [n for n in names if n.partition(".")[0] in PACKAGES]


def upward_imports(root: Path) -> list[Upward]:
    """Every import in the packages under ``root`` that reaches a higher layer."""
    found = []
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            module = module_name(path, root)
            mine = layer_of(module)
            assert mine is not None, f"{module} is in no layer: add its package to LAYERS"
            tree = ast.parse(path.read_text(encoding="utf-8"))
            in_function = {
                id(n) for f in ast.walk(tree)
                if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef)
                for n in ast.walk(f)
            }
            for node in ast.walk(tree):
                for imported in imported_modules(node):
                    # `from vtm_sim import x` names the public API: the top layer
                    theirs = (len(LAYERS) - 1 if imported.rpartition(".")[0] == "vtm_sim"
                              and layer_of(imported) == len(LAYERS) - 1 else layer_of(imported))
                    if theirs is not None and theirs > mine:
                        found.append(Upward(module, node.lineno, imported,
                                            id(node) in in_function))
    return found


def test_no_module_imports_from_a_higher_layer() -> None:
    found = upward_imports(ROOT)
    assert not found, "imports running up the layers:\n" + "\n".join(map(str, found))


def test_every_module_sits_in_a_layer_package() -> None:
    """No module directly in vtm_sim/ but the public API and the cross-cutting ones."""
    flat = sorted(p.name for p in (ROOT / "vtm_sim").glob("*.py"))
    assert flat == ["__init__.py", "errors.py", "version.py"]
    for package in (ROOT / "vtm_sim").iterdir():
        if package.is_dir() and any(package.glob("*.py")):
            assert layer_of(f"vtm_sim.{package.name}") is not None, package.name


def test_an_upward_import_planted_in_a_function_is_caught(tmp_path: Path) -> None:
    """The check sees an import hidden inside a function (and a TYPE_CHECKING one)."""
    for package in PACKAGES:
        (tmp_path / package).mkdir()
        (tmp_path / package / "__init__.py").write_text("")
    for sub in ("core", "engine"):
        (tmp_path / "vtm_sim" / sub).mkdir()
        (tmp_path / "vtm_sim" / sub / "__init__.py").write_text("")
    (tmp_path / "vtm_sim" / "engine" / "battle.py").write_text("X = 1\n")
    (tmp_path / "vtm_sim" / "core" / "dice.py").write_text(
        "from vtm_sim.errors import VtmSimError\n\n\n"
        "def roll() -> int:\n"
        "    from vtm_sim.engine.battle import X  # upward, hidden in a function\n"
        "    return X\n")
    (tmp_path / "vtm_sim" / "core" / "health.py").write_text(
        "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n"
        "    from vtm_sim.engine import battle\n")
    found = upward_imports(tmp_path)
    assert [(u.module, u.imported, u.in_function) for u in found] == [
        ("vtm_sim.core.dice", "vtm_sim.engine.battle.X", True),
        ("vtm_sim.core.health", "vtm_sim.engine.battle", False),
    ]
    assert "inside a function" in str(found[0])
    # and the public API counts as the top layer
    (tmp_path / "vtm_sim" / "core" / "health.py").write_text("from vtm_sim import Battle\n")
    assert [u.imported for u in upward_imports(tmp_path)] == [
        "vtm_sim.engine.battle.X", "vtm_sim.Battle"]


def test_engine_imports_neither_gymnasium_nor_torch() -> None:
    code = (
        "import sys, vtm_sim, vtm_sim.engine.battle, vtm_sim.mechanics.attack, "
        "vtm_sim.mechanics.odds, vtm_sim.files.replay, vtm_sim.policies.play, vtm_sim.cli, "
        "vtm_sim.text.narration\n"
        "from vtm_sim import Battle, load_scenario, play\n"
        "bad = [m for m in ('gymnasium', 'torch', 'stable_baselines3') if m in sys.modules]\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert out == ""
