"""The battlefield with fixed dice: cover (RNG-1), dodging to cover (DEF-5), facing
(ATK-7), darkness (ATK-10) and walls that block the line of sight (ATK-2)."""

from __future__ import annotations

from typing import Any

import pytest
from rule_helpers import (
    ACT,
    DEFEND,
    FILLER,
    attack,
    battle_on,
    combatant,
    declare_all,
    events,
    offered_maneuvers,
    rolls,
    sheet,
    step,
    successes,
)

from vtm_sim.core.choices import AbortMethod, Declaration, Defense, DefenseKind
from vtm_sim.core.space import CoverLevel, CoverZone, Field, Lighting, Wall
from vtm_sim.data.stat_blocks import StatBlock
from vtm_sim.engine.battle import Battle, Fighter, flank_bonus
from vtm_sim.events import EventKind

NONE_, LIGHT, GOOD, SUPERIOR = (
    CoverLevel.NONE,
    CoverLevel.LIGHT,
    CoverLevel.GOOD,
    CoverLevel.SUPERIOR,
)


def gun(name: str = "g", **kw: Any) -> StatBlock:
    """Dexterity 3 + Firearms 3 with a heavy pistol (range 30); Brawl 2."""
    traits: dict[str, Any] = {"dexterity": 3, "wits": 3, "firearms": 3, "brawl": 2, "dodge": 2}
    traits.update(kw)
    return sheet(name, weapons=["heavy_pistol"], **traits)


def zone(name: str, x: float, level: CoverLevel, y: float = 0.0, r: float = 1.0) -> CoverZone:
    return CoverZone(name, x, y, r, level)


def two_on(
    field: Field,
    *,
    a: tuple[float, float] = (0, 0),
    t: tuple[float, float] = (10, 0),
    prone: tuple[bool, bool] = (False, False),
    faces: list[int] | None = None,
    turns: int = 1,
) -> Battle:
    fs = [
        Fighter(gun("a"), 0, a[0], a[1], prone=prone[0]),
        Fighter(gun("t"), 1, t[0], t[1], prone=prone[1]),
    ]
    return battle_on(fs, faces or [9, 1], field=field, turn_limit=turns)


def shot_diff(b: Battle, who: int, target: int) -> int | None:
    p = b.plan(who, attack("single_shot", target))
    return None if p is None else p.difficulty


# --- RNG-1: cover ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("target_cover", "shooter_cover", "mod"),
    [
        (NONE_, NONE_, 0),
        (LIGHT, NONE_, 1),
        (GOOD, NONE_, 2),
        (SUPERIOR, NONE_, 3),
        (NONE_, LIGHT, 0),  # firing from one's own cover: one less than it gives
        (NONE_, GOOD, 1),
        (NONE_, SUPERIOR, 2),
        (GOOD, GOOD, 2 + 1),  # both in cover: they add up
        (SUPERIOR, LIGHT, 3 + 0),
        (LIGHT, SUPERIOR, 1 + 2),
    ],
)
def test_RNG_1_cover_levels_and_the_shooters_own_cover(
    target_cover: CoverLevel, shooter_cover: CoverLevel, mod: int
) -> None:
    zones = [zone("a", 0, shooter_cover), zone("t", 10, target_cover)]
    field = Field(cover=tuple(z for z in zones if z.level is not NONE_))
    b = two_on(field)
    assert shot_diff(b, 0, 1) == 6 + mod


def test_RNG_1_seed_example_prone_against_behind_a_wall_is_plus_2_each_way() -> None:
    """RNG-1, seed 000: one lying on the ground, the other behind a wall: both fire at
    each other at +2 (light +1 for the prone, plus the wall's +2 less one)."""
    b = two_on(Field(cover=(zone("wall", 10, GOOD),)), prone=(True, False))
    assert shot_diff(b, 0, 1) == 6 + 2  # the wall's +2; prone costs its shooter nothing
    assert shot_diff(b, 1, 0) == 6 + 1 + 1  # light +1, firing from behind the wall +1


