"""The ``vtm-sim`` command line (vtm_sim.cli), driven through click's CliRunner."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from vtm_sim.cli import main
from vtm_sim.core.dice import SpecialtyRule
from vtm_sim.data.config import config_dir
from vtm_sim.mechanics.odds import attack_odds, roll_odds

ROOT = Path(__file__).resolve().parents[2]
CHARS = ROOT / "configs" / "characters"
KNIFE = str(CHARS / "knife_fighter.yaml")
BRAWLER = str(CHARS / "brawler.yaml")
ELDER = str(CHARS / "elder.yaml")
NIKOLAI = str(CHARS / "nikolai.yaml")
THUG = str(CHARS / "thug.yaml")


def run(*args: str, code: int = 0) -> Result:
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == code, (result.output, result.stderr, result.exception)
    return result


def run_json(*args: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(run(*args, "--json").stdout)
    return data


def user_error(*args: str, code: int = 2) -> str:
    """Bad input: exit ``code``, one line on stderr, nothing on stdout, no traceback."""
    result = run(*args, code=code)
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.output
    assert not isinstance(result.exception, Exception) or isinstance(result.exception, SystemExit)
    return lines[0]


# --- roll -------------------------------------------------------------------------


def test_roll_json_keys() -> None:
    data = run_json("roll", "5", "--seed", "3")
    assert {"pool", "difficulty", "faces", "successes", "botch"} <= data.keys()
    assert data["pool"] == 5 and len(data["faces"]) == 5 and data["difficulty"] == 6


def test_DICE_3_roll_faces_ones_cancel() -> None:
    """10, 9 and 6 hit at difficulty 6 (3 hits); the 1 cancels one: 2 successes."""
    data = run_json("roll", "--faces", "1,9,10,6", "-d", "6")
    assert data["pool"] == 4
    assert data["faces"] == [1, 9, 10, 6]
    assert data["successes"] == 2
    assert data["botch"] is False


def test_DICE_4_roll_faces_botch() -> None:
    """No hit and a 1 at difficulty 6: a botch."""
    data = run_json("roll", "--faces", "1,2,3")
    assert data["botch"] is True and data["successes"] == 0
    assert run("roll", "--faces", "1,2,3").stdout == "3 dice at difficulty 6 -> 1 2 3: botch.\n"


def test_DICE_1_difficulty_is_clamped() -> None:
    data = run_json("roll", "--faces", "9,9", "-d", "12")
    assert data["difficulty"] == 10 and data["successes"] == 0
    assert "clamped to 10" in run("roll", "--faces", "9,9", "-d", "12").stdout
    assert run_json("roll", "--faces", "2,1", "-d", "0")["difficulty"] == 2


def test_DICE_2_a_ten_always_succeeds() -> None:
    assert run_json("roll", "--faces", "10,9", "-d", "10")["successes"] == 1


def test_DICE_5_specialty_explodes_with_extra_faces() -> None:
    """POOL 2 with a specialty: the 10 adds one die (here a 7): 10, 7 and 6 score."""
    data = run_json("roll", "2", "--faces", "10,6,7", "--specialty")
    assert data["faces"] == [10, 6, 7] and data["successes"] == 3
    # without POOL the pool is worked out from the faces: 10 3 is one die and its extra die
    data = run_json("roll", "--faces", "10,3", "--specialty")
    assert data["pool"] == 1 and data["successes"] == 1
    assert "1 more face needed" in user_error("roll", "2", "--faces", "10,6", "--specialty")
    assert "exploding 10" in user_error("roll", "--faces", "6,10", "--specialty")


def test_DICE_5_double_specialty_from_a_rules_file(tmp_path: Path) -> None:
    """A house-rules profile with specialty_rule: double: a 10 counts two successes."""
    house = tmp_path / "house.yaml"
    house.write_text("name: house\nspecialty_rule: double\n", encoding="utf-8")
    data = run_json("roll", "--faces", "10,2", "--specialty", "--rules", str(house))
    assert data["successes"] == 2 and data["specialty"] == "double"
    assert "unknown" in user_error("roll", "3", "--rules", "no_such_profile")


def test_DICE_6_damage_roll_ones_do_not_cancel() -> None:
    data = run_json("roll", "--damage", "--faces", "1,1,6,7")
    assert data["successes"] == 2 and data["botch"] is False
    assert run_json("roll", "--damage", "--faces", "1,2")["botch"] is False


def test_DICE_7_empty_pool_is_not_rolled() -> None:
    data = run_json("roll", "0")
    assert data == {**data, "faces": [], "successes": 0, "botch": False}


def test_DICE_8_willpower_adds_a_success_and_averts_a_botch() -> None:
    data = run_json("roll", "--willpower", "--faces", "1,2,3")
    assert data["successes"] == 1 and data["botch"] is False


def test_DICE_9_same_seed_same_bytes() -> None:
    a = run("roll", "12", "--seed", "7", "--odds").stdout
    assert a == run("roll", "12", "--seed", "7", "--odds").stdout
    assert run("roll", "12").stdout == run("roll", "12", "--seed", "0").stdout  # default 0
    assert run_json("roll", "12", "--seed", "7") != run_json("roll", "12", "--seed", "8")


@pytest.mark.parametrize(
    "extra", [[], ["--specialty"], ["--willpower"], ["--damage"], ["-d", "9", "--specialty"]]
)
def test_roll_odds_sum_to_one_and_match_the_library(extra: list[str]) -> None:
    data = run_json("roll", "6", "--odds", *extra)
    odds = data["odds"]
    assert {"p_success", "p_botch", "expected_successes", "distribution"} <= odds.keys()
    dist = odds["distribution"]
    assert list(dist) == [str(k) for k in range(len(dist))]
    assert math.isclose(math.fsum(dist.values()), 1.0, abs_tol=1e-12)
    assert math.isclose(odds["p_success"], 1 - dist["0"], abs_tol=1e-12)
    lib = roll_odds(
        6,
        int(extra[1]) if extra[:1] == ["-d"] else 6,
        specialty=SpecialtyRule.EXPLODE if "--specialty" in extra else None,
        willpower="--willpower" in extra,
        damage="--damage" in extra,
    )
    assert [dist[str(k)] for k in range(len(dist))] == list(lib.distribution)
    assert odds["p_botch"] == lib.p_botch


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["roll", "5", "--faces", "1,2"], "3 more faces needed (5 dice to roll, 2 faces left)"),
        (["roll", "2", "--faces", "9"], "1 more face needed (2 dice to roll, 1 face left)"),
        (["roll", "2", "-d", "6", "--specialty", "--faces", "10,3"],
         "after a 10 exploded with the specialty"),
        (["roll", "3", "--faces", "1,2,3,4"], "4 faces given"),
        (["roll", "--faces", "1,11"], "face 11"),
        (["roll", "--faces", "1,x"], "comma-separated"),
        (["roll"], "POOL"),
    ],
)
def test_DICE_9_bad_faces_are_one_line_errors(args: list[str], needle: str) -> None:
    assert needle in user_error(*args)


# --- attack ------------------------------------------------------------------------

ATTACK_KEYS = {
    "attack",
    "defense",
    "damage",
    "soak",
    "net_successes",
    "damage_type",
    "health_levels",
    "stunned",
    "defender_health",
}


def test_attack_json_keys() -> None:
    data = run_json("attack", "--attacker", KNIFE, "--defender", BRAWLER, "--defense", "dodge")
    assert data.keys() >= ATTACK_KEYS
    for key in ("attack", "defense"):
        assert {"pool", "difficulty", "faces", "successes"} <= data[key].keys()
    assert set(data["defender_health"]) == {"track", "level", "status"}


def test_ATK_5_DEF_1_DMG_6_SOAK_2_knife_against_a_dodging_mortal() -> None:
    """Knife Fighter (Dex 3, Melee 3, Str 4, knife Str+1 lethal) vs Bar Brawler (Dex 3,
    Dodge 2, Stamina 3, mortal):

    attack 6 dice: 8 6 7 8 6 1 -> 5 hits - one 1 = 4 successes
    dodge  5 dice: 9 2 3 1 6   -> 2 hits - one 1 = 1 success
    net 4 - 1 = 3 (DEF-1); damage 4 + 1 + (3 - 1) = 7 dice (ATK-5)
    damage 7 dice: 6 7 1 2 10 3 8 -> 6 7 10 8 = 4 successes (1s do not cancel, DICE-6)
    soak: a mortal soaks no lethal damage (SOAK-2): 0 dice, so soak= is not used
    4 levels of lethal: XXXX..., Wounded; 4 > Stamina 3: stunned (DMG-6).
    """
    data = run_json(
        "attack",
        "--attacker",
        KNIFE,
        "--defender",
        BRAWLER,
        "--defense",
        "dodge",
        "--faces",
        "attack=8,6,7,8,6,1;defense=9,2,3,1,6;damage=6,7,1,2,10,3,8;soak=5,5",
    )
    assert data["attack"] == {
        "pool": 6,
        "difficulty": 6,
        "faces": [8, 6, 7, 8, 6, 1],
        "successes": 4,
        "botch": False,
    }
    assert data["defense"]["successes"] == 1
    assert data["net_successes"] == 3
    assert data["damage"]["pool"] == 7 and data["damage"]["successes"] == 4
    assert data["soak"]["pool"] == 0
    assert data["damage_type"] == "lethal"
    assert data["health_levels"] == 4
    assert data["stunned"] is True
    assert data["defender_health"] == {"track": "XXXX...", "level": "wounded", "status": "active"}


def test_DICE_5_ATK_5_SOAK_1_punch_with_specialty_against_a_dodge_all_four_rolls() -> None:
    """Bar Brawler (Dex 3, Brawl 3 with a specialty, Str 3) punches Knife Fighter (Dex 3,
    Dodge 2, Stamina 2):

    attack 6 dice + 1 exploded: 10 7 6 2 1 3 | 8 -> 10 7 6 8 = 4 hits - one 1 = 3
    dodge 5 dice: 6 2 3 4 5 -> 1 success; net 3 - 1 = 2
    damage Str 3 + (2 - 1) = 4 dice: 6 6 1 9 -> 3 successes
    soak Stamina 2 dice (bashing): 6 2 -> 1; 3 - 1 = 2 levels of bashing: //....., Hurt.
    """
    data = run_json(
        "attack",
        "--attacker",
        BRAWLER,
        "--defender",
        KNIFE,
        "--defense",
        "dodge",
        "--faces",
        "attack=10,7,6,2,1,3,8; defense=6,2,3,4,5; damage=6,6,1,9; soak=6,2",
    )
    assert data["attack"]["faces"] == [10, 7, 6, 2, 1, 3, 8]
    assert data["attack"]["successes"] == 3
    assert data["net_successes"] == 2
    assert data["damage"]["pool"] == 4 and data["damage"]["successes"] == 3
    assert data["soak"] == {
        "pool": 2,
        "difficulty": 6,
        "faces": [6, 2],
        "successes": 1,
        "botch": False,
    }
    assert (data["damage_type"], data["health_levels"], data["stunned"]) == ("bashing", 2, False)
    assert data["defender_health"]["track"] == "//....."
    assert data["defender_health"]["level"] == "hurt"


def test_DMG_4_DMG_5_pistol_against_a_vampire_is_halved_bashing() -> None:
    """Street Thug (Dex 2, Firearms 1) shoots the Elder (Stamina 4, Fortitude 3) at 10 yards
    with a light pistol (4 dice lethal, range 20):

    attack 3 dice: 7 8 2 -> 2; no defense; damage 4 + (2 - 1) = 5 dice: 6 7 8 9 1 -> 4
    firearms count as bashing against vampires (DMG-4): soak Stamina 4 + Fortitude 3 = 7
    dice: 6 2 2 2 2 2 2 -> 1; 4 - 1 = 3, halved for a vampire (DMG-5) to 1 level.
    """
    args = [
        "attack",
        "--attacker",
        THUG,
        "--defender",
        ELDER,
        "--weapon",
        "light_pistol",
        "--faces",
        "attack=7,8,2;damage=6,7,8,9,1;soak=6,2,2,2,2,2,2",
    ]
    data = run_json(*args, "--odds")
    assert data["attack"]["pool"] == 3 and data["defense"] is None
    assert data["damage"]["pool"] == 5 and data["soak"]["pool"] == 7
    assert (data["damage_type"], data["health_levels"]) == ("bashing", 1)
    assert data["defender_health"]["track"] == "/......"
    odds = [data["odds"][str(k)] for k in range(len(data["odds"]))]
    expected = attack_odds(
        attack_pool=3, attack_difficulty=6, damage_base=4, soak_pool=7, halve=True
    )
    assert odds == list(expected)
    text = run(*args).stdout
    assert "3 halved to 1 (a vampire against bashing)" in text


def test_VAMP_5_potence_odds_and_levels() -> None:
    """The Elder (Dex 4, Brawl 4, Str 4, Potence 3) punches Bar Brawler (Stamina 3):

    attack 8 dice: 6 6 2 2 2 2 2 2 -> 2; damage Str 4 + 1 = 5 dice: 6 2 2 2 2 -> 1,
    + 3 automatic from Potence = 4; soak 3 dice: 6 6 2 -> 2; 2 levels of bashing.
    """
    args = [
        "attack",
        "--attacker",
        ELDER,
        "--defender",
        BRAWLER,
        "--weapon",
        "unarmed",
        "--faces",
        "attack=6,6,2,2,2,2,2,2;damage=6,2,2,2,2;soak=6,6,2",
    ]
    data = run_json(*args, "--odds")
    assert data["health_levels"] == 2
    odds = [data["odds"][str(k)] for k in range(len(data["odds"]))]
    assert math.isclose(math.fsum(odds), 1.0, abs_tol=1e-12)
    without = attack_odds(attack_pool=8, attack_difficulty=6, damage_base=4, soak_pool=3)
    assert sum(k * p for k, p in enumerate(odds)) > sum(k * p for k, p in enumerate(without))
    assert "1 success + 3 from Potence = 4" in run(*args).stdout


def test_attack_odds_sum_to_one() -> None:
    data = run_json(
        "attack", "--attacker", KNIFE, "--defender", BRAWLER, "--odds", "--defense", "dodge"
    )
    assert math.isclose(math.fsum(data["odds"].values()), 1.0, abs_tol=1e-12)


def test_DICE_9_attack_same_seed_same_output() -> None:
    args = [
        "attack",
        "--attacker",
        NIKOLAI,
        "--defender",
        ELDER,
        "--distance",
        "30",
        "--defense",
        "dodge",
        "--seed",
        "11",
        "--odds",
    ]
    assert run(*args).stdout == run(*args).stdout
    assert run_json(*args) == run_json(*args)


def test_attack_readable_summary() -> None:
    out = run(
        "attack",
        "--attacker",
        KNIFE,
        "--defender",
        BRAWLER,
        "--defense",
        "dodge",
        "--faces",
        "attack=8,6,7,8,6,1;defense=9,2,3,1,6;damage=6,7,1,2,10,3,8",
        "--odds",
    ).stdout.splitlines()
    assert out[0] == "Knife Fighter faces Bar Brawler, 1 yard apart."
    # full names once, then the sheets' short names (short: The Knife Fighter, The Brawler)
    assert out[1] == (
        "The Knife Fighter attacks the Brawler with the knife: 6 dice at difficulty 6 "
        "-> 8 6 7 8 6 1: 4 successes."
    )
    assert out[2] == "The Brawler dodges: 5 dice at difficulty 6 -> 9 2 3 1 6: 1 success."
    assert out[3].endswith("the Brawler takes 4 levels of lethal damage (track XXXX..., Wounded).")
    assert out[4] == "The Brawler is stunned by the blow and will lose the next turn."
    assert out[5].startswith("Odds of health levels dealt")


@pytest.mark.parametrize(
    ("args", "needles"),
    [
        (["--attacker", KNIFE, "--defender", BRAWLER, "--defense", "block"], ["block", "DEF-4"]),
        (["--attacker", KNIFE, "--defender", BRAWLER, "--defense", "parry"], ["parry", "DEF-6"]),
        (["--attacker", NIKOLAI, "--defender", ELDER, "--defense", "block"], ["close combat"]),
        (
            ["--attacker", THUG, "--defender", ELDER, "--weapon", "sword"],
            ["thug.yaml", "weapons", "sword"],
        ),
        (["--attacker", THUG, "--defender", ELDER, "--distance", "5"], ["--distance", "reach"]),
        (
            [
                "--attacker",
                THUG,
                "--defender",
                ELDER,
                "--weapon",
                "light_pistol",
                "--distance",
                "50",
            ],
            ["--distance", "range"],
        ),
        (["--attacker", THUG, "--defender", ELDER, "--maneuver", "single_shot"], ["--maneuver"]),
        (["--attacker", THUG, "--defender", ELDER, "--maneuver", "moonwalk"], ["unknown maneuver"]),
        (
            ["--attacker", KNIFE, "--defender", BRAWLER, "--faces", "attack=9,9"],
            ["--faces attack", "more faces needed"],
        ),
        (
            ["--attacker", KNIFE, "--defender", BRAWLER, "--faces", "attack=9,9,9,9,9,9,9"],
            ["--faces attack", "left over"],
        ),
        (["--attacker", KNIFE, "--defender", BRAWLER, "--faces", "dodge=9"], ["--faces", "label"]),
    ],
)
def test_DEF_4_DEF_6_attack_bad_input_is_one_line(args: list[str], needles: list[str]) -> None:
    line = user_error("attack", *args)
    for needle in needles:
        assert needle in line, line


def test_DEF_4_block_is_legal_against_bashing() -> None:
    data = run_json(
        "attack",
        "--attacker",
        THUG,
        "--defender",
        ELDER,
        "--maneuver",
        "kick",
        "--weapon",
        "unarmed",
        "--defense",
        "block",
    )
    assert data["defense"]["pool"] == 8  # Dex 4 + Brawl 4


# --- bad stat blocks -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "needles"),
    [
        ("name: X\ncolour: red\n", ["colour", "unknown key"]),
        ("name: X\nweapons: [laser_sword]\n", ["weapons.0", "laser_sword"]),
        ("name: X\nattributes: {strength: 12}\n", ["attributes", "strength", "12"]),
        ("name: X\nattributes: {strenght: 3}\n", ["attributes", "strenght"]),
        ("name: [X\n", ["invalid YAML"]),
        ("kind: mortal\n", ["name", "missing"]),
    ],
)
@pytest.mark.parametrize("command", ["attack", "fight"])
def test_bad_stat_block_names_file_and_key(
    tmp_path: Path, text: str, needles: list[str], command: str
) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(text, encoding="utf-8")
    if command == "attack":
        line = user_error("attack", "--attacker", str(bad), "--defender", BRAWLER)
    else:
        line = user_error("fight", BRAWLER, str(bad))
    assert str(bad) in line
    for needle in needles:
        assert needle in line, line


def test_missing_stat_block_file() -> None:
    assert "file not found" in user_error("fight", BRAWLER, "no/such/file.yaml")


# --- fight and replay ---------------------------------------------------------------------


def test_fight_json_keys() -> None:
    data = run_json("fight", BRAWLER, KNIFE, "--seed", "3")
    assert {"winner", "turns", "events", "log_sha256"} <= data.keys()
    assert data["winner"] in ("Bar Brawler", "Knife Fighter", None)
    assert isinstance(data["turns"], int) and data["events"] > 0
    assert len(data["log_sha256"]) == 64


def test_DICE_9_fight_same_seed_same_json_and_log(tmp_path: Path) -> None:
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    first = run(
        "fight", NIKOLAI, ELDER, "--distance", "30", "--seed", "5", "--json", "--log", str(a)
    )
    second = run(
        "fight", NIKOLAI, ELDER, "--distance", "30", "--seed", "5", "--json", "--log", str(b)
    )
    assert first.stdout == second.stdout
    assert a.read_bytes() == b.read_bytes()
    assert run("fight", BRAWLER, KNIFE).stdout == run("fight", BRAWLER, KNIFE, "--seed", "0").stdout
    narrated = run("fight", BRAWLER, KNIFE, "--seed", "3", "--narrate").stdout
    assert narrated == run("fight", BRAWLER, KNIFE, "--seed", "3", "--narrate").stdout


def test_fight_summary_and_narration() -> None:
    summary = run("fight", BRAWLER, KNIFE, "--seed", "3").stdout.splitlines()
    assert summary[0].endswith("(seed 3, rules v20).")
    assert summary[1].startswith("  Bar Brawler (side 0): ")
    assert summary[-1].startswith(
        f"{run_json('fight', BRAWLER, KNIFE, '--seed', '3')['events']} events, sha256 "
    )
    lines = run("fight", BRAWLER, KNIFE, "--seed", "3", "--narrate", "dice").stdout.splitlines()
    assert lines[0] == "Bar Brawler faces Knife Fighter, 10 yards apart."
    assert lines[1] == "Turn 1."
    assert lines[-1].startswith("The battle ends after")
    story = run("fight", BRAWLER, KNIFE, "--seed", "3", "--narrate").stdout.splitlines()
    assert story[0] == "Bar Brawler and Knife Fighter face each other, 10 yards apart."
    assert story[1] == "Turn 1."
    assert not any("->" in line or "dice" in line for line in story)  # no dice lists


def test_fight_turn_limit_is_undecided() -> None:
    data = run_json("fight", NIKOLAI, ELDER, "--distance", "300", "--turns", "1")
    assert data["turns"] == 1
    assert data["winner"] is None and data["reason"] == "turn limit"


def test_fight_log_then_replay_verifies(tmp_path: Path) -> None:
    log = tmp_path / "battle.jsonl"
    data = run_json("fight", NIKOLAI, ELDER, "--distance", "30", "--seed", "2", "--log", str(log))
    out = run("replay", str(log)).stdout.splitlines()
    assert out[-1] == f"replay verified: {data['events']} events, sha256 {data['log_sha256']}"
    assert (
        out[:-1]
        == run(
            "fight", NIKOLAI, ELDER, "--distance", "30", "--seed", "2", "--narrate", "dice"
        ).stdout.splitlines()
    )


def _tamper_face(lines: list[str]) -> list[str]:
    for i, line in enumerate(lines):
        ev = json.loads(line)
        if ev["e"] == "roll" and ev["what"] == "attack" and ev["faces"]:
            ev["faces"][0] = 1 if ev["faces"][0] != 1 else 10
            lines[i] = json.dumps(ev, separators=(",", ":"))
            return lines
    raise AssertionError("no attack roll to tamper with")


def _drop_faces_key(lines: list[str]) -> list[str]:
    for i, line in enumerate(lines):
        ev = json.loads(line)
        if ev["e"] == "roll":
            del ev["faces"]
            lines[i] = json.dumps(ev)
            return lines
    raise AssertionError("no roll")


TAMPERS: dict[str, Callable[[list[str]], list[str]]] = {
    "face": _tamper_face,
    "drop_last": lambda lines: lines[:-1],
    "not_json": lambda lines: [*lines[:3], "{oops", *lines[3:]],
    "no_header": lambda lines: lines[1:],
    "no_faces_key": _drop_faces_key,
    "bad_turn_limit": lambda lines: [
        lines[0].replace('"turn_limit":20', '"turn_limit":"x"'),
        *lines[1:],
    ],
    "empty": lambda lines: [],
}


# not a battle log at all: bad input (exit 2); the rest do not reproduce (exit 1)
MALFORMED = {"not_json", "no_header", "empty", "bad_turn_limit", "no_faces_key"}


@pytest.mark.parametrize("how", sorted(TAMPERS))
def test_tampered_log_fails_replay_with_exit_1(tmp_path: Path, how: str) -> None:
    log = tmp_path / "battle.jsonl"
    run("fight", BRAWLER, KNIFE, "--seed", "3", "--log", str(log))
    lines = log.read_text(encoding="utf-8").splitlines()
    log.write_text("".join(x + "\n" for x in TAMPERS[how](lines)), encoding="utf-8")
    if how in MALFORMED:
        line = user_error("replay", str(log), code=2)
        assert "not a battle log" in line and str(log) in line
    else:
        line = user_error("replay", str(log), code=1)
        assert "replay failed" in line and str(log) in line


def test_replay_of_a_missing_file_is_bad_input(tmp_path: Path) -> None:
    result = run("replay", str(tmp_path / "nope.jsonl"), code=2)
    assert "Traceback" not in result.output


def test_help_documents_the_default_seed() -> None:
    for command in ("roll", "attack", "fight"):
        assert "default 0" in run(command, "--help").stdout


def test_fight_accepts_a_scenario_name_and_lists_scenarios() -> None:
    """`fight SCENARIO` runs a shipped scenario; `scenarios` lists them all."""
    listing = run("scenarios", "--json")
    names = [r["name"] for r in json.loads(listing.stdout)]
    assert "duel" in names and len(names) >= 8
    one = run_json("fight", "duel", "--seed", "4", "--json")
    two = run_json("fight", "configs/scenarios/duel.yaml", "--seed", "4", "--json")
    assert one["log_sha256"] == two["log_sha256"]
    assert "unknown" in user_error("fight", "no_such_scenario")


def test_RNG_6_attack_cli_spray_on_a_lone_target() -> None:
    """RNG-6: `attack --maneuver spray` against one target: half the successes,
    the share added whole to the weapon's damage."""
    rifle = "configs/characters/swat_rifleman.yaml"
    target = "configs/characters/brawler.yaml"
    # Dex 3 + Firearms 4 + 10 - flak 2 = 15 dice at 6 + 2 (+0 at 10 yards); 4 hits
    attack = "10,9,8,8," + ",".join(["2"] * 11) + ",3"  # the 10 explodes (specialty): 3
    data = run_json(
        "attack",
        "--attacker",
        rifle,
        "--defender",
        target,
        "--maneuver",
        "spray",
        "--faces",
        f"attack={attack};damage=6,6,6,2,2,2,2,2,2",
        "--json",
    )
    assert data["attack"]["successes"] == 4
    assert data["net_successes"] == 2  # half of 4
    assert data["damage"]["pool"] == 9  # assault rifle 7 + the share of 2


