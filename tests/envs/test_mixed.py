"""vtm_sim/Mixed-v6 (envs.mixed): one padded, masked space over every scenario, a fixed
train/test split drawn per episode, and its models played in ordinary battles."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import envs
from agents.adapter import AgentPolicy
from agents.evaluation import evaluate
from agents.model_info import ModelInfo
from agents.numpy_policy import write_policy
from agents.scripted import RandomAgent
from envs.actions import ActionCatalog
from envs.match import INFO_KEYS
from envs.mixed import (
    COMMON,
    MIXED,
    TEST_SCENARIOS,
    TRAIN_SCENARIOS,
    VtmMixedEnv,
    split_scenarios,
)
from envs.observation import OTHER, TEMPO, ObservationEncoder
from vtm_sim.core.choices import Action
from vtm_sim.data.formats import OBS_VERSION
from vtm_sim.files.scenarios import list_scenarios, load_scenario
from vtm_sim.policies.registry import maker

ROOT = Path(__file__).resolve().parents[2]
MIXED_ID = envs.MIXED_ID


def pick(mask: np.ndarray, rng: np.random.Generator) -> int:
    legal = np.flatnonzero(mask)
    assert legal.size, "a mask with no legal action"
    return int(legal[rng.integers(legal.size)])


def test_registered_beside_the_scenario_ids() -> None:
    assert envs.mixed_ids() == [MIXED_ID] == [f"vtm_sim/Mixed-v{envs.VERSION}"]
    assert MIXED_ID not in envs.registered_ids()
    spec = gym.spec(MIXED_ID)
    assert spec.entry_point == "envs.mixed:VtmMixedEnv"
    assert spec.kwargs == {"split": "train", "obs_version": OBS_VERSION}
    assert spec.max_episode_steps == envs.MAX_EPISODE_STEPS
    assert envs.current_id(MIXED_ID) == MIXED_ID


def test_the_split_is_fixed_disjoint_and_covers_every_scenario() -> None:
    train, test = split_scenarios("train"), split_scenarios("test")
    assert tuple(train) == TRAIN_SCENARIOS and tuple(test) == TEST_SCENARIOS
    assert not set(train) & set(test)
    assert sorted(train + test) == split_scenarios("all") == sorted(list_scenarios())
    assert len(test) == 4 and len(train) >= 8
    with pytest.raises(ValueError, match="split 'dev'"):
        split_scenarios("dev")


def test_the_common_space_is_the_largest_of_every_scenario() -> None:
    """Fixed sizes, and exactly the largest of the shipped scenarios (none is refused)."""
    loaded = [load_scenario(n) for n in list_scenarios()]
    assert COMMON.slots == max(len(s.fighters) for s in loaded) - 1
    assert COMMON.max_weapons == max(len(f.stats.weapons) for s in loaded for f in s.fighters)
    assert COMMON.max_celerity >= max(f.stats.discipline("celerity")
                                      for s in loaded for f in s.fighters)
    for s in loaded:
        COMMON.check(s)
    big = load_scenario("bar_brawl")
    with pytest.raises(ValueError, match="8 combatants"):
        type(COMMON)(slots=6).check(big)


def test_spaces_are_identical_across_splits_and_scenarios() -> None:
    base = gym.make(MIXED_ID)
    for split in ("train", "test", "all"):
        env = gym.make(MIXED_ID, split=split)
        assert env.observation_space == base.observation_space
        assert env.action_space == base.action_space
    for name in list_scenarios():
        env = gym.make(MIXED_ID, scenarios=[name])
        assert env.observation_space == base.observation_space
        assert env.action_space == base.action_space
        # the padded catalog of each scenario: the same size, the same choice per index
        # wherever the choice names no target
        cat = COMMON.catalog(load_scenario(name))
        assert cat.size == base.action_space.n  # type: ignore[attr-defined]
    largest = max(ActionCatalog.for_scenario(load_scenario(n)).size for n in list_scenarios())
    assert base.action_space.n >= largest  # type: ignore[attr-defined]


def test_draws_follow_the_split_and_the_seed() -> None:
    def draws(split: str, seed: int) -> list[tuple[str, int]]:
        env = gym.make(MIXED_ID, split=split)
        _, info = env.reset(seed=seed)
        out = [(info["scenario"], info["side"])]
        for _ in range(29):
            _, info = env.reset()
            out.append((info["scenario"], info["side"]))
        return out

    train = draws("train", 0)
    assert {s for s, _ in train} <= set(TRAIN_SCENARIOS) and len({s for s, _ in train}) > 4
    assert {side for _, side in train} == {0, 1}
    test = draws("test", 0)
    assert {s for s, _ in test} == set(TEST_SCENARIOS)
    assert draws("test", 0) == test and draws("test", 1) != test


def test_reset_options_name_the_scenario_and_side() -> None:
    env = VtmMixedEnv("test")
    _, info = env.reset(seed=0, options={"scenario": "knife_duel", "side": 1})
    assert (info["scenario"], info["side"]) == ("knife_duel", 1)
    assert env.scenario.name == "knife_duel" and env.agent_id == 1
    with pytest.raises(ValueError, match="not one of this env's"):
        env.reset(options={"scenario": "duel"})
    with pytest.raises(ValueError, match="has sides"):
        env.reset(options={"scenario": "knife_duel", "side": 5})


def legal_choices(env: VtmMixedEnv, mask: np.ndarray) -> set[Any]:
    b = env.battle
    assert b is not None and b.pending is not None
    cat = env.match.catalog.seat(b.pending.actor)
    return {cat.choices[i] for i in np.flatnonzero(mask)}


@pytest.mark.parametrize("scenario", ["bar_brawl", "duel", "knife_duel", "staking",
                                      "dark_ages_skirmish"])
def test_masks_match_engine_legality_and_padding_is_never_legal(scenario: str) -> None:
    env = VtmMixedEnv(scenarios=[scenario], opponents="random", skip_forced=False)
    n = len(env.scenario.fighters)
    rng = np.random.default_rng(0)
    steps = 0
    for seed in range(3):
        for side in sorted({f.side for f in env.scenario.fighters}):
            _, info = env.reset(seed=seed, options={"side": side})
            term = trunc = False
            while not (term or trunc) and steps < 600:
                b = env.battle
                assert b is not None and b.pending is not None
                d = b.pending
                assert d.actor in env.seat.learners  # type: ignore[union-attr]
                assert legal_choices(env, info["action_mask"]) == set(d.options)
                cat = env.match.catalog.seat(d.actor)
                for i in np.flatnonzero(info["action_mask"]):
                    c = cat.choices[i]
                    assert not (isinstance(c, Action) and c.target is not None
                                and c.target >= n), "a padding slot is legal"
                _, _, term, trunc, info = env.step(pick(info["action_mask"], rng))
                assert not info["illegal"]
                steps += 1
    assert steps > 50


def others_rows(env: VtmMixedEnv, obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    view = env.encoder.split(obs)
    return view["others"], view["tempo"]


@pytest.mark.parametrize("scenario", ["duel", "knife_duel", "rooftops", "blackout"])
def test_padding_rows_are_zero(scenario: str) -> None:
    env = VtmMixedEnv(scenarios=[scenario])
    n = len(load_scenario(scenario).fighters)
    rng = np.random.default_rng(1)
    obs, info = env.reset(seed=0)
    for _ in range(60):
        assert env.observation_space.contains(obs)
        others, tempo = others_rows(env, obs)
        assert others.shape == (COMMON.slots, OTHER.size)
        assert tempo.shape == (COMMON.slots, TEMPO.size)
        assert not others[n - 1:].any() and not tempo[n - 1:].any()
        assert others[: n - 1, 0].any()  # present: someone is still in the fight
        obs, _, term, trunc, info = env.step(pick(info["action_mask"], rng))
        if term or trunc:
            obs, info = env.reset()


def test_the_default_encoder_is_unchanged_and_padding_only_appends_zero_rows() -> None:
    """slots=None is the per-scenario layout; slots = n - 1 is the same encoder; a padded
    encoder with the same scales is the default one with zero rows inserted."""
    sc = load_scenario("rooftops")
    b = sc.battle()
    while b.pending is not None and b.turn < 2:
        b.choose(b.pending.options[0])
    default = ObservationEncoder.for_scenario(sc)
    n = len(sc.fighters)
    same = ObservationEncoder(n, sc.rules, max_celerity=default.max_celerity,
                              max_penalty=default.max_penalty, slots=n - 1)
    np.testing.assert_array_equal(default.encode(b, 0), same.encode(b, 0))
    assert default.feature_names() == same.feature_names()
    padded = COMMON.encoder(sc)
    got = padded.split(padded.encode(b, 0))
    assert padded.size == default.size + (COMMON.slots - (n - 1)) * (OTHER.size + TEMPO.size)
    want = default.split(default.encode(b, 0))
    np.testing.assert_array_equal(got["decision"], want["decision"])
    # the fight's rows: the same features (scales aside: order place, seat, Celerity)
    assert got["others"][: n - 1, 0].tolist() == want["others"][:, 0].tolist()
    with pytest.raises(ValueError, match="slots 1"):
        ObservationEncoder(n, sc.rules, slots=1)


def test_info_has_the_same_keys_on_every_step_with_the_scenario() -> None:
    env = gym.make(MIXED_ID, split="all")
    rng = np.random.default_rng(2)
    _, info = env.reset(seed=5)
    keys = set(INFO_KEYS) | {"scenario", "side"}
    for _ in range(300):
        assert set(info) == keys
        assert isinstance(info["scenario"], str) and isinstance(info["side"], int)
        _, _, term, trunc, info = env.step(pick(info["action_mask"], rng))
        assert set(info) == keys
        if term:
            assert np.flatnonzero(info["action_mask"]).tolist() == [
                env.unwrapped.catalog.pass_index]  # type: ignore[attr-defined]
        if term or trunc:
            _, info = env.reset()


@pytest.mark.parametrize("split", ["train", "test"])
def test_check_env_on_each_split(split: str) -> None:
    check_env(gym.make(MIXED_ID, split=split, render_mode="ansi").unwrapped)


def test_dict_observations_flatten_to_the_flat_one() -> None:
    flat = gym.make(MIXED_ID, split="test")
    dict_env = gym.wrappers.FlattenObservation(gym.make(MIXED_ID, split="test", obs_mode="dict"))
    assert dict_env.observation_space == flat.observation_space
    a, _ = flat.reset(seed=4)
    b, _ = dict_env.reset(seed=4)
    np.testing.assert_array_equal(a, b)


def test_a_masked_random_agent_plays_a_held_out_scenario_through_the_adapter() -> None:
    sc = load_scenario("knife_duel")

    def player(rng: np.random.Generator, cid: int) -> AgentPolicy:
        return AgentPolicy(RandomAgent(rng), sc, seat=cid, common=True)

    policy = player(np.random.default_rng(0), 0)
    assert policy.catalog.size == gym.make(MIXED_ID).action_space.n  # type: ignore[attr-defined]
    assert policy.encoder.size == gym.make(MIXED_ID).observation_space.shape[0]  # type: ignore[index]
    ev = evaluate(sc, player, {"ladder:2": maker("ladder:2", sc)}, episodes=3, seed=0)
    assert ev.pooled("ladder:2").games == 6


def mixed_model(tmp_path: Path) -> Path:
    """A numpy policy of the mixed env's shape (random weights), as a trained one is saved."""
    env = gym.make(MIXED_ID)
    d = env.observation_space.shape[0]  # type: ignore[index]
    n = int(env.action_space.n)  # type: ignore[attr-defined]
    info = ModelInfo("MaskablePPO", MIXED_ID, MIXED, 0, OBS_VERSION, "flat", n, 0)
    rng = np.random.default_rng(0)
    layers = [(rng.normal(size=(16, d)).astype(np.float32), np.zeros(16, np.float32)),
              (rng.normal(size=(n, 16)).astype(np.float32), np.zeros(n, np.float32))]
    path = write_policy(tmp_path / "mixed.npz", layers, "tanh", info)
    (tmp_path / "mixed.json").write_text(json.dumps(asdict(info)), encoding="utf-8")
    return path


