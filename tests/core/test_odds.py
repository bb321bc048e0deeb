"""Exact odds (vtm_sim.mechanics.odds) against brute-force enumeration
(vtm_sim.core.dice.count)."""

from __future__ import annotations

import itertools
import math
from collections import Counter
from fractions import Fraction
from functools import cache

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vtm_sim.core.dice import RngDice, ScriptedDice, SpecialtyRule, count, roll
from vtm_sim.mechanics.odds import (
    EXPLODE_TAIL,
    OddsQuery,
    RollOdds,
    attack_odds,
    odds_of,
    roll_odds,
)

EXPLODE = SpecialtyRule.EXPLODE
DOUBLE = SpecialtyRule.DOUBLE

# ---------------------------------------------------------------------------
# Reference implementations (independent of vtm_sim.mechanics.odds)
# ---------------------------------------------------------------------------


@cache
def _all_faces(n: int) -> tuple[tuple[int, ...], ...]:
    return tuple(itertools.product(range(1, 11), repeat=n))


@cache
def brute(
    n: int,
    difficulty: int,
    specialty: SpecialtyRule | None = None,
    willpower: bool = False,
    damage: bool = False,
) -> tuple[dict[int, Fraction], Fraction]:
    """Exact distribution by enumerating all 10**n faces (no EXPLODE)."""
    assert specialty is not EXPLODE
    if n <= 0:  # DICE-7: not rolled
        return {0: Fraction(1)}, Fraction(0)
    tally: Counter[int] = Counter()
    botches = 0
    for faces in _all_faces(n):
        net, botch = count(
            faces, difficulty, specialty=specialty, damage=damage, willpower=willpower
        )
        tally[net] += 1
        botches += botch
    total = 10**n
    return {k: Fraction(c, total) for k, c in tally.items()}, Fraction(botches, total)


def explode_enum(
    n: int, difficulty: int, *, damage: bool = False, willpower: bool = False, max_dice: int = 0
) -> tuple[dict[int, Fraction], Fraction, Fraction]:
    """Exact recursive enumeration of an EXPLODE roll, bounded in depth.

    Dice are enumerated one at a time; each 10 adds one more pending die. Faces
    that :func:`count` treats alike are merged into one branch with their
    summed weight (1; the blanks 2..d-1; the plain hits d..9; 10) and a
    representative face. A branch still pending after ``max_dice`` dice is not
    expanded: its mass is returned as ``missing``. Returns
    (distribution, p_botch, missing), all exact fractions.
    """
    branches = [(1, Fraction(1, 10))]
    if difficulty > 2:
        branches.append((2, Fraction(difficulty - 2, 10)))
    if difficulty < 10:
        branches.append((difficulty, Fraction(10 - difficulty, 10)))
    branches.append((10, Fraction(1, 10)))
    dist: dict[int, Fraction] = {}
    botch = Fraction(0)
    missing = Fraction(0)

    def walk(faces: list[int], pending: int, p: Fraction) -> None:
        nonlocal botch, missing
        if pending == 0:
            net, b = count(faces, difficulty, specialty=EXPLODE, damage=damage, willpower=willpower)
            dist[net] = dist.get(net, Fraction(0)) + p
            if b:
                botch += p
            return
        if len(faces) >= max_dice:
            missing += p
            return
        for face, w in branches:
            faces.append(face)
            walk(faces, pending - 1 + (face == 10), p * w)
            faces.pop()

    walk([], n, Fraction(1))
    return dist, botch, missing


def assert_matches(odds: RollOdds, dist: dict[int, Fraction], botch: Fraction, tol: float) -> None:
    size = max(len(odds.distribution), max(dist) + 1)
    for k in range(size):
        got = odds.distribution[k] if k < len(odds.distribution) else 0.0
        want = float(dist.get(k, Fraction(0)))
        assert got == pytest.approx(want, abs=tol), (k, got, want)
    assert odds.p_botch == pytest.approx(float(botch), abs=tol)


