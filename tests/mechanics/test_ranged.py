"""Ranged combat with fixed dice: RNG-2..10 (cover, RNG-1, is in test_space.py).

Shooters stand at the origin, targets on the x axis; distances are in yards.
"""

from __future__ import annotations

from typing import Any

import pytest
from rule_helpers import (
    ACT,
    DEFEND,
    FILLER,
    NONE,
    PASS,
    attack,
    battle,
    battle_on,
    combatant,
    declare_all,
    events,
    offered,
    offered_kinds,
    offered_maneuvers,
    rolls,
    sheet,
    single_roll,
    skip_blood,
    step,
    successes,
)

from vtm_sim.core.choices import (
    AbortMethod,
    Action,
    ActionKind,
    CalledShot,
    Declaration,
    Defense,
    DefenseKind,
)
from vtm_sim.data.rules import RuleSet, load_rules
from vtm_sim.data.stat_blocks import StatBlock
from vtm_sim.data.tables import load_tables
from vtm_sim.engine.battle import Fighter
from vtm_sim.events import EventKind
from vtm_sim.mechanics.attack import ammo_needed, plan_attack, range_modifier

V20 = load_rules("v20")
T002 = load_rules("v20").model_copy(update={"called_shot_table": "002"})
SHOTS = V20.model_copy(update={"rate_of_fire_counts": "shots"})  # RNG-4: published V20
FIREARMS = {"single_shot", "burst", "full_auto", "spray"}
TABLES = load_tables()
AIM = ActionKind.AIM


def gunman(*weapons: str, **kw: Any) -> StatBlock:
    """Dexterity 4 + Firearms 3 = 7 dice (Wits 3, Perception 3)."""
    traits: dict[str, Any] = {"dexterity": 4, "wits": 3, "perception": 3, "firearms": 3}
    traits.update(kw)
    return sheet("gunman", weapons=list(weapons), **traits)


def plan_at(shooter: StatBlock, maneuver: str, distance: float = 10.0, **kw: Any) -> Any:
    a, t = combatant(shooter), combatant(sheet("t"), 1, 1, distance)
    return plan_attack(a, t, maneuver, TABLES, kw.pop("rules", V20), **kw)


def shootout(shooter: StatBlock, distance: float, faces: list[int], **kw: Any) -> Any:
    """The shooter (id 0) acts first; the target (id 1) is a plain mortal."""
    declare = kw.pop("declare", None)
    b = battle_on([Fighter(shooter, 0, 0, 0), Fighter(sheet("t"), 1, distance, 0)], faces, **kw)
    declare_all(b, declare)
    return b


# --- RNG-2: range bands ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("distance", "diff"),
    [
        (1.0, 4),  # point blank
        (2.0, 4),
        (2.5, 6),  # short: up to the listed 20 yards
        (20.0, 6),
        (20.5, 8),  # maximum: up to twice the range
        (40.0, 8),
        (40.5, None),  # beyond: no shot
    ],
)
def test_RNG_2_range_bands(distance: float, diff: int | None) -> None:
    """RNG-2: light pistol, range 20: point blank 4, short 6, maximum 8, beyond none."""
    pistol = TABLES.weapon("light_pistol")
    mod = range_modifier(pistol, distance)
    assert (None if mod is None else 6 + mod) == diff
    p = plan_at(gunman("light_pistol"), "single_shot", distance)
    assert (None if p is None else p.difficulty) == diff


@pytest.mark.parametrize(("distance", "offered_shot"), [(40.0, True), (41.0, False)])
def test_RNG_2_no_shot_offered_beyond_twice_the_range(distance: float, offered_shot: bool) -> None:
    b = shootout(gunman("light_pistol"), distance, [9, 1])
    assert ("single_shot" in offered_maneuvers(b, 1)) is offered_shot


# --- RNG-3: burst ----------------------------------------------------------------------


def test_RNG_3_burst_two_dice_one_difficulty_three_rounds() -> None:
    single = plan_at(gunman("small_smg"), "single_shot")
    burst = plan_at(gunman("small_smg"), "burst")
    assert (single.pool, single.difficulty, single.rounds) == (7, 6, 1)
    assert (burst.pool, burst.difficulty, burst.rounds) == (7 + 2, 6 + 1, 3)
    assert burst.damage_base == single.damage_base == 4


