"""A combatant's changing state during a battle."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from vtm_sim.health import HealthTrack, Status
from vtm_sim.stats import Kind, StatBlock
from vtm_sim.tables import UNARMED, Tables, Weapon


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
    # per turn
    rating: int = 0  # INIT-2: Dexterity + Wits
    initiative: int = 0
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
    waiting: bool = False
    moved: float = 0.0
    blood_spent: int = 0
    sim_penalty: int | None = None  # INIT-3: wound penalty frozen in a simultaneous group

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
        )

    # --- derived state -------------------------------------------------
    @property
    def name(self) -> str:
        return self.stats.name

    @property
    def active(self) -> bool:
        return self.health.status is Status.ACTIVE

    @property
    def vampire(self) -> bool:
        return self.stats.kind is Kind.VAMPIRE

    @property
    def weapon(self) -> Weapon:
        return UNARMED if self.wielding < 0 else self.stats.weapons[self.wielding]

    @property
    def penalty(self) -> int:
        """Wound penalty now (INIT-4), or as frozen for a simultaneous group."""
        return self.health.penalty if self.sim_penalty is None else self.sim_penalty

    def stunned(self, turn: int) -> bool:
        return self.stunned_turn == turn

    @property
    def actions_left(self) -> int:
        return (self.declared - self.declared_used) + (self.celerity - self.celerity_used)

    def distance(self, other: Combatant) -> float:
        return math.hypot(self.x - other.x, self.y - other.y)

    def willpower_available(self, turn: int, per_turn: int) -> bool:
        """DICE-8: at most ``per_turn`` Willpower points a turn."""
        return self.willpower > 0 and per_turn > 0 and self.wp_spent_turn != turn

    def reset_turn(self) -> None:
        self.declared = 1
        self.full_defense = False
        self.celerity = 0
        self.wp_declared = False
        self.declared_used = 0
        self.celerity_used = 0
        self.defenses_used = 0
        self.acted = False
        self.delayed = False
        self.waiting = False
        self.moved = 0.0
        self.blood_spent = 0
        self.sim_penalty = None
