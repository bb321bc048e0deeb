"""Ray RLlib (new API stack) over the PettingZoo envs: registered names, masked multi-agent PPO.

``pip install 'vtm-sim[rllib]'`` (torch first: ``pip install torch==2.13.0``, the CPU
build). RLlib's own PettingZoo wrappers take our envs once their per-agent observation
uses the key names of RLlib's action-masking example, ``{"observations": ...,
"action_mask": ...}`` (:func:`rllib_keys`; the mask as float32 in [0, 1]), and RLlib's
own ``ActionMaskingTorchRLModule`` (``ray.rllib.examples.rl_modules.classes``) masks the
logits: PPO never samples an action outside the mask. :func:`register` gives RLlib
one name per scenario and form,

- ``vtm_sim_<scenario>_parallel``: ``ParallelPettingZooEnv(rllib_keys(VtmParallelEnv(scenario)))``
  (every combatant steps at once, ``noop`` when not asked);
- ``vtm_sim_<scenario>_aec``: ``PettingZooEnv(rllib_keys(VtmAECEnv(scenario)))`` (only
  the combatant asked acts),

whose ``env_config`` holds the envs' keywords (``shaping``, ``max_steps``, ...; keep the
default ``obs_mode="flat"``: RLlib's default encoder takes the flat ``Box``), and
:func:`ppo_config` is a ``PPOConfig`` of masked multi-agent PPO on one of them::

    import ray
    from envs.rllib import ppo_config

    ray.init()
    algo = ppo_config("duel", env="aec").build_algo()
    result = algo.train()
    result["env_runners"]["illegal_actions"]  # 0: the mask holds

By default every combatant maps to one shared module (``"shared"``): observations are
relative to the observer, so one network plays any seat; ``shared=False`` gives each
combatant its own. Every episode logs ``illegal_actions`` (the env's count, summed over
the combatants) in ``result["env_runners"]``. ``docs/environments/rllib.md`` has the
full example and how to train on more than one machine.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any, Literal

import gymnasium
import numpy as np
from pettingzoo import ParallelEnv  # type: ignore[import-untyped]
from pettingzoo.utils.wrappers import (  # type: ignore[import-untyped]
    BaseParallelWrapper,
    BaseWrapper,
)

try:
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.env.multi_agent_env import MultiAgentEnv
    from ray.rllib.env.wrappers.pettingzoo_env import ParallelPettingZooEnv, PettingZooEnv
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import (
        ActionMaskingTorchRLModule,
    )
    from ray.tune.registry import register_env
except ImportError as exc:  # one line, not RLlib's traceback
    raise ImportError(
        "envs.rllib needs Ray RLlib: pip install torch==2.13.0 && pip install 'vtm-sim[rllib]'"
    ) from exc

from envs.aec import VtmAECEnv
from envs.multi import VtmParallelEnv
from vtm_sim.files.scenarios import list_scenarios

__all__ = [
    "ENV_FORMS",
    "MASK_KEY",
    "OBS_KEY",
    "SHARED",
    "env_name",
    "log_illegal_actions",
    "make_env",
    "ppo_config",
    "register",
    "rllib_keys",
]

EnvForm = Literal["parallel", "aec"]
ENV_FORMS: tuple[EnvForm, ...] = ("parallel", "aec")
OBS_KEY = "observations"  # RLlib's masking example's names (ours: "observation")
MASK_KEY = "action_mask"
SHARED = "shared"  # the module every combatant maps to by default


def env_name(scenario: str = "duel", env: EnvForm = "parallel") -> str:
    """The name :func:`register` gives RLlib: ``vtm_sim_duel_parallel``, ``vtm_sim_duel_aec``."""
    if env not in ENV_FORMS:
        raise ValueError(f"env must be one of {ENV_FORMS}, not {env!r}")
    return f"vtm_sim_{scenario}_{env}"


# --- the key names RLlib's masking module reads ------------------------------------------


def _space(space: gymnasium.spaces.Space[Any]) -> gymnasium.spaces.Dict:
    assert isinstance(space, gymnasium.spaces.Dict)
    mask = space[MASK_KEY]
    assert mask.shape is not None
    return gymnasium.spaces.Dict(
        {
            OBS_KEY: space["observation"],
            MASK_KEY: gymnasium.spaces.Box(0.0, 1.0, mask.shape, dtype=np.float32),
        }
    )


def _obs(obs: dict[str, Any]) -> dict[str, Any]:
    return {OBS_KEY: obs["observation"], MASK_KEY: obs[MASK_KEY].astype(np.float32)}


class _ParallelKeys(BaseParallelWrapper):  # type: ignore[misc]
    """A parallel env whose observations carry RLlib's key names."""

    @functools.cache  # noqa: B019  (the same space object every time, as PettingZoo asks)
    def observation_space(self, agent: str) -> gymnasium.spaces.Dict:
        return _space(self.env.observation_space(agent))

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        obs, infos = self.env.reset(seed=seed, options=options)
        return {a: _obs(o) for a, o in obs.items()}, infos

    def step(self, actions: dict[str, Any]) -> tuple[Any, ...]:
        obs, *rest = self.env.step(actions)
        return ({a: _obs(o) for a, o in obs.items()}, *rest)


