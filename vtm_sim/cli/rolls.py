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
@click.option("--feet", type=click.FloatRange(min=0), default=None, metavar="FEET",
              help="The jump's length (or height): short of it, a Dexterity + Athletics roll "
                   "at 6 catches the edge (MOVE-6), as in battle.")
@click.option("--judge", is_flag=True,
              help="With --feet: first Perception + Athletics at 6; 3 successes tell the "
                   "successes the jump needs (MOVE-6).")
@click.option("--faces", default=None, metavar="1,9,...", help="The dice you rolled.")
@click.option("--seed", type=SEED, default=0, metavar="N", help=SEED_HELP)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def jump_cmd(sheet_file: str, running: bool, vertical: bool, feet: float | None, judge: bool,
             faces: str | None, seed: int, as_json: bool) -> None:
    """MOVE-3/6: how far a character jumps (Strength, + Athletics running, difficulty 3),
    with the battle's rule code (vtm_sim/mechanics/movement.py)."""
    from vtm_sim.core.dice import ScriptedDice, roll
    from vtm_sim.data.stat_blocks import load_stat_block
    from vtm_sim.data.tables import load_tables
    from vtm_sim.mechanics.combatant import Combatant
    from vtm_sim.mechanics.movement import (
        JUMP_DIFFICULTY,
        LANDING_DIFFICULTY,
        judge_jump,
        jump_dice,
        jump_feet,
        jump_successes,
        landing_pool,
    )
    from vtm_sim.text.dicewords import plural

    with user_errors():
        if judge and feet is None:
            _fail("--judge: give the jump's --feet")
        tables = load_tables()
        c = Combatant.create(0, load_stat_block(sheet_file, tables), 0, tables)
        pool = jump_dice(c, running)
        scripted = (ScriptedDice(_parse_faces(faces, "--faces"), "--faces")
                    if faces is not None else None)
        dice: DiceSource = scripted if scripted is not None else _rng_dice(seed)
        judged = judge_jump(c, feet or 0.0, vertical=vertical, dice=dice) if judge else None
        r = roll(pool, JUMP_DIFFICULTY, dice)
        total = jump_successes(c, r.successes, r.botch)  # VAMP-5: + Potence, as in battle
        potence = total - r.successes if not r.botch else 0
        reached = jump_feet(total, vertical=vertical)
        short = feet is not None and (r.botch or reached < feet)
        landing = None
        if short and not r.botch:  # MOVE-6: catch the edge (a botch falls at once)
            landing = roll(landing_pool(c), LANDING_DIFFICULTY, dice)
        if scripted is not None and scripted.remaining:
            used = sum(len(x.faces) for x in (judged[0] if judged else None, r, landing)
                       if x is not None)
            what = ("the rolls" if used != len(r.faces)
                    else f"the jump roll of {plural(pool, 'die', 'dice')}")
            _fail(f"--faces: {plural(used + scripted.remaining, 'face')} given but "
                  f"{what} used {used}")
    fell = short and (landing is None or landing.successes <= 0)
    if as_json:
        out: dict[str, Any] = {**(_roll_json(r) or {}), "potence": potence, "total": total,
                               "feet": reached, "vertical": vertical, "running": running}
        if feet is not None:
            out.update({"needed_feet": feet, "cleared": not short,
                        "landing": _roll_json(landing), "fell": fell})
        if judged is not None:
            out.update({"judge": _roll_json(judged[0]), "needed": judged[1]})
        click.echo(_dump(out))
        return
    way = "up" if vertical else "across"
    extra = f" + {potence} from Potence" if potence else ""
    if judged is not None:
        jr, needed = judged
        told = (f"it needs {plural(needed, 'success', 'successes')}" if needed is not None
                else "not sure what it needs")
        click.echo(f"{c.name} judges the jump: {_roll_words(jr)} -> {told}.")
    click.echo(f"{c.name} jumps ({'running' if running else 'standing'}): {_roll_words(r)}"
               f"{extra} -> {reached:g} ft {way} ({reached * 0.3048:.2f} m).")
    if feet is not None and not short:
        click.echo(f"It clears the {feet:g} ft.")
    elif feet is not None:
        caught = "" if landing is None else f" Catching the edge: {_roll_words(landing)}."
        click.echo(f"Short of the {feet:g} ft.{caught} "
                   + ("It falls." if fell else "It holds on."))


