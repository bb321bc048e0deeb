"""The Gymnasium env: API checks on every registered id, masks against engine legality,
seeding, illegal actions, shaping, rendering, vectorization."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import envs
from envs.actions import ActionCatalog, CatalogError, passive_choice
from envs.env import VtmEnv
from envs.match import MatchConfig
from envs.observation import ObservationEncoder
from vtm_sim.core.choices import (
    AbortMethod,
    Action,
    ActionKind,
    BloodSpend,
    BloodUse,
    CalledShot,
    DecisionKind,
    Declaration,
    Defense,
    DefenseKind,
)
from vtm_sim.data.formats import OBS_VERSION
from vtm_sim.data.tables import load_tables
from vtm_sim.errors import IllegalActionError
from vtm_sim.events import EventKind
from vtm_sim.files.scenarios import list_scenarios, load_scenario
from vtm_sim.policies.nearest import RandomPolicy

IDS = envs.registered_ids()
ALL_IDS = [*IDS, *envs.mixed_ids()]  # with vtm_sim/Mixed-v6 (tests/envs/test_mixed.py)
SCENARIOS = list_scenarios()


def masked_random(mask: np.ndarray, rng: np.random.Generator) -> int:
    """A random legal action (0 for an all-zero mask, which no env returns)."""
    idx = np.flatnonzero(mask)
    return int(idx[rng.integers(idx.size)]) if idx.size else 0


def rollout(env: gym.Env[Any, Any], seed: int, steps: int = 400) -> list[Any]:
    """(obs, reward, terminated, mask) of every step, masked-random actions from ``seed``."""
    rng = np.random.default_rng(seed)
    obs, info = env.reset(seed=seed)
    out: list[Any] = [(obs, 0.0, False, info["action_mask"])]
    for _ in range(steps):
        obs, r, term, trunc, info = env.step(masked_random(info["action_mask"], rng))
        out.append((obs, r, term, info["action_mask"]))
        if term or trunc:
            obs, info = env.reset()
            out.append((obs, 0.0, False, info["action_mask"]))
    return out


# --- registration and API checks ------------------------------------------------------
def test_duel_and_every_scenario_registered() -> None:
    assert IDS[0] == "vtm_sim/Duel-v6"
    assert len(IDS) == len(set(IDS)) == len(set(["duel", *SCENARIOS]))
    assert envs.env_id("bar_brawl") == "vtm_sim/BarBrawl-v6"
    for eid in IDS:
        spec = gym.spec(eid)
        assert spec.max_episode_steps == envs.MAX_EPISODE_STEPS
        assert spec.entry_point == "envs.env:VtmEnv"


def test_make_with_module_prefix() -> None:
    env = gym.make("envs:vtm_sim/Duel-v6")
    obs, info = env.reset(seed=0)
    assert env.observation_space.contains(obs)
    assert info["action_mask"].any()


@pytest.mark.parametrize("eid", ALL_IDS)
def test_check_env_every_id(eid: str) -> None:
    env = gym.make(eid, render_mode="ansi")
    check_env(env.unwrapped)


def test_check_env_dict_observations() -> None:
    env = gym.make("vtm_sim/Duel-v6", obs_mode="dict", render_mode="ansi")
    assert isinstance(env.observation_space, gym.spaces.Dict)
    check_env(env.unwrapped)
    obs, _ = env.reset(seed=3)
    flat = VtmEnv(obs_mode="flat")
    flat_obs, _ = flat.reset(seed=3)
    np.testing.assert_array_equal(np.concatenate([obs[k].ravel() for k in obs]), flat_obs)


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("eid", ALL_IDS)
def test_make_vec_steps_on_the_defaults(eid: str, mode: str) -> None:
    vec = gym.make_vec(eid, num_envs=2, vectorization_mode=mode)
    try:
        rng = np.random.default_rng(0)
        obs, info = vec.reset(seed=0)
        assert obs.shape == (2, *vec.single_observation_space.shape)
        for _ in range(30):
            masks = info["action_mask"]
            actions = np.array([masked_random(m, rng) for m in masks])
            obs, _rew, _term, _trunc, info = vec.step(actions)
            assert vec.observation_space.contains(obs)
    finally:
        vec.close()


# --- determinism -----------------------------------------------------------------------
def assert_same(a: list[Any], b: list[Any]) -> None:
    assert len(a) == len(b)
    for (oa, ra, ta, ma), (ob, rb, tb, mb) in zip(a, b, strict=True):
        np.testing.assert_array_equal(oa, ob)
        np.testing.assert_array_equal(ma, mb)
        assert ra == rb and ta == tb


@pytest.mark.parametrize("eid", ALL_IDS)
def test_same_seed_same_trajectory(eid: str) -> None:
    a = rollout(gym.make(eid, shaping=0.1), seed=7, steps=150)
    assert_same(a, rollout(gym.make(eid, shaping=0.1), seed=7, steps=150))
    c = rollout(gym.make(eid, shaping=0.1), seed=8, steps=150)
    assert any(not np.array_equal(x[0], y[0]) for x, y in zip(a, c, strict=False)), (
        "a different seed should give a different battle"
    )


def test_reset_without_seed_continues_the_stream() -> None:
    env = gym.make("vtm_sim/Duel-v6")
    first, _ = env.reset(seed=1)
    again, _ = env.reset(seed=1)
    np.testing.assert_array_equal(first, again)
    logs = set()
    for _ in range(5):
        _, info = env.reset()
        battle = env.unwrapped.battle  # type: ignore[attr-defined]
        for _ in range(10):  # INIT-9 (004): the first decisions come before any die
            if any(e["e"] == "initiative" for e in battle.log.events) or battle.over:
                break
            _, _, done, cut, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
            if done or cut:
                break
        logs.add(battle.log.sha256())
    assert len(logs) == 5


@pytest.mark.parametrize("opponents", ["random", RandomPolicy, {1: "random"}])
def test_random_opponents_follow_the_env_seed(opponents: Any) -> None:
    runs = [rollout(VtmEnv(opponents=opponents), seed=11, steps=150) for _ in range(2)]
    assert_same(*runs)


def test_callable_and_object_opponents() -> None:
    calls: list[int] = []

    def passive(battle: Any, decision: Any) -> Any:
        calls.append(decision.actor)
        return passive_choice(decision)

    env = VtmEnv(opponents=passive)
    rollout(env, seed=0, steps=50)
    assert calls and set(calls) == {1}
    rollout(VtmEnv(opponents=RandomPolicy(np.random.default_rng(0))), seed=0, steps=50)
    with pytest.raises(ValueError, match="unknown"):
        VtmEnv(opponents="nobody")


# --- actions and masks -----------------------------------------------------------------
def check_mask(env: VtmEnv, mask: np.ndarray) -> None:
    """Every masked-in index is a pending option, and every option is masked in."""
    d = env.battle.pending if env.battle is not None else None
    if d is None:  # over: the pass action alone, never all zeros
        assert np.flatnonzero(mask).tolist() == [env.catalog.pass_index]
        return
    assert d.actor == env.agent_id
    legal = {env.catalog.choices[i] for i in np.flatnonzero(mask)}
    assert legal == set(d.options)
    np.testing.assert_array_equal(env.action_masks(), mask)


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_masks_match_engine_legality(scenario: str) -> None:
    n = len(load_scenario(scenario).fighters)
    for agent_id in sorted({0, n - 1}):
        env = VtmEnv(scenario, agent_id=agent_id, skip_forced=False)
        rng = np.random.default_rng(agent_id)
        kinds: set[str] = set()
        for ep in range(8):
            _, info = env.reset(seed=ep)
            check_mask(env, info["action_mask"])
            done = False
            while not done:
                kinds.add(info["decision"])
                _, _, term, trunc, info = env.step(masked_random(info["action_mask"], rng))
                check_mask(env, info["action_mask"])
                done = term or trunc
        assert {"declare", "act"} <= kinds


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_catalog_covers_every_engine_option(scenario: str) -> None:
    """Random battles with every combatant random: any option missing is a catalog gap."""
    sc = load_scenario(scenario)
    catalog = ActionCatalog.for_scenario(sc)
    rng = np.random.default_rng(0)
    pol = RandomPolicy(rng)
    for seed in range(40):
        b = sc.battle(seed=seed)
        while b.pending is not None:
            index = catalog.seat(b.pending.actor).index  # targets relative to the actor
            missing = [o for o in b.pending.options if o not in index]
            assert not missing, f"catalog gap in {scenario}: {missing}"
            b.choose(pol.choose(b, b.pending))


def test_catalog_layout() -> None:
    sc = load_scenario("duel")
    cat = ActionCatalog.for_scenario(sc)
    env = VtmEnv()
    assert env.action_space.n == len(cat) == len(cat.index)
    n = len(sc.fighters)
    choices = set(cat.choices)
    for m in load_tables().maneuvers:
        for t in range(1, n):  # every other combatant (relative to the observer, 0)
            for called in (None, *CalledShot):
                for off in (False, True):
                    assert Action(ActionKind.ATTACK, m, t, called=called, offhand=off) in choices
    for kind in ActionKind:
        assert any(isinstance(c, Action) and c.kind is kind for c in choices), kind
    for k in DefenseKind:
        for ab in (None, *AbortMethod):
            assert Defense(k, ab) in choices
    for use in BloodUse:
        if use is not BloodUse.NONE:
            assert BloodSpend(use, 1) in choices
    rules = sc.rules
    assert Declaration(rules.max_actions, False, 5, True) in choices
    assert Declaration(1, True, 0, False) in choices
    assert Action(ActionKind.DRAW, weapon=-1) in choices
    assert all(cat.describe(i) for i in range(len(cat)))
    with pytest.raises(CatalogError, match="does not cover"):
        cat.indices([Action(ActionKind.MOVE, target=99)])


def test_catalog_is_fixed_for_an_instance() -> None:
    env = VtmEnv()
    space = env.action_space
    rollout(env, seed=0, steps=100)
    assert env.action_space is space and env.catalog.size == space.n


# --- illegal actions --------------------------------------------------------------------
def first_illegal(mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask == 0)[0])


def test_illegal_action_raises_when_asked() -> None:
    env = gym.make("vtm_sim/Duel-v6", illegal_action="raise")
    _, info = env.reset(seed=0)
    with pytest.raises(IllegalActionError, match="not legal"):
        env.step(first_illegal(info["action_mask"]))
    with pytest.raises(IllegalActionError):
        env.step(env.action_space.n + 5)


def test_illegal_action_penalized_as_pass() -> None:
    env = VtmEnv(illegal_action="penalize", illegal_penalty=-0.25)
    _, info = env.reset(seed=0)
    assert env.battle is not None
    d = env.battle.pending
    assert d is not None and d.kind is DecisionKind.DECLARE
    start = len(env.battle.log.events)
    _, reward, _, _, info = env.step(first_illegal(info["action_mask"]))
    assert info["illegal"] is True
    assert reward == pytest.approx(-0.25)
    decide = env.battle.log.events[start]
    assert decide["e"] == EventKind.DECIDE and decide["who"] == env.agent_id
    assert decide["choice"] == Declaration().to_json()
    assert info["illegal_actions"] == 1
    _, _, _, _, info = env.step(masked_random(info["action_mask"], np.random.default_rng(0)))
    assert info["illegal"] is False and info["illegal_actions"] == 1


# --- rewards ------------------------------------------------------------------------------
def test_terminal_reward_and_shaping() -> None:
    env = VtmEnv(shaping=0.5)
    rng = np.random.default_rng(1)
    for ep in range(6):
        _, info = env.reset(seed=ep)
        assert env.battle is not None
        start = len(env.battle.log.events)
        total, done, r = 0.0, False, 0.0
        while not done:
            _, r, term, trunc, info = env.step(masked_random(info["action_mask"], rng))
            total += float(r)
            done = term or trunc
        b = env.battle
        taken = [0, 0]
        for ev in b.log.events[start:]:
            if ev["e"] == EventKind.DAMAGE:
                taken[ev["who"]] += ev["levels"]
        terminal = 0.0 if b.winner is None else (1.0 if b.winner == env.side else -1.0)
        assert total == pytest.approx(0.5 * (taken[1] - taken[0]) + terminal)
        assert info["winner"] == (-1 if b.winner is None else b.winner)


# --- observations ---------------------------------------------------------------------------
def test_observation_layout() -> None:
    env = VtmEnv()
    names = env.encoder.feature_names()
    assert len(names) == env.observation_space.shape[0]
    assert len(set(names)) == len(names)
    assert env.obs_version == OBS_VERSION
    obs, info = env.reset(seed=0)
    row = dict(zip(names, obs, strict=True))
    assert row[f"decision.kind_{info['decision']}"] == 1.0
    assert row["self.active"] == 1.0 and row["others.0.present"] == 1.0
    assert row["others.0.enemy"] == 1.0 and row["others.0.ally"] == 0.0
    assert row["others.0.dx"] == pytest.approx(4 / 50)


def test_observations_within_bounds_over_many_steps() -> None:
    for mode in ("flat", "dict"):
        env = VtmEnv(obs_mode=mode, opponents="random")  # type: ignore[arg-type]
        for obs, *_ in rollout(env, seed=5, steps=600):
            assert env.observation_space.contains(obs)


# --- rendering ---------------------------------------------------------------------------------
def test_render_ansi_narrates_events_since_last_step() -> None:
    env = gym.make("vtm_sim/Duel-v6", render_mode="ansi")
    _, info = env.reset(seed=0)
    text = env.render()
    assert isinstance(text, str) and "Turn 1" in text
    _, _, _, _, info = env.step(masked_random(info["action_mask"], np.random.default_rng(0)))
    later = env.render()
    assert isinstance(later, str) and "Turn 1." not in later
    assert env.render() == later  # rendering does not consume anything


def test_env_import_keeps_torch_out() -> None:
    code = (
        "import sys, envs, envs.multi, agents, agents.learned; "
        "assert 'torch' not in sys.modules and 'stable_baselines3' not in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


# --- agents -------------------------------------------------------------------------------------
@pytest.mark.parametrize("eid", IDS)
def test_scripted_agents_play_every_id(eid: str) -> None:
    from agents import BrawlerAgent, RandomAgent

    for obs_mode in ("flat", "dict"):
        env = gym.make(eid, obs_mode=obs_mode, illegal_action="raise")
        for agent in (BrawlerAgent.for_env(env), RandomAgent(0)):
            obs, info = env.reset(seed=0)
            done = False
            while not done:  # illegal_action="raise" catches a bad pick
                obs, _, term, trunc, info = env.step(agent.act(obs, info["action_mask"]))
                done = term or trunc
            assert agent.explain()


@pytest.mark.parametrize("env_id", sorted(i for i in gym.registry if i.startswith("vtm_sim/")))
def test_gymnasium_check_env_passes_on_the_defaults(env_id: str) -> None:
    """What a researcher runs first: check_env on gym.make(id) with no arguments."""
    from gymnasium.utils.env_checker import check_env

    check_env(gym.make(env_id).unwrapped)


def test_an_illegal_action_is_a_penalized_pass_by_default() -> None:
    env = gym.make("vtm_sim/Duel-v6")
    _, info = env.reset(seed=0)
    assert info["illegal"] is False and info["illegal_actions"] == 0
    _, reward, _, _, info = env.step(first_illegal(info["action_mask"]))
    assert reward == pytest.approx(envs.DEFAULT_ILLEGAL_PENALTY) == -0.1  # the battle goes on
    assert info["illegal"] is True and info["illegal_actions"] == 1
    _, _, _, _, info = env.step(first_illegal(info["action_mask"]))
    assert info["illegal_actions"] == 2
    _, _, _, _, info = env.step(masked_random(info["action_mask"], np.random.default_rng(0)))
    assert info["illegal"] is False and info["illegal_actions"] == 2
    env.reset(seed=1)
    assert env.unwrapped.match.illegal_counts == [0, 0]  # type: ignore[attr-defined]


def test_one_shaping_default_for_every_env() -> None:
    from envs.aec import VtmAECEnv
    from envs.multi import VtmParallelEnv

    assert envs.DEFAULT_SHAPING == 0.0  # the outcome alone: +1 win, -1 loss, 0 draw
    assert gym.make("vtm_sim/Duel-v6").unwrapped.shaping == envs.DEFAULT_SHAPING  # type: ignore[attr-defined]
    assert VtmParallelEnv().shaping == VtmAECEnv().match.shaping == envs.DEFAULT_SHAPING


def test_every_env_runs_its_match_on_one_config_with_the_same_defaults() -> None:
    """The three envs build one MatchConfig from their keywords, its defaults theirs."""
    from envs.aec import VtmAECEnv
    from envs.multi import VtmParallelEnv

    assert VtmEnv().config == VtmParallelEnv().config == VtmAECEnv().config == MatchConfig()
    env = VtmEnv(obs_mode="dict", illegal_action="raise", illegal_penalty=-1, shaping=0.5,
                 skip_forced=False, turn_limit=3, render_mode="ansi")
    assert env.config == MatchConfig("dict", "raise", -1, 0.5, False, 3, "ansi")
    assert env.match.config is env.config
    assert VtmParallelEnv(shaping=0.5, max_steps=9).config == MatchConfig(shaping=0.5)
    for bad, why in (({"obs_mode": "grid"}, "obs_mode 'grid'"),
                     ({"illegal_action": "ignore"}, "illegal_action 'ignore'"),
                     ({"render_mode": "svg"}, "render_mode 'svg'")):
        with pytest.raises(ValueError, match=why):
            MatchConfig(**bad)  # type: ignore[arg-type]
        with pytest.raises(ValueError, match=why):
            VtmAECEnv(**bad)


def test_action_masks_on_a_gym_make_env() -> None:
    """The environments page's way through gym.make's wrappers, and Gymnasium's own."""
    env = gym.make("vtm_sim/Duel-v6")
    rng = np.random.default_rng(0)
    _, info = env.reset(seed=0)
    for _ in range(30):
        mask = info["action_mask"]
        np.testing.assert_array_equal(env.unwrapped.action_masks(), mask)  # type: ignore[attr-defined]
        np.testing.assert_array_equal(env.get_wrapper_attr("action_masks")(), mask)
        _, _, term, trunc, info = env.step(masked_random(mask, rng))
        if term or trunc:
            _, info = env.reset()


