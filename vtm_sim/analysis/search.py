"""The search behind ``suggest``: plans for an NPC's turn raced by simulated fights.

An option here is a *plan step* (the NPC's blood spend, its declaration or its
first action this turn) added to the steps already chosen. A rollout forks the
fight (the root: before the turn's initiative roll when the state gives none,
so initiative is rolled in each fork), follows the plan at the NPC's decisions
of the turn where the step is legal, lets the playout policy decide everything
else, and stops ``horizon`` turn boundaries after the planned turn (scored by
the goal's estimate, :meth:`~vtm_sim.analysis.goals.Goal.estimate`) or at the
fight's end (:meth:`~vtm_sim.analysis.goals.Goal.final`).

What makes it fit in two seconds:

- **common dice**: rollout ``k`` of every option rolls the same faces
  (:func:`rollout_dice`), initiative included, so options are compared on the
  same luck and their paired differences have a small variance;
- **racing**: the options run in rounds; after each round, an option whose
  paired difference to the best is below zero by :data:`RACE_Z` standard errors
  is dropped, so the rollouts go to the options still in contention;
- **truncated rollouts** scored by the goal's estimate of where the fight stands;
- **settling**: once every option left is known to within :data:`SETTLE` of the
  best (their paired differences' intervals are that narrow), the race stops: they
  are equally good;
- **anytime**: the rounds stop at a deadline (or a cap on rollouts), between
  rounds only. Every rollout's dice are fixed by ``(seed, k)`` beforehand and the
  rounds do not depend on the number of workers, so the same rounds give the same
  answer with any number of worker processes.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Final

import numpy as np

from vtm_sim.analysis.goals import TIEBREAK_WEIGHT, Goal
from vtm_sim.core.choices import Choice, DecisionKind
from vtm_sim.core.dice import RngDice
from vtm_sim.engine.battle import Battle
from vtm_sim.engine.standings import outcome, side_share
from vtm_sim.policies.play import Policy
from vtm_sim.policies.playouts import reseed

Plan = dict[DecisionKind, Choice]
Case = tuple[int, ...]  # the enemies whose initiative beats the NPC's this turn

SETTLE: Final = 0.03  # an indifference zone: options closer than this are equally good
RACE_Z: Final = 2.5  # standard errors of the paired difference that drop an option
TIE_Z: Final = 2.0  # within this many standard errors of the best: tied with it
FACES: Final = 320  # faces drawn ahead for each rollout
BLOCK: Final = 64  # rollouts whose faces one numpy call draws
MAX_DECISIONS: Final = 3000


@dataclass(frozen=True, slots=True)
class Sample:
    """One rollout's result for one option."""

    goal: float  # the goal's value, 0..1
    tie: float  # the tie-breaker, 0..1
    win: float  # 1, 1/2, 0 for the NPC's side (or the estimate of a truncated fight)
    case: Case

    @property
    def value(self) -> float:
        return (1.0 - TIEBREAK_WEIGHT) * self.goal + TIEBREAK_WEIGHT * self.tie


@dataclass(slots=True)
class Tally:
    """What the rollouts say of one option."""

    samples: list[Sample] = field(default_factory=list)

    @property
    def n(self) -> int:
        return len(self.samples)

    @property
    def value(self) -> float:
        return math.fsum(s.value for s in self.samples) / self.n if self.samples else 0.0

    @property
    def goal(self) -> float:
        return math.fsum(s.goal for s in self.samples) / self.n if self.samples else 0.0

    @property
    def p_win(self) -> float:
        return math.fsum(s.win for s in self.samples) / self.n if self.samples else 0.0

    @property
    def value_ci95(self) -> tuple[float, float]:
        n = self.n
        if n < 2:
            return 0.0, 1.0
        vals = [s.value for s in self.samples]
        mean = math.fsum(vals) / n
        var = math.fsum((v - mean) ** 2 for v in vals) / (n - 1)
        half = 1.959963984540054 * math.sqrt(var / n)
        if var == 0.0:  # every rollout alike: the rule of three's interval
            half = 3.0 / n
        return max(0.0, mean - half), min(1.0, mean + half)


def paired(a: Tally, b: Tally) -> tuple[float, float]:
    """The mean and standard error of ``a - b`` over the rollouts both ran (same dice)."""
    n = min(a.n, b.n)
    if n < 2:
        return 0.0, 1.0
    d = [a.samples[k].value - b.samples[k].value for k in range(n)]
    mean = math.fsum(d) / n
    var = math.fsum((x - mean) ** 2 for x in d) / (n - 1)
    return mean, math.sqrt(var / n)


