"""Dice commands: roll a pool, jump (MOVE-3), pursue (MOVE-4).

The engine is imported inside each command, so a command's ``--help`` (and
``vtm-sim roll``, which needs neither the tables nor a stat block) imports
only what it uses (tests/cli/test_startup.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from vtm_sim.cli.base import (
    MAX_POOL,
    RULES_HELP,
    SEED,
    SEED_HELP,
    YARDS,
    _dump,
    _fail,
    _odds_summary,
    _parse_faces,
    _rng_dice,
    _roll_json,
    _roll_words,
    main,
    user_errors,
)

if TYPE_CHECKING:
    from vtm_sim.core.dice import DiceSource


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
@click.option("--seed", type=SEED, default=0, metavar="N", help=SEED_HELP)
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
    from vtm_sim.core.dice import ScriptedDice, SpecialtyRule, roll
    from vtm_sim.data.rules import load_rules
    from vtm_sim.errors import DiceError
    from vtm_sim.mechanics.odds import roll_odds
    from vtm_sim.text.dicewords import plural

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


@main.command("jump")
@click.argument("sheet_file", metavar="FILE")
@click.option("--running", is_flag=True, help="A running jump: Strength + Athletics.")
@click.option("--vertical", is_flag=True, help="Up (2 ft a success) rather than across (4 ft).")
@click.option("--faces", default=None, metavar="1,9,...", help="The dice you rolled.")
@click.option("--seed", type=SEED, default=0, metavar="N", help=SEED_HELP)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def jump_cmd(sheet_file: str, running: bool, vertical: bool, faces: str | None, seed: int,
             as_json: bool) -> None:
    """MOVE-3: how far a character jumps (Strength, + Athletics running, difficulty 3)."""
    from vtm_sim.core.dice import ScriptedDice, roll
    from vtm_sim.data.stat_blocks import load_stat_block
    from vtm_sim.data.tables import load_tables
    from vtm_sim.mechanics.combatant import Combatant
    from vtm_sim.mechanics.movement import JUMP_DIFFICULTY, jump_dice, jump_feet, jump_successes
    from vtm_sim.text.dicewords import plural

    with user_errors():
        tables = load_tables()
        c = Combatant.create(0, load_stat_block(sheet_file, tables), 0, tables)
        pool = jump_dice(c, running)
        scripted = (ScriptedDice(_parse_faces(faces, "--faces"), "--faces")
                    if faces is not None else None)
        dice: DiceSource = scripted if scripted is not None else _rng_dice(seed)
        r = roll(pool, JUMP_DIFFICULTY, dice)
        if scripted is not None and scripted.remaining:
            _fail(f"--faces: {plural(len(r.faces) + scripted.remaining, 'face')} given but "
                  f"the jump roll of {plural(pool, 'die', 'dice')} used {len(r.faces)}")
        total = jump_successes(c, r.successes, r.botch)  # VAMP-5: + Potence, as in battle
        potence = total - r.successes if not r.botch else 0
        feet = jump_feet(total, vertical=vertical)
    if as_json:
        click.echo(_dump({**(_roll_json(r) or {}), "potence": potence, "total": total,
                          "feet": feet, "vertical": vertical, "running": running}))
        return
    way = "up" if vertical else "across"
    extra = f" + {potence} from Potence" if potence else ""
    click.echo(f"{c.name} jumps ({'running' if running else 'standing'}): {_roll_words(r)}"
               f"{extra} -> {feet:g} ft {way} ({feet * 0.3048:.2f} m).")


def chase_lead(lead: float, vehicles: bool) -> int:
    from vtm_sim.mechanics.movement import Pursuit

    return Pursuit.start(lead, vehicles=vehicles).quarry


@main.command("pursuit")
@click.option("--quarry", "quarry_file", required=True, metavar="FILE", help="Who runs.")
@click.option("--pursuer", "pursuer_file", required=True, metavar="FILE", help="Who chases.")
@click.option("--lead", type=YARDS, required=True, metavar="YARDS",
              help="The quarry's head start.")
@click.option("--vehicles", is_flag=True, help="A car chase: one success per 10 yards of lead.")
@click.option("--turns", type=click.IntRange(1, 1000), default=10, show_default=True,
              metavar="N", help="Turns to play before the Storyteller calls it.")
@click.option("--seed", type=SEED, default=0, metavar="N",
              help="Seed of the chase's dice (default 0).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def pursuit_cmd(quarry_file: str, pursuer_file: str, lead: float, vehicles: bool, turns: int,
                seed: int, as_json: bool) -> None:
    """MOVE-4: a chase as an extended Dexterity + Athletics contest."""
    from vtm_sim.core.dice import roll
    from vtm_sim.data.rules import load_rules
    from vtm_sim.data.stat_blocks import load_stat_block
    from vtm_sim.data.tables import load_tables
    from vtm_sim.engine.chase import CHASE_DIFFICULTY, chase_pool, tired_dice
    from vtm_sim.mechanics.combatant import Combatant
    from vtm_sim.mechanics.movement import Pursuit
    from vtm_sim.text.dicewords import plural

    with user_errors():
        tables = load_tables()
        q = Combatant.create(0, load_stat_block(quarry_file, tables), 0, tables)
        p = Combatant.create(1, load_stat_block(pursuer_file, tables), 1, tables)
        rules = load_rules()  # MOVE-4 as in battle: the v20 profile's fatigue and margin
        fatigue, margin = rules.chase_fatigue_turns, rules.chase_escape_margin
        dice = _rng_dice(seed)
        chase = Pursuit.start(lead, vehicles=vehicles)
        lines, rows = [], []
        tired: list[str] = []
        dead_end = escaped = False
        for turn in range(1, turns + 1):
            lost_p = tired_dice(p, turn - 1, fatigue)  # mortals tire, vampires do not
            lost_q = tired_dice(q, turn - 1, fatigue)
            rp = roll(chase_pool(p, lost_p), CHASE_DIFFICULTY, dice)
            rq = roll(chase_pool(q, lost_q), CHASE_DIFFICULTY, dice)
            for who, lost in ((q, lost_q), (p, lost_p)):
                if lost and who.name not in tired:
                    tired.append(who.name)
            dead_end = rq.botch  # 003: the quarry's botch is a dead end
            caught = chase.turn(rp.successes, rq.successes) or dead_end
            escaped = not caught and chase.quarry - chase.pursuer >= margin  # "outran"
            rows.append({"turn": turn, "pursuer": _roll_json(rp), "quarry": _roll_json(rq),
                         "pursuer_total": chase.pursuer, "quarry_total": chase.quarry,
                         "pursuer_tired": lost_p, "quarry_tired": lost_q,
                         "dead_end": dead_end})
            lines.append(f"Turn {turn}: {p.name} {_roll_words(rp)}; {q.name} {_roll_words(rq)}; "
                         f"totals {chase.pursuer} against {chase.quarry}."
                         + (f" {q.name} runs into a dead end." if dead_end else ""))
            if caught or escaped:
                break
    if as_json:
        click.echo(_dump({"lead_successes": chase_lead(lead, vehicles),
                          "caught": chase.caught or dead_end, "escaped": escaped,
                          "turns": turn, "rounds": rows,
                          "tiring": tired}))
        return
    head = plural(chase_lead(lead, vehicles), "success", "successes")
    click.echo(f"{q.name} runs with a {lead:g}-yard lead ({head}).")
    for line in lines:
        click.echo(line)
    if chase.caught or dead_end:
        click.echo(f"{p.name} catches {q.name} on turn {turn}.")
    elif escaped:
        click.echo(f"{q.name} gets away on turn {turn}: {plural(margin, 'success', 'successes')} "
                   "ahead, as a battle's outran escape.")
    else:
        click.echo(f"{q.name} is still ahead after {plural(turn, 'turn')}.")
    if tired:
        click.echo(f"Mortals tire (MOVE-4): {', '.join(tired)} lost dice after "
                   f"{plural(fatigue, 'turn')} at full pace (one more each turn); "
                   "vampires do not.")
