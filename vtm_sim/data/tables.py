"""Game tables as data (STYLE 2): weapons, armor, health track, generations,
movement and maneuvers, loaded from ``configs/*.yaml`` and validated."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Literal

from pydantic import ConfigDict, Field, model_validator

from vtm_sim.core.maneuvers import (
    HAND_USES,
    RANGED_USES,
    Damage,
    Effect,
    Maneuver,
    ManeuverClass,
    Need,
    WeaponUse,
    maneuver,
)
from vtm_sim.core.weapons import DAMAGE_TYPES, UNARMED, Armor, DamageType, Weapon, WeaponClass
from vtm_sim.data.config import StrictModel, config_dir, load_yaml, validate
from vtm_sim.errors import ConfigError

# (the weapon types live in vtm_sim.core.weapons, compiled with the hot modules)
__all__ = [
    "DAMAGE_TYPES",
    "HAND_USES",
    "UNARMED",
    "Armor",
    "ArmorSpec",
    "CalledShotRow",
    "DamageSpec",
    "DamageType",
    "Effect",
    "FeedingSpec",
    "GenerationSpec",
    "HealthLevelSpec",
    "HealthTableSpec",
    "Maneuver",
    "ManeuverClass",
    "ManeuverSpec",
    "MishapEffect",
    "MishapTableSpec",
    "MovementSpec",
    "Need",
    "SpeedSpec",
    "Tables",
    "Weapon",
    "WeaponClass",
    "WeaponSpec",
    "WeaponUse",
    "load_tables",
]


class WeaponSpec(StrictModel):
    model_config = ConfigDict(populate_by_name=True)  # ``cls`` is read from ``class``

    cls: Literal["unarmed", "melee", "thrown", "firearm", "bow", "crossbow"] = Field(alias="class")
    damage: int | None = Field(default=None, ge=0, le=20)
    strength_bonus: int | None = Field(default=None, ge=-2, le=10)
    damage_type: Literal["bashing", "lethal", "aggravated"]
    range: int | None = Field(default=None, ge=1, le=2000)
    rate: int = Field(default=1, ge=1, le=20)
    magazine: int = Field(default=0, ge=0, le=500)
    autofire: bool = False
    length: int = Field(default=0, ge=0, le=5)
    conceal: Literal["P", "J", "T", "N"] = "N"
    scope: bool = False  # RNG-7: +2 dice when aiming
    trips: bool = False  # MAN-4: a staff or chain sweeps with Melee and its own damage
    elemental: bool = False  # SOAK-3/SOAK-4: fire (or sunlight): armor does not help


class ArmorSpec(StrictModel):
    rating: int = Field(ge=0, le=10)
    penalty: int = Field(ge=0, le=10)
    covers: tuple[Literal["medium", "small", "tiny"], ...] = ()  # RNG-11


class HealthLevelSpec(StrictModel):
    name: str
    penalty: int = Field(ge=0, le=10)
    move: Literal["full", "half", "no_run", "fixed"]
    yards: int | None = Field(default=None, ge=0)


class HealthTableSpec(StrictModel):
    levels: list[HealthLevelSpec] = Field(min_length=2)


class GenerationSpec(StrictModel):
    blood_pool: int = Field(ge=1)
    per_turn: int = Field(ge=1)
    trait_max: int = Field(ge=5, le=10)


class SpeedSpec(StrictModel):
    base: int = Field(ge=0)
    per_dexterity: int = Field(ge=0)


class MovementSpec(StrictModel):
    walk: SpeedSpec
    jog: SpeedSpec
    run: SpeedSpec


class DamageSpec(StrictModel):
    strength: bool = False
    weapon: bool = False
    bonus: int = 0
    type: Literal["bashing", "lethal", "aggravated", "weapon", "none", "claws"]


MishapTable = Literal["firearm", "bow", "crossbow", "thrown", "melee", "unarmed", "disarm"]


class ManeuverSpec(StrictModel):
    """One row of ``configs/maneuvers.yaml`` (its header documents every key)."""

    model_config = ConfigDict(populate_by_name=True)  # ``cls`` is read from ``class``

    cls: ManeuverClass = Field(alias="class")
    weapon: WeaponUse
    offhand: bool = False
    attribute: Literal["strength", "dexterity", "stamina", "perception", "wits"]
    ability: str
    difficulty: int = Field(ge=-5, le=5)
    accuracy: int = Field(ge=-5, le=20)
    reach: int | None = Field(default=None, ge=0)
    rounds: int = Field(default=0, ge=0)
    magazine: bool = False
    half_magazine: bool = False
    area: float = Field(default=0.0, ge=0)
    called_shot: bool = False
    needs: list[Need] = Field(default_factory=list)
    effect: Effect | None = None
    mishaps: MishapTable | None = None
    damage: DamageSpec

    @model_validator(mode="after")
    def _consistent(self) -> ManeuverSpec:
        close = self.cls is ManeuverClass.CLOSE
        if close and self.reach is None:
            raise ValueError("reach: a close maneuver needs a reach in yards (ATK-1)")
        if not close and self.reach is not None:
            raise ValueError("reach: a ranged maneuver has the weapon's range, not a reach")
        if (self.weapon in RANGED_USES) == close:
            raise ValueError(f"weapon: {self.weapon.value} is not made in {self.cls.value} combat")
        if close and (self.rounds or self.magazine or self.area):
            raise ValueError("rounds, magazine and area are for ranged maneuvers")
        if self.half_magazine and not self.magazine:
            raise ValueError("half_magazine: only with magazine: true (RNG-5)")
        if self.called_shot and self.magazine:
            raise ValueError("called_shot: not with autofire that empties the magazine (RNG-8)")
        if self.offhand and self.weapon not in HAND_USES:
            raise ValueError("offhand: only a maneuver made with the weapon in hand (RNG-9)")
        return self


MishapEffect = Literal[
    "jam", "drop", "break", "hit_ally", "off_balance", "fall", "self_damage",
    "struck_by_opponent",
]


class MishapTableSpec(StrictModel):
    firearm: list[tuple[int, int, MishapEffect]]
    bow: list[tuple[int, int, MishapEffect]]
    crossbow: list[tuple[int, int, MishapEffect]]
    thrown: list[tuple[int, int, MishapEffect]]
    melee: list[tuple[int, int, MishapEffect]]
    unarmed: list[tuple[int, int, MishapEffect]]
    disarm: list[tuple[int, int, MishapEffect]]

    def effect(self, table: str, face: int) -> MishapEffect | None:
        rows: list[tuple[int, int, MishapEffect]] = getattr(self, table)
        for lo, hi, eff in rows:
            if lo <= face <= hi:
                return eff
        return None


class FeedingSpec(StrictModel):
    feed_per_turn: int = Field(ge=1, le=20)
    mortal_vitae: int = Field(ge=1, le=50)
    ghoul_pool: int = Field(ge=1, le=50)
    ghoul_per_turn: int = Field(ge=1, le=10)


class CalledShotRow(StrictModel):
    medium: tuple[int, int]
    small: tuple[int, int]
    tiny: tuple[int, int]


@dataclass(frozen=True, slots=True)
class Tables:
    """Every table the engine reads, from one configs folder."""

    weapons: dict[str, Weapon]
    armor: dict[str, Armor]
    health: tuple[HealthLevelSpec, ...]
    generations: dict[int, GenerationSpec]
    movement: MovementSpec
    maneuvers: dict[str, Maneuver]
    called_shots: dict[str, CalledShotRow]
    mishaps: MishapTableSpec
    feeding: FeedingSpec
    root: Path

    def weapon(self, name: str) -> Weapon:
        return UNARMED if name == "unarmed" else self.weapons[name]


def _maneuver(name: str, spec: ManeuverSpec) -> Maneuver:
    d = spec.damage
    return maneuver(
        name, spec.cls, spec.weapon, spec.offhand, spec.attribute, spec.ability,
        spec.difficulty, spec.accuracy, spec.reach, spec.rounds, spec.magazine,
        spec.half_magazine, spec.area, spec.called_shot, tuple(spec.needs), spec.effect,
        spec.mishaps, Damage(d.strength, d.weapon, d.bonus, d.type),
    )


def _mapping(path: Path) -> dict[str, object]:
    data = load_yaml(path)
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: top level: expected a mapping of names")
    return data


@cache
def load_tables(root: Path | None = None) -> Tables:
    """Load and validate all tables under ``root`` (default: shipped configs)."""
    root = root or config_dir()
    weapons: dict[str, Weapon] = {}
    path = root / "weapons.yaml"
    for name, raw in _mapping(path).items():
        spec = validate(WeaponSpec, raw, path, str(name))
        cls = WeaponClass(spec.cls)
        if spec.damage is None and spec.strength_bonus is None:
            raise ConfigError(f"{path}: {name}: expected 'damage' or 'strength_bonus'")
        if cls.ranged and spec.range is None:
            raise ConfigError(f"{path}: {name}.range: ranged weapons need a range in yards")
        weapons[str(name)] = Weapon(
            str(name), cls, DamageType(spec.damage_type), spec.damage or 0,
            spec.strength_bonus, spec.range or 0, spec.rate, spec.magazine,
            spec.autofire, spec.length, spec.conceal, spec.scope, spec.trips, spec.elemental,
        )
    path = root / "armor.yaml"
    armor = {
        str(n): Armor(str(n), s.rating, s.penalty, frozenset(s.covers))
        for n, s in ((n, validate(ArmorSpec, r, path, str(n))) for n, r in _mapping(path).items())
    }
    path = root / "health.yaml"
    health = validate(HealthTableSpec, load_yaml(path), path)
    path = root / "generations.yaml"
    gens: dict[int, GenerationSpec] = {}
    for gen, raw in _mapping(path).items():
        if not isinstance(gen, int):
            raise ConfigError(f"{path}: {gen}: expected a generation number")
        gens[gen] = validate(GenerationSpec, raw, path, str(gen))
    path = root / "movement.yaml"
    movement = validate(MovementSpec, load_yaml(path), path)
    path = root / "maneuvers.yaml"
    # in file order: environments number their attack actions by it (new rows append)
    maneuvers = {
        str(n): _maneuver(str(n), validate(ManeuverSpec, r, path, str(n)))
        for n, r in _mapping(path).items()
    }
    path = root / "called_shots.yaml"
    called = {
        str(n): validate(CalledShotRow, r, path, str(n)) for n, r in _mapping(path).items()
    }
    path = root / "mishaps.yaml"
    mishaps = validate(MishapTableSpec, load_yaml(path), path)
    path = root / "feeding.yaml"
    feeding = validate(FeedingSpec, load_yaml(path), path)
    return Tables(
        weapons, armor, tuple(health.levels), gens, movement, maneuvers, called, mishaps,
        feeding, root,
    )
