"""Training with stable-baselines3 and sb3-contrib (skipped without them): the trainers on
the default env, `vtm-sim train` / `evaluate` / `export-policy`, self-play, and the numpy
export's equality with the torch policy."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
import yaml
from click.testing import CliRunner

sb3_contrib = pytest.importorskip("sb3_contrib")
stable_baselines3 = pytest.importorskip("stable_baselines3")
torch = pytest.importorskip("torch")

import gymnasium as gym  # noqa: E402
from stable_baselines3.common.env_checker import check_env as sb3_check_env  # noqa: E402

import envs  # noqa: E402, F401
from agents.learned import (  # noqa: E402
    LearnedAgent,
    export_policy,
    load_agent,
    save_model,
)
from agents.numpy_policy import NumpyPolicy  # noqa: E402
from agents.training import Hyperparams, assignments, load_hyperparams  # noqa: E402
from vtm_sim.cli import main  # noqa: E402

ENV_ID = "vtm_sim/Duel-v6"
PPO_ARGS = {"n_steps": 512, "batch_size": 128, "n_epochs": 2, "seed": 0, "device": "cpu"}
# A run small enough for a test: every periodic part (evaluation, checkpoint) fires once.
SMALL = {"n_steps": 128, "batch_size": 64, "n_epochs": 1, "eval_freq": 256,
         "eval_episodes": 2, "checkpoint_freq": 256, "snapshot_freq": 128}


@pytest.fixture(autouse=True, scope="module")
def one_torch_thread() -> Iterator[None]:
    """As `vtm-sim train` does (torch_threads): tiny batches run faster on one thread."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def run(*args: str) -> tuple[int, str]:
    """Exit code and stdout (warnings go to stderr), or all the output on a failure."""
    r = CliRunner().invoke(main, list(args))
    return r.exit_code, r.stdout if r.exit_code == 0 else r.output


def episode_reward(agent: LearnedAgent, seed: int) -> float:
    env = gym.make(ENV_ID)
    obs, info = env.reset(seed=seed)
    total, done = 0.0, False
    while not done:
        obs, r, term, trunc, info = env.step(agent.act(obs, info["action_mask"]))
        total += float(r)
        done = term or trunc
    return total


@pytest.fixture()
def small_config(tmp_path: Path) -> Path:
    path = tmp_path / "small.yml"
    path.write_text(yaml.safe_dump(SMALL))
    return path


def test_sb3_check_env_on_the_defaults() -> None:
    sb3_check_env(gym.make(ENV_ID))
    sb3_check_env(gym.make(ENV_ID, obs_mode="dict"))


def test_maskable_ppo_trains_saves_and_loads(tmp_path: Path) -> None:
    env = gym.make(ENV_ID)
    model = sb3_contrib.MaskablePPO("MlpPolicy", env, **PPO_ARGS)
    model.learn(1024)
    path = save_model(model, tmp_path / "duel_maskable", env, seed=0, env_id=ENV_ID)
    agent = LearnedAgent.load(path)
    assert agent.info.algo == "MaskablePPO" and agent.info.catalog_size == env.action_space.n
    assert -2.0 < episode_reward(agent, seed=0) < 2.0
    code, out = run("tournament", "duel", "--policies", f"nearest,model:{path}",
                    "--battles", "3")
    assert code == 0, out
    assert f"model:{path}" in out


def test_ppo_learns_unmasked_on_the_default_env(tmp_path: Path) -> None:
    env = gym.make(ENV_ID)  # an action outside the mask is a penalized pass by default
    model = stable_baselines3.PPO("MlpPolicy", env, **PPO_ARGS)
    model.learn(1024)
    agent = LearnedAgent.load(save_model(model, tmp_path / "duel_ppo", env, seed=0))
    episode_reward(agent, seed=1)  # acts only among legal actions: never raises


def observations(n_episodes: int = 6) -> list[tuple[np.ndarray, np.ndarray]]:
    """A fixed set of (observation, mask) pairs from seeded random legal play."""
    env = gym.make(ENV_ID)
    rng = np.random.default_rng(0)
    out = []
    for seed in range(n_episodes):
        obs, info = env.reset(seed=seed)
        done = False
        while not done:
            mask = info["action_mask"]
            out.append((obs, mask.copy()))
            legal = np.flatnonzero(mask)
            obs, _, term, trunc, info = env.step(int(legal[rng.integers(legal.size)]))
            done = term or trunc
    return out


