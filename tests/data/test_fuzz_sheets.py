"""Property test over random stat blocks, not only the shipped ones.

Random sheets (any kind, Physical Attributes 1..5, abilities 0..5, combat
disciplines 0..4, any weapons and armor, merits, burdens) meet in random
places under both rules profiles and play with random and scripted
policies. No error, the invariants hold (DMG-7 health within the track,
RNG-10 ammunition and VAMP-6 blood never negative, CPX-2/CPX-5 no action while
stunned or staked), and every log replays (DICE-9).
"""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vtm_sim.core.choices import DecisionKind
from vtm_sim.core.space import CoverLevel, CoverZone, Field, Lighting, Wall
from vtm_sim.data.rules import load_rules
from vtm_sim.data.stat_blocks import MERITS, Kind, StatBlock, StatBlockSpec, build_stat_block
from vtm_sim.data.tables import WeaponClass, load_tables
from vtm_sim.engine.battle import Battle, Fighter
from vtm_sim.events import EventLog
from vtm_sim.files.replay import replay
from vtm_sim.policies.nearest import NearestEnemyPolicy, RandomPolicy

TABLES = load_tables()
ALL_WEAPONS = sorted(TABLES.weapons)
NO_GUNS = sorted(n for n, w in TABLES.weapons.items() if w.cls is not WeaponClass.FIREARM)


@st.composite
def sheets(draw: st.DrawFn, guns: bool) -> StatBlock:
    kind = draw(st.sampled_from(list(Kind)))
    level = st.integers(1, 5)
    dots = st.integers(0, 5)
    attributes = {
        a: draw(level) for a in ("strength", "dexterity", "stamina", "perception", "wits")
    }
    abilities = {
        a: draw(dots)
        for a in (
            "brawl",
            "melee",
            "firearms",
            "athletics",
            "dodge",
            "alertness",
            "stealth",
            "archery",
        )
    }
    disciplines: dict[str, int] = {}
    if kind is not Kind.MORTAL:
        disciplines = {
            d: draw(st.integers(0, 4))
            for d in ("celerity", "fortitude", "potence", "protean", "auspex", "vicissitude")
        }
    weapons = draw(st.lists(st.sampled_from(ALL_WEAPONS if guns else NO_GUNS), max_size=3))
    spec = StatBlockSpec(
        name=f"x{draw(st.integers(0, 999))}",
        kind=kind,
        generation=draw(st.integers(4, 13)) if kind is Kind.VAMPIRE else None,
        attributes=attributes,
        abilities=abilities,
        disciplines=disciplines,
        specialties={"brawl": "x"} if draw(st.booleans()) else {},
        willpower=draw(st.integers(0, 8)),
        blood=draw(st.integers(0, 10)) if kind is not Kind.MORTAL else None,
        weapons=weapons,
        armor=draw(st.none() | st.sampled_from(sorted(TABLES.armor))),
        merits=draw(st.lists(st.sampled_from(MERITS), max_size=2, unique=True)),
        carrying=draw(st.sampled_from([0.0, 0.0, 80.0, 200.0])),
    )
    return build_stat_block(spec, "fuzz")


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.data(),
    seed=st.integers(0, 2**31 - 1),
    dark=st.booleans(),
    profile=st.sampled_from(["v20", "dark_ages"]),
    n=st.integers(2, 4),
)
def test_random_sheets_play_keep_invariants_and_replay(
    data: st.DataObject, seed: int, dark: bool, profile: str, n: int
) -> None:
    rules = load_rules(profile)
    fighters = [
        Fighter(
            data.draw(sheets(rules.firearms_allowed)),
            i % 2,
            data.draw(st.floats(0, 40)),
            data.draw(st.floats(-5, 5)),
            data.draw(st.booleans()),
            data.draw(st.sampled_from([False, False, True])),
        )
        for i in range(n)
    ]
    field = Field(
        (CoverZone("crate", 10.0, 2.0, 1.5, CoverLevel.GOOD),),
        (Wall(20.0, -3.0, 20.0, 3.0),),
        Lighting.DARK if dark else Lighting.NORMAL,
    )
    ambush = [(0, 1)] if data.draw(st.booleans()) else []
    battle = Battle(fighters, seed=seed, rules=rules, turn_limit=8, field=field, ambush=ambush)
    rng = np.random.default_rng(seed)
    pols = [RandomPolicy(rng) if i % 2 else NearestEnemyPolicy() for i in range(n)]
    while battle.pending is not None:
        d = battle.pending
        c = battle.combatants[d.actor]
        if d.kind in (DecisionKind.DECLARE, DecisionKind.BLOOD):
            assert battle.able(c) and not c.stunned(battle.turn)
        if d.kind is DecisionKind.ACT and battle.turn > 0:
            assert (battle.able(c) or c.sim_penalty is not None) and not c.stunned(battle.turn)
        battle.choose(pols[d.actor].choose(battle, d))
        for x in battle.combatants:
            assert 0 <= x.health.filled <= x.health.size
            assert x.blood >= 0 and x.willpower >= 0 and min(x.ammo, default=0) >= 0
            assert not x.stats.blood_pool or x.blood <= x.stats.blood_pool
    log = EventLog.parse(battle.log.jsonl())
    assert replay(log).log.sha256() == battle.log.sha256()
