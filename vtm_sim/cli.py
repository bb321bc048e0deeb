"""The ``vtm-sim`` command line: thin Click commands over the library (STYLE 11).

Each command parses its options, loads the YAML it names, calls the library
and prints (``--json`` for machine-readable output). User errors print one
line on stderr and exit with status 2 (1 when a replay fails to verify);
never a traceback. Dice come from ``--seed`` (default 0) unless given with
``--faces``; the same seed always prints the same bytes.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict
from pathlib import Path
from typing import Any, Literal, NoReturn

import click
import numpy as np

from vtm_sim.attack import (
    BASE_DIFFICULTY,
    CLOSE_MANEUVERS,
    DEFENSE_ABILITY,
    AttackPlan,
    defense_pool,
    effective_damage_type,
    legal_defenses,
    maneuver_weapon,
    plan_attack,
    range_modifier,
    resolve_attack,
    roll_attack,
    soak_pool,
)
from vtm_sim.battle import Battle, Fighter, sheet_of
from vtm_sim.card import card_lines, tactic_card
from vtm_sim.choices import DefenseKind
from vtm_sim.combatant import Combatant
from vtm_sim.dice import DiceSource, RngDice, Roll, ScriptedDice, SpecialtyRule, roll
from vtm_sim.errors import ConfigError, DiceError, IllegalActionError, VtmSimError
from vtm_sim.events import EventKind, EventLog
from vtm_sim.movement import JUMP_DIFFICULTY, Pursuit, jump_feet, jump_pool
from vtm_sim.narration import narrate, plural, roll_text
from vtm_sim.odds import attack_odds, roll_odds
from vtm_sim.policy import NearestEnemyPolicy
from vtm_sim.replay import replay as replay_log
from vtm_sim.rules import RuleSet, load_rules
from vtm_sim.scenario import Scenario, list_scenarios, load_scenario
from vtm_sim.simulate import Policy, play
from vtm_sim.simulate import fight as run_fight
from vtm_sim.stats import load_stat_block
from vtm_sim.tables import DamageType, WeaponClass, load_tables
from vtm_sim.tactics import TacticianPolicy
from vtm_sim.tournament import POLICIES, PolicyMaker, check_setup, run_tournament, table_lines

SEED_HELP = "Seed of the dice not given with --faces (default 0)."
RULES_HELP = "Rules profile: a name under configs/rules/ or a YAML file."
MAX_POOL = 100
FACES_LABELS = ("attack", "defense", "damage", "soak")


class UserError(click.ClickException):
    """Bad input: one line on stderr, exit status 2."""

    exit_code = 2


class ReplayFailed(click.ClickException):
    """A log that does not replay: one line on stderr, exit status 1."""

    exit_code = 1


@contextmanager
def user_errors() -> Iterator[None]:
    """Turn the library's errors into one-line messages (STYLE 12)."""
    try:
        yield
    except VtmSimError as exc:
        raise UserError(str(exc)) from None


def _fail(message: str) -> NoReturn:
    raise UserError(message)


_NUMBER_LIST = re.compile(r"\[\s*([-+0-9.eE,\s]*?)\s*\]")


def _dump(data: Any) -> str:
    """Indented JSON with lists of numbers (dice faces) kept on one line."""
    text = json.dumps(data, indent=2, ensure_ascii=False)
    return _NUMBER_LIST.sub(_one_line, text)


def _one_line(m: re.Match[str]) -> str:
    items = [x.strip() for x in m.group(1).split(",") if x.strip()]
    return "[" + ", ".join(items) + "]"


def _rng_dice(seed: int) -> RngDice:
    return RngDice(np.random.default_rng(seed))


def _parse_faces(text: str, where: str) -> list[int]:
    """``"1, 9,10"`` -> [1, 9, 10]; faces are checked by ScriptedDice (1..10)."""
    items = [t.strip() for t in text.split(",")]
    if items == [""]:
        return []
    try:
        return [int(t) for t in items]
    except ValueError:
        _fail(f"{where}: expected comma-separated d10 faces such as 1,9,10 (got {text!r})")


def _roll_words(r: Roll) -> str:
    """A roll in the narration's words: ``6 dice at difficulty 6 -> ...: 2 successes``."""
    return roll_text({
        "pool": r.pool, "diff": r.difficulty, "faces": list(r.faces), "succ": r.successes,
        "botch": r.botch, "spec": r.specialty, "wp": r.willpower,
    })


