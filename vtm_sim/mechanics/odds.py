"""Exact outcome distributions of dice pools and attacks (no sampling).

Every function here computes the probability of each outcome exactly (up to
floating point), with the same semantics as :func:`vtm_sim.core.dice.count` and
:func:`vtm_sim.core.dice.roll`:

* DICE-1: the difficulty is clamped to 2..10.
* DICE-2/3: a face >= difficulty is a success, each 1 cancels one success;
  net = max(0, hits - ones).
* DICE-4: botch = no hit and at least one 1 (never with Willpower).
* DICE-5: with a specialty, EXPLODE makes each 10 score and add one more die
  (which may explode again; its 1s cancel like any other); DOUBLE makes a 10
  count two successes.
* DICE-6: damage and soak rolls count hits only (1s do not cancel), no botch.
* DICE-7: a pool of 0 or less is not rolled: 0 successes, no botch (even with
  Willpower, as in :func:`vtm_sim.core.dice.roll`).
* DICE-8: Willpower adds one automatic success after cancellation.

Method. Without EXPLODE a pool is the n-fold convolution of one die's
distribution of "score minus ones" (or of score alone for a damage roll). With
EXPLODE each base die is a chain: K tens (P(K = k) = 0.9 * 0.1**k), each
scoring 1, ended by one non-10 face. The chains are independent, so the total
number of tens T in n chains is negative binomial,
P(T = t) = C(n + t - 1, t) 0.9**n 0.1**t, independent of the n ending faces,
and the pool's score is T plus the sum of the n ending faces.

Truncation (EXPLODE only). T is unbounded; its series is cut at the first t
with ratio p(t + 1) / p(t) <= 1/2 and 2 * p(t + 1) < 1e-15 (``EXPLODE_TAIL``).
The ratio 0.1 (n + t) / (t + 1) is non-increasing in t, so the omitted mass is
at most 2 * p(t + 1) < 1e-15: an exploding distribution sums to 1 minus less
than 1e-15. The omitted mass is dropped, not renormalized.

Results are cached (``functools.lru_cache``) per normalized argument tuple, and
the returned objects are immutable, so repeated queries cost a dict lookup.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Final, NamedTuple

import numpy as np
from numpy.typing import NDArray

from vtm_sim.core.dice import SpecialtyRule, clamp_difficulty

__all__ = [
    "EXPLODE_TAIL",
    "OddsQuery",
    "RollOdds",
    "attack_odds",
    "hit_chance",
    "hit_chance_of",
    "odds_of",
    "roll_odds",
]

EXPLODE_TAIL: Final = 1e-15
"""Upper bound on the probability mass omitted from an EXPLODE distribution."""

_CACHE_SIZE: Final = 4096

FloatArray = NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class RollOdds:
    """Exact distribution of one roll's outcome.

    Attributes:
        distribution: index k is P(net successes == k). A botch counts as 0
            successes, so ``p_botch`` is part of ``distribution[0]``.
        p_botch: probability of a botch (DICE-4).
    """

    distribution: tuple[float, ...]
    p_botch: float

    @property
    def p_success(self) -> float:
        """P(net successes >= 1)."""
        return math.fsum(self.distribution[1:])

    @property
    def expected(self) -> float:
        """Expected net successes (a botch counts as 0)."""
        return math.fsum(k * p for k, p in enumerate(self.distribution))

    def as_dict(self) -> dict[int, float]:
        """Map every k from 0 to the largest possible (kept) count to its probability."""
        return dict(enumerate(self.distribution))


def _power(die: FloatArray, n: int) -> FloatArray:
    """n-fold convolution of a per-die distribution (index offsets add up)."""
    out: FloatArray = np.ones(1, dtype=np.float64)
    base = die
    while n:
        if n & 1:
            out = np.convolve(out, base)
        n >>= 1
        if n:
            base = np.convolve(base, base)
    return out


def _negbin_tens(n: int) -> FloatArray:
    """P(T = t) for the total number of tens T over n exploding chains, truncated."""
    probs = [0.9**n]
    t = 0
    while True:
        ratio = 0.1 * (n + t) / (t + 1)
        nxt = probs[-1] * ratio
        if ratio <= 0.5 and 2.0 * nxt < EXPLODE_TAIL:
            break
        probs.append(nxt)
        t += 1
    return np.array(probs, dtype=np.float64)


@lru_cache(maxsize=_CACHE_SIZE)
def _roll_odds(
    pool: int,
    diff: int,
    specialty: SpecialtyRule | None,
    willpower: bool,
    damage: bool,
) -> RollOdds:
    """Cached core of :func:`roll_odds`; arguments already normalized."""
    if pool <= 0:  # DICE-7
        return RollOdds((1.0,), 0.0)
    p_one = 0.1
    p_blank = (diff - 2) / 10
    p_plain = (10 - diff) / 10
    # Per-die score array, index = score - lo. Non-damage rolls score a 1 as -1.
    lo = 0 if damage else -1
    if specialty is SpecialtyRule.EXPLODE:
        # Ending (non-10) face of a chain, conditional on not being a 10.
        if damage:
            end = np.array([(p_one + p_blank) / 0.9, p_plain / 0.9])
        else:
            end = np.array([p_one / 0.9, p_blank / 0.9, p_plain / 0.9])
        scores = np.convolve(_power(end, pool), _negbin_tens(pool))
    else:
        ten = 2 if specialty is SpecialtyRule.DOUBLE else 1
        die = np.zeros(ten - lo + 1, dtype=np.float64)
        if damage:
            die[0] = p_one + p_blank
        else:
            die[0] = p_one
            die[1] = p_blank
        die[1 - lo] += p_plain
        die[ten - lo] += 0.1
        scores = _power(die, pool)
    offset = pool * lo  # score of index 0
    # net = max(0, score): fold every score <= 0 into 0.
    zero_at = -offset
    net = np.empty(len(scores) - zero_at, dtype=np.float64)
    net[0] = math.fsum(scores[: zero_at + 1].tolist())
    net[1:] = scores[zero_at + 1 :]
    # Drop exact trailing zeros, if any, so the last entry is a reachable count.
    last = len(net) - 1
    while last > 0 and net[last] == 0.0:
        last -= 1
    dist = [float(x) for x in net[: last + 1]]
    if willpower:  # DICE-8
        dist.insert(0, 0.0)
    botch = 0.0
    if not damage and not willpower:  # DICE-4: no hit (so no 10) and some 1
        botch = ((diff - 1) / 10) ** pool - ((diff - 2) / 10) ** pool
    return RollOdds(tuple(dist), botch)


def roll_odds(
    pool: int,
    difficulty: int,
    *,
    specialty: SpecialtyRule | None = None,
    willpower: bool = False,
    damage: bool = False,
) -> RollOdds:
    """Exact distribution of :func:`vtm_sim.core.dice.roll` with the same arguments.

    Args:
        pool: dice after modifiers; 0 or less is not rolled (DICE-7).
        difficulty: raw difficulty, clamped to 2..10 (DICE-1).
        specialty: rule for 10s (DICE-5), or None.
        willpower: one automatic success, no botch (DICE-8).
        damage: damage or soak roll: 1s do not cancel, no botch (DICE-6).
    """
    if pool <= 0:
        return _roll_odds(0, 2, None, False, False)
    return _roll_odds(pool, clamp_difficulty(difficulty), specialty, willpower, damage)


def _net_distribution(a: tuple[float, ...], d: tuple[float, ...]) -> tuple[FloatArray, int]:
    """Distribution of A - D; returns (array, value of index 0)."""
    diff = np.convolve(np.asarray(a, dtype=np.float64), np.asarray(d[::-1], dtype=np.float64))
    return diff, -(len(d) - 1)


@lru_cache(maxsize=_CACHE_SIZE)
def _levels(
    damage_pool: int, damage_diff: int, soak_pool: int, soak_diff: int, halve: bool,
    damage_auto: int = 0,
) -> FloatArray:
    """Distribution of health levels after soak for one damage pool.

    ``damage_auto`` automatic successes (Potence, VAMP-5) shift the damage roll.
    """
    dmg = (0.0,) * damage_auto + roll_odds(damage_pool, damage_diff, damage=True).distribution
    soak = roll_odds(soak_pool, soak_diff, damage=True).distribution
    diff, lo = _net_distribution(dmg, soak)
    zero_at = -lo
    levels = np.empty(len(diff) - zero_at, dtype=np.float64)
    levels[0] = math.fsum(diff[: zero_at + 1].tolist())
    levels[1:] = diff[zero_at + 1 :]
    if halve:
        halved = np.zeros((len(levels) - 1) // 2 + 1, dtype=np.float64)
        np.add.at(halved, np.arange(len(levels)) // 2, levels)
        levels = halved
    levels.setflags(write=False)
    return levels


# A NamedTuple, not a frozen dataclass: the tactician builds one for every option it
# weighs and the cache hashes and compares it, all of which a tuple does in C (a frozen
# dataclass, built and normalized per query, made tactician battles 45% slower).
class OddsQuery(NamedTuple):
    """One attack's pools, difficulties and options: what :func:`odds_of` and
    :func:`hit_chance_of` are asked (the keywords of :func:`attack_odds`, which
    documents them, with the same defaults). Hashable: the cache is keyed on the
    normalized query."""

    attack_pool: int
    attack_difficulty: int
    damage_base: int
    attack_specialty: SpecialtyRule | None = None
    attack_willpower: bool = False
    defense_pool: int = 0
    defense_difficulty: int = 6
    defense_specialty: SpecialtyRule | None = None
    damage_difficulty: int = 6
    extra_successes_add: bool = True
    soak_pool: int = 0
    soak_difficulty: int = 6
    halve: bool = False
    auto_hit: bool = False
    damage_auto: int = 0
    lone_spray: bool = False

    def normalized(self) -> OddsQuery:
        """The same odds with every pool at least 0, every difficulty clamped (DICE-1)
        and an unrolled defense or soak at one canonical difficulty: the cache's key."""
        d_pool, d_diff, d_spec = self.defense_pool, self.defense_difficulty, self.defense_specialty
        if d_pool <= 0:
            d_pool, d_diff, d_spec = 0, 2, None
        s_pool, s_diff = self.soak_pool, self.soak_difficulty
        if s_pool <= 0:
            s_pool, s_diff = 0, 2
        return OddsQuery(  # positional, in field order: keywords cost twice as much here
            max(self.attack_pool, 0),
            clamp_difficulty(self.attack_difficulty),
            self.damage_base,
            self.attack_specialty,
            self.attack_willpower,
            d_pool,
            clamp_difficulty(d_diff),
            d_spec,
            clamp_difficulty(self.damage_difficulty),
            self.extra_successes_add,
            s_pool,
            clamp_difficulty(s_diff),
            self.halve,
            self.auto_hit,
            max(0, self.damage_auto),
            self.lone_spray,
        )