ENV_PAGE = Path(__file__).resolve().parents[2] / "docs" / "environments" / "index.md"


def page_examples(page: Path) -> list[str]:
    """The ```python blocks of a docs page (the environments' page: what the README's
    "Environments" section was; tests/test_docs.py runs every page's blocks too)."""
    return re.findall(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), flags=re.S)


def test_environment_page_examples_run_as_written() -> None:
    blocks = page_examples(ENV_PAGE)
    assert len(blocks) >= 3
    for code in blocks:
        exec(compile(code, "docs/environments/index.md", "exec"), {})


@pytest.mark.parametrize("eid", ALL_IDS)
def test_flattened_dict_observation_is_the_flat_one(eid: str) -> None:
    """One feature order: FlattenObservation(dict) == flat, step for step, named alike."""
    flat_env = gym.make(eid)
    dict_env = gym.wrappers.FlattenObservation(gym.make(eid, obs_mode="dict"))
    assert dict_env.observation_space == flat_env.observation_space
    names = flat_env.unwrapped.encoder.feature_names()  # type: ignore[attr-defined]
    view = flat_env.unwrapped.encoder.split(np.arange(len(names)))  # type: ignore[attr-defined]
    blocks = [name.split(".")[0] for name in names]
    dict_space = gym.make(eid, obs_mode="dict").observation_space
    assert list(view) == list(dict.fromkeys(blocks)) == list(dict_space.keys())  # type: ignore[attr-defined]
    flat_steps = rollout(flat_env, seed=3, steps=120)
    dict_steps = rollout(dict_env, seed=3, steps=120)
    assert_same(flat_steps, dict_steps)


