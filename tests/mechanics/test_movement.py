"""Movement: speeds and wound limits (MOVE-1), burden (MOVE-2), jumping (MOVE-3) and
pursuit (MOVE-4), as functions and, where the battle uses them, in a battle."""

from __future__ import annotations

import pytest
from rule_helpers import (
    ACT,
    DEFEND,
    attack,
    battle,
    combatant,
    declare_all,
    events,
    offered,
    offered_kinds,
    offered_maneuvers,
    sheet,
    single_roll,
    step,
    successes,
)

from vtm_sim.core.choices import AbortMethod, Action, ActionKind, Defense, DefenseKind
from vtm_sim.core.dice import ScriptedDice, roll
from vtm_sim.data.tables import DamageType, load_tables
from vtm_sim.engine.battle import Fighter
from vtm_sim.events import EventKind
from vtm_sim.mechanics.movement import (
    JUDGE_DIFFICULTY,
    JUDGE_SUCCESSES,
    JUMP_DIFFICULTY,
    Pursuit,
    burden,
    carry_limit,
    judge_jump,
    judge_pool,
    jump_feet,
    jump_pool,
    run_allowance,
    walk_speed,
)

TABLES = load_tables()


# --- MOVE-1: walk, jog, run; wound levels ----------------------------------------------------


@pytest.mark.parametrize("dex", [0, 1, 2, 3, 4, 5])
def test_MOVE_1_walk_7_jog_12_plus_dex_run_20_plus_3_dex(dex: int) -> None:
    mv = TABLES.movement
    assert walk_speed(TABLES) == 7
    assert mv.jog.base + mv.jog.per_dexterity * dex == 12 + dex
    c = combatant(sheet("r", dexterity=dex))
    assert run_allowance(c, TABLES) == 20 + 3 * dex


@pytest.mark.parametrize(
    ("dex", "levels", "yards"),
    [
        (3, 0, 29.0),
        (3, 1, 29.0),  # bruised
        (3, 2, 29.0),  # hurt
        (3, 3, 14.5),  # injured: half the run
        (3, 4, 14.5),  # wounded: no running: min(jog 15, half the run)
        (1, 4, 11.5),  # jog 13, half the run 11.5
        (5, 3, 17.5),
        (5, 4, 17.0),  # jog 17 is less than half the run (17.5)
        (3, 5, 3.0),  # mauled: 3 yards
        (3, 6, 1.0),  # crippled: 1 yard
    ],
)
def test_MOVE_1_wound_levels_limit_the_run(dex: int, levels: int, yards: float) -> None:
    """MOVE-1 with DMG-9 (003: a badly hurt character cannot move at full speed). The
    engine lets a Wounded character jog but never outpace an Injured one."""
    c = combatant(sheet("r", dexterity=dex))
    c.health.take(levels, DamageType.BASHING)
    assert run_allowance(c, TABLES) == yards


def test_MOVE_1_a_move_action_covers_the_whole_run() -> None:
    b = battle([Fighter(sheet("r", dexterity=3), 0, 0, 0), Fighter(sheet("t"), 1, 5, 0)], [9, 1])
    declare_all(b)
    step(b, ACT, 0, Action(ActionKind.MOVE, target=1, away=True))
    (mv,) = events(b, EventKind.MOVE, who=0)
    assert mv["yards"] == 29 and mv["to"] == [-29.0, 0.0]


# --- MOVE-2: burden ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("strength", "potence", "load", "diff", "factor"),
    [
        (2, 0, 0, 0, 1.0),
        (2, 0, 50, 0, 1.0),  # up to Strength x 25 lb: no effect
        (2, 0, 51, 1, 0.5),
        (2, 0, 75, 1, 0.5),  # each extra 25 lb halves speed
        (2, 0, 76, 1, 0.25),
        (2, 0, 99, 1, 0.25),
        (2, 0, 100, 1, 0.0),  # double the limit: cannot move
        (2, 0, 140, 1, 0.0),
        (2, 1, 75, 0, 1.0),  # Potence adds to the limit
        (2, 1, 100, 1, 0.5),
        (2, 1, 150, 1, 0.0),
    ],
)
def test_MOVE_2_burden_difficulty_and_speed(
    strength: int, potence: int, load: float, diff: int, factor: float
) -> None:
    kind = "vampire" if potence else "mortal"
    c = combatant(
        sheet("c", kind=kind, strength=strength, dexterity=2, potence=potence, carrying=load)
    )
    assert carry_limit(c) == (strength + potence) * 25
    assert burden(c) == (diff, factor)
    assert run_allowance(c, TABLES) == (20 + 3 * 2) * factor


