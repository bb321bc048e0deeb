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
from rule_helpers import puncher_at_its_action

from vtm_sim.analysis.advice import Advice, advise, exchange_of, find_combatant
from vtm_sim.cli import main
from vtm_sim.core.choices import (
    Action,
    ActionKind,
    Choice,
    DecisionKind,
    Declaration,
    DefenseKind,
)
from vtm_sim.engine.battle import Battle
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


@pytest.mark.parametrize(
    "declares",
    [Declaration(2), Declaration(1), Declaration(1, full_defense=True)],
    ids=["spare action", "abort by roll (DEF-3)", "full defense"],
)
def test_exchange_odds_agree_with_brute_force(declares: Declaration) -> None:
    b, punch = puncher_at_its_action(declares)
    ex = exchange_of(b, punch, [NEAREST, NEAREST])
    assert ex is not None
    p_hit, p_damage, levels = brute_force(b, punch)
    assert ex.p_hit == pytest.approx(p_hit, abs=1e-9)
    assert ex.p_damage == pytest.approx(p_damage, abs=1e-9)
    assert ex.expected_levels == pytest.approx(levels, abs=1e-9)
    assert ex.p_hit > ex.p_damage > 0  # to hit is not to wound


def test_exchange_odds_agree_with_attack_odds() -> None:
    """Full defense costs no dice (DEF-7): the same numbers as ``attack --odds``."""
    b, punch = puncher_at_its_action(Declaration(1, full_defense=True))
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
    from vtm_sim.analysis.advice import probe

    at = probe(b, who, lambda _c: NearestEnemyPolicy(), {}, 1, 0,
               frozenset({DecisionKind.ACT})).at[DecisionKind.ACT]
    fork, d = at
    assert {o.choice for o in advice.options} == set(d.options)  # every one
    for o in advice.options:
        _legal(fork, o.choice)
        assert o.rollouts >= 4
        lo, hi = o.tally.value_ci95
        assert lo <= o.value <= hi
    finalists = [o for o in advice.options if o.rollouts == advice.options[0].rollouts]
    values = [o.value for o in finalists]
    assert values == sorted(values, reverse=True) or _passive_first_tied(advice)
    attacks = [o for o in advice.options if isinstance(o.choice, Action)
               and o.choice.kind is ActionKind.ATTACK]
    assert attacks and all(o.exchange is not None or o.choice.maneuver == "spray"
                           for o in attacks)


def _passive_first_tied(advice: Advice) -> bool:
    return advice.recommended.tied_with_best and advice.options[0].choice.kind not in (
        ActionKind.PASS, ActionKind.WAIT, ActionKind.DELAY)


def test_the_answer_is_the_same_with_any_number_of_workers() -> None:
    b = load_scenario("duel").battle(seed=2)
    who = find_combatant(b, "Knife Fighter")

    def ask(workers: int | None) -> list[tuple[str, int, float]]:
        a = advise(b, who, playout=lambda _c: NearestEnemyPolicy(), policy_name="nearest",
                   rollouts=24, seed=4, workers=workers)
        return [(o.action, o.rollouts, o.value) for o in a.options] + [
            (s.action, 0, 0.0) for s in a.plan]

    default = ask(None)  # every core this process may use
    assert ask(1) == default == ask(3)


def test_a_drawing_playout_gives_the_same_answer_with_any_number_of_workers() -> None:
    """``--policy random``: each simulated fight draws from a generator of its own key
    (SeededPlayout), not from one shared by whatever rollouts a worker happened to play."""
    from vtm_sim.cli.battles import _policy_maker

    b = load_scenario("duel").battle(seed=2)
    who = find_combatant(b, "Knife Fighter")

    def ask(workers: int | None) -> list[tuple[str, int, float]]:
        a = advise(b, who, playout=_policy_maker("random", b, 4), policy_name="random",
                   rollouts=24, seed=4, workers=workers)
        return [(o.action, o.rollouts, o.value) for o in a.options]

    first = ask(2)
    assert ask(1) == first == ask(2) == ask(3)


def _cli(*args: str) -> tuple[int, str]:
    r = CliRunner().invoke(main, list(args))
    return r.exit_code, r.output


