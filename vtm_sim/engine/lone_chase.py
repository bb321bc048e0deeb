"""A chase outside a fight (MOVE-4, MOVE-5), as ``vtm-sim pursuit`` plays it.

Not a second implementation: a two-combatant :class:`~vtm_sim.engine.battle.Battle`
whose quarry is already running (its lead in successes, one per 2 yards, or per 10
in vehicles) and whose only choices are to run on and to give chase, so every roll
(Dexterity + Athletics, fatigue, the Perception rolls, a dead end, a much faster
side) is the battle's own (:mod:`vtm_sim.engine.chase`). The chase ends when the
pursuer catches up, when the quarry gets away, or after ``turns`` turns.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from vtm_sim.core.choices import Action, ActionKind, Choice, Decision, DecisionKind
from vtm_sim.core.dice import DiceSource
from vtm_sim.core.relations import Chase
from vtm_sim.data.rules import RuleSet
from vtm_sim.data.stat_blocks import StatBlock
from vtm_sim.data.tables import Tables
from vtm_sim.engine.battle import Battle, Fighter
from vtm_sim.events import CaughtEvent, ChaseEvent, EscapeEvent, RollEvent, TurnEvent
from vtm_sim.events.action import ActionEvent
from vtm_sim.mechanics.movement import Pursuit

QUARRY = 0
PURSUER = 1


@dataclass(frozen=True, slots=True)
class LoneChase:
    """How a lone chase went: the battle that played it, and its turns read back."""

    battle: Battle
    lead_successes: int
    rounds: tuple[dict[str, Any], ...]  # one a turn: each side's roll, totals, fatigue
    caught: bool
    dead_end: bool
    escaped: str  # the escape's reason ("lost", "outpaced", "outran", ...), "" if none
    tiring: tuple[str, ...]  # who tired (a mortal), in the order they did


def _choose(b: Battle, d: Decision) -> Choice:
    """The quarry runs on (or gets up); the pursuer gives chase (or gets up); nothing else."""
    if d.kind is DecisionKind.ACT:
        want = ActionKind.FLEE if d.actor == QUARRY else ActionKind.PURSUE
        for kind in (want, ActionKind.GET_UP, ActionKind.PASS):
            for o in d.options:
                if isinstance(o, Action) and o.kind is kind and not o.jump:
                    return o
    return d.options[0]  # no blood, one action, no defense


def lone_chase(quarry: StatBlock, pursuer: StatBlock, lead: float, *, turns: int,
               rules: RuleSet, dice: DiceSource, tables: Tables | None = None,
               vehicles: bool = False) -> LoneChase:
    """Play a chase of ``turns`` turns at most, the quarry ``lead`` yards ahead."""
    fighters = [Fighter(quarry, 0, 0.0, 0.0), Fighter(pursuer, 1, float(lead), 0.0)]
    b = Battle(fighters, dice=dice, rules=rules, tables=tables, turn_limit=turns, start=False)
    start = Pursuit.start(lead, vehicles=vehicles).quarry  # MOVE-4
    b.combatants[QUARRY].chase = Chase(start, float(lead), 0)  # running before turn 1
    b.begin()
    while b.pending is not None and not any(isinstance(e, CaughtEvent) for e in b.log):
        b.choose(_choose(b, b.pending))
    return _read(b, start)


def _read(b: Battle, start: int) -> LoneChase:
    """The turns of a lone chase, from its log."""
    rounds: list[dict[str, Any]] = []
    row: dict[str, Any] = {}
    rolled: dict[int, RollEvent] = {}
    tiring: list[str] = []
    caught = dead_end = False
    escaped = ""
    totals = {QUARRY: start, PURSUER: 0}
    for e in b.log:
        if isinstance(e, TurnEvent):
            row = {"turn": e.turn, "pursuer": None, "quarry": None, "sight": None,
                   "pursuer_tired": 0, "quarry_tired": 0, "dead_end": False}
            rounds.append(row)
        elif isinstance(e, RollEvent) and e.what in ("chase", "sight"):
            if e.what == "sight":
                row["sight"] = _roll_json(e)
            else:
                rolled[e.who] = e
        elif isinstance(e, ChaseEvent):
            side = "quarry" if e.who == QUARRY else "pursuer"
            r = rolled.pop(e.who, None)
            row[side] = None if r is None else _roll_json(r)
            row[f"{side}_tired"] = e.tired
            totals[e.who] = e.total
            name = b.combatants[e.who].name
            if e.tired and name not in tiring:
                tiring.append(name)
        elif isinstance(e, CaughtEvent):
            caught, dead_end = True, e.dead_end
            row["dead_end"] = e.dead_end
            break  # the chase is over (the battle has begun the next turn)
        elif isinstance(e, EscapeEvent):
            escaped = e.reason
        elif isinstance(e, ActionEvent) and e.action == "lost_sight":
            row["lost_sight"] = True
        if row:
            row["quarry_total"], row["pursuer_total"] = totals[QUARRY], totals[PURSUER]
    if row:
        row["quarry_total"], row["pursuer_total"] = totals[QUARRY], totals[PURSUER]
    return LoneChase(b, start, tuple(rounds), caught, dead_end, escaped, tuple(tiring))


def _roll_json(e: RollEvent) -> dict[str, Any]:
    return {"pool": e.pool, "difficulty": e.diff, "faces": list(e.faces),
            "successes": e.succ, "botch": e.botch}