@pytest.mark.parametrize("algo", ["MaskablePPO", "PPO"])
def test_exported_policy_picks_the_torch_policys_actions(tmp_path: Path, algo: str) -> None:
    env = gym.make(ENV_ID)
    cls = sb3_contrib.MaskablePPO if algo == "MaskablePPO" else stable_baselines3.PPO
    model = cls("MlpPolicy", env, **PPO_ARGS)
    # Spread the logits (a fresh head's are all near 0) so that the test compares choices.
    gen = torch.Generator().manual_seed(1)
    with torch.no_grad():
        for p in model.policy.parameters():
            p.copy_(torch.randn(p.shape, generator=gen) * 0.3)
    zip_path = save_model(model, tmp_path / "m", env, seed=0, env_id=ENV_ID)
    npz = export_policy(zip_path, tmp_path / "m.npz")
    reference, exported = LearnedAgent.load(zip_path), load_agent(npz)
    assert isinstance(exported, NumpyPolicy)
    pairs = observations()
    assert len(pairs) > 50
    for obs, mask in pairs:
        assert exported.act(obs, mask) == reference.act(obs, mask)
        obs_t, _ = reference.model.policy.obs_to_tensor(obs)
        with torch.no_grad():
            latent = reference.model.policy.mlp_extractor.forward_actor(
                reference.model.policy.extract_features(obs_t))
            logits = reference.model.policy.action_net(latent)[0].numpy()
        np.testing.assert_allclose(exported.logits(obs), logits, rtol=1e-5, atol=1e-5)


def test_export_policy_command(tmp_path: Path) -> None:
    env = gym.make(ENV_ID)
    model = sb3_contrib.MaskablePPO("MlpPolicy", env, **PPO_ARGS)
    zip_path = save_model(model, tmp_path / "m", env, seed=0, env_id=ENV_ID)
    code, out = run("export-policy", str(zip_path), "--out", str(tmp_path / "m.npz"))
    assert code == 0, out
    assert (tmp_path / "m.npz").stat().st_size < 200_000
    assert f"model:{tmp_path / 'm.npz'}" in out


def test_hyperparameters_come_from_the_yaml_and_the_config(small_config: Path) -> None:
    hp, sources = load_hyperparams("maskable-ppo", ENV_ID)
    assert sources[0].endswith("hyperparams/maskable-ppo.yml")
    assert hp.n_timesteps == 200_000 and hp.n_envs == 4
    hp2, _ = load_hyperparams("ppo", "vtm_sim/SomethingElse-v6", small_config)
    assert hp2.n_steps == 128 and hp2.n_envs == Hyperparams().n_envs


def test_sub_envs_cover_every_seat_against_every_opponent() -> None:
    from vtm_sim.files.scenarios import load_scenario

    duel = load_scenario("duel")
    got = assignments(duel, ["nearest", "tactician"], 4)
    assert got == [(0, "nearest"), (1, "nearest"), (0, "tactician"), (1, "tactician")]
    assert assignments(duel, [], 2) == [(0, None), (1, None)]


