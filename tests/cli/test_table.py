"""``vtm-sim table`` and ``vtm-sim import foundry`` as the contract of issue 33 says:
every command with ``--db`` and ``--json``; bad input one line on stderr, exit 2."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from vtm_sim.cli import main

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "foundry"


def run(*args: str, stdin: str | None = None) -> tuple[int, str]:
    r = CliRunner().invoke(main, list(args), input=stdin)
    assert not isinstance(r.exception, Exception) or isinstance(r.exception, SystemExit), (
        r.exception)
    return r.exit_code, r.output


def ok(*args: str) -> str:
    code, out = run(*args)
    assert code == 0, out
    return out


def one_line(*args: str, needle: str) -> str:
    code, out = run(*args)
    lines = out.strip().splitlines()
    assert code == 2, out
    assert len(lines) == 1, lines
    assert "Traceback" not in out and needle in lines[0], lines[0]
    return lines[0]


@pytest.fixture
def db(tmp_path: Path) -> str:
    path = str(tmp_path / "t.sqlite3")
    ok("table", "new", "duel", "--scenario", "duel", "--pc", "Knife Fighter", "--db", path)
    return path


def show(db: str, name: str = "duel") -> dict[str, object]:
    data: dict[str, object] = json.loads(ok("table", "show", name, "--json", "--db", db))
    return data


def test_the_contract(db: str, tmp_path: Path) -> None:
    s = show(db)
    assert {"name", "turn", "version", "pending", "combatants"} <= set(s)
    pending = s["pending"]
    assert isinstance(pending, dict) and {"actor", "decision", "options"} <= set(pending)
    for c in s["combatants"]:  # type: ignore[attr-defined]
        assert {"name", "health", "status"} <= set(c)
    label = pending["options"][0]
    out = json.loads(ok("table", "choose", "duel", label, "--json", "--db", db))
    assert out["step"]["version"] == 1 and out["table"]["version"] == 1
    ok("table", "choose", "duel", "0", "--db", db)  # by index
    assert show(db)["version"] == 2
    ok("table", "undo", "duel", "--db", db)
    assert show(db)["version"] == 1
    listed = json.loads(ok("table", "list", "--json", "--db", db))
    assert [t["name"] for t in listed] == ["duel"]
    assert "duel: duel, turn 1, version 1" in ok("table", "list", "--db", db)
    state = tmp_path / "state.json"
    ok("table", "export", "duel", "--out", str(state), "--db", db)
    assert json.loads(ok("fight", "--state", str(state), "--json"))["turns"] >= 1
    ok("table", "fork", "duel", "if", "--db", db)
    ok("table", "player", "if", "Knife Fighter", "npc", "--db", db)
    assert "(stopped: the fight is over)" in ok("table", "auto", "if", "--policy", "nearest",
                                                "--db", db)
    assert show(db, "if")["pending"] is None
    assert "Deleted if." in ok("table", "delete", "if", "--db", db)
    steps = json.loads(ok("table", "log", "duel", "--steps", "--json", "--db", db))
    assert len(steps) == 1
    log = ok("table", "log", "duel", "--db", db)
    assert json.loads(log.splitlines()[0])["e"] == "battle"


def test_faces_on_the_command_line(db: str) -> None:
    while True:
        p = show(db)["pending"]
        assert isinstance(p, dict)
        if p["decision"] == "act" and p["actor"] == "Knife Fighter":
            break
        ok("table", "choose", "duel", "0", "--db", db)
    ok("table", "choose", "duel", "strike-bar-brawler-with-the-knife", "--db", db)
    line = one_line("table", "choose", "duel", "take", "--faces", "9", "--db", db,
                    needle="given, expected")
    assert line.startswith("Error: faces: roll 1 of this step (Knife Fighter's attack")
    pool = int(line.split("expected ")[1])
    out = json.loads(ok("table", "choose", "duel", "take", "--faces", ",".join(["10"] * pool),
                        "--json", "--db", db))
    assert out["step"]["rolls"][0]["entered"] is True


@pytest.mark.parametrize(("args", "needle"), [
    (["table", "choose", "duel", "no-such-option"], "not an option of Bar Brawler's"),
    (["table", "choose", "duel", "42"], "expected an index from 0 to"),
    (["table", "choose", "duel", "0", "--faces", "3,4"], "rolls no dice"),
    (["table", "choose", "duel", "0", "--faces", "3,11"], "not a d10 face"),
    (["table", "choose", "duel", "0", "--faces", "3,x"], "expected d10 faces"),
    (["table", "show", "nope"], "no such table"),
    (["table", "choose", "nope", "0"], "no such table"),
    (["table", "choose", "duel", "0", "--version", "5"], "version 5 is stale"),
    (["table", "undo", "duel"], "nothing to undo"),
    (["table", "new", "duel", "--scenario", "duel"], "already"),
    (["table", "new", "x"], "exactly one of"),
    (["table", "new", "x", "--scenario", "duel", "--pc", "Nobody"], "--pc"),
    (["table", "player", "duel", "Knife Fighter", "npc", "--policy", "bogus"], "bogus"),
])
def test_bad_input_is_one_line_exit_2(db: str, args: list[str], needle: str) -> None:
    one_line(*args, "--db", db, needle=needle)


def test_a_bad_database_is_one_line(tmp_path: Path) -> None:
    junk = tmp_path / "junk.sqlite3"
    junk.write_bytes(b"not a database at all" * 100)
    one_line("table", "list", "--db", str(junk), needle="not a table database")


def test_play_reads_piped_commands(db: str) -> None:
    code, out = run("table", "play", "duel", "--db", db,
                    stdin="?\n0\nbogus\n0\nu\na\nq\n")
    assert code == 0, out
    assert "Error: option 'bogus'" in out
    assert "[1] Bar Brawler: Declare 1 action" in out
    assert "(stopped:" in out
    assert show(db)["version"] >= 1


def test_play_asks_again_for_missing_faces(db: str) -> None:
    ok("table", "dice", "duel", "pcs", "--db", db)
    lines = ["0"] * 3 + ["strike-bar-brawler-with-the-knife", "take", "1,1,1,1,1,1,1,1,1",
                         "q"]
    code, out = run("table", "play", "duel", "--db", db, stdin="\n".join(lines) + "\n")
    assert code == 0, out
    assert "faces needed: roll 1 of this step (Knife Fighter's attack" in out


def test_stale_version_in_a_real_process(db: str) -> None:
    """The exit status and the one line as a user sees them (not through CliRunner)."""
    r = subprocess.run([sys.executable, "-c", "from vtm_sim.cli import main; main()",
                        "table", "choose", "duel", "0", "--version", "3", "--db", db],
                       capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 2
    assert r.stdout == ""
    assert r.stderr.count("\n") == 1 and "is at version 0" in r.stderr


@pytest.mark.parametrize("who", ["vampire", "ghoul", "mortal"])
def test_import_foundry_writes_a_sheet_every_command_takes(who: str, tmp_path: Path) -> None:
    sheet = tmp_path / f"{who}.yaml"
    damage = tmp_path / f"{who}.damage.yaml"
    args = ["import", "foundry", str(FIXTURES / f"{who}.json"), "--out", str(sheet),
            "--damage-out", str(damage)]
    if who == "ghoul":
        args += ["--map", "Grandpa's Shotgun=shotgun"]
    code, out = run(*args)
    assert code == 0, out
    data = yaml.safe_load(sheet.read_text())
    assert data["kind"] == who
    ok("sheets", str(sheet))
    ok("fight", str(sheet), "thug", "--seed", "1")
    ok("card", "--attacker", str(sheet), "--against", "thug")
    standing = yaml.safe_load(damage.read_text())
    assert set(standing["damage"]) == {"bashing", "lethal", "aggravated"}
    if who == "ghoul":
        assert data["weapons"] == ["shotgun", "knife"] and standing["blood"] == 3
    if who == "vampire":
        assert data["generation"] == 11 and data["disciplines"]["celerity"] == 2
        assert standing == {"name": "Marcus Vey", "damage": {"bashing": 0, "lethal": 2,
                            "aggravated": 0}, "willpower": 4, "blood": 9}
    db = str(tmp_path / "i.sqlite3")
    ok("table", "new", "t", "--sheet", str(sheet), "--foe", "thug", "--damage", str(damage),
       "--db", db)


def test_import_reports_unknown_items_in_one_line_each(tmp_path: Path) -> None:
    r = subprocess.run([sys.executable, "-c", "from vtm_sim.cli import main; main()",
                        "import", "foundry", str(FIXTURES / "ghoul.json")],
                       capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0
    notes = r.stderr.strip().splitlines()
    assert len(notes) == 1 and "Grandpa's Shotgun" in notes[0] and "--map" in notes[0]
    assert yaml.safe_load(r.stdout)["weapons"] == ["knife"]
    one_line("import", "foundry", str(FIXTURES / "ghoul.json"), "--map", "Grandpa=shotgun",
             needle="no item of that name")
    one_line("import", "foundry", str(FIXTURES / "ghoul.json"), "--map",
             "Grandpa's Shotgun=bazooka", needle="not in the weapon table")
    bad = tmp_path / "bad.json"
    bad.write_text('{"name": "x"}')
    one_line("import", "foundry", str(bad), needle="not a Foundry actor export")
