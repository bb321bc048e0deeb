"""`vtm-sim serve` and `vtm-sim mcp`: one line naming the extra when it is missing, and
a warning when serving beyond this machine."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from vtm_sim.cli import main


@pytest.mark.parametrize(("command", "module"), [("serve", "fastapi"), ("serve", "uvicorn"),
                                                  ("serve", "multipart"), ("mcp", "mcp")])
def test_without_the_extra_one_line(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                    command: str, module: str) -> None:
    real = importlib.util.find_spec

    def find_spec(name: str, *args: Any, **kwargs: Any) -> Any:
        return None if name == module else real(name, *args, **kwargs)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    r = CliRunner().invoke(main, [command, "--db", str(tmp_path / "t.sqlite3")])
    assert r.exit_code == 2, r.output
    lines = [ln for ln in r.output.splitlines() if ln.startswith("Error")]
    assert len(lines) == 1 and module in lines[0]
    assert "pip install 'vtm-sim[web]'" in lines[0]


def test_serve_binds_here_and_warns_otherwise(monkeypatch: pytest.MonkeyPatch,
                                              tmp_path: Path) -> None:
    pytest.importorskip("fastapi")
    import vtm_sim.web.app as web_app

    calls: list[tuple[Any, str, int]] = []
    monkeypatch.setattr(web_app, "serve", lambda db, host, port: calls.append((db, host, port)))
    db = str(tmp_path / "t.sqlite3")
    r = CliRunner().invoke(main, ["serve", "--db", db, "--port", "8123"])
    assert r.exit_code == 0, r.output
    assert calls[-1] == (db, "127.0.0.1", 8123) and "warning" not in r.output
    r = CliRunner().invoke(main, ["serve", "--db", db, "--host", "0.0.0.0"])
    assert r.exit_code == 0, r.output
    assert calls[-1][1] == "0.0.0.0" and "warning: serving on 0.0.0.0" in r.output
