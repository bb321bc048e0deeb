"""Tournaments: every pairing on both sides on the same seeds, per-seat results with
intervals and ratings, the output directory, --jobs, --resume and Ray."""

from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from vtm_sim.arena.results import interval, summarize, table_lines
from vtm_sim.arena.tournament import Setup, play_all
from vtm_sim.cli import main
from vtm_sim.cli.tournaments import policy_maker
from vtm_sim.errors import ConfigError
from vtm_sim.files.scenarios import load_scenario
from vtm_sim.policies.play import play

SMALL = ["--policies", "nearest,random", "--battles", "4"]
FILES = ("tournament.json", "battles.jsonl", "results.json", "results.csv", "heatmap.png",
         "timing.json")


def invoke(*args: str) -> Result:
    return CliRunner().invoke(main, ["tournament", *args])


def one_line_error(result: Result, *needles: str) -> str:
    """Bad input: exit 2, one line, no traceback."""
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.output, result.output
    for n in needles:
        assert n in lines[0], lines[0]
    return lines[0]


def results_of(out: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((out / "results.json").read_text())
    return data


# --- the library ----------------------------------------------------------------------


def test_interval_is_the_wilson_score_interval() -> None:
    lo, hi = interval(5, 10)
    assert lo == pytest.approx(0.2366, abs=1e-4) and hi == pytest.approx(0.7634, abs=1e-4)
    lo, hi = interval(10, 10)
    assert hi == pytest.approx(1.0) and lo == pytest.approx(0.7225, abs=1e-4)
    assert interval(0, 0) == (0.0, 1.0)


def test_every_rate_interval_comes_from_one_helper() -> None:
    """Tournaments, regress's balance tier and evaluations print the same interval."""
    from agents.evaluation import wilson95
    from vtm_sim.arena.intervals import wilson
    from vtm_sim.regress.balance import Tally

    z = 1.959963984540054
    for k, n in ((3, 10), (517, 1000), (0, 7)):
        p = k / n
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z * (p * (1 - p) / n + z * z / (4 * n * n)) ** 0.5 / (1 + z * z / n)
        assert wilson(k, n) == pytest.approx((centre - half, centre + half), abs=1e-9)
        assert interval(k, n) == wilson(k, n) == wilson95(k, n)
        assert Tally(k, 0, n - k).interval() == wilson(k, n)


def test_DICE_9_pairings_replay_the_same_seeded_battles() -> None:
    """A policy against itself plays exactly `play` on seeds S..S+N-1, same logs."""
    sc = load_scenario("duel")
    records = play_all(Setup(("duel",), ("nearest",), 12, 3), [sc], policy_maker)
    assert [r["seed"] for r in records] == list(range(3, 15))
    for r in records:
        battle = play(sc.battle(seed=r["seed"]))
        assert (r["winner"], r["turns"], r["log_sha256"]) == (
            battle.winner, battle.turn, battle.log.sha256())


def test_every_pairing_plays_both_sides_on_the_same_seeds() -> None:
    sc = load_scenario("knife_duel")
    setup = Setup(("knife_duel",), ("nearest", "random"), 6, 0)
    records = play_all(setup, [sc], policy_maker)
    seats = sorted({(r["seats"]["0"], r["seats"]["1"]) for r in records})
    assert seats == [("nearest", "nearest"), ("nearest", "random"), ("random", "nearest"),
                     ("random", "random")]
    for pair in seats:
        assert sorted(r["seed"] for r in records if (r["seats"]["0"], r["seats"]["1"]) == pair
                      ) == list(range(6))
    res = summarize(setup, [sc], records)
    rows = {r["policy"]: r for r in res["table"]}
    # standings count games against the other policy, on each side
    assert rows["nearest"]["games"] == 12 and [s["games"] for s in rows["nearest"]["seats"]
                                               ] == [6, 6]
    assert rows["nearest"]["wins"] == rows["random"]["losses"]
    pairing = next(p for p in res["pairings"] if p["policies"] == ["nearest", "random"])
    assert [s["side"] for s in pairing["seats"]] == [0, 1] and pairing["games"] == 12
    assert sum(s["wins"] for s in pairing["seats"]) == pairing["wins"]
    text = "\n".join(table_lines(res))
    assert "95% interval" in text and "win as 0" in text and "Pairings on knife_duel" in text


def test_records_are_the_same_in_any_order() -> None:
    """Results depend on the records, not on the order battles finished in."""
    sc = load_scenario("duel")
    setup = Setup(("duel",), ("nearest", "tactician"), 5, 1)
    records = play_all(setup, [sc], policy_maker)
    assert summarize(setup, [sc], records) == summarize(setup, [sc], records[::-1])


def test_unknown_policy_is_a_config_error() -> None:
    sc = load_scenario("duel")
    with pytest.raises(ConfigError,
                       match=r"--policies: unknown policy 'genius' \(expected one of nearest"):
        play_all(Setup(("duel",), ("nearest", "genius"), 1, 0), [sc], policy_maker)


# --- the command ----------------------------------------------------------------------


def test_the_default_line_up_is_the_ladder_and_the_shipped_trained_policy() -> None:
    """The README's main job (`vtm-sim tournament`, run as written by .ci/run; under a
    minute on two cores, experiments/bench_quickstart.py) plays the ladder's rungs,
    weakest first, the top one the planner at its full budget, and the trained policy
    shipped for the scenario."""
    from agents.registered import shipped
    from vtm_sim.cli.tournaments import default_policies
    from vtm_sim.policies.rungs import rungs

    names = default_policies(("duel",)).split(",")
    assert names[: len(rungs())] == list(rungs()) and "planner" in names
    assert ("trained:duel" in names) == ("duel" in shipped())


def test_the_defaults_are_every_core_and_forty_battles_a_side(tmp_path: Path) -> None:
    """`vtm-sim tournament` plays 40 seeded battles a side (the default line-up's 1,000,
    under a minute on a quiet 2-core machine: experiments/bench_quickstart.py) on a
    worker for every core it may use, and says how many it played, in how long, where."""
    from vtm_sim.arena.backends import usable_cpus
    from vtm_sim.cli.tournaments import DEFAULT_BATTLES

    assert DEFAULT_BATTLES == 40
    out = invoke("--policies", "nearest,random", "--out", str(tmp_path))
    assert out.exit_code == 0, out.output
    assert "40 seeded battles a side (seeds 0..39), 160 battles." in out.output
    timing = json.loads((tmp_path / "timing.json").read_text())
    assert timing["jobs"] == usable_cpus() and timing["battles_played"] == 160
    n = usable_cpus()
    where = "1 process (--jobs 1)" if n == 1 else f"{n} worker processes (--jobs {n})"
    last = out.output.strip().splitlines()[-1]
    assert last.startswith("Played 160 battles in ") and last.endswith(f" s on {where}."), last


def test_usable_cpus_is_the_affinity_mask(monkeypatch: pytest.MonkeyPatch) -> None:
    """The default --jobs counts the cores this process may run on (a container's or
    taskset's limit), not every core of the machine."""
    from vtm_sim.arena import backends

    monkeypatch.delattr(backends.os, "process_cpu_count", raising=False)
    monkeypatch.setattr(backends.os, "sched_getaffinity", lambda _pid: {0, 3, 5},
                        raising=False)
    monkeypatch.setattr(backends.os, "cpu_count", lambda: 64)
    assert backends.usable_cpus() == 3
    monkeypatch.delattr(backends.os, "sched_getaffinity")
    assert backends.usable_cpus() == 64
    monkeypatch.setattr(backends.os, "cpu_count", lambda: None)
    assert backends.usable_cpus() == 1


def test_the_played_line_says_what_this_run_played() -> None:
    from vtm_sim.cli.tournaments import played_line

    assert played_line(1250, 0, 48.04, 2, "local", None) == (
        "Played 1250 battles in 48.0 s on 2 worker processes (--jobs 2).")
    assert played_line(1, 0, 0.5, 1, "local", None) == (
        "Played 1 battle in 0.5 s on 1 process (--jobs 1).")
    assert played_line(300, 950, 12.0, 4, "ray", "runs/x") == (
        "Played 300 battles in 12.0 s on 4 Ray CPUs; 950 more were already in runs/x.")


def test_the_table_shows_each_side() -> None:
    out = invoke("--policies", "nearest,tactician,random", "--jobs", "1")
    assert out.exit_code == 0, out.output
    assert "Tournament on duel: 3 policies" in out.output
    assert "40 seeded battles a side (seeds 0..39), 360 battles" in out.output
    assert "win as 0" in out.output and "win as 1" in out.output
    assert "0: Brawler; 1: Knife fighter" in out.output
    for name in ("nearest", "tactician", "random"):
        assert name in out.output
    assert "\r" not in out.output  # no progress bar when not on a terminal


def test_out_writes_every_file(tmp_path: Path) -> None:
    out = invoke(*SMALL, "--seed", "5", "--jobs", "1", "--out", str(tmp_path / "run"))
    assert out.exit_code == 0, out.output
    run = tmp_path / "run"
    for name in FILES:
        assert (run / name).is_file(), name
    data = results_of(run)
    for key in ("policies", "scenarios", "seed", "battles", "pairings", "ratings", "table"):
        assert key in data
    assert data["seed"] == 5 and data["battles"] == 4 and data["policies"] == ["nearest", "random"]
    assert data["scenarios"][0]["name"] == "duel" and data["scenarios"][0]["rules"] == "v20"
    for p in ("nearest", "random"):
        assert set(data["ratings"][p]) == {"mu", "sigma", "ordinal"}
    assert data["ratings"]["nearest"]["mu"] > data["ratings"]["random"]["mu"]
    for pairing in data["pairings"]:
        assert [s["side"] for s in pairing["seats"]] == [0, 1]
        for s in pairing["seats"]:
            lo, hi = s["win_ci95"]
            assert lo <= s["win_rate"] <= hi
            assert {"mean_turns", "mean_levels_dealt", "draw_ci95", "loss_ci95"} <= set(s)
    assert "time" not in json.dumps(data) and "jobs" not in json.dumps(data)
    lines = (run / "battles.jsonl").read_text().splitlines()
    assert len(lines) == data["games"] == 4 * 4
    rec = json.loads(lines[0])
    assert {"seed", "seats", "policies", "winner", "turns", "log_sha256"} <= set(rec)
    assert {r["seed"] for r in map(json.loads, lines)} == {5, 6, 7, 8}
    rows = list(csv.DictReader((run / "results.csv").open()))
    assert len(rows) == 2 * 2 * 2 and rows[0]["win_lo"] and rows[0]["side"] in ("0", "1")
    assert (run / "heatmap.png").read_bytes()[:4] == b"\x89PNG"
    timing = json.loads((run / "timing.json").read_text())
    assert timing["jobs"] == 1 and timing["battles_played"] == 16


def test_heatmap_is_skipped_in_one_line_without_matplotlib(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("vtm_sim.arena.heatmap.have_matplotlib", lambda: False)
    out = invoke(*SMALL, "--out", str(tmp_path / "run"))
    assert out.exit_code == 0, out.output
    notes = [ln for ln in out.output.splitlines() if "heatmap.png" in ln]
    assert len(notes) == 1 and "[plots]" in notes[0]
    assert not (tmp_path / "run" / "heatmap.png").exists()
    assert (tmp_path / "run" / "results.json").exists()


def test_json_prints_results_json(tmp_path: Path) -> None:
    out = CliRunner().invoke(main, ["tournament", *SMALL, "--json", "--out", str(tmp_path)])
    assert out.exit_code == 0, out.output
    assert json.loads(out.output) == results_of(tmp_path)


def test_several_scenarios_each_get_their_pairings() -> None:
    out = invoke("duel", "knife_duel", *SMALL, "--json")
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert [s["name"] for s in data["scenarios"]] == ["duel", "knife_duel"]
    assert {p["scenario"] for p in data["pairings"]} == {"duel", "knife_duel"}
    assert data["games"] == 2 * 4 * 4
    text = invoke("duel", "knife_duel", *SMALL)
    assert "Pairings on duel" in text.output and "Pairings on knife_duel" in text.output


def test_results_name_scenario_files_alike_on_every_machine(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """results.json holds nothing that depends on where the checkout or the run is."""
    (tmp_path / "mine.yaml").write_text(
        (Path(__file__).resolve().parents[2] / "configs" / "scenarios" / "duel.yaml").read_text())
    monkeypatch.chdir(tmp_path)
    out = invoke("duel", "mine.yaml", *SMALL, "--json")
    assert out.exit_code == 0, out.output
    files = [s["file"] for s in json.loads(out.output)["scenarios"]]
    assert files == ["configs/scenarios/duel.yaml", "mine.yaml"]


def test_results_do_not_depend_on_jobs(tmp_path: Path) -> None:
    """DICE-9: battle seeds come from --seed and the index, never from the worker."""
    args = ["--policies", "nearest,tactician,random", "--battles", "7", "--seed", "11"]
    one = invoke(*args, "--jobs", "1", "--out", str(tmp_path / "j1"))
    two = invoke(*args, "--jobs", "2", "--out", str(tmp_path / "j2"))
    assert one.exit_code == 0 and two.exit_code == 0, (one.output, two.output)
    assert (tmp_path / "j1" / "results.json").read_bytes() == (
        tmp_path / "j2" / "results.json").read_bytes()
    assert (tmp_path / "j1" / "results.csv").read_bytes() == (
        tmp_path / "j2" / "results.csv").read_bytes()
    lines = [sorted((tmp_path / d / "battles.jsonl").read_text().splitlines())
             for d in ("j1", "j2")]
    assert lines[0] == lines[1]
    assert json.loads((tmp_path / "j2" / "timing.json").read_text())["jobs"] == 2


def test_the_default_line_up_plays_the_same_battles_on_any_number_of_workers(
        tmp_path: Path) -> None:
    """The README's main job as the default runs it (a worker a core) and on one process
    and three: the same battles, record for record (seeded_battle: the planner's own
    rollout seeds come from the battle's seed too), and the same results.json."""
    runs = {}
    for jobs in ("1", "3"):
        out = invoke("--battles", "1", "--seed", "4", "--jobs", jobs,
                     "--out", str(tmp_path / jobs))
        assert out.exit_code == 0, out.output
        runs[jobs] = sorted((tmp_path / jobs / "battles.jsonl").read_text().splitlines())
    assert runs["1"] == runs["3"] and len(runs["1"]) == 25  # 5 policies: 10 pairs x 2 + 5
    assert (tmp_path / "1" / "results.json").read_bytes() == (
        tmp_path / "3" / "results.json").read_bytes()


def test_bad_input_is_one_line(tmp_path: Path) -> None:
    one_line_error(invoke("--policies", "nearest,genius"), "--policies", "genius")
    one_line_error(invoke("no_such_scenario"), "no_such_scenario")
    one_line_error(invoke("--policies", "nearest,model:/no/such.zip"), "cannot load")
    one_line_error(invoke("--policies", "nearest,nearest"), "named twice")
    one_line_error(invoke("duel", "duel"), "named twice")
    one_line_error(invoke("--jobs", "0"), "--jobs")
    one_line_error(invoke("--battles", "0"), "--battles")
    one_line_error(invoke("--backend", "mpi"), "--backend")
    one_line_error(invoke("--address", "127.0.0.1:6379"), "--address", "--backend ray")
    one_line_error(invoke("--resume"), "--resume", "--out")
    one_line_error(invoke(*SMALL, "--resume", "--out", str(tmp_path / "none")), "--resume",
                   "tournament.json")


def test_a_finished_directory_is_not_overwritten(tmp_path: Path) -> None:
    assert invoke(*SMALL, "--out", str(tmp_path)).exit_code == 0
    before = (tmp_path / "battles.jsonl").read_bytes()
    one_line_error(invoke(*SMALL, "--out", str(tmp_path)), "--resume")
    assert (tmp_path / "battles.jsonl").read_bytes() == before
    again = invoke(*SMALL, "--out", str(tmp_path), "--resume", "--json")
    assert again.exit_code == 0 and json.loads(again.output) == results_of(tmp_path)
    assert json.loads((tmp_path / "timing.json").read_text())["battles_played"] == 0


@pytest.mark.parametrize(("option", "value", "shown"), [
    ("--battles", "5", "--battles 4, not 5"),
    ("--seed", "1", "--seed 0, not 1"),
    ("--policies", "nearest,tactician", "--policies nearest,random, not nearest,tactician"),
])
def test_resume_with_other_arguments_is_refused(tmp_path: Path, option: str, value: str,
                                                shown: str) -> None:
    assert invoke(*SMALL, "--out", str(tmp_path)).exit_code == 0
    args = dict(zip(SMALL[::2], SMALL[1::2], strict=True)) | {option: value}
    flat = [x for kv in args.items() for x in kv]
    one_line_error(invoke(*flat, "--out", str(tmp_path), "--resume"), "--resume", shown)
    one_line_error(invoke("knife_duel", *SMALL, "--out", str(tmp_path), "--resume"),
                   "SCENARIO duel, not knife_duel")


def test_resume_finishes_a_cut_run_with_the_same_results(tmp_path: Path) -> None:
    """Battles kept in battles.jsonl are not played again; the rest are; an unfinished
    last line (a write cut short) is dropped and played again."""
    args = [*SMALL, "--battles", "6"]
    assert invoke(*args, "--out", str(tmp_path / "whole")).exit_code == 0
    assert invoke(*args, "--out", str(tmp_path / "cut")).exit_code == 0
    cut = tmp_path / "cut" / "battles.jsonl"
    lines = cut.read_text().splitlines(keepends=True)
    kept = lines[:9]
    cut.write_text("".join(kept) + lines[9][:25])
    out = invoke(*args, "--out", str(tmp_path / "cut"), "--resume")
    assert out.exit_code == 0, out.output
    assert "dropped an unfinished last line" in out.output
    assert results_of(tmp_path / "cut") == results_of(tmp_path / "whole")
    assert (tmp_path / "cut" / "results.json").read_bytes() == (
        tmp_path / "whole" / "results.json").read_bytes()
    after = cut.read_text().splitlines(keepends=True)
    assert after[:9] == kept and len(after) == len(lines)
    assert json.loads((tmp_path / "cut" / "timing.json").read_text())["battles_played"] == (
        len(lines) - 9)


@pytest.mark.parametrize("bad", [
    "not json at all\n",
    '{"scenario": "duel"}\n',
    None,  # a repeated battle
])
def test_a_corrupt_battles_line_is_one_line_and_loses_nothing(tmp_path: Path,
                                                              bad: str | None) -> None:
    assert invoke(*SMALL, "--out", str(tmp_path)).exit_code == 0
    path = tmp_path / "battles.jsonl"
    lines = path.read_text().splitlines(keepends=True)
    lines.insert(3, lines[0] if bad is None else bad)
    path.write_text("".join(lines))
    before = path.read_bytes()
    line = one_line_error(invoke(*SMALL, "--out", str(tmp_path), "--resume"), "line 4")
    assert str(path) in line
    assert path.read_bytes() == before  # nothing dropped or rewritten


def test_backend_ray_without_ray_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray -> ImportError
    one_line_error(invoke(*SMALL, "--backend", "ray"), "--backend ray", "[ray]")


def test_backend_ray_gives_the_local_results(tmp_path: Path) -> None:
    """A local Ray instance (2 CPUs) runs the chunks as Ray tasks: same results.json."""
    pytest.importorskip("ray")
    args = [*SMALL, "--battles", "5"]
    local = invoke(*args, "--out", str(tmp_path / "local"))
    ray = invoke(*args, "--backend", "ray", "--jobs", "2", "--out", str(tmp_path / "ray"))
    assert local.exit_code == 0 and ray.exit_code == 0, (local.output, ray.output)
    assert (tmp_path / "ray" / "results.json").read_bytes() == (
        tmp_path / "local" / "results.json").read_bytes()


def test_evaluate_backend_ray_gives_the_local_results() -> None:
    """`vtm-sim evaluate --backend ray` (issue 11's scale-out covers evaluation too)."""
    pytest.importorskip("ray")
    args = ["evaluate", "trained:duel", "--opponents", "nearest", "--episodes", "4", "--json"]
    local = CliRunner().invoke(main, args)
    ray = CliRunner().invoke(main, [*args, "--backend", "ray", "--jobs", "2"])
    assert local.exit_code == 0 and ray.exit_code == 0, (local.output, ray.output)
    assert json.loads(ray.stdout[ray.stdout.index("{"):]) == json.loads(
        local.stdout[local.stdout.index("{"):])


def test_progress_bar_on_a_terminal_only(monkeypatch: pytest.MonkeyPatch) -> None:
    from vtm_sim.cli import tournaments

    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    bar = tournaments._progress(10, 2, quiet=False)
    assert type(bar).__name__ == "tqdm" and bar.n == 2
    bar.close()
    assert type(tournaments._progress(10, 2, quiet=True)).__name__ == "_Quiet"


def test_startup_imports_no_tournament_libraries() -> None:
    """scipy, openskill, tqdm, matplotlib and ray load only when a tournament runs."""
    code = ("import sys, vtm_sim.cli\n"
            "print(','.join(m for m in ('scipy', 'openskill', 'tqdm', 'matplotlib', 'ray')"
            " if m in sys.modules))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == ""


def test_a_killed_run_resumes_to_the_uninterrupted_results(tmp_path: Path) -> None:
    """A real `vtm-sim tournament` process killed (SIGKILL) mid-run: --resume loses and
    repeats no battle, and its results.json is byte for byte an uninterrupted run's."""
    args = ["--policies", "nearest,random", "--battles", "60", "--seed", "2"]
    assert invoke(*args, "--out", str(tmp_path / "whole")).exit_code == 0
    whole = (tmp_path / "whole" / "results.json").read_bytes()
    total = results_of(tmp_path / "whole")["games"]
    run = tmp_path / "killed"
    cmd = [sys.executable, "-c", "from vtm_sim.cli import main; main()", "tournament", *args,
           "--out", str(run)]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    battles = run / "battles.jsonl"
    deadline = time.monotonic() + 120
    try:
        while time.monotonic() < deadline and proc.poll() is None:
            if battles.exists() and battles.read_bytes().count(b"\n") >= 40:
                break
            time.sleep(0.02)
        assert proc.poll() is None, "the run ended before it could be killed"
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait()
    kept = battles.read_text().splitlines()
    assert 40 <= len(kept) < total
    out = invoke(*args, "--out", str(run), "--resume")
    assert out.exit_code == 0, out.output
    final = battles.read_text().splitlines()
    assert final[: len(kept)] == kept and len(final) == total == len(set(final))
    assert (run / "results.json").read_bytes() == whole
