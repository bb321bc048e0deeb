"""Which vtm-sim this is: the version (from the package metadata) and the build."""

from __future__ import annotations

import sys
from importlib import metadata
from importlib.machinery import EXTENSION_SUFFIXES

__all__ = ["__version__", "compiled_modules"]

try:
    __version__: str = metadata.version("vtm-sim")
except metadata.PackageNotFoundError:  # a source tree on sys.path, never installed
    __version__ = "0+unknown"


def compiled_modules() -> list[str]:
    """The project's modules loaded so far from compiled extensions (empty: pure Python)."""
    suffixes = tuple(EXTENSION_SUFFIXES)
    return sorted(
        name for name, module in list(sys.modules.items())
        if name.partition(".")[0] in ("vtm_sim", "envs", "agents")
        and (getattr(module, "__file__", None) or "").endswith(suffixes)
    )
