"""Gaps and low obstacles on the field (MOVE-3): a mover jumps them or goes around.

A move crossing an obstacle's segment goes around it when the obstacle has a
way around (``detour`` yards) and the move still reaches past it after paying
those yards; otherwise the mover jumps: Strength (standing) or Strength +
Athletics (running, when the run-up this turn is longer than the jump, 003),
difficulty 3, 4 ft across (a gap) or 2 ft up (a low obstacle) a success;
Potence adds automatic successes (VAMP-5, a Strength roll). A jump short of the
obstacle stops the move at it; a Dexterity + Athletics roll at difficulty 6
lands it on its feet, else the mover falls prone (a botched jump falls at once).
Falling damage is outside the catalogue: there is none.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from vtm_sim.combatant import Combatant
from vtm_sim.effects import roll_logged
from vtm_sim.events import JumpEvent
from vtm_sim.movement import JUMP_DIFFICULTY, jump_feet, jump_pool
from vtm_sim.space import Obstacle, ObstacleKind

if TYPE_CHECKING:
    from vtm_sim.battle import Battle

LANDING_DIFFICULTY = 6  # 003: Dexterity + Athletics to catch the edge or land well
FEET_PER_YARD = 3.0
EPS = 1e-6


def first_crossed(b: Battle, ax: float, ay: float, bx: float, by: float,
                  passed: set[str]) -> tuple[float, Obstacle] | None:
    """The first obstacle the segment a-b crosses (and how far along, 0..1)."""
    best: tuple[float, Obstacle] | None = None
    for o in b.field.obstacles:
        if o.name in passed:
            continue
        t = o.crossing(ax, ay, bx, by)
        if t is not None and (best is None or t < best[0]):
            best = (t, o)
    return best


def cross(b: Battle, c: Combatant, ux: float, uy: float, yards: float) -> None:
    """Move ``yards`` along the unit vector (ux, uy), jumping or going around what is
    in the way."""
    from vtm_sim.state import physical_difficulty, step

    if yards < 0:
        ux, uy, yards = -ux, -uy, -yards
    passed: set[str] = set()
    left = yards
    while left > EPS:
        hit = first_crossed(b, c.x, c.y, c.x + ux * left, c.y + uy * left, passed)
        if hit is None:
            step(b, c, ux, uy, left)
            return
        t, o = hit
        before = t * left
        passed.add(o.name)
        if o.detour is not None and left - o.detour > before + EPS:
            step(b, c, ux, uy, before)  # to the obstacle, around it, and on
            c.moved += o.detour
            b.log.emit(JumpEvent(c.id, o.name, o.feet, 0.0, False, True, detour=o.detour))
            left -= before + o.detour
            continue
        if before > EPS:
            step(b, c, ux, uy, before)
        left -= before
        running = c.moved * FEET_PER_YARD > o.feet  # 003: a run-up longer than the jump
        r = roll_logged(b, c.id, "jump", max(0, jump_pool(c, running) - c.penalty),
                        JUMP_DIFFICULTY + physical_difficulty(b, c))
        got = 0 if r.botch else r.successes + c.stats.discipline("potence")
        reached = jump_feet(got, vertical=o.kind is ObstacleKind.LOW)
        if reached + EPS >= o.feet and not r.botch:
            b.log.emit(JumpEvent(c.id, o.name, o.feet, reached, running, True))
            continue
        prone = True
        if not r.botch:
            pool = max(0, c.attr("dexterity") + c.stats.ability("athletics") - c.penalty)
            prone = roll_logged(b, c.id, "landing", pool, LANDING_DIFFICULTY
                                + physical_difficulty(b, c)).successes <= 0
        if prone:
            c.prone = True
        b.log.emit(JumpEvent(c.id, o.name, o.feet, reached, running, False, prone=prone))
        return


def nearest_obstacle(b: Battle, c: Combatant) -> tuple[float, Obstacle] | None:
    """The closest obstacle to ``c`` and its distance in yards (None: no obstacles)."""
    best: tuple[float, Obstacle] | None = None
    for o in b.field.obstacles:
        d = o.distance_to(c.x, c.y)
        if best is None or d < best[0]:
            best = (d, o)
    return best