@pytest.mark.parametrize("weapon", ["light_pistol", "heavy_revolver", "rifle", "shotgun"])
def test_RNG_3_burst_only_with_weapons_marked_for_autofire(weapon: str) -> None:
    assert plan_at(gunman(weapon), "burst") is None
    assert plan_at(gunman(weapon), "single_shot") is not None


def test_RNG_3_burst_needs_three_rounds() -> None:
    a, t = combatant(gunman("small_smg")), combatant(sheet("t"), 1, 1, 10.0)
    a.ammo[0] = 2
    assert plan_attack(a, t, "burst", TABLES, V20) is None
    assert plan_attack(a, t, "single_shot", TABLES, V20) is not None


# --- RNG-4: multiple shots -------------------------------------------------------------


def test_RNG_4_multiple_shots_take_the_multiple_action_penalty_one_damage_roll_each() -> None:
    """RNG-4: three declared shots with a light revolver (rate 3): 7 - 3, 7 - 4, 7 - 5
    dice; each bullet that hits has its own damage roll (4 dice)."""
    faces = [9, 1, *successes(1, 4), *[FILLER] * 4]
    faces += [*successes(1, 3), *[FILLER] * 4, *successes(0, 2)]
    b = shootout(gunman("light_revolver"), 10, faces, declare={0: Declaration(actions=3)})
    step(b, ACT, 0, attack("single_shot", 1))
    step(b, DEFEND, 1, NONE)
    step(b, ACT, 1, PASS)
    step(b, ACT, 0, attack("single_shot", 1))
    step(b, ACT, 0, attack("single_shot", 1))
    assert [r["pool"] for r in rolls(b, "attack")] == [4, 3, 2]
    assert [r["pool"] for r in rolls(b, "damage")] == [4, 4]  # two hits, two damage rolls
    assert b.combatants[0].ammo[0] == 6 - 3


def test_RNG_4_no_more_shots_than_the_rate() -> None:
    """RNG-4: a heavy revolver fires 2 a turn; a third declared action cannot shoot."""
    faces = [9, 1, *[FILLER] * 4, *[FILLER] * 3]
    b = shootout(gunman("heavy_revolver"), 10, faces, declare={0: Declaration(actions=3)})
    step(b, ACT, 0, attack("single_shot", 1))
    step(b, DEFEND, 1, NONE)
    step(b, ACT, 1, PASS)
    step(b, ACT, 0, attack("single_shot", 1))
    assert b.pending is not None and b.pending.actor == 0
    assert "single_shot" not in offered_maneuvers(b)
    assert ActionKind.RELOAD in offered_kinds(b)  # it may still do something else
    assert b.combatants[0].ammo[0] == 4


def _three_actions(weapon: str, rules: RuleSet = V20) -> Any:
    """Three declared actions with ``weapon``; every attack misses (no defense rolls)."""
    return shootout(gunman(weapon), 10, [9, 1, *[FILLER] * 60],
                    declare={0: Declaration(actions=3)}, rules_set=rules)


def _fire(b: Any, maneuver: str, first: bool = False) -> None:
    step(b, ACT, 0, attack(maneuver, 1))
    if first:
        step(b, DEFEND, 1, NONE)
        step(b, ACT, 1, PASS)


def test_RNG_4_a_burst_spends_three_rounds_of_the_rate() -> None:
    """RNG-4 (default `rate_of_fire_counts: rounds`; 000: "the shooter may fire at most
    the number of rounds a turn that the weapon's rate of fire gives"): an AK-47 (rate 3)
    fires one burst a turn and nothing more; after one single shot a burst (3 more
    rounds) is not offered, a second and a third shot are."""
    b = _three_actions("ak47")
    _fire(b, "burst", first=True)
    assert not offered_maneuvers(b) & FIREARMS
    assert ActionKind.RELOAD in offered_kinds(b)
    assert b.combatants[0].ammo[0] == 31 - 3
    b = _three_actions("ak47")
    _fire(b, "single_shot", first=True)
    assert offered_maneuvers(b) & FIREARMS == {"single_shot"}
    _fire(b, "single_shot")
    assert offered_maneuvers(b) & FIREARMS == {"single_shot"}
    _fire(b, "single_shot")
    assert b.combatants[0].ammo[0] == 31 - 3