def test_RNG_1_no_cover_from_a_zone_the_attacker_stands_in() -> None:
    b = two_on(Field(cover=(zone("yard", 5, GOOD, r=6),)))
    assert shot_diff(b, 0, 1) == 6


def test_RNG_1_cover_does_not_hinder_close_combat() -> None:
    b = two_on(Field(cover=(zone("wall", 1, GOOD, r=0.5),)), t=(1, 0))
    p = b.plan(0, attack("punch", 1))
    assert p is not None and p.difficulty == 6
    assert shot_diff(b, 0, 1) == 4 + 2  # point blank, behind the wall


def test_ATK_2_a_wall_blocks_the_line_of_sight() -> None:
    b = two_on(Field(walls=(Wall(5, -3, 5, 3),)))
    declare_all(b)
    assert "single_shot" not in offered_maneuvers(b, 1)
    assert shot_diff(b, 0, 1) is None
    open_b = two_on(Field(walls=(Wall(5, 1, 5, 3),)))  # beside the line: no block
    assert shot_diff(open_b, 0, 1) == 6


# --- DEF-5: dodging fire reaches cover or drops prone ------------------------------------


def _two_shots(field: Field) -> Battle:
    """The shooter declares two shots (6 - 2 = 4 dice, then 3); the target aborts to a
    dodge (a Willpower point): the first shot scores 1, the dodge (5 dice) 1."""
    faces = [9, 1, *successes(1, 4), *successes(1, 5), *[FILLER] * 3]
    b = two_on(field, faces=faces)
    declare_all(b, {0: Declaration(actions=2)})
    step(b, ACT, 0, attack("single_shot", 1))
    step(b, DEFEND, 1, Defense(DefenseKind.DODGE, AbortMethod.WILLPOWER))
    step(b, ACT, 0, attack("single_shot", 1))  # the target spent its action on the dodge
    return b


def test_DEF_5_dodging_fire_with_cover_within_a_yard_reaches_it() -> None:
    """DEF-5: a wall whose edge is 0.8 yards away: the dodge ends behind it, standing;
    the next shot faces good cover (+2)."""
    b = _two_shots(Field(cover=(zone("wall", 10, GOOD, y=1.8),)))
    t = b.combatants[1]
    assert not t.prone
    assert (t.x, t.y) == (10.0, 1.8)
    assert events(b, EventKind.ACTION, action="dodge_to_cover")[0]["cover"] == "wall"
    first, second = rolls(b, "attack")
    assert (first["diff"], second["diff"]) == (6, 6 + 2)
    assert [r["pool"] for r in rolls(b, "dodge")] == [5]


def test_DEF_5_dodging_fire_with_no_cover_in_reach_drops_prone() -> None:
    """DEF-5: the wall is 2 yards off: the target drops prone (light cover, +1)."""
    b = _two_shots(Field(cover=(zone("wall", 10, GOOD, y=3.0),)))
    t = b.combatants[1]
    assert t.prone and (t.x, t.y) == (10.0, 0.0)
    first, second = rolls(b, "attack")
    assert (first["diff"], second["diff"]) == (6, 6 + 1)


def test_DEF_5_dodging_inside_cover_stays_put() -> None:
    b = _two_shots(Field(cover=(zone("wall", 10, GOOD),)))
    t = b.combatants[1]
    assert not t.prone and (t.x, t.y) == (10.0, 0.0)
    assert not events(b, EventKind.MOVE, who=1)
    assert [r["diff"] for r in rolls(b, "attack")] == [8, 8]


def test_DEF_5_dodging_a_punch_finds_no_cover() -> None:
    faces = [9, 1, *successes(1, 5), *successes(1, 5)]
    b = two_on(Field(cover=(zone("wall", 1, GOOD, y=1.8),)), t=(1, 0), faces=faces)
    declare_all(b)
    step(b, ACT, 0, attack("punch", 1))
    step(b, DEFEND, 1, Defense(DefenseKind.DODGE, AbortMethod.WILLPOWER))
    t = b.combatants[1]
    assert not t.prone and (t.x, t.y) == (1.0, 0.0)


