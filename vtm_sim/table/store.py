"""The table's SQLite database: encounters and their steps (standard library sqlite3).

WAL mode, ``synchronous=NORMAL``: a step is one ``BEGIN IMMEDIATE`` transaction
that checks the version, inserts the step and moves the version on, so a process
killed at any moment leaves every committed step and never a half one (a power cut
may lose the last steps, never the database). Several processes may share a file
(the CLI beside a server): writers wait for each other (``busy_timeout``) and the
version check makes the later of two steps on one version fail.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vtm_sim.data.formats import TABLE_SCHEMA_VERSION
from vtm_sim.table.errors import TableError, TableExists, UnknownTable, VersionConflict

__all__ = ["Encounter", "Step", "Store"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS encounters (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    created REAL NOT NULL,
    updated REAL NOT NULL,
    source TEXT NOT NULL,      -- JSON: how it was started (kind, name, the file's text)
    start TEXT NOT NULL,       -- the machine-written state it starts from (with its log)
    start_hash TEXT NOT NULL,  -- sha256 of that state without its log
    settings TEXT NOT NULL,    -- JSON: players, policies, goals, the dice setting
    version INTEGER NOT NULL DEFAULT 0,
    rev INTEGER NOT NULL DEFAULT 0  -- every change of the steps: an undo and a new step
                                    -- bring the version back, never the revision
);
CREATE TABLE IF NOT EXISTS steps (
    encounter INTEGER NOT NULL REFERENCES encounters(id) ON DELETE CASCADE,
    version INTEGER NOT NULL,  -- the encounter's version after this step: 1, 2, ...
    turn INTEGER NOT NULL,
    actor INTEGER NOT NULL,
    decision TEXT NOT NULL,
    choice TEXT NOT NULL,      -- JSON: the engine's choice
    label TEXT NOT NULL,
    by TEXT NOT NULL,
    entered TEXT NOT NULL,     -- JSON: the faces entered, one list per roll
    rolls TEXT NOT NULL,       -- JSON: what every roll drew
    events TEXT NOT NULL,      -- JSONL: the events the step appended
    state_hash TEXT NOT NULL,  -- sha256 of the state after it, without its log
    at REAL NOT NULL,
    PRIMARY KEY (encounter, version)
) WITHOUT ROWID;
"""


@dataclass(frozen=True, slots=True)
class Encounter:
    id: int
    name: str
    created: float
    updated: float
    source: dict[str, Any]
    start: str
    start_hash: str
    settings: dict[str, Any]
    version: int
    rev: int


@dataclass(frozen=True, slots=True)
class Step:
    version: int
    turn: int
    actor: int
    decision: str
    choice: dict[str, Any]
    label: str
    by: str
    entered: list[list[int]]
    rolls: list[dict[str, Any]]
    events: str
    state_hash: str
    at: float = 0.0

    def row(self, encounter: int) -> tuple[Any, ...]:
        return (encounter, self.version, self.turn, self.actor, self.decision,
                json.dumps(self.choice, separators=(",", ":")), self.label, self.by,
                json.dumps(self.entered, separators=(",", ":")),
                json.dumps(self.rolls, separators=(",", ":")), self.events, self.state_hash,
                self.at or time.time())


_ENC = "id, name, created, updated, source, start, start_hash, settings, version, rev"
_INSERT = ("INSERT INTO steps (encounter, version, turn, actor, decision, choice, label, by, "
           "entered, rolls, events, state_hash, at) VALUES (" + ", ".join("?" * 13) + ")")
_STEP = "version, turn, actor, decision, choice, label, by, entered, rolls, events, state_hash, at"


def _encounter(row: Sequence[Any]) -> Encounter:
    return Encounter(int(row[0]), str(row[1]), float(row[2]), float(row[3]), json.loads(row[4]),
                     str(row[5]), str(row[6]), json.loads(row[7]), int(row[8]), int(row[9]))


def _step(row: Sequence[Any]) -> Step:
    return Step(int(row[0]), int(row[1]), int(row[2]), str(row[3]), json.loads(row[4]),
                str(row[5]), str(row[6]), json.loads(row[7]), json.loads(row[8]), str(row[9]),
                str(row[10]), float(row[11]))