@lru_cache(maxsize=_CACHE_SIZE)
def _attack_odds(q: OddsQuery) -> tuple[float, ...]:
    """Cached core of :func:`odds_of`; the query already normalized."""
    lone_spray = q.lone_spray
    a = roll_odds(
        q.attack_pool, q.attack_difficulty, specialty=q.attack_specialty,
        willpower=q.attack_willpower,
    ).distribution
    if lone_spray:  # RNG-6: a lone target in the area gets half the successes
        a = _halved(a)
    d = roll_odds(q.defense_pool, q.defense_difficulty, specialty=q.defense_specialty).distribution
    net, lo = _net_distribution(a, d)
    one_at = 1 - lo  # index of net == 1
    if q.auto_hit:
        p_miss = 0.0
        # net = max(1, A - D): every outcome below 1 moves to 1 (index 0 here).
        tail = net[max(one_at, 0) :]
        hits = np.zeros(max(len(tail), 1), dtype=np.float64)
        hits[: len(tail)] = tail
        if one_at > 0:
            hits[0] += math.fsum(net[:one_at].tolist())
    else:
        p_miss = math.fsum(net[: max(one_at, 0)].tolist())
        hits = net[max(one_at, 0) :]
    # Group hit probability by damage pool (many nets share one when extra
    # successes do not add).
    damage_base = q.damage_base
    extra_successes_add = q.extra_successes_add
    by_pool: dict[int, float] = {}
    for i, p in enumerate(hits.tolist()):
        if p == 0.0:
            continue
        m = i + 1  # net successes of the attack
        if lone_spray:
            dp = max(1, damage_base + m)  # RNG-6: the share is added whole
        else:
            dp = max(1, damage_base + (m - 1 if extra_successes_add else 0))
        by_pool[dp] = by_pool.get(dp, 0.0) + p
    parts = [
        (p, _levels(dp, q.damage_difficulty, q.soak_pool, q.soak_difficulty, q.halve,
                    q.damage_auto))
        for dp, p in by_pool.items()
    ]
    size = max([len(lv) for _, lv in parts], default=1)
    out = np.zeros(size, dtype=np.float64)
    out[0] = p_miss
    for p, lv in parts:
        out[: len(lv)] += p * lv
    return tuple(float(x) for x in out)