@pytest.mark.parametrize("eid", ALL_IDS)
def test_rgb_array_render_on_every_id(eid: str) -> None:
    """What SB3's make_vec_env asks for first; check_env also checks the render."""
    env = gym.make(eid, render_mode="rgb_array")
    check_env(env.unwrapped)
    _, info = env.reset(seed=0)
    first = env.render()
    assert isinstance(first, np.ndarray) and first.dtype == np.uint8 and first.shape[2] == 3
    rng = np.random.default_rng(0)
    frames = [first]
    for _ in range(40):
        _, _, term, trunc, info = env.step(masked_random(info["action_mask"], rng))
        frames.append(env.render())
        if term or trunc:
            break
    assert len({f.tobytes() for f in frames}) > 1  # the map follows the battle


# --- MOVE-3: jumping in the env (layout version 4) -----------------------------------------


def test_move3_jumping_moves_are_appended_to_the_catalog() -> None:
    """Version 4 appends the jumping moves last: every version-3 index keeps its place."""
    sc = load_scenario("rooftops")
    cat = ActionCatalog.for_scenario(sc)
    n = len(sc.fighters)
    jumps = [i for i, c in enumerate(cat.choices) if isinstance(c, Action) and c.jump]
    assert jumps == list(range(cat.size - (3 * (n - 1) + 2), cat.size))
    last_defense = max(i for i, c in enumerate(cat.choices) if isinstance(c, Defense))
    assert last_defense == jumps[0] - 1
    assert {cat.choices[i].kind for i in jumps} == {  # type: ignore[union-attr]
        ActionKind.MOVE, ActionKind.PURSUE, ActionKind.TAKE_COVER, ActionKind.FLEE}
    assert cat.describe(jumps[0]) == "act:move ->1 jumping"  # slot 0: the first other


