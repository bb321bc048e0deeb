"""Maneuvers as the engine reads them during a fight (built from the validated
``ManeuverSpec`` of :mod:`vtm_sim.tables`, and compiled with the hot modules)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Damage:
    """How a maneuver's damage pool is made (``configs/maneuvers.yaml``)."""

    strength: bool
    weapon: bool
    bonus: int
    type: str  # bashing, lethal, aggravated, weapon, none or claws


@dataclass(frozen=True, slots=True)
class Maneuver:
    """One row of the maneuver table (see ``ManeuverSpec`` for the fields' ranges)."""

    attribute: str
    ability: str
    difficulty: int
    accuracy: int
    reach: int | None
    rounds: int
    magazine: bool
    area: float
    effect: str | None
    needs: tuple[str, ...]
    damage: Damage
    half_magazine: bool = False  # RNG-5: only with the magazine at least half full
