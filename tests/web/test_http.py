"""The web app's JSON API and pages (issue 33, "Reliability and security"): every bad
request is a 4xx with a one-line message, never a 500 or a traceback page; a stale
step gets 409 and the fresh state; uploads, never paths."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="the web extra: pip install 'vtm-sim[web]'")
pytest.importorskip("httpx", reason="FastAPI's TestClient needs httpx")
from fastapi.testclient import TestClient

from vtm_sim.web.app import create_app


@pytest.fixture
def client(tmp_path: Path) -> TestClient:
    app = create_app(tmp_path / "t.sqlite3")
    c = TestClient(app, raise_server_exceptions=False)
    r = c.post("/api/tables", json={"name": "duel", "scenario": "duel",
                                    "pcs": ["Knife Fighter"], "dice": "pcs"})
    assert r.status_code == 201, r.text
    return c


def one_line(r: object) -> str:
    body = r.json()  # type: ignore[attr-defined]
    assert set(body) >= {"error"}
    assert "\n" not in body["error"] and "Traceback" not in body["error"]
    return str(body["error"])


def test_show_is_the_cli_json(client: TestClient, tmp_path: Path) -> None:
    from click.testing import CliRunner

    from vtm_sim.cli import main

    client.post("/api/tables/duel/choose", json={"option": 0, "version": 0})
    shown = client.get("/api/tables/duel").json()
    cli = CliRunner().invoke(main, ["table", "show", "duel", "--json", "--db",
                                    str(tmp_path / "t.sqlite3")])
    assert cli.exit_code == 0, cli.output
    assert json.loads(cli.stdout) == shown
    for key in ("name", "turn", "version", "pending", "combatants"):
        assert key in shown
    assert {"actor", "decision", "options"} <= set(shown["pending"])
    assert [t["name"] for t in client.get("/api/tables").json()] == ["duel"]


def test_choose_by_label_and_index_with_faces(client: TestClient) -> None:
    r = client.post("/api/tables/duel/auto", json={"version": 0})
    assert r.status_code == 200 and r.json()["stopped"].startswith("Knife Fighter")
    v = r.json()["table"]["version"]
    r = client.post("/api/tables/duel/choose",
                    json={"option": "Declare 1 action", "faces": [7], "version": v})
    assert r.status_code == 200, r.text
    step = r.json()["step"]
    assert [r["faces"] for r in step["rolls"] if r["entered"]] == [[7]]
    assert r.json()["table"]["version"] == v + 1
    r = client.post("/api/tables/duel/undo", json={"version": v + 1})
    assert r.status_code == 200 and r.json()["version"] == v
    r = client.post("/api/tables/duel/choose", json={"option": 0, "faces": "7", "version": v})
    assert r.status_code == 200, r.text


@pytest.mark.parametrize(("path", "body", "status", "words"), [
    ("/api/tables/duel/choose", {"option": "fly away", "version": 0}, 400, "fly away"),
    ("/api/tables/duel/choose", {"option": 42, "version": 0}, 400, "expected an index"),
    ("/api/tables/duel/choose", {"option": 0, "faces": [1, 2, 3], "version": 0}, 400,
     "faces"),
    ("/api/tables/duel/choose", {"option": 0, "faces": [11], "version": 0}, 400, "11"),
    ("/api/tables/duel/choose", {"option": 0, "version": 7}, 409, "stale"),
    ("/api/tables/nobody/choose", {"option": 0, "version": 0}, 404, "nobody"),
    ("/api/tables/duel/choose", {"faces": [1]}, 422, "option"),
    ("/api/tables/duel/choose", {"option": 0, "colour": "red"}, 422, "colour"),
    ("/api/tables/duel/undo", {"version": 0}, 400, "nothing to undo"),
    ("/api/tables/duel/suggest", {"seconds": -1}, 422, "seconds"),
    ("/api/tables", {"name": "x", "scenario": "no_such_scenario"}, 400, "no_such_scenario"),
    ("/api/tables", {"name": "duel", "scenario": "duel"}, 400, "duel"),
    ("/api/tables", {"name": "y"}, 400, "exactly one"),
    ("/api/tables", {"name": "z", "state": {"version": 1, "nonsense": True}}, 400, ""),
])
def test_bad_requests_are_one_line_4xx(client: TestClient, path: str, body: dict[str, object],
                                       status: int, words: str) -> None:
    r = client.post(path, json=body)
    assert r.status_code == status, r.text
    assert words.lower() in one_line(r).lower()


def test_stale_version_gets_the_fresh_state(client: TestClient) -> None:
    first = client.post("/api/tables/duel/choose", json={"option": 0, "version": 0})
    assert first.status_code == 200
    stale = client.post("/api/tables/duel/choose", json={"option": 0, "version": 0})
    assert stale.status_code == 409
    body = stale.json()
    assert body["version"] == 1 and body["table"]["version"] == 1
    assert body["table"] == client.get("/api/tables/duel").json()


def test_malformed_and_unknown(client: TestClient) -> None:
    r = client.post("/api/tables/duel/choose", content=b"{not json",
                    headers={"content-type": "application/json"})
    assert r.status_code == 400 and "malformed JSON" in one_line(r)
    r = client.get("/api/tables/nobody")
    assert r.status_code == 404 and "nobody" in one_line(r)
    r = client.get("/tables/nobody")
    assert r.status_code == 404
    r = client.get("/no/such/page")
    assert r.status_code == 404
    one_line(r)
    r = client.put("/api/tables/duel")
    assert r.status_code == 405
    one_line(r)


def test_faces_needed_names_the_roll(client: TestClient) -> None:
    v = client.post("/api/tables/duel/auto", json={}).json()["table"]["version"]
    r = client.post("/api/tables/duel/choose", json={"option": 0, "version": v})
    assert r.status_code == 400
    assert "initiative" in one_line(r) and r.json()["roll"]["dice"] == 1


def test_pages_and_uploads(client: TestClient, repo_root: Path) -> None:
    page = client.get("/")
    assert page.status_code == 200 and "duel" in page.text and "<form" in page.text
    page = client.get("/tables/duel")
    assert page.status_code == 200
    for part in ("Bar Brawler", "Knife Fighter", "<svg", "id='options'", "id='faces'",
                 "id='undo'", "id='narration'", "id='initiative'"):
        assert part in page.text
    assert "http://" not in page.text and "https://" not in page.text  # nothing from a CDN
    # a stat block as an upload, against a shipped sheet
    sheet = (repo_root / "configs/characters/knife_fighter.yaml").read_bytes()
    r = client.post("/new", data={"name": "up", "foe": "thug", "pcs": ""},
                    files={"upload": ("mine.yaml", sheet, "application/yaml")},
                    follow_redirects=False)
    assert r.status_code == 303, r.text
    names = [c["name"] for c in client.get("/api/tables/up").json()["combatants"]]
    assert len(names) == 2
    # a state as an upload (what export gives)
    state = client.get("/api/tables/duel/export").content
    r = client.post("/new", data={"name": "again"},
                    files={"upload": ("s.json", state, "application/json")},
                    follow_redirects=False)
    assert r.status_code == 303, r.text
    r = client.post("/new", data={"name": "bad"},
                    files={"upload": ("s.yaml", b"[1, 2", "application/yaml")})
    assert r.status_code == 400
    one_line(r)
    r = client.post("/new", data={"name": "bad", "scenario": "nope"})
    assert r.status_code == 400
    one_line(r)


def test_a_browser_gets_the_line_as_a_page(client: TestClient) -> None:
    html = {"accept": "text/html,application/xhtml+xml"}
    r = client.get("/tables/nobody", headers=html)
    assert r.status_code == 404 and r.headers["content-type"].startswith("text/html")
    assert "nobody" in r.text and "Traceback" not in r.text
    r = client.post("/new", data={"name": "duel", "scenario": "duel"}, headers=html)
    assert r.status_code == 400 and "duel" in r.text and "<html" in r.text
    r = client.get("/api/tables/nobody", headers=html)  # the API stays JSON
    assert r.status_code == 404 and r.json()["error"]
