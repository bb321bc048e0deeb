"""Narration kept up to date as a fight goes on (the table): fed step by step, it tells
what narrate() of the whole log tells, at every decision, finished or not."""

from __future__ import annotations

import numpy as np
import pytest

from vtm_sim.files.scenarios import load_scenario
from vtm_sim.text.narration import Narration, narrate


@pytest.mark.parametrize("scenario", ["duel", "gunfight", "grapple_and_bite", "sniper_alley"])
def test_fed_step_by_step_it_tells_what_the_whole_log_tells(scenario: str) -> None:
    rng = np.random.default_rng(7)
    b = load_scenario(scenario).battle(seed=3)
    told = Narration(b.log.events)
    seen = len(b.log.events)
    steps = 0
    while b.pending is not None and steps < 400:
        b.choose(b.pending.options[int(rng.integers(len(b.pending.options)))])
        told.feed(b.log.events[seen:])
        seen = len(b.log.events)
        steps += 1
        if steps % 7 == 0 or b.pending is None:
            for finished in (True, False):
                assert told.lines(finished=finished) == narrate(b.log.events,
                                                                finished=finished)
    assert told.lines() == narrate(b.log.events)
