"""export-behaviors: crush damage counted, wounded rows, a glossary, a state file as SOURCE."""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from click.testing import CliRunner

from vtm_sim.analysis.behaviors import GLOSSARY, Situation
from vtm_sim.cli import main

JAX = "Jax, Brujah Neonate"
BAT = "Hired Goon (bat)"


def _cli(*args: str) -> tuple[int, str]:
    r = CliRunner().invoke(main, list(args))
    return r.exit_code, r.output


def _clinch(tmp_path: Path) -> str:
    p = tmp_path / "clinch.yaml"
    p.write_text(f"""\
scenario: ambushed_vampire
turn: 2
combatants:
  "{JAX}": {{at: [0, 0]}}
  "{BAT}": {{at: [1, 0], clinch: "{JAX}"}}
  Hired Goon (knife): {{at: [0, 1]}}
  Street Thug: {{at: [12, 2]}}
""", encoding="utf-8")
    return str(p)


def test_MAN_6_crush_damage_counts_as_levels_dealt(tmp_path: Path) -> None:
    """MAN-6: a crush deals Strength damage with no attack roll; the levels it deals are
    the NPC's too (they were read from hits only: 0.0 for every crush)."""
    code, out = _cli("export-behaviors", _clinch(tmp_path), "--npc", JAX, "--policy",
                     "nearest", "--battles", "30", "--format", "json")
    assert code == 0, out
    card = json.loads(out)
    crushes = [a for r in card["rules"] for a in r["actions"]
               if a["action"] == "crush in the clinch"]
    assert crushes and any(a["mean_levels"] > 0 for a in crushes)
    assert card["scenario"] == "clinch.yaml" and card["npc"] == JAX


def test_DMG_7_wounded_rows_for_detective_ortiz() -> None:
    """Ortiz fights from cover at range and is seldom hit: the card had only unhurt rows.
    Half the battles now begin with him wounded, and every wound band seen often enough
    keeps rows."""
    code, out = _cli("export-behaviors", "gunfight", "--npc", "Detective Ortiz",
                     "--battles", "40", "--format", "json")
    assert code == 0, out
    card = json.loads(out)
    bands = {r["situation"]["wounds"] for r in card["rules"]}
    assert bands & {"hurt", "wounded", "badly hurt"}, bands
    assert card["wounded_starts"] == 20
    assert any("wounded further" in n for n in card["notes"])
    code, out = _cli("export-behaviors", "gunfight", "--npc", "Detective Ortiz",
                     "--battles", "10", "--wounded", "0", "--format", "json")
    assert code == 0 and json.loads(out)["wounded_starts"] == 0


def test_the_card_defines_its_situation_words() -> None:
    words = dict(GLOSSARY)
    for w in ("gun low", "gun loaded", "gun empty", "medium range", "in reach", "close",
              "far", "in cover", "hurt", "wounded", "badly hurt", "levels dealt"):
        assert w in words, w
    # every word a situation can use is defined
    sit = Situation("badly hurt", "medium range", True, "low", "grappled", "low blood")
    for bit in sit.words().split(", "):
        head = bit.replace(" of the nearest enemy", "")
        assert head in words or head.startswith("that enemy"), head
    args = ["export-behaviors", "duel", "--npc", "Knife Fighter", "--policy", "nearest",
            "--battles", "5"]
    code, md = _cli(*args)
    assert code == 0 and "## Words" in md and "- **gun low**:" in md
    assert "- **medium range**: 10 to 30 yards" in md
    code, js = _cli(*args, "--format", "json")
    assert code == 0 and "gun low" in json.loads(js)["glossary"]
    code, ym = _cli(*args, "--format", "yaml")
    assert code == 0 and "medium range" in yaml.safe_load(ym)["glossary"]


def test_export_behaviors_from_a_state_file_as_written(tmp_path: Path) -> None:
    p = tmp_path / "s.yaml"
    p.write_text("scenario: gunfight\nturn: 2\ncombatants:\n"
                 "  Detective Ortiz: {damage: {lethal: 4}, ammo: {heavy_revolver: 1}}\n",
                 encoding="utf-8")
    args = ["export-behaviors", str(p), "--npc", "Detective Ortiz", "--battles", "12",
            "--wounded", "0", "--format", "json"]
    code, out = _cli(*args)
    assert code == 0, out
    card = json.loads(out)
    first = card["rules"]
    assert all(r["situation"]["wounds"] != "unhurt" for r in first)  # 4 lethal: Wounded
    assert _cli(*args) == (code, out)  # deterministic
    code, out = _cli("export-behaviors", str(p), "--npc", "Nobody")
    assert code == 2 and len(out.strip().splitlines()) == 1