def test_train_writes_a_zoo_run_folder(tmp_path: Path, small_config: Path) -> None:
    """`vtm-sim train`: model, metadata, resolved config, args, command, versions,
    TensorBoard, checkpoints and evaluations; the shaping is the env's default."""
    out = tmp_path / "run"
    code, text = run("train", "--timesteps", "512", "--seed", "3", "--n-envs", "2",
                     "--config", str(small_config), "--out", str(out), "--json")
    assert code == 0, text
    summary = json.loads(text)
    assert summary["timesteps"] >= 512 and 0 < summary["env_share"] < 1
    info = json.loads((out / "Duel-v6.json").read_text())
    assert info["algo"] == "MaskablePPO" and info["seed"] == 3 and info["scenario"] == "duel"
    config = yaml.safe_load((out / "Duel-v6" / "config.yml").read_text())
    assert config["n_steps"] == 128 and config["n_timesteps"] == 512
    default_shaping = gym.make(ENV_ID).unwrapped.shaping  # one default: the env's
    assert config["env_kwargs"]["shaping"] == info["env_kwargs"]["shaping"] == default_shaping
    # the control too: the env's default, one combatant
    assert config["env_kwargs"]["control"] == gym.make(ENV_ID).unwrapped.control == "combatant"
    args = yaml.safe_load((out / "Duel-v6" / "args.yml").read_text())
    assert args["seed"] == 3 and args["opponents"] == ["nearest", "tactician"]
    assert (out / "Duel-v6" / "command.txt").read_text().startswith("vtm-sim train")
    assert "torch" in yaml.safe_load((out / "Duel-v6" / "versions.yml").read_text())
    assert list((out / "tb").rglob("events.out.tfevents.*"))
    assert list(out.glob("rl_model_*_steps.zip")) and (out / "best_model.zip").exists()
    # every checkpoint has its metadata, so it evaluates and exports like the final model
    checkpoint = sorted(out.glob("rl_model_*_steps.zip"))[0]
    assert json.loads(checkpoint.with_suffix(".json").read_text()) == info
    code, text = run("export-policy", str(checkpoint), "--out", str(tmp_path / "ck.npz"))
    assert code == 0, text
    evals = np.load(out / "evaluations.npz")
    assert list(evals["opponents"]) == ["nearest", "tactician"] and len(evals["timesteps"]) >= 2
    assert LearnedAgent.load(out / "Duel-v6.zip").info.env_id == ENV_ID


def test_train_control_side_plays_the_whole_side(tmp_path: Path, small_config: Path) -> None:
    """--control side: every sub-env's learner plays all the combatants of its seat, as
    evaluate plays the policy; the run folder and the command line say so."""
    out = tmp_path / "side"
    code, text = run("train", "--env", "vtm_sim/Gunfight-v6", "--timesteps", "256",
                     "--opponents", "tactician", "--n-envs", "2", "--control", "side",
                     "--config", str(small_config), "--out", str(out), "--json")
    assert code == 0, text
    config = yaml.safe_load((out / "Gunfight-v6" / "config.yml").read_text())
    assert config["env_kwargs"]["control"] == "side"
    assert "--control side" in (out / "Gunfight-v6" / "command.txt").read_text()
    info = json.loads((out / "Gunfight-v6.json").read_text())
    env = gym.make(info["env_id"], agent_id=3, **info["env_kwargs"]).unwrapped
    assert env.learners == [3, 4, 5]


def test_init_starts_a_run_from_a_saved_models_weights(tmp_path: Path,
                                                       small_config: Path) -> None:
    """--init MODEL: the new run's policy starts as MODEL's (warm_start copies every
    weight), learns on with its own hyperparameters, and says so in command.txt."""
    from sb3_contrib import MaskablePPO

    from agents.training import warm_start

    first = tmp_path / "first"
    code, text = run("train", "--timesteps", "256", "--n-envs", "2", "--config",
                     str(small_config), "--out", str(first), "--json")
    assert code == 0, text
    saved = MaskablePPO.load(str(first / "Duel-v6.zip"), device="cpu")
    fresh = MaskablePPO("MlpPolicy", gym.make(ENV_ID), seed=9, device="cpu",
                        policy_kwargs={"net_arch": [64, 64], "activation_fn": torch.nn.Tanh})
    before = {k: v.clone() for k, v in fresh.policy.state_dict().items()}
    warm_start(fresh, MaskablePPO, str(first / "Duel-v6.zip"))
    after, want = fresh.policy.state_dict(), saved.policy.state_dict()
    assert all(torch.equal(after[k], want[k]) for k in want)
    assert not all(torch.equal(before[k], want[k]) for k in want)
    second = tmp_path / "second"
    code, text = run("train", "--timesteps", "256", "--n-envs", "2", "--config",
                     str(small_config), "--init", str(first / "Duel-v6.zip"), "--out",
                     str(second), "--json")
    assert code == 0, text
    assert "--init" in (second / "Duel-v6" / "command.txt").read_text()


