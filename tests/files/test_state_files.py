"""Hand-written state files (vtm_sim.files.state_files, docs/states.md): the fight as it stands.

Good files load and play by the rules from where they stand, and replay from
their logs; bad files give one ConfigError line naming the file and the key,
through the library and through ``vtm-sim state show`` (exit 2, no traceback).
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

import vtm_sim.files.state_files
from vtm_sim import load_state
from vtm_sim.cli import main
from vtm_sim.core.choices import (
    NO_DEFENSE,
    Action,
    ActionKind,
    Choice,
    Decision,
    DecisionKind,
    Declaration,
)
from vtm_sim.core.health import Status
from vtm_sim.data.formats import STATE_FORMAT
from vtm_sim.engine.battle import Battle
from vtm_sim.errors import ConfigError
from vtm_sim.events import EventKind, EventLog
from vtm_sim.files.replay import replay
from vtm_sim.files.scenarios import load_scenario
from vtm_sim.files.state_files import read_state
from vtm_sim.policies.nearest import NearestEnemyPolicy
from vtm_sim.policies.play import play

ACT, DECLARE, BLOOD, DEFEND = (DecisionKind.ACT, DecisionKind.DECLARE, DecisionKind.BLOOD,
                               DecisionKind.DEFEND)
PASS = Action(ActionKind.PASS)

# gunfight ids: 0, 1 Patrol Officer; 2 Detective Ortiz; 3 Two-Gun Tommy;
# 4 Shotgun Frankie; 5 The Bagman
BRIEF_EXAMPLE = """\
scenario: gunfight          # a shipped scenario name or a path: sheets, sides, field
turn: 3                     # the turn about to start (default 1)
combatants:
  Detective Ortiz:          # a combatant's name from its stat block
    damage: {lethal: 3}     # bashing / lethal / aggravated boxes already filled
    willpower: 4            # points left
    ammo: {heavy_revolver: 2}   # rounds left in each weapon named on the sheet
    at: [4, 10]             # position in yards
    prone: true
  Patrol Officer#2:         # the second of two combatants with that name
    damage: {bashing: 1, lethal: 2}
  Shotgun Frankie:
    ammo: {shotgun: 0}      # (vampires and ghouls also take `blood: N`)
"""


def write(tmp_path: Path, text: str, name: str = "state.yaml") -> Path:
    p = tmp_path / name
    p.write_text(textwrap.dedent(text), encoding="utf-8")
    return p


def cli(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def passive(d: Decision) -> Choice:
    """No blood, one action, no defense, pass."""
    if d.kind is BLOOD:
        return d.options[0]
    if d.kind is DECLARE:
        return Declaration()
    return NO_DEFENSE if d.kind is DEFEND else PASS


def until_act(b: Battle, actor: int) -> Decision:
    """Answer everything passively up to ``actor``'s action."""
    for _ in range(500):
        d = b.pending
        assert d is not None, f"the battle ended before {actor} could act"
        if d.kind is ACT and d.actor == actor:
            return d
        b.choose(passive(d))
    raise AssertionError("no decision for the actor")


def kinds(d: Decision) -> set[ActionKind]:
    return {o.kind for o in d.options if isinstance(o, Action)}


def maneuvers(d: Decision, target: int | None = None) -> set[str]:
    return {o.maneuver for o in d.options if isinstance(o, Action)
            and o.kind is ActionKind.ATTACK and o.maneuver
            and (target is None or o.target == target)}


# --- the format ------------------------------------------------------------------------


def test_the_example_of_the_brief_loads_exactly(tmp_path: Path) -> None:
    b = load_state(write(tmp_path, BRIEF_EXAMPLE), seed=1)
    ortiz, officer2, frankie = b.combatants[2], b.combatants[1], b.combatants[4]
    assert (ortiz.health.bashing, ortiz.health.lethal, ortiz.health.aggravated) == (0, 3, 0)
    assert ortiz.willpower == 4 and ortiz.ammo == [2] and (ortiz.x, ortiz.y) == (4.0, 10.0)
    assert ortiz.prone
    assert (officer2.health.bashing, officer2.health.lethal) == (1, 2)
    assert b.combatants[0].health.filled == 0  # Patrol Officer#1 untouched
    assert frankie.ammo == [0]
    assert b.turn == 3  # begun: turn 3 under way
    header = b.log.events[0]
    assert header["standing"]["turn"] == 3
    turns = [e["turn"] for e in b.log.events if e["e"] == EventKind.TURN]
    assert turns == [3]


