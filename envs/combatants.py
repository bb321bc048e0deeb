"""What the two PettingZoo envs share: every combatant of a scenario is an agent.

:class:`envs.multi.VtmParallelEnv` and :class:`envs.aec.VtmAECEnv` differ only in how
they hand the pending decision to agents. Their arguments (all but ``max_steps`` make
the :class:`envs.match.MatchConfig`, as the Gymnasium env's do), the :class:`envs.match.Match`
they run on, the agent names, the spaces, seeding, rendering and closing are this
class's, once. A subclass sets :attr:`CombatantAgents.extra_actions` (the parallel env's
``noop``) and its own state in :meth:`CombatantAgents._setup`.
"""

from __future__ import annotations

import functools
from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium.utils import seeding

from envs.match import (
    DEFAULT_ILLEGAL_ACTION,
    DEFAULT_ILLEGAL_PENALTY,
    DEFAULT_SHAPING,
    IllegalAction,
    Match,
    MatchConfig,
    ObsMode,
)
from vtm_sim.data.formats import OBS_VERSION
from vtm_sim.engine.battle import Battle
from vtm_sim.files.scenarios import Scenario

__all__ = ["CombatantAgents"]


class CombatantAgents:
    """Every combatant of a scenario as a PettingZoo agent, ``combatant_0`` .. ``combatant_{n-1}``.

    Args:
        scenario: a scenario name, YAML path or loaded ``Scenario``.
        obs_mode: ``"flat"`` or ``"dict"`` (the ``observation`` entry).
        illegal_action: ``"penalize"`` (default: a pass with ``illegal_penalty``) or
            ``"raise"`` (``IllegalActionError``, for debugging).
        illegal_penalty: the reward of an illegal action under ``"penalize"``.
        shaping: damage shaping weight (``envs.DEFAULT_SHAPING``).
        skip_forced: answer single-option decisions automatically.
        turn_limit: override the scenario's turn limit.
        max_steps: truncate after this many steps (None: the battle's turn limit only).
        render_mode: ``"ansi"``, ``"human"`` (prints the ansi text), ``"rgb_array"`` or None.
    """

    extra_actions: ClassVar[int] = 0  # actions after the catalog's (the parallel env's noop)

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
        self.config = config = MatchConfig(
            obs_mode=obs_mode,
            illegal_action=illegal_action,
            illegal_penalty=illegal_penalty,
            shaping=shaping,
            skip_forced=skip_forced,
            turn_limit=turn_limit,
            render_mode=render_mode,
        )
        self.match = m = Match(scenario, None, config)
        self.scenario = m.scenario
        self.catalog = m.catalog
        self.encoder = m.encoder
        self.obs_mode = obs_mode
        self.illegal_action = illegal_action
        self.illegal_penalty = m.illegal_penalty
        self.shaping = m.shaping
        self.max_steps = max_steps
        self.render_mode = render_mode
        self.obs_version = OBS_VERSION
        self.possible_agents: list[str] = [f"combatant_{i}" for i in range(len(m.sides))]
        self.agents: list[str] = []
        self._ids = {a: i for i, a in enumerate(self.possible_agents)}
        n_actions = self.catalog.size + self.extra_actions
        inner = self.encoder.flat_space if obs_mode == "flat" else self.encoder.dict_space
        mask_space = gymnasium.spaces.Box(0, 1, (n_actions,), dtype=np.int8)
        self._obs_space = gymnasium.spaces.Dict({"observation": inner, "action_mask": mask_space})
        self._act_space = gymnasium.spaces.Discrete(n_actions)
        self.np_random, _ = seeding.np_random(None)
        self._steps = 0
        self._setup()

    def _setup(self) -> None:
        """A subclass's own state, set at the end of ``__init__``."""

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

    def _start(self, seed: int | None) -> Battle:
        """A fresh battle (dice from ``seed``, else the env's generator), step count 0."""
        if seed is not None:
            self.np_random, _ = seeding.np_random(seed)
        self._steps = 0
        return self.match.start(self.np_random, {})

    def _truncating(self, over: bool) -> bool:
        """Count a step; whether ``max_steps`` truncates the unfinished battle now."""
        self._steps += 1
        return not over and self.max_steps is not None and self._steps >= self.max_steps

    def render(self) -> str | np.ndarray | None:
        return self.match.render()

    def close(self) -> None:
        self.match.battle = None