def test_RNG_4_autofire_takes_the_weapon_s_whole_turn() -> None:
    """RNG-4 / RNG-5 / RNG-6 under `rounds`: full auto and spray fire more rounds than any
    rate, so they are read as the weapon's whole turn of fire: only when it has not fired
    yet this turn, and nothing more after them, even once reloaded."""
    b = _three_actions("ak47")
    _fire(b, "single_shot", first=True)
    assert not offered_maneuvers(b) & {"full_auto", "spray"}
    faces = [9, 1, *[FILLER] * (17 - 3), *[9] * 10]  # a missed full auto, then a reload roll
    b = shootout(gunman("ak47"), 10, faces, declare={0: Declaration(actions=3)})
    _fire(b, "full_auto", first=True)
    step(b, ACT, 0, Action(ActionKind.RELOAD))
    assert b.combatants[0].ammo[0] == 31
    assert not offered_maneuvers(b) & FIREARMS


def test_RNG_4_shots_option_counts_each_burst_as_one_shot() -> None:
    """RNG-4 with `rate_of_fire_counts: shots` (the published V20 reading): three AK-47
    bursts in one turn at rate 3, 9 rounds; autofire is one shot too."""
    b = _three_actions("ak47", SHOTS)
    _fire(b, "burst", first=True)
    assert offered_maneuvers(b) & FIREARMS == FIREARMS
    _fire(b, "burst")
    _fire(b, "burst")
    assert [r["pool"] for r in rolls(b, "attack")] == [9 - 3, 9 - 4, 9 - 5]
    assert b.combatants[0].ammo[0] == 31 - 9
    b = _three_actions("ak47", SHOTS)
    _fire(b, "single_shot", first=True)
    _fire(b, "single_shot")
    assert {"full_auto", "spray"} <= offered_maneuvers(b)
    faces = [9, 1, *[FILLER] * (17 - 3), *[9] * 10]  # a missed full auto, then a reload roll
    b = shootout(gunman("ak47"), 10, faces, declare={0: Declaration(actions=3)},
                 rules_set=SHOTS)
    _fire(b, "full_auto", first=True)
    step(b, ACT, 0, Action(ActionKind.RELOAD))
    assert offered_maneuvers(b) & FIREARMS == FIREARMS  # reloaded: a second shot of three


@pytest.mark.parametrize("rules", [V20, SHOTS], ids=["rounds", "shots"])
def test_RNG_4_single_shot_weapons_fire_up_to_the_rate_under_either_option(
    rules: RuleSet,
) -> None:
    """RNG-4: a heavy revolver (rate 2) fires twice whichever way the rate counts."""
    b = _three_actions("heavy_revolver", rules)
    _fire(b, "single_shot", first=True)
    _fire(b, "single_shot")
    assert "single_shot" not in offered_maneuvers(b)
    assert b.combatants[0].ammo[0] == 6 - 2


# --- RNG-5: full auto --------------------------------------------------------------------


def test_RNG_5_seed_example_nikolai_empties_his_ak47_into_the_elder() -> None:
    """RNG-5, seed 000: Dex 4 + Firearms 3 + 10 = 17 dice at difficulty 8 (short range,
    +2 for the recoil); 6 successes, the elder does not dodge; 7 + 5 = 12 damage dice;
    the magazine is then empty. The stat block is the example's: no armor."""
    nikolai = sheet("Nikolai", kind="vampire", dexterity=4, firearms=3, wits=3, weapons=["ak47"])
    elder = sheet("Elder", kind="vampire", generation=6, stamina=3)
    faces = [9, 1, *successes(6, 17), *[FILLER] * 12, 9, 1]
    b = battle([Fighter(nikolai, 0, 0, 0), Fighter(elder, 1, 30, 0)], faces, turn_limit=2)
    declare_all(b)
    step(b, ACT, 0, attack("full_auto", 1))
    step(b, DEFEND, 1, NONE)
    r = single_roll(b, "attack")
    assert (r["pool"], r["diff"], r["succ"]) == (17, 8, 6)
    assert single_roll(b, "damage")["pool"] == 12
    (ammo,) = events(b, EventKind.AMMO)
    assert (ammo["spent"], ammo["left"]) == (31, 0)
    assert b.combatants[0].ammo[0] == 0
    step(b, ACT, 1, PASS)
    declare_all(b)
    assert not offered_maneuvers(b, 1) & {"single_shot", "burst", "full_auto", "spray"}
    assert ActionKind.RELOAD in offered_kinds(b)