def test_MOVE_2_burdened_attack_is_one_harder() -> None:
    s = sheet("c", strength=2, dexterity=3, wits=3, brawl=2, carrying=60)
    b = battle([Fighter(s, 0, 0, 0), Fighter(sheet("t"), 1, 1, 0)], [9, 1])
    declare_all(b)
    p = b.plan(0, attack("punch", 1))
    assert p is not None and p.difficulty == 7
    assert b.run_allowance(b.combatants[0]) == 14.5


def test_MOVE_2_at_double_the_limit_no_movement_but_a_blow_in_reach() -> None:
    s = sheet("c", strength=2, dexterity=3, wits=3, brawl=2, carrying=100)
    near = battle([Fighter(s, 0, 0, 0), Fighter(sheet("t"), 1, 1, 0)], [9, 1])
    declare_all(near)
    assert "punch" in offered_maneuvers(near)
    assert ActionKind.MOVE not in offered_kinds(near)
    far = battle([Fighter(s, 0, 0, 0), Fighter(sheet("t"), 1, 5, 0)], [9, 1])
    declare_all(far)
    assert "punch" not in offered_maneuvers(far)  # cannot close in
    assert ActionKind.MOVE not in offered_kinds(far)
    assert Action(ActionKind.PASS) in offered(far)


def test_MOVE_2_burdened_dodge_is_one_harder() -> None:
    a = sheet("a", dexterity=3, wits=3, brawl=2)
    t = sheet("t", strength=2, dexterity=3, dodge=2, carrying=60)
    faces = [9, 1, *successes(1, 5), *successes(1, 5)]
    b = battle([Fighter(a, 0, 0, 0), Fighter(t, 1, 1, 0)], faces)
    declare_all(b)
    step(b, ACT, 0, attack("punch", 1))
    step(b, DEFEND, 1, Defense(DefenseKind.DODGE, AbortMethod.WILLPOWER))
    assert single_roll(b, "dodge")["diff"] == 7


def test_MOVE_2_unburdened_dodge_is_at_6() -> None:
    """The control for the test above: the same dodge without the load."""
    a = sheet("a", dexterity=3, wits=3, brawl=2)
    t = sheet("t", strength=2, dexterity=3, dodge=2)
    faces = [9, 1, *successes(1, 5), *successes(1, 5)]
    b = battle([Fighter(a, 0, 0, 0), Fighter(t, 1, 1, 0)], faces)
    declare_all(b)
    step(b, ACT, 0, attack("punch", 1))
    step(b, DEFEND, 1, Defense(DefenseKind.DODGE, AbortMethod.WILLPOWER))
    assert single_roll(b, "dodge")["diff"] == 6


# --- MOVE-3: jumping ------------------------------------------------------------------------------


@pytest.mark.parametrize(("running", "pool"), [(False, 3), (True, 3 + 2)])
def test_MOVE_3_jump_pool_strength_standing_plus_athletics_running(
    running: bool, pool: int
) -> None:
    c = combatant(sheet("j", strength=3, athletics=2))
    assert jump_pool(c, running) == pool