def test_move3_the_env_offers_jumping_and_observes_the_obstacle() -> None:
    env = VtmEnv("rooftops")
    names = env.encoder.feature_names()
    own = [n for n in names if n.startswith("self.")]  # the self block ends with them
    assert own[-4:] == ["self.obstacle_jump", "self.obstacle_detour",
                        "self.obstacle_no_way_around", "self.seat"]
    jumps = {i for i, c in enumerate(env.catalog.choices) if isinstance(c, Action) and c.jump}
    seen_jump = False
    for seed in range(6):
        obs, info = env.reset(seed=seed)
        done = False
        rng = np.random.default_rng(seed)
        while not done:
            row = dict(zip(names, obs, strict=True))
            if row["self.obstacle_near"] > 0:  # Wren's nearest: the housing 7 yards off
                assert row["self.obstacle_jump"] in (0.0, pytest.approx(2 / 5))
                assert row["self.obstacle_detour"] in (0.0, pytest.approx(4 / 30))
            legal = np.flatnonzero(info["action_mask"])
            picks = [i for i in legal if i in jumps]
            seen_jump |= bool(picks)
            a = int(rng.choice(picks)) if picks and rng.random() < 0.5 else int(rng.choice(legal))
            obs, _, term, trunc, info = env.step(a)
            done = term or trunc
    assert seen_jump


