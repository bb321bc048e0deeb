"""One attack through the whole chain, and tactic cards.

The engine is imported inside each command, so a command's ``--help`` imports
click and the defense kinds it lists, nothing more (tests/cli/test_startup.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import click

from vtm_sim.cli.base import (
    FACES_LABELS,
    RULES_HELP,
    SEED,
    SEED_HELP,
    YARDS,
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
from vtm_sim.core.choices import DefenseKind

if TYPE_CHECKING:
    from vtm_sim.core.dice import DiceSource, ScriptedDice
    from vtm_sim.engine.battle import Battle


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


class _FacesDice:
    """The dice of each roll: ``--faces`` by label (dodge, block and parry read
    ``defense=``), the rest from the seed.

    The scripted faces are checked at the first roll, once the exchange is found
    legal, so a bad face is reported only for an attack the rules allow.
    """

    def __init__(self, scripted: dict[str, list[int]], rng: DiceSource) -> None:
        self.scripted = scripted
        self.rng = rng
        self.sources: dict[str, ScriptedDice] = {}
        self.started = False

    def __call__(self, label: str) -> DiceSource:
        from vtm_sim.core.dice import ScriptedDice

        if not self.started:
            self.sources = {k: ScriptedDice(v, f"--faces {k}") for k, v in self.scripted.items()}
            self.started = True
        key = "defense" if label in ("dodge", "block", "parry") else label
        src = self.sources.get(key)
        if src is not None:
            return src
        if isinstance(self.rng, _AskedDice):
            self.rng.label = label
        return self.rng


    def unused(self) -> list[str]:
        """Labels whose roll never happened (a miss, or no dice to soak).

        Raises:
            DiceError: a roll left some of its faces over.
        """
        from vtm_sim.errors import DiceError
        from vtm_sim.text.dicewords import plural

        out = []
        for key, src in self.sources.items():
            given = len(self.scripted[key])
            if src.remaining == given and given:
                out.append(key)
            elif src.remaining:
                raise DiceError(
                    f"--faces {key}: {plural(src.remaining, 'face')} left over: "
                    f"the roll used {given - src.remaining}"
                )
        return out


class _AskedDice:
    """Faces typed at a prompt, one roll at a time (``attack --ask``): the next
    pool is known only once the roll before it is in (damage follows the attack)."""

    def __init__(self) -> None:
        self.label = "roll"
        self.asked: dict[str, int] = {}

    def faces(self, n: int) -> list[int]:
        from vtm_sim.core.dice import ScriptedDice
        from vtm_sim.errors import DiceError

        again = self.asked.get(self.label, 0)
        self.asked[self.label] = again + 1
        more = " more" if again else ""
        why = " (a 10 exploded with the specialty)" if again else ""
        word = "die" if n == 1 else "dice"
        while True:
            text = click.prompt(f"{self.label}: roll {n}{more} {word}{why}, faces", type=str,
                                err=True)
            try:
                got = ScriptedDice(_parse_faces(text, self.label), self.label).faces(n)
            except (DiceError, click.ClickException) as exc:
                click.echo(f"  {exc}", err=True)
                continue
            if len(text.split(",")) != n:
                click.echo(f"  expected {n} faces, got {len(text.split(','))}", err=True)
                continue
            return got


@contextmanager
def _exchange_errors(attacker_file: str | None) -> Iterator[None]:
    """An exchange the rules refuse, worded by the option at fault (a weapon the sheet
    lacks by the sheet, ``attacker_file``, when there is one)."""
    from vtm_sim.engine.exchange import ExchangeError

    try:
        yield
    except ExchangeError as exc:
        if exc.argument == "weapon" and attacker_file is not None:
            _fail(f"{attacker_file}: weapons: {exc.reason}")
        text = f"--{exc.argument}: {exc.reason}" if exc.argument else exc.reason
        if exc.others:
            options = " or ".join(f"--{o}" for o in (*exc.others, exc.argument or ""))
            text += f" (pick another {options})"
        _fail(text)


def _foes_in_state(state_file: str, seed: int, attacker: str, defender: str,
                   option: str, ally: str) -> tuple[Battle, int, int]:
    """The fight of ``state_file`` (its dice seeded ``seed``) and the ids of the combatants
    named ``attacker`` (``--attacker``) and ``defender`` (``option``), who must be enemies
    (else ``option: ally (expected an enemy)``)."""
    from vtm_sim.files.names import find_combatant
    from vtm_sim.files.state_files import load_state

    battle = load_state(state_file, seed=seed)
    me = find_combatant(battle, attacker, "--attacker")
    foe = find_combatant(battle, defender, option)
    if battle.combatants[me].side == battle.combatants[foe].side:
        _fail(f"{option}: {ally} (expected an enemy)")
    return battle, me, foe


@main.command("attack")
@click.option(
    "--attacker", "attacker_file", required=True, metavar="FILE|NAME",
    help="Attacker's stat block; with --state, a combatant's name."
)
@click.option(
    "--defender", "defender_file", required=True, metavar="FILE|NAME",
    help="Defender's stat block; with --state, a combatant's name."
)
@click.option("--state", "state_file", default=None, metavar="FILE",
              help="The fight as it stands (a state file): the attack as the engine would roll "
              "it there (wounds, cover, range, prone, grapples, the weapon in hand), nothing "
              "played first.")
@click.option("--actions", type=click.IntRange(min=1), default=None, metavar="N",
              help="With --state: the actions the attacker declared this turn (ACT-1: the "
              "multiple-action penalty; default the state's, one at a turn's start).")
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
    type=YARDS,
    metavar="YARDS",
    help="Yards between them (default: 1 for close combat, 10 for ranged attacks).",
)
@click.option(
    "--defense",
    type=click.Choice([k.value for k in DefenseKind]),
    default="none",
    show_default=True,
    help="The defender's reaction (DEF-4..6; with --state, one the engine offers it there: "
    "none in a clinch, by aborting its declared action when that is its only way, DEF-3).",
)
@click.option(
    "--faces",
    metavar="LABEL=FACES;...",
    help="The Storyteller's dice per roll, e.g. \"attack=8,6,7;defense=2,9;"
    'damage=6,6,1;soak=7" (dodge, block and parry use defense=); other rolls use '
    "--seed.",
)
@click.option("--ask", is_flag=True,
              help="Ask for each roll's faces as it comes (the damage pool depends on the "
              "attack roll); rolls given with --faces are not asked.")
@click.option("--seed", type=SEED, default=0, metavar="N", help=SEED_HELP)
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
    state_file: str | None,
    actions: int | None,
    maneuver: str | None,
    weapon: str | None,
    distance: float | None,
    defense: str,
    faces: str | None,
    ask: bool,
    seed: int,
    show_odds: bool,
    as_json: bool,
    rules_name: str,
) -> None:
    """Resolve one attack through the whole chain: attack, defense, damage, soak.

    With --state, the attacker and defender are combatants of a state file and the
    attack is the one the engine would roll there, nothing played first.
    """
    from vtm_sim.data.rules import load_rules
    from vtm_sim.data.stat_blocks import load_stat_block
    from vtm_sim.data.tables import load_tables
    from vtm_sim.engine.exchange import (
        ExchangeResult,
        exchange_odds,
        resolve_exchange,
        resolve_standing,
        standing_exchange,
        standing_odds,
    )
    from vtm_sim.text.narration import narrate

    result: ExchangeResult
    with user_errors(), _exchange_errors(None if state_file else attacker_file):
        scripted = _parse_attack_faces(faces)
        kind = DefenseKind(defense)
        if state_file is None and actions is not None:
            _fail("--actions: only with --state (a state's turn)")
        if state_file is not None:
            if distance is not None:
                _fail("--distance: not with --state (the state file places everyone)")
            if rules_name != "v20":
                _fail("--rules: not with --state (the state's scenario names its rules)")
            battle, me, foe = _foes_in_state(state_file, seed, attacker_file, defender_file,
                                             "--defender", "the attacker or an ally of it")
            ex = standing_exchange(battle, me, foe, maneuver=maneuver, weapon=weapon,
                                   defense=kind, actions=actions)
            dice = _FacesDice(scripted, _AskedDice() if ask else _rng_dice(seed))
            result = resolve_standing(ex, dice)
            unused = dice.unused()
            odds = standing_odds(ex) if show_odds else None
        else:
            rules = load_rules(rules_name)
            tables = load_tables()
            a_stats = load_stat_block(attacker_file, tables)
            d_stats = load_stat_block(defender_file, tables)
            dice = _FacesDice(scripted, _AskedDice() if ask else _rng_dice(seed))
            result = resolve_exchange(a_stats, d_stats, maneuver=maneuver, weapon=weapon,
                                      distance=distance, defense=kind, rules=rules,
                                      tables=tables, dice_for=dice)
            unused = dice.unused()
            odds = exchange_odds(a_stats, d_stats, maneuver=maneuver, weapon=weapon,
                                 distance=distance, defense=kind, rules=rules,
                                 tables=tables) if show_odds else None
    out = result.outcome
    if as_json:
        data: dict[str, Any] = {
            "attacker": result.attacker.name,
            "defender": result.defender.name,
            "maneuver": result.plan.maneuver,
            "weapon": result.plan.weapon.name,
            "distance": result.distance,
            "attack": _roll_json(out.attack),
            "defense": _roll_json(out.defense),
            "damage": _roll_json(out.damage),
            "soak": _roll_json(out.soak),
            "net_successes": out.net,
            "damage_type": out.damage_type.value,
            "health_levels": out.levels,
            "stunned": out.stunned,
            "defender_health": _health_json(result.defender),
            "attacker_health": _health_json(result.attacker),
        }
        if odds is not None:
            data["odds"] = {str(k): p for k, p in enumerate(odds)}
        click.echo(_dump(data))
        return
    for line in narrate(result.events):
        click.echo(line)
    for key in unused:
        click.echo(f"(No {key} roll was made: its --faces were not used.)")
    if odds is not None:
        mean = sum(k * p for k, p in enumerate(odds))
        click.echo(f"Odds of health levels dealt (mean {mean:.3f}): {_odds_summary(odds)}")


# --- fight and replay -----------------------------------------------------------


@main.command("card")
@click.option("--attacker", "attacker_file", required=True, metavar="FILE|NAME",
              help="The attacker's stat block (a file or a shipped name such as brawler); "
              "with --state, a combatant's name.")
@click.option("--against", "defender_file", required=True, metavar="FILE|NAME",
              help="The defender's stat block; with --state, a combatant's name.")
@click.option("--state", "state_file", default=None, metavar="FILE",
              help="The fight as it stands (a state file): wounds, blood, cover, positions, "
              "ammunition, grapples and weapons as written there, nothing played first.")
@click.option("--actions", type=click.IntRange(min=1), default=None, metavar="N",
              help="With --state: the actions the attacker declared this turn (ACT-1: the "
              "multiple-action penalty; default the state's, one at a turn's start).")
@click.option("--distance", type=YARDS, default=None, metavar="YARDS",
              help="Yards between them (default 1; not with --state). Close attacks close "
              "in (ACT-4).")
@click.option("--no-defense", is_flag=True, help="Assume the defender does not defend.")
@click.option("--seed", type=SEED, default=0, metavar="N",
              help="Seeds a state file's dice: its initiative, when the file gives none "
              "(default 0).")
@click.option("--rules", "rules_name", default="v20", show_default=True, metavar="NAME",
              help=RULES_HELP)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def card_cmd(attacker_file: str, defender_file: str, state_file: str | None,
             actions: int | None, distance: float | None, no_defense: bool, seed: int,
             rules_name: str, as_json: bool) -> None:
    """A tactic card: every legal attack the attacker has (each carried weapon), with
    exact odds, and what the other options buy."""
    from vtm_sim.analysis.cards import card_for, card_lines, tactic_card
    from vtm_sim.data.rules import load_rules
    from vtm_sim.data.stat_blocks import load_stat_block
    from vtm_sim.data.tables import load_tables

    with user_errors():
        if state_file is not None:
            if distance is not None:
                _fail("--distance: not with --state (the state file places everyone)")
            battle, me, foe = _foes_in_state(state_file, seed, attacker_file, defender_file,
                                             "--against", "an ally of the attacker")
            if actions is not None and actions > battle.rules.max_actions:
                _fail(f"--actions: expected 1 to {battle.rules.max_actions} (INIT-5)")
            card = card_for(battle, me, foe, defend=not no_defense, declared=actions)
        else:
            if actions is not None:
                _fail("--actions: only with --state (a state's turn)")
            rules = load_rules(rules_name)
            tables = load_tables()
            card = tactic_card(load_stat_block(attacker_file, tables),
                               load_stat_block(defender_file, tables),
                               distance=1.0 if distance is None else distance,
                               rules=rules, defend=not no_defense)
    if as_json:
        best = card.best
        click.echo(_dump({
            "attacker": card.attacker, "defender": card.defender, "distance": card.distance,
            "rules": card.rules, "best": best.maneuver if best else None,
            "situation": list(card.situation), "unable": card.unable,
            "notes": list(card.notes),
            "rows": [{
                "maneuver": r.maneuver, "weapon": r.weapon, "called": r.called,
                "ready": r.ready,
                "offhand": r.offhand, "pool": r.pool,
                "difficulty": r.difficulty, "defense": r.defense,
                "defense_pool": r.defense_pool, "defense_difficulty": r.defense_difficulty,
                "damage_pool": r.damage_pool,
                "damage_type": r.damage_type, "soak_pool": r.soak_pool, "p_hit": r.p_hit,
                "p_damage": r.p_damage,
                "expected_levels": r.expected_levels, "p_big_hit": r.p_big_hit,
                "defense_penalty": r.defense_penalty, "p_abort": r.p_abort,
                "distribution": {str(k): p for k, p in enumerate(r.distribution)},
            } for r in card.rows],
            "other_options": [{"action": o.action, "buys": o.buys} for o in card.others],
        }))
        return
    for line in card_lines(card):
        click.echo(line)
