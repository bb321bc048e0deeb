"""What should this NPC do now: every legal option ranked, with exact odds and win chance.

:func:`advise` takes a battle (a scenario's start or a state file's fight as
it stands), plays the others' decisions until the NPC is asked, then judges
each legal option two ways:

- **exact odds of the exchange**, where one attack decides it: the roll the
  option leads to (:meth:`~vtm_sim.engine.battle.Battle.chance`) gives the
  attack's real plan (after closing in), the defense the target's policy
  really picks, its multiple-action penalty and the defense's difficulty,
  which are fed to :mod:`vtm_sim.mechanics.odds`. A
  defense that needs an abort roll (DEF-3) mixes the odds with and without
  it by the roll's chance. ``p_hit`` is the chance the attack's net
  successes beat the defense; ``p_damage`` of at least one health level;
  ``p_incapacitate`` of taking the target to Incapacitated or beyond;
- **the chance to win from here**, by seeded rollouts from forks with the
  chosen policy playing every side on (common dice seeds across options), with
  a 95% Wilson interval; more rollouts go to the options still in contention
  until the best is separated or the budget is spent.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from vtm_sim.core.choices import (
    AbortMethod,
    Action,
    ActionKind,
    BloodSpend,
    BloodUse,
    Choice,
    Decision,
    DecisionKind,
    Declaration,
    Defense,
    DefenseKind,
)
from vtm_sim.core.dice import RngDice
from vtm_sim.core.space import ObstacleKind
from vtm_sim.engine.battle import Battle
from vtm_sim.engine.chase import chase_pool, lead_of, tired
from vtm_sim.engine.obstacles import Route, action_route
from vtm_sim.errors import ConfigError
from vtm_sim.files.names import find_combatant as find_combatant  # its old home: still importable
from vtm_sim.files.state_files import labels
from vtm_sim.mechanics.attack import AttackPlan, maneuver_weapon
from vtm_sim.mechanics.combatant import Combatant
from vtm_sim.mechanics.forecast import expected, plan_hit_chance, plan_odds
from vtm_sim.mechanics.movement import (
    JUMP_DIFFICULTY,
    PURSUIT_YARDS_PER_SUCCESS,
    jump_dice,
    jump_needed,
    jump_successes,
)
from vtm_sim.mechanics.odds import roll_odds
from vtm_sim.policies.planner import OptionValue, rollout
from vtm_sim.policies.play import Policy

MAX_SETUP_DECISIONS = 500  # decisions played by others before the NPC is asked


@dataclass(frozen=True, slots=True)
class Exchange:
    """Exact odds of one attack option against the defense really used."""

    p_hit: float
    p_damage: float
    expected_levels: float
    p_incapacitate: float
    defense: DefenseKind
    plan: AttackPlan
    target: int


@dataclass(frozen=True, slots=True)
class OptionAdvice:
    choice: Choice
    action: str  # the option in plain words
    exchange: Exchange | None
    value: OptionValue
    reason: str

    def to_json(self) -> dict[str, Any]:
        ex = self.exchange
        lo, hi = self.value.ci95
        return {
            "action": self.action,
            "choice": self.choice.to_json(),
            "p_hit": None if ex is None else round(ex.p_hit, 4),
            "p_damage": None if ex is None else round(ex.p_damage, 4),
            "expected_levels": None if ex is None else round(ex.expected_levels, 3),
            "p_incapacitate": None if ex is None else round(ex.p_incapacitate, 4),
            "defense": None if ex is None else ex.defense.value,
            "p_win": round(self.value.p_win, 4),
            "p_win_ci95": [round(lo, 4), round(hi, 4)],
            "rollouts": self.value.rollouts,
            "reason": self.reason,
        }


@dataclass(frozen=True, slots=True)
class Advice:
    npc: str
    decision: DecisionKind
    turn: int
    options: tuple[OptionAdvice, ...]  # best first
    rollouts: int  # in all
    seed: int
    policy: str
    situation: tuple[str, ...] = field(default=())

    @property
    def recommended(self) -> OptionAdvice:
        return self.options[0]

    def to_json(self) -> dict[str, Any]:
        return {
            "npc": self.npc,
            "decision": self.decision.value,
            "turn": self.turn,
            "recommended": self.recommended.to_json(),
            "options": [o.to_json() for o in self.options],
            "rollouts": self.rollouts,
            "seed": self.seed,
            "policy": self.policy,
            "situation": list(self.situation),
        }


def reach_npc(battle: Battle, npc: int, policies: Sequence[Policy],
              kind: DecisionKind | None = None) -> None:
    """Play on until ``npc`` is asked (a decision of ``kind``, when given; its own
    other decisions are then made by its policy), or the fight ends."""
    for _ in range(MAX_SETUP_DECISIONS):
        d = battle.pending
        if d is None or (d.actor == npc and (kind is None or d.kind is kind)):
            return
        battle.choose(policies[d.actor].choose(battle, d))


def exchange_of(battle: Battle, choice: Action, policies: Sequence[Policy]) -> Exchange | None:
    """Exact odds of an ATTACK option at the roll it leads to (:meth:`Battle.chance`),
    the target's defense picked by its policy."""
    point = battle.chance(choice, lambda fork, d: policies[d.actor].choose(fork, d))
    if point is None or len(point.targets) != 1:
        return None  # a spray over several targets shares one roll: no single exchange
    plan = point.plan
    t = point.defender  # as it stands at the roll (its defense taken)
    rules = battle.rules
    kind, pen, extra, wp = (point.defense, point.defense_penalty, point.defense_extra,
                            point.willpower)
    with_d = plan_odds(plan, t, rules, kind, defense_penalty=pen, defense_extra=extra,
                       willpower=wp)
    hit = plan_hit_chance(plan, t, rules, kind, defense_penalty=pen, defense_extra=extra,
                          willpower=wp)
    if point.abort_roll is not None:
        pool, difficulty = point.abort_roll
        abort_p = math.fsum(roll_odds(pool, difficulty).distribution[1:])
        bare = plan_odds(plan, t, rules, willpower=wp)
        size = max(len(bare), len(with_d))
        with_d = tuple(abort_p * _at(with_d, k) + (1 - abort_p) * _at(bare, k)
                       for k in range(size))
        hit = abort_p * hit + (1 - abort_p) * plan_hit_chance(plan, t, rules, willpower=wp)
    left = t.health.size - t.health.filled  # boxes left before Incapacitated
    levels = 0.0 if plan.no_damage else expected(with_d)
    p_damage = 0.0 if plan.no_damage else 1.0 - with_d[0]
    p_inc = 0.0 if plan.no_damage else math.fsum(with_d[left:]) if left < len(with_d) else 0.0
    return Exchange(hit, p_damage, levels, p_inc, kind, plan, t.id)


