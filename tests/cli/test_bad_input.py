"""Bad input from every kind of file and option (issue 32): one line on stderr naming the
file and the key (or the option), exit status 2, never a traceback.

Binary files, positions out of bounds or not numbers, negative seeds, duplicate YAML keys,
disciplines on a mortal, two combatants on one spot or one on a wall, a zero-length wall
and a bite with no grip.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from vtm_sim.cli import main

CONFIGS = Path(__file__).resolve().parents[2] / "configs"
BINARY = bytes(range(256)) * 4  # not UTF-8 from byte 128 on


def run(*args: str) -> tuple[int, list[str]]:
    r = CliRunner().invoke(main, list(args))
    assert not isinstance(r.exception, Exception) or isinstance(r.exception, SystemExit), (
        r.exception)
    return r.exit_code, r.output.strip().splitlines()


def one_line(args: list[str], *needles: str) -> str:
    code, lines = run(*args)
    assert code == 2, lines
    assert len(lines) == 1, lines
    assert "Traceback" not in lines[0]
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


def write(folder: Path, name: str, text: str) -> str:
    path = folder / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return str(path)


def with_path(args: list[str], path: Path) -> list[str]:
    """``args`` with the file's path for every ``{}``."""
    return [a.replace("{}", str(path)) for a in args]


def scenario_text(brawler_at: str, knife_at: str = "[4, 0]", wall: str | None = None) -> str:
    """A scenario of two: the brawler (side 0) at ``brawler_at``, the knife fighter (side 1)
    at ``knife_at``, and ``wall`` when given."""
    text = ("title: T\ncombatants:\n"
            f"  - {{sheet: characters/brawler.yaml, side: 0, at: {brawler_at}}}\n"
            f"  - {{sheet: characters/knife_fighter.yaml, side: 1, at: {knife_at}}}\n")
    return text if wall is None else f"{text}walls:\n  - {wall}\n"


def state_text(brawler: str, scenario: str = "duel", obstacle: str | None = None) -> str:
    """A state of ``scenario`` with the Bar Brawler as ``brawler`` says, and ``obstacle``."""
    more = "" if obstacle is None else f"obstacles:\n  - {obstacle}\n"
    return f"scenario: {scenario}\n{more}combatants:\n  Bar Brawler: {brawler}\n"


WALL = "[[2, -3], [2, 3]]"  # a wall across the way at x = 2


# --- binary files ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("state.yaml", ["state", "show", "{}"]),
        ("state.json", ["state", "show", "{}"]),
        ("state.yaml", ["fight", "--state", "{}"]),
        ("scenario.yaml", ["fight", "{}"]),
        ("sheet.yaml", ["card", "--attacker", "{}", "--against", "thug"]),
        ("sheet.yaml", ["attack", "--attacker", "thug", "--defender", "{}"]),
        ("sheet.yaml", ["fight", "brawler", "{}"]),
        ("tactic.yaml", ["fight", "duel", "--policy", "tactic:{}"]),
    ],
)
def test_a_binary_file_is_not_a_text_file(tmp_path: Path, name: str, args: list[str]) -> None:
    path = tmp_path / name
    path.write_bytes(BINARY)
    one_line(with_path(args, path), name, "not a text file")


def test_control_characters_are_not_a_text_file(tmp_path: Path) -> None:
    path = tmp_path / "state.yaml"
    path.write_bytes(b"scenario: duel\x00\x01\n")
    one_line(["state", "show", str(path)], "state.yaml", "not a text file")


# --- positions ---------------------------------------------------------------------------


@pytest.mark.parametrize("x", ["1e308", ".nan", ".inf", "-.inf", "10001"])
def test_a_position_out_of_bounds_is_refused_at_load_time(tmp_path: Path, x: str) -> None:
    state = write(tmp_path, "state.yaml", state_text(f"{{at: [{x}, 0]}}"))
    for cmd in (["state", "show", state], ["fight", "--state", state],
                ["suggest", state, "--npc", "Bar Brawler"]):
        one_line(cmd, "state.yaml", "combatants.Bar Brawler.at.0", "finite number of yards")


def test_a_json_state_with_nan_is_refused(tmp_path: Path) -> None:
    state = write(tmp_path, "state.json",
                  '{"scenario": "duel", "combatants": {"Bar Brawler": {"at": [NaN, 0]}}}')
    one_line(["state", "show", state], "state.json", "at.0", "finite number of yards")


@pytest.mark.parametrize("value", ["nan", "inf", "-1", "20000"])
def test_distances_on_the_command_line_are_finite(value: str) -> None:
    one_line(["attack", "--attacker", "thug", "--defender", "brawler", "--distance", value],
             "'--distance'")


def test_two_stat_blocks_need_a_distance_apart() -> None:
    one_line(["fight", "brawler", "thug", "--distance", "0"], "'--distance'")


# --- seeds -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ["fight", "duel"],
        ["roll", "5"],
        ["attack", "--attacker", "thug", "--defender", "brawler"],
        ["card", "--attacker", "thug", "--against", "brawler"],
        ["jump", "thug"],
        ["pursuit", "--quarry", "thug", "--pursuer", "brawler", "--lead", "5"],
        ["suggest", "duel", "--npc", "X"],
        ["export-behaviors", "duel", "--npc", "X"],
        ["tournament", "--policies", "nearest,random"],
        ["ladder"],
        ["train"],
        ["evaluate", "x.zip"],
    ],
)
def test_every_seed_option_refuses_a_negative_seed(args: list[str]) -> None:
    one_line([*args, "--seed", "-1"], "'--seed'", "-1")


