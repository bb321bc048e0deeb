"""The project's PEP 517 build backend: setuptools, with an optional mypyc build.

``VTM_SIM_COMPILE=1 pip install .`` compiles the modules on the environment
step's hot path (``COMPILED_MODULES``) with mypyc: Duel env steps about 3.4x
faster (``experiments/bench_compiled.py`` measures both builds).
To compile, mypyc type-checks those modules against their imports, so the
build then also needs mypy and the project's own dependencies: this backend
adds them to the build requirements only when a compiled build is asked for.
Without the variable the package is pure Python and installs nothing more.
"""

from __future__ import annotations

import os
import shutil
import tomllib
from pathlib import Path
from typing import Any

from setuptools import build_meta as _setuptools
from setuptools.build_meta import (  # noqa: F401  (the rest of the backend interface)
    build_sdist,
    get_requires_for_build_sdist,
    prepare_metadata_for_build_editable,
    prepare_metadata_for_build_wheel,
)

COMPILE_ENV = "VTM_SIM_COMPILE"
MYPY = "mypy>=1.10"
# Everything an environment step or a battle runs through: the engine, its policies
# (the tactician's exact odds too) and the observation encoder.
COMPILED_MODULES = [
    "vtm_sim/core/dice.py",
    "vtm_sim/core/health.py",
    "vtm_sim/core/relations.py",
    "vtm_sim/core/weapons.py",
    "vtm_sim/core/sheet.py",
    "vtm_sim/core/maneuvers.py",
    "vtm_sim/mechanics/combatant.py",
    "vtm_sim/core/choices.py",
    "vtm_sim/events/event.py",  # the events package's __init__ only re-exports: not compiled
    "vtm_sim/events/header.py",
    "vtm_sim/events/turn.py",
    "vtm_sim/events/roll.py",
    "vtm_sim/events/attack.py",
    "vtm_sim/events/damage.py",
    "vtm_sim/events/action.py",
    "vtm_sim/events/chase.py",
    "vtm_sim/events/log.py",
    "vtm_sim/engine/flow.py",
    "vtm_sim/mechanics/attack.py",
    "vtm_sim/engine/effects.py",
    "vtm_sim/engine/queries.py",
    "vtm_sim/engine/positions.py",
    "vtm_sim/engine/options.py",
    "vtm_sim/engine/strikes.py",
    "vtm_sim/engine/battle.py",
    "vtm_sim/mechanics/movement.py",
    "vtm_sim/mechanics/blood.py",
    "vtm_sim/core/space.py",
    "vtm_sim/engine/chase.py",  # MOVE-4: asked every turn (chasing) and in every option list
    "vtm_sim/engine/obstacles.py",  # MOVE-3: on every move across a field with obstacles
    "vtm_sim/policies/nearest.py",
    "vtm_sim/mechanics/odds.py",
    "vtm_sim/mechanics/forecast.py",
    "vtm_sim/policies/tactician.py",
    "vtm_sim/policies/play.py",
    "envs/observation.py",
    "envs/actions.py",
    "envs/match.py",
    "envs/env.py",
]


def compile_requested() -> bool:
    """Whether ``VTM_SIM_COMPILE`` asks for the mypyc build (1, true, yes)."""
    return os.environ.get(COMPILE_ENV, "").strip().lower() in ("1", "true", "yes")


def _compile_requires() -> list[str]:
    if not compile_requested():
        return []
    project = tomllib.loads((Path(__file__).parent / "pyproject.toml").read_text())
    return [MYPY, *project["project"]["dependencies"]]


def get_requires_for_build_wheel(config_settings: dict[str, Any] | None = None) -> list[str]:
    return [*_setuptools.get_requires_for_build_wheel(config_settings), *_compile_requires()]


def get_requires_for_build_editable(config_settings: dict[str, Any] | None = None) -> list[str]:
    if compile_requested():
        raise SystemExit(EDITABLE_REFUSED)
    return [*_setuptools.get_requires_for_build_editable(config_settings)]


def _fresh_build_folder() -> None:
    """Empty ``build/``: setuptools packs whatever its ``build/lib`` holds, so an
    extension module left there by an earlier compiled build would otherwise be
    installed again, stale, by a later build (compiled or pure)."""
    shutil.rmtree(Path(__file__).parent / "build", ignore_errors=True)


def build_wheel(wheel_directory: str, config_settings: dict[str, Any] | None = None,
                metadata_directory: str | None = None) -> str:
    _fresh_build_folder()
    return str(_setuptools.build_wheel(wheel_directory, config_settings, metadata_directory))


EDITABLE_REFUSED = (
    f"{COMPILE_ENV}=1 builds a regular install only: use 'pip install .', not 'pip install -e .'"
    " (an editable compiled build leaves compiled modules in the checkout, where they would"
    " shadow its .py files for every interpreter)"
)


def build_editable(wheel_directory: str, config_settings: dict[str, Any] | None = None,
                   metadata_directory: str | None = None) -> str:
    if compile_requested():
        raise SystemExit(EDITABLE_REFUSED)
    _fresh_build_folder()
    return str(_setuptools.build_editable(wheel_directory, config_settings, metadata_directory))