def test_fight_with_the_tactician_policy() -> None:
    """`fight --policy tactician` runs every combatant by exact odds, deterministically."""
    one = run_json("fight", "knife_duel", "--seed", "5", "--policy", "tactician", "--json")
    two = run_json("fight", "knife_duel", "--seed", "5", "--policy", "tactician", "--json")
    assert one["log_sha256"] == two["log_sha256"]
    assert one["winner"] is not None or one["reason"] == "turn limit"


def test_card_command_prints_the_tactic_card() -> None:
    """`vtm-sim card`: a Storyteller's table of attacks and odds; JSON too."""
    data = run_json(
        "card",
        "--attacker",
        "configs/characters/knife_fighter.yaml",
        "--against",
        "configs/characters/brawler.yaml",
        "--json",
    )
    assert data["best"] == "weapon_strike"
    assert all(0.0 <= r["p_hit"] <= 1.0 for r in data["rows"])
    text = run(
        "card",
        "--attacker",
        "configs/characters/knife_fighter.yaml",
        "--against",
        "configs/characters/brawler.yaml",
    ).stdout
    assert "Best: weapon strike" in text
    assert "file not found" in user_error(
        "card", "--attacker", "nope.yaml", "--against", "configs/characters/brawler.yaml"
    )


def test_MOVE_3_jump_command_with_the_storytellers_dice() -> None:
    """MOVE-3: Strength (+ Athletics running) at difficulty 3; 4 ft across or 2 ft up
    per success."""
    elder = "configs/characters/elder.yaml"  # Strength 4, Athletics 3, Potence 3
    data = run_json("jump", elder, "--running", "--faces", "3,2,9,1,5,6,2", "--json")
    assert data["pool"] == 7 and data["difficulty"] == 3
    assert data["successes"] == 3  # 3, 9, 5, 6 hit; the 1 cancels
    # VAMP-5 as in battle (vtm_sim.engine.obstacles.cross): Potence's 3 dots as automatic successes
    assert (data["potence"], data["total"], data["feet"]) == (3, 6, 24)
    data = run_json("jump", elder, "--vertical", "--faces", "3,3,1,2", "--json")
    assert data["pool"] == 4 and data["feet"] == 2 * (1 + 3)  # 1 success, 3 from Potence
    thug = run_json("jump", "configs/characters/thug.yaml", "--faces", "9,9,1", "--json")
    assert (thug["potence"], thug["feet"]) == (0, 4)  # a mortal: the roll alone
    botch = run_json("jump", elder, "--faces", "1,2,2,2", "--json")
    assert botch["botch"] and botch["feet"] == 0  # a botch gets nothing, Potence or not


