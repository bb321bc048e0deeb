"""The maneuver table is data: each row of configs/maneuvers.yaml carries all its
meaning, is validated at load, and a new row is offered and resolved by the engine
with no change to the code."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from rule_helpers import (
    ACT,
    DEFEND,
    FILLER,
    NONE,
    attack,
    combatant,
    declare_all,
    events,
    offered,
    offered_maneuvers,
    rolls,
    sheet,
    single_roll,
    step,
    successes,
)

from agents.scripted import maneuver_ranks
from envs.actions import ActionCatalog
from envs.observation import ObservationEncoder
from vtm_sim.core.choices import Action, ActionKind, CalledShot
from vtm_sim.core.dice import ScriptedDice
from vtm_sim.core.maneuvers import Effect, Need, WeaponUse
from vtm_sim.data.config import config_dir
from vtm_sim.data.rules import load_rules
from vtm_sim.data.tables import Tables, load_tables
from vtm_sim.engine.battle import Battle, Fighter
from vtm_sim.engine.effects import EFFECTS
from vtm_sim.engine.exchange import ExchangeError, resolve_exchange
from vtm_sim.engine.flow import plan_from_json, plan_to_json
from vtm_sim.errors import ConfigError
from vtm_sim.events import EventKind
from vtm_sim.files.scenarios import load_scenario
from vtm_sim.mechanics.attack import NEEDS, WEAPON_OF, plan_attack

V20 = load_rules("v20")
# The environments number their attack actions in table order: this is the shipped
# order, which must not change (new rows go after it).
SHIPPED_ORDER = (
    "punch", "kick", "weapon_strike", "sweep", "tackle", "clinch", "hold", "bite", "kiss",
    "disarm", "claws", "single_shot", "burst", "full_auto", "spray", "thrown",
)
HEADBUTT = """
headbutt:
  class: close
  weapon: unarmed
  attribute: dexterity
  ability: brawl
  difficulty: 1
  accuracy: 0
  reach: 1
  called_shot: false
  effect: knockdown
  damage: {strength: true, bonus: 1, type: bashing}
