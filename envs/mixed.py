"""One environment over every scenario: a common, padded observation and action space.

Each scenario's own env (``vtm_sim/Duel-v6``, ...) has the spaces of its size, weapons
and Celerity, so no policy crosses scenarios. :class:`VtmMixedEnv`
(``vtm_sim/Mixed-v6``) gives every scenario the same spaces, those of
:data:`COMMON`: the largest fight's target slots and ``others`` rows, the most weapons,
Celerity 5 and the blood table's largest spend. Each ``reset`` draws a scenario of its
set and a side, and the agent plays that whole side (``control="side"``: every step is
the decision of whichever of its combatants the rules ask, seen from that combatant).

The scenarios are split once, here, into :data:`TRAIN_SCENARIOS` and the held-out
:data:`TEST_SCENARIOS` (``split="train"``, ``"test"`` or ``"all"``). The held-out four
each share their mechanics with a training scenario, so a policy that generalises has
seen what they ask for, but not their maps, sheets or numbers:

- ``knife_duel`` (1v1 knives, parries, off-hand throw) against ``duel`` (1v1 knife vs
  fists);
- ``staking`` (holds and clinches to pin a vampire, a called shot at the heart) against
  ``grapple_and_bite`` (clinch, hold, bite);
- ``blackout`` (darkness, a lone Nosferatu against four guards) against ``swat_raid``
  (a blinded bodyguard, a vampire against a team) and ``elder_vs_coterie``;
- ``rooftops`` (one vampire against two hunters; flight, jumps and a chase) against
  ``elder_vs_coterie`` and ``ambushed_vampire`` (one vampire against several).

What padding means:

- Observation: the layout of :mod:`envs.observation` with :attr:`CommonSpace.slots` rows
  in ``others`` and ``tempo``; the rows past the fight's others are all zero
  (``present`` 0, as a combatant out of the fight), and the scales are the common
  ones (Celerity over 5; the initiative place and the seat over the slots), so a
  feature means the same in every scenario. ``self.seat`` is the observer's id / 7.
- Actions: the catalog of :mod:`envs.actions` over the common target slots, weapons
  and Celerity; target slot ``k`` is still the observation's ``others`` row ``k``, and
  the slots past the fight's others (and the weapon slots no one has) are never legal.

A model trained here plays any scenario in an ordinary battle (``vtm-sim evaluate MODEL
--env vtm_sim/KnifeDuel-v6``, ``model:PATH`` in a tournament): its metadata says
``scenario: "mixed"`` and :class:`agents.adapter.AgentPolicy` then encodes and maps
with :meth:`CommonSpace.encoder` and :meth:`CommonSpace.catalog` of the battle's
scenario. ``experiments/cross_scenario.py`` is the baseline: MaskablePPO trained on the
training split, scored on the held-out scenarios against the ladder.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, Final, Literal, SupportsFloat, cast

import gymnasium as gym
import numpy as np

from envs.actions import MAX_CELERITY, ActionCatalog
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
)
from envs.observation import ObservationEncoder
from envs.opponents import Factory, OpponentSpec, opponent_factories
from vtm_sim.data.formats import OBS_VERSION
from vtm_sim.data.tables import Tables, load_tables
from vtm_sim.engine.battle import Battle
from vtm_sim.files.scenarios import Scenario, list_scenarios, load_scenario

__all__ = [
    "COMMON",
    "MIXED",
    "SPLITS",
    "TEST_SCENARIOS",
    "TRAIN_SCENARIOS",
    "CommonSpace",
    "VtmMixedEnv",
    "split_scenarios",
]

MIXED: Final = "mixed"  # the scenario a model trained on this env records (ModelInfo)
Split = Literal["train", "test", "all"]
SPLITS: Final[tuple[str, ...]] = ("train", "test", "all")
# The held-out scenarios (the module docstring says why these); the others train.
TEST_SCENARIOS: Final[tuple[str, ...]] = ("blackout", "knife_duel", "rooftops", "staking")


@dataclass(frozen=True, slots=True)
class CommonSpace:
    """The sizes every scenario's spaces are padded to (fixed, so that the spaces never
    shift when a scenario is added: one that does not fit is refused, naming the size).

    Args:
        slots: target slots and ``others`` rows (the largest fight has ``slots + 1``).
        max_weapons: weapon slots (the longest weapon list).
        max_celerity: the Celerity the catalog declares and the observation's scale.
        max_actions: the rules profiles' most multiple actions.
    """

    slots: int = 7
    max_weapons: int = 2
    max_celerity: int = MAX_CELERITY
    max_actions: int = 4

    def check(self, scenario: Scenario) -> None:
        """ValueError if ``scenario`` does not fit the common space."""
        fighters = scenario.fighters
        problems = []
        if len(fighters) - 1 > self.slots:
            problems.append(f"{len(fighters)} combatants (at most {self.slots + 1})")
        weapons = max(len(f.stats.weapons) for f in fighters)
        if weapons > self.max_weapons:
            problems.append(f"{weapons} weapons (at most {self.max_weapons})")
        celerity = max(f.stats.discipline("celerity") for f in fighters)
        if celerity > self.max_celerity:
            problems.append(f"Celerity {celerity} (at most {self.max_celerity})")
        rules = scenario.rules
        if rules.max_actions != self.max_actions or rules.delay_announced:
            problems.append(f"rules {rules.name!r} (max_actions {rules.max_actions}, "
                            f"delay_announced {rules.delay_announced}; the common catalog "
                            f"has {self.max_actions} and no announced delays)")
        if problems:
            raise ValueError(f"scenario {scenario.name!r} does not fit the common space of "
                             f"{MIXED}: " + ", ".join(problems))

    def catalog(self, scenario: Scenario, observer: int = 0,
                tables: Tables | None = None) -> ActionCatalog:
        """The common action catalog in ``scenario`` for combatant ``observer`` (its
        :meth:`~envs.actions.ActionCatalog.seat` gives the others')."""
        self.check(scenario)
        tables = tables or load_tables()
        return ActionCatalog(
            len(scenario.fighters), scenario.rules, max_weapons=self.max_weapons,
            max_celerity=self.max_celerity,
            blood_points=max(g.per_turn for g in tables.generations.values()),
            maneuvers=tables.maneuvers, observer=observer, slots=self.slots)

    def encoder(self, scenario: Scenario, tables: Tables | None = None) -> ObservationEncoder:
        """The padded observation encoder in ``scenario``."""
        self.check(scenario)
        tables = tables or load_tables()
        return ObservationEncoder(
            len(scenario.fighters), scenario.rules, max_celerity=self.max_celerity,
            max_penalty=max(level.penalty for level in tables.health),
            maneuvers=tuple(tables.maneuvers), slots=self.slots)


COMMON: Final = CommonSpace()


def split_scenarios(split: str = "train") -> list[str]:
    """The scenario names of a split, in name order: ``"test"`` is
    :data:`TEST_SCENARIOS`, ``"train"`` every other scenario file, ``"all"`` both."""
    if split not in SPLITS:
        raise ValueError(f"split {split!r}: expected one of {', '.join(SPLITS)}")
    names = sorted(list_scenarios())
    if split == "all":
        return names
    held = [n for n in names if n in TEST_SCENARIOS]
    return held if split == "test" else [n for n in names if n not in TEST_SCENARIOS]


@cache
def _loaded(name: str) -> Scenario:
    return load_scenario(name)


TRAIN_SCENARIOS: Final[tuple[str, ...]] = tuple(split_scenarios("train"))


class _Seat:
    """One (scenario, side) the env can draw: its match and its opponents' factories."""

    def __init__(self, scenario: Scenario, side: int, catalog: ActionCatalog,
                 encoder: ObservationEncoder, config: MatchConfig,
                 opponents: OpponentSpec) -> None:
        fighters = scenario.fighters
        self.learners = [i for i, f in enumerate(fighters) if f.side == side]
        self.side = side
        self.match = Match(scenario, self.learners, config,
                           catalog=catalog.seat(self.learners[0]), encoder=encoder)
        others = [i for i in range(len(fighters)) if i not in self.learners]
        self.factories: dict[int, Factory] = opponent_factories(opponents, others, scenario)


class VtmMixedEnv(gym.Env[ObsType, np.int64]):
    """Every scenario in one env: a common, padded and masked observation and action space.

    ## Description

    Each ``reset`` draws a scenario from the env's set (uniformly, with
    ``self.np_random``: ``reset(seed=...)`` fixes the draw and the battle) and a side
    of it; the agent plays every combatant of that side (as ``control="side"`` of
    :class:`envs.env.VtmEnv`), the opponents the others. The step, the rewards, the
    illegal-action handling, the episode's end and ``info`` are :class:`envs.env.VtmEnv`'s
    (:data:`envs.match.INFO_KEYS`), plus ``info["scenario"]`` (str, on every step) and
    ``info["side"]`` (int). :mod:`envs.mixed` says what the padding is and why the split
    is what it is.

    ## Action Space

    ``Discrete(n)`` over the common catalog (:meth:`envs.mixed.CommonSpace.catalog`):
    7 target slots, 2 weapon slots, Celerity 0..5, whatever the scenario; the slots and
    weapons a scenario lacks are never legal. ``info["action_mask"]`` and
    ``action_masks()`` give the legal actions (MaskablePPO reads the latter).

    ## Observation Space

    ``Box(-1, 1, (d,), float32)`` (or a ``Dict`` with ``obs_mode="dict"``): the layout of
    :mod:`envs.observation` with 7 ``others`` and ``tempo`` rows, the ones past the
    fight's others all zero.

    ## Arguments

    - ``split``: ``"train"`` (default: :data:`TRAIN_SCENARIOS`), ``"test"`` (the held-out
      :data:`TEST_SCENARIOS`) or ``"all"``. Every split has the same spaces.
    - ``scenarios``: names (or loaded scenarios) to draw from instead of a split.
    - ``opponents``: the other side's policies (:mod:`envs.opponents`; ``"nearest"``);
      a dict is by combatant id, so it suits a single scenario only.
    - ``obs_mode``, ``illegal_action``, ``illegal_penalty``, ``shaping``, ``skip_forced``,
      ``turn_limit``, ``obs_version``, ``render_mode``: as :class:`envs.env.VtmEnv`.

    ## Registered Configurations

    ``vtm_sim/Mixed-v6`` (``envs.MIXED_ID``), with ``max_episode_steps=500``; it is listed
    by ``envs.mixed_ids()``, beside the per-scenario ids of ``envs.registered_ids()``.

    ## Version History

    - v6: the first version (2026-12-07), on observation layout 6 and the relative
      targets of env version 6.
    """

    def __init__(
        self,
        split: Split = "train",
        *,
        scenarios: Sequence[str | Scenario] | None = None,
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
        self.split = split if scenarios is None else "custom"
        if scenarios is None:
            scenarios = split_scenarios(split)
        elif not scenarios:
            raise ValueError("scenarios: expected at least one")
        loaded = [s if isinstance(s, Scenario) else _loaded(s) for s in scenarios]
        self.scenarios = loaded
        self.scenario_names = [s.name for s in loaded]
        self.config = MatchConfig(
            obs_mode=obs_mode, illegal_action=illegal_action, illegal_penalty=illegal_penalty,
            shaping=shaping, skip_forced=skip_forced, turn_limit=turn_limit,
            render_mode=render_mode)
        self.opponents = opponents
        tables = load_tables()
        for s in loaded:
            COMMON.check(s)
        # the spaces: the same for every scenario (the first one's)
        self.catalog = COMMON.catalog(loaded[0], 0, tables)
        self.encoder = COMMON.encoder(loaded[0], tables)
        self.action_space = gym.spaces.Discrete(self.catalog.size)
        self.observation_space = cast(
            "gym.spaces.Space[ObsType]",
            self.encoder.flat_space if obs_mode == "flat" else self.encoder.dict_space)
        self._tables = tables
        self._catalogs: dict[int, ActionCatalog] = {}
        self._seats: dict[tuple[int, int], _Seat] = {}
        self._sides = [sorted({f.side for f in s.fighters}) for s in loaded]
        self.obs_mode = obs_mode
        self.illegal_action = illegal_action
        self.illegal_penalty = float(illegal_penalty)
        self.shaping = float(shaping)
        self.skip_forced = skip_forced
        self.turn_limit = turn_limit
        self.render_mode = render_mode
        self.obs_version = OBS_VERSION
        self.control = "side"
        self.seat: _Seat | None = None
        self.scenario: Scenario = loaded[0]  # the one being played (the first before reset)
        self.agent_id = 0  # the first learner of the seat being played
        # built per scenario (all of a split: ~0.1 s each), so the first resets are cheap
        for k in range(len(loaded)):
            for side in self._sides[k]:
                self._seat(k, side)

    def _seat(self, k: int, side: int) -> _Seat:
        got = self._seats.get((k, side))
        if got is None:
            s = self.scenarios[k]
            catalog = self._catalogs.get(k)
            if catalog is None:  # one per scenario, its seats shared by both sides
                catalog = self._catalogs[k] = COMMON.catalog(s, 0, self._tables)
            encoder = COMMON.encoder(s, self._tables)
            got = _Seat(s, side, catalog, encoder, self.config, self.opponents)
            self._seats[(k, side)] = got
        return got

    @property
    def match(self) -> Match:
        """The match being played (the first scenario's before the first reset)."""
        seat = self.seat or self._seat(0, self._sides[0][0])
        return seat.match

    @property
    def battle(self) -> Battle | None:
        """The battle being played (None before the first reset)."""
        return self.seat.match.battle if self.seat is not None else None

    # --- gymnasium API ----------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[ObsType, dict[str, Any]]:
        """A fresh battle of a drawn scenario and side. ``options`` may name them:
        ``{"scenario": "knife_duel", "side": 1}`` (either key alone; a name of the set)."""
        super().reset(seed=seed)
        rng = self.np_random
        options = options or {}
        if "scenario" in options:
            name = options["scenario"]
            if name not in self.scenario_names:
                raise ValueError(f"options['scenario'] {name!r}: not one of this env's "
                                 f"({', '.join(self.scenario_names)})")
            k = self.scenario_names.index(name)
        else:
            k = int(rng.integers(len(self.scenarios)))
        sides = self._sides[k]
        side = int(options["side"]) if "side" in options else sides[int(rng.integers(len(sides)))]
        if side not in sides:
            raise ValueError(f"options['side'] {side}: {self.scenario_names[k]} has sides "
                             f"{sides}")
        if self.seat is not None and self.seat.match is not self._seat(k, side).match:
            self.seat.match.battle = None  # the last battle is over for good
        self.seat = seat = self._seat(k, side)
        self.scenario = self.scenarios[k]
        self.agent_id = seat.learners[0]
        m = seat.match
        m.begin(rng, seat.factories, f"side {side}")
        me = m.asked(self.agent_id)
        return m.observe(me), self._info(me, False)

    def step(
        self, action: np.int64 | int
    ) -> tuple[ObsType, SupportsFloat, bool, bool, dict[str, Any]]:
        seat = self.seat
        b = seat.match.battle if seat is not None else None
        if seat is None or b is None:
            raise gym.error.ResetNeeded("call reset() before step()")
        if b.pending is None:
            raise gym.error.ResetNeeded("the battle is over: call reset()")
        m = seat.match
        me, reward, terminated, illegal = m.step_learners(int(action), seat.learners,
                                                          self.agent_id)
        return m.observe(me), reward, terminated, False, self._info(me, illegal)

    def _info(self, me: int, illegal: bool) -> dict[str, Any]:
        seat = cast(_Seat, self.seat)
        m = seat.match
        info = m.info(me, m.mask, illegal, seat.learners)
        info["scenario"] = self.scenario.name
        info["side"] = seat.side
        return info

    def render(self) -> str | np.ndarray | None:
        """As :meth:`envs.env.VtmEnv.render`, of the battle being played."""
        return self.match.render()

    def action_masks(self) -> np.ndarray:
        """The legal actions now (int8, 1 = legal): what MaskablePPO reads."""
        return self.match.mask.copy()

    def close(self) -> None:
        for seat in self._seats.values():
            seat.match.battle = None


setattr(VtmMixedEnv, "metadata", {"render_modes": list(RENDER_MODES),  # noqa: B010
                                  "render_fps": 4, "obs_version": OBS_VERSION})