def test_MOVE_4_pursuit_command_plays_the_extended_contest() -> None:
    """MOVE-4: the quarry's lead is one success per 2 yards; the chase ends when the
    pursuer's total exceeds the quarry's."""
    data = run_json(
        "pursuit",
        "--quarry",
        "configs/characters/thug.yaml",
        "--pursuer",
        "configs/characters/elder.yaml",
        "--lead",
        "14",
        "--seed",
        "2",
        "--json",
    )
    assert data["lead_successes"] == 7
    last = data["rounds"][-1]
    assert data["caught"] == (last["pursuer_total"] > last["quarry_total"])
    totals = [r["quarry_total"] for r in data["rounds"]]
    assert totals == sorted(totals) and totals[0] >= 7
    assert data["tiring"] == (["Street Thug"] if data["turns"] > 3 else [])


def _stand_in_profile(tmp_path: Path, margin: int = 5) -> str:
    """A copy of v20 with MOVE-5's Perception rolls and much-faster rule off and the old
    margin stand-in on (a rules-profile file, as a Storyteller's house rules)."""
    text = (config_dir() / "rules" / "v20.yaml").read_text()
    text = text.replace("chase_escape_margin: 0", f"chase_escape_margin: {margin}")
    text = text.replace("chase_perception: true", "chase_perception: false")
    text = text.replace("chase_much_faster: 2.0", "chase_much_faster: 0.0")
    path = tmp_path / "house.yaml"
    path.write_text(text)
    return str(path)


