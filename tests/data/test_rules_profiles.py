"""Rules profiles: both ship and load, the RULES.md variants differ where stated,
and a copied profile with an unknown option fails with the file and the key."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from rule_helpers import block, combatant, dice_for

from vtm_sim.core.choices import DefenseKind
from vtm_sim.core.dice import SpecialtyRule
from vtm_sim.data.config import config_dir
from vtm_sim.data.rules import PROFILES, RuleSet, load_rules
from vtm_sim.data.tables import DamageType, load_tables
from vtm_sim.errors import ConfigError
from vtm_sim.events import EventLog
from vtm_sim.mechanics.attack import AttackChain, plan_attack, resolve_attack, soak_pool


def test_both_profiles_load() -> None:
    assert PROFILES == ("v20", "dark_ages")
    for name in PROFILES:
        r = load_rules(name)
        assert isinstance(r, RuleSet) and r.name == name
    assert load_rules() == load_rules("v20")  # v20 is the default


# rule, option, v20, dark_ages (RULES.md: "Default ... in v20/dark_ages")
VARIANTS: list[tuple[str, str, Any, Any]] = [
    ("DICE-5", "specialty_rule", "explode", "explode"),
    ("ATK-3", "unskilled_skill_difficulty", 0, 1),
    ("ATK-6", "thrown_extra_successes_add", False, False),
    ("ATK-6", "firearms_extra_successes_add", True, True),
    ("ATK-6", "bows_extra_successes_add", True, False),
    ("DMG-4", "firearms_bashing_vs_vampires", True, False),
    ("SOAK-3", "fortitude_soaks_fire_with_stamina", False, True),
    ("RNG-8", "called_shot_table", "000", "000"),
    ("ATK-2", "firearms_allowed", True, False),  # Dark Ages: bows and crossbows, no firearms
    ("ATK-8", "multiple_opponents_cap", 4, 4),
    ("DICE-8", "willpower_per_turn", 1, 1),
    ("DEF-3", "abort_difficulty", 6, 6),
    ("RNG-4", "rate_of_fire_counts", "rounds", "rounds"),  # 000; "shots": published V20
    ("MAN-10", "disarm_successes", "damage", "damage"),  # 000; "attack": net attack hits
    ("DMG-6", "stun_counts", "unsoaked", "unsoaked"),  # 000; "levels": after halving
]


@pytest.mark.parametrize(("rule", "option", "v20", "dark_ages"), VARIANTS)
def test_profile_variants_match_the_rules_catalogue(
    rule: str, option: str, v20: Any, dark_ages: Any
) -> None:
    """DICE-5, ATK-3, ATK-6, DMG-4, SOAK-3 (and the fixed options) per profile."""
    assert getattr(load_rules("v20"), option) == v20, rule
    assert getattr(load_rules("dark_ages"), option) == dark_ages, rule


def test_profiles_differ_exactly_where_the_rules_say() -> None:
    v20 = load_rules("v20").model_dump()
    da = load_rules("dark_ages").model_dump()
    differ = {k for k in v20 if v20[k] != da[k]}
    assert differ == {
        "name",
        "unskilled_skill_difficulty",  # ATK-3
        "bows_extra_successes_add",  # ATK-6
        "firearms_bashing_vs_vampires",  # DMG-4
        "fortitude_soaks_fire_with_stamina",  # SOAK-3
        "firearms_allowed",
        "preliminary_actions",  # INIT-9: 004's order in v20, 001's in dark_ages
    }


def test_RuleSet_defaults_are_the_v20_defaults() -> None:
    """DICE-5 explode, DMG-4 true, SOAK-3 false by default (RULES.md)."""
    defaults = RuleSet(name="v20").model_dump()
    assert defaults == load_rules("v20").model_dump()
    assert RuleSet(name="x").specialty is SpecialtyRule.EXPLODE


def _copy_profile(tmp_path: Path, extra: str = "", name: str = "house.yaml") -> Path:
    path = tmp_path / name
    shutil.copy(config_dir() / "rules" / "v20.yaml", path)
    if extra:
        with path.open("a", encoding="utf-8") as f:
            f.write(extra)
    return path


def test_copied_profile_loads_by_path(tmp_path: Path) -> None:
    path = _copy_profile(tmp_path)
    assert load_rules(str(path)).model_dump() == load_rules("v20").model_dump()


def test_unknown_option_in_copied_profile_names_file_and_key(tmp_path: Path) -> None:
    path = _copy_profile(tmp_path, "exploding_sixes: true\n")
    with pytest.raises(ConfigError) as err:
        load_rules(str(path))
    msg = str(err.value)
    assert str(path) in msg and "exploding_sixes" in msg and "unknown key" in msg


@pytest.mark.parametrize(
    ("line", "key"),
    [
        ("specialty_rule: triple\n", "specialty_rule"),
        ("multiple_opponents_cap: 99\n", "multiple_opponents_cap"),
        ("abort_difficulty: 1\n", "abort_difficulty"),
        ("rate_of_fire_counts: bursts\n", "rate_of_fire_counts"),
        ("stun_counts: halved\n", "stun_counts"),
    ],
)
def test_bad_value_in_copied_profile_names_file_and_key(
    tmp_path: Path, line: str, key: str
) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(f"name: bad\n{line}", encoding="utf-8")
    with pytest.raises(ConfigError) as err:
        load_rules(str(path))
    assert str(path) in str(err.value) and key in str(err.value)


def test_unknown_profile_name_lists_the_known_ones() -> None:
    with pytest.raises(ConfigError, match="dark_ages, v20"):
        load_rules("modern_ages")


# --- variants in action ---------------------------------------------------------


@pytest.mark.parametrize(
    ("variant", "faces", "successes"),
    [
        ("explode", [10, 2, 2, 2, 1], 0),  # the 10 adds a die, which shows 1
        ("explode", [10, 2, 2, 2, 7], 2),
        ("double", [10, 2, 2, 2], 2),
    ],
)
def test_DICE_5_specialty_variant_in_an_attack(
    tmp_path: Path, variant: str, faces: list[int], successes: int
) -> None:
    path = _copy_profile(tmp_path, name=f"{variant}.yaml")
    path.write_text(
        path.read_text(encoding="utf-8").replace(
            "specialty_rule: explode", f"specialty_rule: {variant}"
        ),
        encoding="utf-8",
    )
    rules = load_rules(str(path))
    a = combatant(
        block("a", attrs={"dexterity": 2}, abil={"brawl": 2}, specialties={"brawl": "bar fights"})
    )
    d = combatant(block("d", attrs={"stamina": 1}), 1, 1, 1.0)
    plan = plan_attack(a, d, "punch", load_tables(), rules)
    assert plan is not None and plan.specialty
    log = EventLog()
    out = resolve_attack(AttackChain(
        plan,
        a,
        d,
        DefenseKind.NONE,
        0,
        6,
        rules,
        dice_for(attack=faces, damage=[2] * 3, soak=[2]),
        log,
        1,
    ))
    assert list(out.attack.faces) == faces
    assert out.attack.successes == successes


def test_SOAK_3_variant_in_the_soak_pool() -> None:
    vamp = combatant(block("v", kind="vampire", attrs={"stamina": 3}, disc={"fortitude": 1}))
    fire = {"elemental": True}
    assert soak_pool(vamp, DamageType.AGGRAVATED, load_rules("v20"), **fire) == 1
    assert soak_pool(vamp, DamageType.AGGRAVATED, load_rules("dark_ages"), **fire) == 4