def _roll_json(r: Roll | None) -> dict[str, Any] | None:
    if r is None:
        return None
    return {
        "pool": r.pool,
        "difficulty": r.difficulty,
        "faces": list(r.faces),
        "successes": r.successes,
        "botch": r.botch,
    }


def _odds_summary(dist: tuple[float, ...]) -> str:
    """``0: 0.1560, 1: 0.1965, ...``; a tail below 0.00005 is summed as ``N+``."""
    last = max((k for k, p in enumerate(dist) if p >= 5e-5), default=0)
    parts = [f"{k}: {p:.4f}" for k, p in enumerate(dist[: last + 1])]
    if last + 1 < len(dist):
        parts.append(f"{last + 1}+: {sum(dist[last + 1 :]):.4f}")
    return ", ".join(parts)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="vtm-sim")
def main() -> None:
    """Vampire: The Masquerade (V20) combat simulator.

    Commands that roll dice take --seed (default 0): the same seed prints the
    same output, byte for byte. Bad input prints one line on stderr and exits
    with status 2; a log that fails to replay exits with status 1.
    """


# --- roll -------------------------------------------------------------------


def _explode_pool(faces: list[int]) -> int | None:
    """The pool whose exploding specialty roll (DICE-5) uses exactly ``faces``."""
    for pool in range(len(faces), 0, -1):
        used, extra = pool, faces[:pool].count(10)
        while extra and used + extra <= len(faces):
            more = faces[used : used + extra]
            used += extra
            extra = more.count(10)
        if not extra and used == len(faces):
            return pool
    return None


@main.command("roll")
@click.argument("pool", type=click.IntRange(0, MAX_POOL), required=False)
@click.option(
    "-d",
    "--difficulty",
    type=int,
    metavar="DIFF",
    default=6,
    show_default=True,
    help="Difficulty; clamped to 2..10 (DICE-1).",
)
@click.option(
    "--specialty",
    is_flag=True,
    help="A specialty applies: 10s follow the profile's specialty rule (DICE-5).",
)
@click.option("--willpower", is_flag=True, help="Spend Willpower: one automatic success (DICE-8).")
@click.option(
    "--damage", is_flag=True, help="A damage or soak roll: 1s do not cancel, no botch (DICE-6)."
)
@click.option(
    "--faces",
    metavar="FACES",
    help="The Storyteller's dice, e.g. 1,9,10,6 (POOL defaults to their "
    "number; exploding 10s need one more face each).",
)
@click.option("--seed", type=int, default=0, metavar="N", help=SEED_HELP)
@click.option("--odds", "show_odds", is_flag=True, help="Also print the exact odds of the roll.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.option(
    "--rules", "rules_name", default="v20", show_default=True, metavar="NAME", help=RULES_HELP
)
def roll_cmd(
    pool: int | None,
    difficulty: int,
    specialty: bool,
    willpower: bool,
    damage: bool,
    faces: str | None,
    seed: int,
    show_odds: bool,
    as_json: bool,
    rules_name: str,
) -> None:
    """Roll POOL d10 against a difficulty (DICE-1..8)."""
    with user_errors():
        rules = load_rules(rules_name)
        spec = rules.specialty if specialty else None
        dice: DiceSource
        scripted: ScriptedDice | None = None
        if faces is not None:
            given = _parse_faces(faces, "--faces")
            scripted = dice = ScriptedDice(given, "--faces")
            if pool is None:
                if spec is SpecialtyRule.EXPLODE:
                    found = _explode_pool(given)
                    if found is None:
                        _fail(
                            "--faces: every exploding 10 needs one more face "
                            "(DICE-5); give POOL or add the missing faces"
                        )
                    pool = found
                else:
                    pool = len(given)
                if pool > MAX_POOL:
                    _fail(f"--faces: at most {MAX_POOL} dice (got {pool})")
        elif pool is None:
            _fail("give POOL, or the dice with --faces")
        else:
            dice = _rng_dice(seed)
        r = roll(pool, difficulty, dice, specialty=spec, damage=damage, willpower=willpower)
        if scripted is not None and scripted.remaining:
            raise DiceError(
                f"--faces: {plural(len(r.faces) + scripted.remaining, 'face')} given "
                f"but the roll of {plural(pool, 'die', 'dice')} used {len(r.faces)}"
            )
        odds = roll_odds(pool, difficulty, specialty=spec, willpower=willpower, damage=damage)
    data: dict[str, Any] = _roll_json(r) or {}
    data.update(specialty=spec.value if spec else None, willpower=willpower, damage=damage)
    if show_odds:
        data["odds"] = {
            "p_success": odds.p_success,
            "p_botch": odds.p_botch,
            "expected_successes": odds.expected,
            "distribution": {str(k): p for k, p in odds.as_dict().items()},
        }
    if as_json:
        click.echo(_dump(data))
        return
    text = _roll_words(r)
    if damage:
        text = text.replace(" at difficulty", " (damage roll) at difficulty", 1)
    clamped = (
        f" (difficulty {difficulty} clamped to {r.difficulty})"
        if r.difficulty != difficulty
        else ""
    )
    click.echo(f"{text}.{clamped}")
    if show_odds:
        click.echo(
            f"P(success) {odds.p_success:.4f}, P(botch) {odds.p_botch:.4f}, "
            f"expected successes {odds.expected:.3f}"
        )
        click.echo(f"Net successes: {_odds_summary(odds.distribution)}")


