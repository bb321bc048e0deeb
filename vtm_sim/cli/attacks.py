"""One attack through the whole chain, and tactic cards."""

from __future__ import annotations

from typing import Any

import click

from vtm_sim.attack import (
    BASE_DIFFICULTY,
    CLOSE_MANEUVERS,
    AttackPlan,
    legal_defenses,
    maneuver_weapon,
    plan_attack,
    range_modifier,
    resolve_attack,
    roll_attack,
)
from vtm_sim.battle import sheet_of
from vtm_sim.card import card_lines, tactic_card
from vtm_sim.choices import DefenseKind
from vtm_sim.cli.base import (
    FACES_LABELS,
    RULES_HELP,
    SEED_HELP,
    _dump,
    _fail,
    _health_json,
    _odds_summary,
    _parse_faces,
    _rng_dice,
    _roll_json,
    main,
    user_errors,
)
from vtm_sim.combatant import Combatant
from vtm_sim.dice import DiceSource, ScriptedDice
from vtm_sim.errors import DiceError, IllegalActionError
from vtm_sim.events import EventKind, EventLog
from vtm_sim.forecast import plan_odds
from vtm_sim.narration import narrate, plural
from vtm_sim.rules import RuleSet, load_rules
from vtm_sim.stats import load_stat_block
from vtm_sim.tables import WeaponClass, load_tables


def _parse_attack_faces(text: str | None) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    if not text:
        return out
    for part in text.split(";"):
        part = part.strip()
        if not part:
            continue
        label, sep, faces = part.partition("=")
        label = label.strip()
        if not sep or label not in FACES_LABELS:
            _fail(
                f"--faces: expected label=faces with a label among {', '.join(FACES_LABELS)} "
                f"(got {part!r})"
            )
        if label in out:
            _fail(f"--faces: {label} given twice")
        out[label] = _parse_faces(faces, f"--faces {label}")
    return out


def _default_maneuver(c: Combatant) -> str:
    cls = c.weapon.cls
    if cls is WeaponClass.MELEE:
        return "weapon_strike"
    if cls is WeaponClass.THROWN:
        return "thrown"
    if cls is WeaponClass.UNARMED:
        return "punch"
    return "single_shot"


def _wield(c: Combatant, weapon: str | None, path: str) -> None:
    if weapon is None:
        return
    if weapon == "unarmed":
        c.wielding = -1
        return
    names = [w.name for w in c.stats.weapons]
    if weapon not in names:
        has = ", ".join(names) if names else "none"
        _fail(f"{path}: weapons: {c.name} has no {weapon!r} (has: {has}; or 'unarmed')")
    c.wielding = names.index(weapon)


def _plan(
    attacker: Combatant, defender: Combatant, maneuver: str, distance: float, rules: RuleSet
) -> AttackPlan:
    tables = load_tables()
    spec = tables.maneuvers.get(maneuver)
    if spec is None:
        _fail(
            f"--maneuver: unknown maneuver {maneuver!r} "
            f"(expected one of {', '.join(sorted(tables.maneuvers))})"
        )
    weapon = maneuver_weapon(attacker, maneuver)
    if weapon is None:
        _fail(
            f"--maneuver: {attacker.name} cannot use {maneuver} with "
            f"{attacker.weapon.name.replace('_', ' ')} in hand (pick another --weapon or "
            "--maneuver)"
        )
    if maneuver in CLOSE_MANEUVERS:
        reach = float(spec.reach if spec.reach is not None else 1)
        if distance > reach:
            _fail(
                f"--distance: {distance:g} yards is out of reach for {maneuver} "
                f"(at most {reach:g}; ATK-1)"
            )
    else:
        if weapon.cls is WeaponClass.FIREARM and not rules.firearms_allowed:
            _fail(f"--rules: the {rules.name} profile allows no firearms")
        if range_modifier(weapon, distance) is None:
            _fail(
                f"--distance: {distance:g} yards is beyond twice the {weapon.name} range "
                f"of {weapon.range} yards (RNG-2)"
            )
    plan = plan_attack(attacker, defender, maneuver, load_tables(), rules, distance=distance)
    if plan is None:
        _fail(f"{attacker.name} cannot make a {maneuver} attack now")
    return plan


