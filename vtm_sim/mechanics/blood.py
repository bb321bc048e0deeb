"""Spending blood (VAMP-1, VAMP-2, VAMP-6): the options and their effects."""

from __future__ import annotations

from typing import Final

from vtm_sim.core.choices import BloodSpend, BloodUse
from vtm_sim.mechanics.combatant import Combatant

NO_BLOOD: Final = BloodSpend()
BOOSTS: Final = (BloodUse.STRENGTH, BloodUse.DEXTERITY, BloodUse.STAMINA)


def blood_budget(c: Combatant) -> int:
    """VAMP-1/VAMP-6: points still spendable this turn (0 when dry or staked)."""
    if c.stats.blood_pool == 0 or c.staked:
        return 0
    return max(0, min(c.stats.blood_per_turn - c.blood_spent, c.blood))


def blood_options(c: Combatant) -> tuple[BloodSpend, ...]:
    """VAMP-2: heal bashing/lethal levels or raise a Physical Attribute for the scene."""
    budget = blood_budget(c)
    if budget == 0:
        return (NO_BLOOD,)
    opts = [NO_BLOOD]
    healable = c.health.bashing + c.health.lethal
    opts.extend(BloodSpend(BloodUse.HEAL, n) for n in range(1, min(budget, healable) + 1))
    for use in BOOSTS:
        room = c.stats.trait_max - c.attr(use.value)
        opts.extend(BloodSpend(use, n) for n in range(1, min(budget, room) + 1))
    return tuple(opts)


def spend_blood(c: Combatant, choice: BloodSpend) -> int:
    """Apply a spend; returns the levels healed (0 for a boost)."""
    if choice.use is BloodUse.NONE or choice.points == 0:
        return 0
    c.blood -= choice.points
    c.blood_spent += choice.points
    if choice.use is BloodUse.HEAL:
        return c.health.heal(choice.points)
    c.attr_bonus[choice.use.value] = c.attr_bonus.get(choice.use.value, 0) + choice.points
    return 0
