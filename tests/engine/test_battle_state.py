"""A battle as plain data: clone(), to_state() and from_state().

Mid-fight states of every shipped scenario, taken at every kind of decision
(blood, declaration, action, defense, inside a spray and an ambush), must
copy and save exactly: a clone and a reloaded battle continue with the same
dice and choices into a byte-identical rest of the log.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner, Result
from hypothesis import given, settings
from hypothesis import strategies as st

from vtm_sim.cli import main
from vtm_sim.core.choices import DecisionKind
from vtm_sim.core.dice import RngDice, ScriptedDice
from vtm_sim.data.tables import DamageType
from vtm_sim.engine.battle import Battle
from vtm_sim.engine.flow import Routine
from vtm_sim.errors import StateError
from vtm_sim.files.replay import replay
from vtm_sim.files.scenarios import list_scenarios, load_scenario
from vtm_sim.policies.nearest import NearestEnemyPolicy, RandomPolicy

SCENARIOS = list_scenarios()
NEAREST = NearestEnemyPolicy()


def advance(b: Battle, steps: int, rng: np.random.Generator | None = None) -> None:
    """``steps`` decisions by the nearest policy (or at random with ``rng``)."""
    pol = NearestEnemyPolicy() if rng is None else RandomPolicy(rng)
    for _ in range(steps):
        if b.pending is None:
            return
        b.choose(pol.choose(b, b.pending))


def continue_together(battles: list[Battle], rng: np.random.Generator, limit: int) -> None:
    """Drive every battle with the same random choices, asked of the first."""
    lead = battles[0]
    for _ in range(limit):
        d = lead.pending
        if d is None:
            break
        choice = d.options[int(rng.integers(len(d.options)))]
        for b in battles:
            assert b.pending is not None
            assert b.pending.kind is d.kind and b.pending.actor == d.actor
            assert b.pending.options == d.options
            b.choose(choice)
    for b in battles[1:]:
        assert b.pending is None if lead.pending is None else b.pending is not None


def round_trip(b: Battle) -> Battle:
    data = json.loads(json.dumps(b.to_state()))
    again = Battle.from_state(data)
    assert again.to_state() == data
    return again


def test_clone_continues_identically_and_independently() -> None:
    b = load_scenario("duel").battle(seed=11)
    advance(b, 9)
    c = b.clone()
    assert c.to_state() == b.to_state()
    before = b.to_state()
    # playing the clone to its end leaves the original untouched
    advance(c, 500, np.random.default_rng(1))
    assert c.pending is None
    assert b.to_state() == before
    # and the original, given the same choices, goes where a fresh clone goes
    d = b.clone()
    continue_together([b, d], np.random.default_rng(2), 500)
    assert b.log.jsonl() == d.log.jsonl()
    assert b.winner == d.winner and b.turn == d.turn


def test_clone_changes_never_reach_the_original() -> None:
    b = load_scenario("bar_brawl").battle(seed=4)
    advance(b, 15)
    c = b.clone()
    c.combatants[0].health.take(3, DamageType.LETHAL)
    c.combatants[1].ammo.append(99)
    c.combatants[1].grapple_turn[0] = 7
    c.stack[-1].ids += (42,)
    assert b.combatants[0].health.lethal != c.combatants[0].health.lethal
    assert 99 not in b.combatants[1].ammo
    assert 42 not in b.stack[-1].ids
    assert b.combatants[1].grapple_turn.get(0) != 7


def test_clone_with_other_dice_diverges_only_in_dice() -> None:
    b = load_scenario("duel").battle(seed=5)
    advance(b, 4)
    c = b.clone(dice=RngDice(np.random.default_rng(999)))
    advance(b, 400)
    advance(c, 400)
    assert b.log.jsonl() != c.log.jsonl()
    assert b.log.events[0] == c.log.events[0]


@pytest.mark.parametrize("name", SCENARIOS)
def test_every_decision_of_a_battle_round_trips(name: str) -> None:
    """Thousands of mid-fight states in all: every decision of 3 battles a scenario."""
    sc = load_scenario(name)
    kinds: set[DecisionKind] = set()
    for seed in range(3):
        b = sc.battle(seed=seed)
        rng = np.random.default_rng(seed)
        n = 0
        while b.pending is not None and n < 300:
            kinds.add(b.pending.kind)
            again = round_trip(b)
            assert again.pending is not None
            assert again.pending.options == b.pending.options
            if n % 25 == 4:  # continue some of them all the way
                c = b.clone()
                continue_together([c, again], np.random.default_rng(n), 400)
                assert c.log.jsonl() == again.log.jsonl()
            policy = RandomPolicy(rng) if seed % 2 else NEAREST
            b.choose(policy.choose(b, b.pending))
            n += 1
        if b.pending is None:
            assert round_trip(b).pending is None
    assert {DecisionKind.DECLARE, DecisionKind.ACT} <= kinds


@settings(max_examples=40, deadline=None)
@given(
    name=st.sampled_from(SCENARIOS),
    seed=st.integers(0, 10_000),
    steps=st.integers(0, 120),
    random_play=st.booleans(),
)
def test_saved_states_continue_byte_identically(name: str, seed: int, steps: int,
                                                random_play: bool) -> None:
    b = load_scenario(name).battle(seed=seed)
    advance(b, steps, np.random.default_rng(seed) if random_play else None)
    again = round_trip(b)
    continue_together([b, again], np.random.default_rng(seed + 1), 2000)
    assert b.log.jsonl() == again.log.jsonl()
    assert (b.winner, b.turn, b.end_reason) == (again.winner, again.turn, again.end_reason)
    replay(again.log)  # the whole log still replays


def test_states_inside_a_spray_and_an_ambush_round_trip() -> None:
    """The deepest frames: defenses asked one by one inside a spray (RNG-6), and the
    free attack of an ambush (ATK-11)."""
    seen: set[Routine] = set()
    for name in ("swat_raid", "ambushed_vampire", "bar_brawl"):
        sc = load_scenario(name)
        for seed in range(30):
            b = sc.battle(seed=seed)
            rng = np.random.default_rng(seed)
            while b.pending is not None:
                routines = {f.routine for f in b.stack}
                if (Routine.DEFEND in routines and b.stack[-2].plan is not None
                        and b.stack[-2].plan.maneuver == "spray") or Routine.AMBUSH in routines:
                    seen |= routines
                    again = round_trip(b)
                    continue_together([b.clone(), again], np.random.default_rng(seed), 50)
                b.choose(RandomPolicy(rng).choose(b, b.pending))
    assert Routine.AMBUSH in seen


def test_scripted_dice_states_round_trip() -> None:
    sc = load_scenario("duel")
    faces = [int(x) for x in np.random.default_rng(0).integers(1, 11, size=3000)]
    b = sc.battle(dice=ScriptedDice(faces))
    advance(b, 10)
    again = round_trip(b)
    continue_together([b, again], np.random.default_rng(3), 500)
    assert b.log.jsonl() == again.log.jsonl()


def test_a_state_without_its_log_heads_a_new_log_that_replays() -> None:
    b = load_scenario("gunfight").battle(seed=2)
    advance(b, 12)
    again = Battle.from_state(json.loads(json.dumps(b.to_state(log=False))))
    assert again.log.events[0]["e"] == "battle" and "state" in again.log.events[0]
    continue_together([b, again], np.random.default_rng(4), 2000)
    assert b.log.events[-1] == again.log.events[-1]
    replay(again.log)


def test_a_seed_restarts_the_dice_stream() -> None:
    b = load_scenario("duel").battle(seed=2)
    advance(b, 6)
    data = b.to_state()
    one = Battle.from_state(data, seed=1)
    two = Battle.from_state(data, seed=1)
    advance(one, 500)
    advance(two, 500)
    assert one.log.jsonl() == two.log.jsonl()
    assert one.seed == 1


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda d: d.update(format="other"), "not a saved battle state"),
        (lambda d: d.update(version=99), "version"),
        (lambda d: d["pending"].update(actor=1 - d["pending"]["actor"]), "pending"),
        (lambda d: d["combatants"][0].pop("willpower"), "malformed"),
        (lambda d: d.update(pending=None), "pending"),
        (lambda d: d["dice"].update(kind="loaded"), "dice"),
    ],
)
def test_a_broken_state_is_refused_in_one_line(edit: object, message: str) -> None:
    b = load_scenario("duel").battle(seed=2)
    advance(b, 5)
    data = json.loads(json.dumps(b.to_state()))
    edit(data)  # type: ignore[operator]
    with pytest.raises(StateError, match=message) as info:
        Battle.from_state(data)
    assert "\n" not in str(info.value)


# --- the command line -------------------------------------------------------------------


def _cli(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


@pytest.mark.parametrize(("scenario", "seed", "turn"), [("gunfight", 7, 2), ("duel", 3, 1),
                                                         ("bar_brawl", 5, 3)])
def test_fight_saved_mid_way_continues_into_the_same_battle(
        tmp_path: Path, scenario: str, seed: int, turn: int) -> None:
    whole = _cli("fight", scenario, "--seed", str(seed), "--json")
    assert whole.exit_code == 0, whole.output
    saved = tmp_path / "s.json"
    first = _cli("fight", scenario, "--seed", str(seed), "--stop-after-turn", str(turn),
                 "--save-state", str(saved), "--json")
    assert first.exit_code == 0, first.output
    part = json.loads(first.output)
    assert part["reason"] == "stopped" and part["stopped_at_turn"] == turn + 1
    state = json.loads(saved.read_text(encoding="utf-8"))
    assert state["turn"] == turn + 1 and state["pending"]["kind"] in ("blood", "declare")
    rest = _cli("fight", "--state", str(saved), "--json")
    assert rest.exit_code == 0, rest.output
    a, b = json.loads(whole.output), json.loads(rest.output)
    for key in ("winner", "turns", "reason", "log_sha256", "events", "final", "seed"):
        assert a[key] == b[key], key
    # the file alone works too, and so does a log that replays
    log = tmp_path / "rest.jsonl"
    alone = _cli("fight", str(saved), "--log", str(log))
    assert alone.exit_code == 0, alone.output
    assert _cli("replay", str(log)).exit_code == 0


def test_fight_from_a_saved_state_with_a_seed_rolls_new_dice(tmp_path: Path) -> None:
    saved = tmp_path / "s.json"
    assert _cli("fight", "duel", "--stop-after-turn", "1", "--save-state", str(saved)
                ).exit_code == 0
    runs = [json.loads(_cli("fight", "--state", str(saved), "--seed", str(s), "--json").output)
            for s in (1, 1, 2)]
    assert runs[0] == runs[1]
    assert runs[0]["log_sha256"] != runs[2]["log_sha256"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["fight", "--state", "{missing}"], "not found"),
        (["fight", "--state", "{bad}"], "bad.json"),
        (["fight", "duel", "--state", "{saved}"], "not both"),
        (["fight", "--state", "{saved}", "--rules", "dark_ages"], "--rules"),
        (["fight"], "expected a scenario"),
    ],
)
def test_fight_state_mistakes_are_one_line_errors(tmp_path: Path, args: list[str],
                                                  message: str) -> None:
    saved = tmp_path / "saved.json"
    _cli("fight", "duel", "--stop-after-turn", "1", "--save-state", str(saved))
    bad = tmp_path / "bad.json"
    data = json.loads(saved.read_text(encoding="utf-8"))
    data["pending"]["actor"] = 1 - data["pending"]["actor"]
    bad.write_text(json.dumps(data), encoding="utf-8")
    paths = {"missing": str(tmp_path / "nope.json"), "bad": str(bad), "saved": str(saved)}
    r = CliRunner().invoke(main, [a.format(**paths) for a in args])
    assert r.exit_code == 2, r.output
    lines = r.output.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], r.output
    assert "Traceback" not in r.output
