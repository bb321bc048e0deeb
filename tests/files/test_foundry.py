"""vtm_sim.files.foundry: Foundry VTT WoD20 actor exports as stat blocks."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from vtm_sim.data.stat_blocks import StatBlockSpec, build_stat_block
from vtm_sim.errors import ConfigError
from vtm_sim.files.foundry import convert_actor, parse_map, read_actor

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "foundry"


def actor(who: str) -> dict[str, Any]:
    return read_actor(FIXTURES / f"{who}.json")


def test_the_three_fixtures_convert_to_sheets_the_engine_builds() -> None:
    for who, kind in (("vampire", "vampire"), ("ghoul", "ghoul"), ("mortal", "mortal")):
        got = convert_actor(actor(who), source=who)
        assert got.sheet["kind"] == kind
        stats = build_stat_block(StatBlockSpec.model_validate(got.sheet), who)
        assert stats.name == got.standing["name"]


def test_both_layouts_system_and_data_read_alike() -> None:
    new = actor("vampire")
    old = copy.deepcopy(new)
    old["data"] = old.pop("system")
    for item in old["items"]:
        item["data"] = item.pop("system")
    a, b = convert_actor(new), convert_actor(old)
    assert a.sheet == b.sheet and a.standing == b.standing


def test_values_specialties_disciplines_and_standing() -> None:
    got = convert_actor(actor("vampire"))
    s = got.sheet
    assert s["attributes"]["strength"] == 4 and "composure" not in s["attributes"]
    assert s["abilities"]["brawl"] == 4 and s["specialties"] == {"brawl": "Dirty fighting"}
    assert s["disciplines"] == {"celerity": 2, "potence": 1, "presence": 2}
    assert s["generation"] == 11 and s["willpower"] == 6 and s["armor"] == "kevlar_vest"
    assert got.standing["damage"] == {"bashing": 0, "lethal": 2, "aggravated": 0}
    assert got.standing["willpower"] == 4 and got.standing["blood"] == 9


def test_unknown_items_are_noted_and_mapped_only_when_named() -> None:
    got = convert_actor(actor("ghoul"), source="ghoul.json")
    assert got.sheet["weapons"] == ["knife"]
    assert any("Grandpa's Shotgun" in n and "--map" in n for n in got.notes)
    mapped = convert_actor(actor("ghoul"), parse_map(["Grandpa's Shotgun=shotgun"]))
    assert mapped.sheet["weapons"] == ["shotgun", "knife"]
    with pytest.raises(ConfigError, match="not in the weapon table"):
        convert_actor(actor("ghoul"), parse_map(["Grandpa's Shotgun=bazooka"]))
    with pytest.raises(ConfigError, match="no item of that name"):
        convert_actor(actor("ghoul"), parse_map(["Nothing=shotgun"]))
    with pytest.raises(ConfigError, match="expected ITEM=NAME"):
        parse_map(["shotgun"])


def test_bad_actors_are_one_line(tmp_path: Path) -> None:
    werewolf = actor("mortal")
    werewolf["type"] = "Werewolf"
    with pytest.raises(ConfigError, match="only Vampire, Ghoul and Mortal"):
        convert_actor(werewolf)
    wild = actor("mortal")
    wild["system"]["attributes"]["strength"]["value"] = 12
    with pytest.raises(ConfigError, match=r"attributes\.strength\.value: expected 0 to 10"):
        convert_actor(wild)
    bad = tmp_path / "x.json"
    bad.write_text(json.dumps({"name": "x", "items": []}))
    with pytest.raises(ConfigError, match="not a Foundry actor"):
        read_actor(bad)
    bad.write_text("{")
    with pytest.raises(ConfigError, match="invalid JSON"):
        read_actor(bad)
