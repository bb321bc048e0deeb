"""Self-play against a league of past checkpoints, on the multi-agent env.

:class:`SelfPlayEnv` is a Gymnasium env over :class:`envs.multi.VtmParallelEnv`
(its public API only: ``reset``, ``step``, the observation dicts with their
``action_mask``): the learner plays one combatant, drawn at every reset
(``seat`` fixes one), and a frozen past version of itself plays every other
combatant. Past versions are numpy policies (:class:`agents.numpy_policy.NumpyPolicy`,
snapshots of the learner's policy network), so the opponents' moves cost no
torch call. At every reset the opponent is drawn from the league with the
env's own generator: the newest snapshot with probability ``latest``, else
any snapshot uniformly (as in fictitious self-play, so the learner keeps
beating its older selves). The trainer adds snapshots as it learns
(:meth:`SelfPlayEnv.add_snapshot`, via ``VecEnv.env_method``).

In team scenarios the snapshot also plays the learner's allies; the duel is
the intended use.
"""

from __future__ import annotations

from typing import Any, SupportsFloat

import gymnasium as gym
import numpy as np

from agents.model_info import ModelInfo
from agents.numpy_policy import NumpyPolicy
from envs.multi import VtmParallelEnv

__all__ = ["SelfPlayEnv"]

Layers = list[tuple[np.ndarray, np.ndarray]]


class SelfPlayEnv(gym.Env[np.ndarray, np.int64]):
    """One combatant learns against snapshots of itself (see the module docstring).

    Args:
        scenario: the scenario (``"duel"``).
        seat: the combatant the learner plays, or None for one drawn at every reset.
        latest: the chance of facing the newest snapshot rather than any.
        max_snapshots: the league's size (the oldest leave first).
        **env_kwargs: passed to :class:`~envs.multi.VtmParallelEnv` (``shaping``, ...).
    """

    metadata: dict[str, Any] = {"render_modes": []}  # noqa: RUF012

    def __init__(
        self,
        scenario: str = "duel",
        *,
        seat: int | None = None,
        latest: float = 0.5,
        max_snapshots: int = 20,
        **env_kwargs: Any,
    ) -> None:
        self.parallel = VtmParallelEnv(scenario, obs_mode="flat", **env_kwargs)
        agents = self.parallel.possible_agents
        if seat is not None and not 0 <= seat < len(agents):
            raise ValueError(f"seat {seat}: the scenario has combatants 0..{len(agents) - 1}")
        self.seat = seat
        self.latest = float(latest)
        self.max_snapshots = int(max_snapshots)
        space = self.parallel.observation_space(agents[0])
        assert isinstance(space, gym.spaces.Dict)
        self.observation_space = space["observation"]
        actions = self.parallel.action_space(agents[0])
        assert isinstance(actions, gym.spaces.Discrete)
        n = int(actions.n) - 1  # the parallel env's last action, noop, is not offered
        self.action_space = gym.spaces.Discrete(n)
        self.snapshots: list[NumpyPolicy] = []
        self._info = ModelInfo("MaskablePPO", "", self.parallel.scenario.name, 0,
                               self.parallel.obs_version, "flat", n, None)
        self._learner = agents[0]
        self._opponent: NumpyPolicy | None = None
        self._obs: dict[str, Any] = {}
        self._mask = np.zeros(n, dtype=np.int8)

    def add_snapshot(self, layers: Layers, activation: str) -> int:
        """Add a past version of the learner (its policy layers); returns the league size."""
        self.snapshots.append(NumpyPolicy(layers, activation, self._info))
        if len(self.snapshots) > self.max_snapshots:
            self.snapshots.pop(0)
        return len(self.snapshots)

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions now (what MaskablePPO reads)."""
        return self._mask.copy()

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        if not self.snapshots:
            raise RuntimeError("the league is empty: add_snapshot() before reset()")
        agents = self.parallel.possible_agents
        seat = int(self.np_random.integers(len(agents))) if self.seat is None else self.seat
        self._learner = agents[seat]
        pick = len(self.snapshots) - 1
        if self.np_random.random() >= self.latest:
            pick = int(self.np_random.integers(len(self.snapshots)))
        self._opponent = self.snapshots[pick]
        sub_seed = int(self.np_random.integers(2**31))
        self._obs, _ = self.parallel.reset(seed=sub_seed)
        _, done = self._play_others()  # the learner's reward before its first move is 0
        if done:  # over before the learner was asked: rare; draw another battle
            return self.reset(options=options)
        return self._own_obs(), self._own_info()

    def step(
        self, action: np.int64 | int
    ) -> tuple[np.ndarray, SupportsFloat, bool, bool, dict[str, Any]]:
        obs, rewards, terms, truncs, _ = self.parallel.step({self._learner: int(action)})
        self._obs = obs
        reward = float(rewards.get(self._learner, 0.0))
        done = bool(terms.get(self._learner)) or bool(truncs.get(self._learner))
        truncated = bool(truncs.get(self._learner)) and not bool(terms.get(self._learner))
        if done:
            self._mask = self.parallel.match.final_mask.copy()  # pass alone, never all zeros
        else:
            more, done = self._play_others()
            reward += more
        return self._own_obs(), reward, done and not truncated, truncated, self._own_info()

    # --- internals ---------------------------------------------------------------
    def _asked(self) -> str | None:
        """The agent being asked to decide (its mask offers more than the noop)."""
        for agent, o in self._obs.items():
            if o["action_mask"][-1] == 0:
                return agent
        return None

    def _play_others(self) -> tuple[float, bool]:
        """Let the snapshot answer until the learner is asked; (learner's reward, over)."""
        total = 0.0
        assert self._opponent is not None
        while self.parallel.agents:
            asked = self._asked()
            if asked is None or asked == self._learner:
                self._mask = np.asarray(self._obs[self._learner]["action_mask"][:-1], np.int8)
                return total, False
            o = self._obs[asked]
            a = self._opponent.act(o["observation"], o["action_mask"][:-1])
            self._obs, rewards, _, _, _ = self.parallel.step({asked: a})
            total += float(rewards.get(self._learner, 0.0))
        self._mask = self.parallel.match.final_mask.copy()  # pass alone, never all zeros
        return total, True

    def _own_obs(self) -> np.ndarray:
        return np.asarray(self._obs[self._learner]["observation"], dtype=np.float32)

    def _own_info(self) -> dict[str, Any]:
        return {"action_mask": self._mask.copy(), "seat": self._learner}
