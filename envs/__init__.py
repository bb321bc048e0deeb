"""Gymnasium and PettingZoo environments over the vtm_sim battle engine.

Importing this package registers, in the ``vtm_sim`` namespace:

- ``vtm_sim/Duel-v6``: scenario ``duel`` (a 1v1 knife fight);
- one id per scenario file in ``configs/scenarios``, named in CamelCase
  (``bar_brawl`` -> ``vtm_sim/BarBrawl-v6``),

each with ``max_episode_steps=500`` (:func:`registered_ids`), and
``vtm_sim/Mixed-v6`` (:data:`MIXED_ID`, :func:`mixed_ids`): every scenario in one
env with a common, padded observation and action space, a scenario drawn per
episode from a training split, with a held-out test split (:mod:`envs.mixed`).
Every keyword of :class:`envs.env.VtmEnv`
can be passed to ``gymnasium.make``::

    import gymnasium as gym
    import envs  # noqa: F401  (or gym.make("envs:vtm_sim/Duel-v6"))

    env = gym.make("vtm_sim/Duel-v6", shaping=0.05, render_mode="ansi")
    obs, info = env.reset(seed=0)
    action = env.action_space.sample(mask=info["action_mask"])

Vectorizing: use ``vectorization_mode="sync"`` (``SyncVectorEnv``) by default.
A Duel step costs about 0.1 ms, no more than the ~0.11 ms of inter-process
communication that Gymnasium's ``AsyncVectorEnv`` adds to every step, so worker
processes only pay off with one idle core per sub-env and scenarios whose
steps cost well over 0.1 ms (many combatants, heavy opponent policies). On the
2-core reference machine sync beat async both for 4 Duel envs (7.9k vs 6.6k
env steps/s) and for 2 BarBrawl envs (8 combatants: 1.57k vs 1.45k);
``python experiments/bench_env.py`` measures both on yours. With the default
``autoreset_mode`` (next step) the mask returned with a sub-env's final step
holds the pass action alone (never all zeros): send it, or any action, the
autoreset ignores it.

Versions: the ``-vN`` of every id is :data:`VERSION`, raised whenever the observation
layout, the action catalog or the reward changes (the Gymnasium and PettingZoo
convention; ``docs/environments/history.yaml`` says what each version changed, and
:class:`envs.env.VtmEnv`'s docstring keeps the Version History). Only the current
version is registered, plus ``-v0`` (the name that observation layouts 1 to 5 all
carried until 2026-12-07, which scripts and checks written before still use): it makes the
current env, Gymnasium warning that it is out of date and naming the current id.
``gym.make`` of any other older version (``vtm_sim/Duel-v5``) raises Gymnasium's
``DeprecatedEnv``, one line naming the current id. The observation layout a version
encodes is in its spec, ``gym.spec(id).kwargs["obs_version"]`` (and in
``env.metadata["obs_version"]``); trained models record it, and loading one of another
layout fails naming both.

The multi-agent (PettingZoo) versions are :class:`VtmParallelEnv` (every
combatant steps at once, ``noop`` when not asked) and :class:`VtmAECEnv` (only
the combatant the rules ask acts); all three envs run on one core,
:class:`envs.match.Match`, set up by one :class:`envs.match.MatchConfig` built from
their keywords, with the same defaults (:data:`DEFAULT_SHAPING`, illegal actions
penalized).
"""

from __future__ import annotations

import gymnasium as gym

from envs.actions import ActionCatalog, CatalogError
from envs.env import VtmEnv
from envs.match import DEFAULT_ILLEGAL_PENALTY, DEFAULT_SHAPING
from envs.observation import ObservationEncoder
from vtm_sim.data.formats import OBS_VERSION
from vtm_sim.files.scenarios import list_scenarios

