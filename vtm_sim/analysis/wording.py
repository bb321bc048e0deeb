"""An NPC's options in the words a Storyteller would use, and what a move or a flight
is up against (MOVE-3 jumps and detours, MOVE-4 chases)."""

from __future__ import annotations

import math

from vtm_sim.core.choices import (
    AbortMethod,
    Action,
    ActionKind,
    BloodSpend,
    BloodUse,
    Choice,
    Declaration,
    Defense,
    DefenseKind,
)
from vtm_sim.core.space import ObstacleKind
from vtm_sim.engine.battle import Battle
from vtm_sim.engine.chase import chase_pool, lead_of, tired
from vtm_sim.engine.obstacles import Route, action_route
from vtm_sim.files.state_files import labels
from vtm_sim.mechanics.attack import maneuver_weapon
from vtm_sim.mechanics.combatant import Combatant
from vtm_sim.mechanics.movement import (
    JUMP_DIFFICULTY,
    PURSUIT_YARDS_PER_SUCCESS,
    jump_dice,
    jump_needed,
    jump_successes,
)
from vtm_sim.mechanics.odds import roll_odds

MANEUVER_WORDS = {
    "punch": "Punch", "kick": "Kick", "weapon_strike": "Strike", "sweep": "Sweep",
    "tackle": "Tackle", "clinch": "Clinch", "hold": "Grab and hold", "bite": "Bite",
    "kiss": "Feed on", "disarm": "Disarm", "claws": "Claw", "single_shot": "Shoot",
    "burst": "Fire a burst at", "full_auto": "Fire full auto at", "spray": "Spray fire at",
    "thrown": "Throw at",
}


def describe(battle: Battle, actor: int, choice: Choice) -> str:
    """One option in the words a Storyteller would use."""
    cs = battle.combatants
    me = cs[actor]

    def name(i: int | None) -> str:
        return "nobody" if i is None else labels([c.name for c in cs])[i]

    if isinstance(choice, BloodSpend):
        if choice.use is BloodUse.NONE or choice.points == 0:
            return "Spend no blood"
        what = "to heal" if choice.use is BloodUse.HEAL else f"on {choice.use.value}"
        return f"Spend {choice.points} blood {what}"
    if isinstance(choice, Declaration):
        if choice.full_defense:
            return "Full defense (dodge, block or parry everything this turn)"
        bits = [f"Declare {choice.actions} action{'s' if choice.actions > 1 else ''}"]
        if choice.celerity:
            bits.append(f"+{choice.celerity} with Celerity")
        if choice.willpower:
            bits.append("spend Willpower for a sure success")
        return ", ".join(bits)
    if isinstance(choice, Defense):
        if choice.kind is DefenseKind.NONE:
            return "Take the blow (no defense)"
        word = str(choice.kind.value).capitalize()
        if choice.abort is AbortMethod.ROLL:
            return f"{word}, abandoning the declared action (Willpower roll)"
        if choice.abort is AbortMethod.WILLPOWER:
            return f"{word}, abandoning the declared action (spend 1 Willpower)"
        return word
    k = choice.kind
    if k is ActionKind.ATTACK and choice.maneuver is not None:
        weapon = _weapon_word(battle, me, choice)
        text = f"{MANEUVER_WORDS.get(choice.maneuver, choice.maneuver)} {name(choice.target)}"
        if weapon:
            text += f" {weapon}"
        if choice.called is not None:
            text += f" (called shot, {choice.called.value} target)"
        return text
    simple = {
        ActionKind.RELOAD: "Reload", ActionKind.CLEAR: "Clear the jammed weapon",
        ActionKind.GET_UP: "Get up", ActionKind.DROP_PRONE: "Drop prone",
        ActionKind.BREAK_FREE: "Break free", ActionKind.RELEASE: "Let go",
        ActionKind.FEED: "Keep drinking", ActionKind.DELAY: "Hold the action (delay)",
        ActionKind.WAIT: "Wait for the others", ActionKind.PASS: "Do nothing",
    }
    if k in simple:
        return simple[k]
    if k is ActionKind.MOVE:
        return (f"Move {'away from' if choice.away else 'toward'} {name(choice.target)}"
                + route_words(battle, me, choice))
    if k is ActionKind.TAKE_COVER:
        left = max(0.0, battle.run_allowance(me) - me.moved)
        zone = battle.field.nearest_cover(me.x, me.y, left)
        return (f"Take cover ({zone.name})" if zone is not None else "Take cover") + (
            route_words(battle, me, choice))
    if k is ActionKind.AIM:
        return f"Aim at {name(choice.target)}"
    if k is ActionKind.DRAW:
        w = choice.weapon
        return "Put the weapon away" if w is None or w < 0 else (
            f"Draw the {me.stats.weapons[w].name.replace('_', ' ')}")
    if k is ActionKind.CRUSH:
        return f"Crush {name(choice.target)} in the clinch"
    if k is ActionKind.FLEE:
        return ("Keep running" if me.chase is not None else "Flee") + (
            route_words(battle, me, choice))
    if k is ActionKind.PURSUE:
        return f"Run after {name(choice.target)}" + route_words(battle, me, choice)
    return str(k.value)


