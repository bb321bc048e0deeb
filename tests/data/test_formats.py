"""Every file format's version is vtm_sim.data.formats' (one module to bump them in)."""

from __future__ import annotations

import ast
from pathlib import Path

from vtm_sim.data import formats

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("vtm_sim", "envs", "agents")
HOME = Path("vtm_sim/data/formats.py")
NOT_FILE_FORMATS = {(Path("envs/__init__.py"), "VERSION"),  # the registered ids' -vN
                    (Path("envs/__init__.py"), "LEGACY_VERSION")}  # and the -v0 alias


def _sources() -> list[Path]:
    return sorted(p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py"))


def test_no_module_but_formats_defines_a_version_or_format_constant() -> None:
    stray = []
    for path in _sources():
        rel = path.relative_to(ROOT)
        if rel == HOME:
            continue
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            targets = (node.targets if isinstance(node, ast.Assign)
                       else [node.target] if isinstance(node, ast.AnnAssign) else [])
            for t in targets:
                if (isinstance(t, ast.Name) and ("VERSION" in t.id or "FORMAT" in t.id)
                        and (rel, t.id) not in NOT_FILE_FORMATS):
                    stray.append(f"{rel}: {t.id}")
    assert stray == []


def test_no_file_is_written_with_a_literal_format() -> None:
    """A ``"format"`` (or ``"version"``) key in a dict display takes a formats constant."""
    literal = []
    for path in _sources():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Dict):
                for k, v in zip(node.keys, node.values, strict=True):
                    if (isinstance(k, ast.Constant) and k.value in ("format", "version")
                            and isinstance(v, ast.Constant)):
                        literal.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert literal == []


def test_the_formats_are_the_ones_files_were_written_with() -> None:
    """Changing one is a format change: these are the values files on disk carry."""
    assert (formats.LOG_VERSION, formats.STATE_VERSION, formats.OBS_VERSION) == (2, 2, 6)
    assert formats.STATE_FORMAT == "vtm_sim.state"  # what every saved state carries
    assert (formats.RUN_DIR_FORMAT, formats.RESULTS_FORMAT) == (1, 1)
    assert formats.POLICY_FORMAT == "vtm-sim numpy policy 1"
    assert formats.TABLE_SCHEMA_VERSION == 1  # what every table database carries
    assert sorted(formats.__all__) == sorted(n for n in vars(formats) if n.isupper())
