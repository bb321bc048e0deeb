"""A tournament's results from its battle records: tallies per pairing and seat,
95% intervals (scipy), ratings (openskill) and the printed table.

Everything here is a function of the records and the setup alone, summed in
the battles' canonical order, so an interrupted and resumed run, or a run on
any number of workers, gives the same results byte for byte. scipy and
openskill are imported when results are computed, not at startup.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vtm_sim.arena.intervals import wilson
from vtm_sim.arena.outcomes import Outcomes
from vtm_sim.arena.tournament import Setup, battle_order, pairings, record_key, sides
from vtm_sim.data.config import config_dir
from vtm_sim.data.formats import RESULTS_FORMAT
from vtm_sim.files.scenarios import Scenario

DIGITS = 6  # floats in results.json: enough for any table, stable to read
RATING_MODEL = "openskill PlackettLuce"


def interval(k: int, n: int) -> tuple[float, float]:
    """Wilson score 95% interval for ``k`` out of ``n`` (:func:`vtm_sim.arena.intervals.wilson`)."""
    return wilson(k, n)


def _r(x: float) -> float:
    return round(x, DIGITS)


@dataclass(slots=True)
class Tally(Outcomes):
    """Games from one policy's point of view."""

    wins: int = 0
    draws: int = 0
    losses: int = 0
    turns: int = 0
    dealt: int = 0  # health levels its side dealt
    taken: int = 0  # health levels its side took

    def add(self, outcome: int, turns: int, dealt: int, taken: int) -> None:
        if outcome > 0:
            self.wins += 1
        elif outcome < 0:
            self.losses += 1
        else:
            self.draws += 1
        self.turns += turns
        self.dealt += dealt
        self.taken += taken

    def to_json(self) -> dict[str, Any]:
        n = self.games
        out: dict[str, Any] = {"games": n, "wins": self.wins, "draws": self.draws,
                               "losses": self.losses}
        for key, k in (("win", self.wins), ("draw", self.draws), ("loss", self.losses)):
            lo, hi = interval(k, n)
            out[f"{key}_rate"] = _r(self.rate(k))
            out[f"{key}_ci95"] = [_r(lo), _r(hi)]
        out["score"] = _r(self.score)
        out["mean_turns"] = _r(self.turns / n if n else 0.0)
        out["mean_levels_dealt"] = _r(self.dealt / n if n else 0.0)
        out["mean_levels_taken"] = _r(self.taken / n if n else 0.0)
        return out


def _view(record: dict[str, Any], side: int) -> tuple[int, int, int, int]:
    """(outcome, turns, levels dealt, levels taken) for whoever played ``side``."""
    winner = record["winner"]
    outcome = 0 if winner is None else (1 if winner == side else -1)
    dealt = record["levels_dealt"]
    mine = dealt[str(side)]
    return outcome, record["turns"], mine, sum(dealt.values()) - mine


def ratings(records: Sequence[dict[str, Any]], policies: Sequence[str]) -> dict[str, Any]:
    """openskill ratings over every battle between different policies, in order.

    Each side is one player (its policy); a draw ranks both equal. Mirror
    battles (a policy against itself) tell nothing about strength: left out.
    """
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    current = {p: model.rating(name=p) for p in policies}
    rated = 0
    for rec in records:
        seats = rec["seats"]
        order = sorted(seats, key=int)
        players = [seats[s] for s in order]
        if players[0] == players[1]:
            continue
        winner = rec["winner"]
        ranks: list[float] = [0.0 if winner is None or int(s) == winner else 1.0 for s in order]
        new = model.rate([[current[p]] for p in players], ranks=ranks)
        for p, team in zip(players, new, strict=True):
            current[p] = team[0]
        rated += 1
    return {
        "model": RATING_MODEL, "battles": rated,
        "policies": {p: {"mu": _r(r.mu), "sigma": _r(r.sigma), "ordinal": _r(r.ordinal())}
                     for p, r in current.items()},
    }


Cells = dict[tuple[str, str, str, int], Tally]  # (scenario, policy, opponent, side)