def test_the_same_state_as_json_loads_the_same(tmp_path: Path) -> None:
    import yaml

    data = yaml.safe_load(BRIEF_EXAMPLE)
    p = tmp_path / "state.json"
    p.write_text(json.dumps(data), encoding="utf-8")
    a = load_state(p, seed=4)
    b = load_state(write(tmp_path, BRIEF_EXAMPLE), seed=4)
    assert a.log.jsonl() == b.log.jsonl()


def test_a_fresh_state_at_turn_one_is_the_scenario_itself(tmp_path: Path) -> None:
    """No overrides: the same dice and decisions as the scenario's own battle."""
    b = load_state(write(tmp_path, "scenario: duel\n"), seed=5)
    fresh = load_scenario("duel").battle(seed=5)
    play(b)
    play(fresh)
    assert b.log.events[1:] == fresh.log.events[1:]
    assert "standing" not in fresh.log.events[0]


def test_normal_logs_carry_no_standing() -> None:
    b = load_scenario("gunfight").battle(seed=1)
    assert "standing" not in b.log.events[0]


def test_scenario_by_path_relative_to_the_state_file(tmp_path: Path) -> None:
    sc = Path(load_scenario("duel").source).read_text(encoding="utf-8")
    sheets = Path(load_scenario("duel").source).parent.parent
    (tmp_path / "mine.yaml").write_text(
        sc.replace("characters/", f"{sheets}/characters/"), encoding="utf-8")
    b = load_state(write(tmp_path, "scenario: mine.yaml\nturn: 2\n"), seed=0)
    assert b.turn == 2


def test_names_shared_by_two_combatants_take_a_number(tmp_path: Path) -> None:
    p = write(tmp_path, """\
        scenario: gunfight
        combatants:
          Patrol Officer#1: {willpower: 1}
          Patrol Officer#2: {willpower: 2}
        """)
    b = load_state(p)
    assert [b.combatants[0].willpower, b.combatants[1].willpower] == [1, 2]


def test_weapons_shared_on_a_sheet_take_a_number(tmp_path: Path) -> None:
    p = write(tmp_path, """\
        scenario: gunfight
        combatants:
          Two-Gun Tommy: {ammo: {light_pistol#1: 3, light_pistol#2: 0}}
        """)
    assert load_state(p).combatants[3].ammo == [3, 0]


def test_cover_places_the_combatant_at_its_centre(tmp_path: Path) -> None:
    p = write(tmp_path, """\
        scenario: gunfight
        combatants:
          The Bagman: {cover: getaway van}
          Detective Ortiz: {cover: squad car, at: [1, 1]}
        """)
    b = load_state(p)
    # Shotgun Frankie holds the van's centre: the Bagman takes the free spot a yard off
    assert (b.combatants[5].x, b.combatants[5].y) == (20.0, -2.0)
    assert b.field.cover_at(20.0, -2.0) is not None
    assert (b.combatants[2].x, b.combatants[2].y) == (1.0, 1.0)
    assert b.field.cover_at(1.0, 1.0) is not None


def test_damage_filling_the_track_puts_a_combatant_out(tmp_path: Path) -> None:
    p = write(tmp_path, """\
        scenario: duel
        combatants:
          Bar Brawler: {damage: {bashing: 3, lethal: 4}}
        """)
    b = load_state(p)
    assert b.combatants[0].health.status is Status.INCAPACITATED
    assert b.over and b.winner == 1  # nobody is left to fight the Knife Fighter


def test_aim_in_progress_still_counts_and_continues(tmp_path: Path) -> None:
    """RNG-7: aimed last turn (aim_turn = turn - 1): the bonus counts and aiming adds one."""
    p = write(tmp_path, """\
        scenario: gunfight
        turn: 4
        combatants:
          Detective Ortiz: {aim: {target: Shotgun Frankie, dice: 2}}
        """)
    b = load_state(p, seed=2)
    ortiz = b.combatants[2]
    assert (ortiz.aim_target, ortiz.aim_dice, ortiz.aim_turn) == (4, 2, 3)
    d = until_act(b, 2)
    shot = next(o for o in d.options if isinstance(o, Action) and o.target == 4
                and o.maneuver == "single_shot" and o.called is None)
    plan = b.plan(2, shot)
    assert plan is not None
    b.choose(Action(ActionKind.AIM, target=4))
    assert (ortiz.aim_dice, ortiz.aim_turn) == (3, 4)


# --- playing by the rules from where it stands ---------------------------------------------