def _at(dist: Sequence[float], k: int) -> float:
    return dist[k] if k < len(dist) else 0.0


def advise(
    battle: Battle,
    npc: int,
    *,
    playout: Callable[[int], Policy],
    policy_name: str,
    rollouts: int = 500,
    seed: int = 0,
    budget_factor: float = 1.25,
    kind: DecisionKind | None = None,
    workers: int | None = None,
) -> Advice:
    """Rank every legal option of ``npc``'s next decision (of ``kind``, when given),
    leaving ``battle`` as it is. ``rollouts`` an option at first, up to
    ``budget_factor`` times as many in all while the best is not separated;
    ``workers`` processes share them (default: every core this process may use),
    with the same answer for any number."""
    b = battle.clone()
    others = [playout(c.id) for c in b.combatants]
    reach_npc(b, npc, others, kind)
    d = b.pending
    me = b.combatants[npc]
    if d is None or d.actor != npc:
        why = "the fight is over" if d is None else "it is not asked to decide"
        raise ConfigError(f"--npc: {me.name} has no decision to make ({why})")
    options = list(d.options)
    exchanges = [exchange_of(b, o, others) if isinstance(o, Action) else None for o in options]
    values = _win_chances(b, d, options, playout, rollouts, seed, budget_factor,
                          default_workers() if workers is None else workers)
    rows = [
        OptionAdvice(o, describe(b, npc, o), ex, v, "")
        for o, ex, v in zip(options, exchanges, values, strict=True)
    ]
    rows.sort(key=lambda r: (-r.value.p_win, -(r.exchange.expected_levels if r.exchange
                                               else 0.0), options.index(r.choice)))
    best = rows[0]
    rows = [OptionAdvice(r.choice, r.action, r.exchange, r.value,
                         reason(b, me, r, best, i == 0)) for i, r in enumerate(rows)]
    names = labels([c.name for c in b.combatants])
    return Advice(names[npc], d.kind, b.turn, tuple(rows), sum(v.rollouts for v in values),
                  seed, policy_name, tuple(situation_lines(b, npc)))


