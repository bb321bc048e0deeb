"""Dice pools with fixed faces (DICE-1..9)."""

from __future__ import annotations

import numpy as np
import pytest
from rule_helpers import (
    ACT,
    DECLARE,
    FILLER,
    NONE,
    ONE,
    PASS,
    Fighter,
    attack,
    battle,
    block,
    rolls,
    run,
    step,
)

from vtm_sim.core.choices import DecisionKind, Declaration
from vtm_sim.core.dice import (
    DEFAULT_DIFFICULTY,
    RngDice,
    ScriptedDice,
    SpecialtyRule,
    clamp_difficulty,
    count,
    roll,
)
from vtm_sim.engine.battle import Battle
from vtm_sim.errors import DiceError
from vtm_sim.events import EventKind

EXPLODE = SpecialtyRule.EXPLODE
DOUBLE = SpecialtyRule.DOUBLE


# --- DICE-1: pool of d10 against a difficulty, clamped to 2..10 -------------------


@pytest.mark.parametrize(
    ("raw", "clamped"),
    [(-3, 2), (0, 2), (1, 2), (2, 2), (6, 6), (9, 9), (10, 10), (11, 10), (14, 10)],
)
def test_DICE_1_difficulty_is_clamped_to_2_through_10(raw: int, clamped: int) -> None:
    assert clamp_difficulty(raw) == clamped
    r = roll(1, raw, ScriptedDice([5]))
    assert r.difficulty == clamped


def test_DICE_1_default_difficulty_is_6() -> None:
    assert DEFAULT_DIFFICULTY == 6


@pytest.mark.parametrize(
    ("faces", "difficulty", "successes"),
    [
        ((6, 7, 8), 6, 3),  # a face equal to the difficulty succeeds
        ((5, 5, 5), 6, 0),
        ((2, 3, 4, 5, 6, 7, 8, 9), 6, 4),
        ((3, 4, 5), 4, 2),
        ((9, 8, 2), 9, 1),
        ((2, 2, 2), 1, 3),  # clamped to 2: every non-1 face succeeds
        ((3, 5, 7), 3, 3),
    ],
)
def test_DICE_1_each_die_at_or_above_difficulty_is_a_success(
    faces: tuple[int, ...], difficulty: int, successes: int
) -> None:
    r = roll(len(faces), difficulty, ScriptedDice(faces))
    assert r.faces == faces
    assert r.successes == successes
    assert not r.botch


# --- DICE-2: a 10 always succeeds ---------------------------------------------


@pytest.mark.parametrize(
    ("faces", "difficulty", "successes"),
    [((10,), 10, 1), ((10, 9), 10, 1), ((10, 10), 12, 2), ((9,), 15, 0), ((10,), 99, 1)],
)
def test_DICE_2_a_ten_always_succeeds(
    faces: tuple[int, ...], difficulty: int, successes: int
) -> None:
    r = roll(len(faces), difficulty, ScriptedDice(faces))
    assert r.successes == successes


# --- DICE-3: each 1 cancels a success ----------------------------------------


@pytest.mark.parametrize(
    ("faces", "successes", "botch"),
    [
        ((7, 8, 1), 1, False),
        ((7, 8, 1, 1), 0, False),
        ((7, 1, 1, 1), 0, False),  # more 1s than successes: a plain failure
        ((10, 10, 10, 1), 2, False),
        ((6, 6, 6, 6, 1), 3, False),
    ],
)
def test_DICE_3_ones_cancel_successes(faces: tuple[int, ...], successes: int, botch: bool) -> None:
    r = roll(len(faces), 6, ScriptedDice(faces))
    assert (r.successes, r.botch) == (successes, botch)
    assert count(faces, 6) == (successes, botch)


# --- DICE-4: botch = no success at all and at least one 1 ---------------------