class _AECKeys(BaseWrapper):  # type: ignore[misc]
    """An AEC env whose observations carry RLlib's key names."""

    @functools.cache  # noqa: B019
    def observation_space(self, agent: str) -> gymnasium.spaces.Dict:
        return _space(self.env.observation_space(agent))

    def observe(self, agent: str) -> dict[str, Any]:
        return _obs(self.env.observe(agent))


def rllib_keys(env: Any) -> Any:
    """``env`` (a PettingZoo parallel or AEC env of ours) with each observation as
    ``{"observations": ..., "action_mask": float32}``, the names of RLlib's masking example."""
    if isinstance(env, ParallelEnv):
        return _ParallelKeys(env)
    return _AECKeys(env)


def make_env(scenario: str = "duel", env: EnvForm = "parallel", **kwargs: Any) -> MultiAgentEnv:
    """The RLlib env :func:`register` names: RLlib's ``ParallelPettingZooEnv`` or
    ``PettingZooEnv`` around our env (``kwargs``: its keywords) with RLlib's key names."""
    if env == "parallel":
        wrapped = rllib_keys(VtmParallelEnv(scenario, **kwargs))
        return ParallelPettingZooEnv(wrapped)  # type: ignore[no-untyped-call, unused-ignore]
    if env == "aec":
        wrapped = rllib_keys(VtmAECEnv(scenario, **kwargs))
        return PettingZooEnv(wrapped)  # type: ignore[no-untyped-call, unused-ignore]
    raise ValueError(f"env must be one of {ENV_FORMS}, not {env!r}")


def register(scenarios: Sequence[str] | None = None) -> list[str]:
    """Register both forms of each scenario (default: ``duel`` and every scenario file)
    with RLlib (``ray.tune.registry.register_env``); returns the names. An algorithm's
    ``env_config`` is passed to the env as keywords."""
    names = []
    for scenario in scenarios or dict.fromkeys(["duel", *list_scenarios()]):
        for form in ENV_FORMS:
            creator = functools.partial(_create, scenario, form)
            register_env(env_name(scenario, form), creator)
            names.append(env_name(scenario, form))
    return names


def _create(scenario: str, env: EnvForm, config: dict[str, Any]) -> MultiAgentEnv:
    return make_env(scenario, env, **dict(config or {}))


# --- masked multi-agent PPO ----------------------------------------------------------------


def _to_shared(agent_id: str, episode: Any = None, **kwargs: Any) -> str:
    return SHARED


def _to_self(agent_id: str, episode: Any = None, **kwargs: Any) -> str:
    return agent_id


def log_illegal_actions(*, episode: Any, metrics_logger: Any = None, **kwargs: Any) -> None:
    """An ``on_episode_end`` callback: logs ``illegal_actions``, the episode's illegal
    actions (the env's ``infos[agent]["illegal_actions"]``, summed over the agents)."""
    total = 0
    for agent in episode.agent_episodes.values():
        infos = agent.get_infos()
        if len(infos):
            total += int(infos[-1].get("illegal_actions", 0))
    if metrics_logger is not None:
        metrics_logger.log_value("illegal_actions", total, reduce="sum")


def ppo_config(
    scenario: str = "duel",
    env: EnvForm = "parallel",
    *,
    env_config: dict[str, Any] | None = None,
    shared: bool = True,
    hiddens: Sequence[int] = (64, 64),
) -> PPOConfig:
    """A ``PPOConfig`` (new API stack, torch) of masked multi-agent PPO on
    ``vtm_sim_<scenario>_<env>`` (registered here): every combatant maps to the module
    ``"shared"`` (``shared=False``: one module per combatant, named after it), each an
    ``ActionMaskingTorchRLModule`` with ``hiddens`` (the encoder's and the heads'
    layers); ``illegal_actions`` is logged per episode. Chain RLlib's own setters on it
    (``.env_runners(...)``, ``.training(...)``, ``.learners(...)``) as on any config."""
    register([scenario])
    if shared:
        ids: list[str] = [SHARED]
        mapping: Callable[..., str] = _to_shared
    else:
        probe = VtmParallelEnv(scenario, **(env_config or {}))
        ids, mapping = list(probe.possible_agents), _to_self
    model = {
        "fcnet_hiddens": list(hiddens),
        "head_fcnet_hiddens": list(hiddens),
        "vf_share_layers": False,
    }
    spec = MultiRLModuleSpec(
        rl_module_specs={
            i: RLModuleSpec(module_class=ActionMaskingTorchRLModule, model_config=model)
            for i in ids
        }
    )
    config: PPOConfig = (
        PPOConfig()  # type: ignore[no-untyped-call, unused-ignore]
        .environment(env_name(scenario, env), env_config=dict(env_config or {}))
        .multi_agent(policies=set(ids), policy_mapping_fn=mapping)
        .rl_module(rl_module_spec=spec)
        .callbacks(on_episode_end=log_illegal_actions)
    )
    return config
