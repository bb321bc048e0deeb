"""The PettingZoo env: API and seed tests, per-agent masks, illegal actions."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test

from envs.multi import VtmParallelEnv, aec_env
from vtm_sim.errors import IllegalActionError
from vtm_sim.scenario import list_scenarios


@pytest.mark.parametrize("scenario", list_scenarios())
def test_parallel_api(scenario: str) -> None:
    parallel_api_test(VtmParallelEnv(scenario), num_cycles=1000)


def test_parallel_api_dict_observations_and_shaping() -> None:
    parallel_api_test(VtmParallelEnv(obs_mode="dict", shaping=0.1), num_cycles=1000)


def test_parallel_seed() -> None:
    # The seed test samples unmasked actions: penalize turns them into passes / no-ops.
    parallel_seed_test(lambda: VtmParallelEnv(illegal_action="penalize"))


def test_aec_api() -> None:
    api_test(aec_env(), num_cycles=200)


def play(env: VtmParallelEnv, seed: int) -> list[Any]:
    rng = np.random.default_rng(seed)
    obs, infos = env.reset(seed=seed)
    trace: list[Any] = []
    while env.agents:
        asked = [a for a in env.agents if infos[a]["decision"]]
        assert len(asked) == 1, "exactly one agent is asked at a time"
        for a in env.agents:
            np.testing.assert_array_equal(obs[a]["action_mask"], infos[a]["action_mask"])
            if a not in asked:
                assert np.flatnonzero(obs[a]["action_mask"]).tolist() == [env.noop]
        actions = {}
        for a in env.agents:
            idx = np.flatnonzero(obs[a]["action_mask"])
            actions[a] = int(idx[rng.integers(idx.size)])
        obs, rewards, terms, _truncs, infos = env.step(actions)
        trace.append((actions, rewards, terms))
    return trace


def test_only_the_asked_agent_has_choices_and_sides_get_opposite_rewards() -> None:
    env = VtmParallelEnv(shaping=0.0)
    for seed in range(5):
        trace = play(env, seed)
        _, rewards, terms = trace[-1]
        assert all(terms.values())
        r0, r1 = rewards["combatant_0"], rewards["combatant_1"]
        assert r0 == -r1 and r0 in (-1.0, 0.0, 1.0)


def test_masks_match_the_pending_decision() -> None:
    env = VtmParallelEnv(skip_forced=False)
    obs, _infos = env.reset(seed=2)
    assert env.battle is not None
    d = env.battle.pending
    assert d is not None
    agent = env.possible_agents[d.actor]
    legal = {env.catalog.choices[i] for i in np.flatnonzero(obs[agent]["action_mask"])}
    assert legal == set(d.options)


def test_same_seed_same_trace() -> None:
    a = play(VtmParallelEnv(shaping=0.2), 9)
    b = play(VtmParallelEnv(shaping=0.2), 9)
    assert a == b


def test_illegal_actions() -> None:
    env = VtmParallelEnv(illegal_action="raise")
    obs, infos = env.reset(seed=0)
    asked = next(a for a in env.agents if infos[a]["decision"])
    other = next(a for a in env.agents if a != asked)
    legal = int(np.flatnonzero(obs[asked]["action_mask"])[0])
    with pytest.raises(IllegalActionError, match="not being asked"):
        env.step({asked: legal, other: 0})
    env = VtmParallelEnv(illegal_action="penalize", illegal_penalty=-0.5)
    obs, infos = env.reset(seed=0)
    _, rewards, _, _, infos = env.step({asked: legal, other: 0})
    assert rewards[other] == pytest.approx(-0.5) and infos[other]["illegal"]
    assert infos[asked]["illegal"] is False and infos[other]["illegal_actions"] == 1


def test_render_ansi() -> None:
    env = VtmParallelEnv(render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert isinstance(text, str) and "Turn 1" in text
