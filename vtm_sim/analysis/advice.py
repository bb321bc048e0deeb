"""What should this NPC do this turn: a plan for its goal, three options with reasons.

:func:`advise` answers a Storyteller's question about one NPC in a fight as it
stands (a scenario's start or a state file's), for the NPC's goal
(:mod:`vtm_sim.analysis.goals`: win, survive, escape, protect, take alive, hurt):

- **the turn as one answer**: its blood spend, its declaration and its first action,
  found one after the other by :mod:`vtm_sim.analysis.search` (the action first, as
  it matters most; then the declaration that serves it; then the blood), each
  option raced by simulated fights that follow the plan;
- **initiative**: where the state gives none, every simulated fight rolls it, so
  the options are weighed by its real chances; :func:`initiative_cases` adds the
  exact chance of each set of enemies acting first and names the cases where
  another action would be better;
- **exact odds** of an attack option at the roll it leads to
  (:meth:`~vtm_sim.engine.battle.Battle.chance`), against the defense the target
  really picks (``p_hit``, ``p_damage``, expected levels, ``p_incapacitate``);
- **a reason** in plain words (:mod:`vtm_sim.analysis.reasons`).

``advise(..., kind=DecisionKind.ACT)`` ranks every legal option of that one
decision instead (``suggest --decision``).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from vtm_sim.analysis.goals import Goal
from vtm_sim.analysis.search import (
    Budget,
    Job,
    Plan,
    Tally,
    default_workers,
    race,
    rollout_dice,
    tied,
)
from vtm_sim.analysis.wording import describe, route_words
from vtm_sim.core.choices import (
    Action,
    ActionKind,
    Choice,
    Decision,
    DecisionKind,
    Declaration,
    DefenseKind,
)
from vtm_sim.core.goals import GoalKind
from vtm_sim.engine.battle import Battle
from vtm_sim.engine.queries import ahead_odds
from vtm_sim.errors import ConfigError
from vtm_sim.files.names import find_combatant as find_combatant  # its old home: still importable
from vtm_sim.files.state_files import labels
from vtm_sim.mechanics.attack import AttackPlan
from vtm_sim.mechanics.forecast import expected, plan_hit_chance, plan_odds
from vtm_sim.mechanics.odds import roll_odds
from vtm_sim.policies.planner import candidates
from vtm_sim.policies.play import Policy
from vtm_sim.policies.playouts import reseed, runner

__all__ = ["Advice", "Exchange", "OptionAdvice", "Step", "advise", "describe", "exchange_of",
           "find_combatant", "reach_npc", "route_words", "situation_lines"]

MAX_SETUP_DECISIONS: Final = 500  # decisions played by others before the NPC is asked
DEFAULT_CAP: Final = 400  # simulated fights an option at most, without --rollouts
PROBES: Final = 8  # simulated starts of the turn that show the NPC's options
MAX_ACT_OPTIONS: Final = 10  # actions raced in a turn plan
TURN_ORDER: Final = (DecisionKind.BLOOD, DecisionKind.DECLARE, DecisionKind.ACT)
# the share of the time each step of the plan gets (the action matters most)
SHARES: Final = {DecisionKind.ACT: 0.55, DecisionKind.DECLARE: 0.25, DecisionKind.BLOOD: 0.2,
                 DecisionKind.DEFEND: 1.0}
PASSIVE: Final = frozenset({ActionKind.PASS, ActionKind.WAIT, ActionKind.DELAY})
HORIZON: Final = 2  # turn boundaries a rollout plays past the planned turn
DUEL_HORIZON: Final = 6  # in a duel (advice_quality.py: 0.48 against the planner at 2, 0.50 at 6)
GOAL_HORIZON: Final = {GoalKind.ESCAPE: 4, GoalKind.SURVIVE: 3}
CASE_SHARE: Final = 0.1  # initiative cases rarer than this are not named


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
    tally: Tally
    reason: str
    tied_with_best: bool

    @property
    def value(self) -> float:
        return self.tally.value

    @property
    def p_win(self) -> float:
        return self.tally.p_win

    @property
    def rollouts(self) -> int:
        return self.tally.n

    def to_json(self) -> dict[str, Any]:
        ex = self.exchange
        lo, hi = self.tally.value_ci95
        return {
            "action": self.action,
            "choice": self.choice.to_json(),
            "reason": self.reason,
            "defense": None if ex is None else ex.defense.value,
            "value": round(self.tally.value, 4),
            "value_ci95": [round(lo, 4), round(hi, 4)],
            "goal_value": round(self.tally.goal, 4),
            "p_win": round(self.tally.p_win, 4),
            "tied_with_best": self.tied_with_best,
            "p_hit": None if ex is None else round(ex.p_hit, 4),
            "p_damage": None if ex is None else round(ex.p_damage, 4),
            "expected_levels": None if ex is None else round(ex.expected_levels, 3),
            "p_incapacitate": None if ex is None else round(ex.p_incapacitate, 4),
            "rollouts": self.tally.n,
        }


@dataclass(frozen=True, slots=True)
class Step:
    """One choice of the plan for the turn."""

    kind: DecisionKind
    choice: Choice
    action: str

    def to_json(self) -> dict[str, Any]:
        return {"decision": self.kind.value, "action": self.action,
                "choice": self.choice.to_json()}


@dataclass(frozen=True, slots=True)
class Case:
    """An initiative case: these enemies act first, with this exact chance."""

    ahead: tuple[str, ...]
    p: float
    best: str  # the action best in this case
    differs: bool  # another action than the recommended one is better here

    def to_json(self) -> dict[str, Any]:
        return {"ahead": list(self.ahead), "p": round(self.p, 4), "best": self.best,
                "differs": self.differs}


@dataclass(frozen=True, slots=True)
class Advice:
    npc: str
    goal: str  # as written: win, protect:Tessa, ...
    goal_words: str
    decision: DecisionKind  # the decision whose options are ranked
    turn: int
    plan: tuple[Step, ...]
    options: tuple[OptionAdvice, ...]  # best first
    recommended_index: int
    rollouts: int
    seed: int
    policy: str
    seconds: float
    initiative: str  # how initiative was dealt with, in words
    then: str = ""  # the rest of the turn, conditional on what happens
    cases: tuple[Case, ...] = ()
    situation: tuple[str, ...] = field(default=())

    @property
    def recommended(self) -> OptionAdvice:
        return self.options[self.recommended_index]

    def to_json(self) -> dict[str, Any]:
        return {
            "npc": self.npc,
            "goal": self.goal,
            "goal_words": self.goal_words,
            "decision": self.decision.value,
            "turn": self.turn,
            "recommended": self.recommended.to_json(),
            "plan": [s.to_json() for s in self.plan],
            "then": self.then,
            "options": [o.to_json() for o in self.options],
            "initiative": {"note": self.initiative, "cases": [c.to_json() for c in self.cases]},
            "rollouts": self.rollouts,
            "seconds": round(self.seconds, 3),
            "seed": self.seed,
            "policy": self.policy,
            "situation": list(self.situation),
        }


def reach_npc(battle: Battle, npc: int, policies: Sequence[Policy],
              kind: DecisionKind | None = None) -> None:
    """Play on until ``npc`` is asked (a decision of ``kind``, when given; its own
    other decisions are then made by its policy), or the fight ends."""
    if battle.pending is None and not battle.over and not battle.stack:
        battle.begin()
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




# --- the search for the turn --------------------------------------------------------------

@dataclass(slots=True)
class Probe:
    """A simulated start of the turn (rollout ``k``'s dice) up to the NPC's decisions."""

    k: int
    at: dict[DecisionKind, tuple[Battle, Decision]]  # the first decision of each kind


def probe(root: Battle, npc: int, playout: Callable[[int], Policy], plan: Plan, seed: int,
          k: int, kinds: frozenset[DecisionKind]) -> Probe:
    """Play rollout ``k``'s dice from ``root`` (following ``plan``) to the NPC's first action
    of its turn, keeping a copy of the fight at its first decision of each of ``kinds``."""
    fork = root.clone(dice=rollout_dice(seed, k))
    if fork.pending is None and not fork.over and not fork.stack:
        fork.begin()
    reseed(playout, k)  # a drawing playout draws by the probe, not by the worker
    policies = [playout(c.id) for c in fork.combatants]
    found: dict[DecisionKind, tuple[Battle, Decision]] = {}
    plan_turn: int | None = None
    for _ in range(MAX_SETUP_DECISIONS):
        d = fork.pending
        if d is None:
            break
        if d.actor == npc and d.kind in kinds:
            if plan_turn is None:
                plan_turn = fork.turn
            if fork.turn != plan_turn:
                break
            if d.kind not in found:
                found[d.kind] = (fork.clone(), d)
                if d.kind is DecisionKind.ACT:
                    break
            step = plan.get(d.kind)
            if step is not None and step in d.options:
                fork.choose(step)
                continue
        elif plan_turn is not None and fork.turn > plan_turn:
            break
        fork.choose(policies[d.actor].choose(fork, d))
    return Probe(k, found)


def horizon_for(goal: Goal, combatants: int) -> int:
    """Turn boundaries a simulated fight plays past the planned turn before the goal's
    estimate scores it: :data:`GOAL_HORIZON` for goals that take time, else
    :data:`HORIZON`, longer in a duel (its rollouts are cheap: nearest plays them)."""
    base = GOAL_HORIZON.get(goal.kind, HORIZON)
    return max(base, DUEL_HORIZON) if combatants <= 2 else base


def own_playout(goal: Goal, playout: Callable[[int], Policy]
                ) -> Callable[[int], Policy] | None:
    """How the NPC itself plays on past the plan in the simulated fights: for ``escape``,
    a runner (:class:`~vtm_sim.policies.playouts.Runner`: it keeps fleeing), so a plan is
    judged by the flight it starts; otherwise as everyone else."""
    return runner(playout) if goal.kind is GoalKind.ESCAPE else None


def act_candidates(fork: Battle, d: Decision, goal: Goal, prior: Choice) -> list[Choice]:
    """The actions worth racing at one start of the turn: the planner's pruned list
    (:func:`~vtm_sim.policies.planner.candidates`: the prior's pick, the best attacks by
    exact odds, every kind of non-attack move) and what the goal adds (running, cover,
    moving toward the one to protect)."""
    base = candidates(fork, d, prior)
    out = base[:1]  # the prior's pick, then what the goal adds, then the planner's others
    for o in d.options:
        if not isinstance(o, Action) or o in out:
            continue
        run = o.kind in (ActionKind.FLEE, ActionKind.PURSUE, ActionKind.TAKE_COVER)
        move = o.kind is ActionKind.MOVE and (
            o.away or o.target == goal.target
            or goal.kind in (GoalKind.ESCAPE, GoalKind.SURVIVE))
        named = (o.kind is ActionKind.ATTACK and goal.target is not None
                 and o.target == goal.target and o.called is None)
        if run or move or named:
            out.append(o)
    out += [o for o in base if o not in out]
    if not any(isinstance(o, Action) and o.kind in PASSIVE for o in out):
        for o in d.options:  # the do-nothing option, to compare against
            if isinstance(o, Action) and o.kind is ActionKind.PASS:
                out.append(o)
                break
    return out


def _merge(lists: Sequence[list[Choice]], limit: int) -> list[Choice]:
    """The options of several starts, the most frequent first (ties: first seen)."""
    count: dict[Choice, int] = {}
    first: dict[Choice, int] = {}
    for lst in lists:
        for pos, o in enumerate(lst):
            count[o] = count.get(o, 0) + 1
            first.setdefault(o, len(first) * 100 + pos)
    ranked = sorted(count, key=lambda o: (-count[o], first[o]))
    # the first list's head (the prior's pick) stays in whatever the counts say
    if lists and lists[0] and lists[0][0] in ranked[limit:]:
        ranked.remove(lists[0][0])
        ranked.insert(0, lists[0][0])
    return ranked[:limit]


def _passive(c: Choice) -> bool:
    return isinstance(c, Action) and c.kind in PASSIVE


def _order(rows: list[tuple[Choice, Tally]]) -> tuple[list[int], int]:
    """Indices best first (by value, the most rollouts first among equals), and the
    recommended one: the best, unless it is passive and an active option is tied with it."""
    order = sorted(range(len(rows)), key=lambda i: (-rows[i][1].n > 0, -rows[i][1].value, i))
    order = sorted(order, key=lambda i: (-rows[i][1].n, -rows[i][1].value, i))
    most = rows[order[0]][1].n
    finalists = [i for i in order if rows[i][1].n == most]
    order = sorted(finalists, key=lambda i: (-rows[i][1].value, i)) + [
        i for i in sorted(order, key=lambda i: (-rows[i][1].value, i)) if i not in finalists]
    best = order[0]
    pick = best
    if _passive(rows[best][0]):
        for i in order[1:]:
            if not _passive(rows[i][0]) and tied(rows[i][1], rows[best][1]):
                pick = i
                break
    return order, pick


def advise(
    battle: Battle,
    npc: int,
    *,
    playout: Callable[[int], Policy],
    policy_name: str,
    goal: Goal | None = None,
    goal_text: str = "win",
    seconds: float | None = None,
    rollouts: int | None = None,
    seed: int = 0,
    kind: DecisionKind | None = None,
    workers: int | None = None,
    progress: Callable[[int], None] | None = None,
) -> Advice:
    """What ``npc`` should do this turn for ``goal`` (default: win), ``battle`` left as it is.

    ``battle`` may be not begun (a state whose initiative is still to roll: it is rolled
    in every simulated fight) or at any decision. The search stops after ``seconds``
    (None: no limit) or when every option left has ``rollouts`` simulated fights; for the
    same rollouts the answer is the same with any number of ``workers`` (default: every
    core this process may use). With ``kind``, every legal option of the NPC's next
    decision of that kind is ranked alone.
    """
    if seconds is None and rollouts is None:
        seconds = 2.0
    t0 = time.monotonic()
    deadline = None if seconds is None else t0 + seconds
    cap = rollouts if rollouts is not None else DEFAULT_CAP
    workers = default_workers() if workers is None else workers
    goal = goal or Goal(GoalKind.WIN, npc)
    root = battle.clone()
    me = root.combatants[npc]
    names = labels([c.name for c in root.combatants])
    kinds = frozenset(TURN_ORDER) if kind is None else frozenset({kind})
    horizon = horizon_for(goal, len(root.combatants))
    own = own_playout(goal, playout) or playout  # the NPC's own picks: the prior
    t_probe = time.monotonic()
    probes = [probe(root, npc, playout, {}, seed, k, kinds) for k in range(PROBES)]
    # a first guess of a rollout's cost (on one core): a probe plays part of one
    guess = 3.0 * (time.monotonic() - t_probe) / PROBES
    seen = [kd for kd in (*TURN_ORDER, DecisionKind.DEFEND) if any(kd in p.at for p in probes)]
    if not seen:
        why = ("the fight is over" if root.over else
               f"{me.name} is not asked to decide this turn (out of the fight, stunned, "
               "or only defending)")
        raise ConfigError(f"--npc: {me.name} has no decision to make ({why})")
    main_kind = DecisionKind.ACT if DecisionKind.ACT in seen else seen[-1]
    steps = [main_kind] + [kd for kd in reversed(seen) if kd is not main_kind]
    total_share = sum(SHARES[kd] for kd in steps)
    plan: Plan = {}
    results: dict[DecisionKind, tuple[list[Choice], list[Tally], int, list[int]]] = {}
    where: dict[tuple[DecisionKind, Choice], tuple[Battle, Decision]] = {}
    spent = 0.0
    for kd in steps:
        share = SHARES[kd] / total_share
        spent += share
        stage_deadline = None if deadline is None else t0 + (seconds or 0.0) * spent
        at = [p.at[kd] for p in probes if kd in p.at]
        if kind is not None:
            d = at[0][1]
            opts: list[Choice] = list(d.options)
        elif kd is DecisionKind.ACT:
            lists = [act_candidates(f, d, goal, own(npc).choose(f, d)) for f, d in at]
            opts = _merge(lists, MAX_ACT_OPTIONS)
        elif kd is DecisionKind.DECLARE:
            opts = _merge([candidates(f, d, own(npc).choose(f, d)) for f, d in at], 8)
        else:
            opts = _merge([[own(npc).choose(f, d), *d.options] for f, d in at], 12)
        for o in opts:
            for f, d in at:
                if o in d.options:
                    where.setdefault((kd, o), (f, d))
                    break
        job = Job(root, npc, goal, playout, tuple({**plan, kd: o} for o in opts), seed,
                  horizon, own_playout(goal, playout))
        tallies = race(job, Budget(stage_deadline, cap, cost=guess), workers, progress)
        order, pick = _order(list(zip(opts, tallies, strict=True)))
        results[kd] = (opts, tallies, pick, order)
        plan[kd] = opts[pick]
    # the plan in the turn's order; the ranked options are those of the main decision
    plan_steps = tuple(
        Step(kd, plan[kd], describe(where[(kd, plan[kd])][0], npc, plan[kd]))
        for kd in (*TURN_ORDER, DecisionKind.DEFEND) if kd in plan)
    opts, tallies, pick, order = results[main_kind]
    exchanges: list[Exchange | None] = []
    labels_: list[str] = []
    for o in opts:
        f, _d = where[(main_kind, o)]
        labels_.append(describe(f, npc, o))
        others = [playout(c.id) for c in f.combatants]
        exchanges.append(exchange_of(f, o, others) if isinstance(o, Action) else None)
    best_t = tallies[pick]
    from vtm_sim.analysis.reasons import reason_for

    rows: list[OptionAdvice] = []
    for i in [pick, *[j for j in order if j != pick]]:
        f, _d = where[(main_kind, opts[i])]
        is_tied = tied(tallies[i], best_t)
        rows.append(OptionAdvice(
            opts[i], labels_[i], exchanges[i], tallies[i],
            reason_for(f, npc, goal, opts[i], labels_[i], exchanges[i], tallies[i], best_t,
                       i == pick, is_tied, [(opts[j], exchanges[j], tallies[j])
                                            for j in order if j != i]),
            is_tied))
    note, cases = initiative_cases(root, npc, opts, tallies, labels_, pick, names)
    first_fork = probes[0].at[seen[0]][0] if seen[0] in probes[0].at else where[
        (main_kind, opts[pick])][0]
    return Advice(
        names[npc], goal_text, goal.words(root), main_kind, first_fork.turn, plan_steps,
        tuple(rows), 0, sum(t.n for _o, ts, _p, _r in results.values() for t in ts),
        seed, policy_name, time.monotonic() - t0, note, rest_of_turn(plan), cases,
        tuple(situation_lines(first_fork, npc)))


def rest_of_turn(plan: Plan) -> str:
    """What the plan leaves to later in the turn, in a sentence."""
    d = plan.get(DecisionKind.DECLARE)
    if isinstance(d, Declaration) and d.full_defense:
        return "Then defend against every attack this turn (full defense)."
    more = 0 if not isinstance(d, Declaration) else d.actions - 1 + d.celerity
    if more > 0:
        return (f"Then {more} more action{'s' if more > 1 else ''}: ask again when "
                "it comes, as the first one's result decides it; defend when attacked "
                "only if the action it costs is worth less (DEF-3).")
    return "Then defend when attacked only if the action it costs is worth less (DEF-3)."



def initiative_cases(root: Battle, npc: int, opts: list[Choice], tallies: list[Tally],
                     words: list[str], pick: int, names: list[str]
                     ) -> tuple[str, tuple[Case, ...]]:
    """How initiative bears on the answer: given (one case), or rolled in every simulated
    fight (the options weighed by its real chances), with the exact chance of each set of
    enemies acting first and, per likely case, the action best in it."""
    me = root.combatants[npc]
    begun = root.pending is not None or root.over or bool(root.stack)
    given = root.initiative_given or {}
    able_ids = [c.id for c in root.combatants if root.able(c)]
    if (begun and root.initiative_rolled) or all(i in given for i in able_ids):
        return ("initiative as it stands in the state: one case", ())
    # not begun: the turn about to start; begun before the roll (INIT-9's preliminary
    # blood and declarations, 004): this turn
    odds = ahead_odds(root, me, root.turn if begun else root.turn + 1, given)
    n = max(t.n for t in tallies)
    finalists = [i for i, t in enumerate(tallies) if t.n == n]
    cases: list[Case] = []
    for key, p in sorted(odds.items(), key=lambda kv: -kv[1]):
        if p < CASE_SHARE:
            continue
        ks = [k for k in range(n) if tallies[finalists[0]].samples[k].case == key]
        best = pick
        if len(ks) >= 8 and len(finalists) > 1:
            def mean(i: int, ks: list[int] = ks) -> float:
                return math.fsum(tallies[i].samples[k].value for k in ks) / len(ks)

            top = max(finalists, key=lambda i: (mean(i), -i))
            if pick in finalists and top != pick:
                d = [tallies[top].samples[k].value - tallies[pick].samples[k].value for k in ks]
                m = math.fsum(d) / len(d)
                var = math.fsum((x - m) ** 2 for x in d) / max(1, len(d) - 1)
                if m - 2.0 * math.sqrt(var / len(d)) > 0:
                    best = top
        cases.append(Case(tuple(names[i] for i in key), p, words[best], best != pick))
    note = ("initiative not rolled yet: each simulated fight rolls it, so the options are "
            "weighed by its real chances; the cases below are exact")
    return note, tuple(cases)

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
