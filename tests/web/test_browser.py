"""A small fight played by clicking, in a real headless Chromium against a real
`vtm-sim serve` (issue 33, "Done means"): a player's attack with entered dice, an
NPC's suggested move accepted, an undo, a reload that shows the same state, and a
stale tab's conflict. Screenshots of three moments go to docs/images/ (docs/table.md).

Playwright drives Debian's chromium (``/usr/bin/chromium``, installed by ``.ci/run``);
no ``playwright install``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi", reason="the web extra: pip install 'vtm-sim[web]'")
sync_api = pytest.importorskip("playwright.sync_api", reason="pip install playwright")

ROOT = Path(__file__).resolve().parents[2]
IMAGES = ROOT / "docs" / "images"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CLI = "import sys; from vtm_sim.cli import main; sys.argv[0] = 'vtm-sim'; main()"
PHONE = {"width": 390, "height": 844}

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(),
                                reason="no chromium (apt-get install -y chromium)")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-c", CLI, "serve", "--db", str(tmp_path / "web.sqlite3"),
         "--port", str(port)], env=env, cwd=tmp_path, stderr=subprocess.PIPE, text=True)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(base + "/api/tables", timeout=2).read()
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"vtm-sim serve did not start: {proc.stderr}") from None
                time.sleep(0.2)
        yield base
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def api(base: str, name: str) -> dict[str, Any]:
    with urllib.request.urlopen(f"{base}/api/tables/{name}", timeout=10) as r:
        return json.loads(r.read())  # type: ignore[no-any-return]


def option(base: str, name: str, label: str) -> str:
    """The button of the pending option with this label (by its index)."""
    choices = api(base, name)["pending"]["choices"]
    idx = next(c["index"] for c in choices if c["label"] == label)
    return f"button.opt[data-index='{idx}']"


def at_version(page: Any, v: int) -> None:
    page.wait_for_function(f"document.body.dataset.version === '{v}'", timeout=60_000)


def test_a_fight_by_clicking(server: str) -> None:
    base = server
    IMAGES.mkdir(parents=True, exist_ok=True)
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            context = browser.new_context(viewport=PHONE, device_scale_factor=1)
            page = context.new_page()
            page.goto(base + "/")
            page.fill("input[name=name]", "saturday")
            page.select_option("select[name=scenario]", "duel")
            page.fill("input[name=pcs]", "Knife Fighter")
            page.select_option("select[name=dice]", "pcs")
            page.click("button[type=submit]")
            page.wait_for_url(re.compile(r"/tables/saturday$"))
            assert "Bar Brawler" in page.inner_text("#pending")

            # the NPC's suggestion, refined, then accepted
            page.click("#suggest")
            page.wait_for_selector("#accept", timeout=60_000)
            page.wait_for_function(
                "!document.getElementById('suggestion').textContent.includes('refining')",
                timeout=120_000)
            suggested = page.inner_text("#accept").removeprefix("Accept: ")
            page.screenshot(path=str(IMAGES / "table-web-suggestion.png"), full_page=True)
            page.click("#accept")
            at_version(page, 1)
            assert api(base, "saturday")["version"] == 1
            assert api(base, "saturday")["pending"]["actor"] == "Knife Fighter"
            assert suggested

            # the player's initiative die, entered
            page.fill("#faces", "7")
            page.click(option(base, "saturday", "Declare 1 action"))
            at_version(page, 2)
            # the attack: closing in, then the player's dice for the hit and the damage
            page.click(option(base, "saturday", "Strike Bar Brawler with the knife"))
            at_version(page, 3)
            page.fill("#faces", "9 8 8 7 3 2")
            take = api(base, "saturday")["pending"]["choices"][0]
            assert take["short"] == "take"  # no defense: only the player's dice count
            page.click("button.opt[data-index='0']")
            page.wait_for_function(
                "document.getElementById('msg').textContent.includes('faces needed')")
            asked = page.inner_text("#msg")
            assert "damage" in asked and api(base, "saturday")["version"] == 3
            count = int(re.search(r"enter its (\d+) face", asked).group(1))  # type: ignore[union-attr]
            page.fill("#faces", "9 8 8 7 3 2 / " + " ".join(["8"] * count))
            page.click("button.opt[data-index='0']")
            at_version(page, 4)
            shown = api(base, "saturday")
            brawler = next(c for c in shown["combatants"] if c["name"] == "Bar Brawler")
            assert brawler["damage"] != {"bashing": 0, "lethal": 0, "aggravated": 0}
            assert brawler["track"] in page.inner_text("#combatants")
            assert any("9 8 8 7 3 2" in line for line in shown["narration"])
            assert shown["over"] and "The fight is over" in page.inner_text("#pending")
            page.screenshot(path=str(IMAGES / "table-web-attack.png"), full_page=True)

            # undo, then a reload shows the same state
            page.click("#undo")
            at_version(page, 3)
            assert api(base, "saturday")["version"] == 3
            before = page.inner_text("#main")
            page.reload()
            at_version(page, 3)
            assert page.inner_text("#main") == before

            # two tabs: the stale one is refused and shown the fresh state
            page.click("#undo")
            at_version(page, 2)
            other = context.new_page()
            other.goto(base + "/tables/saturday")
            at_version(other, 2)
            move = option(base, "saturday", "Move toward Bar Brawler")  # as the tabs see it
            page.click(option(base, "saturday", "Strike Bar Brawler with the knife"))
            at_version(page, 3)
            other.click(move)
            other.wait_for_function(
                "document.getElementById('msg').textContent.includes('stale')")
            at_version(other, 3)
            assert "version 2 is stale" in other.inner_text("#msg")
            assert api(base, "saturday")["version"] == 3
            assert "defend" in other.inner_text("#pending")
            other.evaluate("window.scrollTo(0, 0)")
            other.screenshot(path=str(IMAGES / "table-web-conflict.png"))
        finally:
            browser.close()
