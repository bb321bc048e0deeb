"""The balance tier of the regression suite: win rates of fixed match-ups.

Every log may change (a new rule, another order of dice) while the balance
stays; a change that shifts who wins is caught here. Each match-up of the
suite (``balance.matchups`` in ``suite.yaml``: policy ``a`` on one side,
``b`` on the others, a few hundred seeded battles) is played, and its win rate
for ``a`` is set against the committed baseline (``balance.json``) by Fisher's
exact test (scipy) of the two samples. The suite's ``false_alarm`` is the
chance that an unchanged balance fails the tier: each of the M match-ups is
tested at ``false_alarm / M`` (Bonferroni), so the whole tier fails a fair
change at most that often. Fisher's test is conservative (its real size is
below its level) and the battles of both runs share their seeds, which makes
the two samples alike and the test more conservative still.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vtm_sim.arena.intervals import wilson
from vtm_sim.arena.outcomes import Outcomes
from vtm_sim.arena.tournament import seeded_battle
from vtm_sim.errors import ConfigError
from vtm_sim.files.scenarios import load_scenario
from vtm_sim.policies import registry
from vtm_sim.regress.suite import UPDATE_HINT, MatchupSpec, SuiteSpec

BALANCE_FILE = "balance.json"
CONFIDENCE = 0.95  # of the intervals reported beside each rate


def matchup_id(m: MatchupSpec) -> str:
    side = "" if m.side is None else f" on side {m.side}"
    return f"{m.scenario}: {m.a}{side} vs {m.b}"


def _definition(m: MatchupSpec) -> dict[str, Any]:
    return m.model_dump()


@dataclass(frozen=True, slots=True)
class Tally(Outcomes):
    """Battles of a match-up from policy ``a``'s seat."""

    wins: int
    draws: int
    losses: int

    @property
    def win_rate(self) -> float:
        return self.rate(self.wins)

    def interval(self) -> tuple[float, float]:
        """The Wilson interval of the win rate (:func:`vtm_sim.arena.intervals.wilson`)."""
        return wilson(self.wins, self.games, CONFIDENCE)

    def text(self) -> str:
        lo, hi = self.interval()
        return (f"{self.win_rate:.3f} [{lo:.3f}, {hi:.3f}] ({self.wins} wins, "
                f"{self.draws} draws, {self.losses} losses of {self.games})")

    def to_json(self) -> dict[str, Any]:
        lo, hi = self.interval()
        return {"wins": self.wins, "draws": self.draws, "losses": self.losses,
                "battles": self.games, "rate": round(self.win_rate, 6),
                "ci95": [round(lo, 6), round(hi, 6)]}


def play_matchup(m: MatchupSpec, progress: Callable[[int], None] | None = None) -> Tally:
    """``m.battles`` battles, seeds ``m.seed`` on; ``a`` on its side, ``b`` on the others."""
    scenario = load_scenario(m.scenario)
    sides = sorted({f.side for f in scenario.fighters})
    a_side = sides[0] if m.side is None else m.side
    if a_side not in sides:
        raise ConfigError(f"balance: {matchup_id(m)}: {scenario.name} has no side {a_side} "
                          f"(sides {sides})")
    makers = {}
    for name in (m.a, m.b):
        try:
            makers[name] = registry.maker(name, scenario)
        except ConfigError as exc:
            raise ConfigError(f"balance: {matchup_id(m)}: {exc}") from None
    by_side = {s: makers[m.a if s == a_side else m.b] for s in sides}
    wins = draws = losses = 0
    for k in range(m.battles):
        battle = seeded_battle(scenario, by_side, m.seed + k)
        if battle.winner is None:
            draws += 1
        elif battle.winner == a_side:
            wins += 1
        else:
            losses += 1
        if progress is not None:
            progress(1)
    return Tally(wins, draws, losses)


