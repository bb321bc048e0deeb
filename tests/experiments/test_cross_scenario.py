"""experiments/cross_scenario.py: a tiny run of the whole script (one seed, one rollout,
the held-out scenarios, one battle a side), skipped without the training and
experiments extras; then a resumed run that only aggregates."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("rliable")
pytest.importorskip("sb3_contrib")
pytest.importorskip("torch")

from experiment_scripts import load_experiment

from envs.mixed import TEST_SCENARIOS

cross = load_experiment("cross_scenario")


def test_a_tiny_run_writes_the_table_and_resumes(tmp_path: Path) -> None:
    out, results = tmp_path / "runs", tmp_path / "results"
    args = ["--seeds", "1", "--timesteps", "64", "--n-envs", "2", "--episodes", "1",
            "--held-out-only", "--reference", "ladder:2", "--reps", "50",
            "--out", str(out), "--results", str(results)]
    cross.main(args)
    run = out / "seed_0"
    info = json.loads((run / "Mixed-v6.json").read_text(encoding="utf-8"))
    assert info["scenario"] == "mixed" and info["env_id"] == "vtm_sim/Mixed-v6"
    assert {p.name for p in run.glob("eval_*.json")} == {f"eval_{n}.json"
                                                         for n in TEST_SCENARIOS}
    data = json.loads((results / "cross_scenario.json").read_text(encoding="utf-8"))
    assert data["seeds"] == [0] and data["splits"] == {"held-out": list(TEST_SCENARIOS)}
    for name in TEST_SCENARIOS:
        assert set(data["per_seed"][name]) == set(cross.RUNGS)
        assert data["reference"][name]["ladder:2"]["ladder:2"] == 0.5  # itself: even
    page = (results / "cross_scenario.md").read_text(encoding="utf-8")
    assert "python experiments/cross_scenario.py --seeds 1" in page
    assert "| knife_duel | held-out |" in page and "every held-out scenario" in page
    stamp = (run / "summary.json").stat().st_mtime
    cross.main([*args, "--aggregate-only"])  # nothing retrained, the page rewritten
    assert (run / "summary.json").stat().st_mtime == stamp
    assert "| knife_duel | held-out |" in (results / "cross_scenario.md").read_text(
        encoding="utf-8")
