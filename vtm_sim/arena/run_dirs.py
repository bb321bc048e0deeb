"""A tournament's output directory: what it is, its battles as they finish, its results.

- ``tournament.json``: the setup (scenarios, policies, battles, seed) and each
  scenario file's sha256, written when the run starts; ``--resume`` refuses
  a directory started with other arguments.
- ``battles.jsonl``: one record per finished battle, appended a chunk at a
  time with a single ``write`` on an ``O_APPEND`` file, so a killed run leaves
  whole lines (at worst an unfinished last line, which a resume drops and
  plays again). A line that is not a battle of this tournament is refused,
  naming the line, and the file is left as it is.
- ``results.json``, ``results.csv`` (and ``heatmap.png``) from the records;
  ``timing.json`` (seconds, battles per second, jobs): the one file that
  depends on the machine.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import ConfigDict, ValidationError

from vtm_sim.arena.tournament import BattleKey, Setup, battle_order, record_key
from vtm_sim.data.config import StrictModel
from vtm_sim.data.formats import RUN_DIR_FORMAT
from vtm_sim.errors import ConfigError
from vtm_sim.files.scenarios import Scenario

MANIFEST = "tournament.json"
BATTLES = "battles.jsonl"
RESULTS = "results.json"
CSV = "results.csv"
HEATMAP = "heatmap.png"
TIMING = "timing.json"
OPTION = {"scenarios": "SCENARIO", "policies": "--policies", "battles": "--battles",
          "seed": "--seed"}


class BattleRecord(StrictModel):
    """One line of battles.jsonl."""

    model_config = ConfigDict(strict=True)  # and StrictModel's

    scenario: str
    index: int
    seed: int
    policies: tuple[str, str]
    seats: dict[str, str]
    winner: int | None
    turns: int
    levels_dealt: dict[str, int]
    log_sha256: str


def scenario_sha256(sc: Scenario) -> str:
    return hashlib.sha256(Path(sc.source).read_bytes()).hexdigest()


def _shown(value: Any) -> str:
    return ",".join(value) if isinstance(value, list) else str(value)


class RunDir:
    """``--out DIR``: start or resume a tournament there, append battles, write results."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.battles = self.path / BATTLES

    def _manifest(self, setup: Setup, scenarios: Sequence[Scenario]) -> dict[str, Any]:
        return {"format": RUN_DIR_FORMAT, "setup": setup.to_json(),
                "scenario_sha256": {sc.name: scenario_sha256(sc) for sc in scenarios}}

    def start(self, setup: Setup, scenarios: Sequence[Scenario], *,
              resume: bool) -> tuple[list[dict[str, Any]], bool]:
        """The records already there (none for a fresh start) and whether an
        unfinished last line was dropped. Refuses a directory that holds
        another tournament or battles it was not asked to resume."""
        manifest = self._manifest(setup, scenarios)
        where = f"--out {self.path}"
        if resume:
            old = self._read_manifest()
            self._same(old, manifest)
            if not self.battles.exists():
                return [], False
            return self.read(setup, scenarios, repair=True)
        if self.battles.exists() and self.battles.stat().st_size > 0:
            raise ConfigError(f"{where}: already holds battles ({BATTLES}); add --resume to "
                              "continue that tournament, or choose another directory")
        try:
            self.path.mkdir(parents=True, exist_ok=True)
            self._write(MANIFEST, json.dumps(manifest, indent=2) + "\n")
            self.battles.write_bytes(b"")
        except OSError as exc:
            raise ConfigError(f"{where}: cannot write ({exc.strerror})") from None
        return [], False

    def _read_manifest(self) -> dict[str, Any]:
        path = self.path / MANIFEST
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ConfigError(f"--resume: {path} not found: {self.path} holds no tournament "
                              "to resume") from None
        except (OSError, ValueError) as exc:
            raise ConfigError(f"--resume: {path}: not a tournament file ({exc})") from None
        if not isinstance(data, dict) or not isinstance(data.get("setup"), dict):
            raise ConfigError(f"--resume: {path}: not a tournament file (no setup)")
        return data

    def _same(self, old: dict[str, Any], new: dict[str, Any]) -> None:
        for key, now in new["setup"].items():
            before = old["setup"].get(key)
            if before != now:
                raise ConfigError(
                    f"--resume: {self.path} was started with {OPTION[key]} {_shown(before)}, "
                    f"not {_shown(now)} (resume with the same arguments, or choose another "
                    "--out directory)")
        for name, sha in new["scenario_sha256"].items():
            if old.get("scenario_sha256", {}).get(name) != sha:
                raise ConfigError(f"--resume: scenario {name} changed since {self.path} was "
                                  "started (choose another --out directory)")

    def read(self, setup: Setup, scenarios: Sequence[Scenario], *,
             repair: bool = False) -> tuple[list[dict[str, Any]], bool]:
        """Every record in battles.jsonl, checked against the tournament.

        With ``repair``, an unfinished last line (no newline: a write cut short)
        is cut off so that appending can go on; any other bad line is a
        ConfigError naming it, and the file is left untouched.
        """
        order = battle_order(setup, scenarios)
        data = self.battles.read_bytes()
        dropped = False
        if data and not data.endswith(b"\n"):
            cut = data.rfind(b"\n") + 1
            tail = data[cut:]
            if self._parse(tail, setup, order) is None:
                if not repair:
                    raise ConfigError(f"{self.battles}: the last line is unfinished")
                with self.battles.open("r+b") as f:
                    f.truncate(cut)
                data, dropped = data[:cut], True
        seen: dict[BattleKey, int] = {}
        records = []
        for n, line in enumerate(data.splitlines(), 1):
            rec = self._parse(line, setup, order)
            if rec is None:
                raise ConfigError(
                    f"{self.battles} line {n}: not a battle record of this tournament (fix or "
                    "delete that line, then --resume again)")
            key = record_key(rec)
            if key in seen:
                raise ConfigError(f"{self.battles} line {n}: repeats the battle of line "
                                  f"{seen[key]} (delete one, then --resume again)")
            seen[key] = n
            records.append(rec)
        return records, dropped

    @staticmethod
    def _parse(line: bytes, setup: Setup, order: dict[BattleKey, int]) -> dict[str, Any] | None:
        try:
            rec = BattleRecord.model_validate_json(line).model_dump()
        except ValidationError:
            return None
        rec["policies"] = list(rec["policies"])
        try:
            key = record_key(rec)
        except (KeyError, ValueError):
            return None
        if key not in order or rec["seed"] != setup.seed + rec["index"]:
            return None
        seats = set(key[2])
        if seats != set(rec["policies"]) or sorted(rec["levels_dealt"]) != sorted(rec["seats"]):
            return None
        return rec

    def append(self, records: Sequence[dict[str, Any]]) -> None:
        """Append finished battles in one write: whole lines even if killed mid-run."""
        text = "".join(json.dumps(r, separators=(",", ":")) + "\n" for r in records)
        fd = os.open(self.battles, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            data = text.encode("utf-8")
            while data:
                data = data[os.write(fd, data):]
        finally:
            os.close(fd)

    def write_results(self, results: dict[str, Any], rows: Sequence[dict[str, Any]],
                      results_text: str) -> None:
        buf = io.StringIO()
        writer = csv.DictWriter(buf, fieldnames=list(rows[0]) if rows else [],
                                lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
        self._write(RESULTS, results_text + "\n")
        self._write(CSV, buf.getvalue())

    def write_timing(self, timing: dict[str, Any]) -> None:
        self._write(TIMING, json.dumps(timing, indent=2) + "\n")

    def _write(self, name: str, text: str) -> None:
        """Write atomically: a file is never left half written."""
        target = self.path / name
        tmp = target.with_name(target.name + ".tmp")
        try:
            tmp.write_text(text, encoding="utf-8")
            os.replace(tmp, target)
        except OSError as exc:
            raise ConfigError(f"--out {self.path}: cannot write {name} ({exc.strerror})") from None
