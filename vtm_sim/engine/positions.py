"""Where the combatants stand and who still fights: the plainest queries on a battle.

Who is able, who are enemies, how far one may still run, what makes a physical
action harder, and a plain step (MOVE-1). :mod:`vtm_sim.engine.obstacles` (jumps
and detours) and :mod:`vtm_sim.engine.queries` (attack modifiers, approaches,
moves around obstacles) both build on these, so neither needs the other's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from vtm_sim.events import MoveEvent
from vtm_sim.mechanics.combatant import Combatant
from vtm_sim.mechanics.movement import burden, run_allowance

if TYPE_CHECKING:
    from vtm_sim.engine.battle import Battle

__all__ = ["ADJACENT_YARDS", "able", "enemies", "physical_difficulty", "running_room", "step"]

ADJACENT_YARDS: Final = 1.0


def able(b: Battle, c: Combatant) -> bool:
    """Still fighting: active, not paralyzed by a stake (CPX-5), not escaped (MOVE-4)."""
    return c.active and not c.staked and not c.escaped


def enemies(b: Battle, c: Combatant) -> list[Combatant]:
    return [o for o in b.combatants if o.side != c.side and o.active and not o.escaped]


def running_room(b: Battle, c: Combatant) -> float:
    """MOVE-1, DMG-9, MOVE-2: the farthest this character can move this turn."""
    return run_allowance(c, b.tables)


def physical_difficulty(b: Battle, c: Combatant) -> int:
    """CPX-1: a blinded character's actions +2; MOVE-2: a heavy burden +1."""
    return (2 if c.blinded else 0) + (burden(c)[0] if c.stats.carrying else 0)


def step(b: Battle, c: Combatant, ux: float, uy: float, yards: float) -> None:
    fx, fy = c.x, c.y
    c.x = round(c.x + ux * yards, 3)
    c.y = round(c.y + uy * yards, 3)
    c.moved += abs(yards)
    b.log.emit(MoveEvent(c.id, (fx, fy), (c.x, c.y), round(abs(yards), 3)))
