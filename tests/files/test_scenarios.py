"""The scenario library: every shipped scenario loads, plays and replays.

Each scenario in ``configs/scenarios`` is played over seeded battles with a
mix of random and rule-of-thumb policies. After every decision the state must
keep its invariants (DMG-7 health within the track, RNG-10 ammunition and
VAMP-1 blood never negative, CPX-2/CPX-5 no action while stunned or staked,
DMG-8 none while out, except INIT-3's simultaneous group), and every log must
replay event for event (DICE-9). Across the library, random play must offer
and use every maneuver the engine knows (MAN-*, RNG-*). Broken scenario files
fail with a ConfigError naming the file and the key.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import numpy as np
import pytest

from vtm_sim.core.choices import Action, ActionKind, DecisionKind
from vtm_sim.data.tables import WeaponClass, load_tables
from vtm_sim.engine.battle import Battle, Fighter
from vtm_sim.errors import ConfigError
from vtm_sim.events import EventLog
from vtm_sim.files.replay import replay
from vtm_sim.files.scenarios import Scenario, list_scenarios, load_scenario
from vtm_sim.policies.nearest import NearestEnemyPolicy, RandomPolicy
from vtm_sim.policies.play import Policy

SCENARIOS = list_scenarios()
SEEDS = range(120)  # 12 scenarios x 120: over a thousand random battles with replay


@dataclass
class Played:
    """What seeded random play of one scenario did."""

    battles: int = 0
    offered: Counter[str] = field(default_factory=Counter)  # maneuvers in ACT options
    chosen: Counter[str] = field(default_factory=Counter)  # maneuvers in attack events
    winners: Counter[int | None] = field(default_factory=Counter)
    happened: Counter[str] = field(default_factory=Counter)  # actions, effects, event kinds


def policies(n: int, seed: int) -> list[Policy]:
    """Alternate random and nearest-enemy play; the seed shifts who is random."""
    rng = np.random.default_rng(seed)
    return [RandomPolicy(rng) if (i + seed) % 2 == 0 else NearestEnemyPolicy() for i in range(n)]


def check_invariants(battle: Battle) -> None:
    for c in battle.combatants:
        h = c.health
        assert 0 <= h.filled <= h.size, (c.name, h.marks())  # DMG-7
        assert min(h.bashing, h.lethal, h.aggravated) >= 0, (c.name, h.marks())
        assert all(a >= 0 for a in c.ammo), (c.name, c.ammo)  # RNG-10
        assert 0 <= c.blood <= c.stats.blood_pool, (c.name, c.blood)  # VAMP-1, VAMP-6
        assert c.willpower >= 0 and c.vitae >= 0, c.name


def play_checked(battle: Battle, pols: list[Policy], played: Played) -> Battle:
    check_invariants(battle)
    while battle.pending is not None:
        d = battle.pending
        c = battle.combatants[d.actor]
        if d.kind is DecisionKind.ACT:
            # INIT-3: a member of a simultaneous group acts even if struck down in it
            assert (
                c.active and not c.staked and not c.stunned(battle.turn)
            ) or c.sim_penalty is not None, (c.name, battle.turn, c.health.marks())
            for o in d.options:
                if isinstance(o, Action) and o.kind is ActionKind.ATTACK and o.maneuver:
                    played.offered[o.maneuver] += 1
        elif d.kind in (DecisionKind.DECLARE, DecisionKind.BLOOD):
            assert c.active and not c.staked and not c.stunned(battle.turn), c.name
        assert d.options, "every decision offers at least one option"
        battle.choose(pols[d.actor].choose(battle, d))
        check_invariants(battle)
    assert battle.over and battle.log.events[-1]["e"] == "end"
    return battle


@cache
def played(name: str) -> Played:
    """Play (and replay) the scenario's seeded battles once per test session."""
    scenario = load_scenario(name)
    out = Played()
    for seed in SEEDS:
        battle = scenario.battle(seed=seed)
        play_checked(battle, policies(len(scenario.fighters), seed), out)
        again = replay(EventLog.parse(battle.log.jsonl()))
        assert again.winner == battle.winner and again.turn == battle.turn
        out.battles += 1
        out.winners[battle.winner] += 1
        for ev in battle.log.events:
            if ev["e"] == "attack":
                out.chosen[ev["maneuver"]] += 1
                out.happened.update(k for k in ("offhand", "called") if ev.get(k))
            elif ev["e"] == "action":
                out.happened[ev["action"]] += 1
            else:
                out.happened[ev["e"]] += 1
    return out