CONTRACT = ("action", "reason", "defense", "value", "value_ci95", "p_win", "tied_with_best")


def test_suggest_json_has_the_contract_keys_and_is_deterministic() -> None:
    args = ("suggest", "ambushed_vampire", "--npc", "Jax, Brujah Neonate", "--rollouts", "8",
            "--seed", "3", "--json")
    code, out = _cli(*args)
    assert code == 0, out
    data = json.loads(out)
    for key in ("npc", "goal", "recommended", "plan", "options", "rollouts", "seed"):
        assert key in data
    assert data["goal"] == "win"
    assert data["npc"] == "Jax, Brujah Neonate" and data["decision"] == "act"
    assert data["recommended"] == data["options"][0]
    kinds = [s["decision"] for s in data["plan"]]
    assert kinds == ["blood", "declare", "act"]  # the turn in its order, as one answer
    assert data["plan"][-1]["action"] == data["recommended"]["action"]
    for o in data["options"]:
        for key in CONTRACT:
            assert key in o
        lo, hi = o["value_ci95"]
        assert lo <= o["value"] <= hi
        assert isinstance(o["tied_with_best"], bool)
        assert o["reason"].startswith(o["action"] + ": ")
    attacks = [o for o in data["options"] if o["choice"]["kind"] == "attack"]
    assert attacks and all(o["defense"] in ("none", "dodge", "block", "parry")
                           for o in attacks)
    moves = [o for o in data["options"] if o["choice"]["kind"] in ("move", "pass")]
    assert all(o["defense"] is None and o["p_hit"] is None for o in moves)
    again = json.loads(_cli(*args)[1])
    assert again.pop("seconds") >= 0 and data.pop("seconds") >= 0  # the only field that differs
    assert again == data


def test_suggest_from_a_hand_written_state(tmp_path: Path) -> None:
    p = tmp_path / "s.yaml"
    p.write_text(textwrap.dedent("""\
        scenario: gunfight
        turn: 2
        combatants:
          Detective Ortiz: {damage: {lethal: 2}, ammo: {heavy_revolver: 1}}
        """), encoding="utf-8")
    code, out = _cli("suggest", str(p), "--npc", "Detective Ortiz", "--rollouts", "8")
    assert code == 0, out
    lines = out.strip().splitlines()
    assert lines[0].startswith("Detective Ortiz, turn 2: to win the fight (goal win;")
    assert lines[1].startswith("This turn: ")
    assert sum(1 for ln in lines if ln[:3] in ("1. ", "2. ", "3. ")) == 3  # three options


CLINCH = textwrap.dedent("""\
    scenario: ambushed_vampire
    turn: 2
    combatants:
      "Jax, Brujah Neonate": {damage: {lethal: 2}, blood: 8}
      Hired Goon (bat): {clinch: "Jax, Brujah Neonate"}
      Street Thug: {damage: {lethal: 7}}
    """)


def test_man6_in_a_clinch_the_plan_offers_only_what_the_clinch_allows(tmp_path: Path) -> None:
    """MAN-6: inside a clinch the vampire may crush or break free (or do nothing); the
    options raced are legal there, and none of them is a dodge-or-flee of the open field."""
    p = tmp_path / "clinch.yaml"
    p.write_text(CLINCH, encoding="utf-8")
    code, out = _cli("suggest", str(p), "--npc", "Jax, Brujah Neonate", "--rollouts", "8",
                     "--json")
    assert code == 0, out
    data = json.loads(out)
    kinds = {o["choice"]["kind"] for o in data["options"]}
    assert kinds <= {"crush", "break_free", "pass", "attack", "release", "wait", "delay"}
    assert "flee" not in kinds and "move" not in kinds
    assert data["initiative"]["cases"]  # no initiative given: the cases, exactly
    assert sum(c["p"] for c in data["initiative"]["cases"]) <= 1.0 + 1e-9