def test_MOVE_4_pursuit_command_tires_mortals_as_battles_do(tmp_path: Path) -> None:
    """MOVE-4 (003: mortals tire, vampires do not) with the battle's rule
    (vtm_sim.engine.chase.tired): full pace for the profile's chase_fatigue_turns (3 in v20),
    then each roll loses one die more; a vampire never does."""
    house = _stand_in_profile(tmp_path, 20)  # long chases: no Perception rolls
    rounds: list[dict[str, Any]] = []
    for seed in range(40):  # long chases: a small lead, a slow pursuer
        data = run_json("pursuit", "--quarry", "configs/characters/elder.yaml",
                        "--pursuer", "configs/characters/thug.yaml", "--lead", "0",
                        "--turns", "8", "--rules", house, "--seed", str(seed), "--json")
        made = 0  # the thug's chase rolls so far (a stumble's turn, getting up, has none)
        for r in data["rounds"]:
            assert r["quarry_tired"] == 0  # the elder is a vampire
            if r["pursuer"] is None:
                continue
            made += 1
            assert r["pursuer_tired"] == max(0, made - 3)  # 1 die less from its 4th roll
            assert r["pursuer"]["pool"] == max(0, 3 - r["pursuer_tired"])  # Dex 2 + Ath 1
            rounds.append(r)
        if made >= 5:
            break
    assert [r for r in rounds if r["pursuer_tired"] >= 2], "no chase lasted 5 rolls"
    assert data["tiring"] == ["Street Thug"]