# --- control="side": the agent plays its whole side, as a policy does in a tournament -------
def test_side_control_passes_check_env() -> None:
    check_env(gym.make("vtm_sim/Gunfight-v6", agent_id=3, control="side").unwrapped)


def test_side_control_asks_every_combatant_of_the_side_and_only_them() -> None:
    env = VtmEnv("gunfight", agent_id=3, control="side", opponents="tactician")
    sides = [f.side for f in env.scenario.fighters]
    assert env.learners == [3, 4, 5]
    rng = np.random.default_rng(0)
    asked: set[int] = set()
    for ep in range(8):
        obs, info = env.reset(seed=ep)
        done = False
        while not done:
            b = env.battle
            assert b is not None and b.pending is not None
            actor = b.pending.actor
            assert sides[actor] == 1
            asked.add(actor)
            # the observation is the asked combatant's own
            assert np.array_equal(obs, env.encoder.encode(b, actor))
            obs, _, term, trunc, info = env.step(masked_random(info["action_mask"], rng))
            done = term or trunc
        assert info["winner"] == (-1 if env.battle.winner is None else env.battle.winner)
    assert asked == {3, 4, 5}


def test_side_control_reward_and_shaping_are_the_sides() -> None:
    env = VtmEnv("gunfight", agent_id=0, control="side", shaping=0.5)
    sides = [f.side for f in env.scenario.fighters]
    rng = np.random.default_rng(3)
    for ep in range(4):
        _, info = env.reset(seed=ep)
        assert env.battle is not None
        start = len(env.battle.log.events)
        total, done = 0.0, False
        while not done:
            _, r, term, trunc, info = env.step(masked_random(info["action_mask"], rng))
            total += float(r)
            done = term or trunc
        b = env.battle
        dealt = taken = 0
        for ev in b.log.events[start:]:
            if ev["e"] == EventKind.DAMAGE:
                if sides[ev["who"]] == 0:
                    taken += ev["levels"]
                else:
                    dealt += ev["levels"]
        terminal = 0.0 if b.winner is None else (1.0 if b.winner == 0 else -1.0)
        assert total == pytest.approx(0.5 * (dealt - taken) + terminal)


