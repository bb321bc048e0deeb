"""Fleeing and jumping inside a battle (MOVE-3, MOVE-4, seed 003).

A combatant who flees starts a chase (lead -> successes, Dexterity + Athletics
each turn); enemies pursue by choice; the quarry is caught, or escapes and is
out of the fight with its own result. Gaps and low obstacles on the field are
jumped (Strength, difficulty 3, 4 ft across / 2 ft up a success) or gone around.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from vtm_sim.analysis.advice import advise
from vtm_sim.cli import main
from vtm_sim.core.choices import (
    Action,
    ActionKind,
    BloodSpend,
    BloodUse,
    Choice,
    Decision,
    DecisionKind,
)
from vtm_sim.core.dice import DiceSource, RngDice
from vtm_sim.core.relations import Chase
from vtm_sim.core.space import Field, Obstacle, ObstacleKind
from vtm_sim.data.config import config_dir
from vtm_sim.data.rules import RuleSet, load_rules
from vtm_sim.data.stat_blocks import StatBlock, load_stat_block
from vtm_sim.engine.battle import Battle, Fighter
from vtm_sim.engine.chase import tired
from vtm_sim.events import CaughtEvent, ChaseEvent, EscapeEvent, FleeEvent, JumpEvent, RollEvent
from vtm_sim.files.replay import replay
from vtm_sim.files.scenarios import list_scenarios, load_scenario
from vtm_sim.files.state_files import load_state
from vtm_sim.policies.nearest import NearestEnemyPolicy
from vtm_sim.policies.play import play
from vtm_sim.policies.tactician import TacticianPolicy


def sheet(name: str) -> StatBlock:
    return load_stat_block(config_dir() / "characters" / f"{name}.yaml")


class Const:
    """Every die shows ``face`` (a Storyteller's loaded dice, for exact tests)."""

    def __init__(self, face: int) -> None:
        self.face = face

    def faces(self, n: int) -> list[int]:
        return [self.face] * n

    def clone(self) -> Const:
        return Const(self.face)


def _calm(d: Decision) -> Choice:
    """No blood, one action, no defense: the first option of the other decisions."""
    if d.kind is DecisionKind.BLOOD:
        return next(o for o in d.options if isinstance(o, BloodSpend) and o.use is BloodUse.NONE)
    return d.options[0]


class Runner:
    """Flees whenever it can."""

    def choose(self, battle: Battle, d: Decision) -> Choice:
        for o in d.options:
            if isinstance(o, Action) and o.kind is ActionKind.FLEE:
                return o
        if d.kind is DecisionKind.ACT:
            return next(o for o in d.options if isinstance(o, Action)
                        and o.kind in (ActionKind.PASS, ActionKind.GET_UP))
        return _calm(d)


class Chaser:
    """Pursues whenever it can (``pursue=False``: never), else passes."""

    def __init__(self, pursue: bool = True) -> None:
        self.pursue = pursue

    def choose(self, battle: Battle, d: Decision) -> Choice:
        if d.kind is DecisionKind.ACT:
            for o in d.options:
                if self.pursue and isinstance(o, Action) and o.kind is ActionKind.PURSUE:
                    return o
            return next(o for o in d.options if isinstance(o, Action) and o.kind is ActionKind.PASS)
        return _calm(d)


def chase_battle(quarry: str, pursuer: str, lead: float, *, dice: DiceSource,
                 rules: RuleSet | None = None, field: Field | None = None,
                 start: bool = True) -> Battle:
    fighters = [Fighter(sheet(quarry), 0, 0.0, 0.0), Fighter(sheet(pursuer), 1, lead, 0.0)]
    return Battle(fighters, dice=dice, rules=rules, field=field or Field(), start=start)


def of(b: Battle, cls: type) -> list:  # type: ignore[type-arg]
    return [e for e in b.log if isinstance(e, cls)]


def stand_in(margin: int = 5, **more: object) -> RuleSet:
    """v20 with MOVE-4's old stand-in (a quarry ``margin`` successes ahead escapes) in
    place of MOVE-5's Perception rolls, and no "much faster" rule."""
    return load_rules("v20").model_copy(update={
        "chase_escape_margin": margin, "chase_perception": False, "chase_much_faster": 0.0,
        **more})


def test_move4_a_flee_that_outruns_the_pursuit_escapes_and_loses_the_field() -> None:
    """MOVE-5's stand-in (``chase_escape_margin``, a profile option): 5 ahead escapes."""
    # the elder (vampire, Dex 4 + Athletics 3) runs from a barfly (Dex 2 + Athletics 1)
    b = chase_battle("elder", "barfly", 10.0, dice=Const(6), rules=stand_in())
    play(b, [Runner(), Chaser()])
    flee = of(b, FleeEvent)[0]
    assert (flee.who, flee.lead, flee.start) == (0, 10.0, 5)  # MOVE-4: 1 success / 2 yards
    rolls = [(e.who, e.added, e.total) for e in of(b, ChaseEvent)]
    assert rolls == [(0, 7, 12), (1, 3, 3)]
    assert [(e.who, e.reason) for e in of(b, EscapeEvent)] == [(0, "outran")]
    elder = b.combatants[0]
    assert elder.escaped and elder.active and elder.chase is None  # not down: escaped
    assert (b.winner, b.end_reason) == (1, "escape")  # the side left standing holds the field
    replay(b.log)  # every event, the new kinds too, replays


@pytest.mark.parametrize(("face", "lost"), [(6, True), (10, False)])
def test_MOVE_5_a_perception_roll_a_turn_at_plus_one_per_success_of_lead(
        face: int, lost: bool) -> None:
    """MOVE-5 (003: «увеличивает для преследователя сложность всех бросков на Восприятие
    на 1», each success of lead raises the pursuer's Perception difficulty by 1; «Если
    преследователя постигла неудача ... его цель ... исчезла», on a failure the quarry
    has vanished): the ghoul (lead 4 yards = 2, then 8) leads the Gangrel (6) by 4: the
    Gangrel rolls Perception 3 at 10; 6s fail and lose it (it escapes), 10s keep it."""
    b = chase_battle("ghoul_runner", "neonate_gangrel", 4.0, dice=Const(face))
    pols = [Runner(), Chaser()]
    while b.pending is not None and b.turn < 2:
        b.choose(pols[b.pending.actor].choose(b, b.pending))
    sight = [e for e in of(b, RollEvent) if e.what == "sight"]
    assert (sight[0].who, sight[0].pool, sight[0].diff) == (1, 3, 6 + (2 + 8 - 6))
    if lost:
        assert [(e.who, e.reason) for e in of(b, EscapeEvent)] == [(0, "lost")]
        assert [e for e in b.log if getattr(e, "action", None) == "lost_sight"]
    else:
        assert not of(b, EscapeEvent) and b.combatants[0].chase is not None


def test_MOVE_5_a_pursuer_that_lost_sight_pursues_no_more() -> None:
    """MOVE-5: a pursuer who lost the quarry is no longer offered PURSUE at it, and the
    chase (its ``lost``) saves and loads."""
    from vtm_sim.engine.chase import can_pursue

    b = chase_battle("ghoul_runner", "neonate_gangrel", 4.0, dice=Const(6))
    q, p = b.combatants
    q.chase = Chase(5, 4.0, b.turn, lost=(1,))
    assert not can_pursue(b, p, q)
    assert Chase.from_json(q.chase.to_json()) == q.chase
    assert "lost" not in Chase(5, 4.0, 1).to_json()  # older states stay as they were


@pytest.mark.parametrize("ratio", [2.0, 0.0])
def test_MOVE_5_a_much_faster_pursuer_catches_up_without_rolls(ratio: float) -> None:
    """MOVE-5 (003: «если кто-либо из участников погони гораздо быстрее другого, то он
    без труда догонит преследуемого или убежит», one much faster catches up or gets away
    without trouble): a Wounded barfly (cannot run: 13 yards) flees the elder (32):
    ``chase_much_faster`` 2 catches it with no chase roll; 0 (off) rolls."""
    from vtm_sim.data.tables import DamageType

    rules = load_rules("v20").model_copy(update={"chase_much_faster": ratio})
    b = chase_battle("barfly", "elder", 6.0, dice=Const(2), rules=rules, start=False)
    b.combatants[0].health.take(4, DamageType.BASHING)  # Wounded (DMG-9: no running)
    b.begin()
    pols = [Runner(), Chaser()]
    while b.pending is not None and b.turn < 3 and not of(b, CaughtEvent):
        b.choose(pols[b.pending.actor].choose(b, b.pending))
    elder_rolls = [e for e in of(b, RollEvent) if e.what == "chase" and e.who == 1]
    if ratio:
        assert of(b, CaughtEvent) and not elder_rolls
    else:
        assert elder_rolls


@pytest.mark.parametrize("ratio", [2.0, 0.0])
def test_MOVE_5_a_much_faster_quarry_gets_away_without_a_perception_roll(ratio: float) -> None:
    """MOVE-5: the elder (32 yards) runs from a Wounded barfly (13): away at the turn's
    end (``outpaced``) with ``chase_much_faster`` 2; off, the barfly rolls Perception."""
    from vtm_sim.data.tables import DamageType

    rules = load_rules("v20").model_copy(update={"chase_much_faster": ratio})
    b = chase_battle("elder", "barfly", 6.0, dice=Const(2), rules=rules, start=False)
    b.combatants[1].health.take(4, DamageType.BASHING)
    b.begin()
    play(b, [Runner(), Chaser()])
    sight = [e for e in of(b, RollEvent) if e.what == "sight"]
    reason = [e.reason for e in of(b, EscapeEvent)]
    assert (reason, bool(sight)) == ((["outpaced"], False) if ratio else (["lost"], True))


def test_MOVE_5_the_margin_stand_in_is_only_an_option() -> None:
    """MOVE-5: the old stand-in (a quarry 5 successes ahead escapes) is the profile
    option ``chase_escape_margin``, off (0) in both shipped profiles."""
    assert load_rules("v20").chase_escape_margin == 0
    assert load_rules("dark_ages").chase_escape_margin == 0
    b = chase_battle("elder", "barfly", 10.0, dice=Const(6))
    play(b, [Runner(), Chaser()])
    assert [e.reason for e in of(b, EscapeEvent)] == ["lost"]  # Perception, not the margin


def test_move4_nobody_gives_chase_the_quarry_gets_away_after_a_turn() -> None:
    b = chase_battle("barfly", "elder", 3.0, dice=Const(6))
    play(b, [Runner(), Chaser(pursue=False)])
    assert [(e.who, e.reason) for e in of(b, EscapeEvent)] == [(0, "unpursued")]
    assert b.turn == 2 and b.winner == 1 and b.end_reason == "escape"
    replay(b.log)


def test_move4_a_flee_that_is_caught_goes_back_to_the_fight() -> None:
    # the barfly (3 dice) with a 2-yard lead (1 success) runs from the elder (7 dice)
    b = chase_battle("barfly", "elder", 2.0, dice=Const(6))
    pols = [Runner(), Chaser()]
    while b.pending is not None and not of(b, CaughtEvent):
        b.choose(pols[b.pending.actor].choose(b, b.pending))
    caught = of(b, CaughtEvent)[0]
    assert (caught.who, caught.quarry, caught.dead_end) == (1, 0, False)
    assert [(e.who, e.total, e.rival) for e in of(b, ChaseEvent)] == [(0, 4, -1), (1, 7, 4)]
    barfly, elder = b.combatants
    assert barfly.chase is None and not barfly.escaped and b.able(barfly)
    assert barfly.distance(elder) == pytest.approx(1.0, abs=0.01)  # beside the quarry
    assert not of(b, EscapeEvent)


def _tired_rolls(quarry: str) -> list[int]:
    rules = stand_in(20)
    b = chase_battle(quarry, "neonate_gangrel", 1.0, dice=Const(6), rules=rules)
    play(b, [Runner(), Chaser()])
    return [e.tired for e in of(b, ChaseEvent) if e.who == 0]


def test_move4_mortals_tire_after_the_profile_turns_vampires_do_not() -> None:
    # a ghoul runner (mortal body: Dex 4 + Athletics 4) outpaces a Gangrel (6 dice) until
    # it tires; a vampire as quick never does
    mortal = _tired_rolls("ghoul_runner")
    assert mortal[:5] == [0, 0, 0, 1, 2]  # v20: chase_fatigue_turns 3
    vampire = _tired_rolls("anarch_enforcer")
    assert vampire and set(vampire) == {0}


def test_move4_fatigue_is_a_rules_profile_option() -> None:
    assert load_rules("v20").chase_fatigue_turns == 3
    b = chase_battle("barfly", "elder", 2.0, dice=Const(6), rules=RuleSet(
        **{**load_rules("v20").model_dump(), "chase_fatigue_turns": 1}))
    barfly, elder = b.combatants
    assert [tired(b, barfly, n) for n in range(4)] == [0, 1, 2, 3]  # after 1 roll made
    assert [tired(b, elder, n) for n in range(4)] == [0, 0, 0, 0]


def test_move4_only_a_changed_chase_option_reaches_the_log_header() -> None:
    plain = chase_battle("barfly", "elder", 2.0, dice=Const(6))
    assert "chase_fatigue_turns" not in plain.log.events[0].rules
    house = chase_battle("barfly", "elder", 2.0, dice=Const(6), rules=RuleSet(
        **{**load_rules("v20").model_dump(), "chase_fatigue_turns": 1}))
    assert house.log.events[0].rules["chase_fatigue_turns"] == 1


GAP = Obstacle("alley gap", ObstacleKind.GAP, 6.0, -20.0, 6.0, 20.0, 8.0)


def gap_battle(face: int, obstacle: Obstacle = GAP) -> Battle:
    fighters = [Fighter(sheet("brawler"), 0, 0.0, 0.0),
                Fighter(sheet("knife_fighter"), 1, 12.0, 0.0)]
    return Battle(fighters, dice=Const(face), field=Field(obstacles=(obstacle,)))


def _first_turn(b: Battle) -> None:
    pol = NearestEnemyPolicy()
    while b.pending is not None and b.turn <= 1:
        b.choose(pol.choose(b, b.pending))


def test_move3_a_running_jump_clears_a_gap_in_a_battle() -> None:
    b = gap_battle(6)
    _first_turn(b)
    jump = of(b, JumpEvent)[0]  # the knife fighter (initiative 12) runs 6 yards, then jumps
    assert (jump.who, jump.obstacle, jump.running, jump.ok) == (1, "alley gap", True, True)
    roll = next(e for e in of(b, RollEvent) if e.what == "jump")
    assert (roll.pool, roll.diff) == (6, 3)  # MOVE-3: Strength 4 + Athletics 2, difficulty 3
    assert jump.reached == 24.0 >= jump.feet  # 6 successes x 4 ft across
    assert b.combatants[1].x < 6.0  # across
    replay(b.log)


def test_move3_a_short_jump_stops_at_the_gap_and_the_blow_misses() -> None:
    """MOVE-6 (003: «он может еще сделать бросок Ловкость+Атлетика (обычно со сложностью
    6) для того, чтобы еще зацепиться за край», a Dexterity + Athletics roll at 6 to catch
    the edge): the jump falls short, the landing roll fails, the jumper is down."""
    b = gap_battle(2)  # every die a 2: no success, no botch
    _first_turn(b)
    jump = of(b, JumpEvent)[0]
    assert (jump.who, jump.ok, jump.reached, jump.prone) == (1, False, 0.0, True)
    landing = next(e for e in of(b, RollEvent) if e.what == "landing")
    assert (landing.pool, landing.diff) == (3 + 2, 6)  # 003: Dexterity + Athletics at 6
    knife = b.combatants[1]
    assert knife.x == pytest.approx(6.0, abs=0.01) and knife.prone
    replay(b.log)


def test_move3_a_low_obstacle_with_a_way_around_costs_yards_not_a_roll() -> None:
    crates = Obstacle("crates", ObstacleKind.LOW, 9.0, -5.0, 9.0, 5.0, 3.0, 2.0)
    b = gap_battle(6, crates)
    _first_turn(b)
    jump = of(b, JumpEvent)[0]
    assert (jump.obstacle, jump.ok, jump.detour) == ("crates", True, 2.0)
    assert not [e for e in of(b, RollEvent) if e.what == "jump"]


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_move3_a_state_file_adds_an_obstacle_that_replays(tmp_path: Path) -> None:
    state = write(tmp_path / "state.yaml", """\
scenario: duel
turn: 2
combatants:
  Knife Fighter: {at: [12, 0]}
obstacles:
  - {name: dumpster, kind: low, line: [[6, -3], [6, 3]], height: 4, detour: 3}
  - {name: drain, kind: gap, line: [[3, -10], [3, 10]], width: 3}
""")
    b = load_state(state, seed=4)
    assert [(o.name, o.kind, o.feet, o.detour) for o in b.field.obstacles] == [
        ("dumpster", ObstacleKind.LOW, 4.0, 3.0), ("drain", ObstacleKind.GAP, 3.0, None)]
    play(b)
    assert of(b, JumpEvent)
    assert replay(b.log).log.sha256() == b.log.sha256()
    r = CliRunner().invoke(main, ["fight", "--state", str(state), "--seed", "4", "--narrate"])
    assert r.exit_code == 0, r.output


@pytest.mark.parametrize(
    ("entry", "needle"),
    [
        ("{kind: pit, line: [[0, 0], [0, 5]], width: 3}", "obstacles.0.kind"),
        ("{kind: gap, line: [[0, 0], [0, 5]]}", "a gap needs width"),
        ("{kind: low, line: [[0, 0], [0, 5]], height: 2, width: 3}", "not a width"),
        ("{kind: gap, line: [[0, 0], [0, 0]], width: 3}", "the same point"),
        ("{kind: gap, line: [[0, 0]], width: 3}", "obstacles.0.line"),
        ("{kind: gap, line: [[0, 0], [0, 5]], width: -1}", "obstacles.0.width"),
        ("{kind: gap, line: [[0, 0], [0, 5]], width: 3, bridge: yes}", "obstacles.0.bridge"),
    ],
)
def test_move3_bad_obstacles_are_one_line_errors(tmp_path: Path, entry: str, needle: str) -> None:
    chars = config_dir() / "characters"
    scenario = write(tmp_path / "bad.yaml", f"""\
title: Bad
combatants:
  - {{sheet: {chars / 'brawler.yaml'}, side: 0}}
  - {{sheet: {chars / 'thug.yaml'}, side: 1, at: [5, 0]}}
obstacles:
  - {entry}
""")
    state = write(tmp_path / "state.yaml", f"scenario: duel\nobstacles:\n  - {entry}\n")
    for args in (["fight", str(scenario)], ["state", "show", str(state)]):
        r = CliRunner().invoke(main, args)
        lines = r.output.strip().splitlines()
        assert r.exit_code == 2, r.output
        assert len(lines) == 1 and needle in lines[0], lines
        assert "Traceback" not in r.output


def test_move3_obstacle_names_are_unique(tmp_path: Path) -> None:
    state = write(tmp_path / "state.yaml", """\
scenario: duel
obstacles:
  - {name: gap, kind: gap, line: [[1, 0], [1, 5]], width: 3}
  - {name: gap, kind: gap, line: [[2, 0], [2, 5]], width: 3}
""")
    r = CliRunner().invoke(main, ["state", "show", str(state)])
    assert r.exit_code == 2 and "obstacles.1.name" in r.output
    assert len(r.output.strip().splitlines()) == 1


def test_move4_flee_is_a_legal_option_suggest_ranks(tmp_path: Path) -> None:
    state = write(tmp_path / "state.yaml", """\
scenario: duel
turn: 3
combatants:
  Bar Brawler: {damage: {lethal: 4}}
  Knife Fighter: {at: [6, 0]}
""")
    r = CliRunner().invoke(main, ["suggest", str(state), "--npc", "Bar Brawler", "--decision",
                                  "act", "--rollouts", "20", "--policy", "tactician", "--seed", "1",
                                  "--json"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    flee = [o for o in data["options"] if o["action"] == "Flee"]
    assert len(flee) == 1
    assert isinstance(flee[0]["p_win"], float) and flee[0]["p_hit"] is None
    assert "6-yard lead" in flee[0]["reason"] and "3 successes" in flee[0]["reason"]
    # every ranked option, flee too, is legal at that decision
    b = load_state(state, seed=1)
    a = advise(b, 0, playout=lambda i: TacticianPolicy(), policy_name="tactician",
               rollouts=10, seed=1, kind=DecisionKind.ACT)
    probe = b.clone()
    pols = [TacticianPolicy(), TacticianPolicy()]
    while probe.pending is not None and not (probe.pending.actor == 0
                                             and probe.pending.kind is DecisionKind.ACT):
        probe.choose(pols[probe.pending.actor].choose(probe, probe.pending))
    assert probe.pending is not None
    assert {o.choice for o in a.options} == set(probe.pending.options)


def test_move4_a_battle_saved_mid_chase_continues_identically() -> None:
    b = chase_battle("ghoul_runner", "neonate_gangrel", 4.0, dice=RngDice(np.random.default_rng(3)),
                     rules=stand_in())
    pols = [Runner(), Chaser()]
    while b.pending is not None and not (b.combatants[0].chase is not None
                                         and b.combatants[0].chase.pursuers):
        b.choose(pols[b.pending.actor].choose(b, b.pending))
    assert b.pending is not None
    saved = json.loads(json.dumps(b.to_state()))
    assert saved["combatants"][0]["chase"]["pursuers"]
    loaded = Battle.from_state(saved)
    twin = b.clone()
    assert isinstance(loaded.combatants[0].chase, Chase)
    for x in (b, loaded, twin):
        play(x, pols)
    assert loaded.log.jsonl() == b.log.jsonl() == twin.log.jsonl()
    assert of(b, CaughtEvent) or of(b, EscapeEvent)


@pytest.mark.parametrize("name", list_scenarios())
def test_move4_scripted_policies_do_not_flee(name: str) -> None:
    sc = load_scenario(name)
    for seed in range(3):
        for pol in (NearestEnemyPolicy(), TacticianPolicy()):
            b = play(sc.battle(seed=seed), [pol] * len(sc.fighters))
            assert not of(b, FleeEvent)


def test_move4_flee_is_offered_exactly_when_the_rules_allow_it() -> None:
    from vtm_sim.engine.chase import can_flee
    from vtm_sim.policies.nearest import RandomPolicy

    flee = Action(ActionKind.FLEE)
    for name in ("gunfight", "bar_brawl", "grapple_and_bite"):
        sc = load_scenario(name)
        b = sc.battle(seed=5)
        pol = RandomPolicy(np.random.default_rng(5))
        while b.pending is not None:
            d = b.pending
            c = b.combatants[d.actor]
            if d.kind is DecisionKind.ACT and c.fed_on_by < 0 and c.held_by < 0 and (
                c.clinch_with < 0 and c.feeding_on < 0 and c.holding < 0
            ) and b.stack[-1].routine.value == "act":
                assert (flee in d.options) == can_flee(b, c), (name, c.name, b.turn)
            b.choose(pol.choose(b, d))


MID_CHASE = """\
scenario: duel
turn: 3
combatants:
  Knife Fighter:
    fleeing: {successes: 6, turns: 3}
    at: [20, 0]
  Bar Brawler:
    pursuing: {target: Knife Fighter, successes: 4, turns: 2}
"""


def test_move4_a_state_file_starts_mid_chase_and_replays(tmp_path: Path) -> None:
    state = write(tmp_path / "state.yaml", MID_CHASE)
    b = load_state(state, seed=2)
    ch = b.combatants[1].chase
    assert ch is not None and (ch.total, ch.rolls, ch.started) == (6, 3, 2)
    assert [(p.id, p.total, p.rolls) for p in ch.pursuers] == [(0, 4, 2)]
    pols = [Chaser(), Runner()]
    while b.pending is not None and not of(b, ChaseEvent):
        d = b.pending
        if d.actor == 1 and d.kind is DecisionKind.ACT:  # MOVE-4: a quarry keeps running
            assert [o.kind for o in d.options if isinstance(o, Action)] == [ActionKind.FLEE]
        b.choose(pols[d.actor].choose(b, d))
    first = of(b, ChaseEvent)[0]
    if first.who == 1:  # the quarry's 4th roll: a mortal past 3 turns loses a die (003)
        assert first.tired == 1 and first.total >= 6
    else:  # the pursuer's 3rd roll: still at full pace
        assert first.tired == 0 and first.rival == 6 and first.total >= 4
    play(b, pols)
    ends = [i for i, e in enumerate(b.log) if isinstance(e, CaughtEvent | EscapeEvent)]
    assert ends  # caught or away
    # it fled before the state: no new flight (no new lead) until that chase is over
    assert not [e for e in list(b.log)[:ends[0]] if isinstance(e, FleeEvent)]
    assert replay(b.log).log.sha256() == b.log.sha256()
    r = CliRunner().invoke(main, ["state", "show", str(state), "--json"])
    assert r.exit_code == 0, r.output
    shown = {c["name"]: c for c in json.loads(r.output)["combatants"]}
    assert shown["Knife Fighter"]["fleeing"] == {"successes": 6, "turns": 3}
    assert shown["Bar Brawler"]["pursuing"] == {"target": "Knife Fighter", "successes": 4,
                                                "turns": 2}


def test_move4_nobody_pursuing_a_state_files_quarry_lets_it_go(tmp_path: Path) -> None:
    state = write(tmp_path / "state.yaml", """\
scenario: duel
turn: 2
combatants:
  Knife Fighter: {fleeing: {successes: 3}, at: [25, 0]}
""")
    b = load_state(state, seed=1)
    play(b, [Chaser(pursue=False), Runner()])
    esc = of(b, EscapeEvent)
    assert [(e.who, e.reason) for e in esc] == [(1, "unpursued")]
    assert b.combatants[1].escaped and b.turn == 2  # away at the end of its first turn


@pytest.mark.parametrize(
    ("combatants", "needle"),
    [
        ("  Bar Brawler: {pursuing: {target: Knife Fighter}}",
         "combatants.Bar Brawler.pursuing.target: Knife Fighter is not fleeing"),
        ("  Knife Fighter: {fleeing: {successes: 2}}\n"
         "  Bar Brawler: {pursuing: {target: Knife Fighter, successes: 3}}",
         "combatants.Bar Brawler.pursuing.successes: 3, but past the quarry's 2"),
        ("  Knife Fighter: {fleeing: {successes: -1}}",
         "combatants.Knife Fighter.fleeing.successes"),
        ("  Knife Fighter: {fleeing: {successes: 2, turns: 0}}",
         "combatants.Knife Fighter.fleeing.turns"),
        ("  Knife Fighter: {fleeing: {successes: 2, lead: 4}}",
         "combatants.Knife Fighter.fleeing.lead"),
        ("  Knife Fighter: {fleeing: {successes: 2}, damage: {lethal: 7}}",
         "combatants.Knife Fighter.fleeing: Knife Fighter is out of the fight"),
        ("  Knife Fighter: {fleeing: {successes: 2}, clinch: Bar Brawler}",
         "combatants.Knife Fighter.fleeing: Knife Fighter is in a grapple"),
        ("  Knife Fighter: {fleeing: {successes: 2}}\n"
         "  Bar Brawler: {fleeing: {successes: 2}, pursuing: {target: Knife Fighter}}",
         "combatants.Bar Brawler.pursuing: Bar Brawler is fleeing"),
        ("  Bar Brawler: {pursuing: {target: Bar Brawler}}",
         "combatants.Bar Brawler.pursuing.target: a combatant cannot run after itself"),
        ("  Bar Brawler: {pursuing: {target: Nobody}}",
         "combatants.Bar Brawler.pursuing.target: no combatant named 'Nobody'"),
    ],
)
def test_move4_bad_chase_keys_are_one_line_errors(tmp_path: Path, combatants: str,
                                                   needle: str) -> None:
    state = write(tmp_path / "state.yaml", f"scenario: duel\nturn: 2\ncombatants:\n{combatants}\n")
    r = CliRunner().invoke(main, ["state", "show", str(state)])
    lines = r.output.strip().splitlines()
    assert r.exit_code == 2, r.output
    assert len(lines) == 1 and str(state) in lines[0] and needle in lines[0], lines
