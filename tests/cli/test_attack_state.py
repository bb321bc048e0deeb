"""``vtm-sim attack --state``: one attack as the engine would roll it in a fight as it
stands (wounds, cover, range, the multiple-action penalty, grapples), the Storyteller's
dice kept (--faces, --ask)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner, Result

from vtm_sim.analysis.cards import card_for
from vtm_sim.cli import main
from vtm_sim.files.state_files import load_state

JAX = "Jax, Brujah Neonate"
BAT = "Hired Goon (bat)"
KNIFE = "Hired Goon (knife)"


def _write(tmp_path: Path, text: str, name: str = "s.yaml") -> str:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return str(p)


def _clinch(tmp_path: Path) -> str:
    return _write(tmp_path, f"""\
scenario: ambushed_vampire
turn: 2
combatants:
  "{JAX}": {{at: [0, 0], damage: {{lethal: 2}}}}
  "{BAT}": {{at: [1, 0], clinch: "{JAX}"}}
  "{KNIFE}": {{at: [0, 1]}}
  Street Thug: {{at: [12, 2]}}
""")


def _wounded_ortiz(tmp_path: Path) -> str:
    return _write(tmp_path, "scenario: gunfight\nturn: 2\ncombatants:\n"
                            "  Detective Ortiz: {damage: {lethal: 4}}\n", "gun.yaml")


def _run(*args: str, input: str | None = None) -> Result:
    return CliRunner().invoke(main, ["attack", *args], input=input)


def _one_line_error(r: Result) -> str:
    assert r.exit_code == 2, r.output
    lines = r.output.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in r.output, r.output
    return lines[0]


def test_MAN_8_bite_with_no_grip_is_refused(tmp_path: Path) -> None:
    """MAN-8: the bite needs the vampire's own clinch, hold or tackle first: Jax is held
    in the goon's clinch, so he has no grip of his own."""
    line = _one_line_error(_run("--state", _clinch(tmp_path), "--attacker", JAX,
                                "--defender", BAT, "--maneuver", "bite"))
    assert "--maneuver" in line and "MAN-8" in line and "grip" in line


def test_MAN_6_no_dodge_for_a_clinched_vampire(tmp_path: Path) -> None:
    line = _one_line_error(_run("--state", _clinch(tmp_path), "--attacker", KNIFE,
                                "--defender", JAX, "--defense", "dodge"))
    assert "--defense" in line and "MAN-6" in line


def test_MAN_6_the_clinching_thug_has_no_strike(tmp_path: Path) -> None:
    line = _one_line_error(_run("--state", _clinch(tmp_path), "--attacker", BAT,
                                "--defender", JAX))
    assert "--maneuver" in line and "grapple" in line


def test_DMG_7_RNG_1_wounds_and_cover_in_the_pool_and_difficulty(tmp_path: Path) -> None:
    """Ortiz is Wounded (-2 dice, DMG-7); Two-Gun Tommy stands behind a concrete pillar
    (superior cover, RNG-1): the physical dice roll what the engine would, as the
    tactic card of the same state says."""
    state = _wounded_ortiz(tmp_path)
    r = _run("--state", state, "--attacker", "Detective Ortiz", "--defender", "Two-Gun Tommy",
             "--json")
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    fresh = json.loads(_run("--attacker", "detective", "--defender", "two_gun",
                            "--json").output)
    assert data["attack"]["pool"] == fresh["attack"]["pool"] - 2
    b = load_state(state)
    card = card_for(b, 2, 3, defend=False)
    shot = next(r for r in card.rows if r.maneuver == "single_shot")
    assert (data["attack"]["pool"], data["attack"]["difficulty"]) == (shot.pool, shot.difficulty)
    assert data["attack"]["difficulty"] >= 6 + 3  # superior cover


def test_ACT_1_declared_actions_cost_dice_and_faces_still_count(tmp_path: Path) -> None:
    state = _wounded_ortiz(tmp_path)
    base = ["--state", state, "--attacker", "Detective Ortiz", "--defender", "Two-Gun Tommy"]
    one = json.loads(_run(*base, "--json").output)["attack"]["pool"]
    two = json.loads(_run(*base, "--actions", "2", "--json").output)["attack"]["pool"]
    assert two == one - 2
    faces = ",".join(["2"] * two)
    r = _run(*base, "--actions", "2", "--faces", f"attack={faces}", "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)["attack"]["faces"] == [2] * two
    line = _one_line_error(_run(*base, "--actions", "2", "--faces", f"attack={faces},2"))
    assert "--faces attack" in line


def test_ask_takes_the_faces_of_each_roll_in_a_state(tmp_path: Path) -> None:
    state = _clinch(tmp_path)
    r = _run("--state", state, "--attacker", KNIFE, "--defender", JAX, "--ask",
             input="9,9,9,9,9,9\n" + "2," * 8 + "2\n" + "2,2,2,2\n")
    assert r.exit_code == 0, r.output
    assert "attack: roll 6 dice, faces" in r.output
    assert "dodge" not in r.output  # MAN-6: no defense in the clinch


def test_attack_state_names_and_options_are_checked(tmp_path: Path) -> None:
    state = _clinch(tmp_path)
    assert "Nobody" in _one_line_error(_run("--state", state, "--attacker", "Nobody",
                                            "--defender", JAX))
    assert "ally" in _one_line_error(_run("--state", state, "--attacker", KNIFE,
                                          "--defender", BAT))
    assert "--distance" in _one_line_error(_run("--state", state, "--attacker", KNIFE,
                                                "--defender", JAX, "--distance", "3"))
    assert "--actions" in _one_line_error(_run("--attacker", "detective", "--defender",
                                               "two_gun", "--actions", "2"))
    assert "--weapon" in _one_line_error(_run("--state", state, "--attacker", KNIFE,
                                              "--defender", JAX, "--weapon", "rifle"))


def test_ACT_1_card_actions_match_attack_actions(tmp_path: Path) -> None:
    """The card with --actions 2 shows the pool `attack --actions 2` rolls."""
    state = _wounded_ortiz(tmp_path)
    r = CliRunner().invoke(main, ["card", "--state", state, "--attacker", "Detective Ortiz",
                                  "--against", "Two-Gun Tommy", "--actions", "2", "--json"])
    assert r.exit_code == 0, r.output
    shot = next(x for x in json.loads(r.output)["rows"] if x["maneuver"] == "single_shot")
    rolled = json.loads(_run("--state", state, "--attacker", "Detective Ortiz", "--defender",
                             "Two-Gun Tommy", "--actions", "2", "--json").output)["attack"]
    assert (shot["pool"], shot["difficulty"]) == (rolled["pool"], rolled["difficulty"])
    r = CliRunner().invoke(main, ["card", "--state", state, "--attacker", "Detective Ortiz",
                                  "--against", "Two-Gun Tommy", "--actions", "9"])
    assert r.exit_code == 2 and "--actions" in r.output