@pytest.mark.parametrize(
    ("faces", "succ", "up", "across"),
    [
        ([3, 3, 2], 2, 4.0, 8.0),  # a 3 is a success at difficulty 3
        ([10, 9, 3, 3, 2], 4, 8.0, 16.0),
        ([2, 2, 2], 0, 0.0, 0.0),
        ([3, 1, 2], 0, 0.0, 0.0),  # a 1 cancels (DICE-3)
    ],
)
def test_MOVE_3_two_feet_up_or_four_across_per_success_at_difficulty_3(
    faces: list[int], succ: int, up: float, across: float
) -> None:
    assert JUMP_DIFFICULTY == 3
    r = roll(len(faces), JUMP_DIFFICULTY, ScriptedDice(faces))
    assert r.successes == succ
    assert jump_feet(r.successes, vertical=True) == up
    assert jump_feet(r.successes, vertical=False) == across
    assert jump_feet(1, vertical=False) * 0.3048 == pytest.approx(1.22, abs=0.01)  # 003


# --- MOVE-6: jump details ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("faces", "known"),
    [([7, 7, 7, 2, 2], 3), ([7, 7, 2, 2, 2], None), ([7, 7, 7, 1, 2], None)],
)
def test_MOVE_6_judging_a_jump_beforehand(faces: list[int], known: int | None) -> None:
    """MOVE-6 (003: «бросок Восприятие+Атлетика (сложность 6, требуется 3 успеха) еще до
    прыжка», Perception + Athletics, difficulty 6, 3 successes, before the jump): with
    3 successes the jumper knows a 12-ft gap needs 3 successes; fewer (a 1 cancels one):
    it does not."""
    c = combatant(sheet("j", perception=3, athletics=2))
    assert judge_pool(c) == 5
    r, needed = judge_jump(c, 12.0, vertical=False, dice=ScriptedDice(faces))
    assert (r.pool, r.difficulty) == (5, JUDGE_DIFFICULTY) == (5, 6)
    assert needed == known and JUDGE_SUCCESSES == 3


def test_MOVE_6_a_running_jump_needs_a_run_up_longer_than_the_jump() -> None:
    """MOVE-6 (003: «персонаж должен отойти на расстояние, которое превышает расстояние
    от него до цели прыжка», the run-up must exceed the distance to the jump's target):
    an 8-ft gap is a running jump after 3 yards (9 ft), a standing one after 2 (6 ft)."""
    from vtm_sim.core.space import Obstacle, ObstacleKind
    from vtm_sim.engine.obstacles import Route

    gap = Obstacle("gap", ObstacleKind.GAP, 0.0, -1.0, 0.0, 1.0, 8.0)
    assert Route(0.0, (), gap, 3.0).running(0.0)
    assert not Route(0.0, (), gap, 2.0).running(0.0)
    assert Route(0.0, (), gap, 1.0).running(2.0)  # yards run earlier this turn count


# --- MOVE-4: pursuit ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("lead", "vehicles", "start"),
    [(0, False, 0), (7, False, 3), (8, False, 4), (25, True, 2), (9, True, 0)],
)
def test_MOVE_4_quarry_starts_with_a_success_per_2_yards_of_lead(
    lead: float, vehicles: bool, start: int
) -> None:
    """MOVE-4: one success per 2 yards on foot, per 10 yards in vehicles."""
    assert Pursuit.start(lead, vehicles=vehicles).quarry == start


def test_MOVE_4_pursuer_catches_up_when_its_total_exceeds_the_quarrys() -> None:
    p = Pursuit.start(6)  # the quarry starts with 3
    assert (p.quarry, p.pursuer) == (3, 0)
    assert p.turn(3, 1) is False  # 3 against 4
    assert p.turn(1, 0) is False  # 4 against 4: level is not enough
    assert not p.caught
    assert p.turn(1, 0) is True  # 5 against 4
    assert p.caught and (p.pursuer, p.quarry) == (5, 4)


@pytest.mark.parametrize(
    ("turns", "caught_after"),
    [
        ([(2, 2), (2, 2), (2, 2)], None),  # matching the quarry never closes the gap
        ([(4, 1), (2, 0)], 2),  # 4 vs 4, then 6 vs 4
        ([(5, 0)], 1),
    ],
)
def test_MOVE_4_pursuit_accumulates_successes_turn_by_turn(
    turns: list[tuple[int, int]], caught_after: int | None
) -> None:
    p = Pursuit.start(6)
    caught = [p.turn(a, b) for a, b in turns]
    first = caught.index(True) + 1 if True in caught else None
    assert first == caught_after