@pytest.mark.parametrize(
    ("faces", "difficulty", "botch"),
    [
        ((1,), 6, True),
        ((1, 2, 5), 6, True),
        ((1, 1, 1), 6, True),
        ((2, 3, 5), 6, False),  # failure without a 1 is no botch
        ((1, 6), 6, False),  # a success showed (cancelled): failure, not a botch
        ((1, 1, 10), 6, False),
        ((1, 5), 5, False),
        ((1, 9), 10, True),
    ],
)
def test_DICE_4_botch_needs_no_success_and_a_one(
    faces: tuple[int, ...], difficulty: int, botch: bool
) -> None:
    r = roll(len(faces), difficulty, ScriptedDice(faces))
    assert r.botch is botch
    assert r.successes == 0 or not botch


# --- DICE-5: specialty --------------------------------------------------------


@pytest.mark.parametrize(
    ("pool", "script", "faces", "successes"),
    [
        (2, [10, 3, 4], (10, 3, 4), 1),  # the 10 adds one die (a 4: no success)
        (2, [10, 3, 10, 1], (10, 3, 10, 1), 1),  # the extra die explodes again; its 1 cancels
        (1, [10, 1], (10, 1), 0),  # a 10 then a 1 nets zero (lower odds, RULES note)
        (3, [10, 10, 6, 7, 2], (10, 10, 6, 7, 2), 4),  # two 10s: two extra dice
        (2, [5, 6], (5, 6), 1),  # no 10: no extra die
    ],
)
def test_DICE_5_explode_specialty_adds_a_die_per_ten(
    pool: int, script: list[int], faces: tuple[int, ...], successes: int
) -> None:
    dice = ScriptedDice(script)
    r = roll(pool, 6, dice, specialty=EXPLODE)
    assert r.faces == faces
    assert r.successes == successes
    assert r.specialty
    assert dice.remaining == 0


@pytest.mark.parametrize(
    ("faces", "successes"),
    [((10,), 2), ((10, 10, 3), 4), ((10, 1), 1), ((6, 7), 2), ((10, 6, 1), 2)],
)
def test_DICE_5_double_specialty_counts_ten_twice_without_extra_die(
    faces: tuple[int, ...], successes: int
) -> None:
    dice = ScriptedDice([*faces, 10])
    r = roll(len(faces), 6, dice, specialty=DOUBLE)
    assert r.faces == faces
    assert r.successes == successes
    assert dice.remaining == 1  # no die drawn beyond the pool


def test_DICE_5_without_specialty_a_ten_neither_explodes_nor_doubles() -> None:
    dice = ScriptedDice([10, 4, 10])
    r = roll(2, 6, dice)
    assert (r.faces, r.successes, r.specialty) == ((10, 4), 1, False)
    assert dice.remaining == 1


# --- DICE-6: damage and soak rolls ------------------------------------------------


@pytest.mark.parametrize(
    ("faces", "successes"),
    [((1, 1, 6), 1), ((1, 1, 1), 0), ((7, 2, 1, 2, 6, 9, 7), 4), ((10, 1), 1)],
)
def test_DICE_6_damage_rolls_ones_do_not_cancel_and_never_botch(
    faces: tuple[int, ...], successes: int
) -> None:
    r = roll(len(faces), 6, ScriptedDice(faces), damage=True)
    assert (r.successes, r.botch, r.damage) == (successes, False, True)


# --- DICE-7: a pool of 0 or less is not rolled ------------------------------------


@pytest.mark.parametrize("pool", [0, -1, -4])
def test_DICE_7_pool_of_zero_or_less_is_not_rolled(pool: int) -> None:
    dice = ScriptedDice([10, 10])
    r = roll(pool, 6, dice)
    assert (r.rolled, r.successes, r.botch, r.faces) == (False, 0, False, ())
    assert dice.remaining == 2