@lru_cache(maxsize=_CACHE_SIZE)
def odds_of(query: OddsQuery) -> tuple[float, ...]:
    """Exact distribution of health levels dealt by the attack ``query`` describes
    (index = levels), as :func:`attack_odds` computes it.

    Cached on the query as given (a hit costs a tuple's hash), and below that on the
    normalized query, so equivalent queries share one result object.
    """
    return _attack_odds(query.normalized())


def attack_odds(
    *,
    attack_pool: int,
    attack_difficulty: int,
    attack_specialty: SpecialtyRule | None = None,
    attack_willpower: bool = False,
    defense_pool: int = 0,
    defense_difficulty: int = 6,
    defense_specialty: SpecialtyRule | None = None,
    damage_base: int,
    damage_difficulty: int = 6,
    extra_successes_add: bool = True,
    soak_pool: int = 0,
    soak_difficulty: int = 6,
    halve: bool = False,
    auto_hit: bool = False,
    damage_auto: int = 0,
    lone_spray: bool = False,
) -> tuple[float, ...]:
    """Exact distribution of health levels dealt by one attack (index = levels).

    The attack's net successes A (:func:`roll_odds`) minus the defense's D
    (0 when ``defense_pool`` <= 0) give net = A - D; the attack hits iff
    net >= 1, or always with ``auto_hit``, which sets net = max(1, A - D).
    On a hit the damage pool is max(1, damage_base + (net - 1 if
    ``extra_successes_add`` else 0)), rolled as a damage roll at
    ``damage_difficulty``; soak is a damage roll of ``soak_pool`` at
    ``soak_difficulty``; levels = max(0, damage - soak), halved (rounded
    down) after soak if ``halve``. ``damage_auto`` adds automatic damage
    successes (Potence, VAMP-5). ``lone_spray``: autofire spray with one
    target in the area, which gets half the successes (rounded down), its share
    then added whole to the damage pool (RNG-6). A miss deals 0 levels.

    The keywords are :class:`OddsQuery`'s; :func:`odds_of` takes one.
    """
    return odds_of(OddsQuery(
        attack_pool=attack_pool,
        attack_difficulty=attack_difficulty,
        attack_specialty=attack_specialty,
        attack_willpower=attack_willpower,
        defense_pool=defense_pool,
        defense_difficulty=defense_difficulty,
        defense_specialty=defense_specialty,
        damage_base=damage_base,
        damage_difficulty=damage_difficulty,
        extra_successes_add=extra_successes_add,
        soak_pool=soak_pool,
        soak_difficulty=soak_difficulty,
        halve=halve,
        auto_hit=auto_hit,
        damage_auto=damage_auto,
        lone_spray=lone_spray,
    ))


