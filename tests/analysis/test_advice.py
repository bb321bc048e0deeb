"""vtm-sim suggest and the advice behind it: legal options, exact odds, win chances.

The exact odds of an exchange are checked against a brute-force walk over
every die face the fork can read (faces grouped by what they mean at
difficulty 6: a 1, a failure, a success), against ``attack --odds``'s library
(:func:`vtm_sim.engine.exchange.exchange_odds`) and against the DEF-3 abort mixture.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner
from rule_helpers import block

from vtm_sim.analysis.advice import advise, exchange_of, find_combatant
from vtm_sim.cli import main
from vtm_sim.core.choices import (
    Action,
    ActionKind,
    Choice,
    DecisionKind,
    Declaration,
    DefenseKind,
)
from vtm_sim.engine.battle import Battle, Fighter
from vtm_sim.engine.exchange import exchange_odds
from vtm_sim.engine.flow import Routine
from vtm_sim.errors import ConfigError
from vtm_sim.events import EventKind
from vtm_sim.files.scenarios import load_scenario
from vtm_sim.policies.nearest import NearestEnemyPolicy

NEAREST = NearestEnemyPolicy()
REPS = ((1, 0.1), (2, 0.4), (6, 0.5))  # at difficulty 6: a one, a failure, a success


class _Out(Exception):
    pass


class _Prefix:
    """The given faces, then _Out."""

    def __init__(self, faces: list[int]) -> None:
        self.faces_left = list(faces)

    def faces(self, n: int) -> list[int]:
        if n > len(self.faces_left):
            raise _Out
        out, self.faces_left = self.faces_left[:n], self.faces_left[n:]
        return out


def brute_force(b: Battle, choice: Action) -> tuple[float, float, float]:
    """(p_hit, p_damage, expected levels) of ``choice`` by walking every face."""
    target = choice.target
    assert target is not None
    start = len(b.log)
    totals = [0.0, 0.0, 0.0]

    def walk(prefix: list[int], weight: float) -> None:
        fork = b.clone(dice=_Prefix(prefix))
        try:
            fork.choose(choice)
            while fork.pending is not None and any(
                    f.routine is Routine.ATTACK for f in fork.stack):
                d = fork.pending
                fork.choose(NEAREST.choose(fork, d))
        except _Out:
            if any(f.routine is Routine.ATTACK for f in fork.stack):
                for face, w in REPS:
                    walk([*prefix, face], weight * w)
                return
        evs = fork.log.events[start:]
        hit = any(e["e"] == EventKind.HIT and e["target"] == target for e in evs)
        levels = sum(e["levels"] for e in evs
                     if e["e"] == EventKind.DAMAGE and e["who"] == target)
        totals[0] += weight * hit
        totals[1] += weight * (levels > 0)
        totals[2] += weight * levels

    walk([], 1.0)
    return totals[0], totals[1], totals[2]


def _small_duel(defender_declares: Declaration) -> tuple[Battle, Action]:
    """A two-dice puncher against a one-die dodger, at the puncher's action."""
    a = block("Puncher", attrs={"dexterity": 2, "strength": 1, "stamina": 1, "wits": 3})
    d = block("Dodger", attrs={"dexterity": 1, "stamina": 1, "wits": 1}, willpower=1)
    from vtm_sim.core.dice import ScriptedDice

    # initiative: the puncher rolls 10, the dodger 1
    b = Battle([Fighter(a, 0, 0.0), Fighter(d, 1, 1.0)], dice=ScriptedDice([10, 1]),
               turn_limit=3)
    while b.pending is not None and b.pending.kind is not DecisionKind.ACT:
        p = b.pending
        if p.kind is DecisionKind.DECLARE:
            b.choose(defender_declares if p.actor == 1 else Declaration())
        else:
            b.choose(p.options[0])
    assert b.pending is not None and b.pending.actor == 0
    punch = next(o for o in b.pending.options if isinstance(o, Action)
                 and o.maneuver == "punch" and o.called is None)
    return b, punch