@pytest.mark.parametrize(
    ("ammo", "allowed"), [(31, True), (16, True), (15, False), (1, False), (0, False)]
)
def test_RNG_5_full_auto_only_with_the_magazine_at_least_half_full(
    ammo: int, allowed: bool
) -> None:
    a, t = combatant(gunman("ak47")), combatant(sheet("t"), 1, 1, 10.0)
    a.ammo[0] = ammo
    p = plan_attack(a, t, "full_auto", TABLES, V20)
    assert (p is not None) is allowed
    if p is not None:
        assert (p.pool, p.difficulty, p.rounds) == (7 + 10, 6 + 2, ammo)
    assert ammo_needed(TABLES.weapon("ak47"), TABLES.maneuvers["full_auto"], ammo) == (
        ammo if allowed else None
    )


@pytest.mark.parametrize("maneuver", ["full_auto", "spray"])
def test_RNG_5_RNG_6_no_called_shot_with_autofire(maneuver: str) -> None:
    for size in CalledShot:
        assert plan_at(gunman("ak47"), maneuver, called=size) is None
    assert plan_at(gunman("ak47"), maneuver) is not None
    b = shootout(gunman("ak47"), 10, [9, 1])
    called = [
        o
        for o in offered(b)
        if isinstance(o, Action) and o.maneuver == maneuver and o.called is not None
    ]
    assert called == []
    assert attack(maneuver, 1) in offered(b)


@pytest.mark.parametrize("weapon", ["light_pistol", "rifle", "semi_auto_shotgun"])
def test_RNG_5_full_auto_only_with_autofire_weapons(weapon: str) -> None:
    assert plan_at(gunman(weapon), "full_auto") is None
    assert plan_at(gunman(weapon), "spray") is None


# --- RNG-6: spray ------------------------------------------------------------------------


def sprayer() -> StatBlock:
    """Dex 3 + Firearms 2 + 10 = 15 dice at difficulty 8; small SMG: 4 damage dice."""
    return sheet("sprayer", dexterity=3, wits=3, firearms=2, weapons=["small_smg"])


def _spray(ys: list[float], hits: int, defenses: list[Any] | None = None) -> Any:
    """Targets at x = 10 and the given y (the first is aimed at); one at y = 3 stands
    outside the 3-yard area."""
    fighters = [Fighter(sprayer(), 0, 0, 0)]
    fighters += [Fighter(sheet(f"t{i}", dodge=2), 1, 10, y) for i, y in enumerate([*ys, 3.0])]
    n = len(fighters)
    faces = [9, *[1] * (n - 1), *successes(hits, 15), *[FILLER] * 200]
    b = battle(fighters, faces)
    declare_all(b)
    step(b, ACT, 0, attack("spray", 1))
    for i, d in enumerate([NONE] * len(ys) if defenses is None else defenses):
        step(b, DEFEND, 1 + i, d)
    return b


@pytest.mark.parametrize(
    ("ys", "hits", "shares"),
    [
        ([0.0, 1.0, -1.4], 7, [3, 2, 2]),  # even split; the rest where the shooter aims
        ([0.0, 1.0, -1.4], 6, [2, 2, 2]),
        ([0.0, 1.0, -1.4], 2, [1, 1, 0]),  # fewer successes than targets: one each
        ([0.0, 1.0], 6, [3, 3]),
        ([0.0], 7, [3]),  # a lone target gets half
        ([0.0], 6, [3]),
    ],
)
def test_RNG_6_spray_splits_successes_among_the_targets(
    ys: list[float], hits: int, shares: list[int]
) -> None:
    """RNG-6: one roll at +10 dice, +2 difficulty over an area 3 yards wide; each
    target's share is added to its damage pool (4 dice)."""
    b = _spray(ys, hits)
    r = single_roll(b, "attack")
    assert (r["pool"], r["diff"], r["succ"]) == (15, 8, hits)
    (ev,) = events(b, EventKind.ACTION, action="spray")
    assert ev["targets"] == list(range(1, len(ys) + 1))  # not the one 3 yards off
    assert ev["shares"] == shares
    assert [r["pool"] for r in rolls(b, "damage")] == [4 + s for s in shares if s]
    assert [e["target"] for e in events(b, EventKind.HIT)] == [
        1 + i for i, s in enumerate(shares) if s
    ]
    assert b.combatants[0].ammo[0] == 0  # empties the magazine


