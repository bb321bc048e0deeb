"""experiments/duel_overrides.py: trained:duel with one kind of choice replaced by a fixed
rule. It departs from trained:duel only where its rule applies, and there always."""

from __future__ import annotations

from typing import Any

import pytest
from experiment_scripts import load_experiment

from vtm_sim.arena.tournament import seeded_battle
from vtm_sim.core.choices import Action, ActionKind, Choice, Decision, DecisionKind, Declaration
from vtm_sim.engine.battle import Battle
from vtm_sim.files.scenarios import load_scenario
from vtm_sim.policies.registry import maker

duel_overrides = load_experiment("duel_overrides")


@pytest.mark.parametrize("seat", [0, 1])
def test_a_rule_that_never_applies_plays_trained_duel(seat: int) -> None:
    scenario = load_scenario("duel")
    trained = maker("trained:duel", scenario)
    made: list[Any] = []

    def never(rng: Any, cid: int) -> Any:
        made.append(duel_overrides.Overridden(trained(rng, cid), lambda *_: None))
        return made[-1]

    nearest = maker("nearest", scenario)
    battle = seeded_battle(scenario, {seat: never, 1 - seat: nearest}, 3)
    plain = seeded_battle(scenario, {seat: trained, 1 - seat: nearest}, 3)
    assert battle.log.to_json() == plain.log.to_json()
    assert made and made[0].overruled == 0


def test_an_override_takes_its_rule_wherever_it_applies() -> None:
    """kf_clinch_crush: inside a clinch the Knife Fighter declares one action and crushes;
    everywhere else it plays trained:duel's pick."""
    scenario = load_scenario("duel")
    seat, mine = duel_overrides.variant_maker("kf_clinch_crush", scenario)
    assert seat == 1
    seen: list[tuple[bool, Decision, Choice]] = []

    def recording(rng: Any, cid: int) -> Any:
        policy = mine(rng, cid)
        choose = policy.choose

        def chosen(battle: Battle, decision: Decision) -> Choice:
            clinched = battle.combatants[decision.actor].clinch_with >= 0
            pick = choose(battle, decision)
            seen.append((clinched, decision, pick))
            return pick

        policy.choose = chosen
        return policy

    brawler = maker("tactic:wrestler", scenario)  # clinches (grapple: true)
    for seed in range(12):
        seeded_battle(scenario, {0: brawler, 1: recording}, seed)
    inside = [(d, p) for clinched, d, p in seen if clinched]
    assert any(isinstance(p, Action) and p.kind is ActionKind.CRUSH for _, p in inside), (
        "no crush in 12 battles against the wrestler")
    assert any(isinstance(p, Action) and p.kind is not ActionKind.CRUSH
               for clinched, _, p in seen if not clinched)
    for d, p in inside:
        if d.kind is DecisionKind.DECLARE:
            assert isinstance(p, Declaration) and p.actions == 1 and not p.willpower
        elif d.kind is DecisionKind.ACT and any(
                isinstance(o, Action) and o.kind is ActionKind.CRUSH for o in d.options):
            assert isinstance(p, Action) and p.kind is ActionKind.CRUSH


def test_a_measured_row_counts_every_battle() -> None:
    row = duel_overrides.measure(("hold_lock", "nearest", 4))
    assert row["seat"] == 0 and row["battles"] == 4
    assert row["wins"] + row["draws"] + row["losses"] == 4
    assert row["score"] == (row["wins"] + row["draws"] / 2) / 4
    assert 0 <= row["win_95"][0] <= row["wins"] / 4 <= row["win_95"][1] <= 1
