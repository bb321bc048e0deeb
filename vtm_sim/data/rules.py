"""Rules profiles (STYLE 6): every RULES.md variant as one frozen RuleSet."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Literal

from pydantic import Field

from vtm_sim.core.dice import SpecialtyRule
from vtm_sim.data.config import StrictModel, config_dir, load_yaml, validate
from vtm_sim.errors import ConfigError


class RuleSet(StrictModel):
    """A rules profile. Field comments name the rule each option settles."""

    name: str
    specialty_rule: Literal["explode", "double"] = "explode"  # DICE-5
    unskilled_skill_difficulty: int = Field(default=0, ge=0, le=3)  # ATK-3
    thrown_extra_successes_add: bool = False  # ATK-6
    firearms_extra_successes_add: bool = True  # ATK-6
    bows_extra_successes_add: bool = True  # ATK-6
    firearms_bashing_vs_vampires: bool = True  # DMG-4
    fortitude_soaks_fire_with_stamina: bool = False  # SOAK-3
    called_shot_table: Literal["000", "002"] = "000"  # RNG-8
    firearms_allowed: bool = True
    multiple_opponents_cap: int = Field(default=4, ge=0, le=10)  # ATK-8
    willpower_per_turn: int = Field(default=1, ge=0, le=5)  # DICE-8
    abort_difficulty: int = Field(default=6, ge=2, le=10)  # DEF-3
    max_actions: int = Field(default=4, ge=1, le=10)  # ACT-1
    rate_of_fire_counts: Literal["rounds", "shots"] = "rounds"  # RNG-4
    disarm_successes: Literal["damage", "attack"] = "damage"  # MAN-10
    stun_counts: Literal["unsoaked", "levels"] = "unsoaked"  # DMG-6
    # MOVE-4: a mortal's chase roll loses a die for each turn it runs beyond this many
    # (003 says only "mortals tire"; a profile option, docs/rules.md)
    chase_fatigue_turns: int = Field(default=3, ge=0, le=20)
    # MOVE-4: the quarry escapes when it leads every pursuer by this many successes
    # at a turn's end: a stand-in for MOVE-5's Perception rolls, 0 = off (docs/rules.md)
    chase_escape_margin: int = Field(default=0, ge=0, le=20)
    # INIT-9: "004" spends blood, buys Celerity and declares before the initiative roll
    # (a Dexterity raise or healing counts this turn); "001" after it
    preliminary_actions: Literal["004", "001"] = "004"
    # INIT-10: 004 lets a character delay only if it said so at the declaration
    delay_announced: bool = False
    # MAN-6: the clinch's first turn rolls Strength dice (000's sentence) or adds ATK-5's
    # extra successes
    clinch_first_damage: Literal["strength", "successes"] = "strength"
    # RNG-11: a called shot at a part the armor leaves bare ignores the armor's soak; one at
    # the part that shows from cover takes the called shot's difficulty for the cover's
    called_shot_pierces: bool = True
    # MAN-11: growing Feral Claws (Protean 2) takes the action the first claw attack was
    # chosen for (the published power: they grow over a turn), and costs blood
    claws_grow_action: bool = True
    claws_blood: int = Field(default=1, ge=0, le=5)
    # MOVE-5: the Storyteller's Perception roll a turn to keep the quarry in sight (003)
    chase_perception: bool = True
    # MOVE-5: a side with this many times the other's running distance a turn wins the
    # chase without rolls ("much faster", 003 gives no number; 0: off)
    chase_much_faster: float = Field(default=2.0, ge=0.0, le=10.0)
    # DEF-9: difficulty a passive defense adds to the attacker's roll (004 gives no number)
    passive_defense_difficulty: int = Field(default=0, ge=0, le=3)

    @property
    def specialty(self) -> SpecialtyRule:
        return _SPECIALTY_RULES[self.specialty_rule]  # a dict: Enum(value) is slow Python


_SPECIALTY_RULES = {r.value: r for r in SpecialtyRule}
# Options added after logs were first written: a log header (or saved state) holds
# them only when they differ from the default, so older battles keep their header.
_OPTIONAL: dict[str, object] = {
    "chase_fatigue_turns": 3, "chase_escape_margin": 0, "preliminary_actions": "004",
    "delay_announced": False, "clinch_first_damage": "strength", "called_shot_pierces": True,
    "claws_grow_action": True, "claws_blood": 1, "chase_perception": True,
    "chase_much_faster": 2.0,
    "passive_defense_difficulty": 0,
}


def rules_json(rules: RuleSet) -> dict[str, object]:
    """A profile as a log header writes it (the later options only when changed)."""
    d = rules.model_dump()
    for key, default in _OPTIONAL.items():
        if d.get(key) == default:
            del d[key]
    return d
PROFILES = ("v20", "dark_ages")


@cache
def load_rules(name_or_path: str = "v20") -> RuleSet:
    """Find a profile by name (``configs/rules/NAME.yaml``) or by file path."""
    path = Path(name_or_path)
    if path.suffix not in (".yaml", ".yml"):
        path = config_dir() / "rules" / f"{name_or_path}.yaml"
        if not path.exists():
            known = ", ".join(sorted(p.stem for p in path.parent.glob("*.yaml")))
            raise ConfigError(f"rules profile {name_or_path!r}: unknown (expected one of {known})")
    return validate(RuleSet, load_yaml(path), path)
