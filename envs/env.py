"""The single-agent Gymnasium environment: one combatant of a scenario learns."""

from __future__ import annotations

from typing import Any, Literal, SupportsFloat, cast

import gymnasium as gym
import numpy as np

from envs.actions import ActionCatalog, passive_choice
from envs.observation import OBS_VERSION, ObservationEncoder
from envs.opponents import OpponentSpec, PolicyFn, build_policies, opponent_factories
from vtm_sim.battle import Battle
from vtm_sim.choices import DecisionKind
from vtm_sim.dice import RngDice
from vtm_sim.errors import IllegalActionError
from vtm_sim.events import DamageEvent, Event
from vtm_sim.scenario import Scenario, load_scenario
from vtm_sim.tables import load_tables

__all__ = ["VtmEnv", "levels_taken", "load", "narrate_since"]

ObsType = np.ndarray | dict[str, np.ndarray]
MAX_RESET_TRIES = 100
_KIND_NAMES = {k: k.value for k in DecisionKind}  # info["decision"] (Enum.value is slow)


def load(scenario: str | Scenario) -> Scenario:
    return scenario if isinstance(scenario, Scenario) else load_scenario(scenario)


def levels_taken(events: list[Event], start: int, into: list[int]) -> None:
    """Add the health levels of every DAMAGE event of ``events[start:]`` to ``into[who]``."""
    for i in range(start, len(events)):
        ev = events[i]
        if isinstance(ev, DamageEvent):
            into[ev.who] += ev.levels


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
    time: ``action_masks()`` (read by sb3-contrib's MaskablePPO) and
    ``info["action_mask"]`` (int8) give them. An illegal action raises
    :class:`~vtm_sim.errors.IllegalActionError`, or with
    ``illegal_action="penalize"`` is replaced by the passive option (pass,
    no defense, the default declaration, no blood) at a reward of
    ``illegal_penalty`` and ``info["illegal"] = True``.

    ## Observation Space

    ``Box(-1, 1, (d,), float32)``, or with ``obs_mode="dict"`` a ``Dict``
    with keys ``decision``, ``self`` and ``others`` (one row per other
    combatant). Layout version ``OBS_VERSION``; see :mod:`envs.observation`.

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
    truncate at ``max_episode_steps``. ``info`` always holds ``action_mask``,
    ``decision`` (the kind asked, ``""`` at the end) and ``turn``; at the end
    also ``winner`` (side, -1 for none) and ``end_reason``.

    ## Arguments

    - ``scenario``: a scenario name, a YAML path or a loaded ``Scenario`` (``"duel"``).
    - ``agent_id``: the combatant the agent plays (0).
    - ``opponents``: policies of the others (:mod:`envs.opponents`; ``"nearest"``).
    - ``obs_mode``: ``"flat"`` or ``"dict"``.
    - ``illegal_action``: ``"penalize"`` (default: an action outside the mask is a pass
      with ``illegal_penalty``, -0.1, so standard checkers and trainers run on the
      defaults) or ``"raise"`` (``IllegalActionError``, for debugging).
    - ``shaping``: damage shaping weight (0.0).
    - ``skip_forced``: answer single-option decisions automatically (True).
    - ``turn_limit``: override the scenario's turn limit.
    - ``render_mode``: ``"ansi"``: ``render()`` narrates the events since the last step.

    ## Registered Configurations

    ``vtm_sim/Duel-v0`` (scenario ``duel``) and one id per scenario in
    ``configs/scenarios`` (``bar_brawl`` -> ``vtm_sim/BarBrawl-v0``), each
    with ``max_episode_steps=500``; any argument above can be passed to
    ``gymnasium.make``.
    """

    def __init__(
        self,
        scenario: str | Scenario = "duel",
        *,
        agent_id: int = 0,
        opponents: OpponentSpec = None,
        obs_mode: Literal["flat", "dict"] = "flat",
        illegal_action: Literal["raise", "penalize"] = "penalize",
        illegal_penalty: float = -0.1,
        shaping: float = 0.0,
        skip_forced: bool = True,
        turn_limit: int | None = None,
        render_mode: str | None = None,
    ) -> None:
        self.scenario = load(scenario)
        n = len(self.scenario.fighters)
        if not 0 <= agent_id < n:
            raise ValueError(f"agent_id {agent_id}: the scenario has combatants 0..{n - 1}")
        if obs_mode not in ("flat", "dict"):
            raise ValueError(f"obs_mode {obs_mode!r}: expected 'flat' or 'dict'")
        if illegal_action not in ("raise", "penalize"):
            raise ValueError(f"illegal_action {illegal_action!r}: expected 'raise' or 'penalize'")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r}: expected None or 'ansi'")
        tables = load_tables()
        self.agent_id = agent_id
        self.side = self.scenario.fighters[agent_id].side
        self.catalog = ActionCatalog.for_scenario(self.scenario, tables)
        self.encoder = ObservationEncoder.for_scenario(self.scenario, tables)
        self.obs_mode = obs_mode
        self.action_space = gym.spaces.Discrete(self.catalog.size)
        self.observation_space = cast(
            "gym.spaces.Space[ObsType]",
            self.encoder.flat_space if obs_mode == "flat" else self.encoder.dict_space,
        )
        self.illegal_action = illegal_action
        self.illegal_penalty = float(illegal_penalty)
        self.shaping = float(shaping)
        self.skip_forced = skip_forced
        self.turn_limit = turn_limit
        self.render_mode = render_mode
        self.obs_version = OBS_VERSION
        self._factories = opponent_factories(
            opponents, [i for i in range(n) if i != agent_id], self.scenario)
        self._policies: dict[int, PolicyFn] = {}
        self._enemy = [f.side != self.side for f in self.scenario.fighters]
        self._taken = [0] * n
        self._mask = np.zeros(self.catalog.size, dtype=np.int8)
        self._step_start = 0
        self.battle: Battle | None = None

    # --- gymnasium API ----------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[ObsType, dict[str, Any]]:
        super().reset(seed=seed)
        for _ in range(MAX_RESET_TRIES):
            self._policies = build_policies(self._factories, self.np_random)
            self.battle = self.scenario.battle(
                dice=RngDice(self.np_random), turn_limit=self.turn_limit
            )
            self._step_start = 0
            self._advance(self.battle)
            if self.battle.pending is not None:
                break
        else:
            raise RuntimeError(
                f"scenario {self.scenario.name!r}: the battle ended before combatant "
                f"{self.agent_id} could decide, {MAX_RESET_TRIES} times in a row"
            )
        return self._obs(self.battle), self._info(self.battle)

    def step(
        self, action: np.int64 | int
    ) -> tuple[ObsType, SupportsFloat, bool, bool, dict[str, Any]]:
        b = self.battle
        if b is None:
            raise gym.error.ResetNeeded("call reset() before step()")
        d = b.pending
        if d is None:
            raise gym.error.ResetNeeded("the battle is over: call reset()")
        a = int(action)
        reward = 0.0
        illegal = not (0 <= a < self.catalog.size and self._mask[a])
        if illegal:
            if self.illegal_action == "raise":
                label = self.catalog.describe(a) if 0 <= a < self.catalog.size else "?"
                raise IllegalActionError(
                    f"action {a} ({label}) is not legal at this {d.kind.value} decision; "
                    "legal: " + ", ".join(str(i) for i in np.flatnonzero(self._mask))
                )
            choice = passive_choice(d)
            reward += self.illegal_penalty
        else:
            choice = self.catalog.choices[a]
        self._step_start = len(b.log.events)
        b.choose(choice)
        self._advance(b)
        if self.shaping:
            reward += self._shaping(b)
        terminated = b.pending is None
        if terminated and b.winner is not None:
            reward += 1.0 if b.winner == self.side else -1.0
        info = self._info(b)
        if illegal:
            info["illegal"] = True
        return self._obs(b), reward, terminated, False, info

    def render(self) -> str | None:
        """The narration of the events since the last step (``render_mode="ansi"``)."""
        return render_ansi(self.render_mode, self.battle, self._step_start)

    def action_masks(self) -> np.ndarray:
        """The legal actions now (int8, 1 = legal): what MaskablePPO reads."""
        return self._mask.copy()

    # --- internals --------------------------------------------------------------
    def _advance(self, b: Battle) -> None:
        """Answer the others' (and forced) decisions until the agent must decide."""
        me = self.agent_id
        skip = self.skip_forced
        pols = self._policies
        d = b.pending
        while d is not None:
            if d.actor == me:
                if not (skip and len(d.options) == 1):
                    break
                d = b.choose(d.options[0])
            elif len(d.options) == 1:
                d = b.choose(d.options[0])
            else:
                d = b.choose(pols[d.actor](b, d))
        self._mask = self.catalog.mask(d)

    def _obs(self, b: Battle) -> ObsType:
        flat = self.encoder.encode(b, self.agent_id)
        return flat if self.obs_mode == "flat" else self.encoder.split(flat)

    def _info(self, b: Battle) -> dict[str, Any]:
        d = b.pending
        info: dict[str, Any] = {
            "action_mask": self._mask,
            "decision": _KIND_NAMES[d.kind] if d is not None else "",
            "turn": b.turn,
        }
        if d is None:  # -1: no winner (types stay fixed for vector envs)
            info["winner"] = -1 if b.winner is None else b.winner
            info["end_reason"] = b.end_reason
        return info

    def _shaping(self, b: Battle) -> float:
        taken = self._taken
        for i in range(len(taken)):
            taken[i] = 0
        levels_taken(b.log.events, self._step_start, taken)
        dealt = sum(t for t, enemy in zip(taken, self._enemy, strict=True) if enemy)
        return self.shaping * (dealt - taken[self.agent_id])


# A class attribute set after the class body: when mypyc compiles this module
# (VTM_SIM_COMPILE=1), one in the body would become a per-instance slot.
setattr(VtmEnv, "metadata", {"render_modes": ["ansi"], "render_fps": 4})  # noqa: B010


def render_ansi(render_mode: str | None, battle: Battle | None, start: int) -> str | None:
    """What ``render()`` returns: the narration of the events from ``start`` on."""
    if render_mode is None:
        gym.logger.warn("render() called without a render_mode; pass render_mode='ansi'")
        return None
    if battle is None:
        return ""
    return "\n".join(narrate_since(battle.log.events, start))


def narrate_since(events: list[Event], start: int) -> list[str]:
    """Narration lines of ``events[start:]`` (the prefix gives names and context)."""
    from vtm_sim.narration import narrate  # rendering only: keep it off the step path

    before = len(narrate(events[:start])) if start > 0 else 0
    return narrate(events)[before:]
