"""A ``kill -9`` at any moment loses no committed step and never damages the database
(issue 33): a child process plays steps and says each version once it is committed;
it is killed with SIGKILL at a random moment; then every table reopens, replays, and
holds at least the steps the child saw committed."""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from vtm_sim.table import TableService

ROOT = Path(__file__).resolve().parents[2]

CHILD = r"""
import sys
from vtm_sim.table import TableService

svc = TableService(sys.argv[1])
k = 0
while True:
    name = f"fight-{k}"
    svc.new(name, scenario="gunfight" if k % 2 else "duel", seed=k)
    print(name, 0, flush=True)
    while svc.show(name)["pending"] is not None:
        out = svc.choose(name, 0)
        print(name, out["step"]["version"], flush=True)
    k += 1
"""


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_sigkill_loses_no_committed_step(tmp_path: Path, seed: int) -> None:
    db = tmp_path / "kill.sqlite3"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(db)], stdout=subprocess.PIPE,
                             text=True, env=env, cwd=ROOT)
    assert child.stdout is not None
    seen: dict[str, int] = {}
    first = child.stdout.readline().split()  # started: the first table is in the database
    seen[first[0]] = int(first[1])
    time.sleep(random.Random(seed).uniform(0.2, 1.5))
    os.kill(child.pid, signal.SIGKILL)
    child.wait(timeout=30)
    assert child.returncode == -signal.SIGKILL
    for line in child.stdout.read().splitlines():  # what it said before it died
        name, version = line.split()
        seen[name] = max(seen.get(name, 0), int(version))
    con = sqlite3.connect(db)
    assert con.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    con.close()
    svc = TableService(db)
    have = {t["name"]: t["version"] for t in svc.tables()}
    for name, version in seen.items():
        assert have[name] >= version, (name, have[name], version)
        assert svc.verify(name)["version"] == have[name]  # replays to what it stored
    # and it goes on from there
    name = max(have, key=lambda n: int(n.split("-")[1]))
    if svc.show(name)["pending"] is not None:
        assert svc.choose(name, 0)["step"]["version"] == have[name] + 1
