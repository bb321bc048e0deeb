"""Gaps and low obstacles on the field (MOVE-3): a mover jumps them or goes around.

A move crossing an obstacle's segment goes around it when the obstacle has a
way around (``detour`` yards), the mover did not choose to jump (an action's
``jump``: the options offer both where both are possible) and its running
left still reaches past it after paying those yards; otherwise the mover
jumps: Strength (standing) or Strength + Athletics (running, when the run-up
this turn is longer than the jump, 003),
difficulty 3, 4 ft across (a gap) or 2 ft up (a low obstacle) a success;
Potence adds automatic successes (VAMP-5, a Strength roll). A jump short of the
obstacle stops the move at it; a Dexterity + Athletics roll at difficulty 6
lands it on its feet, else the mover falls prone (a botched jump falls at once).
Falling damage is outside the catalogue: there is none.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from vtm_sim.core.choices import Action, ActionKind
from vtm_sim.core.space import Obstacle, ObstacleKind
from vtm_sim.engine.effects import roll_logged
from vtm_sim.engine.positions import (
    ADJACENT_YARDS,
    able,
    enemies,
    physical_difficulty,
    running_room,
    step,
)
from vtm_sim.events import JumpEvent
from vtm_sim.mechanics.combatant import Combatant
from vtm_sim.mechanics.movement import (
    JUMP_DIFFICULTY,
    LANDING_DIFFICULTY,
    jump_dice,
    jump_feet,
    jump_successes,
    landing_pool,
    running_jump,
)

if TYPE_CHECKING:
    from vtm_sim.engine.battle import Battle

EPS: Final = 1e-6


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


@dataclass(frozen=True, slots=True)
class Route:
    """A planned move (no dice): what it goes around and the first thing it must jump."""

    detour: float  # extra yards paid going around obstacles
    around: tuple[str, ...]  # the obstacles it goes around, in order
    jump: Obstacle | None  # the first obstacle it must jump (None: nothing to jump)
    at: float = 0.0  # the yards run (detours included) before that jump

    def running(self, moved: float) -> bool:
        """003: a running jump when the run-up this turn is longer than the jump."""
        return self.jump is not None and running_jump(moved + self.at, self.jump.feet)


NO_ROUTE: Final = Route(0.0, (), None)


def goes_around(o: Obstacle, jump: bool, budget: float, before: float) -> bool:
    """MOVE-3: around ``o`` when it has a way around, the mover did not choose to jump,
    and the yards left after paying the detour still get it past."""
    return not jump and o.detour is not None and budget - o.detour > before + EPS


def route(b: Battle, x: float, y: float, ux: float, uy: float, yards: float,
          budget: float, *, jump: bool = False) -> Route:
    """The route of a move of ``yards`` along (ux, uy) from (x, y), with ``budget``
    yards of running left: :func:`cross` takes the same decisions, rolling the jumps."""
    if not b.field.obstacles or yards <= EPS:
        return NO_ROUTE
    passed: set[str] = set()
    around: list[str] = []
    extra = 0.0
    left, run = yards, budget
    ran = 0.0
    while left > EPS and run > EPS:
        go = min(left, run)
        hit = first_crossed(b, x, y, x + ux * go, y + uy * go, passed)
        if hit is None:
            break
        t, o = hit
        before = t * go
        passed.add(o.name)
        if not goes_around(o, jump, run, before):
            return Route(extra, tuple(around), o, ran + before)
        assert o.detour is not None
        ran += before + o.detour
        x, y = x + ux * before, y + uy * before
        left -= before
        run -= before + o.detour
        extra += o.detour
        around.append(o.name)
    return Route(extra, tuple(around), None)


def cross(b: Battle, c: Combatant, ux: float, uy: float, yards: float, *,
          jump: bool = False) -> None:
    """Move ``yards`` along the unit vector (ux, uy), jumping or going around what is
    in the way. Going around costs the detour's yards from the running left this
    turn (at least ``yards``), so the move still covers ``yards`` when that allows;
    ``jump`` jumps even where there is a way around (the mover's choice)."""

    if yards < 0:
        ux, uy, yards = -ux, -uy, -yards
    passed: set[str] = set()
    left = yards
    run = max(yards, running_room(b, c) - c.moved)
    while left > EPS and run > EPS:
        go = min(left, run)
        hit = first_crossed(b, c.x, c.y, c.x + ux * go, c.y + uy * go, passed)
        if hit is None:
            step(b, c, ux, uy, go)
            return
        t, o = hit
        before = t * go
        passed.add(o.name)
        if goes_around(o, jump, run, before):
            assert o.detour is not None
            step(b, c, ux, uy, before)  # to the obstacle, around it, and on
            c.moved += o.detour
            b.log.emit(JumpEvent(c.id, o.name, o.feet, 0.0, False, True, detour=o.detour))
            left -= before
            run -= before + o.detour
            continue
        if before > EPS:
            step(b, c, ux, uy, before)
        left -= before
        run -= before
        running = running_jump(c.moved, o.feet)  # MOVE-6: a run-up longer than the jump
        r = roll_logged(b, c.id, "jump", jump_dice(c, running),
                        JUMP_DIFFICULTY + physical_difficulty(b, c))
        reached = jump_feet(jump_successes(c, r.successes, r.botch),
                            vertical=o.kind is ObstacleKind.LOW)
        if reached + EPS >= o.feet and not r.botch:
            b.log.emit(JumpEvent(c.id, o.name, o.feet, reached, running, True))
            continue
        prone = True
        if not r.botch:
            prone = roll_logged(b, c.id, "landing", landing_pool(c), LANDING_DIFFICULTY
                                + physical_difficulty(b, c)).successes <= 0
        if prone:
            c.prone = True
        b.log.emit(JumpEvent(c.id, o.name, o.feet, reached, running, False, prone=prone))
        return


def move_line(b: Battle, c: Combatant, a: Action) -> tuple[float, float, float] | None:
    """The straight line (unit vector, yards) a MOVE, FLEE, PURSUE or TAKE_COVER action
    of ``c`` runs now, as ``Battle`` and :mod:`vtm_sim.engine.chase` carry them out (None: it
    goes nowhere)."""

    left = max(0.0, running_room(b, c) - c.moved)
    kind = a.kind
    if kind is ActionKind.TAKE_COVER:
        zone = b.field.nearest_cover(c.x, c.y, left)
        if zone is None:
            return None
        tx, ty, yards = zone.x, zone.y, min(left, math.hypot(zone.x - c.x, zone.y - c.y))
    elif kind is ActionKind.FLEE:
        foes = [o for o in enemies(b, c) if able(b, o)]
        if not foes:
            return None
        t = min(foes, key=lambda o: (c.distance(o), o.id))
        tx, ty, yards = t.x, t.y, -left
    elif kind in (ActionKind.MOVE, ActionKind.PURSUE) and a.target is not None:
        t = b.combatants[a.target]
        tx, ty = t.x, t.y
        yards = -left if a.away else min(left, max(0.0, c.distance(t) - ADJACENT_YARDS))
    else:
        return None
    d = math.hypot(tx - c.x, ty - c.y)
    ux, uy = ((tx - c.x) / d, (ty - c.y) / d) if d > 0 else (-1.0, 0.0)
    if yards < 0:
        ux, uy, yards = -ux, -uy, -yards
    return (ux, uy, yards) if yards > EPS else None


def action_route(b: Battle, c: Combatant, a: Action) -> Route:
    """MOVE-3: the route a moving action takes now (no obstacles: nothing in the way)."""
    if not b.field.obstacles:
        return NO_ROUTE
    line = move_line(b, c, a)
    if line is None:
        return NO_ROUTE
    ux, uy, yards = line

    return route(b, c.x, c.y, ux, uy, yards, max(yards, running_room(b, c) - c.moved),
                 jump=a.jump)


def approach_detour(b: Battle, c: Combatant, t: Combatant, need: float) -> float:
    """MOVE-3: the extra yards closing ``need`` yards on ``t`` pays going around."""
    d = c.distance(t)
    if d <= 0:
        return 0.0

    left = max(need, running_room(b, c) - c.moved)
    return route(b, c.x, c.y, (t.x - c.x) / d, (t.y - c.y) / d, need, left).detour


def nearest_obstacle(b: Battle, c: Combatant) -> tuple[float, Obstacle] | None:
    """The closest obstacle to ``c`` and its distance in yards (None: no obstacles)."""
    best: tuple[float, Obstacle] | None = None
    for o in b.field.obstacles:
        d = o.distance_to(c.x, c.y)
        if best is None or d < best[0]:
            best = (d, o)
    return best
