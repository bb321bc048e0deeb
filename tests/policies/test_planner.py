"""The planner (vtm_sim.policies.planner): legal, deterministic, the tactician's pick its prior."""

from __future__ import annotations

from vtm_sim.core.choices import DecisionKind
from vtm_sim.engine.standings import side_share
from vtm_sim.files.scenarios import load_scenario
from vtm_sim.policies.nearest import NearestEnemyPolicy
from vtm_sim.policies.planner import PlannerPolicy, candidates, rollout
from vtm_sim.policies.play import play
from vtm_sim.policies.tactician import TacticianPolicy


def _duel_log(seed: int) -> list[dict[str, object]]:
    b = load_scenario("duel").battle(seed=seed)
    play(b, [PlannerPolicy(seed=5), TacticianPolicy()])
    return b.log.to_json()


def test_the_planner_is_deterministic_for_a_seed() -> None:
    assert _duel_log(2) == _duel_log(2)


def test_candidates_put_the_tacticians_pick_first_and_are_legal() -> None:
    b = load_scenario("duel").battle(seed=1)
    seen = set()
    while b.pending is not None:
        d = b.pending
        opts = candidates(b, d)
        assert opts[0] == TacticianPolicy().choose(b, d)
        assert all(o in d.options for o in opts)
        assert len(set(map(repr, opts))) == len(opts)
        seen.add(d.kind)
        b.choose(NearestEnemyPolicy().choose(b, d))
    assert {DecisionKind.DECLARE, DecisionKind.ACT} <= seen


def test_a_truncated_rollout_scores_the_health_left() -> None:
    b = load_scenario("duel").battle(seed=1)
    assert side_share(b, 0) == 0.5  # nobody hurt yet
    d = b.pending
    assert d is not None
    for seed in range(5):
        v = rollout(b, d.options[0], 0, seed, lambda _c: NearestEnemyPolicy(), horizon=0)
        assert 0.0 <= v <= 1.0
    # whole-fight rollouts score 1, 1/2 or 0 only
    full = {rollout(b, d.options[0], 0, s, lambda _c: NearestEnemyPolicy()) for s in range(5)}
    assert full <= {0.0, 0.5, 1.0}


def test_the_prior_survives_the_halving_and_is_kept_without_rollouts() -> None:
    from vtm_sim.policies.planner import evaluate

    b = load_scenario("duel").battle(seed=1)
    while b.pending is not None and b.pending.kind is not DecisionKind.ACT:
        b.choose(NearestEnemyPolicy().choose(b, b.pending))
    d = b.pending
    assert d is not None
    opts = list(d.options)
    last = opts[-1]  # the option kept, whatever its rollouts say
    vals = evaluate(b, d, budget=48, seed=3, options=opts, keep=len(opts) - 1, horizon=1)
    kept = next(v for v in vals if v.choice == last)
    assert kept.rollouts == max(v.rollouts for v in vals)
    assert all(0.0 <= v.variance <= 0.25 for v in vals)
    nearest = NearestEnemyPolicy().choose(b, d)
    assert PlannerPolicy(0, prior=NearestEnemyPolicy()).choose(b, d) == nearest


def test_the_budget_shrinks_with_the_number_of_combatants() -> None:
    import numpy as np

    from vtm_sim.policies import registry
    from vtm_sim.policies.planner import MIN_ROLLOUTS, budget

    assert budget(64, 2) == 64 and budget(64, 6) == 21 and budget(64, 40) == MIN_ROLLOUTS
    assert budget(8, 6) == 8  # never more than asked
    gunfight = load_scenario("gunfight")
    pol = registry.maker("planner", gunfight)(np.random.default_rng(0), 0)
    assert isinstance(pol, PlannerPolicy) and pol.rollouts == budget(64, len(gunfight.fighters))


def test_the_planner_named_in_a_crowd_plays_its_rollouts_on_with_the_tactician() -> None:
    import numpy as np

    from vtm_sim.policies.planner import CROWD_CONFIDENCE, budget
    from vtm_sim.policies.registry import maker

    duel, gunfight = load_scenario("duel"), load_scenario("gunfight")
    one = maker("planner", duel)(np.random.default_rng(0), 0)
    assert isinstance(one, PlannerPolicy)
    assert (one.rollouts, one.playout, one.confidence) == (64, None, 2.0)  # the duel's own
    prior = one.prior
    assert isinstance(prior, TacticianPolicy) and prior.grapple and not prior.called
    crowd = maker("planner", gunfight)(np.random.default_rng(0), 0)
    assert isinstance(crowd, PlannerPolicy)
    assert crowd.rollouts == budget(64, len(gunfight.fighters)) == 21
    assert crowd.confidence == CROWD_CONFIDENCE < 2.0
    assert crowd.playout is not None and isinstance(crowd.playout(0), TacticianPolicy)
    assert isinstance(crowd.prior, TacticianPolicy) and crowd.prior.called
    b = gunfight.battle(seed=3)
    d = b.pending
    assert d is not None
    assert crowd.choose(b, d) in d.options