def jump_chance(battle: Battle, me: Combatant, route: Route) -> float:
    """MOVE-3: the chance the jump on ``route`` clears its obstacle (exact)."""
    o = route.jump
    if o is None:
        return 1.0
    running = route.running(me.moved)
    odds = roll_odds(jump_dice(me, running), JUMP_DIFFICULTY + battle.physical_difficulty(me))
    need = jump_needed(o.feet, vertical=o.kind is ObstacleKind.LOW)
    need -= jump_successes(me, 0, False)  # VAMP-5: Potence's automatic successes
    if need <= 0:
        return 1.0 - odds.p_botch
    return math.fsum(odds.distribution[need:])


def route_words(battle: Battle, me: Combatant, choice: Action) -> str:
    """MOVE-3: ``, jumping the alley gap (8 ft across, 58% to clear)`` or ``, going
    around the crates (+4 yards)``: what a move meets on the way ("" for nothing)."""
    r = action_route(battle, me, choice)
    bits = []
    if r.around:
        bits.append(f"going around the {' and the '.join(r.around)} (+{r.detour:g} yards)")
    if r.jump is not None:
        way = "up" if r.jump.kind is ObstacleKind.LOW else "across"
        run = "running jump" if r.running(me.moved) else "standing jump"
        bits.append(f"jumping the {r.jump.name} ({r.jump.feet:g} ft {way}, {run}, "
                    f"{jump_chance(battle, me, r):.0%} to clear)")
    return "" if not bits else ", " + ", then ".join(bits)


def chase_words(battle: Battle, me: Combatant, choice: Action) -> str:
    """MOVE-4: what a flight or a pursuit is up against, in a few words."""
    cs = battle.combatants
    if choice.kind is ActionKind.PURSUE and choice.target is not None:
        q = cs[choice.target]
        ch = q.chase
        mine = None if ch is None else ch.pursuer(me.id)
        behind = (0 if ch is None else ch.total) - (0 if mine is None else mine.total)
        return (f"{plural_successes(behind)} behind {q.name}, "
                f"{chase_pool(me, tired(battle, me, 0 if mine is None else mine.rolls))} dice "
                f"to {q.name}'s {chase_pool(q, tired(battle, q, 0 if ch is None else ch.rolls))}")
    foes = [o for o in battle.enemies(me) if battle.able(o)]
    if not foes:
        return "nobody to run from"
    near = min(foes, key=lambda o: (me.distance(o), o.id))
    ch = me.chase
    if ch is not None:
        lead = lead_of(battle, me) or 0
        head = f"{plural_successes(lead)} ahead"
    else:
        yards = me.distance(near)
        head = (f"a {yards:.0f}-yard lead on {near.name} "
                f"({plural_successes(int(yards // PURSUIT_YARDS_PER_SUCCESS))})")
    pool = chase_pool(me, tired(battle, me, 0 if ch is None else ch.rolls))
    best = max(chase_pool(o, 0) for o in foes)
    tire = "" if me.vampire else f"; a mortal tires after {battle.rules.chase_fatigue_turns} turns"
    return (f"{head}, {pool} dice a turn to the fastest pursuer's {best}{tire}; "
            "getting away ends the fight for this NPC (it escapes, it does not win)")


def plural_successes(n: int) -> str:
    return f"{n} success{'es' if n != 1 else ''}"


def _weapon_word(battle: Battle, me: Combatant, a: Action) -> str:
    """``with the knife``: the weapon in hand, when the maneuver uses it."""
    idx = me.offhand if a.offhand else me.wielding
    spec = battle.tables.maneuvers.get(a.maneuver or "")
    if idx < 0 or me.lost[idx] or spec is None:
        return ""
    w = maneuver_weapon(me, spec, a.offhand)
    if w is None or w is not me.stats.weapons[idx]:
        return ""
    return f"with the {w.name.replace('_', ' ')}" + (" (off hand)" if a.offhand else "")


