"""Regression battles: a committed suite of seeded battles and their golden results.

A suite is a folder (``tests/golden/`` in the repository, docs/regress.md):

- ``suite.yaml``: what to play: the scenarios (``all``: every shipped one), the
  rules profiles, which policy (on every seat) plays which seeds, the one battle
  per scenario whose whole log is kept, and the balance match-ups
  (:mod:`vtm_sim.regress.balance`);
- ``battles.jsonl``: one line per battle, like a perft table: its id, the event
  log's SHA-256 and length, and a short summary (winner, turns, survivors'
  health);
- ``logs/<scenario>.jsonl``: the whole event log of the kept battles;
- ``balance.json``: the balance baselines.

:func:`run_suite` plays the suite, :func:`compare` sets the results against the
goldens (the first differing event of a kept log in plain words,
:mod:`vtm_sim.regress.eventdiff`) and :func:`write_goldens` rewrites them.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np
from pydantic import Field

from vtm_sim.data.config import StrictModel, load_yaml, validate
from vtm_sim.data.rules import PROFILES, RuleSet, load_rules
from vtm_sim.engine.battle import Battle
from vtm_sim.errors import ConfigError
from vtm_sim.events import Event, EventLog
from vtm_sim.files.scenarios import Scenario, list_scenarios, load_scenario, rules_conflict
from vtm_sim.policies import registry
from vtm_sim.policies.play import play
from vtm_sim.regress.eventdiff import Difference, first_difference, side_by_side
from vtm_sim.text.dicewords import plural

SUITE_FILE = "suite.yaml"
BATTLES_FILE = "battles.jsonl"
LOGS_DIR = "logs"
UPDATE_HINT = "vtm-sim regress --update"


class KeptLog(StrictModel):
    """The battle of each scenario (under its own rules) whose whole log is kept."""

    policy: str = "nearest"
    seed: int = Field(default=0, ge=0)


class MatchupSpec(StrictModel):
    """A balance match-up: ``a`` on ``side`` (default the first), ``b`` on the others."""

    scenario: str
    a: str
    b: str
    side: int | None = None
    battles: int = Field(ge=10, le=100_000)
    seed: int = Field(default=0, ge=0)


class BalanceSpec(StrictModel):
    # the chance that an unchanged balance fails the tier, over all match-ups together
    false_alarm: float = Field(default=0.01, gt=0, lt=0.5)
    matchups: list[MatchupSpec] = Field(default_factory=list)


class SuiteSpec(StrictModel):
    scenarios: Literal["all"] | list[str] = "all"
    rules: list[str] = Field(default_factory=lambda: list(PROFILES), min_length=1)
    battles: dict[str, list[int]] = Field(min_length=1)  # policy (every seat) -> seeds
    keep_log: KeptLog = KeptLog()
    balance: BalanceSpec = BalanceSpec()


@dataclass(frozen=True, slots=True)
class Case:
    """One seeded battle of the suite."""

    scenario: str
    rules: str
    policy: str
    seed: int
    keep_log: bool

    @property
    def id(self) -> str:
        return f"{self.scenario}/{self.rules}/{self.policy}/{self.seed}"

    @property
    def log_file(self) -> str:
        return f"{LOGS_DIR}/{self.scenario}.jsonl"


@dataclass(frozen=True, slots=True)
class Outcome:
    """A battle's golden line: the log's hash and a short summary."""

    id: str
    events: int
    sha256: str
    winner: str
    turns: int
    survivors: tuple[str, ...]
    log: str | None = None  # the kept log's file, relative to the suite

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": self.id, "events": self.events, "sha256": self.sha256,
            "winner": self.winner, "turns": self.turns, "survivors": list(self.survivors),
        }
        if self.log is not None:
            data["log"] = self.log
        return data

    @classmethod
    def from_json(cls, data: Any) -> Outcome:
        if not isinstance(data, dict):
            raise TypeError("expected an object")
        extra = set(data) - {f.name for f in dataclasses.fields(cls)}
        if extra:
            raise ValueError(f"unexpected key {sorted(extra)[0]!r}")
        try:
            out = cls(str(data["id"]), int(data["events"]), str(data["sha256"]),
                      str(data["winner"]), int(data["turns"]),
                      tuple(str(s) for s in data["survivors"]),
                      None if data.get("log") is None else str(data["log"]))
        except KeyError as exc:
            raise ValueError(f"missing key {exc}") from None
        return out

    def summary(self) -> str:
        alive = ", ".join(self.survivors) or "nobody"
        return f"winner {self.winner}, {plural(self.turns, 'turn')}, standing: {alive}"


@dataclass(slots=True)
class Played:
    """A battle of the suite as played now."""

    case: Case
    outcome: Outcome
    log: EventLog


@dataclass(frozen=True, slots=True)
class Change:
    """A battle whose result is not its golden's (or has none, or is no longer played)."""

    id: str
    kind: Literal["changed", "new", "removed"]
    old: Outcome | None
    new: Outcome | None
    diff: Difference | None = None  # the first differing event, when the log is kept

    def lines(self, left: str = "golden", right: str = "now") -> list[str]:
        if self.kind == "new":
            return [f"{self.id}: new battle, no golden yet ({UPDATE_HINT})"]
        if self.kind == "removed":
            return [f"{self.id}: in the goldens but no longer played"]
        assert self.old is not None and self.new is not None
        if self.old.sha256 == self.new.sha256 and self.old.summary() == self.new.summary():
            return [f"{self.id}: same log; its whole log kept: {self.old.log or 'no'} -> "
                    f"{self.new.log or 'no'}"]
        out = [f"{self.id}: the log differs (sha256 {self.old.sha256[:12]} -> "
               f"{self.new.sha256[:12]}, {self.old.events} -> {self.new.events} events)"]
        if self.old.summary() != self.new.summary():
            out.append(f"  {left}: {self.old.summary()}")
            out.append(f"  {right}: {self.new.summary()}")
        if self.diff is not None:
            out.append(f"  first differing event (event {self.diff.index + 1}):")
            out.extend("  " + line for line in side_by_side(self.diff, left, right))
        return out