def test_RNG_6_dodging_spray_is_one_harder_and_the_only_defense() -> None:
    b = _spray([0.0, 1.0], 6, defenses=[])
    d = b.pending
    assert d is not None and (d.kind, d.actor) == (DEFEND, 1)
    assert {o.kind for o in d.options} == {DefenseKind.NONE, DefenseKind.DODGE}  # type: ignore[union-attr]
    step(b, DEFEND, 1, Defense(DefenseKind.DODGE, AbortMethod.WILLPOWER))
    step(b, DEFEND, 2, NONE)
    dodge = single_roll(b, "dodge", 1)
    assert (dodge["pool"], dodge["diff"]) == (1 + 2, 6 + 1)


@pytest.mark.parametrize("ammo", [31, 15, 1])
def test_RNG_6_spray_needs_only_a_loaded_magazine(ammo: int) -> None:
    """RNG-6: 000 puts "only with the magazine at least half full" on full auto alone;
    spray fires whatever is left (RNG-10), so 15 of 31 rounds or even 1 will do."""
    a, t = combatant(sprayer()), combatant(sheet("t"), 1, 1, 10.0)
    a.ammo[0] = ammo
    p = plan_attack(a, t, "spray", TABLES, V20)
    assert p is not None and p.rounds == ammo
    full_auto = plan_attack(a, t, "full_auto", TABLES, V20)
    assert (full_auto is not None) is (2 * ammo >= 31)  # RNG-5 keeps the condition
    a.ammo[0] = 0
    assert plan_attack(a, t, "spray", TABLES, V20) is None


# --- RNG-7: aiming -------------------------------------------------------------------------


def _aim_then_fire(shooter: StatBlock, aims: int, between: list[Action] | None = None) -> Any:
    """Aim at the target for ``aims`` turns (then any ``between`` actions, one a turn),
    then fire; returns the battle after the shot."""
    turns = aims + len(between or []) + 1
    faces = [*[9, 1] * turns, *[FILLER] * 30]
    b = battle([Fighter(shooter, 0, 0, 0), Fighter(sheet("t"), 1, 10, 0)], faces, turn_limit=turns)
    for _ in range(aims):
        declare_all(b)
        step(b, ACT, 0, Action(AIM, target=1))
        step(b, ACT, 1, PASS)
    for act in between or []:
        declare_all(b)
        step(b, ACT, 0, act)
        step(b, ACT, 1, PASS)
    declare_all(b)
    step(b, ACT, 0, attack("single_shot", 1))
    step(b, DEFEND, 1, NONE)
    return b


@pytest.mark.parametrize(
    ("aims", "perception", "weapon", "bonus"),
    [
        (0, 2, "heavy_pistol", 0),
        (1, 2, "heavy_pistol", 1),
        (2, 2, "heavy_pistol", 2),
        (3, 2, "heavy_pistol", 2),  # at most Perception
        (3, 1, "heavy_pistol", 1),
        (1, 2, "sniper_rifle", 1 + 2),  # a scope adds 2
        (3, 2, "sniper_rifle", 2 + 2),
    ],
)
def test_RNG_7_each_turn_aiming_adds_a_die_up_to_perception(
    aims: int, perception: int, weapon: str, bonus: int
) -> None:
    s = gunman(weapon, dexterity=3, firearms=2, perception=perception)
    b = _aim_then_fire(s, aims)
    assert single_roll(b, "attack")["pool"] == 5 + bonus
    assert b.combatants[0].aim_dice == 0  # spent by the shot


@pytest.mark.parametrize(
    "other", [PASS, Action(ActionKind.DROP_PRONE), Action(ActionKind.MOVE, target=1)]
)
def test_RNG_7_aim_is_lost_when_doing_anything_else(other: Action) -> None:
    """RNG-7: two turns of aiming, then a turn doing something else: no aim dice."""
    s = gunman("heavy_pistol", dexterity=3, firearms=2, perception=3)
    b = _aim_then_fire(s, 2, between=[other])
    assert single_roll(b, "attack")["pool"] == 5


