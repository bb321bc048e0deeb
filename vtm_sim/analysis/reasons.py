"""One reason a Storyteller can read out: what decides an option, in plain words.

A reason names the fact that sets an option apart (the defense it meets, soak
halving bashing against a vampire, cover, a chase it cannot win, a clinch),
then the odds against the defense it names and the goal's value with its
interval ("61% to keep Tessa standing (55%-67%)"). Facts come from the engine's
own numbers (exact odds, soak pools, chase pools, cover), never from the
rollouts' noise.
"""

from __future__ import annotations

from collections.abc import Sequence

from vtm_sim.analysis.goals import Goal
from vtm_sim.analysis.search import Tally
from vtm_sim.analysis.wording import chase_words
from vtm_sim.core.choices import Action, ActionKind, BloodSpend, BloodUse, Choice, DefenseKind
from vtm_sim.core.goals import GoalKind
from vtm_sim.core.weapons import DamageType
from vtm_sim.engine.battle import Battle
from vtm_sim.engine.chase import chase_pool
from vtm_sim.mechanics.combatant import Combatant
from vtm_sim.text.names import cast_of

GOAL_VERBS = {
    GoalKind.WIN: "to win", GoalKind.SURVIVE: "to come out standing",
    GoalKind.ESCAPE: "to get away", GoalKind.PROTECT: "to keep {t} standing",
    GoalKind.TAKE_ALIVE: "to take {t} alive", GoalKind.HURT: "of {t}'s health taken",
}


def goal_figure(b: Battle, goal: Goal, t: Tally) -> str:
    lo, hi = t.value_ci95
    target = "" if goal.target is None else short_name(b.combatants[goal.target])
    verb = GOAL_VERBS[goal.kind].format(t=target)
    return f"{t.goal:.0%} {verb} ({lo:.0%}-{hi:.0%})"


def _pronoun(c: Combatant) -> str:
    """The short name a Storyteller says (``Jax``; a sheet's ``short:``), as narration does."""
    return short_name(c)


def short_name(c: Combatant) -> str:
    short = getattr(c.stats, "short", None)
    people = cast_of([{"name": c.stats.name, "short": short}])
    return people[0].short


def attack_fact(b: Battle, me: Combatant, ex: object, alts: Sequence[tuple[Choice, object,
                                                                           Tally]]) -> str:
    """What decides an attack: soak against a vampire, the defense it meets, the chance of
    taking the target down."""
    from vtm_sim.analysis.advice import Exchange

    assert isinstance(ex, Exchange)
    t = b.combatants[ex.target]
    name = _pronoun(t)
    bits: list[str] = []
    dtype = ex.plan.damage_type
    if t.vampire and dtype is DamageType.BASHING:
        bits.append(f"{name} halves bashing damage (a vampire), so blows land for little")
    elif t.vampire and dtype is DamageType.LETHAL and any(
            isinstance(a, Action) and isinstance(e, Exchange) and e.target == ex.target
            and e.plan.damage_type is DamageType.BASHING for a, e, _ in alts):
        bits.append(f"{name} halves bashing damage, the blade's lethal is not halved")
    if ex.defense is DefenseKind.NONE:
        if t.grappling:
            bits.append(f"{name} cannot dodge inside the clinch")
        else:
            bits.append(f"{name} has no defense left against it")
    if ex.p_incapacitate >= 0.1:
        bits.append(f"{ex.p_incapacitate:.0%} to take {name} down at once")
    return "; ".join(bits[:2])


def odds_words(b: Battle, ex: object) -> str:
    from vtm_sim.analysis.advice import Exchange

    assert isinstance(ex, Exchange)
    t = _pronoun(b.combatants[ex.target])
    against = ("undefended" if ex.defense is DefenseKind.NONE
               else f"against {t}'s {ex.defense.value}")
    return (f"{ex.p_hit:.0%} to hit {against}, {ex.p_damage:.0%} to wound, "
            f"{ex.expected_levels:.1f} levels on average")


