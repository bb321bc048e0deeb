"""Packages, shipped data and the optional mypyc extension modules.

(Metadata and dependencies are in pyproject.toml; ``build_hooks.py`` is the
build backend and says when the hot modules are compiled.)
"""

from __future__ import annotations

import sys
from pathlib import Path

from setuptools import Extension, find_packages, setup

sys.path.insert(0, str(Path(__file__).resolve().parent))

from build_hooks import COMPILE_ENV, COMPILED_MODULES, compile_requested


def ext_modules() -> list[Extension]:
    if not compile_requested():
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        # The backend runs this file once before mypy is installed, only to
        # collect requirements; a real build without mypy is an error.
        if any(cmd in sys.argv for cmd in ("bdist_wheel", "build_ext", "editable_wheel")):
            sys.exit(f"{COMPILE_ENV}=1: mypyc is not installed in the build environment "
                     "(pip install mypy, or build with build isolation)")
        return []
    return list(mypycify(COMPILED_MODULES, opt_level="3"))


setup(
    packages=[*find_packages(include=["vtm_sim*", "envs*", "agents*"]), "vtm_sim.configs",
              "agents.hyperparams"],
    # The configs and the training hyperparameters ship inside the packages, so an installed
    # (not editable) copy, the compiled build's included, finds them.
    package_dir={"vtm_sim.configs": "configs", "agents.hyperparams": "experiments/hyperparams"},
    package_data={"vtm_sim": ["py.typed"], "vtm_sim.configs": ["*.yaml", "*/*.yaml"],
                  "agents.hyperparams": ["*.yml"],
                  # trained policies shipped by name (trained:NAME, agents/registered.py)
                  "agents": ["policies/*.npz", "policies/*.md"]},
    ext_modules=ext_modules(),
)
