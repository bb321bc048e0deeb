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
  The same mask is in ``infos[agent]["action_mask"]``.
- Only the asked agent's action changes the battle. Any other non-``noop``
  action, or an illegal action of the asked agent, raises
  :class:`~vtm_sim.errors.IllegalActionError`, or with
  ``illegal_action="penalize"`` is treated as ``noop`` / the passive option at
  ``illegal_penalty`` for that agent.
- Rewards: +1 for every combatant of the winning side, -1 for the others, 0
  for a draw; plus ``shaping`` x (levels taken by that combatant's enemies -
  levels it took) per step.

:func:`aec_env` wraps it as an AEC environment (PettingZoo's
``parallel_to_aec``).
"""

from __future__ import annotations

import functools
from typing import Any, Literal

import gymnasium
import numpy as np
from gymnasium.utils import seeding
from pettingzoo import AECEnv, ParallelEnv  # type: ignore[import-untyped]
from pettingzoo.utils.conversions import parallel_to_aec  # type: ignore[import-untyped]

from envs.actions import ActionCatalog, passive_choice
from envs.env import levels_taken, load, render_ansi
from envs.observation import OBS_VERSION, ObservationEncoder
from vtm_sim.battle import Battle
from vtm_sim.choices import Choice
from vtm_sim.dice import RngDice
from vtm_sim.errors import IllegalActionError
from vtm_sim.scenario import Scenario
from vtm_sim.tables import load_tables

__all__ = ["VtmParallelEnv", "aec_env", "parallel_env"]

AgentObs = dict[str, Any]


class VtmParallelEnv(ParallelEnv):  # type: ignore[misc]
    """Every combatant of a scenario as a PettingZoo agent (see the module docstring).

    Args:
        scenario: a scenario name, YAML path or loaded ``Scenario``.
        obs_mode: ``"flat"`` or ``"dict"`` (the ``observation`` entry).
        illegal_action: ``"penalize"`` (default: a pass with ``illegal_penalty``) or
            ``"raise"`` (``IllegalActionError``, for debugging).
        illegal_penalty: the reward of an illegal action under ``"penalize"``.
        shaping: damage shaping weight.
        skip_forced: answer single-option decisions automatically.
        turn_limit: override the scenario's turn limit.
        max_steps: truncate after this many steps (None: the battle's turn limit only).
        render_mode: ``"ansi"`` or None.
    """

    metadata: dict[str, Any] = {  # noqa: RUF012
        "name": "vtm_sim_parallel_v0",
        "render_modes": ["ansi"],
        "is_parallelizable": True,
    }

    def __init__(
        self,
        scenario: str | Scenario = "duel",
        *,
        obs_mode: Literal["flat", "dict"] = "flat",
        illegal_action: Literal["raise", "penalize"] = "penalize",
        illegal_penalty: float = -0.1,
        shaping: float = 0.0,
        skip_forced: bool = True,
        turn_limit: int | None = None,
        max_steps: int | None = None,
        render_mode: str | None = None,
    ) -> None:
        if obs_mode not in ("flat", "dict"):
            raise ValueError(f"obs_mode {obs_mode!r}: expected 'flat' or 'dict'")
        if illegal_action not in ("raise", "penalize"):
            raise ValueError(f"illegal_action {illegal_action!r}: expected 'raise' or 'penalize'")
        if render_mode is not None and render_mode != "ansi":
            raise ValueError(f"render_mode {render_mode!r}: expected None or 'ansi'")
        self.scenario = load(scenario)
        tables = load_tables()
        fighters = self.scenario.fighters
        n = len(fighters)
        self.catalog = ActionCatalog.for_scenario(self.scenario, tables)
        self.encoder = ObservationEncoder.for_scenario(self.scenario, tables)
        self.noop = self.catalog.size
        self.obs_mode = obs_mode
        self.illegal_action = illegal_action
        self.illegal_penalty = float(illegal_penalty)
        self.shaping = float(shaping)
        self.skip_forced = skip_forced
        self.turn_limit = turn_limit
        self.max_steps = max_steps
        self.render_mode = render_mode
        self.obs_version = OBS_VERSION
        self.possible_agents: list[str] = [f"combatant_{i}" for i in range(n)]
        self.agents: list[str] = []
        self._ids = {a: i for i, a in enumerate(self.possible_agents)}
        self._sides = [f.side for f in fighters]
        inner = self.encoder.flat_space if obs_mode == "flat" else self.encoder.dict_space
        mask_space = gymnasium.spaces.Box(0, 1, (self.noop + 1,), dtype=np.int8)
        self._obs_space = gymnasium.spaces.Dict({"observation": inner, "action_mask": mask_space})
        self._act_space = gymnasium.spaces.Discrete(self.noop + 1)
        self._noop_mask = np.zeros(self.noop + 1, dtype=np.int8)
        self._noop_mask[self.noop] = 1
        self._masks: list[np.ndarray] = []
        self.np_random, _ = seeding.np_random(None)
        self.battle: Battle | None = None
        self._steps = 0
        self._step_start = 0

    # Each agent gets the same space object every time (PettingZoo requires it).
    @functools.cache  # noqa: B019
    def observation_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        return self._obs_space

    @functools.cache  # noqa: B019
    def action_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        return self._act_space

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, AgentObs], dict[str, dict[str, Any]]]:
        if seed is not None:
            self.np_random, _ = seeding.np_random(seed)
        self.battle = self.scenario.battle(dice=RngDice(self.np_random), turn_limit=self.turn_limit)
        self._steps = 0
        self._step_start = 0
        self._advance(self.battle)
        self.agents = list(self.possible_agents) if self.battle.pending is not None else []
        return self._observe(self.battle), self._infos(self.battle)

    def step(
        self, actions: dict[str, Any]
    ) -> tuple[
        dict[str, AgentObs],
        dict[str, float],
        dict[str, bool],
        dict[str, bool],
        dict[str, dict[str, Any]],
    ]:
        b = self.battle
        if b is None or b.pending is None or not self.agents:
            raise RuntimeError("the battle is over: call reset()")
        d = b.pending
        asked = self.possible_agents[d.actor]
        rewards = dict.fromkeys(self.agents, 0.0)
        illegal: set[str] = set()
        for agent in self.agents:
            if agent != asked and agent in actions and int(actions[agent]) != self.noop:
                self._illegal(agent, int(actions[agent]), "it is not being asked")
                illegal.add(agent)
        raw = actions.get(asked)
        a = self.noop if raw is None else int(raw)
        mask = self._masks[d.actor]
        choice: Choice
        if 0 <= a < self.noop and mask[a]:
            choice = self.catalog.choices[a]
        else:
            self._illegal(asked, a, f"it is not legal at this {d.kind.value} decision")
            illegal.add(asked)
            choice = passive_choice(d)
        for agent in illegal:
            rewards[agent] += self.illegal_penalty
        self._step_start = len(b.log.events)
        b.choose(choice)
        self._advance(b)
        self._steps += 1
        if self.shaping:
            self._shape(b, rewards)
        over = b.pending is None
        if over and b.winner is not None:
            for agent in self.agents:
                rewards[agent] += 1.0 if self._sides[self._ids[agent]] == b.winner else -1.0
        truncate = not over and self.max_steps is not None and self._steps >= self.max_steps
        terminations = dict.fromkeys(self.agents, over)
        truncations = dict.fromkeys(self.agents, truncate)
        observations = self._observe(b)
        infos = self._infos(b)
        for agent in illegal:
            infos[agent]["illegal"] = True
        if over or truncate:
            self.agents = []
        return observations, rewards, terminations, truncations, infos

    def render(self) -> str | None:
        return render_ansi(self.render_mode, self.battle, self._step_start)

    def close(self) -> None:
        self.battle = None

    def action_mask(self, agent: str) -> np.ndarray:
        """The legal actions of ``agent`` now (int8)."""
        return self._masks[self._ids[agent]].copy()

    # --- internals -------------------------------------------------------
    def _illegal(self, agent: str, action: int, why: str) -> None:
        if self.illegal_action == "raise":
            label = (
                self.catalog.describe(action)
                if 0 <= action < self.noop
                else ("noop" if action == self.noop else "?")
            )
            raise IllegalActionError(f"{agent}: action {action} ({label}): {why}")

    def _advance(self, b: Battle) -> None:
        d = b.pending
        if self.skip_forced:
            while d is not None and len(d.options) == 1:
                d = b.choose(d.options[0])
        masks = [self._noop_mask] * len(self.possible_agents)
        if d is not None:
            m = np.zeros(self.noop + 1, dtype=np.int8)
            m[: self.noop] = self.catalog.mask(d)  # the catalog's (cached) mask; noop stays 0
            masks[d.actor] = m
        self._masks = masks

    def _observe(self, b: Battle) -> dict[str, AgentObs]:
        enc = self.encoder
        out: dict[str, AgentObs] = {}
        for agent in self.agents:
            i = self._ids[agent]
            flat = enc.encode(b, i)
            obs = flat if self.obs_mode == "flat" else enc.split(flat)
            out[agent] = {"observation": obs, "action_mask": self._masks[i].copy()}
        return out

    def _infos(self, b: Battle) -> dict[str, dict[str, Any]]:
        d = b.pending
        out: dict[str, dict[str, Any]] = {}
        for agent in self.agents:
            i = self._ids[agent]
            info: dict[str, Any] = {
                "action_mask": self._masks[i],
                "decision": d.kind.value if d is not None and d.actor == i else "",
                "turn": b.turn,
            }
            if d is None:
                info["winner"] = -1 if b.winner is None else b.winner
                info["end_reason"] = b.end_reason
            out[agent] = info
        return out

    def _shape(self, b: Battle, rewards: dict[str, float]) -> None:
        taken = [0] * len(self.possible_agents)
        levels_taken(b.log.events, self._step_start, taken)
        for agent in self.agents:
            i = self._ids[agent]
            side = self._sides[i]
            dealt = sum(t for t, s in zip(taken, self._sides, strict=True) if s != side)
            rewards[agent] += self.shaping * (dealt - taken[i])


def parallel_env(**kwargs: Any) -> VtmParallelEnv:
    """PettingZoo-style constructor: ``parallel_env(scenario="duel", ...)``."""
    return VtmParallelEnv(**kwargs)


def aec_env(**kwargs: Any) -> AECEnv:
    """The AEC form (PettingZoo's ``parallel_to_aec`` of :class:`VtmParallelEnv`)."""
    env: AECEnv = parallel_to_aec(VtmParallelEnv(**kwargs))
    return env
