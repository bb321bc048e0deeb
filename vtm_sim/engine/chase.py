"""Fleeing and pursuit inside a battle (MOVE-4, seed 003).

A combatant who flees (the ``flee`` action) runs its remaining running
distance away from the nearest enemy and starts a chase: one success per
2 yards of lead on the nearest able enemy (MOVE-4), then a Dexterity +
Athletics roll each turn (difficulty 6, an extended action) added to its
total. Each enemy decides on its own action whether to ``pursue`` (a policy's
choice): it runs after the quarry and rolls Dexterity + Athletics too, added to
its own total; when that total passes the quarry's the pursuer has caught up
(placed beside it) and the chase is over: the fight goes on. A quarry's botch
is a dead end (003): the pursuer ahead of the others catches it.

Mortals tire, vampires do not (003): a mortal (or ghoul) runs the profile's
``chase_fatigue_turns`` turns at full pace, then each chase roll loses one
die more than the last. At the end of each turn a quarry escapes, out of the
fight with its own result (``escaped``, not down), when nobody pursued it in a
whole turn after the one it fled in, or when it leads every pursuer that ran
this turn by the profile's ``chase_escape_margin`` successes (in place of the
Storyteller's Perception checks; docs/rules.md). The chase is plain data on the
quarry (:class:`vtm_sim.core.relations.Chase`), so battles copy and save with it.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Final

from vtm_sim.core.choices import Action, ActionKind
from vtm_sim.core.relations import Chase, Pursuer
from vtm_sim.engine.effects import end_grapples, roll_logged, say
from vtm_sim.engine.positions import (
    ADJACENT_YARDS,
    able,
    enemies,
    physical_difficulty,
    running_room,
    step,
)
from vtm_sim.engine.queries import move
from vtm_sim.events import CaughtEvent, ChaseEvent, EscapeEvent, FleeEvent
from vtm_sim.mechanics.combatant import Combatant
from vtm_sim.mechanics.movement import Pursuit, outpaces, sight_difficulty, sight_pool

if TYPE_CHECKING:
    from vtm_sim.engine.battle import Battle

CHASE_DIFFICULTY: Final = 6  # MOVE-4 names no difficulty: the Storyteller's standard 6 (V20)


def free_to_run(b: Battle, c: Combatant) -> bool:
    """On its feet, in no grapple, with running distance left this turn."""
    return not c.prone and c.grip is None and not c.staked and (
        running_room(b, c) - c.moved > 0)


def can_flee(b: Battle, c: Combatant) -> bool:
    """MOVE-4: a character free to run, with an enemy to run from, not yet run this turn."""
    ch = c.chase
    if ch is not None and ch.turn == b.turn:
        return False  # one chase roll a turn
    return free_to_run(b, c) and any(able(b, o) for o in enemies(b, c))


def can_pursue(b: Battle, c: Combatant, q: Combatant) -> bool:
    """MOVE-4: ``c`` may run after the fleeing ``q`` (once a turn, not while fleeing)."""
    ch = q.chase
    if ch is None or c.chase is not None or not able(b, q) or not free_to_run(b, c):
        return False
    if c.id in ch.lost:
        return False  # MOVE-5: it lost sight of the quarry
    p = ch.pursuer(c.id)
    return p is None or p.turn != b.turn


def tired(b: Battle, c: Combatant, rolls: int) -> int:
    """003: mortals tire, vampires do not: the dice a chase roll loses after ``rolls``
    rolls made (a mortal runs ``chase_fatigue_turns`` turns at full pace, then each
    roll loses one die more)."""
    return tired_dice(c, rolls, b.rules.chase_fatigue_turns)


def tired_dice(c: Combatant, rolls: int, fatigue_turns: int) -> int:
    """:func:`tired` with the profile's ``chase_fatigue_turns`` given (the lone chase
    of ``vtm-sim pursuit`` uses it too)."""
    if c.vampire:
        return 0
    return max(0, rolls + 1 - fatigue_turns)


def chase_pool(c: Combatant, lost: int) -> int:
    """MOVE-4: Dexterity + Athletics, less wounds, armor and fatigue."""
    return max(0, c.attr("dexterity") + c.stats.ability("athletics") - c.penalty
               - c.armor_penalty - lost)


def _nearest_enemy(b: Battle, c: Combatant) -> Combatant | None:
    foes = [o for o in enemies(b, c) if able(b, o)]
    return min(foes, key=lambda o: (c.distance(o), o.id)) if foes else None


def flee(b: Battle, c: Combatant, jump: bool = False) -> None:
    """MOVE-4: run from the nearest enemy; start the chase (lead -> successes), roll."""
    foe = _nearest_enemy(b, c)
    ch = c.chase
    if ch is None:
        lead = 0.0 if foe is None else round(c.distance(foe), 3)
        start = Pursuit.start(lead).quarry  # MOVE-4: one success per 2 yards on foot
        ch = Chase(start, lead, b.turn)
        b.log.emit(FleeEvent(c.id, lead, start))
    if foe is not None:
        move(b, c, foe, -max(0.0, running_room(b, c) - c.moved), jump=jump)
    c.aim = None
    lost = tired(b, c, ch.rolls)
    r = roll_logged(b, c.id, "chase", chase_pool(c, lost),
                    CHASE_DIFFICULTY + physical_difficulty(b, c))
    ahead = max(ch.pursuers, key=lambda p: (p.total, -p.id), default=None)
    if r.botch and ahead is not None:  # 003: a dead end
        b.log.emit(ChaseEvent(c.id, c.id, 0, ch.total, ahead.total, lost))
        _caught(b, b.combatants[ahead.id], c, dead_end=True)
        return
    ch = replace(ch, total=ch.total + r.successes, rolls=ch.rolls + 1, turn=b.turn)
    c.chase = ch
    b.log.emit(ChaseEvent(c.id, c.id, r.successes, ch.total,
                          -1 if ahead is None else ahead.total, lost))


def pursue(b: Battle, c: Combatant, q: Combatant, jump: bool = False) -> None:
    """MOVE-4: run after ``q`` and roll; past the quarry's total, caught."""
    ch = q.chase
    assert ch is not None
    move(b, c, q, min(max(0.0, running_room(b, c) - c.moved),
                      max(0.0, c.distance(q) - ADJACENT_YARDS)), jump=jump)
    c.aim = None
    mine = ch.pursuer(c.id) or Pursuer(c.id, 0, 0, -1)
    if outpaces(running_room(b, c), running_room(b, q), b.rules.chase_much_faster):
        b.log.emit(ChaseEvent(c.id, q.id, 0, mine.total, ch.total, 0))
        _caught(b, c, q)  # MOVE-5: much faster, it catches up without rolls
        return
    lost = tired(b, c, mine.rolls)
    r = roll_logged(b, c.id, "chase", chase_pool(c, lost),
                    CHASE_DIFFICULTY + physical_difficulty(b, c))
    if r.botch:  # a stumble: nothing gained, and down
        c.prone = True
    mine = Pursuer(c.id, mine.total + r.successes, mine.rolls + 1, b.turn)
    others = tuple(p for p in ch.pursuers if p.id != c.id)
    q.chase = replace(ch, pursuers=(*others, mine))
    b.log.emit(ChaseEvent(c.id, q.id, r.successes, mine.total, ch.total, lost))
    if mine.total > ch.total:
        _caught(b, c, q)


