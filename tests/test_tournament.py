"""Tournaments: pairings on the same seeds, scores, Wilson intervals, errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from vtm_sim.cli import main
from vtm_sim.errors import ConfigError
from vtm_sim.scenario import load_scenario
from vtm_sim.simulate import play
from vtm_sim.tournament import run_tournament, table_lines, wilson


def test_wilson_interval_matches_the_closed_form() -> None:
    lo, hi = wilson(5, 10)
    assert lo == pytest.approx(0.2366, abs=1e-4) and hi == pytest.approx(0.7634, abs=1e-4)
    assert wilson(0, 0) == (0.0, 1.0)
    lo, hi = wilson(10, 10)
    assert hi == pytest.approx(1.0) and lo == pytest.approx(0.7225, abs=1e-4)


def test_DICE_9_pairings_replay_the_same_seeded_battles() -> None:
    """A pairing of the built-in policy with itself is exactly `play` on those seeds."""
    sc = load_scenario("duel")
    res = run_tournament(sc, ["nearest"], battles=12, seed=3)
    expect = sum(play(sc.battle(seed=s)).winner == 0 for s in range(3, 15))
    pair = res.pairs[("nearest", "nearest")]
    assert pair.games == 12 and pair.wins == expect
    # against itself every game is a win for one side and a loss for the other
    t = res.totals["nearest"]
    assert t.games == 24 and t.wins == t.losses


def test_totals_add_up_over_every_pairing() -> None:
    sc = load_scenario("knife_duel")
    res = run_tournament(sc, ["nearest", "random"], battles=6)
    assert len(res.pairs) == 4
    for name in res.policies:
        t = res.totals[name]
        assert t.games == 4 * 6  # two pairings as A, two as B, six battles each
    rows = res.table()
    assert rows[0].score >= rows[1].score
    text = "\n".join(table_lines(res))
    assert "95% interval" in text and "Pairings" in text
    again = run_tournament(sc, ["nearest", "random"], battles=6)
    assert again.pairs == res.pairs  # same seeds, same results


def test_unknown_policy_or_side_is_a_config_error() -> None:
    sc = load_scenario("duel")
    with pytest.raises(ConfigError, match="--policies"):
        run_tournament(sc, ["nearest", "genius"], battles=1)
    with pytest.raises(ConfigError, match="--side"):
        run_tournament(sc, ["nearest"], battles=1, side=7)


def test_tournament_cli_prints_the_table_and_writes_results(tmp_path: Path) -> None:
    runner = CliRunner()
    out = runner.invoke(
        main, ["tournament", "duel", "--battles", "5", "--out", str(tmp_path / "run")]
    )
    assert out.exit_code == 0, out.output
    assert "Tournament on duel" in out.output and "tactician" in out.output
    data = json.loads((tmp_path / "run" / "results.json").read_text())
    assert data["battles"] == 5 and data["seed"] == 0 and data["rules"]["name"] == "v20"
    assert {r["policy"] for r in data["table"]} == {"nearest", "tactician", "random"}
    bad = runner.invoke(main, ["tournament", "duel", "--policies", "nearest,genius"])
    assert bad.exit_code == 2 and "genius" in bad.output and "Traceback" not in bad.output


def test_scripted_env_agent_plays_in_a_tournament() -> None:
    """An observation-and-mask agent (agents.scripted.BrawlerAgent) plays through
    agents.adapter.AgentPolicy, seeing what the env would show it."""
    runner = CliRunner()
    out = runner.invoke(
        main,
        ["tournament", "knife_duel", "--policies", "brawler,random", "--battles", "4", "--json"],
    )
    assert out.exit_code == 0, out.output
    data = json.loads(out.output[out.output.index("{") :])
    rows = {r["policy"]: r for r in data["table"]}
    assert rows["brawler"]["games"] == 16 and rows["brawler"]["score"] > rows["random"]["score"]
    bad = runner.invoke(main, ["tournament", "duel", "--policies", "model:/no/such.zip"])
    assert bad.exit_code == 2 and "cannot load" in bad.output