@main.command("pursuit")
@click.option("--quarry", "quarry_file", required=True, metavar="FILE", help="Who runs.")
@click.option("--pursuer", "pursuer_file", required=True, metavar="FILE", help="Who chases.")
@click.option("--lead", type=YARDS, required=True, metavar="YARDS",
              help="The quarry's head start.")
@click.option("--vehicles", is_flag=True, help="A car chase: one success per 10 yards of lead.")
@click.option("--turns", type=click.IntRange(1, 1000), default=10, show_default=True,
              metavar="N", help="Turns to play before the Storyteller calls it.")
@click.option("--rules", "rules_name", default="v20", show_default=True, metavar="PROFILE",
              help="Rules profile (name or YAML path): fatigue, Perception rolls, margin.")
@click.option("--seed", type=SEED, default=0, metavar="N",
              help="Seed of the chase's dice (default 0).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def pursuit_cmd(quarry_file: str, pursuer_file: str, lead: float, vehicles: bool, turns: int,
                rules_name: str, seed: int, as_json: bool) -> None:
    """MOVE-4/5: a chase as an extended Dexterity + Athletics contest, played by a
    battle's own chase rules (vtm_sim/engine/lone_chase.py)."""
    from vtm_sim.data.rules import load_rules
    from vtm_sim.data.stat_blocks import load_stat_block
    from vtm_sim.data.tables import load_tables
    from vtm_sim.engine.lone_chase import lone_chase
    from vtm_sim.text.dicewords import plural

    with user_errors():
        tables = load_tables()
        rules = load_rules(rules_name)
        quarry = load_stat_block(quarry_file, tables)
        pursuer = load_stat_block(pursuer_file, tables)
        run = lone_chase(quarry, pursuer, lead, turns=turns, rules=rules,
                         dice=_rng_dice(seed), tables=tables, vehicles=vehicles)
    turn = len(run.rounds)
    if as_json:
        click.echo(_dump({"lead_successes": run.lead_successes, "caught": run.caught,
                          "escaped": bool(run.escaped), "reason": run.escaped or None,
                          "turns": turn, "rounds": list(run.rounds),
                          "tiring": list(run.tiring)}))
        return
    q, p = quarry.name, pursuer.name
    head = plural(run.lead_successes, "success", "successes")
    click.echo(f"{q} runs with a {lead:g}-yard lead ({head}).")
    for r in run.rounds:
        bits = []
        for who, key in ((p, "pursuer"), (q, "quarry")):
            if r[key] is not None:
                bits.append(f"{who} {_roll_words_json(r[key])}")
        line = f"Turn {r['turn']}: " + ("; ".join(bits) or "no chase roll")
        line += f"; totals {r['pursuer_total']} against {r['quarry_total']}."
        if r["sight"] is not None:
            kept = "keeps" if not r.get("lost_sight") else "loses"
            line += f" {p} {kept} sight of {q} (Perception {_roll_words_json(r['sight'])})."
        if r["dead_end"]:
            line += f" {q} runs into a dead end."
        click.echo(line)
    if run.caught:
        click.echo(f"{p} catches {q} on turn {turn}.")
    elif run.escaped:
        why = {"lost": f"{p} has lost sight of {q}",
               "outpaced": f"{q} is much faster", "unpursued": "nobody gives chase",
               "outran": f"{plural(rules.chase_escape_margin, 'success', 'successes')} ahead"}
        click.echo(f"{q} gets away on turn {turn}: {why.get(run.escaped, run.escaped)}.")
    else:
        click.echo(f"{q} is still ahead after {plural(turn, 'turn')}.")
    if run.tiring:
        click.echo(f"Mortals tire (MOVE-4): {', '.join(run.tiring)} lost dice after "
                   f"{plural(rules.chase_fatigue_turns, 'turn')} at full pace (one more each "
                   "turn); vampires do not.")


def _roll_words_json(r: dict[str, Any]) -> str:
    """A roll as ``_roll_json`` wrote it, in words."""
    from vtm_sim.core.dice import Roll

    return _roll_words(Roll(r["pool"], r["difficulty"], tuple(r["faces"]), r["successes"],
                            r["botch"]))