@dataclass(slots=True)
class SuiteRun:
    """Every battle of a suite, played, and the scenario/profile pairs not playable."""

    played: list[Played] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)


def load_suite(folder: Path) -> SuiteSpec:
    """The suite definition (``suite.yaml``); a missing or bad file is a ConfigError."""
    if not folder.is_dir():
        raise ConfigError(f"--suite: {folder}: no such folder")
    spec = validate(SuiteSpec, load_yaml(folder / SUITE_FILE), folder / SUITE_FILE)
    for policy in [*spec.battles, spec.keep_log.policy]:
        if policy not in registry.names():
            raise ConfigError(f"{folder / SUITE_FILE}: battles: policy {policy!r} is unknown "
                              f"(expected one of {', '.join(registry.names())})")
    return spec


def scenario_names(spec: SuiteSpec) -> list[str]:
    return list_scenarios() if spec.scenarios == "all" else list(spec.scenarios)


def cases(spec: SuiteSpec, scenario: Scenario, rules: RuleSet) -> list[Case]:
    """The suite's battles of ``scenario`` under ``rules``; the kept one is marked (it
    is played under the scenario's own rules)."""
    own = rules.name == scenario.rules.name
    out = []
    for policy, seeds in spec.battles.items():
        for seed in seeds:
            keep = own and (policy, seed) == (spec.keep_log.policy, spec.keep_log.seed)
            out.append(Case(scenario.name, rules.name, policy, seed, keep))
    return out


def play_case(scenario: Scenario, case: Case) -> Played:
    """One battle: ``case.policy`` on every seat, dice and policies seeded by ``case.seed``."""
    rng = np.random.default_rng([case.seed, 7])  # the policies' generator, as in tournaments
    maker = registry.maker(case.policy, scenario)
    battle = play(scenario.battle(seed=case.seed),
                  [maker(rng, i) for i in range(len(scenario.fighters))])
    return Played(case, outcome_of(case, scenario, battle), battle.log)