# ---------------------------------------------------------------------------
# roll_odds against brute force
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("n", [0, 1, 2, 3])
@pytest.mark.parametrize("difficulty", [2, 3, 6, 9, 10])
@pytest.mark.parametrize("specialty", [None, DOUBLE])
@pytest.mark.parametrize("willpower", [False, True])
def test_DICE_2_3_4_5_8_roll_odds_match_brute_force(
    n: int, difficulty: int, specialty: SpecialtyRule | None, willpower: bool
) -> None:
    """DICE-2/3/4 (successes, 1s cancel, botch), DICE-5 DOUBLE, DICE-8 Willpower."""
    dist, botch = brute(n, difficulty, specialty, willpower)
    got = roll_odds(n, difficulty, specialty=specialty, willpower=willpower)
    assert_matches(got, dist, botch, 1e-14)


@pytest.mark.parametrize("difficulty", [2, 4, 6, 8, 10])
@pytest.mark.parametrize("specialty", [None, DOUBLE])
def test_DICE_3_4_roll_odds_match_brute_force_pool_4(
    difficulty: int, specialty: SpecialtyRule | None
) -> None:
    """DICE-3/4: all 10**4 faces of a four-die pool."""
    dist, botch = brute(4, difficulty, specialty)
    assert_matches(roll_odds(4, difficulty, specialty=specialty), dist, botch, 1e-14)


@pytest.mark.parametrize("n", [1, 2, 3, 4])
@pytest.mark.parametrize("difficulty", [2, 6, 10])
@pytest.mark.parametrize("specialty", [None, DOUBLE])
@pytest.mark.parametrize("willpower", [False, True])
def test_DICE_6_damage_roll_odds_match_brute_force(
    n: int, difficulty: int, specialty: SpecialtyRule | None, willpower: bool
) -> None:
    """DICE-6: damage/soak rolls count hits only (1s do not cancel) and never botch."""
    dist, botch = brute(n, difficulty, specialty, willpower, damage=True)
    assert botch == 0
    got = roll_odds(n, difficulty, specialty=specialty, willpower=willpower, damage=True)
    assert_matches(got, dist, botch, 1e-14)
    assert got.p_botch == 0.0


@pytest.mark.parametrize(
    ("n", "difficulty", "damage", "willpower", "max_dice"),
    [
        (1, 2, False, False, 15),
        (1, 6, False, False, 15),
        (1, 10, False, False, 15),
        (2, 6, False, False, 14),
        (2, 9, False, True, 14),
        (2, 10, True, False, 14),
        (3, 3, False, False, 12),
        (3, 7, True, True, 12),
    ],
)
def test_DICE_5_explode_matches_recursive_enumeration(
    n: int, difficulty: int, damage: bool, willpower: bool, max_dice: int
) -> None:
    """DICE-5 EXPLODE: each 10 adds a die (whose 1s cancel), against exact enumeration."""
    dist, botch, missing = explode_enum(
        n, difficulty, damage=damage, willpower=willpower, max_dice=max_dice
    )
    assert missing < Fraction(1, 10**8)  # the enumeration reaches deep enough
    got = roll_odds(n, difficulty, specialty=EXPLODE, damage=damage, willpower=willpower)
    # Each enumerated probability is a lower bound short of the truth by at most
    # ``missing``; the odds module drops at most EXPLODE_TAIL.
    tol = float(missing) + EXPLODE_TAIL + 1e-14
    assert_matches(got, dist, botch, tol)
    assert math.fsum(got.distribution) == pytest.approx(1.0, abs=1e-12)


def test_DICE_5_explode_monte_carlo_via_roll() -> None:
    """DICE-5 EXPLODE: dice.roll with a seeded generator agrees with the exact odds."""
    n, difficulty, trials = 5, 7, 40_000
    dice = RngDice(np.random.default_rng(20240601))
    tally: Counter[int] = Counter()
    botches = 0
    for _ in range(trials):
        r = roll(n, difficulty, dice, specialty=EXPLODE)
        tally[r.successes] += 1
        botches += r.botch
    exact = roll_odds(n, difficulty, specialty=EXPLODE)
    for k, p in exact.as_dict().items():
        sigma = math.sqrt(max(p * (1 - p), 1e-9) / trials)
        assert tally[k] / trials == pytest.approx(p, abs=5 * sigma + 1e-4)
    assert set(tally) <= set(exact.as_dict())
    sigma = math.sqrt(exact.p_botch * (1 - exact.p_botch) / trials)
    assert botches / trials == pytest.approx(exact.p_botch, abs=5 * sigma + 1e-4)


