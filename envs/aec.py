"""PettingZoo AEC version: the combatant the rules ask is the agent to act, and only it.

A V20 battle is already an agent-environment cycle: at any moment one
combatant decides (blood, declaration, action, defense; the order follows
initiative, declarations run in reverse, a defender answers mid-action).
:class:`VtmAECEnv` hands each decision to that combatant and to nobody else:

- Agents are ``combatant_0`` .. ``combatant_{n-1}``. ``agent_selection`` is
  always the combatant being asked, so there are no turns with only a
  ``noop`` (unlike ``parallel_to_aec`` of the parallel env). A combatant that
  is down is never selected; all agents terminate together when the battle
  ends (each is then stepped once with ``None``, the AEC way), and
  ``max_steps`` truncates them all.
- The action space is the single-agent catalog, ``Discrete(len(catalog))``
  (:mod:`envs.actions`, same indices). ``observe(agent)`` is
  ``{"observation": ..., "action_mask": int8}``: the single-agent encoding
  seen by that combatant and its legal actions (all zero for a combatant not
  being asked). ``infos[agent]`` holds the same mask.
- Rewards, shaping, infos and illegal actions are :class:`envs.match.Match`'s,
  as in the Gymnasium and parallel envs: by default an illegal action is the
  passive option at ``illegal_penalty`` (-0.1) with ``infos[agent]["illegal"]``
  and the episode's count in ``infos[agent]["illegal_actions"]``; a combatant's
  rewards accumulate between its turns (``last()`` gives the sum).
"""

from __future__ import annotations

import functools
from typing import Any

import gymnasium
import numpy as np
from gymnasium.utils import seeding
from pettingzoo import AECEnv  # type: ignore[import-untyped]

from envs.match import (
    DEFAULT_ILLEGAL_ACTION,
    DEFAULT_ILLEGAL_PENALTY,
    DEFAULT_SHAPING,
    RENDER_MODES,
    IllegalAction,
    Match,
    ObsMode,
)
from envs.observation import OBS_VERSION
from vtm_sim.battle import Battle
from vtm_sim.scenario import Scenario

__all__ = ["VtmAECEnv"]


class VtmAECEnv(AECEnv):  # type: ignore[misc]
    """Every combatant of a scenario as a PettingZoo AEC agent (see the module docstring).

    Takes the arguments of :class:`envs.multi.VtmParallelEnv`, with the same defaults.
    """

    metadata: dict[str, Any] = {  # noqa: RUF012
        "name": "vtm_sim_aec_v0",
        "render_modes": list(RENDER_MODES),
        "is_parallelizable": False,
    }

    def __init__(
        self,
        scenario: str | Scenario = "duel",
        *,
        obs_mode: ObsMode = "flat",
        illegal_action: IllegalAction = DEFAULT_ILLEGAL_ACTION,
        illegal_penalty: float = DEFAULT_ILLEGAL_PENALTY,
        shaping: float = DEFAULT_SHAPING,
        skip_forced: bool = True,
        turn_limit: int | None = None,
        max_steps: int | None = None,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        self.match = m = Match(
            scenario,
            None,
            obs_mode=obs_mode,
            illegal_action=illegal_action,
            illegal_penalty=illegal_penalty,
            shaping=shaping,
            skip_forced=skip_forced,
            turn_limit=turn_limit,
            render_mode=render_mode,
        )
        self.scenario = m.scenario
        self.catalog = m.catalog
        self.encoder = m.encoder
        self.obs_mode = obs_mode
        self.max_steps = max_steps
        self.render_mode = render_mode
        self.obs_version = OBS_VERSION
        self.possible_agents: list[str] = [f"combatant_{i}" for i in range(len(m.sides))]
        self.agents: list[str] = []
        self._ids = {a: i for i, a in enumerate(self.possible_agents)}
        inner = self.encoder.flat_space if obs_mode == "flat" else self.encoder.dict_space
        mask_space = gymnasium.spaces.Box(0, 1, (self.catalog.size,), dtype=np.int8)
        self._obs_space = gymnasium.spaces.Dict({"observation": inner, "action_mask": mask_space})
        self._act_space = gymnasium.spaces.Discrete(self.catalog.size)
        self._no_mask = np.zeros(self.catalog.size, dtype=np.int8)
        self.np_random, _ = seeding.np_random(None)
        self.rewards: dict[str, float] = {}
        self._cumulative_rewards: dict[str, float] = {}
        self.terminations: dict[str, bool] = {}
        self.truncations: dict[str, bool] = {}
        self.infos: dict[str, dict[str, Any]] = {}
        self.agent_selection = self.possible_agents[0]
        self._steps = 0

    @property
    def battle(self) -> Battle | None:
        """The battle being played (None before the first reset)."""
        return self.match.battle

    # Each agent gets the same space object every time (PettingZoo requires it).
    @functools.cache  # noqa: B019
    def observation_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        return self._obs_space

    @functools.cache  # noqa: B019
    def action_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        return self._act_space

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self.np_random, _ = seeding.np_random(seed)
        b = self.match.start(self.np_random, {})
        self._steps = 0
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        over = b.pending is None
        self.terminations = dict.fromkeys(self.agents, over)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = self._infos(None)
        self.agent_selection = self._asked() or self.agents[0]

    def observe(self, agent: str) -> dict[str, Any]:
        i = self._ids[agent]
        return {"observation": self.match.observe(i), "action_mask": self.mask(agent).copy()}

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        m = self.match
        self._cumulative_rewards[agent] = 0.0
        choice, illegal = m.resolve(-1 if action is None else int(action), agent)
        over = m.play(choice) is None
        self._steps += 1
        truncate = not over and self.max_steps is not None and self._steps >= self.max_steps
        self.rewards = {a: m.reward(self._ids[a], illegal and a == agent) for a in self.agents}
        self.terminations = dict.fromkeys(self.agents, over)
        self.truncations = dict.fromkeys(self.agents, truncate)
        self.infos = self._infos(agent if illegal else None)
        self._accumulate_rewards()
        if not (over or truncate):
            self.agent_selection = self._asked() or agent

    def render(self) -> str | np.ndarray | None:
        return self.match.render()

    def close(self) -> None:
        self.match.battle = None

    def mask(self, agent: str) -> np.ndarray:
        """The legal actions of ``agent`` now (int8; all zero unless it is being asked)."""
        b = self.match.battle
        d = b.pending if b is not None else None
        return self.match.mask if d is not None and self._ids[agent] == d.actor else self._no_mask

    # --- internals -------------------------------------------------------
    def _asked(self) -> str | None:
        b = self.match.battle
        d = b.pending if b is not None else None
        return None if d is None else self.possible_agents[d.actor]

    def _infos(self, illegal: str | None) -> dict[str, dict[str, Any]]:
        m = self.match
        return {a: m.info(self._ids[a], self.mask(a), a == illegal) for a in self.agents}
