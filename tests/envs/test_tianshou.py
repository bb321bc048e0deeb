"""Tianshou (2.0.1) on the AEC env through Tianshou's own PettingZoo path, as its
tic-tac-toe example (test/pettingzoo/tic_tac_toe.py) runs it with ``tictactoe_v3.env()``
replaced by ``VtmAECEnv("duel")``: ``tianshou.env.PettingZooEnv``, a DQN for each seat
masking with the ``mask`` Tianshou builds from ``observe()["action_mask"]``, collectors
over a ``VectorReplayBuffer`` and the off-policy trainer for a few tiny epochs.

Tianshou's buffer stacks every step's ``info``: a key that appears only on the last step
(``winner`` and ``end_reason`` did, before every info carried every key) fails with
``MalformedBufferError: Encountered NaNs in buffer``. Only in CI's training stage
(``.ci/run``, the ``tianshou`` extra); skipped without Tianshou."""

from __future__ import annotations

import math

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("tianshou")

import gymnasium
import torch
from tianshou.algorithm import DQN, MultiAgentOffPolicyAlgorithm
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.data import Collector, CollectStats, VectorReplayBuffer
from tianshou.env import DummyVectorEnv
from tianshou.env.pettingzoo_env import PettingZooEnv
from tianshou.trainer import OffPolicyTrainerParams
from tianshou.utils.net.common import Net

from envs.aec import VtmAECEnv
from envs.match import INFO_KEYS


def get_env() -> PettingZooEnv:
    return PettingZooEnv(VtmAECEnv("duel"))


def dqn(env: PettingZooEnv) -> DQN:
    space = env.observation_space
    obs = space.spaces["observation"] if isinstance(space, gymnasium.spaces.Dict) else space
    net = Net(state_shape=obs.shape, action_shape=int(env.action_space.n), hidden_sizes=[64, 64])
    policy = DiscreteQLearningPolicy(model=net, action_space=env.action_space,
                                     eps_training=0.1, eps_inference=0.05)
    return DQN(policy=policy, optim=AdamOptimizerFactory(lr=1e-3), n_step_return_horizon=3,
               gamma=0.9, target_update_freq=50)


def test_tianshou_pettingzoo_dqn_trains_on_the_duel() -> None:
    np.random.seed(0)
    torch.manual_seed(0)
    env = get_env()
    algorithm = MultiAgentOffPolicyAlgorithm(algorithms=[dqn(env) for _ in env.agents], env=env)
    train_envs = DummyVectorEnv([get_env for _ in range(2)])
    test_envs = DummyVectorEnv([get_env for _ in range(2)])
    train_envs.seed(0)
    test_envs.seed(1)
    train_collector = Collector[CollectStats](
        algorithm, train_envs, VectorReplayBuffer(2000, len(train_envs)), exploration_noise=True)
    test_collector = Collector[CollectStats](algorithm, test_envs, exploration_noise=True)
    train_collector.reset()
    train_collector.collect(n_step=64 * len(train_envs))
    result = algorithm.run_training(OffPolicyTrainerParams(
        training_collector=train_collector,
        test_collector=test_collector,
        max_epochs=2,
        epoch_num_steps=100,
        collection_step_num_env_steps=10,
        test_step_num_episodes=2,
        batch_size=32,
        update_step_num_gradient_steps_per_sample=0.1,
        multi_agent_return_reduction=lambda rews: rews[:, 0],
        verbose=False,
        show_progress=False,
    ))
    assert math.isfinite(result.best_score) and math.isfinite(result.best_reward)
    buf = train_collector.buffer
    assert result.train_step > 0 and result.test_episode > 0 and len(buf) > 0
    # what the trainer checks after each collection step (MalformedBufferError): no NaN
    # anywhere in the buffer, every info key stacked on every step, episodes' ends included
    assert not buf.hasnull()
    assert set(buf.info.get_keys()) >= set(INFO_KEYS)  # (Tianshou adds env_id)
    assert np.isin(buf.info.winner[: len(buf)], [-1, 0, 1]).all()
