"""`vtm-sim regress`: golden battles, the readable diff, the balance tier (docs/regress.md)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from vtm_sim.cli import main
from vtm_sim.events import EventLog
from vtm_sim.regress.balance import Tally, check, p_value
from vtm_sim.regress.eventdiff import first_difference, side_by_side
from vtm_sim.regress.suite import MatchupSpec, SuiteSpec

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "golden"

# A small suite (one scenario, both profiles) for the option tests.
SMALL_SUITE = """\
scenarios: [duel]
rules: [v20, dark_ages]
battles:
  nearest: [0, 1]
keep_log: {policy: nearest, seed: 0}
balance:
  false_alarm: 0.01
  matchups:
    - {scenario: duel, a: nearest, b: random, battles: 30, seed: 5}
"""


def _small_suite(tmp_path: Path) -> Path:
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "suite.yaml").write_text(SMALL_SUITE, encoding="utf-8")
    result = CliRunner().invoke(main, ["regress", "--suite", str(suite), "--update"])
    assert result.exit_code == 0, result.output
    return suite


def _copy_tree(tmp_path: Path, *, balance: bool = False) -> Path:
    """The engine, its configs and the committed suite, copied (without the balance
    match-ups unless asked: the golden tier is what prints the diff)."""
    tree = tmp_path / "tree"
    ignore = shutil.ignore_patterns("__pycache__", "*.so", "*.pyd")
    shutil.copytree(ROOT / "vtm_sim", tree / "vtm_sim", ignore=ignore)
    shutil.copytree(ROOT / "configs", tree / "configs")
    shutil.copytree(GOLDEN, tree / "tests" / "golden")
    if not balance:
        suite = tree / "tests" / "golden" / "suite.yaml"
        text = suite.read_text(encoding="utf-8")
        suite.write_text(text.split("balance:")[0], encoding="utf-8")
    return tree


def _regress_in(tree: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`vtm-sim regress` run from ``tree`` with that tree's engine and configs."""
    env = {k: v for k, v in os.environ.items() if k != "VTM_SIM_CONFIGS"}
    env["PYTHONPATH"] = str(tree)
    code = "import sys; from vtm_sim.cli import main; sys.argv[0] = 'vtm-sim'; main()"
    return subprocess.run([sys.executable, "-c", code, "regress", *args], cwd=tree, env=env,
                          capture_output=True, text=True, timeout=600)


def _columns(block: str) -> tuple[str, str]:
    """The two columns of a side-by-side diff, each joined into one line of words."""
    left, right = [], []
    for line in block.splitlines():
        if " | " in line:
            a, _, b = line.partition(" | ")
            left.append(a.strip())
            right.append(b.strip())
    return " ".join(left), " ".join(right)


def _edit(path: Path, pattern: str, repl: str) -> None:
    text = path.read_text(encoding="utf-8")
    new, n = re.subn(pattern, repl, text, count=1, flags=re.MULTILINE)
    assert n == 1, pattern
    path.write_text(new, encoding="utf-8")


# --- the committed suite ------------------------------------------------------------------


def test_committed_suite_passes_as_ci_runs_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """The default `vtm-sim regress` (tests/golden, both tiers) from the repository root."""
    monkeypatch.chdir(ROOT)
    result = CliRunner().invoke(main, ["regress"])
    assert result.exit_code == 0, result.output
    assert "OK: every battle matches its golden and the balance holds." in result.output
    assert "Balance: 5 match-ups, false-alarm rate 0.01" in result.output


def test_committed_suite_covers_every_scenario_and_both_profiles() -> None:
    from vtm_sim.data.rules import PROFILES
    from vtm_sim.files.scenarios import list_scenarios

    ids = [json.loads(line)["id"] for line in
           (GOLDEN / "battles.jsonl").read_text(encoding="utf-8").splitlines()]
    assert {i.split("/")[0] for i in ids} == set(list_scenarios())
    assert {i.split("/")[1] for i in ids} == set(PROFILES)
    kept = sorted(p.stem for p in (GOLDEN / "logs").glob("*.jsonl"))
    assert kept == list_scenarios()


def test_weapon_damage_change_fails_with_the_first_differing_event(tmp_path: Path) -> None:
    tree = _copy_tree(tmp_path)
    _edit(tree / "configs" / "weapons.yaml", r"^(knife: +\{class: melee, strength_bonus: )1",
          r"\g<1>2")
    out = _regress_in(tree)
    assert out.returncode == 1, out.stdout + out.stderr
    text = out.stdout
    assert "FAILED:" in text and "vtm-sim regress --update" in text
    # the duel's kept log: the knife's damage roll, one die more, side by side
    duel = text[text.index("duel/v20/nearest/0: the log differs"):]
    block = duel[: duel.index("\n", duel.index("story so far:"))]
    assert "golden" in block and "| now" in block
    assert "who: Knife Fighter" in block
    assert block.count("what: roll (damage)") == 2
    dice = re.search(r"dice: (\d+) dice -> [0-9 ]+: \d+ success\w* +\| dice: (\d+) dice -> ", block)
    assert dice is not None, block
    assert int(dice[2]) == int(dice[1]) + 1  # the knife's Strength + 2 instead of + 1


