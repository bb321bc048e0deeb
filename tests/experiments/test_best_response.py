"""experiments/best_response.py: trained:duel overruled by rollouts against a model of the
opponent. It departs from trained:duel only where its rollouts say so, and its measuring
loop writes one row a battle and resumes without playing a battle twice."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Any

import pytest
from experiment_scripts import ROOT, load_experiment

from vtm_sim.arena.tournament import seeded_battle
from vtm_sim.files.scenarios import load_scenario
from vtm_sim.policies.registry import maker

# any numpy export plays the opponent's model here; the shipped duel policy is at hand
MODEL = str(ROOT / "agents" / "policies" / "duel.npz")

best_response = load_experiment("best_response")


@pytest.mark.parametrize("seat", [0, 1])
def test_it_is_trained_duel_where_the_rollouts_never_overrule(
        seat: int, monkeypatch: pytest.MonkeyPatch) -> None:
    scenario = load_scenario("duel")
    monkeypatch.setattr(best_response, "CONFIDENCE", math.inf)
    made: list[Any] = []
    respond = best_response.respond_maker(scenario, 8, MODEL, made)
    nearest = maker("nearest", scenario)
    battle = seeded_battle(scenario, {seat: respond, 1 - seat: nearest}, 3)
    plain = seeded_battle(scenario, {seat: maker("trained:duel", scenario), 1 - seat: nearest},
                          3)
    assert sum(p.searched for p in made) > 0 and sum(p.overruled for p in made) == 0
    assert battle.log.to_json() == plain.log.to_json()


def test_the_loop_writes_a_row_a_battle_and_resumes(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "rows.jsonl"
    argv = ["best_response.py", "--rollouts", "8", "--opponent", "nearest", "--clone", MODEL,
            "--out", str(out)]
    monkeypatch.setattr(sys, "argv", [*argv, "--seeds", "0:1"])
    best_response.main()
    first = out.read_text().splitlines()
    monkeypatch.setattr(sys, "argv", [*argv, "--seeds", "0:2"])
    best_response.main()
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert out.read_text().splitlines()[:2] == first
    assert [(r["seed"], r["seat"]) for r in rows] == [(0, 0), (0, 1), (1, 0), (1, 1)]
    assert all(r["score"] in (0.0, 0.5, 1.0) and r["searched"] >= r["overruled"] >= 0
               for r in rows)
    assert sum(r["searched"] for r in rows) > 0