# --- the library ---------------------------------------------------------------


def test_library_has_at_least_eight_scenarios() -> None:
    assert len(SCENARIOS) >= 8, SCENARIOS
    assert "duel" in SCENARIOS


@pytest.mark.parametrize("name", SCENARIOS)
def test_scenario_loads_with_a_title_a_story_and_named_sides(name: str) -> None:
    s = load_scenario(name)
    assert isinstance(s, Scenario) and s.name == name
    assert s.title.strip() and len(s.description.split()) >= 20, "tell the Storyteller more"
    assert 10 <= s.turn_limit <= 30
    sides = {f.side for f in s.fighters}
    assert len(sides) >= 2
    assert sides <= set(s.sides), f"every side needs a name: {sorted(sides - set(s.sides))}"
    for a, t in s.ambush:
        assert s.fighters[a].side != s.fighters[t].side, "an ambush targets an enemy"


RANGED = (WeaponClass.FIREARM, WeaponClass.BOW, WeaponClass.CROSSBOW, WeaponClass.THROWN)


def _reach(f: Fighter) -> float:
    """RNG-2: the farthest the weapon in hand at the start can shoot (0: none)."""
    if not f.stats.weapons or f.stats.weapons[0].cls not in RANGED:
        return 0.0
    return 2.0 * float(f.stats.weapons[0].range or 0)


@pytest.mark.parametrize("name", SCENARIOS)
def test_ranged_weapons_fit_the_distances(name: str) -> None:
    """RNG-2: a shooter starts with an enemy in range, or under fire it must close.

    A side that is out-ranged at the start (pistols against a rifle 120 yards
    away) is a scenario's point only when the other side can shoot it.
    """
    s = load_scenario(name)
    for i, f in enumerate(s.fighters):
        if not _reach(f):
            continue
        foes = [g for g in s.fighters if g.side != f.side]
        dist = {id(g): math.hypot(g.x - f.x, g.y - f.y) for g in foes}
        in_range = any(d <= _reach(f) for d in dist.values())
        under_fire = any(dist[id(g)] <= _reach(g) for g in foes)
        assert in_range or under_fire, (
            f"{name}: combatant {i} ({f.stats.name}) with {f.stats.weapons[0].name} reaches "
            f"{_reach(f):.0f} yards, nearest enemy {min(dist.values()):.0f}"
        )


def test_dark_ages_scenarios_carry_no_firearms() -> None:
    found = False
    for name in SCENARIOS:
        s = load_scenario(name)
        if not s.rules.firearms_allowed:
            found = True
            for f in s.fighters:
                assert all(w.cls is not WeaponClass.FIREARM for w in f.stats.weapons)
    assert found, "the library has a Dark Ages scenario"


@pytest.mark.parametrize("name", SCENARIOS)
def test_scenario_plays_replays_and_keeps_invariants(name: str) -> None:
    """DICE-9, DMG-7, RNG-10, VAMP-1, CPX-2, CPX-5, INIT-3 over seeded battles."""
    p = played(name)
    assert p.battles == len(SEEDS)
    assert sum(p.chosen.values()) > 0, "somebody attacks somebody"
    assert sum(n for w, n in p.winners.items() if w is not None) > 0, "some fight is won"


def test_random_play_offers_and_uses_every_maneuver() -> None:
    """Every row of the maneuver table is offered and chosen somewhere in the library."""
    offered: Counter[str] = Counter()
    chosen: Counter[str] = Counter()
    for name in SCENARIOS:
        offered.update(played(name).offered)
        chosen.update(played(name).chosen)
    assert [m for m in load_tables().maneuvers if not offered[m]] == []
    assert [m for m in load_tables().maneuvers if not chosen[m]] == []