# --- attack -------------------------------------------------------------------


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
    """Exact distribution of health levels dealt by ``plan`` (index = levels).

    Pools come from the defender's state before the attack; Potence's
    automatic damage successes (VAMP-5) are included.
    """
    spec_rule = rules.specialty
    d_pool, d_spec = 0, None
    if defense is not DefenseKind.NONE:
        d_pool = defense_pool(defender, defense, 0)
        if defender.stats.has_specialty(DEFENSE_ABILITY[defense]):
            d_spec = spec_rule
    dtype = effective_damage_type(plan.damage_type, plan.weapon, defender, rules)
    s_pool = soak_pool(defender, dtype, rules)
    halve = dtype is DamageType.BASHING and defender.vampire  # DMG-5
    a_spec = spec_rule if plan.specialty else None
    return attack_odds(
        attack_pool=plan.pool,
        attack_difficulty=plan.difficulty,
        attack_specialty=a_spec,
        defense_pool=d_pool,
        defense_difficulty=BASE_DIFFICULTY + (1 if plan.maneuver == "spray" else 0),
        defense_specialty=d_spec,
        damage_base=plan.damage_base,
        damage_difficulty=BASE_DIFFICULTY,
        extra_successes_add=plan.extra_successes_add,
        soak_pool=s_pool,
        soak_difficulty=BASE_DIFFICULTY,
        halve=halve,
        auto_hit=plan.auto_hit,
        damage_auto=plan.damage_auto,
        lone_spray=plan.maneuver == "spray",
    )


def _health_json(c: Combatant) -> dict[str, str]:
    return {
        "track": c.health.marks(),
        "level": c.health.level_name,
        "status": c.health.status.value,
    }


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