def test_MOVE_4_pursuit_command_ends_as_a_battles_chase_does(tmp_path: Path) -> None:
    """MOVE-4/5 with the battle's endings (vtm_sim.engine.chase): in v20 a pursuer that
    fails its Perception roll loses the quarry ("lost", MOVE-5); the old stand-in (a
    quarry chase_escape_margin successes ahead gets away, "outran") only in a profile
    that sets it; a quarry's botch is a dead end (003)."""
    far = run_json("pursuit", "--quarry", "configs/characters/thug.yaml", "--pursuer",
                   "configs/characters/brawler.yaml", "--lead", "40", "--json")
    assert far["lead_successes"] == 20 and far["escaped"] and not far["caught"]
    assert (far["turns"], far["reason"]) == (1, "lost")  # Perception at 10: lost at once
    assert far["rounds"][0]["sight"]["difficulty"] == 10
    house = run_json("pursuit", "--quarry", "configs/characters/thug.yaml", "--pursuer",
                     "configs/characters/brawler.yaml", "--lead", "40", "--rules",
                     _stand_in_profile(tmp_path), "--json")
    assert (house["turns"], house["reason"]) == (1, "outran")
    assert house["rounds"][0]["sight"] is None
    for seed in range(200):
        data = run_json("pursuit", "--quarry", "configs/characters/thug.yaml", "--pursuer",
                        "configs/characters/brawler.yaml", "--lead", "6", "--seed", str(seed),
                        "--json")
        ends = [r for r in data["rounds"] if r["dead_end"]]
        if ends:
            assert ends[0]["quarry"]["botch"] and ends[0] is data["rounds"][-1]
            assert data["caught"] and not data["escaped"]
            break
    else:
        raise AssertionError("no quarry botched in 200 chases")


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_MOVE_5_pursuit_command_and_a_battle_agree(seed: int) -> None:
    """MOVE-4/5: `vtm-sim pursuit` is a battle's chase: a battle whose quarry already runs
    (its lead in successes), played by Runner/Chaser choices with the same seed, makes
    the very rolls the command prints and ends the same way."""
    import numpy as np

    from vtm_sim.core.choices import Action, ActionKind, DecisionKind
    from vtm_sim.core.dice import RngDice
    from vtm_sim.core.relations import Chase
    from vtm_sim.data.stat_blocks import load_stat_block
    from vtm_sim.engine.battle import Battle, Fighter
    from vtm_sim.events import CaughtEvent, EscapeEvent, RollEvent

    data = run_json("pursuit", "--quarry", "configs/characters/thug.yaml", "--pursuer",
                    "configs/characters/brawler.yaml", "--lead", "6", "--seed", str(seed),
                    "--json")
    chars = config_dir() / "characters"
    b = Battle([Fighter(load_stat_block(chars / "thug.yaml"), 0, 0.0, 0.0),
                Fighter(load_stat_block(chars / "brawler.yaml"), 1, 6.0, 0.0)],
               dice=RngDice(np.random.default_rng(seed)), turn_limit=10, start=False)
    b.combatants[0].chase = Chase(3, 6.0, 0)
    b.begin()
    while b.pending is not None and not any(isinstance(e, CaughtEvent) for e in b.log):
        d = b.pending
        want = ActionKind.FLEE if d.actor == 0 else ActionKind.PURSUE
        pick = [o for o in d.options if isinstance(o, Action) and o.kind is want]
        if d.kind is DecisionKind.ACT and not pick:
            pick = [o for o in d.options if isinstance(o, Action)
                    and o.kind in (ActionKind.GET_UP, ActionKind.PASS)]
        b.choose(pick[0] if pick else d.options[0])
    rolled = [list(e.faces) for e in b.log if isinstance(e, RollEvent)
              and e.what in ("chase", "sight")]
    printed = [r[k]["faces"] for r in data["rounds"] for k in ("pursuer", "quarry", "sight")
               if r[k] is not None]
    assert sorted(map(tuple, rolled)) == sorted(map(tuple, printed))
    assert data["caught"] == any(isinstance(e, CaughtEvent) for e in b.log)
    escapes = [e.reason for e in b.log if isinstance(e, EscapeEvent)]
    assert (data["reason"] is None and not escapes) or [data["reason"]] == escapes


