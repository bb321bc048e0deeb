"""What an NPC wants from a fight, and how well a fight's end (or where it stands) serves it.

A Storyteller's NPC does not always fight to win: a ghoul facing a vampire wants
to get away, a bodyguard to keep someone standing, a hunter to take a vampire
alive. :class:`Goal` scores a simulated fight for one NPC, 0..1:

``win``
    its side wins (1), a draw (turn limit, nobody left: 1/2), a loss (0);
``survive``
    it is still standing or got away at the end (1), down (0);
``escape``
    it got away (MOVE-4), or is still standing when nobody is left to run from (1);
    down (0); still in the fight at the turn limit (1/2);
``protect:NAME``
    NAME is still standing or got away (1), down (0);
``take-alive:NAME``
    NAME is out of the fight but alive (incapacitated, in torpor or staked: 1), dead or
    away (0), still fighting (0);
``hurt:NAME``
    the share of NAME's health track filled (1: incapacitated or worse).

A simulated fight cut short (a truncated rollout) is scored by :meth:`Goal.estimate`,
from the health left on each side, the NPC's own and the named combatant's, and, for
``escape``, a chase's lead. Every fight also gets a continuous tie-breaker
(:meth:`Goal.tiebreak`: health left on each side, turns taken) weighed by
:data:`TIEBREAK_WEIGHT`, far below what the goal's value can tell apart, so options
that differ in consequence never tie.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from vtm_sim.core.goals import GoalKind, GoalSpec
from vtm_sim.core.health import Status
from vtm_sim.engine.battle import Battle
from vtm_sim.engine.standings import outcome, side_share
from vtm_sim.errors import ConfigError
from vtm_sim.mechanics.combatant import Combatant

TIEBREAK_WEIGHT: Final = 0.02  # a whole rollout's tie-breaker is worth 1/50 of its goal


@dataclass(frozen=True, slots=True)
class Goal:
    """A goal for combatant ``npc`` of a battle (``target``: the named combatant's id)."""

    kind: GoalKind
    npc: int
    target: int | None = None

    # --- scoring -----------------------------------------------------------------
    def final(self, b: Battle) -> float:
        """The value of a fight that is over."""
        me = b.combatants[self.npc]
        k = self.kind
        if k is GoalKind.WIN:
            return outcome(b, me.side)
        if k is GoalKind.SURVIVE:
            return 1.0 if me.escaped or standing(b, me) else 0.0
        if k is GoalKind.ESCAPE:
            if me.escaped:
                return 1.0
            if not standing(b, me):
                return 0.0
            return 1.0 if b.end_reason != "turn limit" else 0.5
        t = b.combatants[self._target()]
        if k is GoalKind.PROTECT:
            return 1.0 if t.escaped or standing(b, t) else 0.0
        if k is GoalKind.TAKE_ALIVE:
            return 1.0 if taken_alive(t) else 0.0
        return hurt_share(t)

    def estimate(self, b: Battle) -> float:
        """The value of a fight cut short (not over): a guess from where it stands."""
        me = b.combatants[self.npc]
        k = self.kind
        share = side_share(b, me.side)
        if k is GoalKind.WIN:
            return share
        if k is GoalKind.SURVIVE:
            if me.escaped:
                return 1.0
            return 0.0 if not standing(b, me) else 0.5 * health_left(me) + 0.5 * share
        if k is GoalKind.ESCAPE:
            if me.escaped:
                return 1.0
            if not standing(b, me):
                return 0.0
            run = 0.0
            if me.chase is not None:
                run = min(1.0, me.chase.total / 5.0)
            else:
                foes = [o for o in b.enemies(me) if b.able(o)]
                if not foes:
                    return 1.0
                yards = min(me.distance(o) for o in foes)
                run = min(1.0, yards / 30.0) * 0.5
            return 0.2 + 0.5 * run + 0.3 * health_left(me)
        t = b.combatants[self._target()]
        if k is GoalKind.PROTECT:
            if t.escaped:
                return 1.0
            return 0.0 if not standing(b, t) else 0.5 * health_left(t) + 0.5 * share
        if k is GoalKind.TAKE_ALIVE:
            if taken_alive(t):
                return 1.0
            if t.escaped or t.health.status is Status.DEAD:
                return 0.0
            return 0.6 * hurt_share(t) + 0.2 * share
        return hurt_share(t)

    def tiebreak(self, b: Battle, turns: int, horizon: int) -> float:
        """0..1, higher is better: the side's share of the health left (mostly), the
        NPC's own health, and fewer turns taken."""
        me = b.combatants[self.npc]
        quick = 1.0 - min(1.0, turns / max(1, horizon))
        return 0.6 * side_share(b, me.side) + 0.25 * health_left(me) + 0.15 * quick

    def _target(self) -> int:
        assert self.target is not None
        return self.target

    def words(self, b: Battle) -> str:
        """``take Tessa alive``: the goal in a few words."""
        names = [c.name for c in b.combatants]
        t = None if self.target is None else names[self.target]
        return {
            GoalKind.WIN: "win the fight",
            GoalKind.SURVIVE: "come out of it standing",
            GoalKind.ESCAPE: "get away",
            GoalKind.PROTECT: f"keep {t} standing",
            GoalKind.TAKE_ALIVE: f"take {t} alive",
            GoalKind.HURT: f"hurt {t} as much as possible",
        }[self.kind]


def standing(b: Battle, c: Combatant) -> bool:
    return b.able(c)


def taken_alive(c: Combatant) -> bool:
    """Out of the fight but alive: incapacitated, in torpor or staked, and still here."""
    if c.escaped or c.health.status is Status.DEAD:
        return False
    return c.staked or c.health.status in (Status.INCAPACITATED, Status.TORPOR)


def health_left(c: Combatant) -> float:
    if not c.active:
        return 0.0
    return (c.health.size - c.health.filled) / c.health.size


def hurt_share(c: Combatant) -> float:
    if not c.active:
        return 1.0
    return c.health.filled / c.health.size


def make_goal(spec: GoalSpec, b: Battle, npc: int, where: str = "--goal") -> Goal:
    """The goal ``spec`` for combatant ``npc``: its name matched to a combatant."""
    if spec.name is None:
        return Goal(spec.kind, npc)
    from vtm_sim.files.names import find_combatant

    t = find_combatant(b, spec.name, where)
    me = b.combatants[npc]
    other = b.combatants[t]
    if spec.kind is GoalKind.PROTECT and t == npc:
        raise ConfigError(f"{where}: protect:{spec.name} names the NPC itself "
                          "(expected another combatant; for itself, write survive)")
    if spec.kind in (GoalKind.TAKE_ALIVE, GoalKind.HURT) and other.side == me.side:
        raise ConfigError(f"{where}: {spec}: {other.name} is on {me.name}'s side "
                          "(expected an enemy)")
    return Goal(spec.kind, npc, t)
