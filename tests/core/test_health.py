"""The health track: levels, penalties, marks, incapacitation, death, movement.

DMG-7, DMG-8, DMG-9 (and the wound penalty's reach into pools).
"""

from __future__ import annotations

import pytest
from rule_helpers import (
    ACT,
    DEFEND,
    NONE,
    ONE,
    attack,
    battle,
    block,
    combatant,
    events,
)

from vtm_sim.core.choices import DefenseKind
from vtm_sim.core.health import HealthTrack, Status
from vtm_sim.data.rules import load_rules
from vtm_sim.data.stat_blocks import Kind
from vtm_sim.data.tables import DamageType, load_tables
from vtm_sim.engine.battle import Fighter
from vtm_sim.events import EventKind, StatusEvent
from vtm_sim.mechanics.attack import defense_pool, plan_attack

BASH, LETHAL, AGG = DamageType.BASHING, DamageType.LETHAL, DamageType.AGGRAVATED


def track(kind: Kind = Kind.MORTAL) -> HealthTrack:
    return HealthTrack(load_tables().health, kind)


# --- DMG-7 ---------------------------------------------------------------------------


def test_DMG_7_health_levels_and_penalties_table() -> None:
    levels = [(lv.name, lv.penalty) for lv in load_tables().health]
    assert levels == [
        ("bruised", 0),
        ("hurt", 1),
        ("injured", 1),
        ("wounded", 2),
        ("mauled", 2),
        ("crippled", 5),
        ("incapacitated", 0),
    ]


@pytest.mark.parametrize(
    ("filled", "name", "penalty"),
    [
        (0, "unhurt", 0),
        (1, "bruised", 0),
        (2, "hurt", 1),
        (3, "injured", 1),
        (4, "wounded", 2),
        (5, "mauled", 2),
        (6, "crippled", 5),
        (7, "incapacitated", 0),
    ],
)
def test_DMG_7_penalty_by_level(filled: int, name: str, penalty: int) -> None:
    t = track()
    t.take(filled, BASH)
    assert (t.level_name, t.penalty) == (name, penalty)
    assert t.status is (Status.INCAPACITATED if filled == 7 else Status.ACTIVE)


@pytest.mark.parametrize(
    ("damage", "marks"),
    [
        ([(1, BASH)], "/......"),
        ([(2, LETHAL)], "XX....."),
        ([(1, BASH), (1, LETHAL), (1, AGG)], "*X/...."),  # worst first, whatever the order
        ([(2, BASH), (1, AGG), (1, BASH)], "*///..."),
        ([(1, AGG), (2, LETHAL), (1, BASH)], "*XX/..."),
    ],
)
def test_DMG_7_marks_worst_damage_first(damage: list[tuple[int, DamageType]], marks: str) -> None:
    t = track()
    for n, dtype in damage:
        t.take(n, dtype)
    assert t.marks() == marks


@pytest.mark.parametrize(("wounds", "penalty"), [(0, 0), (2, 1), (4, 2), (6, 5)])
def test_DMG_7_wound_penalty_comes_off_attack_and_defense_pools(wounds: int, penalty: int) -> None:
    s = block("w", attrs={"dexterity": 4}, abil={"brawl": 3, "dodge": 2})
    me, foe = combatant(s), combatant(block("f"), 1, 1, 1.0)
    me.health.take(wounds, LETHAL)
    p = plan_attack(me, foe, "punch", load_tables(), load_rules("v20"))
    assert p is not None and p.pool == 7 - penalty
    assert defense_pool(me, DefenseKind.DODGE, 0) == 6 - penalty


def test_DMG_7_damage_event_reports_track_and_level() -> None:
    """DMG-7: a battle hit records the marks and level it leaves."""
    a = block("a", attrs={"dexterity": 3, "wits": 3, "strength": 3}, abil={"brawl": 2})
    t = block("t", attrs={"stamina": 1})
    # init; punch 5 dice (2 successes); damage 3 + 1 = 4 dice (3 successes); soak 1 die
    faces = [9, 2, 6, 7, 2, 2, 2, 6, 6, 6, 2, 2]
    b = battle([Fighter(a, 0, 0, 0), Fighter(t, 1, 1, 0)], faces)
    b.choose(ONE)
    b.choose(ONE)
    b.choose(attack("punch", 1))
    b.choose(NONE)
    (dmg,) = events(b, EventKind.DAMAGE)
    assert (dmg["who"], dmg["levels"], dmg["type"]) == (1, 3, "bashing")
    assert (dmg["track"], dmg["level"]) == ("///....", "injured")


