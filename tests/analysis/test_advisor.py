"""The advice as a policy (experiments/advice_quality.py plays it): legal, seeded, and it
runs when its goal is escape (MOVE-4)."""

from __future__ import annotations

from pathlib import Path

from vtm_sim.analysis.advisor import AdvisorPolicy
from vtm_sim.core.goals import GoalKind
from vtm_sim.files.scenarios import load_scenario
from vtm_sim.files.state_files import load_state
from vtm_sim.policies.nearest import NearestEnemyPolicy
from vtm_sim.policies.playouts import advice_playout

ESCAPE = Path(__file__).resolve().parents[2] / "experiments" / "states" / "escape"


def _play(seed: int) -> list[str]:
    b = load_scenario("duel").battle(seed=seed)
    me = AdvisorPolicy(advice_playout(2), rollouts=16, seed=seed)
    other = NearestEnemyPolicy()
    while b.pending is not None:
        d = b.pending
        c = (me if d.actor == 0 else other).choose(b, d)
        assert c in d.options
        b.choose(c)
    return [str(e) for e in b.log.events]


def test_the_advisor_plays_legal_choices_and_is_seeded() -> None:
    assert _play(3) == _play(3)


def test_move4_with_goal_escape_the_advisor_runs() -> None:
    """From a state where fleeing is possible, an NPC following the advice for escape
    takes a flight option (FLEE or moving away) at its first action."""
    b = load_state(ESCAPE / "sniper.yaml", seed=0)
    npc = next(c.id for c in b.combatants if c.name.startswith("Mara Kell"))
    me = AdvisorPolicy(advice_playout(len(b.combatants)), goal=GoalKind.ESCAPE, rollouts=32,
                       seed=0, horizon=4)
    other = NearestEnemyPolicy()
    while b.pending is not None:
        d = b.pending
        if d.actor == npc and d.kind.value == "act":
            c = me.choose(b, d)
            assert getattr(c, "kind", None) is not None
            assert c.kind.value in ("flee", "move", "take_cover")
            return
        b.choose((me if d.actor == npc else other).choose(b, d))
    raise AssertionError("the NPC never acted")
