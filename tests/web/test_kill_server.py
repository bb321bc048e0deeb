"""A ``kill -9`` of `vtm-sim serve` while steps arrive loses no step it answered and
never damages the database (issue 33, "Reliability and security")."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="the web extra: pip install 'vtm-sim[web]'")

from vtm_sim.table import TableService

ROOT = Path(__file__).resolve().parents[2]
CLI = "import sys; from vtm_sim.cli import main; sys.argv[0] = 'vtm-sim'; main()"


def post(url: str, body: dict[str, object]) -> dict[str, object]:
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read())  # type: ignore[no-any-return]


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_sigkill_of_the_server_loses_no_answered_step(tmp_path: Path) -> None:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    db = tmp_path / "kill.sqlite3"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-c", CLI, "serve", "--db", str(db), "--port",
                             str(port)], env=env, cwd=tmp_path, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}/api/tables"
    answered: dict[str, int] = {}
    try:
        for _ in range(300):
            try:
                urllib.request.urlopen(base, timeout=2).read()
                break
            except OSError:
                time.sleep(0.2)

        def play() -> None:
            k = 0
            try:
                while True:
                    name = f"fight-{k}"
                    shown = post(base, {"name": name, "scenario": "duel", "seed": k})
                    answered[name] = 0
                    while shown["pending"] is not None:
                        out = post(f"{base}/{name}/choose",
                                   {"option": 0, "version": shown["version"]})
                        shown = out["table"]  # type: ignore[assignment]
                        answered[name] = int(shown["version"])  # type: ignore[call-overload]
                    k += 1
            except (urllib.error.URLError, ConnectionError, OSError):
                return

        player = threading.Thread(target=play, daemon=True)
        player.start()
        deadline = time.monotonic() + 30
        while sum(answered.values()) < 40 and time.monotonic() < deadline:
            time.sleep(0.05)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
        player.join(timeout=15)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert sum(answered.values()) >= 40
    with TableService(db) as tables:
        kept = {t["name"]: t["version"] for t in tables.tables()}
        for name, version in answered.items():
            assert kept[name] >= version
            assert tables.verify(name)["version"] == kept[name]