# ---------------------------------------------------------------------------
# Edge rules and invariants
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("pool", [0, -1, -5])
@pytest.mark.parametrize("willpower", [False, True])
@pytest.mark.parametrize("specialty", [None, EXPLODE, DOUBLE])
def test_DICE_7_empty_pool_is_not_rolled(
    pool: int, willpower: bool, specialty: SpecialtyRule | None
) -> None:
    """DICE-7: 0 or fewer dice: 0 successes for certain, no botch, as dice.roll does
    (Willpower's automatic success is not granted to an unrolled pool)."""
    got = roll_odds(pool, 6, specialty=specialty, willpower=willpower)
    assert got.distribution == (1.0,)
    assert got.p_botch == 0.0
    assert got.p_success == 0.0
    r = roll(pool, 6, ScriptedDice([]), specialty=specialty, willpower=willpower)
    assert (r.successes, r.botch) == (0, False)


def test_DICE_1_difficulty_is_clamped() -> None:
    """DICE-1: difficulties below 2 act as 2, above 10 as 10."""
    assert roll_odds(3, 0) == roll_odds(3, 2)
    assert roll_odds(3, 1, specialty=EXPLODE) == roll_odds(3, 2, specialty=EXPLODE)
    assert roll_odds(3, 11) == roll_odds(3, 10)
    assert roll_odds(3, 15, damage=True) == roll_odds(3, 10, damage=True)


@pytest.mark.parametrize("pool", [1, 5, 12, 20, 30])
@pytest.mark.parametrize("difficulty", [2, 6, 10])
@pytest.mark.parametrize("specialty", [None, EXPLODE, DOUBLE])
@pytest.mark.parametrize(("willpower", "damage"), [(False, False), (True, False), (False, True)])
def test_distributions_sum_to_one(
    pool: int,
    difficulty: int,
    specialty: SpecialtyRule | None,
    willpower: bool,
    damage: bool,
) -> None:
    """Every distribution sums to 1 (EXPLODE: within its documented tail truncation)."""
    got = roll_odds(pool, difficulty, specialty=specialty, willpower=willpower, damage=damage)
    total = math.fsum(got.distribution)
    assert abs(total - 1.0) < 1e-12
    if specialty is EXPLODE:
        assert total > 1.0 - EXPLODE_TAIL - 1e-13
    assert all(p >= 0.0 for p in got.distribution)
    assert got.p_botch <= got.distribution[0] + 1e-15
    if willpower:  # DICE-8: at least one success, never a botch
        assert got.distribution[0] == 0.0
        assert got.p_botch == 0.0
        assert got.p_success == pytest.approx(1.0, abs=1e-12)
    assert got.as_dict() == dict(enumerate(got.distribution))
    assert got.expected == pytest.approx(
        sum(k * p for k, p in enumerate(got.distribution)), rel=1e-12
    )


@settings(max_examples=60, deadline=None)
@given(
    pool=st.integers(1, 25),
    difficulty=st.integers(2, 10),
    specialty=st.sampled_from([None, EXPLODE, DOUBLE]),
)
def test_DICE_8_willpower_shifts_by_one(
    pool: int, difficulty: int, specialty: SpecialtyRule | None
) -> None:
    """DICE-8: Willpower adds one success after cancellation: the whole distribution
    shifts up by one and the botch vanishes."""
    plain = roll_odds(pool, difficulty, specialty=specialty)
    wp = roll_odds(pool, difficulty, specialty=specialty, willpower=True)
    assert wp.distribution == (0.0, *plain.distribution)
    assert wp.expected == pytest.approx(plain.expected + 1.0, abs=1e-12)
    assert wp.p_botch == 0.0


def test_DICE_4_botch_closed_form() -> None:
    """DICE-4: P(botch) = P(no hit) - P(no hit and no 1), for any specialty (a 10 is a hit)."""
    for pool in (1, 3, 8):
        for difficulty in (2, 6, 10):
            want = ((difficulty - 1) / 10) ** pool - ((difficulty - 2) / 10) ** pool
            for specialty in (None, EXPLODE, DOUBLE):
                got = roll_odds(pool, difficulty, specialty=specialty).p_botch
                assert got == pytest.approx(want, abs=1e-15)


