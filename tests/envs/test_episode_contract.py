"""What every env id promises every client library, from reset to the end: human
rendering (PettingZoo's own render_test), the same info keys with the same types on every
step (Tianshou's buffer), and a final mask that is never all zeros (torch's Categorical)."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import envs
from envs.match import INFO_KEYS
from vtm_sim.files.scenarios import list_scenarios

IDS = envs.registered_ids()
SCENARIOS = list_scenarios()


def shape(info: dict[str, Any]) -> dict[str, type]:
    """Each info key and its value's type (an array's dtype counts as its type)."""
    return {k: (np.dtype(v.dtype).type if isinstance(v, np.ndarray) else type(v))
            for k, v in info.items()}


EXPECTED = {"action_mask": np.int8, "decision": str, "turn": int, "illegal": bool,
            "illegal_actions": int, "winner": int, "end_reason": str}


def pick(mask: np.ndarray, rng: np.random.Generator) -> int:
    legal = np.flatnonzero(mask)
    assert legal.size, "a mask with no legal action"
    return int(legal[rng.integers(legal.size)])


def only_pass(env: Any, mask: np.ndarray) -> None:
    """The final mask: the pass action alone."""
    assert np.flatnonzero(mask).tolist() == [env.unwrapped.catalog.pass_index]


# --- human rendering -------------------------------------------------------------------
@pytest.mark.parametrize("eid", IDS)
def test_human_render_prints_the_ansi_text_on_every_gym_id(
        eid: str, capsys: pytest.CaptureFixture[str]) -> None:
    human, ansi = gym.make(eid, render_mode="human"), gym.make(eid, render_mode="ansi")
    assert "human" in human.metadata["render_modes"]
    rng = np.random.default_rng(0)
    _, info = human.reset(seed=3)
    ansi.reset(seed=3)
    printed = []
    for _ in range(4):
        action = pick(info["action_mask"], rng)
        _, _, term, trunc, info = human.step(action)
        ansi.step(action)
        capsys.readouterr()
        assert human.render() is None
        text = ansi.render()
        assert capsys.readouterr().out == (text + "\n" if text else "")
        printed.append(text)
        if term or trunc:
            break
    assert any(printed)


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_pettingzoo_render_test_on_aec_and_parallel(scenario: str) -> None:
    pytest.importorskip("pettingzoo")
    from pettingzoo.test import render_test
    from pettingzoo.utils.conversions import parallel_to_aec

    from envs.aec import VtmAECEnv
    from envs.multi import VtmParallelEnv

    render_test(lambda render_mode=None: VtmAECEnv(scenario, render_mode=render_mode))
    render_test(lambda render_mode=None: parallel_to_aec(
        VtmParallelEnv(scenario, render_mode=render_mode)))


# --- info keys and final masks: Gymnasium ------------------------------------------------
@pytest.mark.parametrize("eid", IDS)
def test_gym_info_keys_and_types_are_the_same_on_every_step(eid: str) -> None:
    env = gym.make(eid)
    rng = np.random.default_rng(1)
    for seed in range(2):
        _, info = env.reset(seed=seed)
        assert set(info) == set(INFO_KEYS) and shape(info) == EXPECTED
        assert info["winner"] == -1 and info["end_reason"] == ""
        term = trunc = False
        while not (term or trunc):
            _, _, term, trunc, info = env.step(pick(info["action_mask"], rng))
            assert shape(info) == EXPECTED
            if not term:
                assert info["winner"] == -1 and info["end_reason"] == ""
        b = env.unwrapped.battle  # type: ignore[attr-defined]
        if term:
            assert info["end_reason"] == b.end_reason != ""
            assert info["winner"] == (-1 if b.winner is None else b.winner)
            only_pass(env, info["action_mask"])
            np.testing.assert_array_equal(
                env.unwrapped.action_masks(), info["action_mask"])  # type: ignore[attr-defined]
        assert info["action_mask"].any()


@pytest.mark.parametrize("eid", IDS)
def test_gym_truncated_episode_keeps_a_legal_action(eid: str) -> None:
    env = gym.make(eid, max_episode_steps=2)
    _, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    term = trunc = False
    while not (term or trunc):
        _, _, term, trunc, info = env.step(pick(info["action_mask"], rng))
    assert info["action_mask"].any() and shape(info) == EXPECTED


def test_gym_vector_env_stacks_every_key_on_every_step() -> None:
    vec = gym.make_vec(IDS[0], num_envs=2, vectorization_mode="sync")
    try:
        rng = np.random.default_rng(0)
        _, info = vec.reset(seed=0)
        ended = 0
        for _ in range(200):
            assert set(INFO_KEYS) <= set(info)
            assert all(info[f"_{k}"].all() for k in INFO_KEYS)  # present in every sub-env
            assert info["action_mask"].any(axis=1).all()
            actions = np.array([pick(m, rng) for m in info["action_mask"]])
            _, _, term, trunc, info = vec.step(actions)
            ended += int(np.sum(term | trunc))
        assert ended
    finally:
        vec.close()


# --- info keys and final masks: PettingZoo ---------------------------------------------
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_aec_info_keys_and_final_masks(scenario: str) -> None:
    pytest.importorskip("pettingzoo")
    from envs.aec import VtmAECEnv

    for max_steps in (None, 3):  # terminated, then truncated
        env = VtmAECEnv(scenario, max_steps=max_steps)
        env.reset(seed=2)
        rng = np.random.default_rng(2)
        for agent in env.possible_agents:
            assert shape(env.infos[agent]) == EXPECTED
            assert env.infos[agent]["winner"] == -1
        finished = set()
        for agent in env.agent_iter():
            obs, _, term, trunc, info = env.last()
            assert shape(info) == EXPECTED
            if term or trunc:
                only_pass(env, obs["action_mask"])
                only_pass(env, info["action_mask"])
                finished.add(agent)
                env.step(None)
                continue
            assert info["winner"] == -1 and info["end_reason"] == ""
            env.step(pick(obs["action_mask"], rng))
        assert finished == set(env.possible_agents)


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_parallel_info_keys_and_final_masks(scenario: str) -> None:
    pytest.importorskip("pettingzoo")
    from envs.multi import VtmParallelEnv

    for max_steps in (None, 3):
        env = VtmParallelEnv(scenario, max_steps=max_steps)
        obs, infos = env.reset(seed=2)
        rng = np.random.default_rng(2)
        assert all(shape(i) == EXPECTED for i in infos.values())
        while env.agents:
            actions = {a: pick(obs[a]["action_mask"], rng) for a in env.agents}
            obs, _, terms, truncs, infos = env.step(actions)
            for a, info in infos.items():
                assert shape(info) == EXPECTED
                assert obs[a]["action_mask"].any()
                if terms[a]:
                    assert np.flatnonzero(info["action_mask"]).tolist() == [env.noop]
                elif not truncs[a]:
                    assert info["winner"] == -1 and info["end_reason"] == ""


def test_self_play_env_ends_on_the_pass_mask_too() -> None:
    """`vtm-sim train --opponents self`'s env (agents.league) follows the same rule."""
    pytest.importorskip("pettingzoo")
    from agents.league import SelfPlayEnv

    env = SelfPlayEnv("duel", seat=0)
    d, n = int(env.observation_space.shape[0]), int(env.action_space.n)  # type: ignore[index]
    rng = np.random.default_rng(0)
    env.add_snapshot([(rng.normal(0, 0.1, (n, d)).astype(np.float32),
                       np.zeros(n, np.float32))], "tanh")
    _, info = env.reset(seed=0)
    ends = 0
    for _ in range(300):
        _, _, term, trunc, info = env.step(pick(info["action_mask"], rng))
        if term or trunc:
            assert np.flatnonzero(info["action_mask"]).tolist() == [env.parallel.catalog.pass_index]
            ends += 1
            _, info = env.reset()
    assert ends