class Store:
    """One database file: its encounters and steps, each change one transaction."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # shared by a service's threads, one call at a time (TableService's lock)
            self.db = sqlite3.connect(self.path, timeout=10.0, isolation_level=None,
                                      check_same_thread=False)
        except (OSError, sqlite3.Error) as exc:
            raise TableError(f"--db {self.path}: cannot open ({exc})") from None
        try:
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
            self.db.execute("PRAGMA foreign_keys=ON")
            self.db.executescript(_SCHEMA)  # idempotent: CREATE ... IF NOT EXISTS
            with self.transaction():
                self.db.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?)",
                                (str(TABLE_SCHEMA_VERSION),))
        except sqlite3.DatabaseError as exc:
            self.db.close()
            raise TableError(f"--db {self.path}: not a table database ({exc})") from None
        found = self.db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
        if found is None or int(found[0]) != TABLE_SCHEMA_VERSION:
            self.db.close()
            raise TableError(f"--db {self.path}: schema {found and found[0]}, this version "
                             f"reads schema {TABLE_SCHEMA_VERSION}")

    def close(self) -> None:
        self.db.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """``BEGIN IMMEDIATE`` ... ``COMMIT`` (``ROLLBACK`` on any error)."""
        db = self.db
        db.execute("BEGIN IMMEDIATE")
        try:
            yield db
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")

    # --- reading ----------------------------------------------------------------------
    def names(self) -> list[str]:
        return [r[0] for r in self.db.execute("SELECT name FROM encounters ORDER BY name")]

    def encounter(self, name: str) -> Encounter:
        row = self.db.execute(f"SELECT {_ENC} FROM encounters WHERE name=?", (name,)).fetchone()
        if row is None:
            raise UnknownTable(self.unknown(name))
        return _encounter(row)

    def unknown(self, name: str) -> str:
        import difflib

        have = self.names()
        close = difflib.get_close_matches(name, have, n=3)
        hint = (f"; did you mean {' or '.join(close)}?" if close else
                f" (the tables: {', '.join(have)})" if have else
                " (no tables yet: start one with `vtm-sim table new`)")
        return f"table {name!r}: no such table in {self.path}{hint}"

    def version(self, encounter: int) -> int:
        row = self.db.execute("SELECT version FROM encounters WHERE id=?",
                              (encounter,)).fetchone()
        return -1 if row is None else int(row[0])

    def steps(self, encounter: int, upto: int | None = None) -> list[Step]:
        rows = self.db.execute(
            f"SELECT {_STEP} FROM steps WHERE encounter=? AND version<=? ORDER BY version",
            (encounter, 1 << 62 if upto is None else upto))
        return [_step(r) for r in rows]

    # --- changing ---------------------------------------------------------------------
    def create(self, name: str, source: dict[str, Any], start: str, start_hash: str,
               settings: dict[str, Any], steps: Sequence[Step] = ()) -> None:
        now = time.time()
        with self.transaction() as db:
            if db.execute("SELECT 1 FROM encounters WHERE name=?", (name,)).fetchone():
                raise TableExists(f"table {name!r}: already in {self.path} (pick another "
                                  "name, or `vtm-sim table delete` it first)")
            cur = db.execute(
                "INSERT INTO encounters (name, created, updated, source, start, start_hash, "
                "settings, version) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (name, now, now, json.dumps(source), start, start_hash, json.dumps(settings),
                 len(steps)))
            eid = int(cur.lastrowid or 0)
            db.executemany(_INSERT, [s.row(eid) for s in steps])

    def append(self, encounter: int, name: str, expected: int, rev: int, step: Step) -> int:
        """Add ``step`` (version ``expected + 1``) if the encounter is still at ``expected``
        and revision ``rev``; returns the new revision."""
        with self.transaction() as db:
            now = self._at(db, encounter, name, expected, rev)
            db.execute(_INSERT, step.row(encounter))
            db.execute("UPDATE encounters SET version=?, updated=?, rev=? WHERE id=?",
                       (step.version, now, rev + 1, encounter))
        return rev + 1

    def truncate(self, encounter: int, name: str, expected: int, rev: int, to: int) -> None:
        """Drop the steps after version ``to`` if the encounter is still at ``expected``
        and revision ``rev``."""
        with self.transaction() as db:
            now = self._at(db, encounter, name, expected, rev)
            db.execute("DELETE FROM steps WHERE encounter=? AND version>?", (encounter, to))
            db.execute("UPDATE encounters SET version=?, updated=?, rev=? WHERE id=?",
                       (to, now, rev + 1, encounter))

    def settings(self, encounter: int, settings: dict[str, Any]) -> None:
        with self.transaction() as db:
            db.execute("UPDATE encounters SET settings=?, updated=? WHERE id=?",
                       (json.dumps(settings), time.time(), encounter))

    def delete(self, name: str) -> None:
        with self.transaction() as db:
            if db.execute("DELETE FROM encounters WHERE name=?", (name,)).rowcount == 0:
                raise UnknownTable(self.unknown(name))

    def _at(self, db: sqlite3.Connection, encounter: int, name: str, expected: int,
            rev: int) -> float:
        row = db.execute("SELECT version, rev FROM encounters WHERE id=?",
                         (encounter,)).fetchone()
        if row is None:
            raise UnknownTable(f"table {name!r}: deleted meanwhile")
        if int(row[0]) != expected or int(row[1]) != rev:
            raise VersionConflict(
                f"table {name!r}: version {expected} is stale, the table is at version "
                f"{row[0]} (someone else moved it on: look again)", int(row[0]))
        return time.time()
