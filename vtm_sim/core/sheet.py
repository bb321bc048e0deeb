"""A character's sheet as the engine reads it during a fight (built from the
validated YAML in :mod:`vtm_sim.data.stat_blocks`, and compiled with the hot modules)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from vtm_sim.core.symbol import Symbol
from vtm_sim.core.weapons import Armor, Weapon

UNLISTED_ATTRIBUTE: Final = 1  # an Attribute a sheet leaves out has one dot


class Kind(Symbol):
    MORTAL = "mortal"
    GHOUL = "ghoul"
    VAMPIRE = "vampire"

    @property
    def supernatural(self) -> bool:
        """DMG-6: vampires (and other supernaturals) are stunned above Stamina + 2."""
        return self is Kind.VAMPIRE


@dataclass(frozen=True, slots=True)
class StatBlock:
    """A character's sheet: what does not change during a fight."""

    name: str
    kind: Kind
    generation: int | None
    attributes: dict[str, int]
    abilities: dict[str, int]
    disciplines: dict[str, int]
    specialties: dict[str, str]
    willpower: int
    blood: int
    blood_pool: int
    blood_per_turn: int
    weapons: tuple[Weapon, ...]
    armor: Armor | None
    merits: frozenset[str]
    source: str = ""
    carrying: float = 0.0  # MOVE-2
    trait_max: int = 5  # VAMP-2 (Std): how far blood can raise a Physical Attribute
    short: str | None = None  # what narration calls it after the first mention
    pronoun: str = "they"  # she, he, they or it: narration's pronoun for it

    def attr(self, name: str) -> int:
        return self.attributes.get(name, UNLISTED_ATTRIBUTE)

    def ability(self, name: str) -> int:
        return self.abilities.get(name, 0)

    def discipline(self, name: str) -> int:
        return self.disciplines.get(name, 0)

    def has_specialty(self, trait: str) -> bool:
        return trait in self.specialties
