"""PettingZoo version: every combatant of a scenario is an agent.

The battle is sequential: at any moment one combatant is being asked to decide
(``battle.pending``). :class:`VtmParallelEnv` still steps every live agent at
once, the PettingZoo ``ParallelEnv`` way:

- Agents are ``combatant_0`` .. ``combatant_{n-1}`` (the scenario's ids). All
  stay in ``agents`` until the battle ends (a combatant that is down simply
  has nothing to decide), then all terminate together; ``max_steps``
  truncates them all.
- Each action space is ``Discrete(len(catalog) + 1)``: the single-agent
  catalog (:mod:`envs.actions`, same indices) plus a last index, ``noop``.
- Each observation is ``{"observation": ..., "action_mask": int8 array}``:
  the single-agent encoding seen by that combatant (its ``decision`` block is
  zero unless it is the one asked) and its legal actions. The asked agent's
  mask marks its legal choices; every other agent's mask marks only ``noop``.
  The same mask is in ``infos[agent]["action_mask"]``. Once the battle is over every
  agent's mask is ``noop`` alone, so no mask is ever all zeros.
- Only the asked agent's action changes the battle. By default any other
  non-``noop`` action is ignored, and an illegal action of the asked agent is
  its passive option, each at ``illegal_penalty`` (-0.1) for that agent, with
  ``infos[agent]["illegal"]`` and the episode's count in
  ``infos[agent]["illegal_actions"]``; ``illegal_action="raise"`` raises
  :class:`~vtm_sim.errors.IllegalActionError` instead.
- Rewards: +1 for every combatant of the winning side, -1 for the others, 0
  for a draw; plus ``shaping`` x (levels taken by that combatant's enemies -
  levels it took) per step (``shaping`` defaults to ``envs.DEFAULT_SHAPING``).

Masks, rewards, infos and illegal actions are :class:`envs.match.Match`'s, shared
with the Gymnasium env; arguments, agents and spaces are
:class:`envs.combatants.CombatantAgents`', shared with the AEC env,
:class:`envs.aec.VtmAECEnv`, in which only the combatant being asked acts (no ``noop``).

## Version History

The same versions as the Gymnasium ids' (:class:`envs.env.VtmEnv`: one core, one
observation layout and action catalog), in ``metadata["name"]``
(``vtm_sim_parallel_v6``) with the layout in ``metadata["obs_version"]``: v6
observation layout 6 (a seat feature) and action targets relative to the observer,
so one policy plays every agent; v5 observation layout 5 (the ``tempo`` block); v4
layout 4 and the jumping moves; v3 layout 3 with flee and pursue; v2 layout 2; v1
layout 1; v0 the name that all of them carried until 2026-12-07.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from pettingzoo import AECEnv, ParallelEnv  # type: ignore[import-untyped]

from envs import VERSION
from envs.aec import VtmAECEnv
from envs.combatants import CombatantAgents
from envs.match import RENDER_MODES
from vtm_sim.data.formats import OBS_VERSION

__all__ = ["VtmParallelEnv", "aec_env", "parallel_env"]

AgentObs = dict[str, Any]


class VtmParallelEnv(CombatantAgents, ParallelEnv):  # type: ignore[misc]
    """Every combatant of a scenario as a PettingZoo agent (see the module docstring).

    Args (:class:`envs.combatants.CombatantAgents`, shared with the AEC env):
        scenario: a scenario name, YAML path or loaded ``Scenario``.
        obs_mode: ``"flat"`` or ``"dict"`` (the ``observation`` entry).
        illegal_action: ``"penalize"`` (default: a pass with ``illegal_penalty``) or
            ``"raise"`` (``IllegalActionError``, for debugging).
        illegal_penalty: the reward of an illegal action under ``"penalize"``.
        shaping: damage shaping weight.
        skip_forced: answer single-option decisions automatically.
        turn_limit: override the scenario's turn limit.
        max_steps: truncate after this many steps (None: the battle's turn limit only).
        render_mode: ``"ansi"``, ``"human"`` (prints the ansi text), ``"rgb_array"`` or None.
    """

    metadata: dict[str, Any] = {  # noqa: RUF012
        "name": f"vtm_sim_parallel_v{VERSION}",
        "obs_version": OBS_VERSION,
        "render_modes": list(RENDER_MODES),
        "is_parallelizable": True,
    }
    extra_actions = 1  # noop, the last index

    def _setup(self) -> None:
        self.noop = self.catalog.size
        self._noop_mask = np.zeros(self.noop + 1, dtype=np.int8)
        self._noop_mask[self.noop] = 1
        self._masks: list[np.ndarray] = []

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, AgentObs], dict[str, dict[str, Any]]]:
        b = self._start(seed)
        self._update_masks()
        self.agents = list(self.possible_agents) if b.pending is not None else []
        return self._observe(), self._infos(set())

    def step(
        self, actions: dict[str, Any]
    ) -> tuple[
        dict[str, AgentObs],
        dict[str, float],
        dict[str, bool],
        dict[str, bool],
        dict[str, dict[str, Any]],
    ]:
        m = self.match
        b = m.battle
        if b is None or b.pending is None or not self.agents:
            raise RuntimeError("the battle is over: call reset()")
        d = b.pending
        asked = self.possible_agents[d.actor]
        illegal: set[str] = set()
        for agent in self.agents:
            if agent != asked and agent in actions and int(actions[agent]) != self.noop:
                m.illegal(self._ids[agent], int(actions[agent]), agent, "it is not being asked")
                illegal.add(agent)
        raw = actions.get(asked)
        choice, bad = m.resolve(self.noop if raw is None else int(raw), asked)
        if bad:
            illegal.add(asked)
        over = m.play(choice) is None
        self._update_masks()
        truncate = self._truncating(over)
        rewards = {a: m.reward(self._ids[a], a in illegal) for a in self.agents}
        terminations = dict.fromkeys(self.agents, over)
        truncations = dict.fromkeys(self.agents, truncate)
        observations = self._observe()
        infos = self._infos(illegal)
        if over or truncate:
            self.agents = []
        return observations, rewards, terminations, truncations, infos

    def action_mask(self, agent: str) -> np.ndarray:
        """The legal actions of ``agent`` now (int8)."""
        return self._masks[self._ids[agent]].copy()

    # --- internals -------------------------------------------------------
    def _update_masks(self) -> None:
        b = self.match.battle
        d = b.pending if b is not None else None
        masks = [self._noop_mask] * len(self.possible_agents)
        if d is not None:
            m = np.zeros(self.noop + 1, dtype=np.int8)
            m[: self.noop] = self.match.mask  # noop stays 0 for the asked agent
            masks[d.actor] = m
        self._masks = masks

    def _observe(self) -> dict[str, AgentObs]:
        m = self.match
        return {
            a: {"observation": m.observe(i), "action_mask": self._masks[i].copy()}
            for a in self.agents
            for i in (self._ids[a],)
        }

    def _infos(self, illegal: set[str]) -> dict[str, dict[str, Any]]:
        m = self.match
        return {
            a: m.info(i, self._masks[i], a in illegal) for a in self.agents for i in (self._ids[a],)
        }


def parallel_env(**kwargs: Any) -> VtmParallelEnv:
    """PettingZoo-style constructor: ``parallel_env(scenario="duel", ...)``."""
    return VtmParallelEnv(**kwargs)


def aec_env(**kwargs: Any) -> AECEnv:
    """The AEC form: :class:`envs.aec.VtmAECEnv` (only the combatant asked acts)."""

    env: AECEnv = VtmAECEnv(**kwargs)
    return env