__all__ = [
    "DEFAULT_ILLEGAL_PENALTY",
    "DEFAULT_SHAPING",
    "LEGACY_VERSION",
    "MAX_EPISODE_STEPS",
    "MIXED_ID",
    "OBS_VERSION",
    "VERSION",
    "ActionCatalog",
    "CatalogError",
    "ObservationEncoder",
    "VtmAECEnv",
    "VtmEnv",
    "VtmParallelEnv",
    "current_id",
    "env_id",
    "mixed_ids",
    "registered_ids",
]

NAMESPACE = "vtm_sim"
# The ids' -vN: raise it (with an entry in docs/environments/history.yaml and the
# Version History of envs.env.VtmEnv, envs.multi and envs.aec) whenever the observation
# layout (OBS_VERSION), the action catalog or the reward changes. Versions 1 to 5 were
# observation layouts 1 to 5, all registered as -v0 at the time; version 6 is layout 6
# with action targets relative to the observer.
VERSION = 6
MAX_EPISODE_STEPS = 500
ENTRY_POINT = "envs.env:VtmEnv"


def env_id(scenario: str, version: int = VERSION) -> str:
    """The registered id of a scenario: ``bar_brawl`` -> ``vtm_sim/BarBrawl-v6``."""
    camel = "".join(part[:1].upper() + part[1:] for part in scenario.replace("-", "_").split("_"))
    return f"{NAMESPACE}/{camel}-v{version}"


def current_id(eid: str) -> str | None:
    """The registered id of the env ``eid`` names, at this code's version (None for a name
    this package does not register): ``vtm_sim/Duel-v0`` -> ``vtm_sim/Duel-v6``."""
    from gymnasium.envs.registration import get_env_id, parse_env_id

    try:
        ns, name, _ = parse_env_id(eid)
    except gym.error.Error:
        return None
    now = get_env_id(ns, name, VERSION)
    return now if now in _IDS or now == MIXED_ID else None


LEGACY_VERSION = 0  # the version every id had until 2026-12-07: kept, the current env


def _register(scenario: str) -> str:
    eid = env_id(scenario)
    for version in (VERSION, LEGACY_VERSION):
        name = env_id(scenario, version)
        if name not in gym.registry:
            gym.register(
                id=name,
                entry_point=ENTRY_POINT,
                kwargs={"scenario": scenario, "obs_version": OBS_VERSION},
                max_episode_steps=MAX_EPISODE_STEPS,
            )
    return eid


_IDS = [_register(name) for name in dict.fromkeys(["duel", *list_scenarios()])]


def registered_ids() -> list[str]:
    """Every per-scenario id this package registered (Duel-v6 first); the cross-scenario
    id is :func:`mixed_ids`'s."""
    return list(_IDS)


# The cross-scenario env (envs.mixed): new at version 6, so no -v0 name
MIXED_ID = f"{NAMESPACE}/Mixed-v{VERSION}"
if MIXED_ID not in gym.registry:
    gym.register(id=MIXED_ID, entry_point="envs.mixed:VtmMixedEnv",
                 kwargs={"split": "train", "obs_version": OBS_VERSION},
                 max_episode_steps=MAX_EPISODE_STEPS)


def mixed_ids() -> list[str]:
    """The ids of the envs over several scenarios (``vtm_sim/Mixed-v6``): the sibling of
    :func:`registered_ids`, whose ids play one scenario each."""
    return [MIXED_ID]


def __getattr__(name: str) -> object:
    """``envs.VtmParallelEnv`` and ``envs.VtmAECEnv``, imported with PettingZoo on first use.

    The one lazy import of this package, kept for a heavy dependency: PettingZoo takes
    about a second to import, and a Gymnasium user (``gym.make``) never needs it."""
    if name == "VtmParallelEnv":
        from envs.multi import VtmParallelEnv

        return VtmParallelEnv
    if name == "VtmAECEnv":
        from envs.aec import VtmAECEnv

        return VtmAECEnv
    raise AttributeError(f"module 'envs' has no attribute {name!r}")