def test_MOVE_3_jump_command_and_a_battle_agree() -> None:
    """MOVE-3/6: `vtm-sim jump` runs the battle's jump code: the faces a battle's running
    jump rolled (the knife fighter over an 8-ft ditch), given to the command, clear the
    same feet; a short one rolls the same Dexterity + Athletics landing."""
    import numpy as np

    from vtm_sim.core.dice import RngDice
    from vtm_sim.core.space import Field, Obstacle, ObstacleKind
    from vtm_sim.data.stat_blocks import load_stat_block
    from vtm_sim.engine.battle import Battle, Fighter
    from vtm_sim.events import JumpEvent, RollEvent
    from vtm_sim.policies.nearest import NearestEnemyPolicy

    chars = config_dir() / "characters"
    seen = 0
    for seed in range(30):
        ditch = Obstacle("ditch", ObstacleKind.GAP, 6.0, -20.0, 6.0, 20.0, 8.0)
        b = Battle([Fighter(load_stat_block(chars / "brawler.yaml"), 0, 0.0, 0.0),
                    Fighter(load_stat_block(chars / "knife_fighter.yaml"), 1, 12.0, 0.0)],
                   dice=RngDice(np.random.default_rng(seed)), field=Field(obstacles=(ditch,)),
                   turn_limit=1)
        pol = NearestEnemyPolicy()
        while b.pending is not None:
            b.choose(pol.choose(b, b.pending))
        jumps = [e for e in b.log if isinstance(e, JumpEvent) and not e.detour]
        if not jumps:
            continue
        j = jumps[0]
        rolls = [e for e in b.log if isinstance(e, RollEvent) and e.who == j.who
                 and e.what in ("jump", "landing")]
        faces = ",".join(str(f) for r in rolls for f in r.faces)
        sheet = "configs/characters/" + ("brawler" if j.who == 0 else "knife_fighter") + ".yaml"
        args = ["jump", sheet, "--feet", "8", "--faces", faces]
        if j.running:
            args.append("--running")
        data = run_json(*args)
        assert data["feet"] == j.reached and data["cleared"] == j.ok
        assert data["fell"] == bool(j.prone)
        seen += 1
    assert seen >= 5


def test_train_without_the_training_extra_is_a_clear_error(monkeypatch: Any) -> None:
    """Without torch/stable-baselines3 `train` says what to install, in one line."""
    import builtins

    real_import = builtins.__import__

    def no_sb3(name: str, *args: Any, **kwargs: Any) -> Any:
        if name.startswith(("sb3_contrib", "stable_baselines3")):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_sb3)
    msg = user_error("train", "--timesteps", "64")
    assert "torch==2.13.0" in msg and "training" in msg


def test_the_tournament_runs_on_every_core_by_default_and_other_commands_on_one() -> None:
    """`vtm-sim tournament` (the README's main job) uses every core unless told; ladder and
    evaluate keep --jobs 1 by default; all say results do not depend on it."""
    help_text = " ".join(run("tournament", "--help").output.split())
    assert "Default: one for each core this process may use." in help_text
    assert "[default: 40; 1<=x<=100000]" in help_text  # --battles
    for command in ("ladder", "evaluate"):
        text = " ".join(run(command, "--help").output.split())
        assert "results do not depend on it. [default: 1;" in text, command
