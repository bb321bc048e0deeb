"""Stable-Baselines3 and sb3-contrib on the envs as researchers get them: ``gym.make(id)``
and ``make_vec_env(id, n)`` with no env arguments (skipped without the training extra)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

sb3_contrib = pytest.importorskip("sb3_contrib")
stable_baselines3 = pytest.importorskip("stable_baselines3")

import gymnasium as gym  # noqa: E402
import numpy as np  # noqa: E402
from sb3_contrib.common.maskable.utils import get_action_masks  # noqa: E402
from stable_baselines3.common.callbacks import BaseCallback  # noqa: E402
from stable_baselines3.common.env_checker import check_env  # noqa: E402
from stable_baselines3.common.env_util import make_vec_env  # noqa: E402
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv  # noqa: E402

import envs  # noqa: E402

IDS = envs.registered_ids()
ALL_IDS = [*IDS, *envs.mixed_ids()]  # with vtm_sim/Mixed-v6 (tests/envs/test_mixed.py)
# Small rollouts so a few hundred steps are several updates; the env gets no arguments.
ALGO_ARGS: dict[str, Any] = {"n_steps": 64, "batch_size": 64, "n_epochs": 1, "seed": 0,
                             "device": "cpu"}
LEARN_STEPS = 256


class IllegalSteps(BaseCallback):  # type: ignore[misc]
    """Counts the steps whose info says the action was illegal."""

    def __init__(self) -> None:
        super().__init__()
        self.illegal = 0

    def _on_step(self) -> bool:
        self.illegal += sum(bool(info["illegal"]) for info in self.locals["infos"])
        return True


@pytest.mark.parametrize("eid", ALL_IDS)
def test_sb3_check_env_on_the_defaults(eid: str) -> None:
    check_env(gym.make(eid))


def test_sb3_check_env_dict_observations() -> None:
    check_env(gym.make("vtm_sim/Duel-v6", obs_mode="dict"))


def vec_env_steps(eid: str, vec_cls: type, **vec_env_kwargs: Any) -> None:
    """make_vec_env(eid, 2) with masked-random steps and a frame from every sub-env."""
    vec = make_vec_env(eid, 2, seed=0, vec_env_cls=vec_cls, vec_env_kwargs=vec_env_kwargs)
    try:
        rng = np.random.default_rng(0)
        obs = vec.reset()
        assert obs.shape == (2, *vec.observation_space.shape)
        for _ in range(20):
            masks = get_action_masks(vec)
            actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
            obs, _rewards, _dones, infos = vec.step(actions)
            assert not any(info["illegal"] for info in infos)
        frames = vec.get_images()
        assert all(f.dtype == np.uint8 and f.ndim == 3 for f in frames)
    finally:
        vec.close()


@pytest.mark.parametrize("eid", ALL_IDS)
def test_make_vec_env_dummy_on_the_defaults(eid: str) -> None:
    """make_vec_env asks for render_mode='rgb_array' first: the envs draw a battle map."""
    vec_env_steps(eid, DummyVecEnv)


@pytest.mark.parametrize("eid", IDS)
def test_make_vec_env_subproc_every_id(eid: str) -> None:
    # fork: the workers start without re-importing torch (the default is below)
    vec_env_steps(eid, SubprocVecEnv, start_method="fork")


SUBPROC_SCRIPT = """
import envs
from stable_baselines3.common.vec_env import SubprocVecEnv
from tests.envs.test_envs_sb3 import vec_env_steps

if __name__ == "__main__":
    vec_env_steps("vtm_sim/Duel-v6", SubprocVecEnv)
    print("ok")
"""


def test_make_vec_env_subproc_on_the_defaults(tmp_path: Path) -> None:
    """As a researcher's script runs it, with SB3's default start method (forkserver): the
    workers import the script, whose ``import envs`` registers the ids."""
    script = tmp_path / "train.py"
    script.write_text(SUBPROC_SCRIPT, encoding="utf-8")
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run([sys.executable, str(script)], cwd=root, capture_output=True,
                         text=True, env={**os.environ, "PYTHONPATH": str(root)}, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.split() == ["ok"]


def test_make_vec_env_subproc_with_the_module_prefix() -> None:
    """Without an ``import envs`` in the main script, the ``envs:`` prefix registers them."""
    vec_env_steps("envs:vtm_sim/Duel-v6", SubprocVecEnv)


@pytest.mark.parametrize("eid", IDS)
def test_plain_ppo_learns_on_the_defaults(eid: str) -> None:
    """Unmasked PPO: its illegal picks are penalized passes, counted in info."""
    model = stable_baselines3.PPO("MlpPolicy", gym.make(eid), **ALGO_ARGS)
    seen = IllegalSteps()
    model.learn(LEARN_STEPS, callback=seen)
    assert model.num_timesteps >= LEARN_STEPS
    assert seen.illegal > 0  # a fresh policy over the whole catalog: many illegal picks


@pytest.mark.parametrize("eid", ALL_IDS)
def test_maskable_ppo_learns_on_the_defaults(eid: str) -> None:
    model = sb3_contrib.MaskablePPO("MlpPolicy", gym.make(eid), **ALGO_ARGS)
    seen = IllegalSteps()
    model.learn(LEARN_STEPS, callback=seen)
    assert model.num_timesteps >= LEARN_STEPS
    assert seen.illegal == 0  # it reads action_masks() through gym.make's wrappers


def test_get_action_masks_on_a_gym_make_env() -> None:
    env = gym.make("vtm_sim/Duel-v6")
    _, info = env.reset(seed=0)
    np.testing.assert_array_equal(get_action_masks(env), info["action_mask"])
