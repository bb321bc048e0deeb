"""Finding one of several things by a typed name (vtm_sim/core/names.py)."""

from __future__ import annotations

import pytest

from vtm_sim.core.names import Named, aliases_of, find_named
from vtm_sim.errors import ConfigError

PEOPLE = [
    Named("The Elder"),
    Named("Jax, Brujah Neonate", aliases_of("Jax, Brujah Neonate")),
    Named("Patrol Officer#1", ("Patrol Officer",)),
    Named("Patrol Officer#2", ("Patrol Officer",)),
    Named("Detective Ortiz", aliases_of("Detective Ortiz", "Ortiz")),
]


def test_aliases_are_the_short_name_and_the_name_before_a_comma() -> None:
    assert aliases_of("Jax, Brujah Neonate") == ("Jax",)
    assert aliases_of("Jax, Brujah Neonate", "J") == ("J", "Jax")
    assert aliases_of("The Elder") == ()


@pytest.mark.parametrize(
    ("typed", "index"),
    [
        ("The Elder", 0), ("the elder", 0), ("the", 0), ("Jax", 1), ("jax", 1), ("ja", 1),
        ("Jax, Brujah Neonate", 1), ("patrol officer#2", 3), ("Ortiz", 4), ("det", 4),
        ("  Jax ", 1),
    ],
)
def test_exact_then_any_case_then_a_unique_prefix(typed: str, index: int) -> None:
    assert find_named(typed, PEOPLE, "combatant", "--npc") == index


@pytest.mark.parametrize(
    ("typed", "message"),
    [
        ("Patrol Officer", "--npc: 'Patrol Officer' is ambiguous: it names Patrol Officer#1, "
                           "Patrol Officer#2"),
        ("patrol", "is ambiguous"),
        ("Ortz", "--npc: no combatant 'Ortz'; did you mean 'Detective Ortiz'?"),
        ("Elder", "did you mean 'The Elder'?"),
        ("zzz", "expected one of: The Elder; Jax, Brujah Neonate; Patrol Officer#1"),
        ("", "no combatant ''"),
    ],
)
def test_a_miss_says_did_you_mean_and_an_ambiguity_lists_the_candidates(
        typed: str, message: str) -> None:
    with pytest.raises(ConfigError) as info:
        find_named(typed, PEOPLE, "combatant", "--npc")
    assert message in str(info.value) and "\n" not in str(info.value)