@pytest.mark.parametrize(
    ("firearms", "actions", "can_aim"),
    [(1, 1, True), (0, 1, False), (2, 2, False)],  # needs Firearms; a whole turn
)
def test_RNG_7_aiming_needs_firearms_and_the_whole_turn(
    firearms: int, actions: int, can_aim: bool
) -> None:
    s = gunman("heavy_pistol", firearms=firearms)
    b = shootout(s, 10, [9, 1], declare={0: Declaration(actions=actions)})
    assert (Action(AIM, target=1) in offered(b)) is can_aim


@pytest.mark.parametrize(("target_moves", "can_aim"), [(False, True), (True, False)])
def test_RNG_7_no_aiming_at_a_target_running_faster_than_a_walk(
    target_moves: bool, can_aim: bool
) -> None:
    """RNG-7: the target acts first and runs 23 yards away (Dex 1): no aiming at it."""
    b = battle([Fighter(gunman("heavy_pistol"), 0, 0, 0), Fighter(sheet("t"), 1, 10, 0)], [1, 9])
    declare_all(b)
    step(b, ACT, 1, Action(ActionKind.MOVE, target=0, away=True) if target_moves else PASS)
    assert (b.combatants[1].moved > 7) is target_moves
    assert b.pending is not None and b.pending.actor == 0
    assert (Action(AIM, target=1) in offered(b)) is can_aim
    assert "single_shot" in offered_maneuvers(b, 1)  # a plain shot is still possible


# --- RNG-8: called shots ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rules", "size", "diff", "bonus"),
    [
        (V20, CalledShot.MEDIUM, 1, 1),
        (V20, CalledShot.SMALL, 2, 2),
        (V20, CalledShot.TINY, 3, 4),
        (T002, CalledShot.MEDIUM, 1, 0),
        (T002, CalledShot.SMALL, 2, 1),
        (T002, CalledShot.TINY, 3, 2),
    ],
)
def test_RNG_8_called_shot_tables(rules: RuleSet, size: CalledShot, diff: int, bonus: int) -> None:
    """RNG-8: 000's table (v20 default) and 002's, picked by ``called_shot_table``."""
    plain = plan_at(gunman("heavy_pistol"), "single_shot", rules=rules)
    called = plan_at(gunman("heavy_pistol"), "single_shot", rules=rules, called=size)
    assert (called.difficulty, called.damage_base) == (6 + diff, 5 + bonus)
    assert (plain.difficulty, plain.damage_base) == (6, 5)
    punch = plan_at(gunman(strength=2, brawl=2), "punch", 1.0, rules=rules, called=size)
    assert (punch.difficulty, punch.damage_base) == (6 + diff, 2 + bonus)


def test_RNG_8_called_shot_in_battle_with_the_002_table() -> None:
    """RNG-8: a called shot at a head (small) under 002: difficulty 8, damage 5 + 1."""
    faces = [9, 1, *successes(1, 7, 8), *[FILLER] * 6]
    b = battle_on(
        [Fighter(gunman("heavy_pistol"), 0, 0, 0), Fighter(sheet("t"), 1, 10, 0)],
        faces,
        rules_set=T002,
    )
    declare_all(b)
    shot = Action(ActionKind.ATTACK, "single_shot", 1, called=CalledShot.SMALL)
    assert shot in offered(b)
    step(b, ACT, 0, shot)
    step(b, DEFEND, 1, NONE)
    assert single_roll(b, "attack")["diff"] == 8
    assert single_roll(b, "damage")["pool"] == 6
    assert events(b, EventKind.ATTACK)[0]["called"] == "small"


# --- RNG-11: called shots that pierce armor or reach a hidden target --------------------

NO_PIERCE = V20.model_copy(update={"called_shot_pierces": False})