def test_maneuver_difficulty_change_fails_with_the_first_differing_event(
        tmp_path: Path) -> None:
    tree = _copy_tree(tmp_path)
    _edit(tree / "configs" / "maneuvers.yaml", r"^(kick:\n(?:  .*\n)*?  difficulty: )1",
          r"\g<1>2")
    out = _regress_in(tree)
    assert out.returncode == 1, out.stdout + out.stderr
    text = out.stdout
    duel = text[text.index("duel/v20/nearest/0: the log differs"):]
    block = duel[: duel.index("\n", duel.index("story so far:"))]
    assert "who: Bar Brawler" in block
    # the first difference: the Brawler no longer kicks (it is harder now)
    golden, now = _columns(block)
    assert "what: decides (act): {kind attack, maneuver kick, target Knife Fighter}" in golden
    assert re.search(r"what: decides \(act\): \{kind attack, maneuver (?!kick)\w+", now), now


# --- the options -----------------------------------------------------------------------------


def test_update_writes_the_goldens_and_a_second_run_passes(tmp_path: Path) -> None:
    suite = _small_suite(tmp_path)
    assert (suite / "battles.jsonl").is_file()
    assert (suite / "logs" / "duel.jsonl").is_file()
    assert json.loads((suite / "balance.json").read_text())["false_alarm"] == 0.01
    result = CliRunner().invoke(main, ["regress", "--suite", str(suite)])
    assert result.exit_code == 0, result.output
    assert "all 4 as committed" in result.output


def test_update_prints_what_changed_readably(tmp_path: Path) -> None:
    suite = _small_suite(tmp_path)
    # pretend the committed duel went otherwise: another damage roll in its kept log
    kept = suite / "logs" / "duel.jsonl"
    lines = kept.read_text(encoding="utf-8").splitlines()
    n = next(i for i, line in enumerate(lines) if '"what":"damage"' in line)
    roll = json.loads(lines[n])
    roll["faces"] = [1] * len(roll["faces"])
    roll["succ"] = 0
    lines[n] = json.dumps(roll, separators=(",", ":"))
    kept.write_text("\n".join(lines) + "\n", encoding="utf-8")
    goldens = (suite / "battles.jsonl").read_text(encoding="utf-8")
    (suite / "battles.jsonl").write_text(goldens.replace('"sha256": "', '"sha256": "0', 1),
                                         encoding="utf-8")
    result = CliRunner().invoke(main, ["regress", "--suite", str(suite), "--update"])
    assert result.exit_code == 0, result.output
    out = result.output
    assert "Updated the goldens" in out and "1 of 4 battles changed" in out
    assert f"first differing event (event {n + 1}):" in out
    assert re.search(r"before +\| after", out)
    assert re.search(r"dice: \d+ dice -> 1 1[ 1]*: 0 successes +\| dice: ", out)
    assert "duel: nearest vs random: unchanged, win rate" in out
    # and the rewritten goldens pass
    assert CliRunner().invoke(main, ["regress", "--suite", str(suite)]).exit_code == 0


