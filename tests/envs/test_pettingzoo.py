"""The PettingZoo envs (parallel and AEC): API and seed tests on the defaults, per-agent
masks, only the asked combatant acting, illegal actions, one core with the Gymnasium env."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, seed_test

import envs
from envs.aec import VtmAECEnv
from envs.multi import VtmParallelEnv, aec_env
from vtm_sim.errors import IllegalActionError
from vtm_sim.files.scenarios import list_scenarios


@pytest.mark.parametrize("scenario", list_scenarios())
def test_parallel_api(scenario: str) -> None:
    parallel_api_test(VtmParallelEnv(scenario), num_cycles=1000)


def test_parallel_api_dict_observations_and_shaping() -> None:
    parallel_api_test(VtmParallelEnv(obs_mode="dict", shaping=0.1), num_cycles=1000)


SCENARIOS = list_scenarios()


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_parallel_seed_on_the_defaults(scenario: str) -> None:
    # The seed test samples unmasked actions: the default penalize makes them passes / no-ops.
    parallel_seed_test(lambda: VtmParallelEnv(scenario), num_cycles=200)


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_aec_api_on_the_defaults(scenario: str) -> None:
    api_test(VtmAECEnv(scenario), num_cycles=300)


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_aec_seed_on_the_defaults(scenario: str) -> None:
    seed_test(lambda: VtmAECEnv(scenario), num_cycles=200)


def test_both_envs_are_in_the_package() -> None:
    assert envs.VtmAECEnv is VtmAECEnv and envs.VtmParallelEnv is VtmParallelEnv
    assert isinstance(aec_env(), VtmAECEnv)


def play_aec(env: VtmAECEnv, seed: int) -> list[Any]:
    """One episode of masked-random actions; checks that the agent to act is always the
    combatant the rules ask, with a real choice (no noop-only turns)."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    trace: list[Any] = []
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            trace.append((agent, None, reward))
            continue
        d = env.battle.pending if env.battle is not None else None
        assert d is not None and env.possible_agents[d.actor] == agent
        legal = np.flatnonzero(obs["action_mask"])
        assert {env.catalog.seat(d.actor).choices[i] for i in legal} == set(d.options)
        assert len(legal) >= 2  # forced single options are answered by the env
        np.testing.assert_array_equal(info["action_mask"], obs["action_mask"])
        assert info["decision"] == d.kind.value
        for other in env.agents:
            if other != agent:
                assert not env.observe(other)["action_mask"].any()
        action = int(legal[rng.integers(legal.size)])
        env.step(action)
        trace.append((agent, action, reward))
    return trace


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_aec_only_the_asked_combatant_acts(scenario: str) -> None:
    env = VtmAECEnv(scenario)
    for seed in range(3):
        trace = play_aec(env, seed)
        acted = [step for step in trace if step[1] is not None]
        assert acted and len(trace) == len(acted) + len(env.possible_agents)


def test_aec_and_parallel_play_the_same_battle() -> None:
    """One core: the same choices give the same battle log and the same total rewards."""
    aec = VtmAECEnv("bar_brawl", shaping=0.1)
    trace = play_aec(aec, 4)
    assert aec.battle is not None
    actions = iter([(agent, a) for agent, a, _ in trace if a is not None])
    par = VtmParallelEnv("bar_brawl", shaping=0.1)
    _, infos = par.reset(seed=4)
    totals = dict.fromkeys(par.possible_agents, 0.0)
    while par.agents:
        agent, a = next(actions)
        assert infos[agent]["decision"]
        step = {x: (a if x == agent else par.noop) for x in par.agents}
        _, rewards, _, _, infos = par.step(step)
        for x, r in rewards.items():
            totals[x] += r
    assert par.battle is not None
    assert par.battle.log.sha256() == aec.battle.log.sha256()
    aec_totals = dict.fromkeys(aec.possible_agents, 0.0)
    for agent, _, reward in trace:
        aec_totals[agent] += reward
    assert totals == pytest.approx(aec_totals)


def test_aec_illegal_action_is_a_counted_penalized_pass_by_default() -> None:
    env = VtmAECEnv()
    env.reset(seed=0)
    agent = env.agent_selection
    mask = env.observe(agent)["action_mask"]
    env.step(int(np.flatnonzero(mask == 0)[0]))
    assert env.infos[agent]["illegal"] is True and env.infos[agent]["illegal_actions"] == 1
    assert env.rewards[agent] == pytest.approx(envs.DEFAULT_ILLEGAL_PENALTY)
    with pytest.raises(IllegalActionError, match="not legal"):
        raising = VtmAECEnv(illegal_action="raise")
        raising.reset(seed=0)
        raising.step(int(np.flatnonzero(mask == 0)[0]))


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
