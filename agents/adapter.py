"""Agents in engine battles: an observation-and-mask agent as a battle policy.

Scripted and learned agents (``agents/``) act on the env's observation and
action mask; :class:`AgentPolicy` gives them the engine's policy interface
(``choose(battle, decision)``), so they can play in ``vtm-sim`` fights and
tournaments beside the engine's own policies, seeing exactly what the env
would show them. A model trained on the cross-scenario env (:mod:`envs.mixed`, its
metadata's scenario ``"mixed"``) sees the common padded spaces instead: ``common=True``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from agents.base import Agent, Explaining
from envs.actions import ActionCatalog, passive_choice
from envs.mixed import COMMON
from envs.observation import ObservationEncoder
from vtm_sim.core.choices import Choice, Decision
from vtm_sim.engine.battle import Battle
from vtm_sim.files.scenarios import Scenario

__all__ = ["AgentPolicy"]


class AgentPolicy:
    """Answers a battle's decisions with an ``act(observation, mask)`` agent."""

    def __init__(
        self,
        agent: Agent | Callable[[ActionCatalog, ObservationEncoder], Agent],
        scenario: Scenario,
        *,
        obs_mode: Literal["flat", "dict"] = "flat",
        seat: int = 0,
        common: bool = False,
    ) -> None:
        """``agent`` is an agent, or a function building one from the catalog (of
        combatant ``seat``) and encoder. ``common``: the padded catalog and encoder of
        :data:`envs.mixed.COMMON` (an agent of ``vtm_sim/Mixed-v6``), not the scenario's."""
        if common:
            self.catalog = COMMON.catalog(scenario, observer=seat)
            self.encoder = COMMON.encoder(scenario)
        else:
            self.catalog = ActionCatalog.for_scenario(scenario, observer=seat)
            self.encoder = ObservationEncoder.for_scenario(scenario)
        self.agent: Agent = agent if isinstance(agent, Agent) else agent(self.catalog, self.encoder)
        self.obs_mode = obs_mode

    def choose(self, battle: Battle, decision: Decision) -> Choice:
        if len(decision.options) == 1:
            return decision.options[0]
        flat = self.encoder.encode(battle, decision.actor)
        obs = self.encoder.split(flat) if self.obs_mode == "dict" else flat
        catalog = self.catalog.seat(decision.actor)  # targets relative to the actor
        index = int(self.agent.act(obs, catalog.mask(decision)))
        choice = catalog.choices[index] if 0 <= index < catalog.size else None
        return choice if choice in decision.options else passive_choice(decision)

    def explain(self) -> str:
        return self.agent.explain() if isinstance(self.agent, Explaining) else "a trained agent"
