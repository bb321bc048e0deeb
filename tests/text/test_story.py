"""--narrate: the fight told to read aloud (short sentences, modifiers named, no dice)."""

from __future__ import annotations

import re

import pytest

from vtm_sim.files.scenarios import list_scenarios, load_scenario
from vtm_sim.policies.play import play
from vtm_sim.text.story import tell

DICE = re.compile(r"\d+ (dice|successe?s?)\b|->")


@pytest.mark.parametrize("name", list_scenarios())
def test_every_scenario_reads_aloud_without_dice_and_with_good_grammar(name: str) -> None:
    for seed in range(3):
        b = play(load_scenario(name).battle(seed=seed))
        lines = tell(b.log.events)
        assert lines and lines[-1].split()[-1].endswith(".")
        dead: set[str] = set()
        for line in lines:
            assert not DICE.search(line), line
            assert not re.search(r"(?<![\d.])1 (yards|levels)", line), line
            assert "does nothing" not in line, line
            assert line[0].isupper() and line.endswith("."), line
            for who in list(dead):
                assert not line.startswith(f"{who} drops flat"), line
            if line.endswith(" is dead.") or line.endswith("goes down and stays down."):
                dead.add(line.rsplit(" is dead.", 1)[0].rsplit(" goes down", 1)[0])


def test_cover_that_mattered_is_named() -> None:
    b = play(load_scenario("gunfight").battle(seed=7))
    lines = tell(b.log.events)
    assert any("behind superior cover, +3" in line or "behind good cover, +2" in line
               for line in lines)
    assert any("shooting from behind the" in line for line in lines)


def test_one_sentence_an_attack_with_its_outcome() -> None:
    b = play(load_scenario("duel").battle(seed=1))
    lines = tell(b.log.events)
    attacks = sum(1 for ev in b.log.events if ev["e"] == "attack")
    told = [line for line in lines if " swings the " in line or " kicks at " in line
            or " throws a punch at " in line or " grapples with " in line]
    assert len(told) == attacks
    assert all(any(w in line for w in ("misses", "lands", "connects", "dodges", "blocks",
                                       "parries", ".")) for line in told)