@pytest.mark.parametrize(
    ("rules", "armor", "size", "soak"),
    [
        (V20, "kevlar_vest", None, 2 + 3),  # a plain shot: Stamina + the vest
        (V20, "kevlar_vest", CalledShot.MEDIUM, 2),  # a limb: the vest leaves it bare
        (V20, "kevlar_vest", CalledShot.TINY, 2),  # an eye
        (V20, "riot_gear", CalledShot.SMALL, 2 + 5),  # helmet and visor: covered
        (V20, "reinforced_clothing", CalledShot.MEDIUM, 2 + 1),  # sleeves cover the limbs
        (V20, "reinforced_clothing", CalledShot.SMALL, 2),  # not the head
        (NO_PIERCE, "kevlar_vest", CalledShot.MEDIUM, 2 + 3),  # the option off
    ],
)
def test_RNG_11_called_shot_pierces_the_armor_it_aims_past(
        rules: RuleSet, armor: str, size: CalledShot | None, soak: int) -> None:
    """RNG-11 (000: «такой выстрел может пробить броню», such a shot can pierce armor):
    a called shot at a size the armor does not cover everywhere (``covers`` in
    configs/armor.yaml) ignores its soak; ``called_shot_pierces`` off: never."""
    from vtm_sim.data.tables import DamageType
    from vtm_sim.mechanics.attack import pierces, soak_pool

    a = combatant(gunman(strength=2, brawl=2))
    t = combatant(sheet("t", stamina=2, armor=armor), 1, 1, 1.0)
    p = plan_attack(a, t, "punch", TABLES, rules, called=size)
    assert p is not None
    pool = soak_pool(t, DamageType.BASHING, rules, pierced=pierces(p, t, rules))
    assert pool == soak


def test_RNG_11_a_pierced_armor_is_not_broken_and_the_soak_roll_skips_it() -> None:
    """RNG-11 in battle: a called punch at a vest-wearer's arm: the soak roll has Stamina's
    dice only, and 6 damage successes (twice the vest's 3, SOAK-5) do not break it."""
    t = sheet("t", stamina=2, armor="kevlar_vest")
    a = gunman(strength=5, brawl=3)
    # init; punch 7 dice at 7: 2 successes; damage 5 + 1 (called) + 1 = 7 dice: 6; soak 2
    faces = [9, 1, *successes(2, 7), *successes(6, 7), FILLER, FILLER]
    b = battle_on([Fighter(a, 0, 0, 0), Fighter(t, 1, 1, 0)], faces)
    declare_all(b)
    step(b, ACT, 0, Action(ActionKind.ATTACK, "punch", 1, called=CalledShot.MEDIUM))
    assert single_roll(b, "soak")["pool"] == 2
    assert b.combatants[1].armor_rating == 3
    assert not events(b, EventKind.ARMOR)


@pytest.mark.parametrize(
    ("rules", "level", "size", "diff"),
    [
        (V20, 2, None, 8),  # behind a wall: +2
        (V20, 2, CalledShot.MEDIUM, 9),  # +1 is less than the wall's: the cover stays
        (V20, 2, CalledShot.SMALL, 8),  # the head over the wall: +2 in place of +2 + 2
        (V20, 3, CalledShot.TINY, 9),  # superior cover: the eye at +3, not 3 + 3
        (V20, 1, CalledShot.MEDIUM, 7),  # prone-like light cover: +1 for +1
        (NO_PIERCE, 2, CalledShot.SMALL, 10),  # the option off: both add
    ],
)
def test_RNG_11_called_shot_reaches_the_part_that_shows_from_cover(
        rules: RuleSet, level: int, size: CalledShot | None, diff: int) -> None:
    """RNG-11 (000: «или попасть по скрывающейся цели», or hit a target that hides): a
    called shot at least as hard as the cover takes its own difficulty for the cover's."""
    from vtm_sim.core.space import CoverLevel, CoverZone, Field

    field = Field(cover=(CoverZone("wall", 10, 0, 1.0, CoverLevel(level)),))
    b = battle_on([Fighter(gunman("heavy_pistol"), 0, 0, 0), Fighter(sheet("t"), 1, 10, 0)],
                  [9, 1], rules_set=rules, field=field)
    declare_all(b)
    p = b.plan(0, Action(ActionKind.ATTACK, "single_shot", 1, called=size))
    assert p is not None and p.difficulty == diff


# --- RNG-9: two weapons ------------------------------------------------------------------


@pytest.mark.parametrize(("merits", "offhand_diff"), [([], 7), (["ambidextrous"], 6)])
def test_RNG_9_off_hand_is_one_harder_unless_ambidextrous(
    merits: list[str], offhand_diff: int
) -> None:
    s = gunman("heavy_revolver", "light_pistol", merits=merits)
    main = plan_at(s, "single_shot")
    off = plan_at(s, "single_shot", offhand=True)
    assert (main.difficulty, main.weapon.name) == (6, "heavy_revolver")
    assert (off.difficulty, off.weapon.name) == (offhand_diff, "light_pistol")