@pytest.mark.parametrize(
    "declares",
    [Declaration(2), Declaration(1), Declaration(1, full_defense=True)],
    ids=["spare action", "abort by roll (DEF-3)", "full defense"],
)
def test_exchange_odds_agree_with_brute_force(declares: Declaration) -> None:
    b, punch = _small_duel(declares)
    ex = exchange_of(b, punch, [NEAREST, NEAREST])
    assert ex is not None
    p_hit, p_damage, levels = brute_force(b, punch)
    assert ex.p_hit == pytest.approx(p_hit, abs=1e-9)
    assert ex.p_damage == pytest.approx(p_damage, abs=1e-9)
    assert ex.expected_levels == pytest.approx(levels, abs=1e-9)
    assert ex.p_hit > ex.p_damage > 0  # to hit is not to wound


def test_exchange_odds_agree_with_attack_odds() -> None:
    """Full defense costs no dice (DEF-7): the same numbers as ``attack --odds``."""
    b, punch = _small_duel(Declaration(1, full_defense=True))
    ex = exchange_of(b, punch, [NEAREST, NEAREST])
    assert ex is not None and ex.defense is DefenseKind.DODGE
    dist = exchange_odds(b.combatants[0].stats, b.combatants[1].stats, maneuver="punch",
                         distance=1.0, defense=DefenseKind.DODGE)
    assert ex.p_damage == pytest.approx(1 - dist[0])
    assert ex.expected_levels == pytest.approx(sum(k * p for k, p in enumerate(dist)))


def _legal(b: Battle, choice: Choice) -> None:
    assert b.pending is not None and choice in b.pending.options
    b.clone().choose(choice)  # and the engine takes it


@pytest.mark.parametrize(("scenario", "npc"), [("duel", "Knife Fighter"),
                                               ("gunfight", "Detective Ortiz")])
def test_every_suggested_option_is_legal_and_ranked(scenario: str, npc: str) -> None:
    b = load_scenario(scenario).battle(seed=2)
    who = find_combatant(b, npc)
    advice = advise(b, who, playout=lambda _c: NearestEnemyPolicy(), policy_name="nearest",
                    rollouts=12, seed=1, kind=DecisionKind.ACT)
    fork = b.clone()
    from vtm_sim.analysis.advice import reach_npc

    reach_npc(fork, who, [NEAREST] * len(fork.combatants), DecisionKind.ACT)
    assert fork.pending is not None
    assert {o.choice for o in advice.options} == set(fork.pending.options)  # every one
    for o in advice.options:
        _legal(fork, o.choice)
        assert o.value.rollouts >= 12
        lo, hi = o.value.ci95
        assert lo <= o.value.p_win <= hi
    wins = [o.value.p_win for o in advice.options]
    assert wins == sorted(wins, reverse=True)
    attacks = [o for o in advice.options if isinstance(o.choice, Action)
               and o.choice.kind is ActionKind.ATTACK]
    assert attacks and all(o.exchange is not None or o.choice.maneuver == "spray"
                           for o in attacks)


def test_the_answer_is_the_same_with_any_number_of_workers() -> None:
    b = load_scenario("duel").battle(seed=2)
    who = find_combatant(b, "Knife Fighter")

    def ask(workers: int | None) -> list[tuple[str, int, float]]:
        a = advise(b, who, playout=lambda _c: NearestEnemyPolicy(), policy_name="nearest",
                   rollouts=30, seed=4, kind=DecisionKind.ACT, workers=workers)
        return [(o.action, o.value.rollouts, o.value.wins) for o in a.options]

    default = ask(None)  # every core this process may use
    assert ask(1) == default == ask(3)
    assert all(n >= 30 for _, n, _ in default)


def _cli(*args: str) -> tuple[int, str]:
    r = CliRunner().invoke(main, list(args))
    return r.exit_code, r.output


