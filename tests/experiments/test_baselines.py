"""experiments/baselines.py (skipped without rliable): its aggregation against rliable
computed directly and against the interquartile mean by hand, and a tiny run of the whole
script (training through `vtm-sim train` / `evaluate`, needs the training extra)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

rliable = pytest.importorskip("rliable")
pytest.importorskip("matplotlib")

from experiment_scripts import load_experiment  # noqa: E402
from rliable import library as rly  # noqa: E402
from rliable import metrics  # noqa: E402

REPS = 2_000

baselines = load_experiment("baselines")

# Five seeds' scores, per algo, opponent and seat (pooled: the seats' mean).
FAKE = {
    "maskable-ppo": {
        "ladder:1": {"0": [0.9, 0.1, 0.8, 0.7, 1.0], "1": [1.0, 0.95, 0.9, 0.85, 1.0]},
        "ladder:2": {"0": [0.4, 0.5, 0.2, 0.6, 0.3], "1": [0.9, 0.7, 0.8, 1.0, 0.6]},
    },
    "ppo": {
        "ladder:1": {"0": [0.3, 0.2, 0.5, 0.0, 0.4], "1": [0.7, 0.9, 0.6, 0.8, 1.0]},
        "ladder:2": {"0": [0.0, 0.1, 0.05, 0.2, 0.0], "1": [0.5, 0.4, 0.6, 0.3, 0.45]},
    },
}
for _by_opp in FAKE.values():
    for _by_seat in _by_opp.values():
        _by_seat["pooled"] = [(a + b) / 2 for a, b in zip(_by_seat["0"], _by_seat["1"],
                                                          strict=True)]


def rliable_iqm(matrix: np.ndarray) -> tuple[float, float, float]:
    """rliable's own IQM and interval (its bootstrap draws from numpy's global generator,
    seeded here as the script seeds it)."""
    state = np.random.get_state()
    np.random.seed(0)
    points, cis = rly.get_interval_estimates(
        {"m": matrix}, lambda x: np.array([metrics.aggregate_iqm(x)]), reps=REPS)
    np.random.set_state(state)
    return float(points["m"][0]), float(cis["m"][0, 0]), float(cis["m"][1, 0])


def test_iqm_and_intervals_per_opponent_are_rliables() -> None:
    agg = baselines.aggregate(FAKE, reps=REPS, seed=0)
    assert baselines.aggregate(FAKE, reps=REPS, seed=0) == agg  # seeded: reproducible
    for algo, by_opp in FAKE.items():
        for opp, by_seat in by_opp.items():
            for seat, values in by_seat.items():
                cell = agg[algo][opp][seat]
                # 5 runs: the IQM drops the lowest and the highest and averages the rest
                assert cell["iqm"] == pytest.approx(np.mean(sorted(values)[1:4]))
                point, lo, hi = rliable_iqm(np.array(values).reshape(-1, 1))
                assert cell["iqm"] == pytest.approx(point)
                assert cell["ci95"] == pytest.approx([lo, hi])
                assert min(values) <= lo <= cell["iqm"] <= hi <= max(values)
                assert cell["runs"] == 5


def test_all_rungs_takes_the_opponents_as_stratified_tasks() -> None:
    agg = baselines.aggregate(FAKE, reps=REPS, seed=0)
    for algo, by_opp in FAKE.items():
        for seat in ("0", "1", "pooled"):
            m = np.array([by_opp[o][seat] for o in by_opp]).T  # 5 runs x 2 tasks
            cell = agg[algo][baselines.ALL][seat]
            # 10 scores: the IQM is the mean of the middle 6
            assert cell["iqm"] == pytest.approx(np.sort(m.ravel())[2:8].mean())
            point, lo, hi = rliable_iqm(m)
            assert (cell["iqm"], *cell["ci95"]) == pytest.approx((point, lo, hi))
    # The interval narrows when the seeds agree: a constant column gives a point interval.
    flat = {"a": {"x": {"0": [0.5] * 5}}}
    assert baselines.aggregate(flat, reps=REPS)["a"]["x"]["0"]["ci95"] == [0.5, 0.5]


def test_probability_of_improvement_is_rliables() -> None:
    x = np.array([FAKE["maskable-ppo"][o]["pooled"] for o in ("ladder:1", "ladder:2")]).T
    y = np.array([FAKE["ppo"][o]["pooled"] for o in ("ladder:1", "ladder:2")]).T
    out = baselines.improvement(x, y, reps=REPS, seed=0)
    assert out == baselines.improvement(x, y, reps=REPS, seed=0)  # seeded: reproducible
    assert out["p"] == pytest.approx(float(metrics.probability_of_improvement(x, y)))
    assert out["ci95"][0] <= out["p"] <= out["ci95"][1]
    assert baselines.improvement(x, y * 0, reps=200)["p"] == 1.0  # better on every pair
    assert baselines.improvement(x, x, reps=200)["p"] == 0.5


def test_a_tiny_run_writes_the_table_json_and_curves(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """One seed of both algos on the duel, 256 steps each, through the real
    `vtm-sim train` and `vtm-sim evaluate` (in process, not in a subprocess: the
    imports alone would take most of a test's budget); rerunning is resumed."""
    pytest.importorskip("sb3_contrib")
    pytest.importorskip("torch")
    from click.testing import CliRunner

    from vtm_sim.cli import main

    calls: list[str] = []

    def in_process(args: list[str], log: Path) -> Any:
        calls.append(args[0])
        r = CliRunner().invoke(main, args)
        assert r.exit_code == 0, r.output
        return json.loads(r.stdout[r.stdout.index("{"):])

    monkeypatch.setattr(baselines, "vtm_sim", in_process)
    config = tmp_path / "tiny.yml"
    config.write_text("n_steps: 64\nbatch_size: 64\nn_epochs: 1\neval_freq: 128\n"
                      "eval_episodes: 1\ncheckpoint_freq: 0\n", encoding="utf-8")
    argv = ["--seeds", "1", "--timesteps", "256", "--episodes", "2", "--top-episodes", "1",
            "--reps", "200", "--config", str(config), "--out", str(tmp_path / "runs"),
            "--results", str(tmp_path / "results")]
    baselines.main(argv)
    assert calls.count("train") == 2 and calls.count("evaluate") == 4
    report = json.loads((tmp_path / "results" / "baselines.json").read_text())
    duel = report["envs"]["duel"]
    assert set(duel["per_seed"]) == {"maskable-ppo", "ppo"}
    for algo, by_opp in duel["per_seed"].items():
        assert list(by_opp) == ["ladder:1", "ladder:2", "ladder:3", "ladder:4"]
        for opp, by_seat in by_opp.items():
            for seed, score in enumerate(by_seat["pooled"]):
                run = tmp_path / "runs" / "duel" / algo / f"seed_{seed}"
                key = "top" if opp == "ladder:4" else "rungs"
                final = json.loads((run / f"final_{key}.json").read_text())
                assert score == final["opponents"][opp]["pooled"]["score"]
        runs = duel["runs"][algo]
        assert [r["curve"]["timesteps"] for r in runs] == [[128, 256]]
        assert runs[0]["games_per_seat"] == {"ladder:1": 2, "ladder:2": 2, "ladder:3": 2,
                                             "ladder:4": 1}
    page = (tmp_path / "results" / "baselines.md").read_text()
    assert page.startswith(baselines.BEGIN) and baselines.END in page
    assert "| maskable-ppo | all rungs |" in page and "P(maskable-ppo > ppo)" in page
    png = tmp_path / "results" / "baselines_duel.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # Rerun: nothing is trained or evaluated again, and the prose around the table stays.
    (tmp_path / "results" / "baselines.md").write_text("# Notes\n\n" + page + "\nEnd.\n")
    baselines.main(argv)
    assert len(calls) == 6
    again = (tmp_path / "results" / "baselines.md").read_text()
    assert again == "# Notes\n\n" + page + "\nEnd.\n"
