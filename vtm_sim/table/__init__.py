"""The table: a fight that persists, run live by a Storyteller (issue 33).

A *table* (an encounter) is a battle whose every decision and every die is appended
to an SQLite database, one transaction per step, so it survives a closed terminal, a
``kill -9`` or a reload of the page, and can be undone, forked and exported. The
operations live once here, in :class:`~vtm_sim.table.service.TableService`, below
the command line (``vtm-sim table``), the web page and the MCP server; those front
ends hold no rule: every method takes and returns plain JSON-able data.

- :mod:`vtm_sim.table.service`: :class:`TableService`, every operation;
- :mod:`vtm_sim.table.dice`: :class:`TableDice`, faces entered for a step's rolls,
  else the encounter's seeded dice, and what each roll drew;
- :mod:`vtm_sim.table.store`: the SQLite database (WAL, one transaction per step);
- :mod:`vtm_sim.table.errors`: the errors a request can get (one line each).
"""

from __future__ import annotations

from vtm_sim.table.errors import (
    FacesNeeded,
    TableError,
    TableExists,
    UnknownTable,
    VersionConflict,
)
from vtm_sim.table.service import TableService, default_db

__all__ = [
    "FacesNeeded",
    "TableError",
    "TableExists",
    "TableService",
    "UnknownTable",
    "VersionConflict",
    "default_db",
]
