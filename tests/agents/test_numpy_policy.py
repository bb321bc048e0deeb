"""Exported policies run on numpy alone: the .npz format, and the CLI with torch blocked.

No torch needed: the policies here are written with numpy (random weights in
the exported format); tests/agents/test_training.py checks that an export picks the
same actions as the torch policy it came from.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from dataclasses import replace
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from click.testing import CliRunner

import envs
from agents.learned import ModelInfo, load_agent
from agents.numpy_policy import MASK_HANDLING, NumpyPolicy, write_policy
from agents.registered import POLICY_DIR
from vtm_sim.cli import main
from vtm_sim.data.formats import OBS_VERSION

ENV_ID = "vtm_sim/Duel-v6"
ROOT = Path(__file__).resolve().parents[2]

# Refuses torch and stable-baselines3 at import.
BLOCKER = textwrap.dedent("""
    import sys
    from importlib.abc import MetaPathFinder

    BLOCKED = ("torch", "stable_baselines3", "sb3_contrib")

    class NoTorch(MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in BLOCKED:
                raise ImportError(f"{name} is blocked in this test")
            return None

    sys.meta_path.insert(0, NoTorch())
""")
# Runs the vtm-sim command line with the blocker in place.
BLOCKED_RUN = BLOCKER + textwrap.dedent("""
    from vtm_sim.cli import main
    try:
        main(sys.argv[1:])
    finally:
        loaded = [m for m in sys.modules if m.split(".")[0] in BLOCKED]
        assert not loaded, loaded
""")


def random_policy(path: Path, seed: int = 0, hidden: int = 32) -> Path:
    """A policy in the exported format with seeded random weights, for the duel."""
    env = gym.make(ENV_ID)
    base = env.unwrapped
    d, n = int(env.observation_space.shape[0]), int(env.action_space.n)
    rng = np.random.default_rng(seed)
    layers = [(rng.normal(0, d**-0.5, (hidden, d)), rng.normal(0, 0.1, hidden)),
              (rng.normal(0, hidden**-0.5, (hidden, hidden)), rng.normal(0, 0.1, hidden)),
              (rng.normal(0, hidden**-0.5, (n, hidden)), rng.normal(0, 0.1, n))]
    info = ModelInfo("MaskablePPO", ENV_ID, "duel", 0, OBS_VERSION, base.obs_mode, n, seed)
    return write_policy(path, layers, "tanh", info)


def test_exported_policy_acts_on_legal_actions_by_its_logits(tmp_path: Path) -> None:
    path = random_policy(tmp_path / "p.npz")
    agent = load_agent(path)
    assert isinstance(agent, NumpyPolicy) and agent.info.catalog_size > 0
    env = gym.make(ENV_ID)
    obs, info = env.reset(seed=0)
    done, steps = False, 0
    while not done:
        mask = info["action_mask"]
        a = agent.act(obs, mask)
        legal = np.flatnonzero(mask)
        assert a in legal
        assert agent.logits(obs)[a] == agent.logits(obs)[legal].max()
        obs, _, term, trunc, info = env.step(a)
        done, steps = term or trunc, steps + 1
    assert steps > 1


def test_exported_file_says_how_it_plays(tmp_path: Path) -> None:
    path = random_policy(tmp_path / "p.npz")
    with np.load(path) as data:
        meta = json.loads(str(data["meta"]))
    assert meta["activation"] == "tanh" and meta["mask_handling"] == MASK_HANDLING
    assert meta["info"]["obs_version"] == OBS_VERSION and meta["info"]["obs_mode"] == "flat"
    assert meta["info"]["catalog_size"] == gym.make(ENV_ID).action_space.n
    assert path.stat().st_size < 200_000


def test_an_export_for_another_observation_layout_is_refused(tmp_path: Path) -> None:
    path = random_policy(tmp_path / "p.npz")
    with np.load(path) as data:
        arrays = {k: data[k] for k in data.files}
    meta = json.loads(str(arrays["meta"]))
    meta["info"]["obs_version"] = OBS_VERSION + 1
    arrays["meta"] = np.array(json.dumps(meta))
    np.savez(tmp_path / "old.npz", **arrays)
    with pytest.raises(ValueError, match=f"observation layout {OBS_VERSION + 1}, but this "
                       f"code is vtm_sim/Duel-v6 with layout {OBS_VERSION}: retrain"):
        NumpyPolicy.load(tmp_path / "old.npz")
    with pytest.raises(ValueError, match="no such file"):
        NumpyPolicy.load(tmp_path / "missing.npz")


def test_write_refuses_a_head_that_does_not_fit_the_catalog(tmp_path: Path) -> None:
    info = ModelInfo("PPO", ENV_ID, "duel", 0, OBS_VERSION, "flat", 10, 0)
    with pytest.raises(ValueError, match="10"):
        write_policy(tmp_path / "p.npz", [(np.zeros((9, 4)), np.zeros(9))], "tanh", info)
    with pytest.raises(ValueError, match="activation"):
        write_policy(tmp_path / "p.npz", [(np.zeros((10, 4)), np.zeros(10))], "gelu",
                     replace(info))


def test_tournament_takes_an_exported_policy_by_model_name(tmp_path: Path) -> None:
    path = random_policy(tmp_path / "p.npz")
    out = CliRunner().invoke(
        main, ["tournament", "duel", "--policies", f"nearest,model:{path}", "--battles", "4",
               "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output[out.output.index("{"):])
    assert f"model:{path}" in data["policies"]


def blocked(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", BLOCKED_RUN, *args], cwd=cwd,
                          capture_output=True, text=True, timeout=600)


def test_commands_run_with_torch_blocked(tmp_path: Path) -> None:
    """Tournaments, suggest, export-behaviors and the README's main job need no torch."""
    policy = random_policy(tmp_path / "duel.npz")
    check = subprocess.run([sys.executable, "-c", BLOCKER + "import torch"],
                           capture_output=True, text=True)
    assert check.returncode != 0 and "blocked" in check.stderr  # the blocker works
    runs = {
        # the Quick start's job with its default line-up (the ladder and trained:duel, numpy
        # only) at 2 battles a side; .ci/run plays it as written (minutes: the planner rung)
        "readme": ["tournament", "--battles", "2", "--jobs", "1"],  # torch blocked in-process
        "tournament": ["tournament", "duel", "--policies", f"nearest,brawler,model:{policy}",
                       "--battles", "5"],
        "suggest": ["suggest", "duel", "--npc", "Bar Brawler", "--rollouts", "20"],
        # evaluate takes an exported .npz or a shipped trained:NAME on numpy alone
        "evaluate": ["evaluate", str(policy), "--opponents", "nearest", "--episodes", "3"],
        "evaluate-shipped": ["evaluate", "trained:duel", "--opponents", "ladder:1",
                             "--episodes", "2", "--json"],
        "export-behaviors": ["export-behaviors", "duel", "--npc", "Bar Brawler",
                             "--policy", f"model:{policy}", "--battles", "10",
                             "--out", str(tmp_path / "card.md")],
    }
    out = {}
    for name, args in runs.items():
        r = blocked(*args, cwd=ROOT)
        assert r.returncode == 0, (name, r.stderr[-2000:])
        out[name] = r.stdout
    assert "Tournament on duel" in out["readme"]
    assert f"model:{policy}" in out["tournament"]
    assert "This turn: " in out["suggest"] and "\n1. " in out["suggest"]
    assert "nearest" in out["evaluate"] and "pooled" in out["evaluate"]
    shipped = json.loads(out["evaluate-shipped"][out["evaluate-shipped"].index("{"):])
    assert shipped["model"] == "trained:duel"
    assert shipped["opponents"]["ladder:1"]["pooled"]["games"] == 4
    assert (tmp_path / "card.md").read_text().strip()


@pytest.mark.parametrize("name", ["duel", "gunfight"])
def test_shipped_policies_load_and_play_with_torch_blocked(name: str) -> None:
    """trained:duel and trained:gunfight (agents/policies/*.npz) fight a battle on numpy alone."""
    r = blocked("fight", name, "--policy", f"trained:{name}", "--seed", "3", "--json", cwd=ROOT)
    assert r.returncode == 0, r.stderr[-2000:]
    battle = json.loads(r.stdout[r.stdout.index("{"):])
    assert battle["turns"] >= 1
    r = blocked("tournament", name, "--policies", f"trained:{name},ladder:2", "--battles", "2",
                cwd=ROOT)
    assert r.returncode == 0, r.stderr[-2000:]
    assert f"trained:{name}" in r.stdout


def older_export(tmp_path: Path, env_id: str, scenario: str, version: int, inputs: int,
                 actions: int, *, seed: int) -> NumpyPolicy:
    """A random 8-unit export of an older layout ``version``: ``inputs`` floats in,
    ``actions`` logits out."""
    rng = np.random.default_rng(seed)
    layers = [(rng.normal(0, 0.2, (8, inputs)), rng.normal(0, 0.1, 8)),
              (rng.normal(0, 0.2, (actions, 8)), rng.normal(0, 0.1, actions))]
    info = ModelInfo("MaskablePPO", env_id, scenario, 0, version, "flat", actions, 0)
    return NumpyPolicy.load(write_policy(tmp_path / f"v{version}.npz", layers, "tanh", info))


@pytest.mark.parametrize("version", [3, 4, 5])
def test_an_export_of_an_older_layout_fails_in_one_line_naming_both(
        tmp_path: Path, version: int) -> None:
    """Version 6 renumbered the action catalog (relative targets): no older model reads
    it, whatever its size; loading one names both versions and says what to do."""
    env = gym.make(ENV_ID)
    d, n = int(env.observation_space.shape[0]), int(env.action_space.n)
    with pytest.raises(ValueError) as err:
        older_export(tmp_path, "vtm_sim/Duel-v0", "duel", version, d - 1, n + 1, seed=version)
    text = str(err.value)
    assert "\n" not in text and f"layout {version}" in text and f"layout {OBS_VERSION}" in text
    assert f"vtm_sim/Duel-v{envs.VERSION}" in text and "export it again" in text


def test_an_export_refuses_another_fights_observation(tmp_path: Path) -> None:
    agent = NumpyPolicy.load(POLICY_DIR / "duel.npz")
    gunfight, _ = gym.make("vtm_sim/Gunfight-v6").reset(seed=0)
    with pytest.raises(ValueError, match="features"):
        agent.logits(gunfight)


def test_evaluate_names_an_unknown_shipped_policy_in_one_line() -> None:
    out = CliRunner().invoke(main, ["evaluate", "trained:nope"])
    assert out.exit_code == 2
    assert out.output.strip().count("\n") == 0
    assert "MODEL trained:nope: no shipped policy 'nope' (shipped: duel, gunfight)" in out.output


def test_evaluate_takes_a_model_as_every_command_names_it() -> None:
    """MODEL may be model:PATH, the name `tournament --policies` and `fight` take."""
    from agents.registered import POLICY_DIR

    path = str(POLICY_DIR / "duel.npz")
    args = ["--opponents", "nearest", "--episodes", "3", "--json"]
    plain = CliRunner().invoke(main, ["evaluate", path, *args])
    named = CliRunner().invoke(main, ["evaluate", f"model:{path}", *args])
    assert plain.exit_code == 0 and named.exit_code == 0, (plain.output, named.output)
    one, two = (json.loads(r.stdout[r.stdout.index("{"):]) for r in (plain, named))
    assert one["opponents"] == two["opponents"] and one["opponents"]["nearest"]["0"]["games"] == 3
    missing = CliRunner().invoke(main, ["evaluate", "model:nowhere.npz"])
    assert missing.exit_code == 2 and "MODEL nowhere.npz: no such model file" in missing.output


def test_evaluate_gives_the_same_table_with_two_jobs_and_matches_the_in_process_loop(
        tmp_path: Path) -> None:
    """`evaluate` plays a tournament's chunks: --jobs changes nothing, and the figures are
    those of agents.evaluation.evaluate (the training's periodic evaluations)."""
    from agents.evaluation import evaluate
    from agents.registered import trained
    from vtm_sim.files.scenarios import load_scenario
    from vtm_sim.policies.registry import maker

    args = ["evaluate", "trained:gunfight", "--opponents", "nearest,trained:gunfight",
            "--episodes", "6", "--seed", "4", "--json"]
    one = CliRunner().invoke(main, args)
    two = CliRunner().invoke(main, [*args, "--jobs", "2"])
    assert one.exit_code == 0 and two.exit_code == 0, (one.output, two.output)
    data = json.loads(one.stdout[one.stdout.index("{"):])
    assert data == json.loads(two.stdout[two.stdout.index("{"):])
    sc = load_scenario("gunfight")
    direct = evaluate(sc, trained(sc, "gunfight"), {"nearest": maker("nearest", sc)},
                      episodes=6, seed=4).to_json()
    assert data["opponents"]["nearest"] == direct["opponents"]["nearest"]
    itself = data["opponents"]["trained:gunfight"]  # each seed once, scored for each seat
    assert itself["0"]["win"]["count"] == itself["1"]["loss"]["count"]
    assert itself["pooled"]["games"] == 12