def _halved(dist: tuple[float, ...]) -> tuple[float, ...]:
    """The distribution of k // 2 given that of k."""
    out = [0.0] * (len(dist) // 2 + 1)
    for k, p in enumerate(dist):
        out[k // 2] += p
    return tuple(out)


def hit_chance(
    *,
    attack_pool: int,
    attack_difficulty: int,
    attack_specialty: SpecialtyRule | None = None,
    attack_willpower: bool = False,
    defense_pool: int = 0,
    defense_difficulty: int = 6,
    defense_specialty: SpecialtyRule | None = None,
    auto_hit: bool = False,
    lone_spray: bool = False,
) -> float:
    """P(the attack's net successes beat the defense: A - D >= 1), as in :func:`attack_odds`.

    This is the chance "to hit"; the chance to deal at least one health level
    is ``1 - attack_odds(...)[0]``, lower by the soak. The keywords are
    :class:`OddsQuery`'s attack and defense; :func:`hit_chance_of` takes a query.
    """
    return hit_chance_of(OddsQuery(
        attack_pool=attack_pool,
        attack_difficulty=attack_difficulty,
        attack_specialty=attack_specialty,
        attack_willpower=attack_willpower,
        defense_pool=defense_pool,
        defense_difficulty=defense_difficulty,
        defense_specialty=defense_specialty,
        damage_base=0,  # the damage side does not enter the chance to hit
        auto_hit=auto_hit,
        lone_spray=lone_spray,
    ))


def hit_chance_of(query: OddsQuery) -> float:
    """:func:`hit_chance` of the attack ``query`` describes (its damage side unused)."""
    if query.auto_hit:
        return 1.0
    a = roll_odds(max(query.attack_pool, 0), clamp_difficulty(query.attack_difficulty),
                  specialty=query.attack_specialty, willpower=query.attack_willpower).distribution
    if query.lone_spray:  # RNG-6: a lone target in the area gets half the successes
        a = _halved(a)
    if query.defense_pool <= 0:
        return math.fsum(a[1:])
    d = roll_odds(query.defense_pool, clamp_difficulty(query.defense_difficulty),
                  specialty=query.defense_specialty).distribution
    net, lo = _net_distribution(a, d)
    return math.fsum(net[max(1 - lo, 0):].tolist())