def test_every_seed_option_is_the_shared_type() -> None:
    """Any command with a --seed takes it as SEED (no negative): found by walking them all."""
    import click

    from vtm_sim.cli.base import COMMANDS, SEED

    ctx = click.Context(main)
    for name in COMMANDS:
        cmd = main.get_command(ctx, name)
        assert cmd is not None
        subs = list(cmd.commands.values()) if isinstance(cmd, click.Group) else [cmd]
        for sub in subs:
            for p in sub.params:
                if "--seed" in getattr(p, "opts", ()):
                    assert p.type is SEED, (name, sub.name)


# --- duplicate keys ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "text", "args"),
    [
        ("state.yaml", "scenario: duel\nturn: 2\nturn: 3\n", ["state", "show", "{}"]),
        ("state.yaml", "scenario: duel\ncombatants:\n  Bar Brawler: {prone: true, prone: false}\n",
         ["state", "show", "{}"]),
        ("state.json", '{"scenario": "duel", "turn": 2, "turn": 3}', ["state", "show", "{}"]),
        ("scenario.yaml", "title: A\ntitle: B\ncombatants: []\n", ["fight", "{}"]),
        ("sheet.yaml", "name: A\nattributes: {strength: 2, strength: 5}\n",
         ["card", "--attacker", "{}", "--against", "thug"]),
        ("tactic.yaml", "name: T\nbase: nearest\nbase: tactician\n",
         ["fight", "duel", "--policy", "tactic:{}"]),
        ("rules.yaml", "name: x\nname: y\n", ["fight", "duel", "--rules", "{}"]),
    ],
)
def test_a_duplicate_key_is_refused(tmp_path: Path, name: str, text: str,
                                    args: list[str]) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    line = one_line(with_path(args, path), name, "duplicate key")
    assert any(k in line for k in ("'turn'", "'prone'", "'title'", "'strength'", "'base'",
                                   "'name'")), line


def test_merge_keys_may_still_override() -> None:
    from vtm_sim.data.config import parse_yaml

    text = "base: &b {x: 1, y: 2}\nmore: {<<: *b, x: 3}\n"
    assert parse_yaml(text)["more"] == {"x": 3, "y": 2}


# --- disciplines on a mortal -------------------------------------------------------------


def test_a_mortal_has_no_disciplines(tmp_path: Path) -> None:
    sheet = write(tmp_path, "m.yaml", "name: M\ndisciplines: {potence: 3}\n")
    one_line(["card", "--attacker", sheet, "--against", "thug"], "m.yaml",
             "disciplines.potence", "a mortal has no disciplines")
    ghoul = write(tmp_path, "g.yaml", "name: G\nkind: ghoul\ndisciplines: {potence: 1}\n")
    zero = write(tmp_path, "z.yaml", "name: Z\ndisciplines: {potence: 0}\n")
    for ok in (ghoul, zero):
        code, _ = run("card", "--attacker", ok, "--against", "thug")
        assert code == 0


# --- places ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "needles"),
    [
        (state_text("{facing: [.nan, 1]}"), ["combatants.Bar Brawler.facing"]),
        (state_text("{at: [4, 0]}"),
         ["state.yaml", "combatants.Bar Brawler.at", "same spot as Knife Fighter"]),
        (state_text("{at: [2, 1]}", scenario="s.yaml"),
         ["combatants.Bar Brawler.at", "stands on wall 0"]),
        (state_text("{at: [2, 0]}",
                    obstacle=f"{{name: fence, kind: low, line: {WALL}, height: 3}}"),
         ["combatants.Bar Brawler.at", "'fence'"]),
    ],
    ids=["facing not finite", "one spot", "on a wall line", "on an obstacle line"],
)
def test_a_state_place_is_refused(tmp_path: Path, text: str, needles: list[str]) -> None:
    write(tmp_path, "s.yaml", scenario_text("[0, 0]", wall=WALL))  # "on a wall line" plays it
    state = write(tmp_path, "state.yaml", text)
    one_line(["state", "show", state], *needles)


@pytest.mark.parametrize(
    ("text", "needles"),
    [
        (scenario_text("[1e308, 0]"), ["combatants.0.at.0", "finite number of yards"]),
        (scenario_text("[.nan, 0]"), ["combatants.0.at.0", "finite number of yards"]),
        (scenario_text("[2, 0]", knife_at="[2, 0]"), ["combatants.1.at", "same spot"]),
        (scenario_text("[2, 0]", wall=WALL), ["combatants.0.at", "stands on wall 0"]),
        (scenario_text("[0, 0]", wall="[[2, 1], [2, 1]]"), ["walls.0", "same point"]),
    ],
    ids=["out of bounds", "not a number", "one spot", "on a wall line", "zero-length wall"],
)
def test_a_scenario_place_is_refused(tmp_path: Path, text: str, needles: list[str]) -> None:
    scenario = write(tmp_path, "s.yaml", text)
    one_line(["fight", scenario], "s.yaml", *needles)


# --- a bite needs a grip -----------------------------------------------------------------


def test_MAN_8_attack_bite_without_a_grip() -> None:
    one_line(["attack", "--attacker", "neonate_brujah", "--defender", "thug",
              "--maneuver", "bite"], "bite needs a grip", "MAN-8")


def test_a_machine_written_state_with_a_position_out_of_bounds(tmp_path: Path) -> None:
    import json

    from vtm_sim.files.scenarios import load_scenario

    data = load_scenario("duel").battle(seed=0).to_state()
    data["combatants"][1]["x"] = float("nan")
    path = tmp_path / "saved.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    for cmd in (["state", "show", str(path)], ["fight", "--state", str(path)]):
        one_line(cmd, "saved.json", "combatants.1.x", "finite number of yards")
