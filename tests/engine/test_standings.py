"""How a fight stands for a side (vtm_sim.engine.standings): what rollouts are scored by."""

from __future__ import annotations

import pytest

from vtm_sim.core.weapons import DamageType
from vtm_sim.engine.standings import outcome, side_share
from vtm_sim.files.scenarios import load_scenario


def test_side_share_is_the_share_of_the_health_left() -> None:
    b = load_scenario("duel").battle(seed=0)
    assert side_share(b, 0) == side_share(b, 1) == 0.5  # nobody hurt yet
    hurt = b.combatants[1]
    hurt.health.take(2, DamageType.BASHING)
    mine = 1.0
    theirs = (hurt.health.size - 2) / hurt.health.size
    assert side_share(b, 0) == mine / (mine + theirs)
    assert side_share(b, 0) + side_share(b, 1) == pytest.approx(1.0)
    hurt.escaped = True  # out of the fight: no health left to count
    assert side_share(b, 0) == 1.0
    b.combatants[0].escaped = True  # nobody left: even
    assert side_share(b, 0) == 0.5


def test_outcome_is_one_half_or_nothing() -> None:
    b = load_scenario("duel").battle(seed=0)
    b.winner = 0
    assert (outcome(b, 0), outcome(b, 1)) == (1.0, 0.0)
    b.winner = None
    assert outcome(b, 0) == outcome(b, 1) == 0.5