@pytest.mark.parametrize(
    ("what", "rule"),
    [
        ("ambush", "ATK-11"),
        ("staked", "CPX-5"),
        ("aim", "RNG-7"),
        ("offhand", "RNG-9"),
        ("called", "RNG-8"),
        ("spray", "RNG-6"),
        ("dodge_to_cover", "DEF-5"),
        ("clinch", "MAN-6"),
        ("hold", "MAN-7"),
        ("break_free", "MAN-6/7"),
        ("drink", "MAN-9"),
        ("disarmed", "MAN-10"),
        ("stun", "DMG-6"),
        ("armor", "SOAK-5"),
        ("mishap", "CPX-6"),
        ("reload", "ACT-7"),
        ("clear", "CPX-6"),
        ("get_up", "ACT-6"),
        ("blood", "VAMP-2"),
        ("take_cover", "RNG-1"),
    ],
)
def test_the_library_exercises_the_complications(what: str, rule: str) -> None:
    """Seeded random play of the library reaches each rule's situation at least once."""
    total = sum(played(name).happened[what] for name in SCENARIOS)
    assert total > 0, f"no scenario reached {what} ({rule})"


# --- broken scenario files -----------------------------------------------------

GOOD = """\
title: Test
combatants:
  - {sheet: characters/brawler.yaml, side: 0, at: [0, 0]}
  - {sheet: characters/knife_fighter.yaml, side: 1, at: [4, 0]}
"""


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "broken.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_good_file_outside_the_library_loads(tmp_path: Path) -> None:
    s = load_scenario(str(_write(tmp_path, GOOD)))
    assert s.name == "broken" and len(s.fighters) == 2


@pytest.mark.parametrize(
    ("text", "keys"),
    [
        (GOOD + "terrain: swamp\n", ["terrain", "unknown key"]),
        (
            GOOD.replace("at: [0, 0]}", "at: [0, 0], facing: north}"),
            ["combatants.0.facing", "unknown key"],
        ),
        (GOOD + "cover:\n  - {at: [1, 1], radius: 1, level: huge}\n", ["cover.0.level"]),
        (
            GOOD.replace("brawler.yaml", "nobody.yaml"),
            ["combatants", "characters/nobody.yaml", "not found"],
        ),
        (
            GOOD.replace("title: Test", "title: Test\nrules: dark_ages").replace(
                "knife_fighter.yaml", "thug.yaml"
            ),
            ["combatants.1", "light_pistol", "firearm", "dark_ages"],
        ),
        (
            GOOD + "ambush:\n  - {attacker: 1, target: 0}\n  - {attacker: 0, target: 2}\n",
            ["ambush", "target", "no combatant 2"],
        ),
        (GOOD + "ambush:\n  - {attacker: 7, target: 0}\n", ["ambush", "attacker", "7"]),
        (GOOD.replace("side: 1", "side: 0"), ["combatants", "at least two sides"]),
        (
            "title: Test\ncombatants:\n  - {sheet: characters/brawler.yaml, side: 0}\n",
            ["combatants"],
        ),
        (GOOD.replace("title: Test\n", ""), ["title", "missing"]),
    ],
)
def test_broken_scenario_names_the_file_and_key(tmp_path: Path, text: str, keys: list[str]) -> None:
    path = _write(tmp_path, text)
    with pytest.raises(ConfigError) as err:
        load_scenario(str(path))
    msg = str(err.value)
    assert str(path) in msg, msg
    for key in keys:
        assert key in msg, (key, msg)
    assert "\n" not in msg


def test_unknown_scenario_name_lists_the_library() -> None:
    with pytest.raises(ConfigError) as err:
        load_scenario("no_such_fight")
    assert "no_such_fight" in str(err.value) and "duel" in str(err.value)


def test_unknown_rules_profile_is_a_config_error(tmp_path: Path) -> None:
    path = _write(tmp_path, GOOD.replace("title: Test", "title: Test\nrules: medieval"))
    with pytest.raises(ConfigError, match="medieval"):
        load_scenario(str(path))



@pytest.mark.parametrize(("sheet", "expected"), [
    ("''", "combatants.1.sheet: String should have at least 1 character"),
    ("characters", "combatants.1.sheet: stat block 'characters' not found"),  # a folder
    (".", "combatants.1.sheet: stat block '.' not found"),
])
def test_a_sheet_that_names_no_file_is_one_line_naming_the_field(
        tmp_path: Path, sheet: str, expected: str) -> None:
    """Found by the fuzz test: an empty sheet named the scenario's folder ("cannot read
    (Is a directory)"), not the file and the field."""
    path = _write(tmp_path, GOOD.replace("characters/knife_fighter.yaml", sheet))
    with pytest.raises(ConfigError) as err:
        load_scenario(str(path))
    assert str(err.value).startswith(f"{path}: {expected}")
    assert "\n" not in str(err.value)
