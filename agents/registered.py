"""The agents :mod:`vtm_sim.policies.registry` names, as battle-policy makers.

The engine's registry reaches these through lazy entry points
(``"agents.registered:brawler"``), so it never imports ``agents`` itself.
Each builder takes the scenario (the agent sees that scenario's observation
and action catalog) and the text after the name's prefix, and returns a
``(generator, combatant id) -> policy`` maker.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import numpy as np

from agents.adapter import AgentPolicy
from agents.learned import load_agent
from agents.scripted import BrawlerAgent, RandomAgent
from envs.mixed import COMMON, MIXED
from vtm_sim.errors import ConfigError
from vtm_sim.files.scenarios import Scenario
from vtm_sim.policies.play import Policy
from vtm_sim.policies.registry import PolicyMaker

__all__ = ["POLICY_DIR", "brawler", "model", "random_agent", "shipped", "trained"]

POLICY_DIR = Path(__file__).resolve().parent / "policies"  # trained policies shipped by name


def brawler(scenario: Scenario, _arg: str = "") -> PolicyMaker:
    def make(_rng: np.random.Generator, cid: int) -> Policy:
        return AgentPolicy(lambda catalog, encoder: BrawlerAgent(catalog, encoder, cid), scenario,
                           seat=cid)

    return make


def random_agent(scenario: Scenario, _arg: str = "") -> PolicyMaker:
    def make(rng: np.random.Generator, _cid: int) -> Policy:
        return AgentPolicy(RandomAgent(rng), scenario)

    return make


def model(scenario: Scenario, path: str) -> PolicyMaker:
    """``model:PATH``: a model saved with :func:`agents.learned.save_model` (``.zip``, needs
    torch) or exported by ``vtm-sim export-policy`` (``.npz``, numpy only)."""

    try:
        agent = load_agent(path)
    except (OSError, ValueError, ImportError) as exc:
        raise ConfigError(f"model:{path}: cannot load the model ({exc})") from None
    mode: Literal["flat", "dict"] = "dict" if agent.info.obs_mode == "dict" else "flat"
    common = agent.info.scenario == MIXED  # trained on envs.mixed: its padded spaces
    if common:
        try:
            COMMON.check(scenario)
        except ValueError as exc:
            raise ConfigError(f"model:{path}: {exc}") from None

    def make(_rng: np.random.Generator, _cid: int) -> Policy:
        return AgentPolicy(agent, scenario, obs_mode=mode, common=common)

    return make


def shipped() -> list[str]:
    """The names of the trained policies shipped in ``agents/policies/``."""
    if not POLICY_DIR.is_dir():
        return []
    return sorted(p.stem for p in POLICY_DIR.glob("*.npz"))


def trained(scenario: Scenario, name: str) -> PolicyMaker:
    """``trained:NAME``: a policy shipped as ``agents/policies/NAME.npz``, exported by
    ``vtm-sim export-policy`` so that it plays with numpy alone (no torch)."""
    path = POLICY_DIR / f"{name}.npz"
    if not path.is_file():
        have = ", ".join(shipped()) or "none shipped yet"
        raise ConfigError(f"trained:{name}: no shipped policy {path} (shipped: {have})")
    return model(scenario, str(path))
