"""``vtm-sim weapons`` and ``vtm-sim sheets``: the weapon table, and the stat blocks with
the numbers a fight makes of them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from vtm_sim.cli.base import RULES_HELP, _dump, main, user_errors

if TYPE_CHECKING:
    from vtm_sim.core.weapons import Weapon
    from vtm_sim.mechanics.derived import SheetNumbers


def _weapon_row(w: Weapon) -> dict[str, Any]:
    return {
        "name": w.name, "class": w.cls.value,
        "damage": f"Str+{w.strength_bonus}" if w.strength_bonus is not None else str(w.damage),
        "damage_type": w.damage_type.value, "range": w.range or None,
        "rate": w.rate if w.cls.ranged else None, "magazine": w.magazine or None,
        "autofire": w.autofire, "length": w.length, "conceal": w.conceal,
        "scope": w.scope, "trips": w.trips, "elemental": w.elemental,
    }


CONCEAL = {"P": "pocket", "J": "jacket", "T": "trench coat", "N": "no"}


@main.command("weapons")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def weapons_cmd(as_json: bool) -> None:
    """List every weapon of configs/weapons.yaml: damage, range, rate, magazine.

    Damage is a fixed pool (firearms, bows) or Strength + a bonus (melee, thrown);
    range is the short range in yards (RNG-2: up to twice it at +2 difficulty); rate the
    shots a turn (RNG-4); conceal: P pocket, J jacket, T trench coat, N not concealable.
    """
    from vtm_sim.data.tables import load_tables

    with user_errors():
        rows = [_weapon_row(w) for w in load_tables().weapons.values()]
    if as_json:
        click.echo(_dump(rows))
        return
    width = max(len(r["name"]) for r in rows)
    click.echo(f"{'weapon':<{width}}  {'class':<8} {'damage':<6} {'type':<10} {'range':>5} "
               f"{'rate':>4} {'mag':>4}  {'conceal':<11}  notes")
    for r in rows:
        notes = [k for k in ("autofire", "scope", "trips", "elemental") if r[k]]
        if r["class"] in ("melee", "unarmed"):
            notes.insert(0, f"reach {r['length']}")
        click.echo(
            f"{r['name']:<{width}}  {r['class']:<8} {r['damage']:<6} {r['damage_type']:<10} "
            f"{r['range'] or '-':>5} {r['rate'] or '-':>4} {r['magazine'] or '-':>4}  "
            f"{CONCEAL.get(r['conceal'], r['conceal']):<11}  {', '.join(notes)}".rstrip())


@main.command("sheets")
@click.argument("name", required=False, metavar="[NAME]")
@click.option("--rules", "rules_name", default="v20", show_default=True, metavar="NAME",
              help=RULES_HELP)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def sheets_cmd(name: str | None, rules_name: str, as_json: bool) -> None:
    """List the shipped stat blocks, or show one with its derived numbers.

    Without NAME: every stat block of configs/characters/ with a few key numbers. With
    NAME (a file, or a shipped sheet by file name, by its name, its short name, the name
    before a comma or a unique prefix: `vtm-sim sheets jax`): the sheet and what a fight
    makes of it: soak per damage type, defense pools, initiative, health track, blood, and
    the dice of every attack with every weapon it carries.
    """
    from vtm_sim.data.rules import load_rules
    from vtm_sim.data.stat_blocks import build_stat_block, load_stat_block, shipped_sheets
    from vtm_sim.data.tables import load_tables
    from vtm_sim.mechanics.derived import sheet_numbers

    with user_errors():
        rules = load_rules(rules_name)
        tables = load_tables()
        if name is not None:
            numbers = sheet_numbers(load_stat_block(name, tables), rules, tables)
        else:
            listed = [(p.stem, sheet_numbers(build_stat_block(spec, str(p), tables), rules,
                                             tables))
                      for p, spec in shipped_sheets()]
    if name is not None:
        if as_json:
            click.echo(_dump({"rules": rules.name, **numbers.to_json()}))
        else:
            for line in _sheet_text(numbers, rules.name):
                click.echo(line)
        return
    if as_json:
        click.echo(_dump([{"file": stem, **_summary(n)} for stem, n in listed]))
        return
    width = max(len(stem) for stem, _ in listed)
    nwidth = max(len(n.stats.name) for _, n in listed)
    click.echo(f"{'sheet':<{width}}  {'name':<{nwidth}}  {'kind':<13} init  soak B/L/A  "
               "dodge  weapons")
    for stem, n in listed:
        s = _summary(n)
        soak = "/".join(str(n.soak[t]) for t in ("bashing", "lethal", "aggravated"))
        click.echo(f"{stem:<{width}}  {s['name']:<{nwidth}}  {s['kind']:<13} "
                   f"{s['initiative']:>4}  {soak:>10}  {s['dodge']:>5}  "
                   f"{', '.join(s['weapons']) or 'unarmed'}")


def _summary(n: SheetNumbers) -> dict[str, Any]:
    s = n.stats
    kind = s.kind.value + (f" {s.generation}th" if s.generation is not None else "")
    return {"name": s.name, "kind": kind, "initiative": n.initiative, "soak": dict(n.soak),
            "dodge": n.defense["dodge"], "blood_pool": s.blood_pool or None,
            "weapons": [w.name for w in s.weapons]}


def _dots(traits: dict[str, int]) -> str:
    return ", ".join(f"{k.replace('_', ' ').capitalize()} {v}" for k, v in traits.items() if v)


def _sheet_text(n: SheetNumbers, rules: str) -> list[str]:
    s = n.stats
    kind = s.kind.value + (f", generation {s.generation}" if s.generation is not None else "")
    lines = [f"{s.name} ({s.source}): {kind}"]
    if s.short:
        lines.append(f"  Short name: {s.short}")
    pools = f"Willpower {s.willpower}"
    if s.blood_pool:
        pools = (f"Blood {s.blood} of {s.blood_pool}, {s.blood_per_turn} a turn (VAMP-1); "
                 + pools)
    lines.append(f"  {pools}")
    lines.append(f"  Attributes: {_dots(s.attributes)}")
    if any(s.abilities.values()):
        lines.append(f"  Abilities: {_dots(s.abilities)}")
    if any(s.disciplines.values()):
        lines.append(f"  Disciplines: {_dots(s.disciplines)}")
    if s.specialties:
        lines.append("  Specialties: " + ", ".join(f"{k} ({v})" for k, v in
                                                   s.specialties.items()))
    if s.merits:
        lines.append(f"  Merits: {', '.join(sorted(s.merits))}")
    armor = "none" if s.armor is None else (
        f"{s.armor.name} (rating {s.armor.rating}, -{s.armor.penalty} Dexterity dice)")
    lines.append(f"  Weapons: {', '.join(w.name for w in s.weapons) or 'none'}; "
                 f"armor: {armor}")
    lines.append(f"Derived ({rules} rules, unhurt):")
    lines.append("  Soak dice: " + ", ".join(f"{k} {v}" for k, v in n.soak.items())
                 + " (fire: aggravated elemental, SOAK-3)")
    lines.append("  Defense dice: " + ", ".join(f"{k} {v}" for k, v in n.defense.items()))
    lines.append(f"  Initiative: {n.initiative} + 1d10 (INIT-1); stunned by more than "
                 f"{n.stun} levels in one blow (DMG-6)")
    burden = (f", +{n.burden_difficulty} difficulty from its load"
              if n.burden_difficulty else "")
    lines.append(f"  Runs {n.run:g} yards a turn (MOVE-1); carries {n.carry_limit:g} lb "
                 f"without penalty (MOVE-2){burden}")
    lines.append("  Health: " + ", ".join(
        f"{name.capitalize()}" + (f" -{p}" if p else "") for name, p in n.health))
    lines.append("Attacks (in the open, in reach; a shot at the weapon's short range):")
    if not n.attacks:
        lines.append("  none")
        return lines
    mw = max(len(a.maneuver) for a in n.attacks)
    ww = max(len(a.weapon) for a in n.attacks)
    lines.append(f"  {'maneuver':<{mw}}  {'weapon':<{ww}}  dice  diff  damage")
    for a in n.attacks:
        if a.damage:
            dmg = f"{a.damage}{f' +{a.potence} auto' if a.potence else ''} {a.damage_type}"
        else:
            dmg = "none"
        note = " (after a grapple, MAN-8)" if a.after_grapple else ""
        lines.append(f"  {a.maneuver.replace('_', ' '):<{mw}}  {a.weapon:<{ww}}  {a.pool:>4}  "
                     f"{a.difficulty:>4}  {dmg}{note}")
    return lines
