"""agents.imitation.record: a teacher's decisions as the env shows them (no torch needed;
fitting a clone is in tests/agents/test_training.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import agents  # noqa: F401  (registers trained:NAME)
from agents.imitation import Decisions, Recorder, record
from envs.actions import ActionCatalog
from envs.observation import ObservationEncoder
from vtm_sim.files.scenarios import load_scenario
from vtm_sim.policies.play import play
from vtm_sim.policies.registry import maker


@pytest.fixture(scope="module")
def duel_rows() -> Decisions:
    return record(load_scenario("duel"), "tactician", ["nearest", "random", "tactician"],
                  range(6), seed=3)


def same(a: Decisions, b: Decisions) -> bool:
    """Equal rows: the same observations, masks and picks, in the same order."""
    return all(np.array_equal(x, y) for x, y in
               ((a.obs, b.obs), (a.mask, b.mask), (a.action, b.action)))


def test_every_recorded_pick_is_legal_and_shaped_as_the_env(duel_rows: Decisions) -> None:
    scenario = load_scenario("duel")
    encoder = ObservationEncoder.for_scenario(scenario)
    catalog = ActionCatalog.for_scenario(scenario)
    assert len(duel_rows) > 20
    assert duel_rows.obs.shape == (len(duel_rows), encoder.size)
    assert duel_rows.mask.shape == (len(duel_rows), catalog.size)
    assert duel_rows.obs.dtype == np.float32
    assert all(duel_rows.mask[i, a] == 1 for i, a in enumerate(duel_rows.action))
    assert (duel_rows.mask.sum(axis=1) >= 2).all()  # one-option decisions are not the env's


def test_any_split_of_the_battles_gives_the_same_rows(duel_rows: Decisions) -> None:
    scenario = load_scenario("duel")
    opponents = ["nearest", "random", "tactician"]
    parts = [record(scenario, "tactician", opponents, range(lo, hi), seed=3)
             for lo, hi in ((0, 1), (1, 4), (4, 6))]
    assert same(Decisions.join(parts), duel_rows)
    other = record(scenario, "tactician", opponents, range(6), seed=4)
    assert not (len(other) == len(duel_rows) and np.array_equal(other.obs, duel_rows.obs))


def test_recording_does_not_change_the_battle() -> None:
    scenario = load_scenario("duel")
    catalog = ActionCatalog.for_scenario(scenario)
    encoder = ObservationEncoder.for_scenario(scenario)
    rng = np.random.default_rng(0)
    make = maker("tactician", scenario)
    plain = play(scenario.battle(seed=11), [make(rng, 0), maker("random", scenario)(
        np.random.default_rng(1), 1)])
    rows: list[tuple[np.ndarray, np.ndarray, int]] = []
    taped = play(scenario.battle(seed=11), [Recorder(make(rng, 0), catalog, encoder, rows),
                                            maker("random", scenario)(
                                                np.random.default_rng(1), 1)])
    assert rows
    assert taped.log.events == plain.log.events
    assert taped.winner == plain.winner


def test_teacher_as_opponent_is_recorded_on_both_seats() -> None:
    scenario = load_scenario("duel")
    both = record(scenario, "tactician", ["tactician"], range(2), seed=0)
    one = record(scenario, "tactician", ["nearest"], range(2), seed=0)
    assert len(both) > len(one)  # the opponent's decisions too, not the teacher's alone


def test_save_and_load_round_trip(duel_rows: Decisions, tmp_path: Path) -> None:
    path = tmp_path / "d.npz"
    duel_rows.save(path)
    assert same(Decisions.load(path), duel_rows)


def test_record_refuses_a_crowd_and_no_opponents() -> None:
    with pytest.raises(ValueError, match="one-a-side"):
        record(load_scenario("gunfight"), "tactician", ["nearest"], range(1))
    with pytest.raises(ValueError, match="at least one opponent"):
        record(load_scenario("duel"), "tactician", [], range(1))
