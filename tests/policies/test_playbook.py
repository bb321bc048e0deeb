"""Scripted tactics from YAML (configs/tactics/): each rule of thumb does what it says."""

from __future__ import annotations

from pathlib import Path

import pytest

from vtm_sim.core.choices import (
    Action,
    ActionKind,
    BloodSpend,
    BloodUse,
    Choice,
    Decision,
    DecisionKind,
    Declaration,
    Defense,
    DefenseKind,
)
from vtm_sim.core.space import CoverLevel, CoverZone
from vtm_sim.core.space import Field as Battlefield
from vtm_sim.data.stat_blocks import load_stat_block
from vtm_sim.data.tables import DamageType
from vtm_sim.engine.battle import Battle, Fighter
from vtm_sim.errors import ConfigError
from vtm_sim.files.scenarios import load_scenario
from vtm_sim.policies.nearest import NearestEnemyPolicy
from vtm_sim.policies.playbook import TacticPolicy, load_tactic, tactic_dir


def until(b: Battle, kind: DecisionKind, actor: int) -> Decision:
    """Play on with the nearest policy to ``actor``'s next decision of ``kind``."""
    nearest = NearestEnemyPolicy()
    while b.pending is not None:
        d = b.pending
        if d.kind is kind and d.actor == actor:
            return d
        b.choose(nearest.choose(b, d))
    raise AssertionError(f"no {kind.value} decision for {actor}")


def choose(tactic: str, b: Battle, d: Decision) -> Choice:
    return TacticPolicy(load_tactic(tactic)).choose(b, d)


def test_every_shipped_tactic_loads_and_says_what_it_does() -> None:
    files = sorted(tactic_dir().glob("*.yaml"))
    assert {"gunman", "defender", "survivor", "berserker"} <= {p.stem for p in files}
    for p in files:
        t = load_tactic(p.stem)
        assert t.description and TacticPolicy(t).explain() == t.description


def test_survivor_full_defense_and_backs_away_from_wounded_def_7() -> None:
    b = load_scenario("duel").battle(seed=1)
    d = until(b, DecisionKind.DECLARE, 1)
    assert choose("survivor", b, d) == NearestEnemyPolicy().choose(b, d)  # unhurt: fights
    b.combatants[1].health.take(4, DamageType.BASHING)  # Wounded (health.yaml)
    pick = choose("survivor", b, d)
    assert isinstance(pick, Declaration) and pick.full_defense
    b = load_scenario("duel").battle(seed=1)
    b.combatants[1].health.take(4, DamageType.BASHING)
    d = until(b, DecisionKind.ACT, 1)
    pick = choose("survivor", b, d)
    assert isinstance(pick, Action) and pick.kind is ActionKind.MOVE and pick.away


def test_thug_never_defends_and_defender_always_does_def_3() -> None:
    b = load_scenario("duel").battle(seed=2)
    d = until(b, DecisionKind.DEFEND, 0)
    assert choose("thug", b, d) == Defense(DefenseKind.NONE)
    pick = choose("defender", b, d)
    assert isinstance(pick, Defense) and pick.kind is not DefenseKind.NONE


def test_berserker_declares_willpower_every_turn_dice_8() -> None:
    b = load_scenario("duel").battle(seed=3)
    d = until(b, DecisionKind.DECLARE, 0)
    pick = choose("berserker", b, d)
    assert isinstance(pick, Declaration) and pick.willpower and not pick.full_defense


def _gunman_in_the_open() -> Battle:
    det = load_stat_block("configs/characters/detective.yaml")
    thug = load_stat_block("configs/characters/brawler.yaml")
    cover = CoverZone("car", 0.0, 6.0, 2.0, CoverLevel.GOOD)
    return Battle([Fighter(det, 0, 0.0, 0.0), Fighter(thug, 1, 20.0, 0.0)], seed=5,
                  field=Battlefield((cover,)))


def test_gunman_takes_cover_then_aims_rng_1_rng_7() -> None:
    b = _gunman_in_the_open()
    d = until(b, DecisionKind.ACT, 0)
    assert choose("gunman", b, d).kind is ActionKind.TAKE_COVER  # type: ignore[union-attr]
    b.choose(choose("gunman", b, d))
    assert b.field.cover_at(b.combatants[0].x, b.combatants[0].y) is not None
    d = until(b, DecisionKind.ACT, 0)
    pick = choose("gunman", b, d)
    assert isinstance(pick, Action) and pick.kind is ActionKind.AIM and pick.target == 1


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("name: X\nbase: nearest\nflee: wounded\n", "flee: unknown key"),
        ("name: X\nflee_at: dying\n", "unknown health level 'dying'"),
        ("name: X\nbase: genius\n", "base:"),
        ("- a list\n", "expected a mapping"),
        ("name: X\ncalled_shots: true\n", "called_shots: a plan the tactician's odds"),
        ("name: X\nbase: nearest\ngrapple: true\n", "grapple: a plan the tactician's odds"),
    ],
)
def test_bad_tactic_files_are_one_line_errors(tmp_path: Path, text: str, needle: str) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as exc:
        load_tactic(str(path))
    msg = str(exc.value)
    assert str(path) in msg and needle in msg and "\n" not in msg


def test_berserker_spends_blood_freely_vamp_2() -> None:
    b = load_scenario("elder_vs_coterie").battle(seed=1)
    vampire = next(c for c in b.combatants if c.vampire and c.blood > 0)
    d = until(b, DecisionKind.BLOOD, vampire.id)
    pick = choose("berserker", b, d)
    assert isinstance(pick, BloodSpend) and pick.use is not BloodUse.NONE
    assert pick.points == max(o.points for o in d.options if isinstance(o, BloodSpend))
    assert choose("thug", b, d) == NearestEnemyPolicy().choose(b, d)  # blood: heal (default)



def test_deadeye_calls_shots_where_the_marksman_never_does_rng_8() -> None:
    """called_shots: the tactician as base weighs called shots by their odds (RNG-8)."""
    called: dict[str, int] = {}
    for name in ("marksman", "deadeye"):
        policy = TacticPolicy(load_tactic(name))
        called[name] = 0
        for seed in range(4):
            b = load_scenario("gunfight").battle(seed=seed)
            while b.pending is not None:
                pick = policy.choose(b, b.pending)
                called[name] += isinstance(pick, Action) and pick.called is not None
                b.choose(pick)
    assert called["marksman"] == 0 < called["deadeye"], called



def test_wrestler_plays_the_grappling_tactician_and_clinches_the_knife_man_6() -> None:
    """grapple: the tactician's grappling plan (the duel planner's prior): the Bar Brawler,
    bare-handed against the Knife Fighter, clinches him."""
    from vtm_sim.policies.tactician import TacticianPolicy

    clinches = 0
    for seed in range(3):
        b = load_scenario("duel").battle(seed=seed)
        wrestler, plan = TacticPolicy(load_tactic("wrestler")), TacticianPolicy(grapple=True)
        nearest = NearestEnemyPolicy()
        while b.pending is not None:
            d = b.pending
            if d.actor != 0:
                b.choose(nearest.choose(b, d))
                continue
            pick = wrestler.choose(b, d)
            assert pick == plan.choose(b, d)
            clinches += (isinstance(pick, Action) and pick.maneuver is not None
                         and "clinch" in pick.maneuver)
            b.choose(pick)
    assert clinches > 0
