"""The local pool's workers stop with the tournament: at once when it stops early (Ctrl-C,
an error), on their own when its process is killed. A tournament runs a worker a core by
default, so these are the default's paths, not only --jobs's."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from vtm_sim.arena.backends import LocalPool
from vtm_sim.arena.tournament import Chunk, play_chunk
from vtm_sim.cli.tournaments import policy_maker
from vtm_sim.files.scenarios import load_scenario


def alive(pid: int) -> bool:
    """Running (a zombie left to an init that does not reap is not running)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state not in ("Z", "X")


def descendants(pid: int, *, below: int = 0) -> set[int]:
    """The processes under ``pid``, past the first ``below`` generations."""
    out = subprocess.run(["ps", "-eo", "pid=,ppid="], capture_output=True, text=True,
                         check=True).stdout.split()
    children: dict[int, list[int]] = {}
    for child, parent in zip(out[::2], out[1::2], strict=True):
        children.setdefault(int(parent), []).append(int(child))
    found: set[int] = set()
    todo = [(pid, 0)]
    while todo:
        p, depth = todo.pop()
        for c in children.get(p, []):
            if depth >= below:
                found.add(c)
            todo.append((c, depth + 1))
    return found


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_a_pool_stopped_early_stops_its_workers_at_once() -> None:
    """The caller stops reading (what Ctrl-C or an error does to play_all): the workers
    still playing planner battles are terminated, not waited for."""
    sc = load_scenario("duel")
    quick = Chunk(sc.source, ("nearest", "random"), ("nearest", "random"), 0, (0,),
                  policy_maker)
    slow = [Chunk(sc.source, ("planner", "random"), ("planner", "random"), 0,
                  tuple(range(k * 50, k * 50 + 50)), policy_maker) for k in range(4)]
    # the workers are the forkserver's children; it and the resource tracker (this
    # process's children) live as long as this process
    before = descendants(os.getpid(), below=1)
    run = LocalPool(2).run(play_chunk, [quick, *slow])
    assert len(next(run)) == 1
    workers = descendants(os.getpid(), below=1) - before
    assert len(workers) == 2, workers
    assert any(alive(p) for p in workers)
    start = time.monotonic()
    run.close()  # GeneratorExit at the yield
    assert time.monotonic() - start < 10  # a slow chunk is minutes of planner battles
    deadline = time.monotonic() + 10
    while any(alive(p) for p in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(alive(p) for p in workers)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_workers_exit_when_the_tournament_process_is_killed() -> None:
    """`kill -9` of a tournament leaves no worker waiting for chunks forever."""
    cmd = [sys.executable, "-c", "from vtm_sim.cli import main; main()", "tournament",
           "--policies", "nearest,planner", "--battles", "400", "--jobs", "2"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        workers: set[int] = set()
        while time.monotonic() < deadline and proc.poll() is None:
            workers = descendants(proc.pid)
            if len(workers) >= 4:  # resource tracker, forkserver, two workers
                break
            time.sleep(0.1)
        assert proc.poll() is None and len(workers) >= 4, workers
        time.sleep(1.0)
        workers = descendants(proc.pid)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait()
    deadline = time.monotonic() + 20
    while any(alive(p) for p in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = [p for p in workers if alive(p)]
    for p in left:  # do not leave them running if the test fails
        os.kill(p, signal.SIGKILL)
    assert not left


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_ctrl_c_stops_a_tournament_and_its_workers_at_once(tmp_path: Path) -> None:
    """Ctrl-C (SIGINT to the terminal's process group) mid-run: the tournament says how far
    it got and exits 130 within seconds, though its workers were in the middle of planner
    chunks; no traceback, no worker left, and --resume can go on from battles.jsonl."""
    cmd = [sys.executable, "-c", "from vtm_sim.cli import main; main()", "tournament",
           "--policies", "nearest,planner", "--battles", "400", "--jobs", "2",
           "--out", str(tmp_path / "run")]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    battles = tmp_path / "run" / "battles.jsonl"
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None:
            if battles.exists() and battles.read_bytes().count(b"\n") >= 10:
                break
            time.sleep(0.05)
        assert proc.poll() is None, "the run ended before it could be interrupted"
        workers = descendants(proc.pid)
        start = time.monotonic()
        os.killpg(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=60)
        took = time.monotonic() - start
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 130, err
    assert "interrupted after" in err and "--resume" in err and "Traceback" not in err, err
    assert took < 15, took  # a planner chunk alone is tens of seconds on a loaded machine
    deadline = time.monotonic() + 10
    while any(alive(p) for p in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(alive(p) for p in workers)