# --- DMG-8 ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "damage", "status", "marks"),
    [
        # filling the last box: incapacitated (out of the fight)
        (Kind.MORTAL, [(7, BASH)], Status.INCAPACITATED, "///////"),
        (Kind.MORTAL, [(7, LETHAL)], Status.INCAPACITATED, "XXXXXXX"),
        # bashing past the track turns bashing into lethal first (Std)
        (Kind.MORTAL, [(9, BASH)], Status.INCAPACITATED, "XX/////"),
        (Kind.MORTAL, [(7, BASH), (7, BASH)], Status.INCAPACITATED, "XXXXXXX"),
        # then a mortal dies
        (Kind.MORTAL, [(7, BASH), (8, BASH)], Status.DEAD, "XXXXXXX"),
        (Kind.MORTAL, [(7, LETHAL), (1, LETHAL)], Status.DEAD, "XXXXXXX"),
        # lethal past a full track kills even with bashing on it (only bashing converts)
        (Kind.MORTAL, [(6, BASH), (1, LETHAL)], Status.INCAPACITATED, "X//////"),
        (Kind.MORTAL, [(6, BASH), (2, LETHAL)], Status.DEAD, "X//////"),
        (Kind.MORTAL, [(7, AGG), (1, BASH)], Status.DEAD, "*******"),
        # a vampire falls into torpor from bashing or lethal ...
        (Kind.VAMPIRE, [(7, LETHAL), (1, LETHAL)], Status.TORPOR, "XXXXXXX"),
        (Kind.VAMPIRE, [(7, LETHAL), (1, BASH)], Status.TORPOR, "XXXXXXX"),
        (Kind.VAMPIRE, [(7, BASH), (8, BASH)], Status.TORPOR, "XXXXXXX"),
        # ... and meets Final Death from aggravated
        (Kind.VAMPIRE, [(7, LETHAL), (1, AGG)], Status.DEAD, "XXXXXXX"),
        (Kind.VAMPIRE, [(8, LETHAL), (1, AGG)], Status.DEAD, "XXXXXXX"),
        (Kind.VAMPIRE, [(6, LETHAL)], Status.ACTIVE, "XXXXXX."),
    ],
)
def test_DMG_8_incapacitated_death_and_torpor(
    kind: Kind, damage: list[tuple[int, DamageType]], status: Status, marks: str
) -> None:
    t = track(kind)
    for n, dtype in damage:
        t.take(n, dtype)
    assert t.status is status
    assert t.marks() == marks
    assert t.status.out is (status is not Status.ACTIVE)


def test_DMG_8_incapacitated_combatant_is_out_and_the_battle_ends() -> None:
    """DMG-8: a knife strike that fills the mortal's track ends the fight."""
    a = block(
        "a", attrs={"dexterity": 3, "wits": 3, "strength": 6}, abil={"melee": 3}, weapons=["knife"]
    )
    t = block("t", attrs={"stamina": 3})
    # init; strike 6 dice, 2 successes; damage 6 + 1 + 1 = 8 dice, 7 successes; no soak
    faces = [9, 2, 6, 7, 2, 2, 2, 2, 6, 6, 6, 6, 6, 6, 6, 2]
    b = battle([Fighter(a, 0, 0, 0), Fighter(t, 1, 1, 0)], faces, turn_limit=3)
    b.choose(ONE)
    b.choose(ONE)
    b.choose(attack("weapon_strike", 1))
    assert b.pending is not None and b.pending.kind is DEFEND
    b.choose(NONE)
    assert b.pending is None
    victim = b.combatants[1]
    assert victim.health.status is Status.INCAPACITATED and not victim.active
    assert events(b, EventKind.STATUS, who=1) == [StatusEvent(1, Status.INCAPACITATED)]
    assert (b.winner, b.end_reason, b.turn) == (0, "victory", 1)


# --- DMG-9 ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("wounds", "yards"),
    [
        (0, 26.0),  # run: 20 + 3 x Dex 2
        (1, 26.0),  # bruised
        (2, 26.0),  # hurt
        (3, 13.0),  # injured: half the running speed
        (4, 13.0),  # wounded: cannot run: a jog (12 + Dex = 14), but never more than Injured
        (5, 3.0),  # mauled: hobbles 3 yards
        (6, 1.0),  # crippled: crawls 1 yard
        (7, 0.0),  # incapacitated
    ],
)
def test_DMG_9_movement_by_wound_level(wounds: int, yards: float) -> None:
    s = block("m", attrs={"dexterity": 2})
    b = battle([Fighter(s, 0, 0, 0), Fighter(block("f"), 1, 50, 0)], [5, 5])
    b.combatants[0].health.take(wounds, BASH)
    assert b.run_allowance(b.combatants[0]) == yards


def test_DMG_9_a_mauled_character_moves_only_3_yards() -> None:
    s = block("m", attrs={"dexterity": 2, "wits": 3})
    b = battle([Fighter(s, 0, 0, 0), Fighter(block("f"), 1, 50, 0)], [9, 2])
    b.combatants[0].health.take(5, LETHAL)
    b.choose(ONE)
    b.choose(ONE)
    assert b.pending is not None and (b.pending.kind, b.pending.actor) == (ACT, 0)
    toward = [o for o in b.pending.options if o.kind.value == "move" and not o.away]
    b.choose(toward[0])
    (move,) = events(b, EventKind.MOVE)
    assert move["yards"] == 3.0 and b.combatants[0].x == 3.0