def test_a_wounded_npc_has_the_wound_penalty_on_pools_and_initiative(tmp_path: Path) -> None:
    """DMG-7, INIT-4: Injured (3 boxes): -1 die on every pool and on initiative."""
    hurt = load_state(write(tmp_path, """\
        scenario: gunfight
        turn: 2
        combatants:
          Shotgun Frankie: {damage: {lethal: 3}}
        """), seed=9)
    fresh = load_state(write(tmp_path, "scenario: gunfight\nturn: 2\n", "fresh.yaml"), seed=9)
    frankie = hurt.combatants[4]
    assert frankie.health.penalty == 1 and frankie.health.level_name == "injured"
    shot = Action(ActionKind.ATTACK, "single_shot", 2)
    until_act(hurt, 4)  # INIT-9 (004): the initiative is rolled after the declarations
    until_act(fresh, 4)
    init = {e["who"]: e for e in hurt.log.events if e["e"] == EventKind.INITIATIVE}
    init0 = {e["who"]: e for e in fresh.log.events if e["e"] == EventKind.INITIATIVE}
    assert init[4]["penalty"] == 1 and init[4]["die"] == init0[4]["die"]
    assert init[4]["total"] == init0[4]["total"] - 1
    a, b = hurt.plan(4, shot), fresh.plan(4, shot)
    assert a is not None and b is not None
    assert a.pool == b.pool - 1


def test_an_empty_magazine_cannot_fire_and_gets_the_reload_option(tmp_path: Path) -> None:
    """RNG-10, ACT-7: no shot from an empty shotgun; reloading is offered and refills it."""
    b = load_state(write(tmp_path, """\
        scenario: gunfight
        turn: 2
        combatants:
          Shotgun Frankie: {ammo: {shotgun: 0}}
        """), seed=3)
    d = until_act(b, 4)
    assert not maneuvers(d) & {"single_shot", "burst", "full_auto", "spray"}
    assert ActionKind.RELOAD in kinds(d)
    b.choose(Action(ActionKind.RELOAD))
    assert b.combatants[4].ammo == [6]


def test_a_full_magazine_gets_no_reload_option(tmp_path: Path) -> None:
    b = load_state(write(tmp_path, "scenario: gunfight\nturn: 2\n"), seed=3)
    d = until_act(b, 4)
    assert "single_shot" in maneuvers(d)
    assert ActionKind.RELOAD not in kinds(d)


def test_a_clinch_in_progress_offers_only_clinch_options_and_the_bite(tmp_path: Path) -> None:
    """MAN-6: crush, break free, bite/kiss or pass; MAN-8: the vampire who began it may bite."""
    b = load_state(write(tmp_path, """\
        scenario: grapple_and_bite
        turn: 2
        combatants:
          The Thing in the Pines: {clinch: Earl the Trucker}
        """), seed=1)
    thing, earl = b.combatants[0], b.combatants[1]
    assert (thing.clinch_with, earl.clinch_with) == (1, 0)
    assert thing.grapple_turn == {1: 1} and earl.grapple_turn == {}
    assert thing.distance(earl) <= 1.0 + 1e-6  # the one who began it stepped in
    d = until_act(b, 0)
    assert kinds(d) <= {ActionKind.CRUSH, ActionKind.BREAK_FREE, ActionKind.ATTACK,
                        ActionKind.PASS}
    assert {ActionKind.CRUSH, ActionKind.BREAK_FREE} <= kinds(d)
    assert maneuvers(d) == {"bite", "kiss"} == maneuvers(d, 1)
    b.choose(next(o for o in d.options if isinstance(o, Action) and o.maneuver == "bite"))
    attacks = [e for e in b.log.events if e["e"] == EventKind.ATTACK]
    assert attacks[-1]["maneuver"] == "bite" and attacks[-1]["target"] == 1


def test_the_partner_of_a_clinch_cannot_bite_and_has_no_other_action(tmp_path: Path) -> None:
    b = load_state(write(tmp_path, """\
        scenario: grapple_and_bite
        turn: 2
        combatants:
          The Thing in the Pines: {clinch: Earl the Trucker}
        """), seed=1)
    d = until_act(b, 1)
    assert kinds(d) <= {ActionKind.CRUSH, ActionKind.BREAK_FREE, ActionKind.PASS}
    assert {ActionKind.CRUSH, ActionKind.BREAK_FREE} <= kinds(d)


def test_a_hold_in_progress_is_set_on_both_partners(tmp_path: Path) -> None:
    b = load_state(write(tmp_path, """\
        scenario: staking
        turn: 3
        combatants:
          Voivode Anton, Tzimisce: {held_by: "Big Hank, Hunter"}
        """), seed=1)
    anton, hank = b.combatants[0], b.combatants[2]
    assert (hank.holding, anton.held_by, hank.grapple_turn) == (0, 2, {0: 2})
    d = until_act(b, 0)
    assert kinds(d) == {ActionKind.BREAK_FREE, ActionKind.PASS}