# --- ATK-7: flank and rear ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("x", "y", "bonus"),
    [
        (1.0, 0.0, 0),  # in front
        (0.7, 0.7, 0),  # 45 degrees off: still the front
        (0.0, 1.0, 1),  # the side
        (0.0, -1.0, 1),
        (-0.3, 0.95, 1),  # just behind the side
        (-0.7, 0.7, 2),  # behind
        (-1.0, 0.0, 2),
    ],
)
def test_ATK_7_flank_plus_one_rear_plus_two_by_the_targets_facing(
    x: float, y: float, bonus: int
) -> None:
    t = combatant(sheet("t"), 1, 1)
    t.facing = (1.0, 0.0)
    a = combatant(sheet("a"), 0, 0, x, y)
    assert flank_bonus(a, t) == bonus


def test_ATK_7_in_battle_the_target_faces_its_nearest_foe() -> None:
    """ATK-7: the target faces the foe in front; a second foe behind gets +2 dice, a
    third at its side +1 (close attacks only)."""
    brawler = sheet("b", dexterity=3, wits=3, brawl=2)
    fs = [
        Fighter(sheet("t"), 1, 0, 0),
        Fighter(brawler, 0, 0.9, 0),  # in front (the nearest)
        Fighter(brawler, 0, -1, 0),  # behind
        Fighter(brawler, 0, 0, 1),  # at the side
    ]
    b = battle_on(fs, [1, 9, 8, 7])
    declare_all(b)
    pools = [b.plan(i, attack("punch", 0)) for i in (1, 2, 3)]
    assert [p.pool if p else None for p in pools] == [5, 5 + 2, 5 + 1]


@pytest.mark.parametrize(
    ("facing", "pool"), [((-1.0, 0.0), 5), ((0.0, 1.0), 5 + 1), ((1.0, 0.0), 5 + 2)]
)
def test_ATK_7_the_bonus_follows_where_the_target_faces(
    facing: tuple[float, float], pool: int
) -> None:
    brawler = sheet("b", dexterity=3, wits=3, brawl=2)
    b = battle_on([Fighter(brawler, 0, -1, 0), Fighter(sheet("t"), 1, 0, 0)], [9, 1])
    assert b.combatants[1].facing == (-1.0, 0.0)  # it faces its only foe
    b.combatants[1].facing = facing  # before the attacker's options are drawn up
    declare_all(b)
    p = b.plan(0, attack("punch", 1))
    assert p is not None and p.pool == pool


# --- ATK-10: darkness ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("lighting", "disc", "close_diff", "can_shoot"),
    [
        (Lighting.NORMAL, {}, 6, True),
        (Lighting.DARK, {}, 8, False),
        (Lighting.DARK, {"auspex": 1}, 6, True),  # Heightened Senses
        (Lighting.DARK, {"protean": 1}, 6, True),  # Eyes of the Beast
        (Lighting.DARK, {"celerity": 2}, 8, False),
    ],
)
def test_ATK_10_darkness_plus_two_close_and_no_shooting(
    lighting: Lighting, disc: dict[str, int], close_diff: int, can_shoot: bool
) -> None:
    a = sheet(
        "a",
        kind="vampire",
        dexterity=3,
        wits=3,
        brawl=2,
        firearms=2,
        weapons=["heavy_pistol"],
        **disc,
    )
    fs = [Fighter(a, 0, 0, 0), Fighter(sheet("t"), 1, 1, 0)]
    b = battle_on(fs, [9, 1], field=Field(lighting=lighting))
    declare_all(b)
    p = b.plan(0, attack("punch", 1))
    assert p is not None and p.difficulty == close_diff
    assert ("single_shot" in offered_maneuvers(b, 1)) is can_shoot
    assert ("punch" in offered_maneuvers(b, 1)) is True