# what the rollout workers read (set before they are forked, so nothing is pickled)
_JOB: tuple[Battle, list[Choice], int, Callable[[int], Policy], int] | None = None
CHUNK = 50  # rollouts a worker plays before it reports


FACES = 256  # faces drawn ahead for each rollout (a duel's rolls about 50, at most ~200)
BLOCK = 64  # rollouts whose faces one numpy call draws
_FACES: dict[tuple[int, int], list[list[int]]] = {}  # (seed, block) -> its rollouts' faces


def rollout_dice(seed: int, k: int) -> RngDice:
    """The dice of rollout ``k``: the same for every option (common random numbers)
    and in any worker, as they depend on ``seed`` and ``k`` only."""
    key = (seed, k // BLOCK)
    block = _FACES.get(key)
    if block is None:
        block = np.random.default_rng([seed, k // BLOCK]).integers(
            1, 11, size=(BLOCK, FACES), dtype=np.int16).tolist()
        _FACES[key] = block
    return RngDice.preloaded(block[k % BLOCK], (seed, k, 1))


def _batch(task: tuple[int, int, int]) -> tuple[int, int, float]:
    """Rollouts ``start .. start + count - 1`` of option ``i``: (i, count, points)."""
    i, start, count = task
    assert _JOB is not None
    battle, options, side, playout, seed = _JOB
    points = math.fsum(rollout(battle, options[i], side, k, playout,
                               dice=rollout_dice(seed, k))
                       for k in range(start, start + count))
    return i, count, points


def default_workers() -> int:
    """The cores this process may use (rollouts are spread over them)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def _win_chances(battle: Battle, d: Decision, options: list[Choice],
                 playout: Callable[[int], Policy], n: int, seed: int,
                 budget_factor: float, workers: int) -> list[OptionValue]:
    """``n`` rollouts for every option, then more for the best and those whose interval
    still reaches it, until none does or ``budget_factor * n`` rollouts an option have
    been spent in all (an option gets at most ``2 * budget_factor * n``).

    Rollout ``k`` of every option rolls the dice :func:`rollout_dice` gives ``k``
    (common random numbers); the
    rollouts are spread over ``workers`` forked processes, and as every rollout's
    seed is fixed beforehand the answer is the same with any number of workers.
    """
    global _JOB
    side = battle.combatants[d.actor].side
    cap = max(n, int(2 * budget_factor * n))
    wins = [0.0] * len(options)
    runs = [0] * len(options)
    budget = max(n * len(options), int(budget_factor * n * len(options)))
    spent = 0
    _JOB = (battle, options, side, playout, seed)
    _FACES.clear()
    pool = None
    if workers > 1 and len(options) > 1:
        import multiprocessing

        if "fork" in multiprocessing.get_all_start_methods():  # else one process
            pool = multiprocessing.get_context("fork").Pool(workers)
    try:
        def run(which: list[int], k: int) -> int:
            nonlocal spent
            tasks: list[tuple[int, int, int]] = []
            for i in which:
                count = min(k, cap - runs[i], budget - spent - sum(t[2] for t in tasks))
                step = max(CHUNK, -(-count // max(1, workers)))
                for start in range(0, count, step):
                    tasks.append((i, runs[i] + start, min(step, count - start)))
            results = pool.map(_batch, tasks, chunksize=1) if pool else map(_batch, tasks)
            done = 0
            for i, count, points in results:
                wins[i] += points
                runs[i] += count
                done += count
            spent += done
            return done

        run(list(range(len(options))), n)
        while spent < budget and len(options) > 1:
            vals = [OptionValue(o, runs[i], wins[i]) for i, o in enumerate(options)]
            best = max(range(len(options)), key=lambda i: (vals[i].p_win, -i))
            lo = vals[best].ci95[0]
            close = [i for i in range(len(options)) if i != best and vals[i].ci95[1] >= lo]
            if not close or run([best, *close], max(1, n // 2)) == 0:
                break
    finally:
        if pool is not None:
            pool.close()
            pool.join()
        _JOB = None
        _FACES.clear()
    return [OptionValue(o, runs[i], wins[i]) for i, o in enumerate(options)]


# --- plain words -------------------------------------------------------------------

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


def reason(battle: Battle, me: Combatant, row: OptionAdvice, best: OptionAdvice,
           is_best: bool) -> str:
    """One line to say at the table."""
    ex = row.exchange
    v = row.value
    parts: list[str] = [row.action]
    if ex is not None:
        t = battle.combatants[ex.target]
        defense = "" if ex.defense is DefenseKind.NONE else f" against a {ex.defense.value}"
        parts.append(f"{ex.p_hit:.0%} to hit{defense}, {ex.p_damage:.0%} to wound, "
                     f"{ex.expected_levels:.1f} levels on average")
        if ex.p_incapacitate >= 0.005:
            parts.append(f"{ex.p_incapacitate:.0%} to take {t.name} down")
        cover = battle.cover_of(me, t)
        if cover.value > 0 and not ex.plan.close:
            parts.append(f"and staying in cover makes {t.name}'s shots {cover.value} harder")
    c = row.choice
    if isinstance(c, Action) and c.kind in (ActionKind.FLEE, ActionKind.PURSUE):
        parts.append(chase_words(battle, me, c))  # MOVE-4
    lo, hi = v.ci95
    tail = f"wins {v.p_win:.0%} of simulated fights ({lo:.0%}-{hi:.0%})"
    if not is_best:
        gap = best.value.p_win - v.p_win
        tail += f", {gap:.0%} worse than the best" if gap >= 0.005 else ", as good as the best"
    return parts[0] + ": " + "; ".join([*parts[1:], tail]) + "."


def situation_lines(battle: Battle, npc: int) -> list[str]:
    """Where everyone stands, as the NPC sees it."""
    cs = battle.combatants
    names = labels([c.name for c in cs])
    me = cs[npc]
    out = []
    for c, n in zip(cs, names, strict=True):
        who = "you" if c.id == npc else ("ally" if c.side == me.side else "enemy")
        bits = [f"{n} ({who}): {c.health.level_name}"]
        if c.id != npc:
            bits.append(f"{me.distance(c):.0f} yards away")
        if battle.field.cover_at(c.x, c.y) is not None:
            bits.append("in cover")
        if c.prone:
            bits.append("prone")
        if c.stats.blood_pool:
            bits.append(f"{c.blood} blood")
        bits.append(f"{c.willpower} Willpower")
        if not c.active:
            bits.append(c.health.status.value)
        if c.chase is not None:
            bits.append("fleeing")  # MOVE-4
        if c.escaped:
            bits.append("escaped")
        out.append(", ".join(bits))
    return out
