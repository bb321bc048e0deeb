"""vtm_sim: the Vampire: The Masquerade (V20) combat rules engine.

The engine is pure Python plus numpy; it imports neither gymnasium nor torch.
``VTM_SIM_COMPILE=1 pip install .`` builds its hot modules with mypyc instead
(see ``build_hooks.py``); :func:`compiled_modules` tells which build is loaded.
"""

from __future__ import annotations

import sys
from importlib.machinery import EXTENSION_SUFFIXES

__version__ = "0.1.0"


def compiled_modules() -> list[str]:
    """The project's modules loaded so far from compiled extensions (empty: pure Python)."""
    suffixes = tuple(EXTENSION_SUFFIXES)
    return sorted(
        name for name, module in list(sys.modules.items())
        if name.partition(".")[0] in ("vtm_sim", "envs", "agents")
        and (getattr(module, "__file__", None) or "").endswith(suffixes)
    )
