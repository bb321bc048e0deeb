"""Movement (MOVE-1..4, DMG-9, ACT-4): speeds, burdens, jumps and pursuit."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Final

from vtm_sim.core.dice import DiceSource, Roll, roll
from vtm_sim.data.tables import Tables
from vtm_sim.mechanics.combatant import Combatant

POUNDS_PER_STRENGTH: Final = 25.0  # MOVE-2 (003): 25 lb (11.34 kg) per dot of Strength
JUMP_DIFFICULTY: Final = 3  # MOVE-3
FEET_UP_PER_SUCCESS: Final = 2.0
FEET_ACROSS_PER_SUCCESS: Final = 4.0
PURSUIT_YARDS_PER_SUCCESS: Final = 2.0  # MOVE-4: one success of lead per 2 yards on foot
PURSUIT_VEHICLE_YARDS_PER_SUCCESS: Final = 10.0
SIGHT_DIFFICULTY: Final = 6  # MOVE-5: the Perception roll's base (003 names none: V20's 6)
JUDGE_DIFFICULTY: Final = 6  # MOVE-6: Perception + Athletics judges a jump beforehand
LANDING_DIFFICULTY: Final = 6  # MOVE-6 (003): Dexterity + Athletics to catch the edge
FEET_PER_YARD: Final = 3.0
JUDGE_SUCCESSES: Final = 3


def carry_limit(c: Combatant) -> float:
    """MOVE-2: Strength (+ Potence) x 25 lb before the burden hinders."""
    return (c.attr("strength") + c.stats.discipline("potence")) * POUNDS_PER_STRENGTH


def burden(c: Combatant) -> tuple[int, float]:
    """MOVE-2: (difficulty added to physical actions, speed factor)."""
    load = c.stats.carrying
    if load <= 0:
        return 0, 1.0  # nothing carried (the usual case: skip the limit)
    limit = carry_limit(c)
    if load <= limit:
        return 0, 1.0
    if load >= 2 * limit:
        return 1, 0.0
    halvings = math.ceil((load - limit) / POUNDS_PER_STRENGTH - 1e-9)
    return 1, 0.5**halvings


def run_allowance(c: Combatant, tables: Tables) -> float:
    """MOVE-1, DMG-9, MOVE-2: the farthest this character can move this turn (yards)."""
    dex = c.attr("dexterity")
    mv = tables.movement
    level = c.health.level
    run = float(mv.run.base + mv.run.per_dexterity * dex)
    if level is not None and level.move != "full":
        if level.move == "half":
            run = run / 2
        elif level.move == "no_run":
            # cannot run: at most a jog, and never farther than an Injured character
            run = min(float(mv.jog.base + mv.jog.per_dexterity * dex), run / 2)
        else:
            run = float(level.yards or 0)
    return run * burden(c)[1]


def walk_speed(tables: Tables) -> float:
    return float(tables.movement.walk.base)


def approach_cost(moved: float, need: float, allowance: float) -> int | None:
    """ACT-4: dice lost for moving ``need`` more yards this turn (None: too far).

    Up to half the running distance still allows an action; each yard beyond
    costs one die.
    """
    if moved + need > allowance + 1e-9:
        return None
    half = allowance / 2
    extra = max(0.0, moved + need - half) - max(0.0, moved - half)
    return math.ceil(extra - 1e-9)


def jump_pool(c: Combatant, running: bool) -> int:
    """MOVE-3: Strength standing, Strength + Athletics running (difficulty 3)."""
    return c.attr("strength") + (c.stats.ability("athletics") if running else 0)


def jump_dice(c: Combatant, running: bool) -> int:
    """MOVE-3: the jump pool rolled, less the wound penalty (DMG-9)."""
    return max(0, jump_pool(c, running) - c.penalty)


def jump_successes(c: Combatant, successes: int, botch: bool) -> int:
    """MOVE-3 with VAMP-5: a jump's successes plus Potence's dots as automatic
    successes (a Strength roll); a botch gets nothing."""
    return 0 if botch else successes + c.stats.discipline("potence")


def jump_feet(successes: int, *, vertical: bool) -> float:
    """MOVE-3: 2 ft up or 4 ft across per success."""
    return successes * (FEET_UP_PER_SUCCESS if vertical else FEET_ACROSS_PER_SUCCESS)


def jump_needed(feet: float, *, vertical: bool) -> int:
    """MOVE-3: the successes that clear ``feet`` (2 ft up or 4 ft across each)."""
    per = FEET_UP_PER_SUCCESS if vertical else FEET_ACROSS_PER_SUCCESS
    return max(0, math.ceil(feet / per - 1e-9))


def running_jump(run_up_yards: float, feet: float) -> bool:
    """MOVE-6 (003): a running jump (Strength + Athletics) needs a run-up longer than
    the jump; else it is a standing one (Strength)."""
    return run_up_yards * FEET_PER_YARD > feet


def landing_pool(c: Combatant) -> int:
    """MOVE-6 (003): Dexterity + Athletics, less wounds, after a jump that fell short:
    a success catches the edge (or lands well), else the jumper falls."""
    return max(0, c.attr("dexterity") + c.stats.ability("athletics") - c.penalty)


def judge_pool(c: Combatant) -> int:
    """MOVE-6 (003): Perception + Athletics, difficulty 6, less wounds: with 3 successes
    the jumper knows how many successes the jump needs (:func:`jump_needed`)."""
    return max(0, c.attr("perception") + c.stats.ability("athletics") - c.penalty)


def judge_jump(c: Combatant, feet: float, *, vertical: bool,
               dice: DiceSource) -> tuple[Roll, int | None]:
    """MOVE-6 (003): the Perception + Athletics roll before a jump; with 3 successes the
    jumper knows how many successes clear ``feet`` (the second item), else None."""
    r = roll(judge_pool(c), JUDGE_DIFFICULTY, dice)
    known = r.successes >= JUDGE_SUCCESSES
    return r, jump_needed(feet, vertical=vertical) if known else None


def sight_pool(c: Combatant) -> int:
    """MOVE-5 (003): the pursuer's Perception roll to keep the quarry in sight."""
    return max(0, c.attr("perception") - c.penalty)


def sight_difficulty(lead: int) -> int:
    """MOVE-5 (003): +1 difficulty per success the quarry has beyond the pursuer's."""
    return SIGHT_DIFFICULTY + max(0, lead)


def outpaces(fast: float, slow: float, ratio: float) -> bool:
    """MOVE-5 (003): a side "much faster" than the other (``ratio`` times its running
    distance a turn; 0: never) catches up or gets away without rolls."""
    return ratio > 0 and fast > 0 and fast >= ratio * slow


@dataclass(slots=True)
class Pursuit:
    """MOVE-4: an extended Dexterity + Athletics contest.

    The quarry starts with one success per 2 yards of lead (10 in vehicles);
    each turn both add their successes; the pursuer catches up when its total
    exceeds the quarry's. Mortals tire (the Storyteller may end the chase);
    vampires do not.
    """

    quarry: int
    pursuer: int = 0

    @classmethod
    def start(cls, lead_yards: float, *, vehicles: bool = False) -> Pursuit:
        per = PURSUIT_VEHICLE_YARDS_PER_SUCCESS if vehicles else PURSUIT_YARDS_PER_SUCCESS
        return cls(quarry=int(lead_yards // per))

    def turn(self, pursuer_successes: int, quarry_successes: int) -> bool:
        """Add one turn's successes; True when the pursuer has caught up."""
        self.pursuer += pursuer_successes
        self.quarry += quarry_successes
        return self.caught

    @property
    def caught(self) -> bool:
        return self.pursuer > self.quarry