@main.command("fight")
@click.argument("a_file", metavar="SCENARIO|A.yaml")
@click.argument("b_file", metavar="[B.yaml]", required=False)
@click.option(
    "--seed",
    type=int,
    default=0,
    metavar="N",
    help="Seed of every die in the battle (default 0).",
)
@click.option("--narrate", "tell", is_flag=True, help="Print the battle as narration.")
@click.option(
    "--log",
    "log_file",
    type=click.Path(dir_okay=False, writable=True),
    metavar="FILE",
    help="Write the JSONL event log here (replay it with `vtm-sim replay`).",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.option(
    "--distance",
    type=click.FloatRange(min=0),
    metavar="YARDS",
    default=10.0,
    show_default=True,
    help="Yards between A (side 0, at x=0) and B (side 1); not for scenarios.",
)
@click.option(
    "--turns",
    type=click.IntRange(1, 1000),
    metavar="N",
    default=None,
    help="Turn limit: the battle ends undecided after this many turns "
    "(default 20, or the scenario's).",
)
@click.option(
    "--rules", "rules_name", default=None, metavar="NAME",
    help=RULES_HELP + " Default v20, or the scenario's.",
)
@click.option(
    "--policy", "policy_name", type=click.Choice(["nearest", "tactician"]), default="nearest",
    show_default=True,
    help="How every combatant decides: rules of thumb, or the best attack by exact odds.",
)
def fight_cmd(
    a_file: str,
    b_file: str,
    seed: int,
    tell: bool,
    log_file: str | None,
    as_json: bool,
    distance: float,
    turns: int | None,
    rules_name: str | None,
    policy_name: str,
) -> None:
    """Run a seeded battle with a built-in policy on every side.

    Either a scenario (a name from `vtm-sim scenarios`, or a scenario file),
    or two stat blocks: A (side 0) against B (side 1), DISTANCE yards apart.
    """
    with user_errors():
        if b_file is None:
            scenario = load_scenario(a_file)
            rules = load_rules(rules_name) if rules_name else scenario.rules
            battle = play(Battle(
                scenario.fighters, seed=seed, rules=rules,
                turn_limit=turns or scenario.turn_limit, field=scenario.field,
                ambush=scenario.ambush,
            ), _policies(policy_name, len(scenario.fighters)))
        else:
            rules = load_rules(rules_name or "v20")
            tables = load_tables()
            a = load_stat_block(a_file, tables)
            b = load_stat_block(b_file, tables)
            battle = run_fight(
                [Fighter(a, 0, 0.0), Fighter(b, 1, float(distance))],
                seed=seed,
                rules=rules,
                turn_limit=turns or 20,
                policies=_policies(policy_name, 2),
            )
    if log_file is not None:
        try:
            battle.log.write(Path(log_file))
        except OSError as exc:
            _fail(f"--log {log_file}: cannot write ({exc.strerror})")
    winner = None
    if battle.winner is not None:
        winner = ", ".join(c.name for c in battle.combatants if c.side == battle.winner)
    lines = narrate(battle.log.events) if tell else []
    if as_json:
        data: dict[str, Any] = {
            "winner": winner,
            "winner_side": battle.winner,
            "reason": battle.end_reason,
            "turns": battle.turn,
            "events": len(battle.log),
            "log_sha256": battle.log.sha256(),
            "seed": seed,
            "rules": rules.name,
            "final": [
                {"name": c.name, "side": c.side, **_health_json(c)} for c in battle.combatants
            ],
        }
        if tell:
            data["narration"] = lines
        click.echo(_dump(data))
        return
    if tell:
        for line in lines:
            click.echo(line)
        return
    outcome = f"{winner} wins" if winner else "no winner"
    if battle.end_reason == "turn limit":
        outcome += " (turn limit)"
    click.echo(f"{outcome} after {plural(battle.turn, 'turn')} (seed {seed}, rules {rules.name}).")
    for c in battle.combatants:
        click.echo(
            f"  {c.name} (side {c.side}): {c.health.marks()} "
            f"{c.health.level_name}, {c.health.status.value}"
        )
    click.echo(f"{len(battle.log)} events, sha256 {battle.log.sha256()}")


def _policies(name: str, n: int) -> list[Policy]:
    if name == "tactician":
        return [TacticianPolicy() for _ in range(n)]
    return [NearestEnemyPolicy() for _ in range(n)]


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


def _agent_makers(names: list[str], scenario: Scenario) -> dict[str, PolicyMaker]:
    """Scripted and learned env agents as battle policies (imports envs only if asked)."""
    makers: dict[str, PolicyMaker] = {}
    wanted = [n for n in names if n == "brawler" or n.startswith("model:")]
    if not wanted:
        return makers
    from agents.scripted import BrawlerAgent
    from envs.adapter import AgentPolicy

    def brawler(_rng: np.random.Generator, cid: int) -> Policy:
        return AgentPolicy(lambda catalog, encoder: BrawlerAgent(catalog, encoder, cid), scenario)

    for name in wanted:
        if name == "brawler":
            makers[name] = brawler
        else:
            makers[name] = _learned_maker(name.removeprefix("model:"), scenario)
    return makers


def _learned_maker(path: str, scenario: Scenario) -> PolicyMaker:
    from agents.learned import LearnedAgent
    from envs.adapter import AgentPolicy

    try:
        agent = LearnedAgent.load(path)
    except (OSError, ValueError, ImportError) as exc:
        raise ConfigError(f"--policies: {path}: cannot load the model ({exc})") from None
    mode: Literal["flat", "dict"] = "dict" if agent.info.obs_mode == "dict" else "flat"

    def make(_rng: np.random.Generator, _cid: int) -> Policy:
        return AgentPolicy(agent, scenario, obs_mode=mode)

    return make


@main.command("tournament")
@click.argument("scenario_name", metavar="[SCENARIO]", default="duel")
@click.option("--policies", default="nearest,tactician,random", show_default=True,
              metavar="A,B,...",
              help="Policies to pit against each other: nearest, tactician, random, "
              "brawler (the scripted env agent), or model:PATH (a saved trained agent).")
@click.option("--battles", type=click.IntRange(1, 100000), default=100, show_default=True,
              metavar="N", help="Seeded battles per pairing.")
@click.option("--seed", type=int, default=0, metavar="N", help="First seed (default 0).")
@click.option("--side", type=int, default=None, metavar="S",
              help="The side the row policy plays (default the scenario's first).")
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default=None,
              metavar="DIR", help="Write results.json (with the resolved setup) here.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def tournament_cmd(scenario_name: str, policies: str, battles: int, seed: int,
                   side: int | None, out_dir: str | None, as_json: bool) -> None:
    """Pit policies against each other on a scenario: a results table with 95% intervals."""
    names = [p.strip() for p in policies.split(",") if p.strip()]
    with user_errors():
        scenario = load_scenario(scenario_name)
        makers = _agent_makers(names, scenario)
        check_setup(scenario, names, side, {**POLICIES, **makers})
        total = len(names) ** 2 * battles
        with click.progressbar(length=total, label="battles", file=sys.stderr,
                               show_pos=True) as bar:
            result = run_tournament(scenario, names, battles=battles, seed=seed, side=side,
                                    progress=bar.update, makers=makers)
    data = {
        "scenario": result.scenario, "scenario_file": scenario.source,
        "rules": scenario.rules.model_dump(), "policies": list(result.policies),
        "battles": battles, "seed": seed, "side": result.side,
        "table": [asdict(r) for r in result.table()],
        "pairs": [{"a": a, "b": b, **asdict(t), "score": t.score}
                  for (a, b), t in result.pairs.items()],
    }
    if out_dir is not None:
        try:
            Path(out_dir).mkdir(parents=True, exist_ok=True)
            (Path(out_dir) / "results.json").write_text(_dump(data) + "\n", encoding="utf-8")
        except OSError as exc:
            _fail(f"--out {out_dir}: cannot write ({exc.strerror})")
    if as_json:
        click.echo(_dump(data))
        return
    for line in table_lines(result):
        click.echo(line)


