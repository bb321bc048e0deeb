"""State files and formats: schema, state show.

The engine is imported inside each command, so a command's ``--help`` imports
click and nothing of the engine (tests/cli/test_startup.py).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

import click

from vtm_sim.cli.base import _dump, main, user_errors

if TYPE_CHECKING:
    from pydantic import BaseModel

    from vtm_sim.files.state_files import LoadedState
    from vtm_sim.mechanics.combatant import Combatant

# each file format -> the model ("module:class") whose JSON Schema `vtm-sim schema` prints
SCHEMAS: dict[str, str] = {
    "state": "vtm_sim.files.state_files:StateSpec",
    "scenario": "vtm_sim.files.scenarios:ScenarioSpec",
    "sheet": "vtm_sim.data.stat_blocks:StatBlockSpec", "tactic": "vtm_sim.data.tactic_files:Tactic",
}


def schema_model(what: str) -> type[BaseModel]:
    """The model of a file format named in SCHEMAS (imported now)."""
    module, _, name = SCHEMAS[what].partition(":")
    model: type[BaseModel] = getattr(importlib.import_module(module), name)
    return model


@main.command("schema")
@click.argument("what", type=click.Choice(sorted(SCHEMAS)))
def schema_cmd(what: str) -> None:
    """Print the JSON Schema of a state file, a scenario, a stat block or a tactic."""
    click.echo(_dump(schema_model(what).model_json_schema()))


@main.group("state")
def state_group() -> None:
    """State files: the fight as it stands, written by hand (docs/states.md)."""


@state_group.command("show")
@click.argument("state_file", metavar="FILE")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def show_cmd(state_file: str, as_json: bool) -> None:
    """Check a state file and say its situation in plain words."""
    from vtm_sim.files.state_files import read_state

    with user_errors():
        loaded = read_state(state_file)
    data = situation(loaded)
    if as_json:
        click.echo(_dump(data))
        return
    for line in situation_lines(data):
        click.echo(line)


# --- the situation ------------------------------------------------------------------


def situation(loaded: LoadedState) -> dict[str, Any]:
    """What a state file describes, as JSON: per combatant and for the turn."""
    from vtm_sim.files.state_files import labels

    battle = loaded.battle
    names = labels([c.name for c in battle.combatants])
    turn = loaded.turn
    if not loaded.begun:
        given = battle.initiative_given
        order = sorted(
            (c for c in battle.combatants if given is not None and c.id in given),
            key=lambda c: (-(given or {})[c.id], -c.rating, c.id),
        )
        initiative = None if given is None else [
            {"name": names[c.id], "total": given[c.id]} for c in order
        ]
    else:
        initiative = [{"name": names[c.id], "total": battle.initiative_now(c)}
                      for c in battle.order] or None
    sc = loaded.scenario
    return {
        "file": str(loaded.source),
        "scenario": sc.name if sc else None,
        "title": sc.title if sc else None,
        "turn": turn,
        "turn_limit": battle.turn_limit,
        "about_to_start": not loaded.begun,
        "description": " ".join(loaded.spec.description.split()) if loaded.spec else "",
        "initiative": initiative,
        "combatants": [_combatant(loaded, c, names, turn) for c in battle.combatants],
    }


def _combatant(loaded: LoadedState, c: Combatant, names: list[str], turn: int) -> dict[str, Any]:
    from vtm_sim.files.state_files import labels

    battle = loaded.battle
    h = c.health
    zone = battle.field.cover_at(c.x, c.y)
    weapons = []
    wnames = labels([w.name for w in c.stats.weapons])
    for i, w in enumerate(c.stats.weapons):
        weapons.append({
            "name": wnames[i], "in_hand": i == c.wielding, "off_hand": i == c.offhand,
            "rounds": c.ammo[i] if w.magazine else None,
            "magazine": w.magazine or None, "jammed": c.jammed[i], "lost": c.lost[i],
        })
    grapple: dict[str, Any] | None = None
    for kind, other in (("clinch", c.clinch_with), ("holding", c.holding),
                        ("held_by", c.held_by), ("feeding_on", c.feeding_on),
                        ("fed_on_by", c.fed_on_by)):
        if other >= 0:
            grapple = {"kind": kind, "with": names[other], "began": other in c.grapple_turn}
            break
    fleeing = pursuing = None
    if c.chase is not None:  # MOVE-4
        fleeing = {"successes": c.chase.total, "turns": c.chase.rolls}
    for q in battle.combatants:
        run = q.chase.pursuer(c.id) if q.chase is not None else None
        if run is not None:
            pursuing = {"target": names[q.id], "successes": run.total, "turns": run.rolls}
    return {
        "name": names[c.id],
        "sheet_name": c.name,
        "kind": c.stats.kind.value,
        "side": c.side,
        "side_name": loaded.side_name(c.side),
        "at": [c.x, c.y],
        "facing": [round(c.facing[0], 3), round(c.facing[1], 3)],
        "health": {
            "level": h.level_name, "penalty": h.penalty, "boxes": h.filled, "of": h.size,
            "bashing": h.bashing, "lethal": h.lethal, "aggravated": h.aggravated,
            "track": h.marks(), "status": h.status.value,
        },
        "willpower": {"left": c.willpower, "of": c.stats.willpower},
        "blood": {"left": c.blood, "of": c.stats.blood_pool} if c.stats.blood_pool else None,
        "wielding": wnames[c.wielding] if c.wielding >= 0 else "unarmed",
        "weapons": weapons,
        "prone": c.prone,
        "blinded": c.blinded,
        "cover": {"name": zone.name, "level": zone.level.name.lower()} if zone else None,
        "aim": ({"target": names[c.aim_target], "dice": c.aim_dice}
                if c.aim_target >= 0 and c.aim_dice > 0 else None),
        "grapple": grapple,
        "staked": c.staked,
        "stunned": c.stunned(turn),
        "out": not battle.able(c),
        "fleeing": fleeing,
        "pursuing": pursuing,
    }


_GRAPPLE_WORDS = {
    "clinch": "in a clinch with {w}", "holding": "holding {w}", "held_by": "held by {w}",
    "feeding_on": "feeding on {w}", "fed_on_by": "fed upon by {w}",
}


def situation_lines(data: dict[str, Any]) -> list[str]:
    """The situation in plain words, a line per combatant grouped by side."""
    title = data["title"] or "A machine-written state"
    where = f" (scenario {data['scenario']})" if data["scenario"] else ""
    when = "about to start" if data["about_to_start"] else "under way"
    lines = [f"{title}{where}: turn {data['turn']} of {data['turn_limit']} {when}."]
    if data["description"]:
        lines.append(data["description"])
    init = data["initiative"]
    everyone = [c for c in data["combatants"] if not c["out"]]
    if init is None:
        lines.append("Initiative: rolled when the turn starts.")
    else:
        order = ", ".join(f"{i['name']} {i['total']}" for i in init)
        rest = " (the others roll)" if len(init) < len(everyone) else ""
        lines.append(f"Initiative given: {order}{rest}.")
    sides: dict[int, list[dict[str, Any]]] = {}
    for c in data["combatants"]:
        sides.setdefault(c["side"], []).append(c)
    for side, cs in sorted(sides.items()):
        lines.append(f"{cs[0]['side_name']} (side {side}):")
        lines.extend(f"  {_line(c)}" for c in cs)
    return lines


def _num(x: float) -> str:
    return f"{x:g}"


def _line(c: dict[str, Any]) -> str:
    from vtm_sim.text.dicewords import plural

    where = f"at ({_num(c['at'][0])}, {_num(c['at'][1])})"
    if c["cover"]:
        where += f" in cover ({c['cover']['name']}, {c['cover']['level']})"
    states = [s for s in ("prone", "blinded") if c[s]]
    h = c["health"]
    if h["boxes"]:
        parts = [f"{h[t]} {t}" for t in ("bashing", "lethal", "aggravated") if h[t]]
        hurt = (f"{h['level']} ({h['boxes']} of {h['of']} boxes: {', '.join(parts)}; "
                f"{h['track']})")
        if h["penalty"]:
            hurt += f", -{plural(h['penalty'], 'die')}"
    else:
        hurt = "unhurt"
    if h["status"] != "active":
        hurt += f", {h['status'].upper()}"
    bits = [hurt, f"Willpower {c['willpower']['left']} of {c['willpower']['of']}"]
    if c["blood"] is not None:
        bits.append(f"blood {c['blood']['left']} of {c['blood']['of']}")
    arms = []
    for w in c["weapons"]:
        text = w["name"]
        if w["magazine"] is not None:
            text += f" {w['rounds']} of {w['magazine']} rounds"
        notes = [n for n, on in (("in hand", w["in_hand"]), ("off hand", w["off_hand"]),
                                 ("jammed", w["jammed"]), ("lost", w["lost"])) if on]
        if notes:
            text += f" ({', '.join(notes)})"
        arms.append(text)
    if c["wielding"] == "unarmed":
        arms.insert(0, "unarmed in hand")
    bits.append(", ".join(arms))
    if c["aim"]:
        bits.append(f"aiming at {c['aim']['target']} ({plural(c['aim']['dice'], 'die')} so far)")
    g = c["grapple"]
    if g:
        text = _GRAPPLE_WORDS[g["kind"]].format(w=g["with"])
        bits.append(text + (" (began it)" if g["began"] else ""))
    if c.get("fleeing"):
        f = c["fleeing"]
        bits.append(f"fleeing (MOVE-4): {plural(f['successes'], 'success', 'successes')} "
                    f"after {plural(f['turns'], 'turn')} running")
    if c.get("pursuing"):
        f = c["pursuing"]
        bits.append(f"running after {f['target']}: "
                    f"{plural(f['successes'], 'success', 'successes')} after "
                    f"{plural(f['turns'], 'turn')}")
    if c["staked"]:
        bits.append("STAKED: paralyzed, out of the fight")
    if c["stunned"]:
        bits.append("stunned: loses this turn")
    head = f"{c['name']} ({c['kind']}) {where}"
    if states:
        head += ", " + " and ".join(states)
    return f"{head}: " + "; ".join(bits) + "."


__all__ = ["situation", "situation_lines"]
