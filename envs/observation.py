"""Observation encoding: a battle seen by one combatant, as a fixed-size float32 vector.

Layout version :data:`OBS_VERSION`. Four blocks, concatenated in this order
in the flat ``Box`` (``obs_mode="flat"``), or as the keys of a ``Dict``
(``obs_mode="dict"``) in the same order, which is also the sorted key order
Gymnasium's ``Dict`` space uses: ``FlattenObservation`` of a dict observation
is the flat one, float for float, and :meth:`ObservationEncoder.feature_names`
names both (``others.0.dx``: row 0's dx).

``decision`` (what is being asked)
    kind one-hot (one per ``DecisionKind``: blood, declare, act, defend; all
    zero once the battle is over), interrupt (a delayed character may act
    now), the incoming attack's maneuver one-hot (one per row of
    ``configs/maneuvers.yaml``, in file order; DEFEND only), turn / turn limit.

``others`` (one row per other combatant, by id, skipping the observer)
    present (0: out of the fight; the whole row is then zero), ally, enemy,
    dx and dy / 50 yards (signed, clipped), distance band one-hot (<=1, <=2,
    <=10, <=30, <=100, farther yards), health levels filled / track size,
    cover level / 3, prone, full defense, weapon class one-hot, is the attacker
    of the pending defense, place in the initiative order, has acted, stunned,
    blinded, staked, grappling (clinch, hold, feeding), grappling the observer,
    the observer's aim target.

``self`` (the observing combatant)
    active, vampire, health levels filled / track size, bashing, lethal,
    aggravated (each / track size), wound penalty / largest penalty, Willpower /
    rating, Willpower usable this turn, blood / pool, initiative now / 30
    (signed), place in the initiative order (0 first, 1 last or absent),
    actions left / (max_actions + max Celerity), declared actions /
    max_actions, full defense, has acted, delaying, waiting, Celerity actions /
    max Celerity, yards moved / running allowance, cover level / 3, prone,
    stunned (now or next turn), off balance, blinded, staked, in a clinch,
    held, holding someone, feeding, fed upon, claws out, weapon class in hand
    one-hot (one per ``WeaponClass``), weapon jammed, rounds / magazine, a
    weapon in the off hand, aim dice / 10; then (version 3, MOVE-3/MOVE-4)
    fleeing (the quarry of a chase), pursuing, the chase lead in successes / 10
    (signed: the quarry's lead over its best pursuer, a pursuer's shortfall
    negative; 0 out of a chase), and the nearest obstacle (gap or low) within
    30 yards: 1 - distance / 30 (0: none); then (version 4, MOVE-3) that
    obstacle's jump: the successes that clear it / 5 (Potence's dots taken
    off, clipped), its detour yards / 30 (0 for none) and no way around (1:
    it has no detour, so every move across it jumps). All zero without an
    obstacle within 30 yards; then (version 6) the seat: the observer's
    combatant id / (combatants - 1), 0 for the first, 1 for the last.

``tempo`` (version 5: one row per other combatant, in the ``others`` rows' order)
    what the table sees of its turn: vampire, wound penalty / largest penalty,
    Willpower / rating, Willpower usable this turn, declared a Willpower action
    this turn, actions left / (max_actions + max Celerity), declared actions /
    max_actions (1 until it declares: the slowest declare first, INIT-5),
    Celerity actions / max Celerity, delaying, waiting, off balance. A row is
    zero once its combatant is out of the fight.

Version 2 put ``others`` before ``self`` (version 1 had ``self`` second), so
that the flat order is the dict's. Version 4 only appends to ``self``, the last
block: a version-3 observation is a version-4 one less its last 3 floats, so
version-3 models read its prefix (until version 6). Version 5 only
appends the ``tempo`` block (its name sorts after ``self``, so the dict's key
order is still the flat order): a version-3 or version-4 observation is a prefix
of a version-5 one, and the models of both still read theirs. Version 6 appends
``seat`` to ``self`` and comes with action targets relative to the observer
(:mod:`envs.actions`): no older model reads it (a model of another layout fails to
load, naming both), and the shipped policies were re-exported to it
(``experiments/reexport_v6.py``).

Padding (``slots=``, the common space of :mod:`envs.mixed`): ``others`` and ``tempo``
get ``slots`` rows whatever the fight's size, those past its others all zero, and the
order-place and seat scales are ``slots``; the features and their order are the same.
The default (no ``slots``) is the per-scenario layout above, unchanged.

Every value lies in [0, 1] except the signed ones (initiative, dx, dy) in
[-1, 1]; the spaces declare exactly those bounds.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
from gymnasium import spaces

from vtm_sim.core.choices import Decision, DecisionKind
from vtm_sim.core.space import CoverLevel, ObstacleKind
from vtm_sim.data.formats import OBS_VERSION
from vtm_sim.data.rules import RuleSet
from vtm_sim.data.tables import Tables, WeaponClass, load_tables
from vtm_sim.engine.battle import Battle
from vtm_sim.engine.chase import chasing, lead_of
from vtm_sim.engine.obstacles import nearest_obstacle
from vtm_sim.files.scenarios import Scenario
from vtm_sim.mechanics.combatant import Combatant
from vtm_sim.mechanics.movement import jump_needed, jump_successes

__all__ = ["OBS_VERSION", "TEMPO", "Block", "ObservationEncoder"]

# OBS_VERSION (the layout's version) is in vtm_sim.data.formats, with every file
# format's version: bump it there, with a word on what changed, whenever this layout
# changes.

DECISION_KINDS: Final = tuple(DecisionKind)
WEAPON_CLASSES: Final = tuple(WeaponClass)
# yards; the last band is "farther"
DISTANCE_BANDS: Final[tuple[float, ...]] = (1.0, 2.0, 10.0, 30.0, 100.0)
POSITION_SCALE: Final = 50.0  # yards
INITIATIVE_SCALE: Final = 30.0
AIM_SCALE: Final = 10.0
COVER_SCALE: Final = float(max(level.value for level in CoverLevel))
# ids, -1 none
GRAPPLE_LINKS: Final[tuple[str, ...]] = (
    "clinch_with", "holding", "held_by", "feeding_on", "fed_on_by")

_KIND_INDEX: Final = {k: i for i, k in enumerate(DECISION_KINDS)}


def _onehots(n: int) -> tuple[tuple[float, ...], ...]:
    """Row ``i`` is the one-hot of ``i`` among ``n`` (built once, spliced per step)."""
    return tuple(tuple(1.0 if j == i else 0.0 for j in range(n)) for i in range(n))


# Per-step lookups: a weapon class's one-hot, a distance band's one-hot, and the
# band edges (a distance falls in the first band whose edge it does not exceed).
_WEAPON_ONEHOT: Final = dict(zip(WEAPON_CLASSES, _onehots(len(WEAPON_CLASSES)), strict=True))
_BAND_ONEHOT: Final = _onehots(len(DISTANCE_BANDS) + 1)
_BAND_EDGES: Final = tuple(band + 1e-9 for band in DISTANCE_BANDS)


@dataclass(frozen=True, slots=True)
class Block:
    """One named group of features: names in order, and their bounds."""

    name: str
    features: tuple[str, ...]
    signed: frozenset[str] = frozenset()

    @property
    def size(self) -> int:
        return len(self.features)

    def low(self) -> np.ndarray:
        return np.array([-1.0 if f in self.signed else 0.0 for f in self.features], np.float32)


def _onehot(prefix: str, names: tuple[Any, ...]) -> tuple[str, ...]:
    return tuple(f"{prefix}_{getattr(n, 'value', n)}" for n in names)


def decision_block(maneuvers: tuple[str, ...]) -> Block:
    """The ``decision`` block for a maneuver table (its names, in table order)."""
    return Block(
        "decision",
        _onehot("kind", DECISION_KINDS) + ("interrupt",) + _onehot("incoming", maneuvers)
        + ("turn",),
    )


SELF: Final = Block(
    "self",
    (
        "active",
        "vampire",
        "health",
        "bashing",
        "lethal",
        "aggravated",
        "wound_penalty",
        "willpower",
        "willpower_usable",
        "blood",
        "initiative",
        "order",
        "actions_left",
        "declared",
        "full_defense",
        "acted",
        "delayed",
        "waiting",
        "celerity",
        "moved",
        "cover",
        "prone",
        "stunned",
        "off_balance",
        "blinded",
        "staked",
        "clinch",
        "held",
        "holding",
        "feeding",
        "fed_on",
        "claws_out",
    )
    + _onehot("weapon", WEAPON_CLASSES)
    + ("jammed", "ammo", "offhand", "aim")
    + ("fleeing", "pursuing", "chase_lead", "obstacle_near")  # MOVE-3/4 (version 3)
    + ("obstacle_jump", "obstacle_detour", "obstacle_no_way_around")  # MOVE-3 (version 4)
    + ("seat",),  # version 6
    frozenset({"initiative", "chase_lead"}),
)
OTHER: Final = Block(
    "others",
    ("present", "ally", "enemy", "dx", "dy")
    + tuple(f"band_{i}" for i in range(len(DISTANCE_BANDS) + 1))
    + ("health", "cover", "prone", "full_defense")
    + _onehot("weapon", WEAPON_CLASSES)
    + ("attacker", "order", "acted", "stunned", "blinded", "staked", "grappling")
    + ("grappling_me", "aim_target"),
    frozenset({"dx", "dy"}),
)

TEMPO: Final = Block(  # version 5
    "tempo",
    ("vampire", "wound_penalty", "willpower", "willpower_usable", "willpower_declared",
     "actions_left", "declared", "celerity", "delayed", "waiting", "off_balance"),
)

_INTERRUPT: Final = len(DECISION_KINDS)  # the decision block's offsets
_INCOMING: Final = _INTERRUPT + 1


def _link_flags(c: Combatant) -> tuple[float, float, float, float, float]:
    """1.0 for each grapple link a combatant has, in GRAPPLE_LINKS order."""
    if c.grip is None:  # (a literal: compiled, a native tuple built in place)
        return (0.0, 0.0, 0.0, 0.0, 0.0)
    a, b, h, f, g = _links(c)
    return (float(a >= 0), float(b >= 0), float(h >= 0), float(f >= 0), float(g >= 0))


def _links(c: Combatant) -> tuple[int, int, int, int, int]:
    """The grapple partners a combatant records, in GRAPPLE_LINKS order (-1: none)."""
    if c.grip is None:
        return (-1, -1, -1, -1, -1)
    return (c.clinch_with, c.holding, c.held_by, c.feeding_on, c.fed_on_by)


def _aim(c: Combatant, turn: int) -> tuple[int, float]:
    """RNG-7: the aim target and dice still usable (-1, 0 when none)."""
    if not c.aim_dice or c.aim_target < 0 or c.aim_turn < turn - 1:
        return -1, 0.0
    return c.aim_target, _clip(c.aim_dice / AIM_SCALE)


NO_CHASE: Final[tuple[float, ...]] = (0.0, 0.0, 0.0)
CHASE_SCALE: Final = 10.0  # successes
OBSTACLE_RANGE: Final = 30.0  # yards


NO_OBSTACLE: Final[tuple[float, ...]] = (0.0, 0.0, 0.0, 0.0)
JUMP_SCALE: Final = 5.0  # successes


def _chase(battle: Battle, c: Combatant) -> tuple[float, ...]:
    """MOVE-4: fleeing, pursuing, the lead / 10; MOVE-3: the nearest obstacle's
    nearness, the successes its jump needs / 5, its detour / 30, no way around."""
    near = NO_OBSTACLE
    if battle.field.obstacles:
        got = nearest_obstacle(battle, c)
        if got is not None and got[0] < OBSTACLE_RANGE:
            o = got[1]
            need = jump_needed(o.feet, vertical=o.kind is ObstacleKind.LOW)
            need -= jump_successes(c, 0, False)  # VAMP-5: Potence's sure successes
            near = (1.0 - got[0] / OBSTACLE_RANGE, _clip(need / JUMP_SCALE),
                    0.0 if o.detour is None else _clip(o.detour / OBSTACLE_RANGE),
                    1.0 if o.detour is None else 0.0)
    chase = NO_CHASE
    lead = lead_of(battle, c) if chasing(battle) else None
    if lead is not None:
        fleeing = c.chase is not None
        chase = (1.0 if fleeing else 0.0, 0.0 if fleeing else 1.0,
                 _clip(lead / CHASE_SCALE, -1.0))
    return (*chase, *near)


def _clip(v: float, lo: float = 0.0, hi: float = 1.0) -> float:
    return lo if v < lo else hi if v > hi else v


class ObservationEncoder:
    """Encodes a battle as seen by one combatant (any of them: pass ``agent``).

    Args:
        num_combatants: the scenario's size (``num_combatants - 1`` other rows).
        rules: the rules profile (scales for actions).
        max_celerity: the Celerity scale.
        max_penalty: the largest wound penalty of the health table.
        maneuvers: the maneuver table's names, in order (default: the shipped table's).
        slots: the ``others`` and ``tempo`` rows (default ``num_combatants - 1``). More pads
            them: the rows past the fight's others are all zero (``present`` 0), and the
            order-place and seat scales become ``slots`` (a place or id over ``slots``)
            instead of the fight's own, so that with the same ``max_celerity``,
            ``max_penalty`` and rules a feature means the same in every fight (the common
            space of :mod:`envs.mixed`). The default is the per-scenario layout, unchanged.
    """

    @classmethod
    def for_scenario(cls, scenario: Scenario, tables: Tables | None = None) -> ObservationEncoder:
        """The encoder of a scenario: its size, rules, highest Celerity, worst wound penalty."""
        tables = tables or load_tables()
        fighters = scenario.fighters
        return cls(
            len(fighters),
            scenario.rules,
            max_celerity=max(f.stats.discipline("celerity") for f in fighters),
            max_penalty=max(level.penalty for level in tables.health),
            maneuvers=tuple(tables.maneuvers),
        )

    def __init__(
        self,
        num_combatants: int,
        rules: RuleSet,
        *,
        max_celerity: int = 5,
        max_penalty: int = 5,
        maneuvers: tuple[str, ...] | None = None,
        slots: int | None = None,
    ) -> None:
        if slots is not None and slots < num_combatants - 1:
            raise ValueError(f"slots {slots}: a fight of {num_combatants} combatants needs "
                             f"at least {num_combatants - 1}")
        if maneuvers is None:
            maneuvers = tuple(load_tables().maneuvers)
        self.decision = decision = decision_block(maneuvers)
        self._maneuver_index = {m: i for i, m in enumerate(maneuvers)}
        self._decision_size = decision.size
        self.num_combatants = num_combatants
        self.slots = num_combatants - 1 if slots is None else slots
        self.padding = self.slots - (num_combatants - 1)  # all-zero rows after the fight's
        self.max_actions = rules.max_actions
        self.max_celerity = max(1, max_celerity)
        self.max_penalty = max(1, max_penalty)
        self.size = decision.size + SELF.size + self.slots * (OTHER.size + TEMPO.size)
        self._d_end = decision.size
        self._o_end = decision.size + self.slots * OTHER.size
        self._s_end = self._o_end + SELF.size
        low = np.concatenate([decision.low(), np.tile(OTHER.low(), self.slots), SELF.low(),
                              np.tile(TEMPO.low(), self.slots)])
        self.flat_space = spaces.Box(low, np.ones(self.size, np.float32), dtype=np.float32)
        self.dict_space = spaces.Dict(  # keys in the flat order (sorted, as Dict keeps them)
            {
                "decision": spaces.Box(decision.low(), 1.0, dtype=np.float32),
                "others": spaces.Box(np.tile(OTHER.low(), (self.slots, 1)), 1.0, dtype=np.float32),
                "self": spaces.Box(SELF.low(), 1.0, dtype=np.float32),
                "tempo": spaces.Box(np.tile(TEMPO.low(), (self.slots, 1)), 1.0, dtype=np.float32),
            }
        )
        self._zero_other = (0.0,) * OTHER.size
        self._zero_tempo = (0.0,) * TEMPO.size
        self._last = max(1, self.slots)  # the order place scale: 0 first, 1 last
        # the seat scale: id 0 is 0, the last 1 (padded: an id over the slots)
        self._last_id = max(1, num_combatants - 1 if slots is None else self.slots)
        self._action_scale = self.max_actions + self.max_celerity

    def feature_names(self) -> list[str]:
        """The layout, one name per float (``others.3.dx`` is row 3's dx): the flat
        observation's order, and the dict's once flattened."""
        names = [f"decision.{f}" for f in self.decision.features]
        names += [f"others.{i}.{f}" for i in range(self.slots) for f in OTHER.features]
        names += [f"self.{f}" for f in SELF.features]
        names += [f"tempo.{i}.{f}" for i in range(self.slots) for f in TEMPO.features]
        return names

    def split(self, flat: np.ndarray) -> dict[str, np.ndarray]:
        """The ``Dict`` view of a flat observation (keys in the flat order)."""
        return {
            "decision": flat[: self._d_end],
            "others": flat[self._d_end : self._o_end].reshape(self.slots, OTHER.size),
            "self": flat[self._o_end : self._s_end],
            "tempo": flat[self._s_end :].reshape(self.slots, TEMPO.size),
        }

    def encode(self, battle: Battle, agent: int) -> np.ndarray:
        """The flat observation of ``battle`` for combatant ``agent`` (a new array)."""
        decision = battle.pending
        turn = battle.turn
        me = battle.combatants[agent]
        order = {c.id: i for i, c in enumerate(battle.order)}
        v = self._decision(battle, decision, agent)
        attacker = (
            decision.attacker
            if decision is not None
            and decision.kind is DecisionKind.DEFEND
            and decision.actor == agent
            else None
        )
        aim_target = _aim(me, turn)[0]
        tempo: list[float] = []  # the last block, filled in the same pass as ``others``
        for o in battle.combatants:
            if o.id != agent:
                self._other(v, battle, me, o, order, attacker, aim_target)
                self._tempo(tempo, battle, o)
        if self.padding:
            v += self._zero_other * self.padding
            tempo += self._zero_tempo * self.padding
        self._self(v, battle, me, order)
        v += tempo
        return np.fromiter(v, np.float32, self.size)

    def _decision(self, battle: Battle, d: Decision | None, agent: int) -> list[float]:
        """A new list holding the ``decision`` block (the rest is appended to it)."""
        v = [0.0] * self._decision_size
        if d is not None and d.actor == agent:
            kind = d.kind
            v[_KIND_INDEX[kind]] = 1.0
            if d.interrupt:
                v[_INTERRUPT] = 1.0
            index = self._maneuver_index
            if kind is DecisionKind.DEFEND and d.maneuver in index:
                v[_INCOMING + index[d.maneuver]] = 1.0
        v[-1] = _clip(battle.turn / max(1, battle.turn_limit))
        return v

    def _cover(self, battle: Battle, c: Combatant) -> float:
        fld = battle.field
        if not fld.cover:
            return 0.0
        zone = fld.cover_at(c.x, c.y)
        return 0.0 if zone is None else zone.level.value / COVER_SCALE

    def _self(self, v: list[float], battle: Battle, c: Combatant, order: dict[int, int]) -> None:
        """Append the ``self`` block of ``c`` to ``v``."""
        h = c.health
        size = h.size
        stats = c.stats
        turn = battle.turn
        w = c.weapon
        active = c.active
        allowance = battle.run_allowance(c) if active else 0.0
        ammo = jammed = 0.0
        wielding = c.wielding
        if wielding >= 0:
            if w.magazine:
                ammo = _clip(c.ammo[wielding] / w.magazine)
            jammed = 1.0 if c.jammed[wielding] else 0.0
        pos = order.get(c.id)
        stunned = c.stunned_turn
        v += (
            1.0 if active else 0.0,
            1.0 if c.vampire else 0.0,
            h.filled / size,
            h.bashing / size,
            h.lethal / size,
            h.aggravated / size,
            _clip(h.penalty / self.max_penalty),
            _clip(c.willpower / max(1, stats.willpower)),
            1.0 if c.willpower_available(turn, battle.rules.willpower_per_turn) else 0.0,
            _clip(c.blood / max(1, stats.blood_pool)),
            _clip(battle.initiative_now(c) / INITIATIVE_SCALE, -1.0),
            1.0 if pos is None else pos / self._last,
            _clip(c.actions_left / self._action_scale),
            _clip(c.declared / self.max_actions),
            1.0 if c.full_defense else 0.0,
            1.0 if c.acted else 0.0,
            1.0 if c.delayed else 0.0,
            1.0 if c.waiting else 0.0,
            _clip(c.celerity / self.max_celerity),
            _clip(c.moved / allowance) if allowance > 0 else 1.0,
            self._cover(battle, c),
            1.0 if c.prone else 0.0,
            1.0 if stunned >= 0 and stunned >= turn else 0.0,
            1.0 if c.off_balance_turn == turn else 0.0,
            1.0 if c.blinded else 0.0,
            1.0 if c.staked else 0.0,
            # grapple links, in GRAPPLE_LINKS order
            *_link_flags(c),
            1.0 if c.claws_out else 0.0,
            *_WEAPON_ONEHOT[w.cls],
            jammed,
            ammo,
            1.0 if c.offhand >= 0 else 0.0,
            _aim(c, turn)[1],
            *_chase(battle, c),
            c.id / self._last_id,
        )

    def _other(
        self,
        v: list[float],
        battle: Battle,
        me: Combatant,
        o: Combatant,
        order: dict[int, int],
        attacker: int | None,
        aim_target: int,
    ) -> None:
        """Append the ``others`` row of ``o`` (as ``me`` sees it) to ``v``."""
        if not o.active:
            v += self._zero_other
            return
        ally = o.side == me.side
        dx, dy = o.x - me.x, o.y - me.y
        h = o.health
        pos = order.get(o.id)
        stunned = o.stunned_turn
        links = _links(o)
        v += (
            1.0,
            1.0 if ally else 0.0,
            0.0 if ally else 1.0,
            _clip(dx / POSITION_SCALE, -1.0),
            _clip(dy / POSITION_SCALE, -1.0),
            *_BAND_ONEHOT[bisect_left(_BAND_EDGES, math.hypot(dx, dy))],
            h.filled / h.size,
            self._cover(battle, o),
            1.0 if o.prone else 0.0,
            1.0 if o.full_defense else 0.0,
            *_WEAPON_ONEHOT[o.weapon.cls],
            1.0 if attacker == o.id else 0.0,
            1.0 if pos is None else pos / self._last,
            1.0 if o.acted else 0.0,
            1.0 if stunned >= 0 and stunned >= battle.turn else 0.0,
            1.0 if o.blinded else 0.0,
            1.0 if o.staked else 0.0,
            1.0 if max(links) >= 0 else 0.0,
            1.0 if me.id in links else 0.0,
            1.0 if aim_target == o.id else 0.0,
        )

    def _tempo(self, v: list[float], battle: Battle, o: Combatant) -> None:
        """Append the ``tempo`` row of ``o`` to ``v`` (version 5)."""
        if not o.active:
            v += self._zero_tempo
            return
        turn = battle.turn
        v += (
            1.0 if o.vampire else 0.0,
            _clip(o.health.penalty / self.max_penalty),
            _clip(o.willpower / max(1, o.stats.willpower)),
            1.0 if o.willpower_available(turn, battle.rules.willpower_per_turn) else 0.0,
            1.0 if o.wp_declared else 0.0,
            _clip(o.actions_left / self._action_scale),
            _clip(o.declared / self.max_actions),
            _clip(o.celerity / self.max_celerity),
            1.0 if o.delayed else 0.0,
            1.0 if o.waiting else 0.0,
            1.0 if o.off_balance_turn == turn else 0.0,
        )
