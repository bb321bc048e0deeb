"""A match: a scenario's battle as the environments run it, one core for all of them.

The Gymnasium env (:mod:`envs.env`, one learner, the others answered by
opponent policies), the PettingZoo parallel env (:mod:`envs.multi`) and the
PettingZoo AEC env (:mod:`envs.aec`, every combatant a learner) differ only in
how they hand decisions to agents. Everything else lives here, once: the
argument checks, the action catalog and observation encoder, starting a battle,
answering forced and opponent decisions until a learner must decide,
illegal-action handling, rewards and shaping, ``info`` and rendering.

Defaults, the same in every env and in ``vtm-sim train``:

- :data:`DEFAULT_SHAPING` (0.0): the reward is the outcome alone (+1 win,
  -1 loss, 0 draw). With ``shaping`` > 0 each step also pays ``shaping`` x
  (health levels the learner's enemies took - levels it took) since the last step.
- :data:`DEFAULT_ILLEGAL_ACTION` (``"penalize"``): an action outside the mask is
  accepted as the passive answer to the decision (pass, no defense, the
  default declaration, no blood) at a reward of :data:`DEFAULT_ILLEGAL_PENALTY`
  (-0.1); ``info["illegal"]`` says the step's action was illegal and
  ``info["illegal_actions"]`` counts them over the episode. ``"raise"`` raises
  :class:`~vtm_sim.errors.IllegalActionError` instead (for debugging).

What every env hands out the same way:

- ``info`` has the same keys, each with the same type, on reset, on every step and at
  the end (:data:`INFO_KEYS`), so vector envs and replay buffers (Tianshou's) stack
  them without holes: ``action_mask`` (int8 array), ``decision`` (str: the kind of
  decision asked of this combatant, ``""`` when it is not asked or the battle is
  over), ``turn`` (int), ``illegal`` (bool: this step's action was illegal),
  ``illegal_actions`` (int: the episode's count), ``winner`` (int: the winning side,
  -1 before the end and for a draw) and ``end_reason`` (str: why the battle ended,
  ``""`` before the end).
- Once the battle is over the mask is :meth:`envs.actions.ActionCatalog.final_mask`:
  the pass action alone (never all zeros, so ``-inf`` masking stays finite; no step
  plays it).
- Render modes (:data:`RENDER_MODES`): ``"ansi"`` returns the narration of the events
  since the last step, ``"human"`` prints that same text to stdout (and returns None),
  ``"rgb_array"`` the battle map. Only ``render()`` renders: a step never does, so
  with ``"human"`` call ``render()`` after each step, as with ``"ansi"``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal

import numpy as np

from envs.actions import ActionCatalog, passive_choice
from envs.battlemap import picture
from envs.observation import ObservationEncoder
from envs.opponents import Factory, build_policies
from vtm_sim.core.choices import Choice, Decision, DecisionKind
from vtm_sim.core.dice import RngDice
from vtm_sim.data.tables import load_tables
from vtm_sim.engine.battle import Battle
from vtm_sim.errors import IllegalActionError
from vtm_sim.events import DamageEvent, Event
from vtm_sim.files.scenarios import Scenario, load_scenario
from vtm_sim.text.narration import narrate

__all__ = [
    "DEFAULT_ILLEGAL_ACTION",
    "DEFAULT_ILLEGAL_PENALTY",
    "DEFAULT_SHAPING",
    "INFO_KEYS",
    "MAX_RESET_TRIES",
    "RENDER_MODES",
    "Match",
    "MatchConfig",
    "levels_taken",
    "load",
    "narrate_since",
]

ObsType = np.ndarray | dict[str, np.ndarray]
IllegalAction = Literal["raise", "penalize"]
ObsMode = Literal["flat", "dict"]
PolicyFn = Callable[[Battle, Decision], Choice]  # an opponent (envs.opponents)

MAX_RESET_TRIES: Final = 100  # fresh battles tried until a learner must decide
DEFAULT_SHAPING: Final = 0.0
DEFAULT_ILLEGAL_ACTION: Final[IllegalAction] = "penalize"
DEFAULT_ILLEGAL_PENALTY: Final = -0.1
RENDER_MODES: Final[tuple[str, ...]] = ("ansi", "human", "rgb_array")
# Every key of every info, on reset, every step and at the end (Match.info)
INFO_KEYS: Final[tuple[str, ...]] = (
    "action_mask", "decision", "turn", "illegal", "illegal_actions", "winner", "end_reason")
KIND_NAMES: Final = {k: k.value for k in DecisionKind}  # info["decision"] (Enum.value is slow)


def load(scenario: str | Scenario) -> Scenario:
    return scenario if isinstance(scenario, Scenario) else load_scenario(scenario)


def levels_taken(events: list[Event], start: int, into: list[int]) -> None:
    """Add the health levels of every DAMAGE event of ``events[start:]`` to ``into[who]``."""
    for i in range(start, len(events)):
        ev = events[i]
        if isinstance(ev, DamageEvent):
            into[ev.who] += ev.levels


@dataclass(frozen=True, slots=True)
class MatchConfig:
    """How a match is run: the setup arguments every env takes, with the same defaults
    (the envs' docstrings say what each does). Checked when built.

    Args:
        obs_mode: ``"flat"`` or ``"dict"``.
        illegal_action: ``"penalize"`` or ``"raise"``.
        illegal_penalty: the reward of an illegal action under ``"penalize"``.
        shaping: damage shaping weight.
        skip_forced: answer single-option decisions automatically.
        turn_limit: override the scenario's turn limit.
        render_mode: ``"ansi"``, ``"human"``, ``"rgb_array"`` or None.
    """

    obs_mode: ObsMode = "flat"
    illegal_action: IllegalAction = DEFAULT_ILLEGAL_ACTION
    illegal_penalty: float = DEFAULT_ILLEGAL_PENALTY
    shaping: float = DEFAULT_SHAPING
    skip_forced: bool = True
    turn_limit: int | None = None
    render_mode: str | None = None

    def __post_init__(self) -> None:
        if self.obs_mode not in ("flat", "dict"):
            raise ValueError(f"obs_mode {self.obs_mode!r}: expected 'flat' or 'dict'")
        if self.illegal_action not in ("raise", "penalize"):
            raise ValueError(
                f"illegal_action {self.illegal_action!r}: expected 'raise' or 'penalize'")
        if self.render_mode is not None and self.render_mode not in RENDER_MODES:
            raise ValueError(
                f"render_mode {self.render_mode!r}: expected None, "
                + " or ".join(repr(m) for m in RENDER_MODES)
            )


class Match:
    """The shared core of the environments (see the module docstring).

    Args:
        scenario: a scenario name, YAML path or loaded ``Scenario``.
        learners: the combatant ids agents play; every other combatant is
            answered by the policies given to :meth:`start`.
        config: the envs' setup arguments (default: every default).
        catalog: the action catalog (of the first learner) instead of the scenario's own,
            e.g. the padded common one of :mod:`envs.mixed`.
        encoder: the observation encoder instead of the scenario's own (idem).
    """

    def __init__(
        self,
        scenario: str | Scenario,
        learners: list[int] | None = None,
        config: MatchConfig | None = None,
        *,
        catalog: ActionCatalog | None = None,
        encoder: ObservationEncoder | None = None,
    ) -> None:
        if config is None:
            config = MatchConfig()
        self.config = config
        self.scenario = load(scenario)
        fighters = self.scenario.fighters
        n = len(fighters)
        tables = load_tables()
        ids = list(range(n)) if learners is None else learners
        # the first learner's catalog; every learner's is its seat() (same indices,
        # targets relative to it), and mask() reads a decision in its actor's
        self.catalog = catalog if catalog is not None else ActionCatalog.for_scenario(
            self.scenario, tables, observer=ids[0] if ids else 0)
        self.encoder = (encoder if encoder is not None
                        else ObservationEncoder.for_scenario(self.scenario, tables))
        # the config's fields, read on every step: attributes of the match itself
        self.obs_mode = config.obs_mode
        self.illegal_action = config.illegal_action
        self.illegal_penalty = float(config.illegal_penalty)
        self.shaping = float(config.shaping)
        self.skip_forced = config.skip_forced
        self.turn_limit = config.turn_limit
        self.render_mode = config.render_mode
        self.sides = [f.side for f in fighters]
        self._learner = [i in ids for i in range(n)]
        self._policies: Mapping[int, PolicyFn] = {}
        self._taken = [0] * n
        self.illegal_counts = [0] * n
        self.final_mask = self.catalog.final_mask()  # the mask once the battle is over
        self.mask = self.final_mask.copy()  # the asked learner's
        self.step_start = 0  # events before the last step: what shaping and render read
        self.battle: Battle | None = None

    # --- a battle -----------------------------------------------------------------
    def start(self, rng: np.random.Generator, policies: Mapping[int, PolicyFn]) -> Battle:
        """A fresh battle with dice from ``rng``, run to the first learner's decision."""
        self._policies = policies
        b = self.scenario.battle(dice=RngDice(rng), turn_limit=self.turn_limit)
        self.battle = b
        self.step_start = 0
        for i in range(len(self.illegal_counts)):
            self.illegal_counts[i] = 0
        self._advance(b)
        return b

    def begin(self, rng: np.random.Generator, factories: Mapping[int, Factory],
              who: str) -> Battle:
        """A fresh battle (:meth:`start`, the opponents built from ``factories``) that
        reaches a learner's decision, tried up to :data:`MAX_RESET_TRIES` times."""
        for _ in range(MAX_RESET_TRIES):
            b = self.start(rng, build_policies(factories, rng))
            if b.pending is not None:
                return b
        raise RuntimeError(f"scenario {self.scenario.name!r}: the battle ended before {who} "
                           f"could decide, {MAX_RESET_TRIES} times in a row")

    def asked(self, fallback: int) -> int:
        """The combatant the pending decision is for (``fallback`` once it is over)."""
        b = self.battle
        d = b.pending if b is not None else None
        return fallback if d is None else d.actor

    def step_learners(self, action: int, learners: list[int],
                      first: int) -> tuple[int, float, bool, bool]:
        """One step of a single agent playing ``learners`` (the Gymnasium envs): answer the
        pending decision with ``action``; returns who is asked next (``first`` once the
        battle is over), the reward, whether it ended and whether the action was illegal."""
        me = self.asked(first)
        choice, illegal = self.resolve(action, f"combatant {me}")
        terminated = self.play(choice) is None
        reward = self.reward(me, illegal, learners)
        return self.asked(first), reward, terminated, illegal

    def resolve(self, action: int, who: str) -> tuple[Choice, bool]:
        """The choice an action index makes at the pending decision, and whether it was
        illegal (then the passive option, or :class:`IllegalActionError` under "raise")."""
        b = self.battle
        d = b.pending if b is not None else None
        if d is None:
            raise RuntimeError("the battle is over: call reset()")
        a = int(action)
        if 0 <= a < self.catalog.size and self.mask[a]:
            return self.catalog.seat(d.actor).choices[a], False
        legal = ", ".join(str(i) for i in np.flatnonzero(self.mask))
        self.illegal(d.actor, a, who, f"it is not legal at this {d.kind.value} decision "
                     f"(legal: {legal})")
        return passive_choice(d), True

    def illegal(self, actor: int, action: int, who: str, why: str) -> None:
        """Count an illegal action of ``actor`` (raise under ``illegal_action="raise"``)."""
        if self.illegal_action == "raise":
            n = self.catalog.size
            label = self.catalog.seat(actor).describe(action) if 0 <= action < n else "?"
            raise IllegalActionError(f"{who}: action {action} ({label}): {why}")
        self.illegal_counts[actor] += 1

    def play(self, choice: Choice) -> Decision | None:
        """Answer the pending decision, then run to the next learner's decision."""
        b = self.battle
        if b is None:
            raise RuntimeError("call reset() before step()")
        self.step_start = len(b.log.events)
        b.choose(choice)
        self._advance(b)
        if self.shaping:
            taken = self._taken
            for i in range(len(taken)):
                taken[i] = 0
            levels_taken(b.log.events, self.step_start, taken)
        return b.pending

    def _advance(self, b: Battle) -> None:
        """Answer forced and non-learner decisions until a learner must decide."""
        learner = self._learner
        skip = self.skip_forced
        pols = self._policies
        d = b.pending
        while d is not None:
            if learner[d.actor]:
                if not (skip and len(d.options) == 1):
                    break
                d = b.choose(d.options[0])
            elif len(d.options) == 1:
                d = b.choose(d.options[0])
            else:
                d = b.choose(pols[d.actor](b, d))
        self.mask = self.catalog.mask(d) if d is not None else self.final_mask.copy()

    # --- what agents get ----------------------------------------------------------------
    def reward(self, i: int, illegal: bool, team: list[int] | None = None) -> float:
        """Combatant ``i``'s reward for the last step: penalty, shaping, outcome.
        ``team``: the combatants whose levels taken count against the reward (``[i]``)."""
        b = self.battle
        reward = 0.0
        if illegal:
            reward += self.illegal_penalty
        if self.shaping:
            taken = self._taken
            side = self.sides[i]
            dealt = 0
            for j, s in enumerate(self.sides):
                if s != side:
                    dealt += taken[j]
            own = taken[i] if team is None else sum(taken[j] for j in team)
            reward += self.shaping * (dealt - own)
        if b is not None and b.pending is None and b.winner is not None:
            reward += 1.0 if b.winner == self.sides[i] else -1.0
        return reward

    def observe(self, i: int) -> ObsType:
        """Combatant ``i``'s observation (flat, or split into the dict blocks)."""
        b = self.battle
        if b is None:
            raise RuntimeError("call reset() first")
        flat = self.encoder.encode(b, i)
        return flat if self.obs_mode == "flat" else self.encoder.split(flat)

    def info(self, i: int, mask: np.ndarray, illegal: bool,
             team: list[int] | None = None) -> dict[str, Any]:
        """Combatant ``i``'s ``info``: the keys of :data:`INFO_KEYS`, every one on every
        step, each of one type (the module docstring says what each holds): ``winner`` is
        -1 and ``end_reason`` ``""`` until the battle ends. ``team``: the combatants whose
        illegal actions ``illegal_actions`` counts (``[i]``)."""
        b = self.battle
        if b is None:
            raise RuntimeError("call reset() first")
        d = b.pending
        winner = b.winner
        return {
            "action_mask": mask,
            "decision": KIND_NAMES[d.kind] if d is not None and d.actor == i else "",
            "turn": int(b.turn),
            "illegal": bool(illegal),
            "illegal_actions": int(self.illegal_counts[i] if team is None
                                   else sum(self.illegal_counts[j] for j in team)),
            "winner": -1 if d is not None or winner is None else int(winner),
            "end_reason": "" if d is not None else str(b.end_reason),
        }

    def render(self) -> str | np.ndarray | None:
        """``"ansi"``: the narration of the events since the last step; ``"human"``: that
        text printed to stdout (returns None); ``"rgb_array"``: the battle map
        (:mod:`envs.battlemap`)."""
        if self.render_mode is None:
            import gymnasium as gym

            gym.logger.warn("render() called without a render_mode; pass render_mode='ansi'")
            return None
        if self.render_mode == "rgb_array":
            return picture(self.battle)
        text = self.text()
        if self.render_mode == "human":
            if text:
                print(text)
            return None
        return text

    def text(self) -> str:
        """The text view: the narration of the events since the last step."""
        if self.battle is None:
            return ""
        return "\n".join(narrate_since(self.battle.log.events, self.step_start))


def narrate_since(events: list[Event], start: int) -> list[str]:
    """Narration lines of ``events[start:]`` (the prefix gives names and context)."""

    before = len(narrate(events[:start])) if start > 0 else 0
    return narrate(events)[before:]