def test_a_staked_vampire_alone_on_its_side_has_lost(tmp_path: Path) -> None:
    """CPX-5: staked is out of the fight: the battle is decided before anyone acts."""
    b = load_state(write(tmp_path, """\
        scenario: staking
        turn: 4
        combatants:
          Voivode Anton, Tzimisce: {staked: true, damage: {lethal: 3}}
        """))
    assert b.combatants[0].staked
    assert b.over and b.winner == 1 and b.pending is None


def test_a_staked_vampire_never_decides(tmp_path: Path) -> None:
    b = load_state(write(tmp_path, """\
        scenario: elder_vs_coterie
        turn: 2
        combatants:
          Jax, Brujah Neonate: {staked: true}
        """), seed=6)
    assert not b.able(b.combatants[1])
    seen = []
    for _ in range(40):
        d = b.pending
        if d is None or b.turn > 3:
            break
        seen.append(d.actor)
        b.choose(NearestEnemyPolicy().choose(b, d))
    assert seen and 1 not in seen


def test_a_stunned_combatant_loses_the_turn_about_to_start(tmp_path: Path) -> None:
    b = load_state(write(tmp_path, """\
        scenario: duel
        turn: 2
        combatants:
          Knife Fighter: {stunned: true}
        """), seed=1)
    assert b.combatants[1].stunned_turn == 2
    actors = set()
    while b.pending is not None and b.turn == 2:
        actors.add(b.pending.actor)
        b.choose(NearestEnemyPolicy().choose(b, b.pending))
    assert 1 not in actors


def test_initiative_given_as_an_order_is_not_rolled(tmp_path: Path) -> None:
    """The turn acts in the order given; no initiative die is rolled."""
    order = ["Shotgun Frankie", "Detective Ortiz", "Patrol Officer#2", "The Bagman",
             "Patrol Officer#1", "Two-Gun Tommy"]
    text = "scenario: gunfight\nturn: 5\ninitiative:\n" + "".join(f"  - {n}\n" for n in order)
    b = load_state(write(tmp_path, text), seed=0)
    ids = [4, 2, 1, 5, 0, 3]
    inits = [e for e in b.log.events if e["e"] == EventKind.INITIATIVE]
    assert inits and all("die" not in e and "given" in e for e in inits)
    assert [e["order"] for e in b.log.events if e["e"] == EventKind.ORDER] == [ids]
    acts: list[int] = []
    while b.pending is not None and b.turn == 5 and len(acts) < 6:
        d = b.pending
        if d.kind is ACT:
            acts.append(d.actor)
        b.choose(passive(d))
    assert acts == ids


def test_initiative_given_as_totals_counts_wounds_already_taken(tmp_path: Path) -> None:
    """The totals are the current ones: wounds already taken are in them (INIT-4)."""
    b = load_state(write(tmp_path, """\
        scenario: duel
        turn: 2
        combatants:
          Knife Fighter: {damage: {lethal: 4}}
        initiative: {Knife Fighter: 9, Bar Brawler: 7}
        """), seed=0)
    inits = {e["who"]: e for e in b.log.events if e["e"] == EventKind.INITIATIVE}
    assert inits[1]["total"] == 9 and inits[0]["total"] == 7
    assert [e["order"] for e in b.log.events if e["e"] == EventKind.ORDER] == [[1, 0]]


def test_initiative_totals_for_some_let_the_others_roll(tmp_path: Path) -> None:
    b = load_state(write(tmp_path, """\
        scenario: gunfight
        turn: 2
        initiative: {Detective Ortiz: 30}
        """), seed=0)
    inits = {e["who"]: e for e in b.log.events if e["e"] == EventKind.INITIATIVE}
    assert "given" in inits[2] and all("die" in inits[i] for i in (0, 1, 3, 4, 5))
    order = next(e["order"] for e in b.log.events if e["e"] == EventKind.ORDER)
    assert order[0] == 2


def test_the_ambush_happens_only_before_the_first_turn(tmp_path: Path) -> None:
    sc = load_scenario("ambushed_vampire")
    assert sc.ambush
    first = load_state(write(tmp_path, "scenario: ambushed_vampire\n"), seed=0)
    later = load_state(write(tmp_path, "scenario: ambushed_vampire\nturn: 2\n", "b.yaml"),
                       seed=0)
    assert first.log.events[0]["ambush"] and later.log.events[0]["ambush"] == []


# --- replay ---------------------------------------------------------------------------------