def tied(a: Tally, best: Tally) -> bool:
    """Within the noise of the best: the paired difference is not below zero by
    :data:`TIE_Z` standard errors (the same dice make the difference's noise small),
    or the two values differ by less than a tenth of the tie-breaker's weight."""
    if a is best:
        return True
    mean, se = paired(a, best)
    return mean + TIE_Z * se >= 0.0 or abs(mean) < TIEBREAK_WEIGHT / 10


# --- one rollout -----------------------------------------------------------------------------

_FACES: dict[tuple[int, int], list[list[int]]] = {}


def rollout_dice(seed: int, k: int) -> RngDice:
    """The dice of rollout ``k``: the same for every option (common random numbers) and
    in any worker, as they depend on ``seed`` and ``k`` only."""
    key = (seed, k // BLOCK)
    block = _FACES.get(key)
    if block is None:
        block = np.random.default_rng([seed, k // BLOCK]).integers(
            1, 11, size=(BLOCK, FACES), dtype=np.int16).tolist()
        if len(_FACES) > 64:
            _FACES.clear()
        _FACES[key] = block
    return RngDice.preloaded(block[k % BLOCK], (seed, k, 1))


@dataclass(frozen=True, slots=True)
class Job:
    """What the rollouts of one race share (set before the workers are forked)."""

    root: Battle  # not begun (initiative to roll) or at a decision
    npc: int
    goal: Goal
    playout: Callable[[int], Policy]
    plans: tuple[Plan, ...]  # one per option raced
    seed: int
    horizon: int
    own: Callable[[int], Policy] | None = None  # the NPC's own playout (default: ``playout``)


def ahead(b: Battle, npc: int) -> Case:
    """The enemies whose initiative, as rolled this turn, beats the NPC's (ties act
    together); read once initiative is rolled (at the NPC's first action)."""
    me = b.combatants[npc]
    mine = me.initiative - me.rolled_penalty
    return tuple(sorted(o.id for o in b.order if o.side != me.side
                        and o.initiative - o.rolled_penalty > mine))


def play_rollout(job: Job, i: int, k: int) -> Sample:
    """Rollout ``k`` of option ``i``: the plan followed at the NPC's decisions of its turn."""
    fork = job.root.clone(dice=rollout_dice(job.seed, k))
    if fork.pending is None and not fork.over and not fork.stack:
        fork.begin()
    plan = job.plans[i]
    npc = job.npc
    reseed(job.playout, k)  # a drawing playout draws by the rollout, not by the worker
    policies = [job.playout(c.id) for c in fork.combatants]
    if job.own is not None:
        reseed(job.own, k)
        policies[npc] = job.own(npc)
    plan_turn: int | None = None
    case: Case = ()
    used: set[DecisionKind] = set()
    first_turn = fork.turn
    n = 0
    while fork.pending is not None and n < MAX_DECISIONS:
        d = fork.pending
        if d.actor == npc and d.kind in plan and d.kind not in used:
            if plan_turn is None:
                plan_turn = fork.turn
            if d.kind is DecisionKind.ACT and fork.turn == plan_turn:
                case = ahead(fork, npc)  # initiative is rolled by now (INIT-9 or not)
            if fork.turn == plan_turn:
                used.add(d.kind)
                c = plan[d.kind]
                if c in d.options:
                    fork.choose(c)
                    n += 1
                    continue
        if fork.turn > (first_turn if plan_turn is None else plan_turn) + job.horizon:
            return _scored(fork, job, fork.turn - first_turn, case)  # cut short
        fork.choose(policies[d.actor].choose(fork, d))
        n += 1
    return _scored(fork, job, fork.turn - first_turn, case)


def _scored(fork: Battle, job: Job, turns: int, case: Case) -> Sample:
    """Where a rollout stopped, after ``turns`` turns: a fight cut short (a decision still
    pending) by the goal's estimate and the NPC's side's share of the health left, a fight
    over by the goal's final value and its result."""
    side = fork.combatants[job.npc].side
    tie = job.goal.tiebreak(fork, turns, job.horizon + 1)
    if fork.pending is not None:
        return Sample(job.goal.estimate(fork), tie, side_share(fork, side), case)
    return Sample(job.goal.final(fork), tie, outcome(fork, side), case)


# --- the race --------------------------------------------------------------------------------

_JOB: Job | None = None  # what forked workers read


def _batch(task: tuple[int, int, int]) -> tuple[int, int, list[Sample]]:
    i, start, count = task
    assert _JOB is not None
    return i, start, [play_rollout(_JOB, i, k) for k in range(start, start + count)]


def default_workers() -> int:
    """The cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


@dataclass(frozen=True, slots=True)
class Budget:
    """When a race stops: before a round that would end past ``deadline`` (a
    :func:`time.monotonic` time; ``cost`` seconds a rollout on one core is the first guess,
    then what the rounds measure), or when every option left has ``cap`` rollouts; each
    option gets at least ``floor``. Without a deadline the rounds are always
    ``round_size`` rollouts an option: the answer depends on ``cap`` only."""

    deadline: float | None
    cap: int
    floor: int = 4
    round_size: int = 8
    cost: float = 0.01
    total: int | None = None  # stop before a round that would pass this many rollouts in all
    settle: float | None = SETTLE  # stop once every option left is within this of the best


class Pool:
    """Forked worker processes for one race (none with one worker)."""

    def __init__(self, job: Job, workers: int) -> None:
        global _JOB
        _JOB = job
        self.workers = workers
        self.pool = None
        if workers > 1:
            import multiprocessing

            if "fork" in multiprocessing.get_all_start_methods():
                self.pool = multiprocessing.get_context("fork").Pool(workers)

    def run(self, tasks: list[tuple[int, int, int]]) -> list[tuple[int, int, list[Sample]]]:
        if self.pool is None:
            return [_batch(t) for t in tasks]
        return self.pool.map(_batch, tasks, chunksize=1)

    def close(self) -> None:
        global _JOB
        if self.pool is not None:
            self.pool.terminate()
            self.pool.join()
        _JOB = None


def race(job: Job, budget: Budget, workers: int,
         progress: Callable[[int], None] | None = None) -> list[Tally]:
    """Rollouts for every plan of ``job`` in rounds, dropping the clearly worse, until
    one is left or ``budget`` says stop. The tallies, in the order of ``job.plans``."""
    tallies = [Tally() for _ in job.plans]
    alive = list(range(len(job.plans)))
    cap = budget.cap if len(alive) > 1 else min(budget.cap, budget.floor)
    pool = Pool(job, workers)
    cost = budget.cost  # seconds a rollout, on one core
    try:
        n = 0
        while alive and n < cap:
            size = min(budget.round_size, cap - n)
            if budget.total is not None:
                room = (budget.total - sum(t.n for t in tallies)) // len(alive)
                if room < 1:
                    break
                size = min(size, room)
            if budget.deadline is not None:
                left = budget.deadline - time.monotonic()
                fits = int(left * pool.workers / max(1e-6, cost * len(alive)))
                if fits < 1 and (n > 0 or left <= 0):
                    break  # no time left (for the first round: none at all)
                size = max(1, min(size, fits))
            t0 = time.monotonic()
            tasks: list[tuple[int, int, int]] = []
            split = pool.workers if len(alive) < pool.workers else 1
            per = max(1, -(-size // split))
            for i in alive:
                for s in range(0, size, per):
                    tasks.append((i, n + s, min(per, size - s)))
            for i, _start, samples in sorted(pool.run(tasks), key=lambda r: (r[0], r[1])):
                tallies[i].samples.extend(samples)
            n += size
            cost = (time.monotonic() - t0) * pool.workers / (size * len(alive))
            if progress is not None:
                progress(sum(t.n for t in tallies))
            if len(alive) > 1 and n >= 2 * budget.floor:
                best = max(alive, key=lambda i: (tallies[i].value, -i))
                keep = []
                for i in alive:
                    mean, se = paired(tallies[i], tallies[best])
                    if i == best or mean + RACE_Z * se >= 0.0:
                        keep.append(i)
                alive = keep
                if budget.settle is not None and len(alive) > 1 and all(
                        TIE_Z * paired(tallies[i], tallies[best])[1] <= budget.settle
                        for i in alive if i != best):
                    break  # the rest are known to within the zone: settled
            if len(alive) == 1:
                break
    finally:
        pool.close()
    return tallies


def common_plans(base: Plan, kind: DecisionKind, options: Sequence[Choice]) -> tuple[Plan, ...]:
    """``base`` with each option as its step of ``kind``."""
    return tuple({**base, kind: o} for o in options)