def flee_fact(b: Battle, me: Combatant, choice: Action) -> str:
    """MOVE-4: who is faster, and what that means for running."""
    foes = [o for o in b.enemies(me) if b.able(o)]
    if not foes:
        return "nobody is left to stop it"
    mine = chase_pool(me, 0)
    fastest = max(foes, key=lambda o: (chase_pool(o, 0), -o.id))
    theirs = chase_pool(fastest, 0)
    name = _pronoun(fastest)
    if theirs > mine:
        return (f"{name} is faster ({theirs} dice a turn to {mine}): running only works "
                f"with a head start or if {name} is kept busy")
    return f"faster than {name} ({mine} dice a turn to {theirs}): a chase favours running"


def cover_fact(b: Battle, me: Combatant) -> str:
    foes = [o for o in b.enemies(me) if b.able(o)]
    if not foes:
        return ""
    worst = max(foes, key=lambda o: (b.cover_of(me, o).value, -o.id))
    level = b.cover_of(me, worst).value
    if level <= 0:
        return ""
    return f"staying in cover makes {_pronoun(worst)}'s shots {level} harder"


def reason_for(b: Battle, npc: int, goal: Goal, choice: Choice, words: str, ex: object,
               tally: Tally, best: Tally, is_best: bool, is_tied: bool,
               alts: Sequence[tuple[Choice, object, Tally]]) -> str:
    """``words``: the fact that decides it; the odds; the goal's value."""
    from vtm_sim.analysis.advice import Exchange

    me = b.combatants[npc]
    facts: list[str] = []
    if isinstance(ex, Exchange):
        fact = attack_fact(b, me, ex, alts)
        if fact:
            facts.append(fact)
        facts.append(odds_words(b, ex))
        if not _moves(choice) and not ex.plan.close:
            c = cover_fact(b, me)
            if c:
                facts.append(c)
    elif isinstance(choice, Action):
        k = choice.kind
        if k in (ActionKind.FLEE, ActionKind.PURSUE):
            if k is ActionKind.FLEE:
                facts.append(flee_fact(b, me, choice))
            facts.append(chase_words(b, me, choice))
        elif k is ActionKind.TAKE_COVER:
            facts.append("cover makes every shot at it harder; it gives up this action's attack")
        elif k is ActionKind.MOVE:
            t = None if choice.target is None else b.combatants[choice.target]
            if t is not None:
                gap = me.distance(t)
                facts.append(f"{'opens' if choice.away else 'closes'} the {gap:.0f}-yard gap "
                             f"to {_pronoun(t)}")
        elif k is ActionKind.CRUSH:
            facts.append("automatic Strength damage inside the clinch: no roll to hit, "
                         "no defense")
        elif k is ActionKind.BREAK_FREE:
            facts.append("out of the clinch, free to act and to run")
        elif k in (ActionKind.PASS, ActionKind.WAIT, ActionKind.DELAY):
            c = cover_fact(b, me)
            facts.append("does nothing this action" + (f"; {c}" if c else ""))
        elif k is ActionKind.RELOAD:
            facts.append("a full magazine for the next turn")
        elif k is ActionKind.AIM:
            facts.append("a die more on the next shot for a turn spent aiming")
    elif isinstance(choice, BloodSpend):
        if choice.use is BloodUse.HEAL and choice.points:
            facts.append(f"heals {choice.points} level{'s' if choice.points > 1 else ''} "
                         "before the blows land")
        elif choice.points:
            facts.append(f"+{choice.points} {choice.use.value} for this turn's rolls")
        else:
            facts.append(f"keeps the blood ({me.blood} left)")
    tail = goal_figure(b, goal, tally)
    if not is_best:
        tail += (", as good as the best within the noise" if is_tied else
                 f", {best.goal - tally.goal:.0%} less than the best")
    return f"{words}: " + "; ".join([*facts, tail]) + "."


def _moves(c: Choice) -> bool:
    return isinstance(c, Action) and c.kind in (
        ActionKind.MOVE, ActionKind.FLEE, ActionKind.PURSUE, ActionKind.TAKE_COVER)