STATES = {
    "brief": BRIEF_EXAMPLE,
    "grapple": """\
        scenario: grapple_and_bite
        turn: 3
        combatants:
          The Thing in the Pines: {clinch: Earl the Trucker, blood: 2, damage: {lethal: 2}}
          Deputy Hollis: {ammo: {heavy_revolver: 1}, cover: booth, prone: true}
        initiative: [Luis the Cook, Deputy Hollis, The Thing in the Pines, Earl the Trucker]
        """,
    "stake": """\
        scenario: staking
        turn: 2
        combatants:
          Voivode Anton, Tzimisce: {held_by: "Big Hank, Hunter", blood: 5}
          Sister Ines, Hunter: {wielding: stake, stunned: true}
        """,
    "aim": """\
        scenario: sniper_alley
        turn: 2
        combatants:
          Mara Kell, Sniper: {aim: {target: Ghoul Runner, dice: 1}, facing: Ghoul Runner}
          Ghoul Enforcer#2: {damage: {bashing: 2}, facing: [0, 1]}
        """,
}


@pytest.mark.parametrize("name", sorted(STATES))
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_battle_from_a_state_file_replays(tmp_path: Path, name: str, seed: int) -> None:
    b = play(load_state(write(tmp_path, STATES[name]), seed=seed))
    assert b.over
    assert "standing" in b.log.events[0]
    again = replay(EventLog.parse(b.log.jsonl()))
    assert again.log.jsonl() == b.log.jsonl()


def test_a_state_without_a_seed_is_seed_0_in_every_process(tmp_path: Path) -> None:
    """No seed given means seed 0, never the OS's entropy: the same file gives the same
    battle in two fresh processes (a card or a fight from a state file once differed
    from machine to machine)."""
    import subprocess
    import sys

    p = write(tmp_path, STATES["grapple"])
    assert (play(load_state(p)).log.jsonl() == play(load_state(p, seed=0)).log.jsonl())
    code = ("import sys; from vtm_sim import load_state; from vtm_sim.policies.play import play; "
            "print(play(load_state(sys.argv[1])).log.sha256())")
    runs = {subprocess.run([sys.executable, "-c", code, str(p)], capture_output=True,
                           text=True, check=True).stdout for _ in range(2)}
    assert len(runs) == 1 and runs != {""}
    r = cli("fight", "--state", str(p))
    assert r.exit_code == 0, r.output
    assert r.stdout == cli("fight", "--state", str(p), "--seed", "0").stdout


def test_state_fight_writes_a_log_that_vtm_sim_replay_verifies(tmp_path: Path) -> None:
    p = write(tmp_path, STATES["grapple"])
    log = tmp_path / "battle.jsonl"
    r = cli("fight", "--state", str(p), "--seed", "3", "--log", str(log))
    assert r.exit_code == 0, r.output
    assert "events, sha256" in r.stdout
    r = cli("replay", str(log))
    assert r.exit_code == 0, r.output
    assert "replay verified" in r.stdout


def test_a_broken_standing_in_a_log_is_a_replay_error(tmp_path: Path) -> None:
    from vtm_sim.errors import ReplayError

    b = play(load_state(write(tmp_path, BRIEF_EXAMPLE), seed=1))
    for key, value in (("id", 99), ("wielding", "heavy_revolver"), ("colour", 1)):
        events = [json.loads(line) for line in b.log.jsonl().splitlines()]
        events[0]["standing"]["combatants"][1][key] = value
        with pytest.raises(ReplayError):
            replay(EventLog.from_json(events))


# --- machine-written states -------------------------------------------------------------


