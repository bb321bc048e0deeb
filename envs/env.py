"""The single-agent Gymnasium environment: one combatant of a scenario learns."""

from __future__ import annotations

from typing import Any, Final, Literal, SupportsFloat, cast

import gymnasium as gym
import numpy as np

from envs.match import (
    DEFAULT_ILLEGAL_ACTION,
    DEFAULT_ILLEGAL_PENALTY,
    DEFAULT_SHAPING,
    RENDER_MODES,
    IllegalAction,
    Match,
    MatchConfig,
    ObsMode,
    ObsType,
    load,
)
from envs.opponents import OpponentSpec, opponent_factories
from vtm_sim.data.formats import OBS_VERSION
from vtm_sim.engine.battle import Battle
from vtm_sim.files.scenarios import Scenario

__all__ = ["CONTROLS", "Control", "VtmEnv"]

Control = Literal["combatant", "side"]
CONTROLS: Final[tuple[str, ...]] = ("combatant", "side")


class VtmEnv(gym.Env[ObsType, np.int64]):
    """A Vampire: The Masquerade V20 battle in which one combatant is the agent.

    ## Description

    A scenario (``configs/scenarios/*.yaml``) sets combatants, sides,
    positions, cover and the rules profile. The agent plays combatant
    ``agent_id``; every other combatant is answered by an opponent policy.
    The battle is the engine's state machine: the env answers the others'
    decisions until the agent has a decision to make (blood spending,
    declaration, an action, including a delayed character's interrupt, or a
    defense) or the battle ends. Decisions with a single legal option are
    answered automatically (``skip_forced``).

    ## Action Space

    ``Discrete(n)`` over a fixed catalog of every choice the engine can offer
    (:mod:`envs.actions`): blood spends, declarations (actions x Celerity x
    Willpower x full defense), every attack maneuver x target id x called
    shot x off hand, moves toward/away per target, draw per weapon slot,
    reload, get up, aim, cover, prone, grapple actions, feed, delay, wait,
    pass, and every defense x abort method. Only a handful are legal at a
    time: ``info["action_mask"]`` (int8) and ``action_masks()`` give them
    (sb3-contrib's MaskablePPO reads the latter through any wrapper; by hand,
    call ``env.unwrapped.action_masks()`` on a ``gymnasium.make`` env). By
    default an illegal action is accepted as the passive option (pass, no
    defense, the default declaration, no blood) at a reward of
    ``illegal_penalty`` (-0.1); ``info["illegal"]`` flags the step and
    ``info["illegal_actions"]`` counts them over the episode. With
    ``illegal_action="raise"`` it raises :class:`~vtm_sim.errors.IllegalActionError`.

    ## Observation Space

    ``Box(-1, 1, (d,), float32)``, or with ``obs_mode="dict"`` a ``Dict``
    with keys ``decision``, ``others`` (one row per other combatant) and
    ``self``: the same floats in the same order (``FlattenObservation`` of the
    dict is the flat observation), named by ``encoder.feature_names()``.
    Layout version ``OBS_VERSION``; see :mod:`envs.observation`.

    ## Rewards

    +1 when the agent's side wins, -1 when it loses, 0 for a draw (nobody
    standing, or the scenario's turn limit). With ``shaping`` > 0 every step
    also gives ``shaping * (health levels taken by enemies - health levels
    taken by the agent)`` over the events since the previous step.

    ## Starting State

    A fresh battle of the scenario with dice from ``self.np_random`` (so
    ``reset(seed=...)`` fixes the whole battle), run forward to the agent's
    first decision.

    ## Episode End

    Terminated when the battle ends (one side standing, everyone down, or the
    turn limit). If the agent is taken out while its allies fight on, the
    policies play the battle out within that step. The registered ids also
    truncate at ``max_episode_steps``. ``info`` holds the same keys, each of one
    type, on reset, on every step and at the end (:data:`envs.match.INFO_KEYS`):
    ``action_mask`` (int8), ``decision`` (str, the kind asked; ``""`` at the end),
    ``turn`` (int), ``illegal`` (bool), ``illegal_actions`` (int), ``winner`` (int:
    the winning side; -1 before the end and for a draw) and ``end_reason`` (str;
    ``""`` before the end). Once the battle is over the mask holds the pass action
    alone (``catalog.pass_index``), never all zeros, so ``-inf`` masking stays
    finite on a final observation.

    ## Arguments

    - ``scenario``: a scenario name, a YAML path or a loaded ``Scenario`` (``"duel"``).
    - ``agent_id``: the combatant the agent plays (0).
    - ``control``: ``"combatant"`` (default: the agent plays ``agent_id`` alone, its
      allies are answered by the opponent policies) or ``"side"`` (the agent plays
      every combatant of ``agent_id``'s side, as a policy does in a tournament or
      ``vtm-sim evaluate``: each step is the decision of whichever of them the rules
      ask, seen from that combatant; the reward is the side's, and with shaping the
      levels the whole side took count against it).
    - ``opponents``: policies of the others (:mod:`envs.opponents`; ``"nearest"``).
    - ``obs_mode``: ``"flat"`` or ``"dict"``.
    - ``illegal_action``: ``"penalize"`` (default: an action outside the mask is a pass
      with ``illegal_penalty``, -0.1, so standard checkers and trainers run on the
      defaults) or ``"raise"`` (``IllegalActionError``, for debugging).
    - ``shaping``: damage shaping weight (``envs.DEFAULT_SHAPING``, 0.0; also
      ``vtm-sim train``'s default).
    - ``skip_forced``: answer single-option decisions automatically (True).
    - ``turn_limit``: override the scenario's turn limit.
    - ``obs_version``: the observation layout the id encodes (its spec's; only
      ``OBS_VERSION`` is accepted: another raises ``ValueError`` naming both).
    - ``render_mode``: ``"ansi"`` (``render()`` narrates the events since the last
      step), ``"human"`` (``render()`` prints that same text; a step never renders, so
      call ``render()`` after each step) or ``"rgb_array"`` (a top-down battle map,
      :mod:`envs.battlemap`).

    ## Registered Configurations

    ``vtm_sim/Duel-v6`` (scenario ``duel``) and one id per scenario in
    ``configs/scenarios`` (``bar_brawl`` -> ``vtm_sim/BarBrawl-v6``), each
    with ``max_episode_steps=500`` and ``obs_version`` in its spec
    (``gym.spec(id).kwargs["obs_version"]``); any argument above can be passed to
    ``gymnasium.make``. ``vtm_sim/Mixed-v6`` (:class:`envs.mixed.VtmMixedEnv`) plays every
    scenario in one padded space, a scenario drawn per episode.

    ## Version History

    The version goes up whenever the observation layout, the action catalog or the
    reward changes; every id carries the same one (``envs.VERSION``).

    - v6: observation layout 6, the seat (``self.seat``) appended; action targets
      relative to the observer (target slot ``k`` is the ``others`` row ``k``), so one
      policy plays every seat (2026-12-07).
    - v5: observation layout 5, the ``tempo`` block appended (2026-12-03; named -v5
      since 2026-12-07).
    - v4: observation layout 4; the moves that jump an obstacle appended to the action
      catalog (2026-12-01).
    - v3: observation layout 3, chase and obstacle features; flee and pursue in the
      action catalog (2026-12-01).
    - v2: observation layout 2, ``others`` before ``self`` (2026-12-01).
    - v1: observation layout 1, the first action catalog (2026-11-30).
    - v0: the name that versions 1 to 5 all carried until 2026-12-07; still
      registered for the scripts written before, as the current version (Gymnasium
      warns it is out of date). ``gym.make`` of any other older id raises
      ``DeprecatedEnv`` naming the current one.
    """

    def __init__(
        self,
        scenario: str | Scenario = "duel",
        *,
        agent_id: int = 0,
        control: Control = "combatant",
        opponents: OpponentSpec = None,
        obs_mode: ObsMode = "flat",
        illegal_action: IllegalAction = DEFAULT_ILLEGAL_ACTION,
        illegal_penalty: float = DEFAULT_ILLEGAL_PENALTY,
        shaping: float = DEFAULT_SHAPING,
        skip_forced: bool = True,
        turn_limit: int | None = None,
        obs_version: int = OBS_VERSION,
        render_mode: str | None = None,
    ) -> None:
        if obs_version != OBS_VERSION:
            raise ValueError(f"obs_version {obs_version}: this code encodes observation "
                             f"layout {OBS_VERSION} only")
        loaded = load(scenario)
        n = len(loaded.fighters)
        if not 0 <= agent_id < n:
            raise ValueError(f"agent_id {agent_id}: the scenario has combatants 0..{n - 1}")
        if control not in CONTROLS:
            raise ValueError(f"control {control!r}: expected 'combatant' or 'side'")
        side = loaded.fighters[agent_id].side
        self.learners = ([agent_id] if control == "combatant" else
                         [i for i, f in enumerate(loaded.fighters) if f.side == side])
        self.config = config = MatchConfig(
            obs_mode=obs_mode,
            illegal_action=illegal_action,
            illegal_penalty=illegal_penalty,
            shaping=shaping,
            skip_forced=skip_forced,
            turn_limit=turn_limit,
            render_mode=render_mode,
        )
        self.match = m = Match(loaded, self.learners, config)
        self.scenario = m.scenario
        self.agent_id = agent_id
        self.control = control
        self.side = side
        self.catalog = m.catalog.seat(agent_id)  # targets relative to the agent
        self.encoder = m.encoder
        self.obs_mode = obs_mode
        self.action_space = gym.spaces.Discrete(self.catalog.size)
        self.observation_space = cast(
            "gym.spaces.Space[ObsType]",
            self.encoder.flat_space if obs_mode == "flat" else self.encoder.dict_space,
        )
        self.illegal_action = illegal_action
        self.illegal_penalty = m.illegal_penalty
        self.shaping = m.shaping
        self.skip_forced = skip_forced
        self.turn_limit = turn_limit
        self.render_mode = render_mode
        self.obs_version = OBS_VERSION
        self._factories = opponent_factories(
            opponents, [i for i in range(n) if i not in self.learners], self.scenario)

    @property
    def battle(self) -> Battle | None:
        """The battle being played (None before the first reset)."""
        return self.match.battle

    # --- gymnasium API ----------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[ObsType, dict[str, Any]]:
        super().reset(seed=seed)
        m = self.match
        m.begin(self.np_random, self._factories, f"combatant {self.agent_id}")
        me = m.asked(self.agent_id)
        return m.observe(me), m.info(me, m.mask, False, self.learners)

    def step(
        self, action: np.int64 | int
    ) -> tuple[ObsType, SupportsFloat, bool, bool, dict[str, Any]]:
        m = self.match
        b = m.battle
        if b is None:
            raise gym.error.ResetNeeded("call reset() before step()")
        if b.pending is None:
            raise gym.error.ResetNeeded("the battle is over: call reset()")
        me, reward, terminated, illegal = m.step_learners(int(action), self.learners,
                                                          self.agent_id)
        return m.observe(me), reward, terminated, False, m.info(me, m.mask, illegal,
                                                                self.learners)

    def render(self) -> str | np.ndarray | None:
        """``"ansi"``: the narration of the events since the last step; ``"human"``: the
        same text printed (returns None); ``"rgb_array"``: a top-down battle map
        (:mod:`envs.battlemap`)."""
        return self.match.render()

    def action_masks(self) -> np.ndarray:
        """The legal actions now (int8, 1 = legal): what MaskablePPO reads. On a
        ``gym.make`` env call ``env.unwrapped.action_masks()`` (wrappers do not forward it)."""
        return self.match.mask.copy()


# A class attribute set after the class body: when mypyc compiles this module
# (VTM_SIM_COMPILE=1), one in the body would become a per-instance slot.
setattr(VtmEnv, "metadata", {"render_modes": list(RENDER_MODES), "render_fps": 4,  # noqa: B010
                             "obs_version": OBS_VERSION})
