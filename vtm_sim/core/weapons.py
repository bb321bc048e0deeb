"""Weapons and armor as the engine reads them during a fight (built from the
validated tables in :mod:`vtm_sim.data.tables`, and compiled with the hot modules)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from vtm_sim.core.symbol import Symbol


class DamageType(Symbol):
    """DMG-1. Ordered from least to most severe."""

    BASHING = "bashing"
    LETHAL = "lethal"
    AGGRAVATED = "aggravated"

    @property
    def mark(self) -> str:
        """DMG-7: the mark on the health track."""
        return _MARKS[self]

    @property
    def severity(self) -> int:
        return _SEVERITY[self]


_MARKS: Final = {DamageType.BASHING: "/", DamageType.LETHAL: "X", DamageType.AGGRAVATED: "*"}
_SEVERITY: Final = {DamageType.BASHING: 0, DamageType.LETHAL: 1, DamageType.AGGRAVATED: 2}
DAMAGE_TYPES: Final = {t.value: t for t in DamageType}  # by name: DamageType(name) is slow Python


class WeaponClass(Symbol):
    UNARMED = "unarmed"
    MELEE = "melee"
    THROWN = "thrown"
    FIREARM = "firearm"
    BOW = "bow"
    CROSSBOW = "crossbow"

    @property
    def ranged(self) -> bool:
        return self not in (WeaponClass.UNARMED, WeaponClass.MELEE)


@dataclass(frozen=True, slots=True)
class Weapon:
    """A weapon from the weapon table (Std)."""

    name: str
    cls: WeaponClass
    damage_type: DamageType
    damage: int  # fixed damage pool (0 when Strength-based)
    strength_bonus: int | None  # Strength-based damage: Strength + bonus
    range: int  # short range in yards (0 for close combat)
    rate: int
    magazine: int
    autofire: bool
    length: int
    conceal: str
    scope: bool = False
    trips: bool = False
    elemental: bool = False

    @property
    def strength_based(self) -> bool:
        return self.strength_bonus is not None


UNARMED: Final = Weapon("unarmed", WeaponClass.UNARMED, DamageType.BASHING, 0, 0, 0, 1, 0,
                        False, 0, "P")


@dataclass(frozen=True, slots=True)
class Armor:
    name: str
    rating: int
    penalty: int
    # RNG-11: the called-shot sizes (RNG-8) at which it covers every part (the rest it
    # leaves bare: a called shot there ignores it)
    covers: frozenset[str] = frozenset()
