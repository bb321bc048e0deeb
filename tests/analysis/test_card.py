"""vtm-sim card: only legal options, every carried weapon, the situation, honest labels."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from vtm_sim.analysis.cards import TacticCard, card_for, card_lines, tactic_card
from vtm_sim.cli import main
from vtm_sim.core.choices import DefenseKind
from vtm_sim.data.rules import load_rules
from vtm_sim.data.stat_blocks import load_stat_block
from vtm_sim.engine.battle import Battle
from vtm_sim.engine.exchange import exchange_odds
from vtm_sim.files.state_files import labels

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


# --- card --state in a grapple: the state as written, only what the rules allow ------------

JAX = "Jax, Brujah Neonate"
BAT = "Hired Goon (bat)"
KNIFE = "Hired Goon (knife)"


def _clinch_state(tmp_path: Path, *, began: str = BAT) -> Path:
    """A club thug (or Jax) has the other in a clinch begun last turn; a knife thug
    stands beside them; the street thug is 12 yards off."""
    rows = {JAX: "at: [0, 0], damage: {lethal: 2}, blood: 5",
            BAT: "at: [1, 0], damage: {bashing: 1}",
            KNIFE: "at: [0, 1]", "Street Thug": "at: [12, 2]"}
    held = JAX if began == BAT else BAT
    rows[began] += f', clinch: "{held}"'
    p = tmp_path / "clinch.yaml"
    p.write_text("scenario: ambushed_vampire\nturn: 2\ncombatants:\n" + "".join(
        f'  "{name}": {{{row}}}\n' for name, row in rows.items()), encoding="utf-8")
    return p


def _card(path: Path, me: str, foe: str, *, defend: bool = True) -> tuple[Battle, TacticCard]:
    from vtm_sim import load_state

    b = load_state(path)
    names = labels([c.name for c in b.combatants])
    before = json.dumps(b.to_state(), sort_keys=True, default=str)
    card = card_for(b, names.index(me), names.index(foe), defend=defend)
    assert json.dumps(b.to_state(), sort_keys=True, default=str) == before  # not changed
    return b, card


def _actions(card: TacticCard) -> list[str]:
    return [o.action for o in card.others]


def test_MAN_6_clinching_thug_may_only_crush_or_break_free(tmp_path: Path) -> None:
    """MAN-6: in a clinch neither can do anything else: no strike, no kick, no flee; the
    vampire who did not begin the clinch cannot bite (MAN-8), and nobody in the clinch
    can defend (no dodge)."""
    _, card = _card(_clinch_state(tmp_path), BAT, JAX)
    assert card.rows == ()
    acts = _actions(card)
    assert acts[:2] == [f"crush {JAX} in the clinch", f"break free of {JAX}"]
    assert not any(a.startswith(("flee", "back away", "take cover", "drop prone", "delay"))
                   for a in acts)
    threat = card.others[-1]
    assert threat.action == "no defense" and "crush" in threat.buys  # Jax's crush, no bite
    assert "bite" not in " ".join(o.buys for o in card.others)


def test_MAN_6_clinched_vampire_gets_crush_and_break_free_not_no_attack(tmp_path: Path) -> None:
    _, card = _card(_clinch_state(tmp_path), JAX, BAT)
    assert card.rows == ()
    acts = _actions(card)
    assert f"crush {BAT} in the clinch" in acts and f"break free of {BAT}" in acts
    crush = next(o for o in card.others if o.action.startswith("crush"))
    assert "4 dice of bashing damage + 2 from Potence" in crush.buys  # Strength 4, VAMP-5
    lines = card_lines(card)
    assert not any("no attack that reaches" in ln for ln in lines)


def test_DEF_knife_thug_strikes_a_clinched_vampire_who_cannot_defend(tmp_path: Path) -> None:
    """MAN-6: a character in a clinch has no defense; the card assumes none, and its
    odds are the undefended ones."""
    _, card = _card(_clinch_state(tmp_path), KNIFE, JAX)
    rows = {r.maneuver: r for r in card.rows}
    assert "weapon_strike" in rows and "bite" not in rows
    assert all(r.defense == "none" and r.defense_pool == 0 for r in rows.values())
    _, bare = _card(_clinch_state(tmp_path), KNIFE, JAX, defend=False)
    assert [r.distribution for r in bare.rows] == [r.distribution for r in card.rows]
    assert any(o.action.startswith("flee") for o in card.others)


def test_MAN_8_vampire_who_began_the_clinch_may_bite(tmp_path: Path) -> None:
    _, card = _card(_clinch_state(tmp_path, began=JAX), JAX, BAT)
    rows = {r.maneuver: r for r in card.rows}
    assert set(rows) == {"bite"}  # MAN-6/8: the bite, nothing else with a roll
    assert rows["bite"].defense == "none"  # the goon is in the clinch: no defense
    assert rows["bite"].damage_type == "aggravated"


def test_card_state_shows_the_files_health_and_blood(tmp_path: Path) -> None:
    """Nothing is played before the card answers: no blood spent on healing, no attack
    by a faster combatant."""
    _, card = _card(_clinch_state(tmp_path), JAX, BAT)
    mine, theirs = card.situation
    assert mine.startswith(f"{JAX}: hurt, 5 blood, in a clinch with {BAT}")  # 2 lethal
    assert theirs.startswith(f"{BAT}: bruised")  # 1 bashing


def test_DEF_3_a_target_with_its_action_pending_defends_by_aborting(tmp_path: Path) -> None:
    """At a turn's start everyone has one action declared and not yet taken: the target
    defends only by aborting it on a Willpower roll (DEF-3), and the odds mix that roll's
    chance; a fresh card's defender keeps its turn for defense (DEF-7), no abort."""
    from vtm_sim.mechanics.odds import roll_odds

    p = tmp_path / "open.yaml"
    p.write_text("scenario: knife_duel\nturn: 2\n", encoding="utf-8")
    from vtm_sim import load_state

    b = load_state(p)
    c = card_for(b, 0, 1)
    strike = next(r for r in c.rows if r.maneuver == "weapon_strike")
    assert strike.defense != "none" and strike.p_abort is not None
    wp = b.combatants[1].stats.willpower
    assert strike.p_abort == pytest.approx(sum(roll_odds(wp, 6).distribution[1:]))
    assert any("DEF-3" in n for n in c.notes)
    fresh = tactic_card(load_stat_block("knife_fighter"), load_stat_block("knife_fighter"),
                        distance=1.0, rules=V20)
    assert all(r.p_abort is None for r in fresh.rows)
    assert any("full defense" in o.action for o in fresh.others)  # the foe's own threat


def test_RNG_10_an_empty_gun_in_the_state_offers_no_shot(tmp_path: Path) -> None:
    p = tmp_path / "empty.yaml"
    p.write_text("scenario: gunfight\nturn: 2\ncombatants:\n"
                 "  Shotgun Frankie: {ammo: {shotgun: 0}}\n", encoding="utf-8")
    _, card = _card(p, "Shotgun Frankie", "Patrol Officer#1")
    assert not any(r.ready and r.weapon == "shotgun" for r in card.rows)
    assert "reload" in _actions(card)
    r = CliRunner().invoke(main, ["attack", "--state", str(p), "--attacker", "Shotgun Frankie",
                                  "--defender", "Patrol Officer#1"])
    assert r.exit_code == 2 and "empty" in r.output and len(r.output.strip().splitlines()) == 1


def test_card_cli_state_in_a_clinch(tmp_path: Path) -> None:
    p = _clinch_state(tmp_path)
    r = CliRunner().invoke(main, ["card", "--state", str(p), "--attacker", BAT,
                                  "--against", JAX, "--json"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    assert data["rows"] == [] and data["unable"] is None
    assert [o["action"] for o in data["other_options"]][:2] == [
        f"crush {JAX} in the clinch", f"break free of {JAX}"]