def test_init_with_a_missing_or_unfit_model_is_one_line(tmp_path: Path,
                                                        small_config: Path) -> None:
    r = CliRunner().invoke(main, ["train", "--init", str(tmp_path / "nowhere.zip"),
                                  "--config", str(small_config)])
    assert r.exit_code == 2 and r.output.strip().count("\n") == 0
    assert "--init" in r.output and "no such model file" in r.output
    first = tmp_path / "first"
    code, text = run("train", "--timesteps", "256", "--n-envs", "2", "--config",
                     str(small_config), "--out", str(first), "--json")
    assert code == 0, text
    wide = tmp_path / "wide.yml"
    wide.write_text(yaml.safe_dump({**SMALL, "policy_kwargs": {"net_arch": [32]}}))
    r = CliRunner().invoke(main, ["train", "--timesteps", "256", "--n-envs", "4",
                                  "--config", str(wide), "--init", str(first / "Duel-v6.zip"),
                                  "--out", str(tmp_path / "second")])
    assert r.exit_code == 2 and r.output.strip().count("\n") == 0, r.output
    assert "its network is not this run's policy_kwargs" in r.output


def test_train_refuses_control_side_with_self_play(small_config: Path) -> None:
    r = CliRunner().invoke(main, ["train", "--opponents", "self", "--control", "side",
                                  "--config", str(small_config)])
    assert r.exit_code == 2 and r.output.strip().count("\n") == 0
    assert "--control side: self-play" in r.output


def test_train_by_self_play_against_past_snapshots(tmp_path: Path, small_config: Path) -> None:
    out = tmp_path / "self"
    code, text = run("train", "--opponents", "self", "--algo", "ppo", "--timesteps", "384",
                     "--n-envs", "1", "--config", str(small_config), "--out", str(out),
                     "--json")
    assert code == 0, text
    summary = json.loads(text)
    assert set(summary["evaluations"][-1]["scores"]) == {"nearest", "tactician"}
    assert LearnedAgent.load(out / "Duel-v6.zip").info.algo == "PPO"


def test_train_warns_when_sub_envs_leave_a_seat_or_opponent_out(
        tmp_path: Path, small_config: Path) -> None:
    r = CliRunner().invoke(main, ["train", "--timesteps", "256", "--n-envs", "2",
                                  "--opponents", "nearest,tactician", "--config",
                                  str(small_config), "--out", str(tmp_path / "w"), "--json"])
    assert r.exit_code == 0, r.output
    assert "--n-envs 2 covers 2 of the 4 seat x opponent pairs" in r.stderr
    json.loads(r.stdout)


def test_evaluate_reports_each_seat_and_the_pool(tmp_path: Path) -> None:
    env = gym.make(ENV_ID)
    model = sb3_contrib.MaskablePPO("MlpPolicy", env, **PPO_ARGS)
    zip_path = save_model(model, tmp_path / "m", env, seed=0, env_id=ENV_ID)
    npz = export_policy(zip_path, tmp_path / "m.npz")
    code, text = run("evaluate", str(zip_path), "--json", "--episodes", "6",
                     "--opponents", "nearest")
    assert code == 0, text
    data = json.loads(text[text.index("{"):])
    seats = data["opponents"]["nearest"]
    assert set(seats) == {"0", "1", "pooled"}
    assert seats["pooled"]["games"] == seats["0"]["games"] + seats["1"]["games"] == 12
    for r in seats.values():
        assert sum(r[k]["count"] for k in ("win", "draw", "loss")) == r["games"]
        for k in ("win", "draw", "loss"):
            lo, hi = r[k]["ci95"]
            assert lo <= r[k]["rate"] <= hi
    # the exported policy plays the same battles the same way (defaults: 100 a seat)
    code, text = run("evaluate", str(npz))
    assert code == 0, text
    assert "nearest" in text and "tactician" in text and "pooled" in text


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["train", "--env", "vtm_sim/Nope-v6"], "--env vtm_sim/Nope-v6: unknown environment id"),
        (["train", "--algo", "dqn"], "'dqn' is not one of"),
        (["train", "--config", "CONFIG"], "learning_rat: unknown key"),
        (["train", "--opponents", "sharpshooter"], "sharpshooter"),
        (["evaluate", "runs/none.zip"], "MODEL runs/none.zip: no such model file"),
        (["evaluate", "runs/none.npz"], "MODEL runs/none.npz: no such model file"),
        (["export-policy", "runs/none.zip", "--out", "x.npz"], "no such model file"),
    ],
)
def test_bad_input_is_one_line_exit_2(tmp_path: Path, args: list[str], needle: str) -> None:
    bad = tmp_path / "bad.yml"
    bad.write_text("learning_rat: 0.1\n")
    args = [str(bad) if a == "CONFIG" else a for a in args]
    code, text = run(*args, *(["--out", str(tmp_path / "r")] if args[0] == "train" else []))
    lines = text.strip().splitlines()
    assert code == 2, text
    assert len(lines) == 1 and needle in lines[0], lines


