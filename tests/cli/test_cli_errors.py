"""Bad input on the command line: one line on stderr, exit status 2, no usage block."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from vtm_sim.cli import main


def run(*args: str) -> tuple[int, list[str]]:
    r = CliRunner().invoke(main, list(args))
    return r.exit_code, r.output.strip().splitlines()


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["fight", "duel", "--distance", "-5"], "'--distance'"),
        (["roll", "-5"], "No such option '-5'"),
        (["roll", "500"], "500 is not in the range"),
        (["card", "--attacker", "configs/characters/brawler.yaml"], "Missing option '--against'"),
        (["no-such-command"], "No such command"),
    ],
)
def test_click_usage_errors_are_one_line(args: list[str], needle: str) -> None:
    code, lines = run(*args)
    assert code == 2
    assert len(lines) == 1, lines
    assert needle in lines[0] and "--help" in lines[0]
    assert not lines[0].startswith("Usage")


def test_help_still_works() -> None:
    code, lines = run("roll", "--help")
    assert code == 0 and lines[0].startswith("Usage: ") and " roll " in lines[0]


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["roll", "5", "--faces", "9,8"], "3 more faces needed (5 dice to roll, 2 faces left)"),
        (["roll", "2", "--faces", "9"], "1 more face needed (2 dice to roll, 1 face left)"),
        (["fight", "configs/characters/thug.yaml"], "is a stat block; give two"),
        (["jump", "configs/characters/thug.yaml", "--faces", "9,9,9,9,9,9,9"],
         "7 faces given but the jump roll of 3 dice used 3"),
    ],
)
def test_bad_input_names_what_was_expected(args: list[str], needle: str) -> None:
    code, lines = run(*args)
    assert code == 2
    assert len(lines) == 1 and needle in lines[0], lines


def test_pursuit_help_offers_only_its_own_options() -> None:
    code, lines = run("pursuit", "--help")
    assert code == 0 and not any("--faces" in line for line in lines)


def test_replay_of_a_malformed_file_is_bad_input_but_a_changed_log_fails(
        tmp_path: Path) -> None:
    garbage = tmp_path / "garbage.jsonl"
    garbage.write_text("not json\n", encoding="utf-8")
    code, lines = run("replay", str(garbage))
    assert code == 2 and len(lines) == 1 and "not a battle log" in lines[0]
    headless = tmp_path / "headless.jsonl"
    headless.write_text('{"e": "turn", "turn": 1}\n', encoding="utf-8")
    code, lines = run("replay", str(headless))
    assert code == 2 and "not a battle log" in lines[0]
    log = tmp_path / "b.jsonl"
    assert run("fight", "duel", "--log", str(log))[0] == 0
    events = [json.loads(x) for x in log.read_text(encoding="utf-8").splitlines()]
    roll = next(e for e in events if e["e"] == "roll")
    roll["succ"] += 1
    log.write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
    code, lines = run("replay", str(log))
    assert code == 1 and "replay failed" in lines[-1]


def test_attack_ask_prompts_for_each_roll_in_turn() -> None:
    """--ask: the damage pool depends on the attack roll, so each is asked when it comes;
    a wrong count is asked again."""
    r = CliRunner().invoke(main, [
        "attack", "--attacker", "configs/characters/knife_fighter.yaml",
        "--defender", "configs/characters/brawler.yaml", "--defense", "dodge", "--ask",
    ], input="9,9,6,2,5,3\n5,9,1\n5,9,1,4,6\n7,2,1,2,6,9\n")
    assert r.exit_code == 0, r.output
    assert "attack: roll 6 dice, faces" in r.output
    assert "dodge: roll 5 dice, faces" in r.output
    assert "2 more faces needed" in r.output  # the short answer, asked again
    assert "damage: roll 6 dice, faces" in r.output  # 4 base + 2 net successes
    assert "takes 3 levels of lethal damage" in r.output