def _cells(records: Sequence[dict[str, Any]]) -> Cells:
    """Every battle from each side's point of view."""
    cells: Cells = {}
    for rec in records:
        seats = rec["seats"]
        for s_key, policy in seats.items():
            opponent = next(p for k, p in seats.items() if k != s_key)
            side = int(s_key)
            cells.setdefault((rec["scenario"], policy, opponent, side), Tally()).add(
                *_view(rec, side))
    return cells


def _sum(tallies: Sequence[Tally]) -> Tally:
    out = Tally()
    for t in tallies:
        out.wins += t.wins
        out.draws += t.draws
        out.losses += t.losses
        out.turns += t.turns
        out.dealt += t.dealt
        out.taken += t.taken
    return out


def summarize(setup: Setup, scenarios: Sequence[Scenario],
              records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """results.json: the setup, per-policy standings with seats, pairings with seats,
    ratings. A policy's standing counts its battles against the others (against
    itself when it is alone); mirror pairings show what each seat is worth."""
    order = battle_order(setup, scenarios)
    recs = sorted(records, key=lambda r: order[record_key(r)])
    cells = _cells(recs)
    alone = len(setup.policies) == 1
    rating = ratings(recs, setup.policies)
    all_sides = sorted({s for sc in scenarios for s in sides(sc)})
    table = []
    for p in setup.policies:
        seat_rows = []
        for s in all_sides:
            mine = [t for (_, pol, opp, side), t in cells.items()
                    if pol == p and side == s and (opp != p or alone)]
            seat_rows.append((s, _sum(mine)))
        row = {"policy": p, **_sum([t for _, t in seat_rows]).to_json(),
               "seats": [{"side": s, **t.to_json()} for s, t in seat_rows],
               **rating["policies"][p]}
        table.append(row)
    table.sort(key=lambda r: (-r["ordinal"], -r["score"], r["policy"]))
    pairs = []
    for sc in scenarios:
        side_list = sides(sc)
        for a, b in pairings(setup.policies):
            seat_tallies = [cells.get((sc.name, a, b, s), Tally()) for s in side_list]
            # a mirror's battles are the same from either seat: count them once
            pooled = seat_tallies[0] if a == b else _sum(seat_tallies)
            pairs.append({
                "scenario": sc.name, "policies": [a, b], **pooled.to_json(),
                "seats": [{"side": s, "policy": a, "opponent": b, **t.to_json()}
                          for s, t in zip(side_list, seat_tallies, strict=True)],
            })
    return {
        "format": RESULTS_FORMAT,
        **setup.to_json(),
        "scenarios": [_scenario_json(sc) for sc in scenarios],
        "games": len(recs),
        "table": table,
        "pairings": pairs,
        "ratings": rating["policies"],
        "rating_model": {"name": rating["model"], "battles": rating["battles"],
                         "ordinal": "mu - 3 sigma",
                         "order": "battles between different policies by index, pairing, seat"},
        "intervals": "Wilson score 95% (scipy.stats.binomtest)",
    }


def _scenario_json(sc: Scenario) -> dict[str, Any]:
    return {"name": sc.name, "title": sc.title, "file": portable_path(sc.source),
            "rules": sc.rules.name, "sides": {str(s): sc.side_name(s) for s in sides(sc)}}


def portable_path(source: str) -> str:
    """A scenario file as results name it on any machine: a shipped one as
    ``configs/...``, one under the working folder relative to it, else as given."""
    path = Path(source)
    for root, prefix in ((config_dir(), "configs/"), (Path.cwd(), "")):
        try:
            return prefix + path.resolve().relative_to(root.resolve()).as_posix()
        except ValueError:
            continue
    return source


CSV_FIELDS = ("scenario", "policy", "opponent", "side", "games", "wins", "draws", "losses",
              "win_rate", "win_lo", "win_hi", "draw_rate", "loss_rate", "score",
              "mean_turns", "mean_levels_dealt", "mean_levels_taken")


def csv_rows(setup: Setup, scenarios: Sequence[Scenario],
             records: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """results.csv: one row per scenario, policy, opponent and the side it played."""
    cells = _cells(records)
    rows = []
    for sc in scenarios:
        for a in setup.policies:
            for b in setup.policies:
                for s in sides(sc):
                    t = cells.get((sc.name, a, b, s), Tally()).to_json()
                    flat = {"scenario": sc.name, "policy": a, "opponent": b, "side": s, **t,
                            "win_lo": t["win_ci95"][0], "win_hi": t["win_ci95"][1]}
                    rows.append({k: flat[k] for k in CSV_FIELDS})
    return rows


def win_matrix(results: dict[str, Any], scenario: str) -> list[list[float | None]]:
    """The row policy's win rate against the column policy over both seats
    (None against itself: a mirror is even by construction)."""
    policies = results["policies"]
    m: list[list[float | None]] = [[None] * len(policies) for _ in policies]
    for pair in results["pairings"]:
        if pair["scenario"] != scenario:
            continue
        a, b = pair["policies"]
        i, j = policies.index(a), policies.index(b)
        if a != b:
            m[i][j], m[j][i] = pair["win_rate"], pair["loss_rate"]
    return m


def table_lines(results: dict[str, Any]) -> list[str]:
    """The results table as plain text: standings with each side, then pairings."""
    scenarios = results["scenarios"]
    names = ", ".join(s["name"] for s in scenarios)
    n_pol = len(results["policies"])
    first, last = results["seed"], results["seed"] + results["battles"] - 1
    out = [
        f"Tournament on {names}: {n_pol} {'policy' if n_pol == 1 else 'policies'}, every "
        f"pairing on both sides, {results['battles']} seeded battles a side (seeds "
        f"{first}..{last}), {results['games']} battles.",
    ]
    side_list = [r["side"] for r in results["table"][0]["seats"]]

    def label(s: int) -> str:
        return f"side {s}" if len(scenarios) > 1 else f"{s}: {scenarios[0]['sides'][str(s)]}"
    width = max(12, *(len(p) + 2 for p in results["policies"]))
    head = (f"{'policy':<{width}}{'games':>6}{'wins':>6}{'draws':>6}{'losses':>7}"
            f"{'win':>7}{'95% interval':>14}")
    head += "".join(f"{'win as ' + str(s):>21}" for s in side_list)
    head += f"{'turns':>7}{'dealt':>7}{'rating':>16}"
    out += ["Standings (against the other policies; win as N: the win rate on side N):", head]
    for r in results["table"]:
        lo, hi = r["win_ci95"]
        line = (f"{r['policy']:<{width}}{r['games']:>6}{r['wins']:>6}{r['draws']:>6}"
                f"{r['losses']:>7}{r['win_rate']:>7.3f}{_span(lo, hi):>14}")
        for seat in r["seats"]:
            slo, shi = seat["win_ci95"]
            line += f"{seat['win_rate']:>8.3f}{_span(slo, shi):>13}"
        line += (f"{r['mean_turns']:>7.1f}{r['mean_levels_dealt']:>7.2f}"
                 f"{r['mu']:>9.2f} ± {r['sigma']:<4.2f}")
        out.append(line)
    out.append("Sides: " + "; ".join(label(s) for s in side_list) + ". Rating: openskill "
               "mu ± sigma.")
    for sc in scenarios:
        out.append(f"Pairings on {sc['name']}: the row policy's win rate on side "
                   + " / ".join(str(s) for s in side_list) + " against the column policy:")
        cell = max(width, 13)
        out.append(" " * width + "".join(f"{p:>{cell}}" for p in results["policies"]))
        seats_of = {(tuple(p["policies"])): p for p in results["pairings"]
                    if p["scenario"] == sc["name"]}
        for a in results["policies"]:
            line = f"{a:<{width}}"
            for b in results["policies"]:
                if (a, b) in seats_of:
                    rates = [s["win_rate"] for s in seats_of[(a, b)]["seats"]]
                else:  # b's pairing with a: a's side-s battles are b's other-side ones
                    rates = [s["loss_rate"] for s in reversed(seats_of[(b, a)]["seats"])]
                line += f"{' / '.join(f'{x:.2f}' for x in rates):>{cell}}"
            out.append(line)
    return out


def _span(lo: float, hi: float) -> str:
    return f"{lo:.3f}-{hi:.3f}"