def test_init2_ahead_odds_are_exact() -> None:
    """INIT-2/3/4: the chance of each set of enemies acting first, against every face."""
    from itertools import product

    from vtm_sim.engine.queries import ahead_odds

    b = load_scenario("ambushed_vampire").battle(seed=0)
    b = Battle(load_scenario("ambushed_vampire").fighters, seed=0, start=False)
    me = b.combatants[0]
    foes = [c for c in b.combatants if c.side != me.side]
    odds = ahead_odds(b, me, 1)
    brute: dict[tuple[int, ...], float] = {}
    for faces in product(range(1, 11), repeat=1 + len(foes)):
        mine = me.rating + faces[0] - me.health.penalty
        key = tuple(sorted(o.id for o, f in zip(foes, faces[1:], strict=True)
                           if o.rating + f - o.health.penalty > mine))
        brute[key] = brute.get(key, 0.0) + 0.1 ** (1 + len(foes))
    assert set(odds) == {k for k, v in brute.items() if v > 0}
    for k, v in brute.items():
        assert odds[k] == pytest.approx(v, abs=1e-12)


def test_a_passive_option_is_never_recommended_over_an_active_one_as_good() -> None:
    from vtm_sim.analysis.advice import _order
    from vtm_sim.analysis.search import Sample, Tally

    def tally(values: list[float]) -> Tally:
        return Tally([Sample(v, 0.5, v, ()) for v in values])

    pass_ = Action(ActionKind.PASS)
    punch = Action(ActionKind.ATTACK, "punch", 1)
    same = [0.0, 1.0] * 10
    _, pick = _order([(pass_, tally(same)), (punch, tally([1.0, 0.0] * 10))])
    assert [pass_, punch][pick] == punch
    # a clearly better passive option stays the answer
    _, pick = _order([(pass_, tally([1.0] * 20)), (punch, tally([0.0] * 20))])
    assert [pass_, punch][pick] == pass_


@pytest.mark.parametrize(("text", "message"), [
    ("fight", "unknown goal 'fight'"),
    ("protect", "protect needs a name"),
    ("win:Jax", "win takes no name"),
])
def test_goal_mistakes_are_one_line(text: str, message: str) -> None:
    code, out = _cli("suggest", "duel", "--npc", "Knife Fighter", "--goal", text)
    assert code == 2, out
    lines = out.strip().splitlines()
    assert len(lines) == 1 and message in lines[0] and "--goal" in lines[0], out


def test_goal_values_of_finished_fights() -> None:
    """escape and survive count a flight as success; take-alive wants the target down but
    not dead; protect, the named one standing; hurt, the share of its track filled."""
    from vtm_sim.analysis.goals import Goal
    from vtm_sim.core.goals import GoalKind
    from vtm_sim.core.health import Status

    b = load_scenario("duel").battle(seed=0)
    b.over, b.winner, b.end_reason = True, 1, "escape"
    b.combatants[0].escaped = True
    assert Goal(GoalKind.ESCAPE, 0).final(b) == 1.0
    assert Goal(GoalKind.SURVIVE, 0).final(b) == 1.0
    assert Goal(GoalKind.WIN, 0).final(b) == 0.0
    b.combatants[0].escaped = False
    b.combatants[0].health.status = Status.INCAPACITATED
    b.over, b.winner, b.end_reason = True, 1, "victory"
    assert Goal(GoalKind.ESCAPE, 0).final(b) == 0.0
    assert Goal(GoalKind.TAKE_ALIVE, 1, 0).final(b) == 1.0
    assert Goal(GoalKind.PROTECT, 1, 0).final(b) == 0.0
    assert Goal(GoalKind.HURT, 1, 0).final(b) == 1.0
    b.combatants[0].health.status = Status.DEAD
    assert Goal(GoalKind.TAKE_ALIVE, 1, 0).final(b) == 0.0


def test_the_tiebreaker_never_outweighs_the_goal() -> None:
    from vtm_sim.analysis.goals import TIEBREAK_WEIGHT
    from vtm_sim.analysis.search import Sample

    # the worst goal-success beats the best goal-failure, whatever the tie-breakers
    assert Sample(1.0, 0.0, 1.0, ()).value > Sample(0.5, 1.0, 0.5, ()).value
    assert Sample(0.5, 0.0, 0.5, ()).value > Sample(0.0, 1.0, 0.0, ()).value
    assert TIEBREAK_WEIGHT < 0.05


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