def test_DICE_5_explode_can_lower_success_chance() -> None:
    """DICE-5 note: under EXPLODE a specialty can *lower* P(at least one net success).

    The extra die from a 10 may show a 1, which cancels the 10's own success;
    without the specialty the 10 would simply have counted. With one die the
    loss is exact: P(success) = P(d..9) + P(10) * P(next die is not a 1)
    = (10 - d)/10 + 0.09, i.e. 0.01 below the plain (11 - d)/10 at every
    difficulty. Measured relation (pools 1..10): EXPLODE is lower for pool 1 at
    every difficulty, for pools 1-2 at 7, 1-3 at 8, 1-6 at 9, every pool at
    difficulty 10, and odd pools at difficulty 2 (where ties hits == ones are
    common); otherwise it is higher. The expected number of successes is never
    lower (equal only for one die at difficulty 10).
    """
    for difficulty in range(2, 11):
        plain = roll_odds(1, difficulty).p_success
        boom = roll_odds(1, difficulty, specialty=EXPLODE).p_success
        assert plain == pytest.approx((11 - difficulty) / 10, abs=1e-15)
        assert boom == pytest.approx(plain - 0.01, abs=1e-14)
    # Pool 1, difficulty 6: 0.49 < 0.50.
    assert roll_odds(1, 6, specialty=EXPLODE).p_success == pytest.approx(0.49, abs=1e-14)
    assert roll_odds(1, 6).p_success == pytest.approx(0.50, abs=1e-15)
    # Larger pools at moderate difficulty gain from it.
    assert (
        roll_odds(5, 6, specialty=EXPLODE).p_success > roll_odds(5, 6).p_success + 1e-3
    )  # 0.8497 vs 0.844
    for pool in range(1, 11):  # difficulty 10: always lower
        assert roll_odds(pool, 10, specialty=EXPLODE).p_success < roll_odds(pool, 10).p_success
    for difficulty in range(2, 11):
        for pool in range(1, 11):
            assert (
                roll_odds(pool, difficulty, specialty=EXPLODE).expected
                >= roll_odds(pool, difficulty).expected - 1e-12
            )


def test_results_are_cached() -> None:
    """Repeated queries return the very same (immutable) object."""
    a = roll_odds(12, 7, specialty=EXPLODE)
    assert roll_odds(12, 7, specialty=EXPLODE) is a
    kw = {"attack_pool": 7, "attack_difficulty": 6, "defense_pool": 4, "damage_base": 5}
    assert attack_odds(**kw, soak_pool=3) is attack_odds(**kw, soak_pool=3)  # type: ignore[arg-type]


def test_DICE_1_equivalent_queries_share_one_result() -> None:
    """An OddsQuery's odds are attack_odds' for its keywords; queries that differ only
    where normalization erases it (difficulties past DICE-1's bounds, an unrolled
    defense's difficulty) share one cached result."""
    q = OddsQuery(attack_pool=7, attack_difficulty=6, damage_base=5, soak_pool=3)
    assert odds_of(q) is attack_odds(attack_pool=7, attack_difficulty=6, damage_base=5,
                                     soak_pool=3)
    same = q._replace(attack_difficulty=1, defense_pool=0, defense_difficulty=9)
    assert same != q and same.normalized() == q._replace(attack_difficulty=2).normalized()
    assert odds_of(same) is odds_of(q._replace(attack_difficulty=2))
    assert q.normalized() == q._replace(soak_difficulty=6, defense_difficulty=2)


# ---------------------------------------------------------------------------
# attack_odds
# ---------------------------------------------------------------------------