def outcome_of(case: Case, scenario: Scenario, battle: Battle) -> Outcome:
    winner = "draw" if battle.winner is None else scenario.side_name(battle.winner)
    names = [c.name for c in battle.combatants]
    survivors = tuple(
        f"{names[i]}{f' {names[: i + 1].count(n)}' if names.count(n) > 1 else ''} "
        f"{c.health.marks()} {c.health.level_name}"
        for i, (c, n) in enumerate(zip(battle.combatants, names, strict=True))
        if battle.able(c)
    )
    return Outcome(case.id, len(battle.log), battle.log.sha256(), winner, battle.turn,
                   survivors, case.log_file if case.keep_log else None)


def run_suite(spec: SuiteSpec, progress: Callable[[int], None] | None = None) -> SuiteRun:
    """Play every battle: each scenario under each profile that allows its weapons."""
    run = SuiteRun()
    for name in scenario_names(spec):
        base = load_scenario(name)
        for profile in spec.rules:
            rules = load_rules(profile)
            conflict = rules_conflict(base, rules)
            if conflict is not None:
                run.skipped.append(f"{name}/{profile}: {conflict}")
                continue
            scenario = dataclasses.replace(base, rules=rules)
            for case in cases(spec, base, rules):
                run.played.append(play_case(scenario, case))
                if progress is not None:
                    progress(1)
    return run


def count_cases(spec: SuiteSpec) -> int:
    """How many battles :func:`run_suite` plays (for a progress bar)."""
    per = sum(len(s) for s in spec.battles.values())
    total = 0
    for name in scenario_names(spec):
        base = load_scenario(name)
        total += per * sum(rules_conflict(base, load_rules(p)) is None for p in spec.rules)
    return total


# --- the golden files -----------------------------------------------------------------


def read_goldens(folder: Path) -> dict[str, Outcome]:
    """``battles.jsonl`` by battle id; a bad line is a ConfigError naming it."""
    path = folder / BATTLES_FILE
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{path}: file not found (make the goldens with {UPDATE_HINT})"
                          ) from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read ({exc.strerror})") from None
    out: dict[str, Outcome] = {}
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            outcome = Outcome.from_json(json.loads(line))
        except json.JSONDecodeError as exc:
            raise ConfigError(f"{path}: line {n}: not JSON ({exc.msg})") from None
        except (TypeError, ValueError) as exc:
            raise ConfigError(f"{path}: line {n}: {exc}") from None
        out[outcome.id] = outcome
    return out


def read_kept_log(folder: Path, outcome: Outcome) -> list[Event]:
    """A kept golden log; a missing or bad file is a ConfigError naming it."""
    assert outcome.log is not None
    path = folder / outcome.log
    if not path.is_file():
        raise ConfigError(f"{path}: file not found (kept log of {outcome.id})")
    try:
        return list(EventLog.read(path))
    except ValueError as exc:
        raise ConfigError(str(exc)) from None


def compare(folder: Path, run: SuiteRun, goldens: dict[str, Outcome], *,
            strict: bool = True) -> list[Change]:
    """Every battle whose result is not its golden's, in suite order.

    A kept log that cannot be read is a ConfigError, or (``strict=False``, when the
    goldens are about to be rewritten) a change without its first differing event.
    """
    changes: list[Change] = []
    seen = set()
    for p in run.played:
        seen.add(p.outcome.id)
        old = goldens.get(p.outcome.id)
        if old is None:
            changes.append(Change(p.outcome.id, "new", None, p.outcome))
        elif old != p.outcome:
            diff = None
            if old.log is not None:
                try:
                    diff = first_difference(read_kept_log(folder, old), list(p.log))
                except ConfigError:
                    if strict:
                        raise
            changes.append(Change(p.outcome.id, "changed", old, p.outcome, diff))
    changes.extend(Change(i, "removed", o, None) for i, o in goldens.items() if i not in seen)
    return changes


def write_goldens(folder: Path, run: SuiteRun) -> None:
    """Rewrite ``battles.jsonl`` and the kept logs (old kept logs are removed)."""
    logs = folder / LOGS_DIR
    logs.mkdir(parents=True, exist_ok=True)
    for old in logs.glob("*.jsonl"):
        old.unlink()
    lines = []
    for p in run.played:
        lines.append(json.dumps(p.outcome.to_json(), ensure_ascii=False) + "\n")
        if p.outcome.log is not None:
            p.log.write(folder / p.outcome.log)
    (folder / BATTLES_FILE).write_text("".join(lines), encoding="utf-8")

