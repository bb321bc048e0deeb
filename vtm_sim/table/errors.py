"""What a table request can get wrong: each one line, bad input (a ``ConfigError``).

The CLI prints it on stderr and exits with status 2; a web front end answers 4xx (409
for :class:`VersionConflict`, 404 for :class:`UnknownTable`, 400 otherwise); an MCP
tool returns it as the tool's error.
"""

from __future__ import annotations

from typing import Any

from vtm_sim.errors import ConfigError, ReplayError


class TableError(ConfigError):
    """A request the table cannot carry out: an unknown option, faces that do not fit."""


class UnknownTable(TableError):
    """No encounter of that name in the database."""


class TableExists(TableError):
    """``new`` or ``fork`` with a name already taken."""


class VersionConflict(TableError):
    """A step made on a stale version: someone else moved the encounter on.

    Attributes:
        current: the encounter's version now (the number of steps).
    """

    def __init__(self, message: str, current: int) -> None:
        super().__init__(message)
        self.current = current


class FacesNeeded(TableError):
    """A roll of the step must be entered (the table's dice setting) and was not.

    Attributes:
        roll: the roll asked for, as JSON: ``index`` (its place among the entered rolls:
            the faces given so far are for the rolls before it), ``roll`` (its place
            among all the step's rolls, 0 first), ``who`` (a name), ``what``
            (``attack``, ``soak``, ``initiative``...) and ``dice`` (how many faces).
    """

    def __init__(self, message: str, roll: dict[str, Any]) -> None:
        super().__init__(message)
        self.roll = roll


class TableCorrupt(ReplayError):
    """The stored log does not replay to the stored state (a bug or a damaged file)."""