def test_a_mixed_model_plays_held_out_scenarios_by_name(tmp_path: Path) -> None:
    """model:PATH of a model whose metadata says "mixed" sees the padded spaces in any
    scenario (the registry's maker picks them from the metadata)."""
    path = mixed_model(tmp_path)
    for name in TEST_SCENARIOS:
        sc = load_scenario(name)
        make = maker(f"model:{path}", sc)
        policy = make(np.random.default_rng(0), 0)
        assert policy.catalog.size == COMMON.catalog(sc).size  # type: ignore[attr-defined]
        ev = evaluate(sc, make, {"ladder:1": maker("ladder:1", sc)}, episodes=1, seed=0)
        assert ev.pooled("ladder:1").games == 2


def test_vtm_sim_evaluate_takes_a_mixed_model_with_a_scenario_id(tmp_path: Path) -> None:
    path = mixed_model(tmp_path)
    cmd = [sys.executable, "-c", "from vtm_sim.cli import main; main()", "evaluate",
           str(path), "--opponents", "ladder:1", "--episodes", "2", "--json"]
    out = subprocess.run([*cmd, "--env", envs.env_id("knife_duel")], capture_output=True,
                         text=True, cwd=ROOT, check=False)
    assert out.returncode == 0, out.stderr[-2000:]
    result = json.loads(out.stdout[out.stdout.index("{"):])
    assert result["scenario"] == "knife_duel"
    assert result["opponents"]["ladder:1"]["pooled"]["games"] == 4
    missing = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, check=False)
    assert missing.returncode != 0 and "name the scenario to play with --env" in missing.stderr


def test_vtm_sim_train_refuses_the_mixed_id_naming_the_script() -> None:
    from agents.training import env_scenario
    from vtm_sim.errors import ConfigError

    with pytest.raises(ConfigError, match=r"cross_scenario\.py"):
        env_scenario(MIXED_ID)


def test_its_version_history_is_in_the_docstring_and_the_docs() -> None:
    import inspect
    import re

    import yaml

    history = yaml.safe_load((ROOT / "docs" / "environments" / "history.yaml").read_text())
    assert envs.VERSION in history["mixed"] and min(history["mixed"]) == 6
    doc = inspect.getdoc(VtmMixedEnv) or ""
    section = doc.split("## Version History", 1)[1]
    assert re.findall(r"^- v(\d+):", section, flags=re.M) == [
        str(v) for v in sorted(history["mixed"], reverse=True)]