def test_side_control_is_the_default_combatant_control_in_a_duel() -> None:
    # one combatant a side: the two controls play the same battles
    a, b = VtmEnv("duel"), VtmEnv("duel", control="side")
    rng_a, rng_b = np.random.default_rng(5), np.random.default_rng(5)
    for ep in range(3):
        oa, ia = a.reset(seed=ep)
        ob, ib = b.reset(seed=ep)
        done = False
        while not done:
            assert np.array_equal(oa, ob)
            oa, ra, ta, _, ia = a.step(masked_random(ia["action_mask"], rng_a))
            ob, rb, tb, _, ib = b.step(masked_random(ib["action_mask"], rng_b))
            assert (ra, ta) == (rb, tb)
            done = ta


def test_unknown_control_is_refused() -> None:
    with pytest.raises(ValueError, match="control 'team'"):
        VtmEnv(control="team")  # type: ignore[arg-type]


# --- seats (version 6) -------------------------------------------------------------------
@pytest.mark.parametrize("scenario", ["duel", "gunfight", "bar_brawl"])
def test_action_targets_are_relative_to_the_observer_as_the_rows_are(scenario: str) -> None:
    """Target slot k is the k-th other combatant in id order, the ``others`` row k: the
    same index means the same from every seat, and no seat targets itself."""
    sc = load_scenario(scenario)
    n = len(sc.fighters)
    base = ActionCatalog.for_scenario(sc)
    for me in range(n):
        cat = base.seat(me)
        assert cat.observer == me and cat.size == base.size
        others = [i for i in range(n) if i != me]
        assert list(cat.targets) == others
        for i, (mine, first) in enumerate(zip(cat.choices, base.choices, strict=True)):
            if isinstance(mine, Action) and mine.target is not None:
                assert mine.target == others[base.targets.index(first.target)]  # type: ignore[union-attr]
                assert mine.target != me, cat.describe(i)
            else:
                assert mine == first
        assert cat.seat(0) is base  # one catalog per seat, shared