def test_DICE_7_battle_offers_no_attack_whose_pool_is_zero() -> None:
    """DICE-7: Dex 1 + Brawl 0 under a 2-action penalty leaves no pool: no punch offered."""
    weak = block("weak", attrs={"dexterity": 1})
    foe = block("foe")
    b = battle([Fighter(weak, 0, 0, 0), Fighter(foe, 1, 1, 0)], [9, 2])
    step(b, DECLARE, 1, ONE)
    step(b, DECLARE, 0, Declaration(actions=2))
    assert b.pending is not None and b.pending.kind is ACT and b.pending.actor == 0
    maneuvers = {getattr(o, "maneuver", None) for o in b.pending.options}
    assert "punch" not in maneuvers and "kick" not in maneuvers


def test_DICE_7_unskilled_battle_attack_rolls_the_attribute_alone() -> None:
    """DICE-7 / ATK-3: no Brawl dots: the punch pool is Dexterity alone."""
    a = block("a", attrs={"dexterity": 3})
    b = battle([Fighter(a, 0, 0, 0), Fighter(block("t"), 1, 1, 0)], [9, 2, 2, 2, 2])
    step(b, DECLARE, 1, ONE)
    step(b, DECLARE, 0, ONE)
    step(b, ACT, 0, attack("punch", 1))
    step(b, DecisionKind.DEFEND, 1, NONE)
    assert rolls(b, "attack")[0]["pool"] == 3


# --- DICE-8: Willpower ----------------------------------------------------------


@pytest.mark.parametrize(
    ("faces", "damage", "successes", "botch"),
    [
        ((2, 3), False, 1, False),
        ((1, 2), False, 1, False),  # would botch: Willpower averts it
        ((6, 1, 1), False, 1, False),  # 1s do not cancel the automatic success
        ((6, 7), False, 3, False),
        ((1, 1), True, 1, False),
    ],
)
def test_DICE_8_willpower_adds_one_automatic_success(
    faces: tuple[int, ...], damage: bool, successes: int, botch: bool
) -> None:
    r = roll(len(faces), 6, ScriptedDice(faces), willpower=True, damage=damage)
    assert (r.successes, r.botch, r.willpower) == (successes, botch, True)


def test_DICE_8_willpower_declared_applies_once_per_turn_in_battle() -> None:
    """DICE-8: declared Willpower buys one success on the first attack only; 1 point a turn."""
    a = block("a", attrs={"dexterity": 3}, abil={"brawl": 2}, willpower=4)
    t = block("t", attrs={"stamina": 1})
    # init; attack 1: 3 dice (5 - 2 for two actions); damage: 1 die (Strength 1);
    # attack 2 at the end of the turn: 2 dice (5 - 3)
    faces = [9, 2, *[FILLER] * 3, FILLER, *[FILLER] * 2]
    b = battle([Fighter(a, 0, 0, 0), Fighter(t, 1, 1, 0)], faces)
    step(b, DECLARE, 1, ONE)
    assert b.pending is not None
    assert Declaration(actions=2, willpower=True) in b.pending.options
    step(b, DECLARE, 0, Declaration(actions=2, willpower=True))
    step(b, ACT, 0, attack("punch", 1))
    step(b, DecisionKind.DEFEND, 1, NONE)
    first = rolls(b, "attack")[0]
    assert first["wp"] is True and first["succ"] == 1 and first["pool"] == 3
    assert b.combatants[0].willpower == 3
    # the automatic success hits: damage then (no soak success) marks the target
    assert rolls(b, "damage")
    step(b, ACT, 1, PASS)
    step(b, ACT, 0, attack("punch", 1))  # no defense: the target has no action left
    assert b.pending is None
    second = rolls(b, "attack")[1]
    assert "wp" not in second and second["pool"] == 2
    assert b.combatants[0].willpower == 3


def test_DICE_8_no_willpower_declaration_without_points() -> None:
    a = block("a", willpower=0)
    b = battle([Fighter(a, 0, 0, 0), Fighter(block("t"), 1, 1, 0)], [9, 2])
    step(b, DECLARE, 1, ONE)
    assert b.pending is not None and b.pending.actor == 0
    assert not any(getattr(o, "willpower", False) for o in b.pending.options)


# --- DICE-9: one seeded source; explicit dice -----------------------------------------


