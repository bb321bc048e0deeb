"""The difficulty ladder: rungs by name, in order, measured seat by seat."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from experiment_scripts import load_experiment
from scipy import stats

from vtm_sim.arena.ladder import SeatTally, play_match
from vtm_sim.cli import main
from vtm_sim.files.scenarios import load_scenario
from vtm_sim.policies import registry
from vtm_sim.policies.rungs import rung_name, rungs


def test_rungs_are_registered_names_weakest_first() -> None:
    names = rungs()
    assert len(names) >= 3 and names[-1] == "planner"  # the planner tops the ladder
    for k, name in enumerate(names, 1):
        assert rung_name(str(k)) == name
        assert name in registry.names()


@pytest.mark.parametrize(("scenario", "battles"), [("duel", 100), ("gunfight", 30)])
def test_each_lower_rung_beats_the_one_below(scenario: str, battles: int) -> None:
    """A short check of docs/ladder.md's order (the full measurement is
    experiments/ladder.py: 1,000 battles a seat, at least 0.55)."""
    sc = load_scenario(scenario)
    lower = [n for n in rungs() if n != "planner"]
    for below, above in itertools.pairwise(lower):
        m = play_match(sc, above, below, battles=battles)
        assert set(m.seats) == {0, 1}
        assert m.pooled.games == 2 * battles
        assert m.pooled.score > 0.5, (scenario, above, below, m.pooled.score)


def test_same_seeds_on_both_seats_and_same_result_twice() -> None:
    sc = load_scenario("duel")
    one = play_match(sc, "nearest", "random", battles=20, seed=5)
    two = play_match(sc, "nearest", "random", battles=20, seed=5)
    assert one.to_json() == two.to_json()


def test_score_interval_is_student_t_over_battles() -> None:
    t = SeatTally(wins=30, draws=10, losses=20)
    scores = np.array([1.0] * 30 + [0.5] * 10 + [0.0] * 20)
    lo, hi = stats.t.interval(0.95, len(scores) - 1, loc=scores.mean(), scale=stats.sem(scores))
    assert t.score == pytest.approx(scores.mean())
    assert t.interval() == pytest.approx((lo, hi))


def test_ladder_command_reports_each_seat_and_pooled() -> None:
    r = CliRunner().invoke(main, ["ladder", "duel", "--battles", "3", "--planner-battles",
                                  "0", "--json"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert data["rungs"] == [n for n in rungs() if n != "planner"]
    for m in data["matches"]:
        assert set(m["seats"]) == {"0", "1"}
        assert m["pooled"]["games"] == sum(s["games"] for s in m["seats"].values()) == 6
    # docs/commands.md's command, as written
    r = CliRunner().invoke(main, ["ladder", "duel", "--battles", "50", "--planner-battles", "0"])
    assert r.exit_code == 0
    assert "| higher | lower | battles | pooled score | seat 0 | seat 1 |" in r.stdout
    assert "| nearest | random | 100 |" in r.stdout


def test_ladder_command_mistakes_are_one_line() -> None:
    r = CliRunner().invoke(main, ["ladder", "nowhere"])
    assert r.exit_code == 2 and len(r.output.strip().splitlines()) == 1
    assert "scenario 'nowhere': unknown" in r.output


def test_ladder_command_gives_the_same_table_with_two_jobs() -> None:
    """The round robin is a tournament's chunks: worker processes change nothing."""
    args = ["ladder", "gunfight", "--battles", "21", "--planner-battles", "0", "--json"]
    one = CliRunner().invoke(main, args)
    two = CliRunner().invoke(main, [*args, "--jobs", "2"])
    assert one.exit_code == 0 and two.exit_code == 0, (one.output, two.output)
    assert json.loads(one.stdout) == json.loads(two.stdout)
    assert json.loads(one.stdout)["matches"][0]["pooled"]["games"] == 42


def test_a_rewrite_of_the_ladder_page_keeps_its_hand_written_notes(tmp_path: Path) -> None:
    """experiments/ladder.py regenerates docs/ladder.md's tables, and keeps the `## Notes`
    section after them (provenance of matches measured by hand or resumed), which an
    earlier rewrite dropped."""
    ladder_script = load_experiment("ladder")
    page = tmp_path / "ladder.md"
    assert ladder_script.kept_notes(page) == []
    page.write_text("# The difficulty ladder\n\n| a | b |\n", encoding="utf-8")
    assert ladder_script.kept_notes(page) == []
    page.write_text("# T\n\n| a |\n\n## Notes\n\nBy hand: seeds 0..499.\n\n", encoding="utf-8")
    assert ladder_script.kept_notes(page) == ["", "## Notes", "", "By hand: seeds 0..499."]
    committed = ladder_script.kept_notes(Path(__file__).resolve().parents[2] / "docs" / "ladder.md")
    assert committed[:2] == ["", "## Notes"] and "seventeenth session" in "\n".join(committed)