def _caught(b: Battle, c: Combatant, q: Combatant, *, dead_end: bool = False) -> None:
    """The pursuer is beside the quarry; the chase is over, the fight goes on."""
    q.chase = None
    gap = c.distance(q) - ADJACENT_YARDS
    if gap > 0:
        d = c.distance(q)
        step(b, c, (q.x - c.x) / d, (q.y - c.y) / d, gap)
    b.log.emit(CaughtEvent(c.id, q.id, dead_end))


def end_turn(b: Battle) -> None:
    """MOVE-4/5 at a turn's end: quarries nobody ran after, much faster than their
    pursuers, or lost from sight (far enough ahead, under the margin's stand-in) escape."""
    turn = b.turn
    rules = b.rules
    margin = rules.chase_escape_margin
    for c in b.combatants:
        ch = c.chase
        if ch is None or ch.checked >= turn:
            continue
        if not able(b, c):
            c.chase = None  # downed or staked while running: the chase is over
            continue
        running = [p for p in ch.pursuers if p.turn == turn and able(b, b.combatants[p.id])]
        reason = ""
        if not running and ch.started < turn:
            reason = "unpursued"
        elif running and margin and all(ch.total - p.total >= margin for p in running):
            reason = "outran"  # the stand-in (a profile option, off in v20)
        elif running and all(
            outpaces(running_room(b, c), running_room(b, b.combatants[p.id]),
                     rules.chase_much_faster) for p in running):
            reason = "outpaced"  # MOVE-5: much faster, away without rolls
        elif running and rules.chase_perception:
            ch = keep_sight(b, c, ch, running)
            if len(ch.lost) and all(p.id in ch.lost for p in running):
                reason = "lost"  # MOVE-5: every pursuer lost sight of it
        if not reason:
            c.chase = replace(ch, checked=turn)
            continue
        c.chase = None
        c.escaped = True
        end_grapples(b, c)
        b.log.emit(EscapeEvent(c.id, reason))


def keep_sight(b: Battle, q: Combatant, ch: Chase, running: list[Pursuer]) -> Chase:
    """MOVE-5 (003): each pursuer that ran this turn rolls Perception at +1 difficulty
    per success of the quarry's lead; a failure (or a botch) loses the quarry."""
    lost = list(ch.lost)
    for p in running:
        c = b.combatants[p.id]
        r = roll_logged(b, c.id, "sight", sight_pool(c), sight_difficulty(ch.total - p.total))
        if r.successes <= 0:
            lost.append(c.id)
            say(b, c.id, "lost_sight", target=q.id, botch=r.botch)
    return replace(ch, lost=tuple(lost))


def pursuit(battle: Battle, me: Combatant, actions: list[Action]) -> Action | None:
    """MOVE-4, the scripted default: run after the nearest fleeing enemy (None: nobody
    flees, or nobody can be pursued)."""
    runs = [o for o in actions if o.kind is ActionKind.PURSUE and o.target is not None]
    if not runs:
        return None
    return min(runs, key=lambda o: (me.distance(battle.combatants[o.target or 0]), o.target))


def chasing(b: Battle) -> bool:
    """Whether anyone is fleeing (the turn's end has chases to settle)."""
    return any(c.chase is not None for c in b.combatants)


def lead_of(b: Battle, c: Combatant) -> int | None:
    """A quarry's lead in successes over its best pursuer (its total if none yet); a
    pursuer's shortfall (negative) behind the quarry it chases; None: not in a chase."""
    ch = c.chase
    if ch is not None:
        best = max((p.total for p in ch.pursuers), default=0)
        return ch.total - best
    for q in b.combatants:
        qc = q.chase
        if qc is not None:
            p = qc.pursuer(c.id)
            if p is not None:
                return p.total - qc.total
    return None
