"""vtm-sim card: only legal options, every carried weapon, the situation, honest labels."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from vtm_sim.analysis.cards import card_for, tactic_card
from vtm_sim.cli import main
from vtm_sim.core.choices import DefenseKind
from vtm_sim.data.rules import load_rules
from vtm_sim.data.stat_blocks import load_stat_block
from vtm_sim.engine.exchange import exchange_odds

V20 = load_rules("v20")


def test_MAN_8_no_bite_without_a_grip_on_the_card() -> None:
    card = tactic_card(load_stat_block("neonate_brujah"), load_stat_block("thug"),
                       distance=1.0, rules=V20)
    assert "bite" not in {r.maneuver for r in card.rows}
    assert card.best is not None and card.best.maneuver != "bite"


def test_p_hit_is_beating_the_defense_and_p_damage_is_getting_through_soak() -> None:
    card = tactic_card(load_stat_block("knife_fighter"), load_stat_block("brawler"),
                       distance=1.0, rules=V20)
    for r in card.rows:
        assert r.p_hit >= r.p_damage - 1e-12
        assert r.p_damage == pytest.approx(1 - r.distribution[0])
    punch = next(r for r in card.rows if r.maneuver == "punch")
    assert punch.p_hit > punch.p_damage + 0.05  # soak stops many punches that land


@pytest.mark.parametrize(("a", "d", "maneuver"), [("knife_fighter", "brawler", "weapon_strike"),
                                                  ("brawler", "brawler", "kick")])
def test_card_odds_are_attack_odds(a: str, d: str, maneuver: str) -> None:
    """The same numbers as `attack --odds` (vtm_sim.engine.exchange) for the same situation
    (no longer weapon on the other side: the exchange has no ATK-9)."""
    card = tactic_card(load_stat_block(a), load_stat_block(d), distance=1.0, rules=V20)
    row = next(r for r in card.rows if r.maneuver == maneuver)
    dist = exchange_odds(load_stat_block(a), load_stat_block(d), maneuver=maneuver,
                         distance=1.0, defense=DefenseKind(row.defense), rules=V20)
    n = max(len(row.distribution), len(dist))
    pad = [*row.distribution, *[0.0] * (n - len(row.distribution))]
    assert pad == pytest.approx([*dist, *[0.0] * (n - len(dist))], abs=1e-12)


def test_every_carried_weapon_is_on_the_card() -> None:
    card = tactic_card(load_stat_block("hunter_crossbow"), load_stat_block("neonate_brujah"),
                       distance=1.0, rules=V20)
    weapons = {(r.weapon, r.ready) for r in card.rows}
    assert ("crossbow", True) in weapons and ("stake", False) in weapons
    heart = [r for r in card.rows if r.called == "tiny"]
    assert heart == [] or all(not r.ready for r in heart)
    staker = tactic_card(load_stat_block("stake_hunter"), load_stat_block("neonate_brujah"),
                         distance=1.0, rules=V20)
    assert any(r.called == "tiny" and r.weapon == "stake" for r in staker.rows)  # CPX-5


def test_card_from_a_state_file_sees_wounds_and_cover(tmp_path: Path) -> None:
    from vtm_sim import load_state

    p = tmp_path / "s.yaml"
    p.write_text(textwrap.dedent("""\
        scenario: gunfight
        combatants:
          Detective Ortiz: {damage: {lethal: 4}}
        """), encoding="utf-8")
    b = load_state(p)
    names = [c.name for c in b.combatants]
    me = names.index("Detective Ortiz")
    foe = next(i for i, c in enumerate(b.combatants) if c.side != b.combatants[me].side)
    hurt = card_for(b, me, foe)
    fresh_b = load_state(_fresh(tmp_path))
    fresh = card_for(fresh_b, me, foe)
    shot = {r.maneuver: r for r in hurt.rows}["single_shot"]
    clean = {r.maneuver: r for r in fresh.rows}["single_shot"]
    assert shot.pool == clean.pool - 2  # Wounded: -2 dice (DMG-7)
    assert any("against you" in line for line in hurt.situation) or shot.difficulty >= 6


def _fresh(tmp_path: Path) -> Path:
    p = tmp_path / "fresh.yaml"
    p.write_text("scenario: gunfight\n", encoding="utf-8")
    return p


def test_card_cli_takes_shipped_names_and_a_state(tmp_path: Path) -> None:
    r = CliRunner().invoke(main, ["card", "--attacker", "knife_fighter", "--against",
                                  "brawler", "--json"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    for row in data["rows"]:
        for key in ("maneuver", "weapon", "pool", "difficulty", "defense", "defense_pool",
                    "defense_difficulty", "p_hit", "p_damage"):
            assert key in row
    assert data["other_options"]
    p = _fresh(tmp_path)
    r = CliRunner().invoke(main, ["card", "--state", str(p), "--attacker", "Detective Ortiz",
                                  "--against", "Shotgun Frankie"])
    assert r.exit_code == 0, r.output
    assert "Detective Ortiz against Shotgun Frankie" in r.output
    bad = CliRunner().invoke(main, ["card", "--state", str(p), "--attacker", "Nobody",
                                    "--against", "Shotgun Frankie"])
    assert bad.exit_code == 2 and len(bad.output.strip().splitlines()) == 1