def test_suggest_json_has_the_contract_keys_and_is_deterministic() -> None:
    code, out = _cli("suggest", "duel", "--npc", "Knife Fighter", "--rollouts", "20",
                     "--seed", "3", "--decision", "act", "--json")
    assert code == 0, out
    data = json.loads(out)
    for key in ("npc", "decision", "recommended", "options", "rollouts", "seed"):
        assert key in data
    assert data["npc"] == "Knife Fighter" and data["decision"] == "act"
    assert data["recommended"] == data["options"][0]
    for o in data["options"]:
        for key in ("action", "p_hit", "p_damage", "expected_levels", "p_incapacitate",
                    "p_win", "p_win_ci95", "reason"):
            assert key in o
    moves = [o for o in data["options"] if o["choice"]["kind"] == "move"]
    assert moves and all(o["p_hit"] is None for o in moves)
    assert _cli("suggest", "duel", "--npc", "Knife Fighter", "--rollouts", "20",
                "--seed", "3", "--decision", "act", "--json") == (code, out)


def test_suggest_from_a_hand_written_state(tmp_path: Path) -> None:
    p = tmp_path / "s.yaml"
    p.write_text(textwrap.dedent("""\
        scenario: gunfight
        turn: 2
        combatants:
          Detective Ortiz: {damage: {lethal: 2}, ammo: {heavy_revolver: 1}}
        """), encoding="utf-8")
    code, out = _cli("suggest", str(p), "--npc", "Detective Ortiz", "--rollouts", "10",
                     "--decision", "act")
    assert code == 0, out
    assert "Detective Ortiz, turn 2: act decision" in out and "Do this:" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["suggest", "duel", "--npc", "Nobody"], "no combatant 'Nobody'"),
        (["suggest", "nowhere", "--npc", "X"], "unknown"),
        (["suggest", "{bad}", "--npc", "X"], "bad.yaml"),
    ],
)
def test_suggest_mistakes_are_one_line_errors(tmp_path: Path, args: list[str],
                                              message: str) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("scenario: duel\ncombatants: {Nobody: {damage: {lethal: 1}}}\n",
                   encoding="utf-8")
    code, out = _cli(*[a.format(bad=bad) for a in args])
    assert code == 2, out
    lines = out.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], out


def test_an_ambiguous_npc_name_says_which_to_use() -> None:
    b = load_scenario("bar_brawl").battle(seed=0)
    names = [c.name for c in b.combatants]
    shared = next(n for n in names if names.count(n) > 1)
    with pytest.raises(ConfigError, match=f"{shared}#1"):
        find_combatant(b, shared)
    assert find_combatant(b, f"{shared}#2") == [i for i, n in enumerate(names)
                                                 if n == shared][1]


# --- export-behaviors -------------------------------------------------------------


def test_export_behaviors_prints_a_card_and_is_deterministic(tmp_path: Path) -> None:
    args = ["export-behaviors", "gunfight", "--npc", "Detective Ortiz", "--battles", "30",
            "--seed", "4"]
    code, out = _cli(*args)
    assert code == 0, out
    assert out.startswith("# Detective Ortiz: tactic card")
    assert "| when | does | how often | wins | levels dealt |" in out
    assert _cli(*args) == (code, out)
    target = tmp_path / "card.json"
    code, msg = _cli(*args, "--format", "json", "--out", str(target))
    assert code == 0 and "written to" in msg
    card = json.loads(target.read_text(encoding="utf-8"))
    assert card["npc"] == "Detective Ortiz" and card["battles"] == 30
    assert card["rules"], card
    total = sum(a["times"] for r in card["rules"] for a in r["actions"])
    assert all(sum(a["times"] for a in r["actions"]) == r["seen"] for r in card["rules"])
    assert total > 0
    code, yml = _cli(*args, "--format", "yaml")
    assert code == 0 and "rules:" in yml


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["export-behaviors", "duel", "--npc", "Nobody", "--policy", "nearest"], "Nobody"),
        (["export-behaviors", "duel", "--npc", "Knife Fighter", "--policy", "smart"],
         "unknown policy 'smart'"),
        (["export-behaviors", "nowhere", "--npc", "X"], "unknown"),
    ],
)
def test_export_behaviors_mistakes_are_one_line(args: list[str], message: str) -> None:
    code, out = _cli(*args)
    assert code == 2, out
    lines = out.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], out