def test_a_machine_written_state_goes_to_battle_from_state(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Dispatch only: the format itself belongs to Battle.from_state."""
    got: list[tuple[Any, Any]] = []
    sentinel = object()

    class FakeBattle:
        @classmethod
        def from_state(cls, data: Any, *, seed: int | None = None) -> object:
            got.append((data, seed))
            return sentinel

    data = {"format": STATE_FORMAT, "anything": [1, 2]}
    p = tmp_path / "saved.json"
    p.write_text(json.dumps(data), encoding="utf-8")
    monkeypatch.setattr(vtm_sim.files.state_files, "Battle", FakeBattle)
    assert load_state(p, seed=7) is sentinel
    assert got == [(data, 7)]


def test_a_machine_written_state_round_trips_when_from_state_exists(tmp_path: Path) -> None:
    b = load_state(write(tmp_path, BRIEF_EXAMPLE), seed=1)
    p = tmp_path / "saved.json"
    p.write_text(json.dumps(b.to_state()), encoding="utf-8")
    again = load_state(p)
    assert again.to_state() == json.loads(p.read_text(encoding="utf-8"))
    play(b)
    play(again)
    assert again.log.jsonl() == b.log.jsonl()


# --- the CLI ----------------------------------------------------------------------------


def test_state_show_says_the_situation_in_plain_words(tmp_path: Path) -> None:
    p = write(tmp_path, """\
        scenario: gunfight
        turn: 3
        combatants:
          Detective Ortiz: {damage: {lethal: 3}, willpower: 4, ammo: {heavy_revolver: 2},
                            at: [4, 10], prone: true}
          Patrol Officer#2: {damage: {bashing: 1, lethal: 2}, stunned: true}
          Shotgun Frankie: {ammo: {shotgun: 0}, aim: {target: Patrol Officer#1, dice: 1}}
        initiative: {Shotgun Frankie: 12, Detective Ortiz: 8}
        """)
    r = cli("state", "show", str(p))
    assert r.exit_code == 0, r.output
    out = r.stdout
    assert "turn 3 of 20 about to start" in out
    assert "Initiative given: Shotgun Frankie 12, Detective Ortiz 8 (the others roll)" in out
    assert "Police (side 0):" in out and "Bank robbers (side 1):" in out
    ortiz = next(line for line in out.splitlines() if "Detective Ortiz (" in line)
    assert "at (4, 10), prone" in ortiz and "injured (3 of 7 boxes: 3 lethal; XXX....)" in ortiz
    assert "-1 die" in ortiz and "Willpower 4 of 6" in ortiz
    assert "heavy_revolver 2 of 6 rounds (in hand)" in ortiz
    assert "in cover (squad car, good)" in out
    assert "stunned: loses this turn" in out
    assert "aiming at Patrol Officer#1 (1 die so far)" in out


def test_state_show_json(tmp_path: Path) -> None:
    p = write(tmp_path, STATES["grapple"])
    r = cli("state", "show", str(p), "--json")
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert data["turn"] == 3 and data["scenario"] == "grapple_and_bite"
    assert [i["name"] for i in data["initiative"]] == [
        "Luis the Cook", "Deputy Hollis", "The Thing in the Pines", "Earl the Trucker"]
    thing, earl, _cook, deputy = data["combatants"]
    assert thing["grapple"] == {"kind": "clinch", "with": "Earl the Trucker", "began": True}
    assert earl["grapple"] == {"kind": "clinch", "with": "The Thing in the Pines",
                               "began": False}
    assert thing["blood"] == {"left": 2, "of": 13}
    assert thing["health"]["level"] == "hurt" and thing["health"]["lethal"] == 2
    assert deputy["cover"] == {"name": "booth", "level": "light"} and deputy["prone"]
    assert deputy["weapons"][0]["rounds"] == 1


def test_state_show_a_staked_vampire(tmp_path: Path) -> None:
    p = write(tmp_path, "scenario: staking\ncombatants:\n  Voivode Anton, Tzimisce: "
                        "{staked: true}\n")
    r = cli("state", "show", str(p))
    assert r.exit_code == 0 and "STAKED" in r.stdout


@pytest.mark.parametrize("what", ["state", "scenario", "sheet"])
def test_schema_prints_the_json_schema(what: str) -> None:
    r = cli("schema", what)
    assert r.exit_code == 0, r.output
    schema = json.loads(r.stdout)
    keys = {"state": {"scenario", "turn", "combatants", "initiative"},
            "scenario": {"title", "combatants", "cover", "sides"},
            "sheet": {"name", "kind", "attributes", "weapons"}}[what]
    assert keys <= set(schema["properties"])


def test_schema_of_a_state_names_every_combatant_key() -> None:
    schema = json.loads(cli("schema", "state").stdout)
    props = set(schema["$defs"]["CombatantState"]["properties"])
    assert {"damage", "willpower", "blood", "ammo", "at", "prone", "wielding", "cover", "aim",
            "clinch", "holding", "staked", "stunned", "blinded", "facing"} <= props


# --- bad state files: one line naming the file and the key ----------------------------------

BAD = {
    "unknown top key": ("scenario: gunfight\nturns: 3\n", "turns", "unknown key"),
    "unknown combatant key": (
        "scenario: gunfight\ncombatants:\n  Detective Ortiz: {hp: 3}\n",
        "combatants.Detective Ortiz.hp", "unknown key"),
    "unknown damage type": (
        "scenario: gunfight\ncombatants:\n  Detective Ortiz: {damage: {fire: 1}}\n",
        "combatants.Detective Ortiz.damage.fire", "unknown key"),
    "damage past the track": (
        "scenario: gunfight\ncombatants:\n  Detective Ortiz: {damage: {lethal: 5, bashing: 3}}\n",
        "combatants.Detective Ortiz.damage", "health track has 7"),
    "ammo above the magazine": (
        "scenario: gunfight\ncombatants:\n  Detective Ortiz: {ammo: {heavy_revolver: 7}}\n",
        "combatants.Detective Ortiz.ammo.heavy_revolver", "at most 6"),
    "ammo negative": (
        "scenario: gunfight\ncombatants:\n  Detective Ortiz: {ammo: {heavy_revolver: -1}}\n",
        "combatants.Detective Ortiz.ammo.heavy_revolver", "greater than or equal to 0"),
    "ammo for a weapon not on the sheet": (
        "scenario: gunfight\ncombatants:\n  Detective Ortiz: {ammo: {shotgun: 2}}\n",
        "combatants.Detective Ortiz.ammo.shotgun", "no weapon 'shotgun'"),
    "ammo for a knife": (
        "scenario: knife_duel\ncombatants:\n  Knife Fighter: {ammo: {knife: 1}}\n",
        "combatants.Knife Fighter.ammo.knife", "no magazine"),
    "blood on a mortal": (
        "scenario: gunfight\ncombatants:\n  Detective Ortiz: {blood: 1}\n",
        "combatants.Detective Ortiz.blood", "no blood pool"),
    "blood above the pool": (
        "scenario: grapple_and_bite\ncombatants:\n  The Thing in the Pines: {blood: 14}\n",
        "combatants.The Thing in the Pines.blood", "at most 13"),
    "willpower above the sheet": (
        "scenario: gunfight\ncombatants:\n  Detective Ortiz: {willpower: 7}\n",
        "combatants.Detective Ortiz.willpower", "Willpower 6"),
    "unknown combatant": (
        "scenario: gunfight\ncombatants:\n  Inspector Clouseau: {willpower: 1}\n",
        "combatants.Inspector Clouseau", "no combatant named 'Inspector Clouseau'"),
    "ambiguous name": (
        "scenario: gunfight\ncombatants:\n  Patrol Officer: {willpower: 1}\n",
        "combatants.Patrol Officer", "Patrol Officer#1 or Patrol Officer#2"),
    "a third of two": (
        "scenario: gunfight\ncombatants:\n  Patrol Officer#3: {willpower: 1}\n",
        "combatants.Patrol Officer#3", "no Patrol Officer#3"),
    "the same combatant twice": (
        "scenario: duel\ncombatants:\n  Bar Brawler: {prone: true}\n"
        "  Bar Brawler#1: {prone: false}\n",
        "combatants.Bar Brawler#1", "already given"),
    "unknown weapon in hand": (
        "scenario: gunfight\ncombatants:\n  Detective Ortiz: {wielding: bazooka}\n",
        "combatants.Detective Ortiz.wielding", "no weapon 'bazooka'"),
    "unknown cover": (
        "scenario: gunfight\ncombatants:\n  Detective Ortiz: {cover: dumpster}\n",
        "combatants.Detective Ortiz.cover", "no cover zone named 'dumpster'"),
    "outside its cover": (
        "scenario: gunfight\ncombatants:\n  Detective Ortiz: {cover: squad car, at: [9, 9]}\n",
        "combatants.Detective Ortiz.at", "outside the cover zone 'squad car'"),
    "clinch with an ally": (
        "scenario: gunfight\ncombatants:\n  Detective Ortiz: {clinch: Patrol Officer#1}\n",
        "combatants.Detective Ortiz.clinch", "same side"),
    "clinch with oneself": (
        "scenario: gunfight\ncombatants:\n  Detective Ortiz: {clinch: Detective Ortiz}\n",
        "combatants.Detective Ortiz.clinch", "itself"),
    "hold on someone absent": (
        "scenario: gunfight\ncombatants:\n  Detective Ortiz: {holding: Earl the Trucker}\n",
        "combatants.Detective Ortiz.holding", "no combatant named 'Earl the Trucker'"),
    "two grapples at once": (
        "scenario: grapple_and_bite\ncombatants:\n"
        "  The Thing in the Pines: {clinch: Earl the Trucker}\n"
        "  Luis the Cook: {holding: The Thing in the Pines}\n",
        "combatants.Luis the Cook.holding", "already in a grapple"),
    "grapple with the fallen": (
        "scenario: grapple_and_bite\ncombatants:\n"
        "  The Thing in the Pines: {clinch: Earl the Trucker}\n"
        "  Earl the Trucker: {damage: {lethal: 7}}\n",
        "combatants.The Thing in the Pines.clinch", "out of the fight"),
    "staked mortal": (
        "scenario: gunfight\ncombatants:\n  Detective Ortiz: {staked: true}\n",
        "combatants.Detective Ortiz.staked", "only a vampire"),
    "aim beyond Perception": (
        "scenario: gunfight\ncombatants:\n"
        "  Detective Ortiz: {aim: {target: The Bagman, dice: 5}}\n",
        "combatants.Detective Ortiz.aim.dice", "Perception (4)"),
    "aim with a knife": (
        "scenario: knife_duel\ncombatants:\n"
        "  Knife Fighter: {aim: {target: Switchblade Sal, dice: 1}}\n",
        "combatants.Knife Fighter.aim", "firearm"),
    "turn zero": ("scenario: gunfight\nturn: 0\n", "turn", "greater than or equal to 1"),
    "turn past the limit": ("scenario: gunfight\nturn: 21\n", "turn", "turn limit of 20"),
    "initiative leaves someone out": (
        "scenario: duel\ninitiative: [Bar Brawler]\n", "initiative", "leaves out Knife Fighter"),
    "initiative of an unknown name": (
        "scenario: duel\ninitiative: {Bar Brawler: 8, Nobody: 3}\n",
        "initiative.Nobody", "no combatant named 'Nobody'"),
    "initiative not a total": (
        "scenario: duel\ninitiative: {Bar Brawler: high}\n", "initiative", "whole-number"),
    "unknown scenario": ("scenario: gunfigth\n", "scenario", "unknown"),
    "missing scenario": ("turn: 2\n", "scenario", "required key is missing"),
    "bad facing": (
        "scenario: duel\ncombatants:\n  Bar Brawler: {facing: 3}\n",
        "combatants.Bar Brawler.facing", "direction [dx, dy]"),
    "not a mapping": ("- scenario: duel\n", "top level", "expected a mapping"),
    "bad YAML": ("scenario: duel\ncombatants: {Bar Brawler: [\n", "invalid YAML", "line"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_a_bad_state_file_is_one_config_error_line(tmp_path: Path, case: str) -> None:
    text, key, expected = BAD[case]
    p = write(tmp_path, text)
    with pytest.raises(ConfigError) as err:
        load_state(p)
    msg = str(err.value)
    assert "\n" not in msg
    assert msg.startswith(f"{p}: "), msg
    assert f": {key}: " in msg or msg.startswith(f"{p}: {key}"), msg
    assert expected in msg, msg


@pytest.mark.parametrize("case", sorted(BAD))
def test_state_show_of_a_bad_file_exits_2_with_one_line(tmp_path: Path, case: str) -> None:
    text, key, _expected = BAD[case]
    p = write(tmp_path, text)
    r = cli("state", "show", str(p))
    assert r.exit_code == 2, r.output
    assert r.stdout == ""
    lines = r.stderr.splitlines()
    assert len(lines) == 1, r.stderr
    assert str(p) in lines[0] and key in lines[0]
    assert "Traceback" not in r.output
    assert r.exception is None or isinstance(r.exception, SystemExit)


def test_a_missing_file_and_bad_json_are_one_line(tmp_path: Path) -> None:
    r = cli("state", "show", str(tmp_path / "nope.yaml"))
    assert r.exit_code == 2 and r.stderr.count("\n") == 1 and "file not found" in r.stderr
    p = tmp_path / "bad.json"
    p.write_text('{"scenario": "duel",', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"bad\.json: invalid JSON at line 1"):
        read_state(p)


# --- the documentation's examples load ---------------------------------------------------


def _first_yaml_block(doc: str) -> str:
    text = (Path(__file__).resolve().parents[2] / "docs" / doc).read_text(encoding="utf-8")
    # the fence may name the file: ```yaml title="state.yaml"
    return text.split("```yaml", 1)[1].split("\n", 1)[1].split("```", 1)[0]


def test_the_example_of_docs_states_loads(tmp_path: Path) -> None:
    b = load_state(write(tmp_path, _first_yaml_block("states.md")), seed=0)
    assert b.turn == 3 and b.combatants[2].prone
    r = cli("state", "show", str(tmp_path / "state.yaml"))
    assert r.exit_code == 0 and "Ortiz went down" in r.stdout


def test_the_example_of_docs_scenarios_loads(tmp_path: Path) -> None:
    p = write(tmp_path, _first_yaml_block("scenarios.md"), "scenario.yaml")
    sc = load_scenario(str(p))
    assert len(sc.fighters) == 5 and sc.field.walls