@main.command("jump")
@click.argument("sheet_file", metavar="FILE")
@click.option("--running", is_flag=True, help="A running jump: Strength + Athletics.")
@click.option("--vertical", is_flag=True, help="Up (2 ft a success) rather than across (4 ft).")
@click.option("--faces", default=None, metavar="1,9,...", help="The dice you rolled.")
@click.option("--seed", type=int, default=0, metavar="N", help=SEED_HELP)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def jump_cmd(sheet_file: str, running: bool, vertical: bool, faces: str | None, seed: int,
             as_json: bool) -> None:
    """MOVE-3: how far a character jumps (Strength, + Athletics running, difficulty 3)."""
    with user_errors():
        tables = load_tables()
        c = Combatant.create(0, load_stat_block(sheet_file, tables), 0, tables)
        pool = jump_pool(c, running)
        dice: DiceSource = (ScriptedDice(_parse_faces(faces, "--faces"), "--faces")
                            if faces is not None else _rng_dice(seed))
        r = roll(pool, JUMP_DIFFICULTY, dice)
        feet = jump_feet(r.successes, vertical=vertical)
    if as_json:
        click.echo(_dump({**(_roll_json(r) or {}), "feet": feet, "vertical": vertical,
                          "running": running}))
        return
    way = "up" if vertical else "across"
    click.echo(f"{c.name} jumps ({'running' if running else 'standing'}): {_roll_words(r)} "
               f"-> {feet:g} ft {way} ({feet * 0.3048:.2f} m).")


def chase_lead(lead: float, vehicles: bool) -> int:
    return Pursuit.start(lead, vehicles=vehicles).quarry


@main.command("pursuit")
@click.option("--quarry", "quarry_file", required=True, metavar="FILE", help="Who runs.")
@click.option("--pursuer", "pursuer_file", required=True, metavar="FILE", help="Who chases.")
@click.option("--lead", type=click.FloatRange(min=0), required=True, metavar="YARDS",
              help="The quarry's head start.")
