"""vtm_sim: the Vampire: The Masquerade (V20) combat rules engine.

The engine is pure Python plus numpy; it imports neither gymnasium nor torch.
``VTM_SIM_COMPILE=1 pip install .`` builds its hot modules with mypyc instead
(see ``build_hooks.py``); :func:`compiled_modules` tells which build is loaded.
:func:`load_state` starts a battle from a state file (``docs/states.md``);
it is imported on first use, so ``import vtm_sim`` stays light.
"""

from __future__ import annotations

import sys
from importlib.machinery import EXTENSION_SUFFIXES
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from vtm_sim.standing import load_state

__version__ = "0.1.0"
__all__ = ["compiled_modules", "load_state"]


def __getattr__(name: str) -> Any:
    """Lazy exports: ``from vtm_sim import load_state`` imports the engine only then."""
    if name == "load_state":
        from vtm_sim.standing import load_state

        return load_state
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def compiled_modules() -> list[str]:
    """The project's modules loaded so far from compiled extensions (empty: pure Python)."""
    suffixes = tuple(EXTENSION_SUFFIXES)
    return sorted(
        name for name, module in list(sys.modules.items())
        if name.partition(".")[0] in ("vtm_sim", "envs", "agents")
        and (getattr(module, "__file__", None) or "").endswith(suffixes)
    )