def test_the_observation_says_the_seat() -> None:
    sc = load_scenario("gunfight")
    n = len(sc.fighters)
    names = ObservationEncoder.for_scenario(sc).feature_names()
    at = names.index("self.seat")
    for me in range(n):
        obs, _ = VtmEnv("gunfight", agent_id=me).reset(seed=0)
        assert obs[at] == pytest.approx(me / (n - 1))


def test_one_seat_free_agent_plays_both_seats_of_the_duel() -> None:
    """The same index means "the other one" from both seats: an agent that always
    attacks target slot 0 hits its enemy whichever seat it holds."""
    for seat in (0, 1):
        env = VtmEnv("duel", agent_id=seat)
        cat = env.catalog
        attacks = [i for i, c in enumerate(cat.choices) if isinstance(c, Action)
                   and c.kind is ActionKind.ATTACK and c.called is None and not c.offhand]
        assert {cat.choices[i].target for i in attacks} == {1 - seat}  # type: ignore[union-attr]
        twin = VtmEnv("duel", agent_id=1 - seat).catalog
        assert [cat.describe(i) for i in attacks] != [twin.describe(i) for i in attacks]
        assert all(twin.choices[i].target == seat for i in attacks)  # type: ignore[union-attr]


def test_padding_slots_name_nobody_and_are_never_legal() -> None:
    sc = load_scenario("duel")
    base = ActionCatalog.for_scenario(sc)
    wide = ActionCatalog(2, sc.rules, max_weapons=max(len(f.stats.weapons) for f in sc.fighters),
                         slots=4)
    assert wide.targets == (1, 2, 3, 4) and wide.size > base.size
    assert wide.describe(next(i for i, c in enumerate(wide.choices)
                              if isinstance(c, Action) and c.target == 4)).endswith("->slot 3")
    b = sc.battle(seed=0)
    while b.pending is not None and not (b.pending.actor == 0
                                         and b.pending.kind is DecisionKind.ACT):
        b.choose(b.pending.options[0])
    assert b.pending is not None
    legal = {wide.choices[i] for i in np.flatnonzero(wide.mask(b.pending))}
    assert legal == set(b.pending.options)
    with pytest.raises(ValueError, match="slots"):
        ActionCatalog(3, sc.rules, max_weapons=1, slots=1)
