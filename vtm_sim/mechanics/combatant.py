"""A combatant's changing state during a battle."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Final

from vtm_sim.core.health import HealthTrack, Status
from vtm_sim.core.relations import Aim, Chase, Grip, GripKind
from vtm_sim.core.sheet import UNLISTED_ATTRIBUTE
from vtm_sim.data.stat_blocks import Kind, StatBlock
from vtm_sim.data.tables import UNARMED, Tables, Weapon

# read on every able() and option list: module constants (see vtm_sim.core.symbol)
_ACTIVE: Final = Status.ACTIVE
_hypot: Final = math.hypot  # Final: compiled code then skips reading it off the module
_VAMPIRE: Final = Kind.VAMPIRE


@dataclass(slots=True)
class Combatant:
    """Everything about one fighter that changes in a fight.

    ``id`` is its index in the battle; ``side`` groups allies.
    """

    id: int
    stats: StatBlock
    side: int
    health: HealthTrack
    x: float = 0.0
    y: float = 0.0
    willpower: int = 0
    blood: int = 0
    wielding: int = -1  # index into stats.weapons, -1 unarmed
    ammo: list[int] = field(default_factory=list)
    armor_rating: int = 0
    armor_penalty: int = 0
    prone: bool = False
    blinded: bool = False  # CPX-1
    stunned_turn: int = -1  # DMG-6: the turn lost to a stun
    stunned_from: int = -1  # DMG-6: the first turn lost when a second stun came in it
    attr_bonus: dict[str, int] = field(default_factory=dict)  # VAMP-2: blood for the scene
    offhand: int = -1  # RNG-9: index of the weapon in the off hand
    jammed: list[bool] = field(default_factory=list)  # CPX-6
    lost: list[bool] = field(default_factory=list)  # dropped, thrown, broken or disarmed
    facing: tuple[float, float] = (1.0, 0.0)  # ATK-7: unit vector the character faces
    grapple_turn: dict[int, int] = field(default_factory=dict)  # MAN-8: target -> turn gripped
    staked: bool = False  # CPX-5
    claws_out: bool = False  # MAN-11
    aim: Aim | None = None  # RNG-7 (vtm_sim.core.relations)
    grip: Grip | None = None  # MAN-6/7/9: shared with the partner (vtm_sim.core.relations)
    off_balance_turn: int = -1  # MAN-5: +1 difficulty on this turn's actions
    init_penalty_turn: int = -1  # CPX-4: -2 initiative on this turn
    vitae: int = 10  # MAN-9 (Std, configs/feeding.yaml): blood a mortal or ghoul can lose
    drunk: int = 0  # MAN-9: blood drunk this turn
    grappled_turn: int = -1  # MAN-6: the turn of this character's last crush or break-free
    wp_used: int = 0  # DICE-8: Willpower points spent this turn
    shots: dict[int, int] = field(default_factory=dict)  # RNG-4: rate used this turn by weapon
    # per turn
    rating: int = 0  # INIT-2: Dexterity + Wits
    initiative: int = 0  # INIT-2: rating + die (wound penalties come off when read)
    rolled_penalty: int = 0  # INIT-4: the wound penalty when initiative was rolled
    declared: int = 1
    full_defense: bool = False
    celerity: int = 0
    wp_declared: bool = False
    wp_spent_turn: int = -1
    declared_used: int = 0
    celerity_used: int = 0
    defenses_used: int = 0
    acted: bool = False  # the declared first action is done (or cancelled)
    delayed: bool = False
    announced: bool = False  # INIT-10: a delay said at the declaration (delay_announced)
    waiting: bool = False
    moved: float = 0.0
    blood_spent: int = 0
    sim_penalty: int | None = None  # INIT-3: wound penalty frozen in a simultaneous group
    chase: Chase | None = None  # MOVE-4: this character's flight (vtm_sim.core.relations)
    escaped: bool = False  # MOVE-4: got away: out of the fight, not down

    @classmethod
    def create(
        cls, cid: int, stats: StatBlock, side: int, tables: Tables, x: float = 0.0, y: float = 0.0
    ) -> Combatant:
        armor = stats.armor
        return cls(
            cid, stats, side, HealthTrack(tables.health, stats.kind), x, y,
            willpower=stats.willpower, blood=stats.blood,
            wielding=0 if stats.weapons else -1,
            ammo=[w.magazine if w.magazine else 1 for w in stats.weapons],
            armor_rating=armor.rating if armor else 0,
            armor_penalty=armor.penalty if armor else 0,
            rating=stats.attr("dexterity") + stats.attr("wits"),
            jammed=[False] * len(stats.weapons),
            lost=[False] * len(stats.weapons),
            offhand=_offhand(stats),
            vitae=tables.feeding.mortal_vitae,
        )

    def copy(self) -> Combatant:
        """An independent copy, field by field: the lists, dicts and health track are
        copied, everything else (the stat block, numbers, frozen relations) shared.

        Made without ``__init__`` (the generated one stays Python under mypyc) by
        setting every field by name; tests/mechanics/test_combatant.py checks that
        every field of ``dataclasses.fields(Combatant)`` is here and no mutable one
        is shared.
        """
        new = Combatant.__new__(Combatant)
        new.id = self.id
        new.stats = self.stats
        new.side = self.side
        new.health = self.health.copy()
        new.x = self.x
        new.y = self.y
        new.willpower = self.willpower
        new.blood = self.blood
        new.wielding = self.wielding
        new.ammo = list(self.ammo)
        new.armor_rating = self.armor_rating
        new.armor_penalty = self.armor_penalty
        new.prone = self.prone
        new.blinded = self.blinded
        new.stunned_turn = self.stunned_turn
        new.stunned_from = self.stunned_from
        new.attr_bonus = dict(self.attr_bonus)
        new.offhand = self.offhand
        new.jammed = list(self.jammed)
        new.lost = list(self.lost)
        new.facing = self.facing
        new.grapple_turn = dict(self.grapple_turn)
        new.staked = self.staked
        new.claws_out = self.claws_out
        new.aim = self.aim
        new.grip = self.grip
        new.off_balance_turn = self.off_balance_turn
        new.init_penalty_turn = self.init_penalty_turn
        new.vitae = self.vitae
        new.drunk = self.drunk
        new.grappled_turn = self.grappled_turn
        new.wp_used = self.wp_used
        new.shots = dict(self.shots)
        new.rating = self.rating
        new.initiative = self.initiative
        new.rolled_penalty = self.rolled_penalty
        new.declared = self.declared
        new.full_defense = self.full_defense
        new.celerity = self.celerity
        new.wp_declared = self.wp_declared
        new.wp_spent_turn = self.wp_spent_turn
        new.declared_used = self.declared_used
        new.celerity_used = self.celerity_used
        new.defenses_used = self.defenses_used
        new.acted = self.acted
        new.delayed = self.delayed
        new.announced = self.announced
        new.waiting = self.waiting
        new.moved = self.moved
        new.blood_spent = self.blood_spent
        new.sim_penalty = self.sim_penalty
        new.chase = self.chase
        new.escaped = self.escaped
        return new

    def to_json(self) -> dict[str, Any]:
        """Everything that changes in a fight, JSON-ready (the sheet is saved apart)."""
        h = self.health
        d: dict[str, Any] = {"id": self.id, "side": self.side,
                             "health": [h.bashing, h.lethal, h.aggravated, h.status.value]}
        for name in _PLAIN_FIELDS:
            d[name] = getattr(self, name)
        d["ammo"], d["jammed"], d["lost"] = list(self.ammo), list(self.jammed), list(self.lost)
        d["attr_bonus"] = dict(self.attr_bonus)
        d["facing"] = list(self.facing)
        d["grip"] = None if self.grip is None else self.grip.to_json()
        d["aim"] = None if self.aim is None else self.aim.to_json()
        d["grapple_turn"] = [[k, v] for k, v in self.grapple_turn.items()]
        d["shots"] = [[k, v] for k, v in self.shots.items()]
        if self.chase is not None:  # MOVE-4: written only when set (older states stay valid)
            d["chase"] = self.chase.to_json()
        if self.escaped:
            d["escaped"] = True
        if self.stunned_from >= 0:  # DMG-6: written only when set (older states stay valid)
            d["stunned_from"] = self.stunned_from
        if self.announced:  # INIT-10: written only when set (older states stay valid)
            d["announced"] = True
        return d

    @classmethod
    def from_json(cls, data: dict[str, Any], stats: StatBlock, tables: Tables) -> Combatant:
        c = cls.create(int(data["id"]), stats, int(data["side"]), tables)
        b, le, ag, status = data["health"]
        c.health.bashing, c.health.lethal, c.health.aggravated = int(b), int(le), int(ag)
        c.health.status = Status(status)
        c.health.resync()
        for name in _PLAIN_FIELDS:
            value = data[name]
            setattr(c, name, float(value) if name in _FLOAT_FIELDS else value)
        c.ammo = [int(v) for v in data["ammo"]]
        c.jammed = [bool(v) for v in data["jammed"]]
        c.lost = [bool(v) for v in data["lost"]]
        c.attr_bonus = {str(k): int(v) for k, v in data["attr_bonus"].items()}
        c.facing = (float(data["facing"][0]), float(data["facing"][1]))
        grip, aim = data["grip"], data["aim"]
        c.grip = None if grip is None else Grip.from_json(grip)
        c.aim = None if aim is None else Aim.from_json(aim)
        c.grapple_turn = {int(k): int(v) for k, v in data["grapple_turn"]}
        c.shots = {int(k): int(v) for k, v in data["shots"]}
        chase = data.get("chase")
        c.chase = None if chase is None else Chase.from_json(chase)
        c.escaped = bool(data.get("escaped", False))
        c.stunned_from = int(data.get("stunned_from", -1))
        c.announced = bool(data.get("announced", False))
        return c

    def attr(self, name: str) -> int:
        """An Attribute with blood bonuses (VAMP-2)."""
        return self.stats.attributes.get(name, UNLISTED_ATTRIBUTE) + self.attr_bonus.get(name, 0)

    # --- derived state -------------------------------------------------
    @property
    def name(self) -> str:
        return self.stats.name

    @property
    def active(self) -> bool:
        return self.health.status is _ACTIVE

    @property
    def vampire(self) -> bool:
        return self.stats.kind is _VAMPIRE

    @property
    def weapon(self) -> Weapon:
        return UNARMED if self.wielding < 0 else self.stats.weapons[self.wielding]

    @property
    def penalty(self) -> int:
        """Wound penalty now (INIT-4), or as frozen for a simultaneous group."""
        return self.health.penalty if self.sim_penalty is None else self.sim_penalty

    def stunned(self, turn: int) -> bool:
        """CPX-2: ``turn`` is lost to a stun (DMG-6), or to two in a row."""
        return self.stunned_turn == turn or 0 <= self.stunned_from <= turn <= self.stunned_turn

    @property
    def actions_left(self) -> int:
        return (self.declared - self.declared_used) + (self.celerity - self.celerity_used)

    def distance(self, other: Combatant) -> float:
        return _hypot(self.x - other.x, self.y - other.y)

    def willpower_available(self, turn: int, per_turn: int) -> bool:
        """DICE-8: at most ``per_turn`` Willpower points a turn."""
        used = self.wp_used if self.wp_spent_turn == turn else 0
        return self.willpower > 0 and used < per_turn

    def spend_willpower(self, turn: int) -> None:
        if self.wp_spent_turn != turn:
            self.wp_used = 0
        self.willpower -= 1
        self.wp_used += 1
        self.wp_spent_turn = turn

    @property
    def grappling(self) -> bool:
        """In a clinch, holding, held, feeding or fed upon (MAN-6/7/9)."""
        return self.grip is not None

    # the grip and the aim as the rules read them (-1: nobody; vtm_sim.core.relations)
    def _gripped(self, kind: GripKind, holder: bool) -> int:
        g = self.grip
        if g is None or g.kind is not kind:
            return -1
        if kind is GripKind.CLINCH:
            return g.partner(self.id)
        if holder:
            return g.victim if g.holder == self.id else -1
        return g.holder if g.victim == self.id else -1

    @property
    def clinch_with(self) -> int:
        """MAN-6: the partner in a clinch."""
        return self._gripped(GripKind.CLINCH, True)

    @property
    def holding(self) -> int:
        """MAN-7: the victim this character holds."""
        return self._gripped(GripKind.HOLD, True)

    @property
    def held_by(self) -> int:
        return self._gripped(GripKind.HOLD, False)

    @property
    def feeding_on(self) -> int:
        """MAN-9: the victim this character drinks from."""
        return self._gripped(GripKind.FEED, True)

    @property
    def fed_on_by(self) -> int:
        return self._gripped(GripKind.FEED, False)

    @property
    def aim_target(self) -> int:
        return -1 if self.aim is None else self.aim.target

    @property
    def aim_dice(self) -> int:
        return 0 if self.aim is None else self.aim.dice

    @property
    def aim_turn(self) -> int:
        return -1 if self.aim is None else self.aim.turn

    def reset_turn(self) -> None:
        self.rolled_penalty = 0
        self.declared = 1
        self.full_defense = False
        self.celerity = 0
        self.wp_declared = False
        self.declared_used = 0
        self.celerity_used = 0
        self.defenses_used = 0
        self.acted = False
        self.delayed = False
        self.announced = False
        self.waiting = False
        self.moved = 0.0
        self.blood_spent = 0
        self.sim_penalty = None
        self.shots.clear()
        self.drunk = 0
        self.rating = self.attr("dexterity") + self.attr("wits")


# the fields saved as they are (plain JSON values) by to_json
_PLAIN_FIELDS: Final[tuple[str, ...]] = (
    "x", "y", "willpower", "blood", "wielding", "armor_rating", "armor_penalty", "prone",
    "blinded", "stunned_turn", "offhand", "staked", "claws_out", "off_balance_turn",
    "init_penalty_turn", "vitae", "drunk", "grappled_turn", "wp_used", "rating",
    "initiative", "rolled_penalty", "declared", "full_defense", "celerity", "wp_declared",
    "wp_spent_turn", "declared_used", "celerity_used", "defenses_used", "acted", "delayed",
    "waiting", "moved", "blood_spent", "sim_penalty",
)
_FLOAT_FIELDS: Final = frozenset({"x", "y", "moved"})


ONE_HANDED: Final = frozenset({"P", "J"})  # RNG-9: pocket and jacket weapons fit one hand


def _offhand(stats: StatBlock) -> int:
    """RNG-9: a second one-handed weapon beside a one-handed first one is in the off hand."""
    ws = stats.weapons
    if len(ws) >= 2 and ws[0].conceal in ONE_HANDED and ws[1].conceal in ONE_HANDED:
        return 1
    return -1