"""


def configs_with(tmp_path: Path, rows: str) -> Path:
    """A copy of the shipped tables with ``rows`` appended to maneuvers.yaml."""
    root = tmp_path / "configs"
    root.mkdir()
    for f in config_dir().glob("*.yaml"):
        shutil.copy(f, root / f.name)
    with (root / "maneuvers.yaml").open("a", encoding="utf-8") as out:
        out.write(rows)
    return root


@pytest.fixture
def headbutt_tables(tmp_path: Path) -> Tables:
    return load_tables(configs_with(tmp_path, HEADBUTT))


def test_shipped_rows_keep_the_env_order() -> None:
    assert tuple(load_tables().maneuvers) == SHIPPED_ORDER


def test_every_kind_need_and_effect_has_its_one_function() -> None:
    assert set(WEAPON_OF) == set(WeaponUse)
    assert set(NEEDS) == set(Need)
    assert set(EFFECTS) == set(Effect)
    for effect, rule in EFFECTS.items():
        assert (rule.after_hit is None) != (rule.instead is None), effect


def test_rows_carry_their_meaning() -> None:
    """The sets the code used to spell out, read back from the rows."""
    t = load_tables().maneuvers
    assert {m for m, s in t.items() if s.close} == set(SHIPPED_ORDER[:11])
    assert {m for m, s in t.items() if s.grapple} == {"bite", "kiss"}
    assert {m for m, s in t.items() if s.offhand} == {
        "weapon_strike", "disarm", "single_shot", "burst", "thrown"}
    assert {m for m, s in t.items() if s.called_shot} == {
        "punch", "kick", "weapon_strike", "claws", "single_shot", "burst", "thrown"}
    assert {m for m, s in t.items() if s.weapon is WeaponUse.AUTOFIRE} == {
        "burst", "full_auto", "spray"}
    assert t["disarm"].mishaps == "disarm" and t["punch"].mishaps is None


def _pair(tables: Tables, faces: list[int]) -> Battle:
    a = sheet("a", strength=3, dexterity=4, wits=3, brawl=2)
    t = sheet("t", strength=2, dexterity=2, stamina=1, brawl=1, athletics=1)
    b = Battle([Fighter(a, 0, 0, 0), Fighter(t, 1, 1, 0)], dice=ScriptedDice(faces),
               rules=V20, turn_limit=1, tables=tables)
    declare_all(b)
    return b


def test_an_added_row_is_offered_and_resolved_with_no_code_change(
    headbutt_tables: Tables,
) -> None:
    """A `headbutt` row (Dex + Brawl at +1, Strength + 1 bashing, knocks down): offered
    (no called shot: its row says none), rolled as its row says, and its effect
    applied through the effect table."""
    faces = [9, 1, *successes(1, 6), *[FILLER] * 4, *[FILLER] * 3, *[FILLER] * 3]
    b = _pair(headbutt_tables, faces)
    assert "headbutt" in offered_maneuvers(b, 1)
    assert not [o for o in offered(b) if isinstance(o, Action)
                and o.maneuver == "headbutt" and o.called is not None]
    step(b, ACT, 0, attack("headbutt", 1))
    step(b, DEFEND, 1, NONE)
    (ev,) = events(b, EventKind.ATTACK)
    assert (ev["maneuver"], ev["weapon"]) == ("headbutt", "unarmed")
    a = single_roll(b, "attack")
    assert (a["pool"], a["diff"]) == (6, 7)
    assert single_roll(b, "damage")["pool"] == 4  # Strength 3 + 1
    assert (single_roll(b, "footing", 1)["diff"], len(rolls(b, "knockdown", 1))) == (6, 1)
    assert b.combatants[1].prone


def test_an_added_row_joins_the_envs_after_the_shipped_ones(headbutt_tables: Tables) -> None:
    sc = load_scenario("duel")
    shipped = ActionCatalog.for_scenario(sc)
    grown = ActionCatalog.for_scenario(sc, headbutt_tables)
    attacks = [c for c in shipped.choices
               if isinstance(c, Action) and c.kind is ActionKind.ATTACK]
    assert [grown.index[c] for c in attacks] == [shipped.index[c] for c in attacks]
    for called in (None, *CalledShot):
        assert Action(ActionKind.ATTACK, "headbutt", 1, called=called) in grown.index
    enc = ObservationEncoder.for_scenario(sc, headbutt_tables)
    names = enc.feature_names()
    thrown = names.index("decision.incoming_thrown")
    assert names.index("decision.incoming_headbutt") == thrown + 1
    ranks = maneuver_ranks(headbutt_tables.maneuvers)
    assert ranks["headbutt"] == len(ranks) - 1  # a blow with an effect, the last row
    assert [m for m, _ in sorted(ranks.items(), key=lambda mr: mr[1])][:9] == [
        "weapon_strike", "full_auto", "burst", "single_shot", "thrown", "claws", "bite",
        "punch", "kick",
    ]  # the brawler's preference as it was spelled out before


def test_an_added_row_in_a_single_exchange(headbutt_tables: Tables) -> None:
    a = sheet("a", strength=3, dexterity=4, brawl=2)
    d = sheet("d", stamina=1)
    r = resolve_exchange(a, d, maneuver="headbutt", tables=headbutt_tables,
                         dice=ScriptedDice([*successes(1, 6), *[FILLER] * 4]))
    assert (r.plan.pool, r.plan.difficulty, r.plan.damage_base, r.plan.effect) == (
        6, 7, 4, Effect.KNOCKDOWN)


def test_a_mortal_cannot_bite_in_an_exchange() -> None:
    """`needs: [vampire]` holds outside a battle too."""
    with pytest.raises(ExchangeError, match="cannot use bite: it needs vampire"):
        resolve_exchange(sheet("a"), sheet("d"), maneuver="bite", dice=ScriptedDice([]))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"weapon: unarmed": "weapon: laser"}, r"headbutt\.weapon: Input should be 'unarmed'"),
        ({"effect: knockdown": "effect: stun"}, r"headbutt\.effect: Input should be"),
        ({"called_shot: false": "needs: [wings]"}, r"headbutt\.needs\.0: Input should be"),
        ({"class: close": "class: melee"}, r"headbutt\.class: Input should be 'close'"),
        ({"  reach: 1\n": ""}, r"headbutt: reach: a close maneuver needs a reach"),
        ({"weapon: unarmed": "weapon: thrown"}, r"headbutt: weapon: thrown is not made in close"),
        ({"called_shot: false": "offhand: true"}, r"headbutt: offhand: only a maneuver made"),
        ({"called_shot: false": "mishaps: lasers"}, r"headbutt\.mishaps: Input should be"),
        ({"called_shot: false": "colour: red"}, r"headbutt\.colour: unknown key"),
    ],
)
def test_a_bad_row_is_a_config_error_naming_file_row_and_key(
    tmp_path: Path, change: dict[str, str], message: str
) -> None:
    row = HEADBUTT
    for old, new in change.items():
        assert old in row
        row = row.replace(old, new)
    root = configs_with(tmp_path, row)
    with pytest.raises(ConfigError, match=r"maneuvers\.yaml: " + message):
        load_tables(root)


def test_plan_attack_follows_the_rows_called_shot_and_offhand() -> None:
    """RNG-8/RNG-9 as the rows say, also for plans asked outside the option lists."""
    a = combatant(sheet("a", dexterity=3, brawl=2, melee=2, weapons=["knife", "knife"]))
    t = combatant(sheet("t"), 1, 1, 1.0)
    tables = load_tables()
    assert plan_attack(a, t, "punch", tables, V20, called=CalledShot.TINY) is not None
    assert plan_attack(a, t, "sweep", tables, V20, called=CalledShot.TINY) is None
    assert plan_attack(a, t, "weapon_strike", tables, V20, offhand=True) is not None
    assert plan_attack(a, t, "disarm", tables, V20, offhand=True) is not None
    assert plan_attack(a, t, "kick", tables, V20, offhand=True) is None


def test_a_plans_effect_is_saved_by_name() -> None:
    a = combatant(sheet("a", dexterity=3, brawl=2))
    t = combatant(sheet("t"), 1, 1, 1.0)
    p = plan_attack(a, t, "sweep", load_tables(), V20)
    assert p is not None and p.effect is Effect.KNOCKDOWN
    saved = plan_to_json(p)
    assert saved["effect"] == "knockdown"
    assert plan_from_json(saved, load_tables()).effect is Effect.KNOCKDOWN
