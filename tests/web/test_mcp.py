"""`vtm-sim mcp` driven by the official SDK's own stdio client through a whole fight
(issue 33, "Done means"): refused invalid choices say what would be valid, and the
state only ever changes through the tools."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp", reason="the web extra: pip install 'vtm-sim[web]'")
import anyio
from mcp import Client, StdioServerParameters

from vtm_sim.web.assistant import TOOLS

ROOT = Path(__file__).resolve().parents[2]
CLI = "import sys; from vtm_sim.cli import main; sys.argv[0] = 'vtm-sim'; main()"


def server(db: Path) -> StdioServerParameters:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return StdioServerParameters(command=sys.executable, args=["-c", CLI, "mcp", "--db", str(db)],
                                 env=env, cwd=str(ROOT))


def data(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content[0].text
    if isinstance(result.structured_content, dict):
        out = result.structured_content
        return out.get("result", out) if set(out) == {"result"} else out
    return json.loads(result.content[0].text)  # type: ignore[no-any-return]


def refused(result: Any) -> str:
    assert result.is_error
    text = result.content[0].text
    assert "\n" not in text and "Traceback" not in text
    return str(text)


async def fight(db: Path) -> dict[str, Any]:
    async with Client(server(db), read_timeout_seconds=120) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert set(tools) == set(TOOLS)
        assert all(t.description and t.input_schema for t in tools.values())
        assert "action" in tools["act"].input_schema["properties"]

        listed = data(await client.call_tool("read_encounter", {}))
        assert "duel" in listed["scenarios"] and listed["encounters"] == []
        msg = refused(await client.call_tool("start_encounter",
                                             {"name": "x", "scenario": "no_such_place"}))
        assert "no_such_place" in msg and "duel" in msg
        state = data(await client.call_tool("start_encounter", {
            "name": "alley", "scenario": "duel", "pcs": ["Knife Fighter"], "dice": "pcs"}))
        assert state["version"] == 0 and state["pending"]["actor"] == "Bar Brawler"

        odds = data(await client.call_tool("odds", {"pool": 6, "difficulty": 6}))
        assert 0.8 < odds["p_success"] < 0.95 and odds["p_botch"] < 0.05
        advice = data(await client.call_tool("suggest", {"name": "alley", "seconds": 0.3}))
        assert advice["actor"] == "Bar Brawler" and advice["reason"]
        out = data(await client.call_tool("act", {"name": "alley", "action": "choose",
                                                  "option": advice["index"], "version": 0}))
        assert out["state"]["version"] == 1

        # refused: a stale version, an unknown option, a wrong number of faces, no faces
        msg = refused(await client.call_tool("act", {"name": "alley", "action": "choose",
                                                     "option": 0, "version": 0}))
        assert "stale" in msg and "version 1" in msg
        msg = refused(await client.call_tool("act", {"name": "alley", "action": "choose",
                                                     "option": "fly", "version": 1}))
        assert "fly" in msg and "declare-1-action" in msg
        msg = refused(await client.call_tool("act", {"name": "alley", "action": "choose",
                                                     "option": 0, "version": 1}))
        assert "initiative" in msg and "Give faces: 1 number from 1 to 10" in msg
        msg = refused(await client.call_tool("act", {"name": "alley", "action": "choose",
                                                     "option": 0, "faces": [[3, 4]],
                                                     "version": 1}))
        assert "face" in msg
        msg = refused(await client.call_tool("read_encounter", {"name": "nobody"}))
        assert "alley" in msg
        assert data(await client.call_tool("read_encounter", {"name": "alley"}))["version"] == 1

        # the player's initiative die, then undo and again
        out = data(await client.call_tool("act", {"name": "alley", "action": "choose",
                                                  "option": "Declare 1 action",
                                                  "faces": [[7]], "version": 1}))
        assert out["narration"] and out["state"]["version"] == 2
        back = data(await client.call_tool("act", {"name": "alley", "action": "undo",
                                                   "version": 2}))
        assert back["state"]["version"] == 1
        await client.call_tool("act", {"name": "alley", "action": "choose",
                                       "option": "Declare 1 action", "faces": [[7]],
                                       "version": 1})

        # to the end: the PC strikes when it can, the NPCs play by themselves, the
        # player's dice are always 8s (the count the engine asks for)
        for _ in range(400):
            state = data(await client.call_tool("read_encounter", {"name": "alley"}))
            p = state["pending"]
            if p is None:
                break
            v = state["version"]
            if p["player"] == "npc":
                out = data(await client.call_tool("act", {"name": "alley", "action": "auto",
                                                          "version": v}))
                prop = out["proposed"]
                if prop is None:
                    continue
                option: int | str = prop["index"]
            else:
                opts = data(await client.call_tool("read_encounter",
                                                   {"name": "alley", "what": "options"}))
                option = next((o["index"] for o in opts["options"]
                               if o["label"].startswith("Strike")), 0)
            faces: list[list[int]] = []
            while True:
                result = await client.call_tool("act", {
                    "name": "alley", "action": "choose", "option": option,
                    "faces": faces, "version": v})
                if not result.is_error:
                    break
                text = refused(result)
                assert "Give faces:" in text, text
                count = int(text.split("Give faces: ")[1].split()[0])
                faces.append([8] * count)
                assert len(faces) < 6
        else:
            raise AssertionError("the fight did not end")
        final = data(await client.call_tool("read_encounter", {"name": "alley"}))
        assert final["over"] and final["result"]["reason"]
        msg = refused(await client.call_tool("act", {"name": "alley", "action": "choose",
                                                     "option": 0,
                                                     "version": final["version"]}))
        assert "over" in msg
        story = data(await client.call_tool("read_encounter",
                                            {"name": "alley", "what": "story"}))
        assert len(story["narration"]) > 5
        return final


def test_a_whole_fight_through_mcp(tmp_path: Path) -> None:
    db = tmp_path / "mcp.sqlite3"
    final = anyio.run(fight, db)
    from vtm_sim.table.service import TableService

    with TableService(db) as tables:  # what the model did is in the database, and replays
        assert tables.show("alley")["version"] == final["version"]
        assert tables.verify("alley")["steps"] == final["version"]
