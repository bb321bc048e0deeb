"""vtm_sim: the Vampire: The Masquerade (V20) combat rules engine.

The public API, everything a first script needs::

    from vtm_sim import load_scenario, play

    battle = play(load_scenario("duel").battle(seed=7))
    print(battle)

The package is layered, lowest first: ``core`` (dice, choices, health, space,
weapons, maneuvers), ``data`` (YAML, tables, stat blocks, rules profiles),
``events``, ``mechanics`` (a combatant, one attack, exact odds), ``engine``
(the battle's turn machine), ``files`` (scenarios, state files, replay),
``text`` (narration), ``policies``, ``analysis`` (advice, cards), ``arena``
(tournaments), ``regress``, ``table`` (a live fight kept in SQLite) and ``cli``; a
module imports only from its own layer and the ones below (``tests/test_layers.py``).

The names below are imported on first use (PEP 562), so ``import vtm_sim``
stays light: the CLI starts without loading the engine. The engine imports
neither gymnasium nor torch.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from vtm_sim.errors import ConfigError, IllegalActionError, VtmSimError
from vtm_sim.version import __version__, compiled_modules

if TYPE_CHECKING:
    from vtm_sim.core.choices import Choice, Decision
    from vtm_sim.engine.battle import Battle, Fighter
    from vtm_sim.files.scenarios import Scenario, load_scenario
    from vtm_sim.files.state_files import load_state
    from vtm_sim.policies.play import Policy, play
    from vtm_sim.policies.registry import make_policy
    from vtm_sim.policies.registry import names as policy_names
    from vtm_sim.table import TableService, VersionConflict
    from vtm_sim.text.narration import narrate

# name -> the module that owns it ("module:attribute" where the module names it otherwise)
_LAZY = {
    "Battle": "vtm_sim.engine.battle",
    "Fighter": "vtm_sim.engine.battle",
    "Choice": "vtm_sim.core.choices",
    "Decision": "vtm_sim.core.choices",
    "Scenario": "vtm_sim.files.scenarios",
    "load_scenario": "vtm_sim.files.scenarios",
    "load_state": "vtm_sim.files.state_files",
    "Policy": "vtm_sim.policies.play",
    "play": "vtm_sim.policies.play",
    "make_policy": "vtm_sim.policies.registry",
    "policy_names": "vtm_sim.policies.registry:names",
    "narrate": "vtm_sim.text.narration",
    "TableService": "vtm_sim.table",
    "VersionConflict": "vtm_sim.table",
}

__all__ = [
    "Battle",
    "Choice",
    "ConfigError",
    "Decision",
    "Fighter",
    "IllegalActionError",
    "Policy",
    "Scenario",
    "TableService",
    "VersionConflict",
    "VtmSimError",
    "__version__",
    "compiled_modules",
    "load_scenario",
    "load_state",
    "make_policy",
    "narrate",
    "play",
    "policy_names",
]


def __getattr__(name: str) -> Any:
    """The lazy part of the public API: ``from vtm_sim import Battle`` loads the engine then."""
    owner = _LAZY.get(name)
    if owner is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module, _, attribute = owner.partition(":")
    value = getattr(importlib.import_module(module), attribute or name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
