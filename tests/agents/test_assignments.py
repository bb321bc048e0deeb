"""Which seat and opponent each of `vtm-sim train`'s sub-envs plays
(agents.training.assignments): no torch needed."""

from __future__ import annotations

import pytest

from agents.training import assignments
from vtm_sim.errors import ConfigError
from vtm_sim.files.scenarios import load_scenario

DUEL = load_scenario("duel")  # two sides, seats 0 and 1


def test_every_named_opponent_is_played_with_fewer_sub_envs_than_pairs() -> None:
    """--opponents A,B,C --n-envs 4 once left C out (opponent k div S)."""
    got = assignments(DUEL, ["A", "B", "C"], 4)
    assert {o for _, o in got} == {"A", "B", "C"}
    assert {s for s, _ in got} == {0, 1}
    assert got == [(0, "A"), (1, "B"), (0, "C"), (1, "A")]


@pytest.mark.parametrize("n_opp", [1, 2, 3, 4, 5])
@pytest.mark.parametrize("n_envs", range(1, 13))
def test_every_opponent_and_seat_is_played_whenever_there_are_enough_sub_envs(
        n_opp: int, n_envs: int) -> None:
    names = [f"p{i}" for i in range(n_opp)]
    if n_envs < n_opp:
        with pytest.raises(ConfigError, match=f"{n_opp} --opponents need --n-envs {n_opp}"):
            assignments(DUEL, names, n_envs)
        return
    got = assignments(DUEL, names, n_envs)
    assert len(got) == n_envs
    assert {o for _, o in got} == set(names)
    assert {s for s, _ in got} == ({0, 1} if n_envs >= 2 else {0})
    if n_envs >= 2 * n_opp:  # every seat against every opponent
        assert set(got) == {(s, o) for s in (0, 1) for o in names}


def test_every_pair_keeps_its_order_when_there_are_sub_envs_for_all() -> None:
    """n_envs >= seats x opponents: seat k mod S, opponent k div S (runs recorded with
    such commands build the same sub-envs)."""
    got = assignments(DUEL, ["nearest", "tactician"], 4)
    assert got == [(0, "nearest"), (1, "nearest"), (0, "tactician"), (1, "tactician")]
    assert assignments(DUEL, [], 2) == [(0, None), (1, None)]