def test_json_output(tmp_path: Path) -> None:
    suite = _small_suite(tmp_path)
    result = CliRunner().invoke(main, ["regress", "--suite", str(suite), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["ok"] is True and data["updated"] is False
    assert data["battles"] == 4 and data["changes"] == []
    assert data["balance"]["false_alarm"] == 0.01
    (m,) = data["balance"]["matchups"]
    assert m["id"] == "duel: nearest vs random" and m["ok"] is True
    assert m["old"] == m["new"] and m["new"]["battles"] == 30
    assert 0 <= m["new"]["ci95"][0] <= m["new"]["rate"] <= m["new"]["ci95"][1] <= 1


def test_json_output_of_a_difference_exits_1(tmp_path: Path) -> None:
    suite = _small_suite(tmp_path)
    goldens = suite / "battles.jsonl"
    goldens.write_text(goldens.read_text().replace('"turns": ', '"turns": 9', 1))
    result = CliRunner().invoke(main, ["regress", "--suite", str(suite), "--json"])
    assert result.exit_code == 1
    data = json.loads(result.output)
    assert data["ok"] is False
    (change,) = data["changes"]
    assert change["kind"] == "changed" and change["id"] == "duel/v20/nearest/0"


def test_a_shifted_balance_fails(tmp_path: Path) -> None:
    suite = _small_suite(tmp_path)
    path = suite / "balance.json"
    data = json.loads(path.read_text())
    item = data["matchups"][0]
    n = item["wins"] + item["draws"] + item["losses"]
    item["wins"], item["draws"], item["losses"] = n, 0, 0  # the baseline: a always won
    path.write_text(json.dumps(data))
    result = CliRunner().invoke(main, ["regress", "--suite", str(suite)])
    assert result.exit_code == 1
    assert "duel: nearest vs random: BALANCE SHIFTED" in result.output
    assert re.search(r"baseline: win rate 1\.000 \[0\.\d+, 1\.000\]", result.output)
    assert "1 match-ups' balance shifted" in result.output


@pytest.mark.parametrize("what", ["missing folder", "missing suite.yaml", "bad suite key",
                                  "corrupt battles.jsonl", "corrupt balance.json",
                                  "missing kept log", "unknown policy"])
def test_bad_suite_is_one_line_exit_2(tmp_path: Path, what: str) -> None:
    suite = _small_suite(tmp_path)
    expect = {"missing folder": "--suite: ", "missing suite.yaml": "suite.yaml: file not found",
              "bad suite key": "suite.yaml: seeds: unknown key",
              "corrupt battles.jsonl": "battles.jsonl: line 2: not JSON",
              "corrupt balance.json": "balance.json: not JSON",
              "missing kept log": "duel.jsonl: file not found",
              "unknown policy": "policy 'grandmaster' is unknown"}[what]
    target = suite
    if what == "missing folder":
        target = tmp_path / "nowhere"
    elif what == "missing suite.yaml":
        (suite / "suite.yaml").unlink()
    elif what == "bad suite key":
        (suite / "suite.yaml").write_text(SMALL_SUITE + "seeds: 3\n")
    elif what == "corrupt battles.jsonl":
        lines = (suite / "battles.jsonl").read_text().splitlines()
        lines[1] = lines[1][:40]
        (suite / "battles.jsonl").write_text("\n".join(lines) + "\n")
    elif what == "corrupt balance.json":
        (suite / "balance.json").write_text("{not json")
    elif what == "missing kept log":
        (suite / "logs" / "duel.jsonl").unlink()
        goldens = suite / "battles.jsonl"  # the kept battle differs, so its log is read
        goldens.write_text(goldens.read_text().replace('"sha256": "', '"sha256": "0', 1))
    elif what == "unknown policy":
        (suite / "suite.yaml").write_text(SMALL_SUITE.replace("nearest: [0, 1]",
                                                              "grandmaster: [0]"))
    result = CliRunner().invoke(main, ["regress", "--suite", str(target)])
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: ") and expect in lines[0], lines


# --- the pieces ---------------------------------------------------------------------------------


def test_first_difference_tells_both_events_in_words() -> None:
    old = list(EventLog.read(GOLDEN / "logs" / "duel.jsonl"))
    n = next(i for i, ev in enumerate(old) if ev.to_json().get("what") == "damage")
    data = old[n].to_json()
    data["faces"] = [10] * len(data["faces"])
    new = [*old[:n], type(old[n]).from_json(data), *old[n + 1:]]
    diff = first_difference(old, new)
    assert diff is not None and diff.index == n
    text = "\n".join(side_by_side(diff))
    assert text.count("what: roll (damage)") == 2
    assert f"event {n + 1}, turn " in text
    assert first_difference(old, list(old)) is None
    shorter = first_difference(old, old[:-1])
    assert shorter is not None and shorter.new is None
    assert "(the log has ended)" in "\n".join(side_by_side(shorter))


def test_balance_check_flags_a_shift_and_passes_the_same_rate() -> None:
    m = MatchupSpec(scenario="duel", a="nearest", b="random", battles=400)
    spec = SuiteSpec.model_validate({"battles": {"nearest": [0]},
                                     "balance": {"false_alarm": 0.01, "matchups": [m]}})
    key = json.dumps(m.model_dump(), sort_keys=True)
    base = Tally(200, 0, 200)
    (same,) = check(spec, {key: base}, [(m, Tally(200, 0, 200))])
    (near,) = check(spec, {key: base}, [(m, Tally(215, 0, 185))])
    (far,) = check(spec, {key: base}, [(m, Tally(260, 0, 140))])
    assert same.ok and same.p_value == 1.0
    assert near.ok  # within chance at level 0.01
    assert not far.ok and far.p_value < 0.01
    assert p_value(base, Tally(260, 0, 140)) == far.p_value
