"""The table's front ends beyond the terminal (issue 33): a web app (:mod:`.app`, the
page drawn by :mod:`.page`) and an MCP server for AI assistants (:mod:`.assistant`).

Neither holds a rule: every operation is a call of
:class:`vtm_sim.table.service.TableService`. Both need the optional ``web`` extra
(``pip install 'vtm-sim[web]'``): :func:`require` says so in one line.
"""

from __future__ import annotations

import importlib.util

from vtm_sim.errors import ConfigError

EXTRA = "pip install 'vtm-sim[web]'"


def require(*modules: str) -> None:
    """Raise a one-line :class:`ConfigError` naming the extra when a module is missing."""
    missing = [m for m in modules if importlib.util.find_spec(m) is None]
    if missing:
        raise ConfigError(f"{', '.join(missing)} not installed: {EXTRA}")
