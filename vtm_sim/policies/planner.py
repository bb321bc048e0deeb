"""A search-based NPC: every option judged by how often the fight is won after it.

At a decision with more than one option worth weighing, the planner forks
the battle (:meth:`~vtm_sim.engine.battle.Battle.clone`) once per rollout, takes the
option in the fork, and lets a cheap playout policy play on with dice of its
own (never the battle's own dice stream: the planner cannot see the future).

What keeps it cheap enough for thousand-battle tournaments:

- **a prior and pruning**: the tactician's pick (exact odds; with ``grapple``,
  so that a bare-handed mortal clinches a blade wielder) is the default;
  only the options worth it are searched (:func:`candidates`: the prior's
  and nearest's picks, the best attacks by exact odds, every kind of
  non-attack move, the declarations that differ in kind), and another option
  replaces the prior only when the rollouts say it is better by ``margin``
  plus ``confidence`` standard errors;
- **sequential halving** (Karnin, Koren and Somekh, 2013): every candidate
  gets a share of the budget, the worse half is dropped (never the prior), the
  rest share the next round, so the rollouts go where the choice is close;
- **a budget by size** (:func:`budget`, :meth:`PlannerPolicy.for_fight`): fewer
  rollouts a decision in fights of more than two, played on by the tactician there;
- **common random numbers**: rollout ``k`` of every option uses the same dice
  seed, so two options are compared on the same luck;
- **truncated rollouts**: a rollout stops ``horizon`` turn boundaries after
  the decision and is scored by :func:`~vtm_sim.engine.standings.side_share` (the
  sides' health left), or exactly (:func:`~vtm_sim.engine.standings.outcome`: 1, 1/2,
  0) when the fight ended before.

The result of a rollout is 1 for a win of the deciding side, 1/2 for a draw
(turn limit, or nobody left), 0 for a loss; a truncated one scores between.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np

from vtm_sim.core.choices import Action, ActionKind, Choice, Decision, DecisionKind, Declaration
from vtm_sim.core.dice import DiceSource, RngDice
from vtm_sim.engine.battle import Battle
from vtm_sim.engine.standings import outcome, side_share
from vtm_sim.policies.nearest import NearestEnemyPolicy
from vtm_sim.policies.play import Policy
from vtm_sim.policies.tactician import TacticianPolicy, estimate

PLANNER_ROLLOUTS: Final = 64  # the planner's rollouts a decision wherever it is named

Z95 = 1.959963984540054  # two-sided 95% normal quantile


@dataclass(frozen=True, slots=True)
class OptionValue:
    """What the rollouts say of one option."""

    choice: Choice
    rollouts: int
    wins: float  # wins plus half the draws
    squares: float = 0.0  # the sum of the squared rollout results (truncated ones: 0..1)

    @property
    def p_win(self) -> float:
        return self.wins / self.rollouts if self.rollouts else 0.0

    @property
    def variance(self) -> float:
        """The variance of ``p_win`` (of the mean of its rollouts)."""
        n = self.rollouts
        if n < 2:
            return 0.25
        mean = self.wins / n
        return max(0.0, self.squares / n - mean * mean) / (n - 1)

    @property
    def ci95(self) -> tuple[float, float]:
        """Wilson score interval of ``p_win``."""
        n = self.rollouts
        if n == 0:
            return 0.0, 1.0
        p = self.p_win
        z2 = Z95 * Z95
        centre = (p + z2 / (2 * n)) / (1 + z2 / n)
        half = Z95 * math.sqrt(max(0.0, p * (1 - p) / n + z2 / (4 * n * n))) / (1 + z2 / n)
        return max(0.0, centre - half), min(1.0, centre + half)


def rollout(battle: Battle, choice: Choice, side: int, seed: int,
            playout: Callable[[int], Policy], max_decisions: int = 5000,
            horizon: int | None = None, dice: DiceSource | None = None) -> float:
    """Fork ``battle``, take ``choice``, play on with ``playout``; 1, 1/2 or 0 for ``side``.

    The fork rolls ``dice`` when given, else a generator seeded ``seed``. With
    ``horizon``, stop once that many new turns have begun and score the fork by
    :func:`~vtm_sim.engine.standings.side_share` (unless it is already over).
    """
    fork = battle.clone(dice=dice if dice is not None else
                        RngDice(np.random.default_rng(seed), batch=256))
    fork.choose(choice)
    policies = [playout(c.id) for c in fork.combatants]
    last_turn = battle.turn + horizon if horizon is not None else battle.turn_limit + 1
    n = 0
    while fork.pending is not None and n < max_decisions:
        if fork.turn > last_turn:
            return side_share(fork, side)
        d = fork.pending
        fork.choose(policies[d.actor].choose(fork, d))
        n += 1
    if fork.pending is not None:
        return side_share(fork, side)
    return outcome(fork, side)


def evaluate(
    battle: Battle,
    decision: Decision,
    *,
    budget: int,
    seed: int,
    playout: Callable[[int], Policy] | None = None,
    options: Sequence[Choice] | None = None,
    min_rollouts: int = 1,
    horizon: int | None = None,
    keep: int | None = None,
) -> list[OptionValue]:
    """Every option's win chance by rollouts, best first (sequential halving).

    ``budget`` is the total number of rollouts; each option gets at least
    ``min_rollouts`` (more when the budget allows) before any is dropped;
    option number ``keep`` (the planner's prior) is never dropped.
    Deterministic for a ``seed``.
    """
    make = playout or _nearest
    opts = list(options if options is not None else decision.options)
    side = battle.combatants[decision.actor].side
    wins = [0.0] * len(opts)
    squares = [0.0] * len(opts)
    runs = [0] * len(opts)
    alive = list(range(len(opts)))
    rounds = max(1, math.ceil(math.log2(len(opts)))) if len(opts) > 1 else 1
    spent = 0
    seeds = np.random.default_rng(seed).integers(0, 2**63 - 1, size=max(1, budget * 2))
    for r in range(rounds):
        left = budget - spent
        if left <= 0 or not alive:
            break
        per = max(min_rollouts if r == 0 else 1, left // ((rounds - r) * len(alive)))
        for i in alive:
            for _ in range(per):
                k = runs[i]
                v = rollout(battle, opts[i], side, int(seeds[k % seeds.size]), make,
                            horizon=horizon)
                wins[i] += v
                squares[i] += v * v
                runs[i] += 1
                spent += 1
        if r < rounds - 1 and len(alive) > 1:
            alive.sort(key=lambda i: (-wins[i] / max(1, runs[i]), i))
            kept = alive[: max(1, math.ceil(len(alive) / 2))]
            if keep is not None and keep in alive and keep not in kept:
                kept.append(keep)
            alive = kept
    values = [OptionValue(o, runs[i], wins[i], squares[i]) for i, o in enumerate(opts)]
    order = sorted(range(len(opts)), key=lambda i: (-runs[i], -values[i].p_win, i))
    # the survivors of the last round first (most rollouts), then by win chance
    return [values[i] for i in order]


def _nearest(_cid: int) -> Policy:
    return NearestEnemyPolicy()


# what the planner always keeps among an ACT decision's options (besides the best attacks)
KEPT_ACTIONS = frozenset({
    ActionKind.MOVE, ActionKind.TAKE_COVER, ActionKind.RELOAD, ActionKind.AIM,
    ActionKind.GET_UP, ActionKind.CLEAR, ActionKind.CRUSH, ActionKind.BREAK_FREE,
    ActionKind.FEED, ActionKind.RELEASE, ActionKind.DRAW,
})
TOP_ATTACKS = 2  # attack options kept, best by exact odds


def candidates(battle: Battle, decision: Decision, prior: Choice | None = None) -> list[Choice]:
    """The options worth rollouts, ``prior`` (default the tactician's pick) first: nearest's
    pick, the best attacks by exact odds, one move of each kind (toward the nearest enemy,
    away from it) and every other non-attack action; the declarations that differ in
    kind (one action, two, with and without Willpower, full defense, no or all Celerity);
    every option of a defense or blood decision."""
    opts = list(decision.options)
    first = prior if prior is not None else TacticianPolicy().choose(battle, decision)
    picks: list[Choice] = [first]
    if decision.kind is DecisionKind.ACT:
        me = battle.combatants[decision.actor]
        picks.append(NearestEnemyPolicy().choose(battle, decision))
        scored = []
        for o in opts:
            if isinstance(o, Action) and o.kind is ActionKind.ATTACK and not o.offhand:
                plan = battle.plan(me.id, o)
                if plan is not None:
                    scored.append((-estimate(battle, me, o, plan).value, opts.index(o), o))
        ranked = sorted(scored)
        picks += [o for _, _, o in ranked[:TOP_ATTACKS]]
        seen: set[str | None] = set()
        for _, _, o in ranked:  # and the best of every other maneuver, uncalled
            if o.called is None and o.maneuver not in seen:
                seen.add(o.maneuver)
                picks.append(o)
        enemies = battle.enemies(me)
        near = min(enemies, key=lambda e: (me.distance(e), e.id)).id if enemies else None
        for o in opts:
            if not isinstance(o, Action) or o.kind not in KEPT_ACTIONS:
                continue
            if o.kind is ActionKind.MOVE and o.target != near:
                continue
            picks.append(o)
    elif decision.kind is DecisionKind.DECLARE:
        top = max_celerity(opts)
        picks += [o for o in opts if isinstance(o, Declaration) and (
            o.full_defense or (o.actions <= 2 and o.celerity in (0, top)))]
    else:
        picks += opts
    out: list[Choice] = []
    for o in picks:
        if o not in out:
            out.append(o)
    return out


def max_celerity(opts: Sequence[Choice]) -> int:
    return max((o.celerity for o in opts if isinstance(o, Declaration)), default=0)


DELIBERATE = frozenset({DecisionKind.DECLARE, DecisionKind.ACT, DecisionKind.DEFEND})
MIN_ROLLOUTS = 16  # the fewest rollouts a decision :func:`budget` gives


def budget(rollouts: int, combatants: int) -> int:
    """Rollouts a decision for a fight of ``combatants``, given ``rollouts`` for a duel.

    A rollout costs about as many decisions as there are combatants, and every one
    of them decides, so the cost of a battle grows with their square: the budget is
    divided by half their number (a 3-on-3 gunfight: a third), down to
    :data:`MIN_ROLLOUTS`, so that a battle of the gunfight costs a few times a duel's
    rather than tens of times.
    """
    if combatants <= 2 or rollouts <= MIN_ROLLOUTS:
        return rollouts
    return max(MIN_ROLLOUTS, rollouts * 2 // combatants)


def _tactician(_cid: int) -> Policy:
    return TacticianPolicy()


def playout_for(combatants: int) -> Callable[[int], Policy]:
    """Who plays on in the planner's rollouts of a fight of ``combatants`` (and in
    ``vtm-sim suggest --policy planner``): nearest in a duel, the tactician past two
    (:data:`CROWD_CONFIDENCE` says why)."""
    return _nearest if combatants <= 2 else _tactician


# In a fight of more than two, the rollouts are played on by the tactician, and an option
# beats the prior by this many standard errors (not 2): nearest fights a firefight badly
# (it scores 0.04 against the tactician in the gunfight), so rollouts it plays on misjudge
# the options, and with the few rollouts a decision such a fight can afford, 2 standard
# errors let almost nothing overrule the prior (experiments in docs/planner.md).
CROWD_CONFIDENCE: Final = 1.0


class PlannerPolicy:
    """Picks the option with the best win chance by rollouts (see the module).

    Args:
        rollouts: rollouts per decision, spread over its candidate options.
        seed: seeds the rollouts' dice (the planner's own generator).
        playout: policy factory for every combatant in the rollouts (default nearest).
        horizon: turn boundaries a rollout plays past before it is scored by the
            health left (None: to the end of the fight).
        margin: how much better (in win chance) an option must look than the
            tactician's pick to replace it.
        kinds: the decision kinds searched; the others are the tactician's.
        share: the fewest rollouts a candidate gets in the first round; the
            candidates past ``rollouts // share`` (the least promising) are not searched.
        prior: the policy whose pick is kept unless the rollouts beat it (default
            :class:`~vtm_sim.policies.tactician.TacticianPolicy` with ``grapple=True``;
            in a fight of more than two, :meth:`for_fight` adds ``called=True``); it is
            never dropped by the halving.
        confidence: standard errors (of the difference between the two win chances)
            by which another option must beat the prior, on top of ``margin``: with
            a few dozen rollouts, noise alone would overrule a good prior.
    """

    def __init__(self, rollouts: int = 64, seed: int = 0, *,
                 playout: Callable[[int], Policy] | None = None,
                 horizon: int | None = 2, margin: float = 0.03,
                 kinds: frozenset[DecisionKind] = DELIBERATE, share: int = 4,
                 prior: Policy | None = None, confidence: float = 2.0) -> None:
        self.rollouts = rollouts
        self.rng = np.random.default_rng(seed)
        self.playout = playout
        self.horizon = horizon
        self.margin = margin
        self.kinds = kinds
        self.share = share
        self.prior: Policy = prior if prior is not None else TacticianPolicy(grapple=True)
        self.confidence = confidence
        self.last: list[OptionValue] = []
        self._why = "has not decided anything yet"

    @classmethod
    def for_fight(cls, combatants: int, rollouts: int = 64, seed: int = 0) -> PlannerPolicy:
        """The planner as it plays a fight of ``combatants`` given ``rollouts`` for a duel:
        :func:`budget` rollouts a decision; past two combatants, the tactician plays the
        rollouts on, :data:`CROWD_CONFIDENCE` standard errors suffice, and the prior weighs
        called shots too (``TacticianPolicy(called=True)``: the gunfight's aimed shots at a
        vital spot). The duel's planner is the plain one, as measured in docs/planner.md."""
        per = budget(rollouts, combatants)
        if combatants <= 2:
            return cls(per, seed=seed)
        return cls(per, seed=seed, playout=playout_for(combatants), confidence=CROWD_CONFIDENCE,
                   prior=TacticianPolicy(grapple=True, called=True))

    def explain(self) -> str:
        return self._why

    def choose(self, battle: Battle, decision: Decision) -> Choice:
        if len(decision.options) == 1:
            return decision.options[0]
        prior = self.prior.choose(battle, decision)
        explain = getattr(self.prior, "explain", None)
        self._why = explain() if callable(explain) else "follows its prior."
        if decision.kind not in self.kinds or self.rollouts <= 0:
            return prior
        opts = candidates(battle, decision, prior)[: max(2, self.rollouts // self.share)]
        if len(opts) == 1:
            return prior
        seed = int(self.rng.integers(0, 2**63 - 1))
        self.last = evaluate(battle, decision, budget=self.rollouts, seed=seed,
                             playout=self.playout, options=opts, horizon=self.horizon,
                             min_rollouts=self.share, keep=0)
        best = self.last[0]
        base = next((v for v in self.last if v.choice == prior), None)
        if base is None or best.p_win > base.p_win + self.margin + self.confidence * \
                math.sqrt(best.variance + base.variance):
            self._why = (f"{battle.combatants[decision.actor].name} wins "
                         f"{best.p_win:.0%} of {best.rollouts} simulated fights that way.")
            return best.choice
        return prior
