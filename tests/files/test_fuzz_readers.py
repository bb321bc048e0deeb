"""Fuzzing the readers of user files (issue 32): the state, scenario, stat block and tactic
readers either load what they are given or raise one ConfigError, never anything else.

Three kinds of input: random bytes; random YAML trees (nested mappings, lists and
scalars, numbers that overflow or are not numbers); and the shipped files (and hand-written
states) with one value replaced by a random scalar or tree, one key dropped or one added.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vtm_sim.data.config import config_dir
from vtm_sim.data.stat_blocks import load_stat_block
from vtm_sim.data.tactic_files import load_tactic
from vtm_sim.errors import ConfigError
from vtm_sim.files.scenarios import load_scenario
from vtm_sim.files.state_files import load_state

FUZZ = settings(max_examples=40, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])

# hand-written states, as docs/states.md shows them
STATES: list[dict[str, Any]] = [
    {"scenario": "gunfight", "turn": 3, "description": "Ortiz went down",
     "combatants": {
         "Detective Ortiz": {"damage": {"lethal": 3}, "willpower": 4,
                             "ammo": {"heavy_revolver": 2}, "at": [4, 10], "prone": True},
         "Patrol Officer#2": {"damage": {"bashing": 1, "lethal": 2}, "stunned": True},
         "Shotgun Frankie": {"ammo": {"shotgun": 0},
                             "aim": {"target": "Patrol Officer#1", "dice": 1}}},
     "initiative": ["Shotgun Frankie", "Detective Ortiz", "Two-Gun Tommy", "Patrol Officer#1",
                    "Patrol Officer#2", "The Bagman"]},
    {"scenario": "duel", "turn": 2,
     "combatants": {"Knife Fighter": {"at": [20, 0], "fleeing": {"successes": 6, "turns": 3}},
                    "Bar Brawler": {"pursuing": {"target": "Knife Fighter", "successes": 4}}},
     "initiative": {"Knife Fighter": 9}},
    {"scenario": "grapple_and_bite", "turn": 2,
     "obstacles": [{"name": "fence", "kind": "low", "line": [[5, -3], [5, 3]], "height": 3}],
     "combatants": {}},
]

SCALARS = (
    st.none() | st.booleans() | st.integers() | st.integers(-3, 30)
    | st.floats(allow_nan=True, allow_infinity=True) | st.sampled_from([1e308, -1e308, 0.5])
    | st.text(max_size=12) | st.sampled_from(["duel", "unarmed", "vampire", "knife", "#1"])
)
KEYS = st.text(max_size=8) | st.sampled_from(
    ["name", "kind", "at", "sheet", "side", "combatants", "scenario", "turn", "damage"])
TREES = st.recursive(
    SCALARS,
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(KEYS, children, max_size=4),
    max_leaves=12,
)


def _real(folder: str) -> list[Any]:
    return [yaml.safe_load(p.read_text(encoding="utf-8"))
            for p in sorted((config_dir() / folder).glob("*.yaml"))]


REAL = {
    "state": STATES,
    "scenario": _real("scenarios"),
    "sheet": _real("characters"),
    "tactic": _real("tactics"),
}


def _load_state(p: Path) -> None:
    load_state(p, seed=0)  # read and begun: up to its first decision


READERS: dict[str, Callable[[Path], Any]] = {
    "state": _load_state,
    "scenario": lambda p: load_scenario(str(p)),
    "sheet": load_stat_block,
    "tactic": lambda p: load_tactic(str(p)),
}


def _paths(tree: Any) -> list[tuple[Any, ...]]:
    """Every path to a value in a tree of dicts and lists."""
    out: list[tuple[Any, ...]] = [()]
    if isinstance(tree, dict):
        for k, v in tree.items():
            out += [(k, *rest) for rest in _paths(v)]
    elif isinstance(tree, list):
        for i, v in enumerate(tree):
            out += [(i, *rest) for rest in _paths(v)]
    return out


@st.composite
def mutants(draw: st.DrawFn, kind: str) -> Any:
    """A real file of ``kind`` with one value replaced, one key dropped or one added."""
    tree = copy.deepcopy(draw(st.sampled_from(REAL[kind])))
    path = draw(st.sampled_from(_paths(tree)))
    how = draw(st.sampled_from(["replace", "replace", "drop", "add"]))
    if not path:
        return draw(TREES)
    *head, last = path
    parent = tree
    for k in head:
        parent = parent[k]
    if how == "replace":
        parent[last] = draw(TREES)
    elif how == "drop":
        del parent[last]
    elif isinstance(parent, dict):
        parent[draw(KEYS)] = draw(TREES)
    else:
        parent.insert(last, draw(TREES))
    return tree


def _dump(tree: Any) -> str:
    text = yaml.safe_dump(tree, allow_unicode=True)
    assert isinstance(text, str)
    return text


def _check(reader: Callable[[Path], Any], path: Path) -> None:
    try:
        reader(path)
    except ConfigError as exc:
        msg = str(exc)
        assert "\n" not in msg.strip(), msg
        assert msg.startswith(str(path)) or str(path) in msg or path.name in msg, msg


@pytest.mark.parametrize("kind", sorted(READERS))
@FUZZ
@given(data=st.binary(max_size=200))
def test_random_bytes(tmp_path: Path, kind: str, data: bytes) -> None:
    path = tmp_path / f"{kind}.yaml"
    path.write_bytes(data)
    _check(READERS[kind], path)


@pytest.mark.parametrize("kind", sorted(READERS))
@FUZZ
@given(tree=TREES)
def test_random_yaml_trees(tmp_path: Path, kind: str, tree: Any) -> None:
    path = tmp_path / f"{kind}.yaml"
    path.write_text(_dump(tree), encoding="utf-8")
    _check(READERS[kind], path)


@pytest.mark.parametrize("kind", sorted(READERS))
@settings(max_examples=80, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_real_files_with_one_value_changed(tmp_path: Path, kind: str,
                                           data: st.DataObject) -> None:
    path = tmp_path / f"{kind}.yaml"
    path.write_text(_dump(data.draw(mutants(kind))), encoding="utf-8")
    _check(READERS[kind], path)


def test_the_unchanged_files_load(tmp_path: Path) -> None:
    """The mutants start from files that load (else the fuzz would test only errors)."""
    for kind, trees in REAL.items():
        for n, tree in enumerate(trees):
            path = tmp_path / f"{kind}{n}.yaml"
            path.write_text(_dump(tree), encoding="utf-8")
            READERS[kind](path)


@pytest.mark.parametrize("kind", sorted(READERS))
def test_deep_nesting_and_a_key_with_a_line_break(tmp_path: Path, kind: str) -> None:
    deep = tmp_path / f"{kind}.yaml"
    deep.write_text("[" * 5000 + "]" * 5000, encoding="utf-8")
    with pytest.raises(ConfigError, match="nested too deeply"):
        READERS[kind](deep)
    broken = tmp_path / f"{kind}2.yaml"
    broken.write_text(_dump({**REAL[kind][0], "a\nb": 1}), encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        READERS[kind](broken)
    assert "\n" not in str(info.value) and "a\\nb" in str(info.value)


def test_a_json_state_nested_too_deeply(tmp_path: Path) -> None:
    deep = tmp_path / "state.json"
    deep.write_text('{"a": ' * 5000 + "1" + "}" * 5000, encoding="utf-8")
    with pytest.raises(ConfigError, match="nested too deeply"):
        _load_state(deep)