def _check_defense(defender: Combatant, plan: AttackPlan, kind: DefenseKind) -> None:
    if kind is DefenseKind.NONE or kind in legal_defenses(defender, plan):
        return
    what = plan.maneuver.replace("_", " ")
    if not plan.close:
        raise IllegalActionError(
            f"--defense: {kind.value} only works in close combat; "
            f"against a {what} only dodge is allowed (DEF-4, DEF-6)"
        )
    if kind is DefenseKind.BLOCK:
        raise IllegalActionError(
            f"--defense: {defender.name} cannot block {plan.damage_type.value} damage without "
            "armor or Fortitude (DEF-4)"
        )
    raise IllegalActionError(
        f"--defense: {defender.name} cannot parry without a melee weapon in hand (DEF-6)"
    )


def attack_levels_odds(
    plan: AttackPlan, defender: Combatant, defense: DefenseKind, rules: RuleSet
) -> tuple[float, ...]:
    """Exact distribution of health levels dealt by ``plan`` (index = levels)."""
    return plan_odds(plan, defender, rules, defense)


@main.command("attack")
@click.option(
    "--attacker", "attacker_file", required=True, metavar="FILE", help="Attacker's stat block."
)
@click.option(
    "--defender", "defender_file", required=True, metavar="FILE", help="Defender's stat block."
)
@click.option(
    "--maneuver",
    metavar="NAME",
    help="A maneuver from configs/maneuvers.yaml (default: weapon_strike with a melee "
    "weapon, single_shot with a firearm or bow, thrown with a thrown weapon, punch unarmed).",
)
@click.option(
    "--weapon",
    metavar="NAME",
    help="One of the attacker's weapons, or 'unarmed' (default: its first weapon).",
)
@click.option(
    "--distance",
    type=click.FloatRange(min=0),
    metavar="YARDS",
    help="Yards between them (default: 1 for close combat, 10 for ranged attacks).",
)
@click.option(
    "--defense",
    type=click.Choice([k.value for k in DefenseKind]),
    default="none",
    show_default=True,
    help="The defender's reaction (DEF-4..6).",
)
@click.option(
    "--faces",
    metavar="LABEL=FACES;...",
    help="The Storyteller's dice per roll, e.g. \"attack=8,6,7;defense=2,9;"
    'damage=6,6,1;soak=7" (dodge, block and parry use defense=); other rolls use '
    "--seed.",
)
@click.option("--seed", type=int, default=0, metavar="N", help=SEED_HELP)
@click.option(
    "--odds",
    "show_odds",
    is_flag=True,
    help="Also print the exact distribution of health levels dealt.",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.option(
    "--rules", "rules_name", default="v20", show_default=True, metavar="NAME", help=RULES_HELP
)
def attack_cmd(
    attacker_file: str,
    defender_file: str,
    maneuver: str | None,
    weapon: str | None,
    distance: float | None,
    defense: str,
    faces: str | None,
    seed: int,
    show_odds: bool,
    as_json: bool,
    rules_name: str,
) -> None:
    """Resolve one attack through the whole chain: attack, defense, damage, soak."""
    with user_errors():
        rules = load_rules(rules_name)
        scripted = _parse_attack_faces(faces)
        tables = load_tables()
        a_stats = load_stat_block(attacker_file, tables)
        d_stats = load_stat_block(defender_file, tables)
        attacker = Combatant.create(0, a_stats, 0, tables)
        _wield(attacker, weapon, attacker_file)
        man = maneuver or _default_maneuver(attacker)
        if distance is None:
            distance = 1.0 if man in CLOSE_MANEUVERS else 10.0
        defender = Combatant.create(1, d_stats, 1, tables, float(distance))
        plan = _plan(attacker, defender, man, float(distance), rules)
        kind = DefenseKind(defense)
        _check_defense(defender, plan, kind)

        odds = attack_levels_odds(plan, defender, kind, rules) if show_odds else None
        sources = {k: ScriptedDice(v, f"--faces {k}") for k, v in scripted.items()}
        rng = _rng_dice(seed)

        def dice_for(label: str) -> DiceSource:
            return sources.get("defense" if label in ("dodge", "block", "parry") else label, rng)

        log = EventLog([_header(attacker, defender, rules)])
        log.emit(
            {
                "e": EventKind.ATTACK,
                "who": 0,
                "target": 1,
                "maneuver": plan.maneuver,
                "weapon": plan.weapon.name,
            }
        )
        if kind is not DefenseKind.NONE:
            log.emit({"e": EventKind.DEFENSE, "who": 1, "kind": kind.value, "against": 0})
        if plan.maneuver == "spray":  # RNG-6: a lone target gets half; dodging is +1
            atk = roll_attack(plan, attacker, rules, dice_for, log)
            out = resolve_attack(
                plan, attacker, defender, kind, 0, BASE_DIFFICULTY + 1, rules, dice_for, log,
                1, attack_roll=atk, successes=atk.successes // 2, spray=True,
            )
        else:
            out = resolve_attack(
                plan, attacker, defender, kind, 0, BASE_DIFFICULTY, rules, dice_for, log, 1
            )
        unused = []
        for key, src in sources.items():
            given = len(scripted[key])
            if src.remaining == given and given:
                unused.append(key)  # that roll never happened (a miss, or no dice to soak)
            elif src.remaining:
                raise DiceError(
                    f"--faces {key}: {plural(src.remaining, 'face')} left over: "
                    f"the roll used {given - src.remaining}"
                )
    if as_json:
        data: dict[str, Any] = {
            "attacker": attacker.name,
            "defender": defender.name,
            "maneuver": plan.maneuver,
            "weapon": plan.weapon.name,
            "distance": distance,
            "attack": _roll_json(out.attack),
            "defense": _roll_json(out.defense),
            "damage": _roll_json(out.damage),
            "soak": _roll_json(out.soak),
            "net_successes": out.net,
            "damage_type": out.damage_type.value,
            "health_levels": out.levels,
            "stunned": out.stunned,
            "defender_health": _health_json(defender),
            "attacker_health": _health_json(attacker),
        }
        if odds is not None:
            data["odds"] = {str(k): p for k, p in enumerate(odds)}
        click.echo(_dump(data))
        return
    for line in narrate(log.events):
        click.echo(line)
    for key in unused:
        click.echo(f"(No {key} roll was made: its --faces were not used.)")
    if odds is not None:
        mean = sum(k * p for k, p in enumerate(odds))
        click.echo(f"Odds of health levels dealt (mean {mean:.3f}): {_odds_summary(odds)}")


def _header(attacker: Combatant, defender: Combatant, rules: RuleSet) -> dict[str, Any]:
    """A battle header naming the two sides, so the attack narrates like a battle."""
    return {
        "e": EventKind.BATTLE,
        "rules": rules.model_dump(),
        "combatants": [
            {"id": c.id, "side": c.side, "x": c.x, "y": c.y, "sheet": sheet_of(c.stats)}
            for c in (attacker, defender)
        ],
    }


# --- fight and replay -----------------------------------------------------------


@main.command("card")
@click.option("--attacker", "attacker_file", required=True, metavar="FILE",
              help="The attacker's stat block (YAML).")
@click.option("--against", "defender_file", required=True, metavar="FILE",
              help="The defender's stat block (YAML).")
@click.option("--distance", type=click.FloatRange(min=0), default=1.0, show_default=True,
              metavar="YARDS", help="Yards between them (close attacks close in: ACT-4).")
@click.option("--no-defense", is_flag=True, help="Assume the defender does not defend.")
@click.option("--rules", "rules_name", default="v20", show_default=True, metavar="NAME",
              help=RULES_HELP)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def card_cmd(attacker_file: str, defender_file: str, distance: float, no_defense: bool,
             rules_name: str, as_json: bool) -> None:
    """A tactic card: every attack the attacker can make, with exact odds."""
    with user_errors():
        rules = load_rules(rules_name)
        tables = load_tables()
        card = tactic_card(load_stat_block(attacker_file, tables),
                           load_stat_block(defender_file, tables), distance=distance,
                           rules=rules, defend=not no_defense)
    if as_json:
        best = card.best
        click.echo(_dump({
            "attacker": card.attacker, "defender": card.defender, "distance": card.distance,
            "rules": card.rules, "best": best.maneuver if best else None,
            "rows": [{
                "maneuver": r.maneuver, "weapon": r.weapon, "pool": r.pool,
                "difficulty": r.difficulty, "defense": r.defense,
                "defense_pool": r.defense_pool, "damage_pool": r.damage_pool,
                "damage_type": r.damage_type, "soak_pool": r.soak_pool, "p_hit": r.p_hit,
                "expected_levels": r.expected_levels, "p_big_hit": r.p_big_hit,
                "distribution": {str(k): p for k, p in enumerate(r.distribution)},
            } for r in card.rows],
        }))
        return
    for line in card_lines(card):
        click.echo(line)
