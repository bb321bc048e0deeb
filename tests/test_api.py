"""The public API: ``from vtm_sim import ...`` gives what a first script needs, lazily."""

from __future__ import annotations

import subprocess
import sys
from importlib import metadata

import pytest

import vtm_sim


def test_every_public_name_imports() -> None:
    for name in vtm_sim.__all__:
        assert getattr(vtm_sim, name) is not None, name
    assert set(vtm_sim.__all__) <= set(dir(vtm_sim))


def test_the_first_script_plays_a_battle() -> None:
    from vtm_sim import Battle, load_scenario, load_state, make_policy, narrate, play

    scenario = load_scenario("duel")
    battle = play(scenario.battle(seed=7),
                  [make_policy("tactician", scenario, i) for i in range(2)])
    assert isinstance(battle, Battle)
    assert battle.over and battle.pending is None
    assert narrate(battle.log)
    assert callable(load_state)


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'Batle'"):
        vtm_sim.Batle  # noqa: B018


def test_version_comes_from_the_package_metadata() -> None:
    assert vtm_sim.__version__ == metadata.version("vtm-sim")


def test_importing_the_package_loads_no_engine() -> None:
    """``import vtm_sim`` stays light: the engine and numpy load with the first use."""
    code = ("import sys, vtm_sim\n"
            "print(sorted(m for m in sys.modules if m.startswith('vtm_sim.') "
            "or m == 'numpy'))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == "['vtm_sim.errors', 'vtm_sim.version']"