@click.option("--vehicles", is_flag=True, help="A car chase: one success per 10 yards of lead.")
@click.option("--turns", type=click.IntRange(1, 1000), default=10, show_default=True,
              metavar="N", help="Turns to play before the Storyteller calls it.")
@click.option("--seed", type=int, default=0, metavar="N", help=SEED_HELP)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def pursuit_cmd(quarry_file: str, pursuer_file: str, lead: float, vehicles: bool, turns: int,
                seed: int, as_json: bool) -> None:
    """MOVE-4: a chase as an extended Dexterity + Athletics contest."""
    with user_errors():
        tables = load_tables()
        q = Combatant.create(0, load_stat_block(quarry_file, tables), 0, tables)
        p = Combatant.create(1, load_stat_block(pursuer_file, tables), 1, tables)
        dice = _rng_dice(seed)
        chase = Pursuit.start(lead, vehicles=vehicles)
        lines, rows = [], []
        for turn in range(1, turns + 1):
            rp = roll(p.attr("dexterity") + p.stats.ability("athletics") - p.armor_penalty, 6,
                      dice)
            rq = roll(q.attr("dexterity") + q.stats.ability("athletics") - q.armor_penalty, 6,
                      dice)
            caught = chase.turn(rp.successes, rq.successes)
            rows.append({"turn": turn, "pursuer": _roll_json(rp), "quarry": _roll_json(rq),
                         "pursuer_total": chase.pursuer, "quarry_total": chase.quarry})
            lines.append(f"Turn {turn}: {p.name} {_roll_words(rp)}; {q.name} {_roll_words(rq)}; "
                         f"totals {chase.pursuer} against {chase.quarry}.")
            if caught:
                break
    tired = [c.name for c in (q, p) if not c.vampire and turn > c.attr("stamina")]
    if as_json:
        click.echo(_dump({"lead_successes": chase_lead(lead, vehicles),
                          "caught": chase.caught, "turns": turn, "rounds": rows,
                          "tiring": tired}))
        return
    head = plural(chase_lead(lead, vehicles), "success", "successes")
    click.echo(f"{q.name} runs with a {lead:g}-yard lead ({head}).")
    for line in lines:
        click.echo(line)
    click.echo(f"{p.name} catches {q.name} on turn {turn}." if chase.caught
               else f"{q.name} is still ahead after {plural(turn, 'turn')}.")
    if tired:
        click.echo(f"Mortals tire (MOVE-4): {', '.join(tired)} may flag, at the Storyteller's "
                   "call; vampires do not.")


@main.command("scenarios")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def scenarios_cmd(as_json: bool) -> None:
    """List the shipped scenarios (configs/scenarios/)."""
    rows: list[dict[str, Any]] = []
    with user_errors():
        for name in list_scenarios():
            sc = load_scenario(name)
            sides = sorted({f.side for f in sc.fighters})
            rows.append({
                "name": name, "title": sc.title, "rules": sc.rules.name,
                "combatants": len(sc.fighters), "turn_limit": sc.turn_limit,
                "sides": {str(k): sc.side_name(k) for k in sides},
                "description": " ".join(sc.description.split()),
            })
    if as_json:
        click.echo(_dump(rows))
        return
    width = max((len(r["name"]) for r in rows), default=4)
    for r in rows:
        versus = " vs ".join(r["sides"].values())
        click.echo(f"{r['name']:<{width}}  {r['title']} ({r['rules']}, "
                   f"{r['combatants']} combatants: {versus})")


@main.command("replay")
@click.argument("log_file", metavar="FILE", type=click.Path(exists=True, dir_okay=False))
def replay_cmd(log_file: str) -> None:
    """Replay a JSONL battle log and verify it event for event (exit 1 if it does not)."""
    try:
        log = EventLog.read(Path(log_file))
        replay_log(log)
    except (VtmSimError, KeyError, IndexError, TypeError, ValueError, AttributeError) as exc:
        msg = str(exc) if isinstance(exc, VtmSimError) else f"{type(exc).__name__}: {exc}"
        raise ReplayFailed(f"{log_file}: replay failed: {msg}") from None
    for line in narrate(log.events):
        click.echo(line)
    click.echo(f"replay verified: {len(log)} events, sha256 {log.sha256()}")


__all__ = ["main"]
