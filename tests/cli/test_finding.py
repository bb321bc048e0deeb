"""Finding things (issue 32): ``vtm-sim weapons``, ``vtm-sim sheets [NAME]``, and names
matched by prefix, short name or the name before a comma, with "did you mean" on a miss."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from vtm_sim.analysis.advice import find_combatant
from vtm_sim.cli import main
from vtm_sim.core.choices import DefenseKind
from vtm_sim.core.weapons import DamageType
from vtm_sim.data.rules import load_rules
from vtm_sim.data.stat_blocks import load_stat_block, sheet_names
from vtm_sim.data.tables import load_tables
from vtm_sim.errors import ConfigError
from vtm_sim.files.scenarios import load_scenario
from vtm_sim.mechanics.attack import defense_pool, plan_attack, soak_pool
from vtm_sim.mechanics.combatant import Combatant


def run(*args: str) -> tuple[int, str]:
    r = CliRunner().invoke(main, list(args))
    return r.exit_code, r.output


def test_weapons_lists_the_whole_table() -> None:
    code, out = run("weapons", "--json")
    assert code == 0
    rows = json.loads(out)
    tables = load_tables()
    assert [r["name"] for r in rows] == list(tables.weapons)
    pistol = next(r for r in rows if r["name"] == "heavy_pistol")
    assert (pistol["damage"], pistol["damage_type"], pistol["range"], pistol["rate"],
            pistol["magazine"], pistol["conceal"]) == ("5", "lethal", 30, 3, 8, "J")
    club = next(r for r in rows if r["name"] == "club")
    assert (club["damage"], club["range"], club["magazine"]) == ("Str+2", None, None)
    code, text = run("weapons")
    assert code == 0 and all(n in text for n in tables.weapons)


def test_sheets_lists_every_shipped_stat_block() -> None:
    code, out = run("sheets", "--json")
    assert code == 0
    rows = json.loads(out)
    assert [r["file"] for r in rows] == sheet_names()
    jax = next(r for r in rows if r["file"] == "neonate_brujah")
    assert jax["name"] == "Jax, Brujah Neonate" and jax["kind"].startswith("vampire")
    code, text = run("sheets")
    assert code == 0 and "neonate_brujah" in text and "Jax, Brujah Neonate" in text


@pytest.mark.parametrize("rules_name", ["v20", "dark_ages"])
def test_a_sheets_derived_numbers_are_the_engines(rules_name: str) -> None:
    code, out = run("sheets", "swat_rifleman", "--json", "--rules", rules_name)
    assert code == 0
    data = json.loads(out)
    tables, rules = load_tables(), load_rules(rules_name)
    stats = load_stat_block("swat_rifleman", tables)
    me = Combatant.create(0, stats, 0, tables)
    assert data["soak"] == {**{t.value: soak_pool(me, t, rules) for t in DamageType},
                            "fire": soak_pool(me, DamageType.AGGRAVATED, rules,
                                              elemental=True)}
    assert data["defense"]["dodge"] == defense_pool(me, DefenseKind.DODGE, 0)
    assert data["initiative"] == stats.attr("dexterity") + stats.attr("wits")
    assert len(data["health"]) == me.health.size
    shots = {a["maneuver"]: a for a in data["attacks"] if a["weapon"] == "assault_rifle"}
    target = Combatant.create(1, stats, 1, tables, 150.0)
    plan = plan_attack(me, target, "burst", tables, rules, distance=150.0)
    if rules.firearms_allowed:
        assert plan is not None
        assert (shots["burst"]["pool"], shots["burst"]["difficulty"]) == (plan.pool,
                                                                         plan.difficulty)
    else:
        assert plan is None and not shots


def test_a_vampires_sheet_shows_blood_generation_and_the_bite() -> None:
    code, out = run("sheets", "jax")
    assert code == 0
    assert out.startswith("Jax, Brujah Neonate (")
    assert "generation 12" in out and "Blood 9 of 11" in out
    assert "Soak dice: bashing 4, lethal 4" in out
    bite = next(line for line in out.splitlines() if line.strip().startswith("bite"))
    assert "aggravated" in bite and "after a grapple" in bite


@pytest.mark.parametrize(
    ("name", "expected"),
    [("jax", "Jax, Brujah Neonate"), ("Jax, Brujah Neonate", "Jax, Brujah Neonate"),
     ("nosf", "Gristle, Nosferatu Stalker"), ("neonate_ventrue", "Alistair, Ventrue Neonate"),
     ("ELDER", "The Elder")],
)
def test_a_sheet_by_prefix_name_or_the_name_before_a_comma(name: str, expected: str) -> None:
    assert load_stat_block(name).name == expected
    code, out = run("attack", "--attacker", name, "--defender", "thug", "--json")
    assert code == 0 and json.loads(out)["attacker"] == expected


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["sheets", "neonate"], "'neonate' is ambiguous: it names neonate_brujah, "
                                "neonate_gangrel, neonate_ventrue"),
        (["sheets", "brujah"], "did you mean 'neonate_brujah'"),
        (["card", "--attacker", "knife_figher", "--against", "thug"],
         "did you mean 'knife_fighter'?"),
        (["sheets", "xyzzy"], "no file or shipped stat block 'xyzzy'"),
    ],
)
def test_a_sheet_name_that_misses_is_one_line(args: list[str], needle: str) -> None:
    code, out = run(*args)
    lines = out.strip().splitlines()
    assert code == 2 and len(lines) == 1 and needle in lines[0], out


def test_npc_by_the_name_before_a_comma_a_prefix_or_a_short_name() -> None:
    b = load_scenario("elder_vs_coterie").battle(seed=0)
    names = [c.name for c in b.combatants]
    assert names[find_combatant(b, "Jax")] == "Jax, Brujah Neonate"
    assert names[find_combatant(b, "wren")] == "Wren, Gangrel Neonate"
    assert names[find_combatant(b, "the el")] == "The Elder"
    with pytest.raises(ConfigError, match="did you mean 'Alistair, Ventrue Neonate'"):
        find_combatant(b, "Alistar")


def test_npc_on_the_command_line_is_matched_too() -> None:
    code, out = run("suggest", "elder_vs_coterie", "--npc", "jaks")
    assert code == 2 and "--npc: no combatant 'jaks'; did you mean" in out
