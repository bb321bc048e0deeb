"""A Foundry VTT WoD20 actor export as a stat block (``vtm-sim import foundry``).

The WoD20 system (github.com/JohanFalt/Foundry_WoD20, ``template.json``) keeps an
actor's data under ``system`` (Foundry v10 and later) or ``data`` (older exports):
``attributes.<name>.value``, ``abilities.talent|skill|knowledge.<name>.value`` (and
``.speciality``), ``health.damage.bashing|lethal|aggravated``, ``willpower.permanent``
and ``.temporary``, for a vampire ``generation`` and ``bloodpool.temporary``; its
items are of type ``Melee Weapon``, ``Ranged Weapon``, ``Armor`` and ``Power`` (a
discipline: ``system.type`` ``wod.types.discipline``, its ``level``).

The stat block keeps what the engine plays (docs/sheets.md); the damage, Willpower
and blood the actor has now go to a separate file (``--damage-out``), the form
``vtm-sim table new --damage`` reads. An item whose name is not in the weapon,
armor or discipline tables is left out with one line saying so, and played as a
known one only when the user names the match (``--map "Grandpa's Shotgun=shotgun"``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vtm_sim.errors import ConfigError

__all__ = ["Imported", "convert_actor", "dump_yaml", "parse_map", "read_actor"]

# the system's ability keys that the stat blocks spell otherwise
ABILITY_NAMES = {"animalken": "animal_ken", "craft": "crafts"}
WEAPON_TYPES = ("Melee Weapon", "Ranged Weapon")


@dataclass(frozen=True, slots=True)
class Imported:
    """An actor converted: the stat block and its standing (as YAML-ready dicts), and the
    notes (one line each) about what was left out or mapped."""

    sheet: dict[str, Any]
    standing: dict[str, Any]
    notes: list[str] = field(default_factory=list)


def read_actor(path: str | Path) -> dict[str, Any]:
    """An actor export (JSON) read and checked to be an actor."""
    p = Path(path)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"{p}: file not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{p}: cannot read ({exc})") from None
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{p}: invalid JSON at line {exc.lineno}: {exc.msg}") from None
    if not isinstance(data, dict) or not isinstance(data.get("name"), str) or not (
            isinstance(data.get("system"), dict) or isinstance(data.get("data"), dict)):
        raise ConfigError(f"{p}: not a Foundry actor export (expected an object with name "
                          "and system, or data for an older export)")
    return data


def parse_map(items: Sequence[str]) -> dict[str, str]:
    """``--map "ITEM=NAME"`` options as a mapping (item names compared whatever the case)."""
    out: dict[str, str] = {}
    for text in items:
        item, sep, name = text.rpartition("=")
        if not sep or not item.strip() or not name.strip():
            raise ConfigError(f"--map {text!r}: expected ITEM=NAME, e.g. \"Grandpa's "
                              "Shotgun=shotgun\"")
        out[item.strip().lower()] = name.strip()
    return out


def _key(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")


def _int(v: Any, where: str, source: str, lo: int = 0, hi: int = 10) -> int:
    if isinstance(v, str) and v.strip().lstrip("-").isdigit():
        v = int(v)
    if isinstance(v, bool) or not isinstance(v, int | float) or v != int(v):
        raise ConfigError(f"{source}: {where}: expected a whole number (got {v!r})")
    n = int(v)
    if not lo <= n <= hi:
        raise ConfigError(f"{source}: {where}: expected {lo} to {hi} (got {n})")
    return n


def _kind(actor: Mapping[str, Any], sys_: Mapping[str, Any], source: str) -> str:
    t = str(actor.get("type", "Mortal"))
    variant = str((sys_.get("settings") or {}).get("variant", "")).lower()
    if t == "Vampire":
        return "vampire"
    if t == "Ghoul" or variant == "ghoul":
        return "ghoul"
    if t == "Mortal":
        return "mortal"
    raise ConfigError(f"{source}: type: a {t} actor; only Vampire, Ghoul and Mortal "
                      "actors are played by this engine")


def convert_actor(actor: Mapping[str, Any], mapping: Mapping[str, str] | None = None, *,
                  source: str = "actor") -> Imported:
    """The stat block, standing and notes of a Foundry WoD20 actor.

    Args:
        actor: the export's JSON.
        mapping: item name (lower case) -> the table's weapon, armor or discipline name.
        source: the file name, for messages.

    Raises:
        ConfigError: one line: not an actor, a value out of range, a ``--map`` naming
            nothing the tables know, or a stat block the engine refuses.
    """
    from vtm_sim.data.stat_blocks import (
        ABILITIES,
        ATTRIBUTES,
        DISCIPLINES,
        StatBlockSpec,
        build_stat_block,
    )
    from vtm_sim.data.tables import load_tables

    mapping = dict(mapping or {})
    used: set[str] = set()
    tables = load_tables()
    key = "system" if isinstance(actor.get("system"), dict) else "data"
    sys_: Mapping[str, Any] = actor[key]
    notes: list[str] = []
    kind = _kind(actor, sys_, source)
    attributes = {}
    for name, row in (sys_.get("attributes") or {}).items():
        if name in ATTRIBUTES and isinstance(row, dict):
            attributes[name] = _int(row.get("value", 0), f"{key}.attributes.{name}.value",
                                    source)
    abilities: dict[str, int] = {}
    specialties: dict[str, str] = {}
    skipped: list[str] = []
    for group in ("talent", "skill", "knowledge"):
        for name, row in ((sys_.get("abilities") or {}).get(group) or {}).items():
            if not isinstance(row, dict):
                continue
            where = f"{key}.abilities.{group}.{name}.value"
            n = _int(row.get("value", 0), where, source)
            trait = ABILITY_NAMES.get(name, name)
            if not n:
                continue
            if trait not in ABILITIES:
                skipped.append(name)
                continue
            abilities[trait] = n
            spec = str(row.get("speciality") or "").strip()
            if spec:
                specialties[trait] = spec
    if skipped:
        notes.append(f"{source}: abilities {', '.join(sorted(skipped))}: no use in a fight "
                     "here: left out")
    wp = sys_.get("willpower") or {}
    willpower = _int(wp.get("permanent", 3), f"{key}.willpower.permanent", source)
    sheet: dict[str, Any] = {"name": str(actor["name"]).strip() or "Unnamed", "kind": kind}
    if kind == "vampire":
        sheet["generation"] = _int(sys_.get("generation", 13), f"{key}.generation", source,
                                   3, 15)
    weapons: list[str] = []
    armor: str | None = None
    disciplines: dict[str, int] = {}
    for n, item in enumerate(actor.get("items") or []):
        if not isinstance(item, dict):
            continue
        iname = str(item.get("name", f"item {n}"))
        itype = str(item.get("type", ""))
        idata = item.get("system") if isinstance(item.get("system"), dict) else (
            item.get("data") if isinstance(item.get("data"), dict) else {})
        assert isinstance(idata, dict)
        mapped = mapping.get(iname.lower())
        if mapped is not None:
            used.add(iname.lower())
        if itype in WEAPON_TYPES:
            if idata.get("natural"):
                notes.append(f"{source}: items.{n}: {iname!r} is a natural weapon: the engine "
                             "plays bites and claws as maneuvers: left out")
                continue
            name = mapped or _key(iname)
            if name not in tables.weapons:
                if mapped is not None:
                    raise ConfigError(f"--map {iname}={mapped}: {mapped!r} is not in the "
                                      "weapon table (`vtm-sim weapons`)")
                notes.append(_unknown(source, n, iname, itype, "weapon table",
                                      "club" if itype == "Melee Weapon" else "shotgun"))
                continue
            weapons.append(name)
        elif itype == "Armor":
            name = mapped or _key(iname)
            if name not in tables.armor:
                if mapped is not None:
                    raise ConfigError(f"--map {iname}={mapped}: {mapped!r} is not in the "
                                      "armor table (configs/armor.yaml)")
                notes.append(_unknown(source, n, iname, itype, "armor table", "kevlar_vest"))
                continue
            if armor is not None:
                notes.append(f"{source}: items.{n}: {iname!r}: a second armor: left out "
                             f"(wearing {armor})")
                continue
            armor = name
        elif itype == "Power":
            ptype = str(idata.get("type", ""))
            if "discipline" not in ptype.lower() or ptype.lower().endswith("power"):
                notes.append(f"{source}: items.{n}: {iname!r} ({ptype or 'a power'}): only "
                             "disciplines are played: left out")
                continue
            name = mapped or _key(iname)
            if name not in DISCIPLINES:
                if mapped is not None:
                    raise ConfigError(f"--map {iname}={mapped}: {mapped!r} is not a "
                                      f"discipline (expected one of {', '.join(DISCIPLINES)})")
                notes.append(_unknown(source, n, iname, "discipline", "disciplines",
                                      "potence"))
                continue
            disciplines[name] = _int(idata.get("level", idata.get("value", 0)),
                                     f"items.{n}.{key}.level", source)
    for m in mapping:
        if m not in used:
            raise ConfigError(f"--map {m}: no item of that name on the actor")
    sheet["attributes"] = attributes
    sheet["abilities"] = abilities
    if disciplines:
        sheet["disciplines"] = disciplines
    if specialties:
        sheet["specialties"] = specialties
    sheet["willpower"] = willpower
    sheet["weapons"] = weapons
    if armor is not None:
        sheet["armor"] = armor
    dmg = (sys_.get("health") or {}).get("damage") or {}
    standing: dict[str, Any] = {"name": sheet["name"], "damage": {
        t: _int(dmg.get(t, 0), f"{key}.health.damage.{t}", source, 0, 7)
        for t in ("bashing", "lethal", "aggravated")}}
    standing["willpower"] = _int(wp.get("temporary", willpower), f"{key}.willpower.temporary",
                                 source, 0, willpower)
    pool = sys_.get("bloodpool") or {}
    if kind != "mortal" and "temporary" in pool:
        standing["blood"] = _int(pool.get("temporary", 0), f"{key}.bloodpool.temporary",
                                 source, 0, 50)
    try:
        built = build_stat_block(StatBlockSpec.model_validate(sheet), source, tables)
    except ValueError as exc:  # pydantic's ValidationError, and ConfigError
        first = str(exc).splitlines()
        raise ConfigError(f"{source}: the stat block is refused: "
                          f"{first[-1] if first else exc}") from None
    if "blood" in standing and standing["blood"] > built.blood_pool:
        notes.append(f"{source}: {key}.bloodpool.temporary: {standing['blood']} is more than "
                     f"the pool of {built.blood_pool}: {built.blood_pool} kept")
        standing["blood"] = built.blood_pool
    return Imported(sheet, standing, notes)


def _unknown(source: str, n: int, name: str, what: str, table: str, example: str) -> str:
    return (f"{source}: items.{n}: {name!r} ({what}) is not in the {table}: left out (map "
            f"it with --map \"{name}={example}\" or another name the table knows)")


def dump_yaml(data: Mapping[str, Any]) -> str:
    """A stat block or standing as YAML, keys in the order given, flow style for the
    small mappings (as configs/characters/*.yaml are written)."""
    import yaml

    lines = []
    for k, v in data.items():
        if isinstance(v, dict | list):
            lines.append(f"{k}: " + yaml.safe_dump(v, default_flow_style=True, sort_keys=False,
                                                   width=1000).strip())
        else:
            lines.append(yaml.safe_dump({k: v}, sort_keys=False, allow_unicode=True).strip())
    return "\n".join(lines) + "\n"
