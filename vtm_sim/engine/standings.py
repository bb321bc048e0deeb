"""How a fight stands for one side: its share of the health left, or its result once over.

The planner's rollouts (:mod:`vtm_sim.policies.planner`), the goals of ``suggest``
(:mod:`vtm_sim.analysis.goals`) and its race of plans (:mod:`vtm_sim.analysis.search`)
all score a simulated fight by these two.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from vtm_sim.engine.battle import Battle

__all__ = ["outcome", "side_share"]


def side_share(b: Battle, side: int) -> float:
    """How well ``side`` stands in an unfinished fight, 0..1: the share of the health left
    (levels before Incapacitated, per combatant still able) that is its own; 1/2 when the
    sides stand even, or when nobody is left."""
    mine = theirs = 0.0
    for c in b.combatants:
        left = (c.health.size - c.health.filled) / c.health.size if b.able(c) else 0.0
        if c.side == side:
            mine += left
        else:
            theirs += left
    total = mine + theirs
    return 0.5 if total <= 0 else mine / total


def outcome(b: Battle, side: int) -> float:
    """A fight that is over, for ``side``: 1 won, 1/2 a draw (turn limit, nobody left),
    0 lost."""
    return 0.5 if b.winner is None else 1.0 if b.winner == side else 0.0
