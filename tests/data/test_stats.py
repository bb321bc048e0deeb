"""Stat block validation and defaults: errors name the file and the key."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from vtm_sim.data.config import config_dir
from vtm_sim.data.stat_blocks import (
    ABILITIES,
    ATTRIBUTES,
    DISCIPLINES,
    Kind,
    StatBlock,
    StatBlockSpec,
    build_stat_block,
    load_stat_block,
)
from vtm_sim.errors import ConfigError


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "sheet.yaml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("text", "keys"),
    [
        ("name: X\ncolour: red\n", ["colour", "unknown key"]),
        ("name: X\nattributes: {strenght: 3}\n", ["attributes", "strenght"]),
        ("name: X\nabilities: {kung_fu: 3}\n", ["abilities", "kung_fu"]),
        ("name: X\ndisciplines: {telekinesis: 1}\n", ["disciplines", "telekinesis"]),
        ("name: X\nmerits: [lucky]\n", ["merits", "lucky"]),
        ("name: X\nspecialties: {juggling: clubs}\n", ["specialties", "juggling"]),
        ("name: X\nweapons: [knife, lightsaber]\n", ["weapons.1", "lightsaber"]),
        ("name: X\narmor: mithril\n", ["armor", "mithril"]),
        ("name: X\nattributes: {strength: 11}\n", ["attributes", "strength", "0..10"]),
        ("name: X\nattributes: {dexterity: -1}\n", ["attributes", "dexterity"]),
        ("name: X\nabilities: {brawl: 12}\n", ["abilities", "brawl"]),
        ("name: X\nwillpower: 11\n", ["willpower", "11"]),
        ("name: X\nkind: mortal\ngeneration: 10\n", ["generation", "only vampires"]),
        ("name: X\ngeneration: 10\n", ["generation"]),  # kind defaults to mortal
        ("name: X\nkind: vampire\ngeneration: 2\n", ["generation"]),
        ("name: X\nkind: mortal\nblood: 5\n", ["blood"]),
        ("name: X\nkind: vampire\ngeneration: 13\nblood: 11\n", ["blood", "10"]),
        ("name: X\nkind: werewolf\n", ["kind"]),
        ("attributes: {strength: 2}\n", ["name"]),
        ("- just\n- a list\n", ["expected a mapping"]),
    ],
)
def test_stat_block_errors_name_file_and_key(tmp_path: Path, text: str, keys: list[str]) -> None:
    path = _write(tmp_path, text)
    with pytest.raises(ConfigError) as err:
        load_stat_block(path)
    msg = str(err.value)
    assert msg.startswith(str(path)), msg
    for k in keys:
        assert k in msg, (k, msg)


def test_defaults_attributes_1_abilities_0() -> None:
    s = load_stat_block_text("name: Nobody\n")
    assert all(s.attr(a) == 1 for a in ATTRIBUTES)
    assert all(s.ability(a) == 0 for a in ABILITIES)
    assert all(s.discipline(d) == 0 for d in DISCIPLINES)
    assert (s.kind, s.generation, s.willpower, s.blood, s.weapons, s.armor) == (
        Kind.MORTAL,
        None,
        3,
        0,
        (),
        None,
    )


def test_explicit_values_override_defaults() -> None:
    s = load_stat_block_text(
        "name: Some\nattributes: {strength: 0, wits: 4}\nabilities: {brawl: 2}\n"
        "weapons: [knife, unarmed]\narmor: kevlar_vest\n"
    )
    assert (s.attr("strength"), s.attr("wits"), s.attr("dexterity")) == (0, 4, 1)
    assert (s.ability("brawl"), s.ability("melee")) == (2, 0)
    assert [w.name for w in s.weapons] == ["knife", "unarmed"]
    assert s.armor is not None and (s.armor.rating, s.armor.penalty) == (3, 1)


def test_vampire_blood_defaults_from_generation() -> None:
    """VAMP-1 data: a vampire without a generation is 13th (10 blood, 1 a turn)."""
    s = load_stat_block_text("name: V\nkind: vampire\n")
    assert (s.generation, s.blood_pool, s.blood_per_turn, s.blood) == (13, 10, 1, 10)
    s = load_stat_block_text("name: V\nkind: vampire\ngeneration: 8\nblood: 4\n")
    assert (s.blood_pool, s.blood_per_turn, s.blood) == (15, 3, 4)


def test_build_stat_block_error_names_the_source() -> None:
    with pytest.raises(ConfigError, match=r"^npc-7: weapons\.0: unknown weapon 'phaser'"):
        build_stat_block(StatBlockSpec(name="n", weapons=["phaser"]), "npc-7")


@pytest.mark.parametrize("path", sorted((config_dir() / "characters").glob("*.yaml")))
def test_shipped_characters_load(path: Path) -> None:
    s = load_stat_block(path)
    assert s.name and s.source == str(path)


def load_stat_block_text(text: str) -> StatBlock:
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "s.yaml"
        p.write_text(text, encoding="utf-8")
        return load_stat_block(p)
