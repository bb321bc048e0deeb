"""Training smoke tests with stable-baselines3 and sb3-contrib (skipped without them)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

sb3_contrib = pytest.importorskip("sb3_contrib")
stable_baselines3 = pytest.importorskip("stable_baselines3")

import gymnasium as gym  # noqa: E402
from stable_baselines3.common.env_checker import check_env as sb3_check_env  # noqa: E402

import envs  # noqa: E402
from agents.learned import LearnedAgent, save_model  # noqa: E402

ENV_ID = "vtm_sim/Duel-v0"
PPO_ARGS = {"n_steps": 512, "batch_size": 128, "n_epochs": 2, "seed": 0, "device": "cpu"}


def episode_reward(agent: LearnedAgent, seed: int) -> float:
    env = gym.make(ENV_ID)
    obs, info = env.reset(seed=seed)
    total, done = 0.0, False
    while not done:
        obs, r, term, trunc, info = env.step(agent.act(obs, info["action_mask"]))
        total += float(r)
        done = term or trunc
    return total


def test_sb3_check_env() -> None:
    # SB3's checker steps with unmasked random actions: penalize turns them into passes.
    sb3_check_env(gym.make(ENV_ID, illegal_action="penalize"))
    sb3_check_env(gym.make(ENV_ID, illegal_action="penalize", obs_mode="dict"))


def test_maskable_ppo_trains_saves_and_loads(tmp_path: Path) -> None:
    env = gym.make(ENV_ID, shaping=0.05)
    model = sb3_contrib.MaskablePPO("MlpPolicy", env, **PPO_ARGS)
    model.learn(2048)
    path = save_model(
        model, tmp_path / "duel_maskable", env, seed=0, env_id=ENV_ID, env_kwargs={"shaping": 0.05}
    )
    agent = LearnedAgent.load(path)
    assert agent.info.algo == "MaskablePPO" and agent.info.catalog_size == env.action_space.n
    assert -2.0 < episode_reward(agent, seed=0) < 2.0
    # the saved model joins a tournament beside the engine's policies
    from click.testing import CliRunner

    from vtm_sim.cli import main

    out = CliRunner().invoke(
        main, ["tournament", "duel", "--policies", f"nearest,model:{path}", "--battles", "3"]
    )
    assert out.exit_code == 0, out.output
    assert f"model:{path}" in out.output


def test_ppo_with_penalized_illegal_actions(tmp_path: Path) -> None:
    env = gym.make(ENV_ID, illegal_action="penalize")
    model = stable_baselines3.PPO("MlpPolicy", env, **PPO_ARGS)
    model.learn(2048)
    agent = LearnedAgent.load(save_model(model, tmp_path / "duel_ppo", env, seed=0))
    episode_reward(agent, seed=1)  # acts only among legal actions: never raises


def test_train_command_saves_a_model_with_metadata(tmp_path: Path) -> None:
    """`vtm-sim train` trains, saves the .zip with its .json and command line."""
    from click.testing import CliRunner

    from vtm_sim.cli import main

    out = CliRunner().invoke(
        main, ["train", "--steps", "256", "--out", str(tmp_path / "m"), "--seed", "3"]
    )
    assert out.exit_code == 0, out.output
    info = json.loads((tmp_path / "m.json").read_text())
    assert info["algo"] == "MaskablePPO" and info["seed"] == 3 and info["scenario"] == "duel"
    assert info["env_kwargs"]["shaping"] == envs.DEFAULT_SHAPING  # one default: the env's
    assert (tmp_path / "m.zip").exists() and (tmp_path / "m.command.txt").exists()
