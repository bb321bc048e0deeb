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
  being asked). ``infos[agent]`` holds the same mask. Once the episode is over
  (terminated or truncated) every agent's mask holds the pass action alone
  (:meth:`envs.actions.ActionCatalog.final_mask`), so the observation that ``last()``
  gives a finished agent never has an all-zero mask.
- Rewards, shaping, infos and illegal actions are :class:`envs.match.Match`'s,
  as in the Gymnasium and parallel envs: by default an illegal action is the
  passive option at ``illegal_penalty`` (-0.1) with ``infos[agent]["illegal"]``
  and the episode's count in ``infos[agent]["illegal_actions"]``; a combatant's
  rewards accumulate between its turns (``last()`` gives the sum).

## Version History

The same versions as the Gymnasium ids' (:class:`envs.env.VtmEnv`: one core, one
observation layout and action catalog), in ``metadata["name"]``
(``vtm_sim_aec_v6``) with the layout in ``metadata["obs_version"]``: v6
observation layout 6 (a seat feature) and action targets relative to the observer,
so one policy plays every agent; v5 observation layout 5 (the ``tempo`` block); v4
layout 4 and the jumping moves; v3 layout 3 with flee and pursue; v2 layout 2; v1
layout 1; v0 the name that all of them carried until 2026-12-07.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from pettingzoo import AECEnv  # type: ignore[import-untyped]

from envs import VERSION
from envs.combatants import CombatantAgents
from envs.match import RENDER_MODES
from vtm_sim.data.formats import OBS_VERSION

__all__ = ["VtmAECEnv"]


class VtmAECEnv(CombatantAgents, AECEnv):  # type: ignore[misc]
    """Every combatant of a scenario as a PettingZoo AEC agent (see the module docstring).

    Takes the arguments of :class:`envs.multi.VtmParallelEnv` (both are
    :class:`envs.combatants.CombatantAgents`), with the same defaults.
    """

    metadata: dict[str, Any] = {  # noqa: RUF012
        "name": f"vtm_sim_aec_v{VERSION}",
        "obs_version": OBS_VERSION,
        "render_modes": list(RENDER_MODES),
        "is_parallelizable": False,
    }

    def _setup(self) -> None:
        AECEnv.__init__(self)
        self._no_mask = np.zeros(self.catalog.size, dtype=np.int8)
        self.rewards: dict[str, float] = {}
        self._cumulative_rewards: dict[str, float] = {}
        self.terminations: dict[str, bool] = {}
        self.truncations: dict[str, bool] = {}
        self.infos: dict[str, dict[str, Any]] = {}
        self.agent_selection = self.possible_agents[0]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        b = self._start(seed)
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
        truncate = self._truncating(over)
        self.rewards = {a: m.reward(self._ids[a], illegal and a == agent) for a in self.agents}
        self.terminations = dict.fromkeys(self.agents, over)
        self.truncations = dict.fromkeys(self.agents, truncate)
        self.infos = self._infos(agent if illegal else None)
        self._accumulate_rewards()
        if not (over or truncate):
            self.agent_selection = self._asked() or agent

    def mask(self, agent: str) -> np.ndarray:
        """The legal actions of ``agent`` now (int8; all zero unless it is being asked;
        the pass action alone once the episode is over, terminated or truncated)."""
        b = self.match.battle
        d = b.pending if b is not None else None
        if d is None or self.truncations.get(agent, False):
            return self.match.final_mask
        return self.match.mask if self._ids[agent] == d.actor else self._no_mask

    # --- internals -------------------------------------------------------
    def _asked(self) -> str | None:
        b = self.match.battle
        d = b.pending if b is not None else None
        return None if d is None else self.possible_agents[d.actor]

    def _infos(self, illegal: str | None) -> dict[str, dict[str, Any]]:
        m = self.match
        return {a: m.info(self._ids[a], self.mask(a), a == illegal) for a in self.agents}