def test_subproc_env_factories_hold_only_plain_data(tmp_path: Path) -> None:
    """SubprocVecEnv's workers unpickle the sub-env factories: with ``vec_env: subproc``
    each holds the scenario's file and the opponent's name, never a Scenario or a policy
    maker (the compiled build's frozen dataclasses do not unpickle there), and builds in
    the worker the env the in-process factory builds."""
    from agents.training import _env_fns
    from vtm_sim.files.scenarios import load_scenario
    from vtm_sim.policies.registry import maker

    sc = load_scenario("duel")
    makers = {n: maker(n, sc) for n in ("nearest", "wrestler")}
    plain = (int, float, str, bool, type(None), Path, dict)
    named = _env_fns(ENV_ID, sc, makers, 4, {}, Hyperparams(), tmp_path, by_name=True)
    local = _env_fns(ENV_ID, sc, makers, 4, {}, Hyperparams(), tmp_path)
    for fn, same in zip(named, local, strict=True):
        held = [*(fn.__defaults__ or ()), *(c.cell_contents for c in fn.__closure__ or ())]
        # plain values, and classes and functions that pickle by their module-level name
        assert all(isinstance(v, plain) or (callable(v) and "<locals>" not in
                                            getattr(v, "__qualname__", "<locals>"))
                   for v in held), held
        a, b = fn(), same()
        oa, ia = a.reset(seed=5)
        ob, ib = b.reset(seed=5)
        assert np.array_equal(oa, ob) and np.array_equal(ia["action_mask"], ib["action_mask"])
        for _ in range(5):
            act = int(np.flatnonzero(ia["action_mask"])[0])
            oa, ra, ta, _, ia = a.step(act)
            ob, rb, tb, _, ib = b.step(act)
            assert np.array_equal(oa, ob) and ra == rb and ta == tb
            if ta:
                break


def test_train_with_subproc_sub_envs(tmp_path: Path, small_config: Path) -> None:
    """`vec_env: subproc` trains (the factories travel to the workers by name)."""
    config = tmp_path / "subproc.yml"
    config.write_text(small_config.read_text() + "vec_env: subproc\n")
    code, text = run("train", "--timesteps", "256", "--n-envs", "2", "--opponents",
                     "nearest", "--config", str(config), "--out", str(tmp_path / "s"),
                     "--json")
    assert code == 0, text
    assert json.loads(text)["timesteps"] >= 256


def test_a_clone_fitted_to_a_teachers_decisions_plays_its_moves(tmp_path: Path) -> None:
    """agents.imitation.fit_clone (experiments/planner_clone.py's fit): an exported numpy
    policy that picks the teacher's action on most held-out decisions, and plays by name."""
    from agents.imitation import fit_clone, record
    from vtm_sim.files.scenarios import load_scenario

    scenario = load_scenario("duel")
    data = record(scenario, "tactician", ["nearest", "random"], range(160), seed=0)
    path, agreement = fit_clone(data, tmp_path / "clone", scenario=scenario,
                                teacher="tactician", env_id=ENV_ID, epochs=60)
    assert path == tmp_path / "clone.npz"
    legal = data.mask.sum(axis=1)
    assert agreement >= 0.7 > float(np.mean(1 / legal))  # far above a random legal pick
    clone = NumpyPolicy.load(path)
    assert clone.info.algo == "clone of tactician" and clone.info.env_id == ENV_ID
    result = CliRunner().invoke(main, ["evaluate", f"model:{path}", "--opponents", "nearest",
                                       "--episodes", "4", "--json"])
    assert result.exit_code == 0, result.output
    with pytest.raises(ValueError, match="too few"):
        fit_clone(record(scenario, "tactician", ["nearest"], range(0)), tmp_path / "x",
                  scenario=scenario, teacher="tactician")
