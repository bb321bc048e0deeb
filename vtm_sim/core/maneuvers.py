"""Maneuvers as the engine reads them during a fight (built from the validated
``ManeuverSpec`` of :mod:`vtm_sim.data.tables`, and compiled with the hot modules).

A row says everything about its maneuver; the engine dispatches on its enums
through one table each: the weapon it is made with (``WeaponUse``:
:data:`vtm_sim.mechanics.attack.WEAPON_OF`), what it needs (``Need``:
:data:`vtm_sim.mechanics.attack.NEEDS`) and what it does on a hit (``Effect``:
:data:`vtm_sim.engine.effects.EFFECTS`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Final

from vtm_sim.core.symbol import Symbol


class ManeuverClass(Symbol):
    """Close combat (MAN-*, reach in yards) or ranged (RNG-*, the weapon's range)."""

    CLOSE = "close"
    RANGED = "ranged"


class WeaponUse(Symbol):
    """What a maneuver is made with (``vtm_sim.mechanics.attack.maneuver_weapon``)."""

    UNARMED = "unarmed"  # bare hands and feet
    MELEE = "melee"  # the melee weapon in hand
    SHOOTING = "shooting"  # the firearm, bow or crossbow in hand
    AUTOFIRE = "autofire"  # the autofire firearm in hand (RNG-3/5/6)
    THROWN = "thrown"  # the thrown weapon in hand
    CLAWS = "claws"  # natural weapons (MAN-11)
    TRIP = "trip"  # a tripping weapon in hand (staff, chain), else bare hands (MAN-4)


# made with the weapon in hand (CPX-6: not while it is jammed; RNG-9: may be the off
# hand's), and the kinds made at range
HAND_USES: Final = frozenset(
    {WeaponUse.MELEE, WeaponUse.SHOOTING, WeaponUse.AUTOFIRE, WeaponUse.THROWN})
RANGED_USES: Final = frozenset({WeaponUse.SHOOTING, WeaponUse.AUTOFIRE, WeaponUse.THROWN})


class Need(Symbol):
    """What a maneuver needs besides its weapon (``vtm_sim.mechanics.attack.NEEDS``)."""

    GRAPPLE = "grapple"  # MAN-8: after a clinch, hold or tackle; all a grappler may use
    VAMPIRE = "vampire"
    CLAWS = "claws"  # MAN-11: Feral Claws or Bone Craft spurs
    MELEE_WEAPON = "melee_weapon"
    AUTOFIRE = "autofire"  # RNG-3/5/6: a firearm with autofire


class Effect(Symbol):
    """What else a hit does (``vtm_sim.engine.effects.EFFECTS``)."""

    KNOCKDOWN = "knockdown"  # MAN-4
    TACKLE = "tackle"  # MAN-5
    CLINCH = "clinch"  # MAN-6
    HOLD = "hold"  # MAN-7
    FEED = "feed"  # MAN-9
    DISARM = "disarm"  # MAN-10


@dataclass(frozen=True, slots=True)
class Damage:
    """How a maneuver's damage pool is made (``configs/maneuvers.yaml``)."""

    strength: bool
    weapon: bool
    bonus: int
    type: str  # bashing, lethal, aggravated, weapon, none or claws


@dataclass(frozen=True, slots=True)
class Maneuver:
    """One row of the maneuver table (see ``ManeuverSpec`` for the fields' ranges).

    ``close``, ``grapple`` and ``no_damage`` repeat ``cls``, ``needs`` and
    ``damage.type`` as plain flags, for the hot loops; :func:`maneuver` sets them.
    """

    name: str
    cls: ManeuverClass
    weapon: WeaponUse
    offhand: bool  # RNG-9: may be made with the off hand's weapon
    attribute: str
    ability: str
    difficulty: int
    accuracy: int
    reach: int | None
    rounds: int
    magazine: bool
    half_magazine: bool  # RNG-5: only with the magazine at least half full
    area: float
    called_shot: bool  # RNG-8
    needs: tuple[Need, ...]
    effect: Effect | None
    mishaps: str | None  # the row of configs/mishaps.yaml a botch reads (None: the weapon's)
    damage: Damage
    close: bool  # class: close
    grapple: bool  # needs: [grapple]
    no_damage: bool  # damage type none (hold, kiss): a hit deals no damage


def maneuver(
    name: str, cls: ManeuverClass, weapon: WeaponUse, offhand: bool, attribute: str,
    ability: str, difficulty: int, accuracy: int, reach: int | None, rounds: int,
    magazine: bool, half_magazine: bool, area: float, called_shot: bool,
    needs: tuple[Need, ...], effect: Effect | None, mishaps: str | None, damage: Damage,
) -> Maneuver:
    """A row with its flags derived (``close``, ``grapple``, ``no_damage``)."""
    return Maneuver(
        name, cls, weapon, offhand, attribute, ability, difficulty, accuracy, reach, rounds,
        magazine, half_magazine, area, called_shot, needs, effect, mishaps, damage,
        cls is ManeuverClass.CLOSE, Need.GRAPPLE in needs, damage.type == "none",
    )


# Name sets derived from a maneuver table, by the table's id and a name for the rule
# that picks them; an entry keeps its table alive, so the id stays its own.
_DERIVED: Final[dict[tuple[int, str], tuple[Mapping[str, Maneuver], frozenset[str]]]] = {}


def names_where(table: Mapping[str, Maneuver], rule: str,
                pick: Callable[[Maneuver], bool]) -> frozenset[str]:
    """The names of the rows ``pick`` selects, worked out once per table and ``rule``.

    For the hot paths: reading a row's enums costs more than a set lookup.
    """
    key = (id(table), rule)
    got = _DERIVED.get(key)
    if got is None or got[0] is not table:
        got = (table, frozenset(m for m, s in table.items() if pick(s)))
        _DERIVED[key] = got
    return got[1]
