"""Shared by every test: the checkout's root, and the helpers beside this file.

The tests mirror the packages (``tests/engine/`` tests ``vtm_sim/engine/``,
``tests/envs/`` tests ``envs/``); the few at this level test the whole tree
(layers, packaging, the docs). Pytest imports them in its "importlib" mode, so
``tests/`` is never on ``sys.path`` (``tests/envs/`` would shadow ``envs``);
``tests/support/`` is (``pythonpath`` in pyproject.toml), and every test imports
the helpers there by name: :mod:`rule_helpers` (scripted battles with fixed
dice) and :mod:`experiment_scripts` (a script under ``experiments/`` as a module).
``fixtures/RULES.md`` is a copy of the rules catalogue (``shared/rules/``), so
no test reads outside the repository.
"""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def repo_root() -> Path:
    """The checkout's root folder (configs/, docs/, experiments/ are under it)."""
    return ROOT