@dataclass(frozen=True, slots=True)
class Check:
    """One match-up's rate now against its baseline."""

    id: str
    old: Tally | None  # None: no baseline for this match-up yet
    new: Tally
    p_value: float
    alpha: float  # the level this match-up is tested at

    @property
    def ok(self) -> bool:
        return self.old is not None and self.p_value >= self.alpha

    def lines(self, left: str = "baseline", right: str = "now") -> list[str]:
        if self.old is None:
            return [f"{self.id}: no baseline yet ({UPDATE_HINT}); now {self.new.text()}"]
        verdict = "ok" if self.ok else "BALANCE SHIFTED"
        return [f"{self.id}: {verdict} (Fisher's exact test p = {self.p_value:.3g}, "
                f"fails below {self.alpha:.3g})",
                f"  {left}: win rate {self.old.text()}",
                f"  {right}: win rate {self.new.text()}"]

    def update_lines(self) -> list[str]:
        """What ``--update`` changes in this match-up's baseline."""
        if self.old is None:
            return [f"{self.id}: new baseline, win rate {self.new.text()}"]
        if self.old == self.new:
            return [f"{self.id}: unchanged, win rate {self.new.text()}"]
        verdict = "a shift the check flags" if not self.ok else "within chance"
        return [f"{self.id}: baseline changed ({verdict}: Fisher's exact test "
                f"p = {self.p_value:.3g}, level {self.alpha:.3g})",
                f"  before: win rate {self.old.text()}",
                f"  after: win rate {self.new.text()}"]

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "ok": self.ok, "p_value": self.p_value, "alpha": self.alpha,
                "old": None if self.old is None else self.old.to_json(),
                "new": self.new.to_json()}


def p_value(old: Tally, new: Tally) -> float:
    """Two-sided Fisher's exact test: same win rate in both samples?"""
    from scipy.stats import fisher_exact

    table = [[old.wins, old.games - old.wins], [new.wins, new.games - new.wins]]
    return float(fisher_exact(table).pvalue)


def level(spec: SuiteSpec) -> float:
    """Each match-up's level: the false-alarm rate shared out (Bonferroni)."""
    return spec.balance.false_alarm / max(1, len(spec.balance.matchups))


def check(spec: SuiteSpec, baselines: dict[str, Tally],
          tallies: Sequence[tuple[MatchupSpec, Tally]]) -> list[Check]:
    alpha = level(spec)
    out = []
    for m, new in tallies:
        key = json.dumps(_definition(m), sort_keys=True)
        old = baselines.get(key)
        p = 1.0 if old is None else p_value(old, new)
        out.append(Check(matchup_id(m), old, new, p, alpha))
    return out


def read_baselines(folder: Path) -> dict[str, Tally]:
    """``balance.json``: each match-up's definition (as JSON) -> its baseline tally."""
    path = folder / BALANCE_FILE
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        out = {}
        for n, item in enumerate(data["matchups"]):
            try:
                key = json.dumps(item["matchup"], sort_keys=True)
                out[key] = Tally(int(item["wins"]), int(item["draws"]), int(item["losses"]))
            except (KeyError, TypeError, ValueError) as exc:
                raise ConfigError(f"{path}: matchups.{n}: expected matchup, wins, draws and "
                                  f"losses ({exc})") from None
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{path}: not JSON ({exc.msg} at line {exc.lineno})") from None
    except (KeyError, TypeError) as exc:
        raise ConfigError(f"{path}: expected an object with 'matchups' ({exc})") from None
    return out


def write_baselines(folder: Path, spec: SuiteSpec,
                    tallies: Sequence[tuple[MatchupSpec, Tally]]) -> None:
    data = {
        "false_alarm": spec.balance.false_alarm,
        "matchups": [
            {"id": matchup_id(m), "matchup": _definition(m), "wins": t.wins, "draws": t.draws,
             "losses": t.losses}
            for m, t in tallies
        ],
    }
    (folder / BALANCE_FILE).write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