def test_RNG_9_no_off_hand_with_a_two_handed_weapon() -> None:
    assert plan_at(gunman("rifle", "light_pistol"), "single_shot", offhand=True) is None


def test_RNG_9_each_weapon_fires_up_to_its_own_rate() -> None:
    """RNG-9: two heavy revolvers (rate 2 each), four declared actions (Dex 4 + Firearms
    4 = 8 dice): two shots from the main hand, then only the off hand may fire, at +1
    difficulty."""
    s = gunman("heavy_revolver", "heavy_revolver", firearms=4)
    faces = [9, 1, *[FILLER] * (4 + 3 + 2 + 1)]
    b = shootout(s, 10, faces, declare={0: Declaration(actions=4)})
    off = Action(ActionKind.ATTACK, "single_shot", 1, offhand=True)
    main = attack("single_shot", 1)
    step(b, ACT, 0, main)
    step(b, DEFEND, 1, NONE)
    step(b, ACT, 1, PASS)
    step(b, ACT, 0, main)
    assert main not in offered(b) and off in offered(b)
    step(b, ACT, 0, off)
    step(b, ACT, 0, off)
    assert [(r["pool"], r["diff"]) for r in rolls(b, "attack")] == [
        (4, 6),
        (3, 6),
        (2, 7),
        (1, 7),
    ]
    assert b.combatants[0].ammo == [4, 4]


# --- RNG-10: ammunition ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("weapon", "maneuver", "spent", "left"),
    [
        ("heavy_revolver", "single_shot", 1, 5),
        ("small_smg", "burst", 3, 28),
        ("small_smg", "full_auto", 31, 0),
        ("small_smg", "spray", 31, 0),
    ],
)
def test_RNG_10_rounds_spent_per_maneuver(
    weapon: str, maneuver: str, spent: int, left: int
) -> None:
    b = shootout(gunman(weapon), 10, [9, 1, *[FILLER] * 20])
    step(b, ACT, 0, attack(maneuver, 1))
    step(b, DEFEND, 1, NONE)
    (ev,) = events(b, EventKind.AMMO)
    assert (ev["spent"], ev["left"]) == (spent, left)
    assert b.combatants[0].ammo[0] == left


def test_RNG_10_empty_weapon_cannot_fire_until_reloaded() -> None:
    b = battle(
        [Fighter(gunman("heavy_revolver"), 0, 0, 0), Fighter(sheet("t"), 1, 10, 0)],
        [9, 1, 9, 1, *[FILLER] * 7],
        turn_limit=2,
    )
    b.combatants[0].ammo[0] = 0
    declare_all(b)
    assert "single_shot" not in offered_maneuvers(b)
    step(b, ACT, 0, Action(ActionKind.RELOAD))
    step(b, ACT, 1, PASS)
    declare_all(b)
    step(b, ACT, 0, attack("single_shot", 1))
    step(b, DEFEND, 1, NONE)
    assert b.combatants[0].ammo[0] == 5


def test_RNG_10_thrown_weapon_leaves_the_hand() -> None:
    """RNG-10: a thrown knife is gone after the throw (Dex 4 + Athletics 2 - 2 actions);
    the club can be drawn (ACT-5)."""
    s = sheet("thrower", dexterity=4, wits=3, athletics=2, weapons=["throwing_knife", "club"])
    b = shootout(s, 5, [9, 1, *[FILLER] * 4], declare={0: Declaration(actions=2)})
    step(b, ACT, 0, attack("thrown", 1))
    step(b, DEFEND, 1, NONE)
    assert single_roll(b, "attack")["pool"] == 4
    c = b.combatants[0]
    assert c.lost[0] and c.wielding == -1
    (ev,) = events(b, EventKind.AMMO)
    assert (ev["weapon"], ev["spent"]) == ("throwing_knife", 1)
    step(b, ACT, 1, PASS)
    skip_blood(b)
    assert "thrown" not in offered_maneuvers(b)
    assert Action(ActionKind.DRAW, weapon=1) in offered(b)
    assert Action(ActionKind.DRAW, weapon=0) not in offered(b)
