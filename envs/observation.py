"""Observation encoding: a battle seen by one combatant, as a fixed-size float32 vector.

Layout version :data:`OBS_VERSION`. Three blocks, concatenated in this order
in the flat ``Box`` (``obs_mode="flat"``), or as the keys of a ``Dict``
(``obs_mode="dict"``):

``decision`` (what is being asked)
    kind one-hot (one per ``DecisionKind``: blood, declare, act, defend; all
    zero once the battle is over), interrupt (a delayed character may act
    now), the incoming attack's maneuver one-hot (one per ``MANEUVERS``; DEFEND
    only), turn / turn limit.

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
    weapon in the off hand, aim dice / 10.

``others`` (one row per other combatant, by id, skipping the observer)
    present (0: out of the fight; the whole row is then zero), ally, enemy,
    dx and dy / 50 yards (signed, clipped), distance band one-hot (<=1, <=2,
    <=10, <=30, <=100, farther yards), health levels filled / track size,
    cover level / 3, prone, full defense, weapon class one-hot, is the attacker
    of the pending defense, place in the initiative order, has acted, stunned,
    blinded, staked, grappling (clinch, hold, feeding), grappling the observer,
    the observer's aim target.

Every value lies in [0, 1] except the signed ones (initiative, dx, dy) in
[-1, 1]; the spaces declare exactly those bounds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from gymnasium import spaces

from vtm_sim.battle import MANEUVERS, Battle
from vtm_sim.choices import Decision, DecisionKind
from vtm_sim.combatant import Combatant
from vtm_sim.rules import RuleSet
from vtm_sim.scenario import Scenario
from vtm_sim.space import CoverLevel
from vtm_sim.tables import Tables, WeaponClass, load_tables

__all__ = ["OBS_VERSION", "Block", "ObservationEncoder"]

OBS_VERSION = 1

DECISION_KINDS = tuple(DecisionKind)
WEAPON_CLASSES = tuple(WeaponClass)
DISTANCE_BANDS = (1.0, 2.0, 10.0, 30.0, 100.0)  # yards; the last band is "farther"
POSITION_SCALE = 50.0  # yards
INITIATIVE_SCALE = 30.0
AIM_SCALE = 10.0
COVER_SCALE = float(max(level.value for level in CoverLevel))
GRAPPLE_LINKS = ("clinch_with", "holding", "held_by", "feeding_on", "fed_on_by")  # ids, -1 none

_MANEUVER_INDEX = {m: i for i, m in enumerate(MANEUVERS)}
_CLASS_INDEX = {c: i for i, c in enumerate(WEAPON_CLASSES)}
_KIND_INDEX = {k: i for i, k in enumerate(DECISION_KINDS)}


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


DECISION = Block(
    "decision",
    _onehot("kind", DECISION_KINDS) + ("interrupt",) + _onehot("incoming", MANEUVERS) + ("turn",),
)
SELF = Block(
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
    + ("jammed", "ammo", "offhand", "aim"),
    frozenset({"initiative"}),
)
OTHER = Block(
    "others",
    ("present", "ally", "enemy", "dx", "dy")
    + tuple(f"band_{i}" for i in range(len(DISTANCE_BANDS) + 1))
    + ("health", "cover", "prone", "full_defense")
    + _onehot("weapon", WEAPON_CLASSES)
    + ("attacker", "order", "acted", "stunned", "blinded", "staked", "grappling")
    + ("grappling_me", "aim_target"),
    frozenset({"dx", "dy"}),
)


def _links(c: Combatant) -> tuple[int, int, int, int, int]:
    """The grapple partners a combatant records, in GRAPPLE_LINKS order (-1: none)."""
    return (c.clinch_with, c.holding, c.held_by, c.feeding_on, c.fed_on_by)


def _stunned(c: Combatant, turn: int) -> float:
    return 1.0 if c.stunned_turn >= 0 and c.stunned_turn >= turn else 0.0


def _aim(c: Combatant, turn: int) -> tuple[int, float]:
    """RNG-7: the aim target and dice still usable (-1, 0 when none)."""
    if not c.aim_dice or c.aim_target < 0 or c.aim_turn < turn - 1:
        return -1, 0.0
    return c.aim_target, _clip(c.aim_dice / AIM_SCALE)


def _clip(v: float, lo: float = 0.0, hi: float = 1.0) -> float:
    return lo if v < lo else hi if v > hi else v


class ObservationEncoder:
    """Encodes a battle as seen by one combatant (any of them: pass ``agent``).

    Args:
        num_combatants: the scenario's size (``num_combatants - 1`` other rows).
        rules: the rules profile (scales for actions).
        max_celerity: the Celerity scale.
        max_penalty: the largest wound penalty of the health table.
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
        )

    def __init__(
        self,
        num_combatants: int,
        rules: RuleSet,
        *,
        max_celerity: int = 5,
        max_penalty: int = 5,
    ) -> None:
        self.num_combatants = num_combatants
        self.slots = num_combatants - 1
        self.max_actions = rules.max_actions
        self.max_celerity = max(1, max_celerity)
        self.max_penalty = max(1, max_penalty)
        self.size = DECISION.size + SELF.size + self.slots * OTHER.size
        self._d_end = DECISION.size
        self._s_end = DECISION.size + SELF.size
        low = np.concatenate([DECISION.low(), SELF.low(), np.tile(OTHER.low(), self.slots)])
        self.flat_space = spaces.Box(low, np.ones(self.size, np.float32), dtype=np.float32)
        self.dict_space = spaces.Dict(
            {
                "decision": spaces.Box(DECISION.low(), 1.0, dtype=np.float32),
                "self": spaces.Box(SELF.low(), 1.0, dtype=np.float32),
                "others": spaces.Box(np.tile(OTHER.low(), (self.slots, 1)), 1.0, dtype=np.float32),
            }
        )
        self._zero_other = [0.0] * OTHER.size

    def feature_names(self) -> list[str]:
        """The flat layout, one name per float (``others.3.dx`` is row 3's dx)."""
        names = [f"decision.{f}" for f in DECISION.features]
        names += [f"self.{f}" for f in SELF.features]
        names += [f"others.{i}.{f}" for i in range(self.slots) for f in OTHER.features]
        return names

    def split(self, flat: np.ndarray) -> dict[str, np.ndarray]:
        """The ``Dict`` view of a flat observation."""
        return {
            "decision": flat[: self._d_end],
            "self": flat[self._d_end : self._s_end],
            "others": flat[self._s_end :].reshape(self.slots, OTHER.size),
        }

    def encode(self, battle: Battle, agent: int) -> np.ndarray:
        """The flat observation of ``battle`` for combatant ``agent``."""
        decision = battle.pending
        v: list[float] = self._decision(battle, decision, agent)
        me = battle.combatants[agent]
        order = {c.id: i for i, c in enumerate(battle.order)}
        last = max(1, self.slots)
        v += self._self(battle, me, order, last)
        attacker = (
            decision.attacker
            if decision is not None
            and decision.kind is DecisionKind.DEFEND
            and decision.actor == agent
            else None
        )
        for o in battle.combatants:
            if o.id != agent:
                v += self._other(battle, me, o, order, last, attacker)
        return np.array(v, dtype=np.float32)

    def _decision(self, battle: Battle, d: Decision | None, agent: int) -> list[float]:
        v = [0.0] * DECISION.size
        if d is not None and d.actor == agent:
            v[_KIND_INDEX[d.kind]] = 1.0
            k = len(DECISION_KINDS)
            if d.interrupt:
                v[k] = 1.0
            if d.kind is DecisionKind.DEFEND and d.maneuver in _MANEUVER_INDEX:
                v[k + 1 + _MANEUVER_INDEX[d.maneuver]] = 1.0
        v[-1] = _clip(battle.turn / max(1, battle.turn_limit))
        return v

    def _cover(self, battle: Battle, c: Combatant) -> float:
        fld = battle.field
        if not fld.cover:
            return 0.0
        zone = fld.cover_at(c.x, c.y)
        return 0.0 if zone is None else zone.level.value / COVER_SCALE

    def _self(self, battle: Battle, c: Combatant, order: dict[int, int], last: int) -> list[float]:
        h = c.health
        size = h.size
        stats = c.stats
        turn = battle.turn
        w = c.weapon
        allowance = battle.run_allowance(c) if c.active else 0.0
        ammo = jammed = 0.0
        if c.wielding >= 0:
            if w.magazine:
                ammo = _clip(c.ammo[c.wielding] / w.magazine)
            jammed = 1.0 if c.jammed[c.wielding] else 0.0
        weapon = [0.0] * len(WEAPON_CLASSES)
        weapon[_CLASS_INDEX[w.cls]] = 1.0
        pos = order.get(c.id)
        return [
            1.0 if c.active else 0.0,
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
            1.0 if pos is None else pos / last,
            _clip(c.actions_left / (self.max_actions + self.max_celerity)),
            _clip(c.declared / self.max_actions),
            1.0 if c.full_defense else 0.0,
            1.0 if c.acted else 0.0,
            1.0 if c.delayed else 0.0,
            1.0 if c.waiting else 0.0,
            _clip(c.celerity / self.max_celerity),
            _clip(c.moved / allowance) if allowance > 0 else 1.0,
            self._cover(battle, c),
            1.0 if c.prone else 0.0,
            _stunned(c, turn),
            1.0 if c.off_balance_turn == turn else 0.0,
            1.0 if c.blinded else 0.0,
            1.0 if c.staked else 0.0,
            *[1.0 if link >= 0 else 0.0 for link in _links(c)],
            1.0 if c.claws_out else 0.0,
            *weapon,
            jammed,
            ammo,
            1.0 if c.offhand >= 0 else 0.0,
            _aim(c, turn)[1],
        ]

    def _other(
        self,
        battle: Battle,
        me: Combatant,
        o: Combatant,
        order: dict[int, int],
        last: int,
        attacker: int | None,
    ) -> list[float]:
        if not o.active:
            return self._zero_other
        ally = o.side == me.side
        dx, dy = o.x - me.x, o.y - me.y
        dist = math.hypot(dx, dy)
        bands = [0.0] * (len(DISTANCE_BANDS) + 1)
        b = 0
        while b < len(DISTANCE_BANDS) and dist > DISTANCE_BANDS[b] + 1e-9:
            b += 1
        bands[b] = 1.0
        weapon = [0.0] * len(WEAPON_CLASSES)
        weapon[_CLASS_INDEX[o.weapon.cls]] = 1.0
        pos = order.get(o.id)
        links = _links(o)
        return [
            1.0,
            1.0 if ally else 0.0,
            0.0 if ally else 1.0,
            _clip(dx / POSITION_SCALE, -1.0),
            _clip(dy / POSITION_SCALE, -1.0),
            *bands,
            o.health.filled / o.health.size,
            self._cover(battle, o),
            1.0 if o.prone else 0.0,
            1.0 if o.full_defense else 0.0,
            *weapon,
            1.0 if attacker == o.id else 0.0,
            1.0 if pos is None else pos / last,
            1.0 if o.acted else 0.0,
            _stunned(o, battle.turn),
            1.0 if o.blinded else 0.0,
            1.0 if o.staked else 0.0,
            1.0 if max(links) >= 0 else 0.0,
            1.0 if me.id in links else 0.0,
            1.0 if _aim(me, battle.turn)[0] == o.id else 0.0,
        ]