def brute_attack(
    *,
    attack_pool: int,
    attack_difficulty: int,
    attack_specialty: SpecialtyRule | None = None,
    attack_willpower: bool = False,
    defense_pool: int = 0,
    defense_difficulty: int = 6,
    damage_base: int,
    damage_difficulty: int = 6,
    extra_successes_add: bool = True,
    soak_pool: int = 0,
    soak_difficulty: int = 6,
    halve: bool = False,
    auto_hit: bool = False,
) -> dict[int, Fraction]:
    """Enumerate attack x defense faces, then damage x soak faces per damage pool."""
    out: Counter[int] = Counter()

    @cache
    def levels(pool: int) -> dict[int, Fraction]:
        tally: Counter[int] = Counter()
        for dmg_faces in _all_faces(pool):
            dmg, _ = count(dmg_faces, damage_difficulty, damage=True)
            for soak_faces in _all_faces(soak_pool):
                soak, _ = count(soak_faces, soak_difficulty, damage=True) if soak_pool else (0, 0)
                lv = max(0, dmg - soak)
                tally[lv // 2 if halve else lv] += 1
        total = 10 ** (pool + max(soak_pool, 0))
        return {k: Fraction(c, total) for k, c in tally.items()}

    result: dict[int, Fraction] = {}
    for a_faces in _all_faces(attack_pool):
        a, _ = count(
            a_faces, attack_difficulty, specialty=attack_specialty, willpower=attack_willpower
        )
        for d_faces in _all_faces(max(defense_pool, 0)):
            d, _ = count(d_faces, defense_difficulty) if defense_pool > 0 else (0, False)
            net = a - d
            if auto_hit:
                net = max(1, net)
            if net < 1:
                out[-1] += 1  # miss, tallied as a face count
                continue
            pool = max(1, damage_base + (net - 1 if extra_successes_add else 0))
            out[pool] += 1
    total = 10 ** (attack_pool + max(defense_pool, 0))
    for key, c in out.items():
        w = Fraction(c, total)
        if key == -1:
            result[0] = result.get(0, Fraction(0)) + w
            continue
        for lv, p in levels(key).items():
            result[lv] = result.get(lv, Fraction(0)) + w * p
    return result


ATTACK_CASES: list[dict[str, object]] = [
    {"attack_pool": 2, "attack_difficulty": 6, "defense_pool": 1, "damage_base": 1, "soak_pool": 1},
    {"attack_pool": 2, "attack_difficulty": 5, "damage_base": 2, "soak_pool": 1},
    {
        "attack_pool": 2,
        "attack_difficulty": 7,
        "defense_pool": 1,
        "defense_difficulty": 4,
        "damage_base": 2,
        "damage_difficulty": 5,
        "soak_pool": 1,
        "soak_difficulty": 8,
        "halve": True,
    },
    {
        "attack_pool": 2,
        "attack_difficulty": 6,
        "defense_pool": 1,
        "damage_base": 1,
        "soak_pool": 1,
        "auto_hit": True,
    },
    {
        "attack_pool": 2,
        "attack_difficulty": 6,
        "attack_specialty": DOUBLE,
        "attack_willpower": True,
        "defense_pool": 1,
        "damage_base": 0,
        "extra_successes_add": False,
        "soak_pool": 1,
    },
    {"attack_pool": 1, "attack_difficulty": 6, "damage_base": 3, "soak_pool": 0, "halve": True},
    {"attack_pool": 0, "attack_difficulty": 6, "damage_base": 2, "auto_hit": True},
]


@pytest.mark.parametrize("case", ATTACK_CASES)
def test_attack_odds_match_brute_force_composition(case: dict[str, object]) -> None:
    """Attack vs defense, damage pool from extra successes, soak, halving: brute force."""
    want = brute_attack(**case)  # type: ignore[arg-type]
    got = attack_odds(**case)  # type: ignore[arg-type]
    assert math.fsum(got) == pytest.approx(1.0, abs=1e-12)
    for k in range(max(len(got), max(want) + 1)):
        g = got[k] if k < len(got) else 0.0
        assert g == pytest.approx(float(want.get(k, Fraction(0))), abs=1e-14), k


def compose_attack(
    *,
    attack_pool: int,
    attack_difficulty: int,
    attack_specialty: SpecialtyRule | None = None,
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
) -> dict[int, float]:
    """Plain nested-loop composition of roll_odds (checks attack_odds' convolutions)."""
    a = roll_odds(attack_pool, attack_difficulty, specialty=attack_specialty).distribution
    d = roll_odds(defense_pool, defense_difficulty, specialty=defense_specialty).distribution
    soak = roll_odds(soak_pool, soak_difficulty, damage=True).distribution
    out: dict[int, float] = {}
    for ai, pa in enumerate(a):
        for di, pd in enumerate(d):
            net = ai - di
            if auto_hit:
                net = max(1, net)
            if net < 1:
                out[0] = out.get(0, 0.0) + pa * pd
                continue
            pool = max(1, damage_base + (net - 1 if extra_successes_add else 0))
            dmg = roll_odds(pool, damage_difficulty, damage=True).distribution
            for x, px in enumerate(dmg):
                for s, ps in enumerate(soak):
                    lv = max(0, x - s)
                    lv = lv // 2 if halve else lv
                    out[lv] = out.get(lv, 0.0) + pa * pd * px * ps
    return out


@pytest.mark.parametrize("auto_hit", [False, True])
@pytest.mark.parametrize("halve", [False, True])
@pytest.mark.parametrize("extra", [False, True])
def test_attack_odds_match_composition_with_explode(
    auto_hit: bool, halve: bool, extra: bool
) -> None:
    """Larger pools with EXPLODE on both sides: same as a plain nested-loop composition."""
    case: dict[str, object] = {
        "attack_pool": 6,
        "attack_difficulty": 7,
        "attack_specialty": EXPLODE,
        "defense_pool": 5,
        "defense_difficulty": 6,
        "defense_specialty": EXPLODE,
        "damage_base": 3,
        "damage_difficulty": 6,
        "extra_successes_add": extra,
        "soak_pool": 3,
        "soak_difficulty": 6,
        "halve": halve,
        "auto_hit": auto_hit,
    }
    got = attack_odds(**case)  # type: ignore[arg-type]
    want = compose_attack(**case)  # type: ignore[arg-type]
    assert abs(math.fsum(got) - 1.0) < 1e-12
    for k in range(max(len(got), max(want) + 1)):
        g = got[k] if k < len(got) else 0.0
        assert g == pytest.approx(want.get(k, 0.0), abs=1e-13), k
    if auto_hit:  # a sure hit never deals less than a miss
        miss = attack_odds(**{**case, "auto_hit": False})  # type: ignore[arg-type]
        assert got[0] <= miss[0]


def test_VAMP_5_potence_successes_shift_the_damage_roll() -> None:
    """VAMP-5: automatic damage successes equal a damage roll shifted up."""
    from itertools import product

    from vtm_sim.core.dice import count

    dist = attack_odds(
        attack_pool=1, attack_difficulty=2, damage_base=1, soak_pool=1, damage_auto=2
    )
    brute = [0.0] * 5
    for a, dmg, soak in product(range(1, 11), repeat=3):
        hit = count([a], 2)[0] >= 1
        if not hit:
            brute[0] += 1e-3
            continue
        levels = max(0, count([dmg], 6, damage=True)[0] + 2 - count([soak], 6, damage=True)[0])
        brute[levels] += 1e-3
    for k, p in enumerate(dist):
        assert abs(p - brute[k]) < 1e-12
    assert len(dist) == 4


def test_RNG_6_lone_spray_target_gets_half_the_successes_added_whole() -> None:
    """RNG-6: a lone target in the spray gets half the successes (rounded down),
    and its share is added whole to the damage pool."""
    from itertools import product

    from vtm_sim.core.dice import count

    dist = attack_odds(
        attack_pool=3, attack_difficulty=6, damage_base=1, soak_pool=0, lone_spray=True
    )
    brute: dict[int, float] = {}
    for faces in product(range(1, 11), repeat=3):
        share = count(list(faces), 6)[0] // 2
        p = 1e-3
        if share < 1:
            brute[0] = brute.get(0, 0.0) + p
            continue
        pool = 1 + share  # the share added whole
        for dmg in product(range(1, 11), repeat=pool):
            lv = count(list(dmg), 6, damage=True)[0]
            brute[lv] = brute.get(lv, 0.0) + p * 0.1**pool
    for k in range(max(len(dist), max(brute) + 1)):
        got = dist[k] if k < len(dist) else 0.0
        assert abs(got - brute.get(k, 0.0)) < 1e-12
