"""docs/rules.md covers the whole rules catalogue and cites only code that exists."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "rules.md"
# a copy of the rules catalogue (shared/rules/RULES.md), so the test needs nothing outside
CATALOGUE = ROOT / "tests" / "fixtures" / "RULES.md"

BOLD_ID = re.compile(r"\*\*([A-Z]+-\d+)\*\*")
MODULE_PATH = re.compile(r"vtm_sim/[\w/]+\.py")
# `vtm_sim/mechanics/attack.py: plan_attack`, `vtm_sim/engine/battle.py: Battle._first_pass`; a
# citation may wrap onto the next line of the document.
CITATION = re.compile(r"`(vtm_sim/[\w/]+\.py):\s+([A-Za-z_][\w.]*)`")


def _doc() -> str:
    return DOC.read_text(encoding="utf-8")


def _catalogue_ids() -> set[str]:
    return set(BOLD_ID.findall(CATALOGUE.read_text(encoding="utf-8")))


def _definitions(module: Path) -> tuple[set[str], dict[str, set[str]]]:
    """Top-level function and class names, and each class's own function/class names."""
    tree = ast.parse(module.read_text(encoding="utf-8"), filename=str(module))
    kinds = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    top: set[str] = set()
    members: dict[str, set[str]] = {}
    for node in tree.body:
        if isinstance(node, kinds):
            top.add(node.name)
        if isinstance(node, ast.ClassDef):
            members[node.name] = {n.name for n in node.body if isinstance(n, kinds)}
    return top, members


def test_every_catalogue_rule_has_an_entry() -> None:
    """Each rule ID of the catalogue is a bold marker in docs/rules.md."""
    ids = _catalogue_ids()
    assert ids, "no rule IDs found in the catalogue"
    documented = set(BOLD_ID.findall(_doc()))
    missing = sorted(ids - documented)
    assert not missing, f"docs/rules.md has no **ID** entry for: {', '.join(missing)}"


def test_no_entry_for_an_unknown_rule() -> None:
    """Every bold rule marker in docs/rules.md names a catalogue rule (no typos)."""
    ids = _catalogue_ids()
    unknown = sorted(set(BOLD_ID.findall(_doc())) - ids)
    assert not unknown, f"docs/rules.md names rules the catalogue lacks: {', '.join(unknown)}"


def test_cited_modules_exist() -> None:
    paths = sorted(set(MODULE_PATH.findall(_doc())))
    assert paths, "docs/rules.md cites no vtm_sim module"
    missing = [p for p in paths if not (ROOT / p).is_file()]
    assert not missing, f"docs/rules.md cites modules that do not exist: {missing}"


def test_cited_names_are_defined() -> None:
    """`vtm_sim/x.py: name` names a top-level function or class of x.py;
    `vtm_sim/x.py: Class.name` a function or class defined in that class."""
    citations = sorted(set(CITATION.findall(_doc())))
    assert citations, "docs/rules.md has no `vtm_sim/x.py: name` citations"
    cache: dict[str, tuple[set[str], dict[str, set[str]]]] = {}
    bad = []
    for path, name in citations:
        module = ROOT / path
        if not module.is_file():
            bad.append(f"{path}: {name} (no such module)")
            continue
        if path not in cache:
            cache[path] = _definitions(module)
        top, members = cache[path]
        owner, _, member = name.partition(".")
        if member:
            ok = owner in members and member in members[owner]
        else:
            ok = name in top or any(name in names for names in members.values())
        if not ok:
            bad.append(f"{path}: {name}")
    assert not bad, "docs/rules.md cites names the code does not define:\n" + "\n".join(bad)