def test_DICE_9_same_seed_same_faces() -> None:
    a = RngDice(np.random.default_rng(42))
    b = RngDice(np.random.default_rng(42))
    fa = a.faces(5) + a.faces(3000) + a.faces(1)
    fb = b.faces(5) + b.faces(3000) + b.faces(1)
    assert fa == fb
    assert all(1 <= f <= 10 for f in fa)
    assert set(fa) == set(range(1, 11))


def test_DICE_9_scripted_dice_are_used_in_order_and_checked() -> None:
    d = ScriptedDice([3, 10, 1])
    assert d.faces(2) == [3, 10]
    assert d.remaining == 1
    with pytest.raises(DiceError, match="1 more face needed"):
        d.faces(2)
    with pytest.raises(DiceError, match="not a d10 face"):
        ScriptedDice([4, 11])
    with pytest.raises(DiceError):
        ScriptedDice([0])


def _first_option(d: object) -> object:
    return d.options[0]  # type: ignore[attr-defined]


def _brawl_battle(**kw: object) -> Battle:
    brawler = block("b", attrs={"dexterity": 3, "strength": 3}, abil={"brawl": 3})
    return Battle(
        [Fighter(brawler, 0, 0, 0), Fighter(brawler, 1, 1, 0)],
        turn_limit=4,
        **kw,  # type: ignore[arg-type]
    )


def test_DICE_9_a_battle_replays_from_its_seed_and_from_its_recorded_faces() -> None:
    """DICE-9: the same seed and choices give the same log; so do the logged faces."""
    one = _brawl_battle(seed=7)
    run(one, _first_option)  # type: ignore[arg-type]
    two = _brawl_battle(seed=7)
    run(two, _first_option)  # type: ignore[arg-type]
    assert one.log.sha256() == two.log.sha256()
    faces: list[int] = []
    for e in one.log.events:
        if e["e"] == EventKind.INITIATIVE:
            faces.append(e["die"])
        elif e["e"] == EventKind.ROLL:
            faces.extend(e["faces"])
    assert faces, "the battle rolled dice"
    scripted = _brawl_battle(dice=ScriptedDice(faces))
    run(scripted, _first_option)  # type: ignore[arg-type]
    strip = [e for e in one.log.events if e["e"] != EventKind.BATTLE]
    assert [e for e in scripted.log.events if e["e"] != EventKind.BATTLE] == strip
    assert isinstance(scripted.dice, ScriptedDice) and scripted.dice.remaining == 0


def test_DICE_9_preloaded_dice_hand_out_their_faces_then_their_own_generator() -> None:
    faces = [3, 10, 1, 7]
    dice = RngDice.preloaded(faces, (5, 9, 1), batch=4)
    assert dice.faces(3) == [3, 10, 1]
    copy = dice.clone()  # mid-way: the copy draws exactly what the original will
    later = np.random.default_rng([5, 9, 1]).integers(1, 11, size=4, dtype=np.int16).tolist()
    assert dice.faces(3) == [7, *later[:2]]
    assert copy.faces(3) == [7, *later[:2]]
    assert faces == [3, 10, 1, 7]  # the shared list is never changed
    again = RngDice.from_json(RngDice.preloaded(faces, (5, 9, 1), batch=4).to_json())
    assert again.faces(6) == [3, 10, 1, 7, *later[:2]]


def test_DICE_9_suggest_rollouts_roll_the_same_dice_for_every_option_and_worker() -> None:
    from vtm_sim.analysis import search as advice

    advice._FACES.clear()
    first = [advice.rollout_dice(11, k).faces(8) for k in range(130)]
    advice._FACES.clear()
    backwards = [advice.rollout_dice(11, k).faces(8) for k in reversed(range(130))][::-1]
    assert first == backwards  # rollout k's dice depend on the seed and k only
    assert len({tuple(f) for f in first}) == 130
    assert first != [advice.rollout_dice(12, k).faces(8) for k in range(130)]
    advice._FACES.clear()
