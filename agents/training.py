"""The training pipeline behind ``vtm-sim train`` (needs the training extra).

Hyperparameters come from YAML (``experiments/hyperparams/<algo>.yml``, one
entry per env id as in the RL Baselines3 Zoo, ``default`` for the others),
overridden by a ``--config`` file of the same keys, validated by
:class:`Hyperparams` (unknown keys are refused). A run writes its folder in
the Zoo's layout::
    DIR/
      Duel-v6.zip, Duel-v6.json   the final model and its metadata (agents.learned)
      best_model.zip, .json       the best model at the periodic evaluations
      rl_model_<N>_steps.zip      checkpoints
      evaluations.npz             timesteps and scores of every evaluation
      monitor/                    SB3 Monitor CSVs, one per sub-env
      tb/                         TensorBoard logs
      Duel-v6/config.yml          the resolved hyperparameters
      Duel-v6/args.yml            the command's arguments (seed included)
      Duel-v6/command.txt         the command line
      Duel-v6/versions.yml        python and library versions, and the build
      summary.json                what ``vtm-sim train --json`` prints

Sub-env ``k`` plays seat ``k mod S`` (S = the scenario's sides, the agent
being the first combatant of that side) against one of the O ``--opponents``
(:func:`assignments`): with ``--n-envs`` >= S x O opponent ``(k div S) mod O``, so
every seat trains against every opponent; with fewer, opponent ``k mod O``, so
every opponent is still played; fewer sub-envs than opponents is refused.
``--opponents self`` trains by self-play against a league of past snapshots on the
multi-agent env (:mod:`agents.league`). torch and
stable-baselines3 are imported inside the functions.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import gymnasium as gym
import numpy as np
import yaml
from pydantic import Field

import envs
from agents.adapter import AgentPolicy
from agents.evaluation import PolicyMaker, evaluate, seats
from agents.league import SelfPlayEnv
from agents.learned import LearnedAgent
from agents.model_info import ModelInfo, versions
from agents.numpy_policy import sb3_weights
from vtm_sim.core.choices import Choice, Decision
from vtm_sim.data.config import StrictModel, load_yaml, validate
from vtm_sim.engine.battle import Battle
from vtm_sim.errors import ConfigError
from vtm_sim.files.scenarios import Scenario, load_scenario
from vtm_sim.policies.registry import maker as named

__all__ = [
    "ALGOS",
    "HYPERPARAMS_DIR",
    "SELF",
    "Hyperparams",
    "RunArgs",
    "TrainResult",
    "assignments",
    "load_hyperparams",
    "train",
]

# The command's names -> the classes (module, class name).
ALGOS = {"maskable-ppo": ("sb3_contrib", "MaskablePPO"), "ppo": ("stable_baselines3", "PPO")}


def hyperparams_dir() -> Path:
    """The committed ``experiments/hyperparams/`` folder.

    An installed wheel (the compiled build's too) carries it inside the package as
    ``agents/hyperparams``; a source checkout and an editable install have it in the tree.
    """
    here = Path(__file__).resolve().parent
    packaged = here / "hyperparams"
    return packaged if packaged.is_dir() else here.parent / "experiments" / "hyperparams"


HYPERPARAMS_DIR = hyperparams_dir()
SELF = "self"  # --opponents self: self-play against past snapshots
ACTIVATION_FNS = ("tanh", "relu", "elu", "silu")


class PolicyKwargs(StrictModel):
    net_arch: list[int] = Field(default_factory=lambda: [64, 64])
    activation_fn: Literal["tanh", "relu", "elu", "silu"] = "tanh"


class Hyperparams(StrictModel):
    """One run's hyperparameters (the keys of ``experiments/hyperparams/*.yml``)."""

    policy: Literal["MlpPolicy"] = "MlpPolicy"
    n_timesteps: int = Field(100_000, ge=1)
    n_envs: int = Field(4, ge=1, le=64)
    vec_env: Literal["dummy", "subproc"] = "dummy"
    learning_rate: float = Field(3e-4, gt=0)
    n_steps: int = Field(512, ge=8)
    batch_size: int = Field(256, ge=8)
    n_epochs: int = Field(10, ge=1)
    gamma: float = Field(0.99, gt=0, le=1)
    gae_lambda: float = Field(0.95, gt=0, le=1)
    clip_range: float = Field(0.2, gt=0)
    ent_coef: float = Field(0.0, ge=0)
    vf_coef: float = Field(0.5, ge=0)
    max_grad_norm: float = Field(0.5, gt=0)
    policy_kwargs: PolicyKwargs = Field(default_factory=PolicyKwargs)
    env_kwargs: dict[str, Any] = Field(default_factory=dict)
    eval_freq: int = Field(10_000, ge=0)  # timesteps between evaluations (0: none)
    eval_episodes: int = Field(20, ge=1)  # per seat and opponent
    checkpoint_freq: int = Field(50_000, ge=0)  # timesteps between checkpoints (0: none)
    snapshot_freq: int = Field(10_000, ge=1)  # self-play: timesteps between league snapshots
    league_size: int = Field(20, ge=1)
    latest: float = Field(0.5, ge=0, le=1)  # self-play: chance to face the newest snapshot
    # torch's intra-op threads: 1, since small MLP batches are slower with more threads
    # (a 64x476 layer on 256 rows: 1.2 ms with 1 thread, 50 ms with 2 on a busy 2-core box)
    torch_threads: int = Field(1, ge=1)


def load_hyperparams(
    algo: str, env_id: str, config: str | Path | None = None
) -> tuple[Hyperparams, list[str]]:
    """The hyperparameters for ``env_id``: the algo's YAML entry, then ``config``'s keys.

    Returns them with the files read. Raises ConfigError naming the file and key.
    """
    path = HYPERPARAMS_DIR / f"{algo}.yml"
    if not path.is_file():  # never train on silent defaults instead of the committed table
        raise ConfigError(f"{path}: missing, expected the {algo} hyperparameters table "
                          "(a broken install? reinstall vtm-sim)")
    table = load_yaml(path) or {}
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: expected a mapping of env ids to hyperparameters")
    entry = table.get(env_id, table.get("default", {}))
    validate(Hyperparams, entry, path, env_id if env_id in table else "default")
    data: dict[str, Any] = dict(entry or {})
    sources = [str(path)]
    if config is not None:
        cpath = Path(config)
        extra = load_yaml(cpath)
        validate(Hyperparams, extra, cpath)
        data.update(extra or {})
        sources.append(str(cpath))
    return validate(Hyperparams, data, sources[-1]), sources


@dataclass(frozen=True)
class RunArgs:
    """What the command was asked (written to ``args.yml``)."""

    env_id: str
    algo: str
    timesteps: int
    seed: int
    opponents: tuple[str, ...]
    eval_opponents: tuple[str, ...]
    n_envs: int
    out: str
    config: str | None = None
    shaping: float | None = None
    control: str | None = None  # envs.VtmEnv's control ("combatant" or "side")
    init: str | None = None  # a saved model (.zip) whose weights the run starts from


@dataclass
class TrainResult:
    """What a run produced and measured."""

    run_dir: Path
    model: Path
    timesteps: int
    wall_seconds: float
    env_seconds: float
    evaluations: list[dict[str, Any]] = field(default_factory=list)

    @property
    def env_share(self) -> float:
        """The part of the wall time spent inside the envs (steps and resets)."""
        return self.env_seconds / self.wall_seconds if self.wall_seconds else 0.0

    def to_json(self) -> dict[str, Any]:
        return {"run_dir": str(self.run_dir), "model": str(self.model),
                "timesteps": self.timesteps, "wall_seconds": round(self.wall_seconds, 2),
                "env_seconds": round(self.env_seconds, 2),
                "env_share": round(self.env_share, 3), "evaluations": self.evaluations}


class StepTimer(gym.Wrapper[Any, Any, Any, Any]):
    """Adds up the wall time spent in ``step`` and ``reset`` (``seconds``)."""

    def __init__(self, env: gym.Env[Any, Any]) -> None:
        super().__init__(env)
        self.seconds = 0.0

    def step(self, action: Any) -> Any:
        t = time.perf_counter()
        out = self.env.step(action)
        self.seconds += time.perf_counter() - t
        return out

    def reset(self, **kwargs: Any) -> Any:
        t = time.perf_counter()
        out = self.env.reset(**kwargs)
        self.seconds += time.perf_counter() - t
        return out

    def action_masks(self) -> np.ndarray:
        masks: np.ndarray = self.env.unwrapped.action_masks()  # type: ignore[attr-defined]
        return masks


def env_scenario(env_id: str) -> str:
    """The scenario a registered id plays; ConfigError for an unknown id."""

    if env_id not in gym.registry:
        now = envs.current_id(env_id)
        if now is not None:
            raise ConfigError(f"--env {env_id}: an older version of {now}, the one this "
                              "code has (docs/environments/history.yaml)")
        raise ConfigError(f"--env {env_id}: unknown environment id (expected one of "
                          f"{', '.join(envs.registered_ids())})")
    if env_id in envs.mixed_ids():
        raise ConfigError(f"--env {env_id}: plays many scenarios, not one: train on it "
                          "with experiments/cross_scenario.py, and name a scenario's id "
                          "(vtm_sim/KnifeDuel-v6) to evaluate the model on")
    scenario = gym.registry[env_id].kwargs.get("scenario")
    if not isinstance(scenario, str):
        raise ConfigError(f"--env {env_id}: not a vtm_sim environment")
    return scenario


def first_of_side(scenario: Scenario, side: int) -> int:
    return next(i for i, f in enumerate(scenario.fighters) if f.side == side)


def seat_class(maker: PolicyMaker, cid: int) -> type:
    """An opponent class for the env's ``opponents=`` (built at every reset with the
    episode's generator) playing combatant ``cid`` as ``maker`` does."""

    class Seat:
        def __init__(self, rng: np.random.Generator) -> None:
            self.policy = maker(rng, cid)

        def choose(self, battle: Battle, decision: Decision) -> Choice:
            return self.policy.choose(battle, decision)

    return Seat


def assignments(scenario: Scenario, opponents: Sequence[str], n_envs: int
                ) -> list[tuple[int, str | None]]:
    """(seat, opponent) of each sub-env (opponent None: self-play, no ``opponents``).

    Sub-env ``k`` plays seat ``k mod S`` (S: the scenario's sides). With ``n_envs`` >=
    S x O (O: the opponents), opponent ``(k div S) mod O``: every seat against every
    opponent. With fewer, opponent ``k mod O``, round-robin, so every opponent is still
    played (and every seat, once ``n_envs`` >= S).

    Raises:
        ConfigError: ``n_envs`` < O, which would leave an opponent out.
    """
    sides = seats(scenario)
    n_sides, n_opp = len(sides), len(opponents)
    if n_envs < n_opp:
        raise ConfigError(f"--n-envs {n_envs}: each sub-env plays one opponent, so "
                          f"{n_opp} --opponents need --n-envs {n_opp} or more")
    every_pair = n_envs >= n_sides * n_opp
    return [(sides[k % n_sides],
             opponents[(k // n_sides) % n_opp if every_pair else k % n_opp]
             if opponents else None)
            for k in range(n_envs)]


def _env_fns(env_id: str, scenario: Scenario, opponents: Mapping[str, PolicyMaker],
             n_envs: int, env_kwargs: Mapping[str, Any], hp: Hyperparams, monitor_dir: Path,
             *, by_name: bool = False) -> list[Callable[[], gym.Env[Any, Any]]]:
    """One factory a sub-env. ``by_name``: for SubprocVecEnv, whose workers unpickle the
    factories: each holds only plain data (the scenario's file, the opponent's name) and
    builds the scenario and the opponent in the worker with the registry, as a
    tournament's workers do (the compiled build's frozen dataclasses do not unpickle)."""
    from stable_baselines3.common.monitor import Monitor

    source, scenario_name = scenario.source, scenario.name
    latest, league_size = hp.latest, hp.league_size
    kwargs = dict(env_kwargs)
    n_fighters = len(scenario.fighters)
    fns: list[Callable[[], gym.Env[Any, Any]]] = []
    for k, (side, opponent) in enumerate(assignments(scenario, list(opponents), n_envs)):
        me = first_of_side(scenario, side)
        maker = None if opponent is None or by_name else opponents[opponent]

        def make(k: int = k, me: int = me, opponent: str | None = opponent,
                 maker: PolicyMaker | None = maker) -> gym.Env[Any, Any]:
            env: gym.Env[Any, Any]
            if opponent is None:
                env = SelfPlayEnv(scenario_name, latest=latest, max_snapshots=league_size,
                                  **kwargs)
            else:
                if maker is None:  # in a SubprocVecEnv worker

                    maker = named(opponent, load_scenario(source))
                spec = {i: seat_class(maker, i) for i in range(n_fighters) if i != me}
                env = gym.make(env_id, agent_id=me, opponents=spec, **kwargs)
            monitored: gym.Env[Any, Any] = Monitor(StepTimer(env), str(monitor_dir / f"env_{k}"))
            return monitored

        fns.append(make)
    return fns


def _write_yaml(path: Path, data: Any) -> None:
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")


def train(
    args: RunArgs,
    hp: Hyperparams,
    opponents: Mapping[str, PolicyMaker],
    eval_makers: Mapping[str, PolicyMaker],
    scenario: Scenario,
    *,
    progress_bar: bool = False,
    command: Sequence[str] = (),
    log: Callable[[str], None] | None = None,
) -> TrainResult:
    """Train, evaluate periodically against ``eval_makers``, and write the run folder.

    ``opponents`` are the training opponents by name (empty: self-play).
    """
    import importlib

    from stable_baselines3.common.callbacks import CallbackList, CheckpointCallback
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    module, cls_name = ALGOS[args.algo]
    algo_cls = getattr(importlib.import_module(module), cls_name)
    run = Path(args.out)
    name = args.env_id.split("/")[-1]
    meta_dir = run / name
    try:
        meta_dir.mkdir(parents=True, exist_ok=True)
        (run / "monitor").mkdir(exist_ok=True)
    except OSError as exc:
        raise ConfigError(f"--out {run}: cannot write ({exc.strerror})") from None
    env_kwargs = dict(hp.env_kwargs)
    if args.shaping is not None:
        env_kwargs["shaping"] = args.shaping
    if args.control is not None:
        env_kwargs["control"] = args.control
    subproc = hp.vec_env == "subproc" and args.n_envs > 1
    fns = _env_fns(args.env_id, scenario, opponents, args.n_envs, env_kwargs, hp,
                   run / "monitor", by_name=subproc)
    # Resolve the env defaults the run actually used (shaping: the env's own default; the
    # control too, but self-play's env, the parallel one, has none: every agent is one).
    self_play = not opponents
    probe = gym.make(args.env_id, **env_kwargs).unwrapped
    env_kwargs.setdefault("shaping", float(probe.shaping))  # type: ignore[attr-defined]
    if not self_play:
        env_kwargs.setdefault("control", str(probe.control))  # type: ignore[attr-defined]
    resolved = hp.model_dump()
    resolved.update(n_timesteps=args.timesteps, n_envs=args.n_envs, env_kwargs=env_kwargs)
    _write_yaml(meta_dir / "config.yml", resolved)
    _write_yaml(meta_dir / "args.yml", {**args.__dict__, "opponents": list(args.opponents),
                                        "eval_opponents": list(args.eval_opponents)})
    (meta_dir / "command.txt").write_text(" ".join(command) + "\n", encoding="utf-8")
    _write_yaml(meta_dir / "versions.yml", versions())

    vec_cls = SubprocVecEnv if subproc else DummyVecEnv
    venv = vec_cls(fns)  # seeded by the model (seed, seed + 1, ... per sub-env)
    import torch

    torch.set_num_threads(hp.torch_threads)
    activation = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU, "elu": torch.nn.ELU,
                  "silu": torch.nn.SiLU}[hp.policy_kwargs.activation_fn]
    model = algo_cls(
        hp.policy, venv, learning_rate=hp.learning_rate, n_steps=hp.n_steps,
        batch_size=hp.batch_size, n_epochs=hp.n_epochs, gamma=hp.gamma,
        gae_lambda=hp.gae_lambda, clip_range=hp.clip_range, ent_coef=hp.ent_coef,
        vf_coef=hp.vf_coef, max_grad_norm=hp.max_grad_norm, seed=args.seed, device="cpu",
        policy_kwargs={"net_arch": list(hp.policy_kwargs.net_arch), "activation_fn": activation},
        tensorboard_log=str(run / "tb"), verbose=0,
    )
    if args.init is not None:
        warm_start(model, algo_cls, args.init)
    info = ModelInfo(
        algo=cls_name, env_id=args.env_id, scenario=scenario.name,
        agent_id=first_of_side(scenario, seats(scenario)[0]),
        obs_version=int(probe.obs_version),  # type: ignore[attr-defined]
        obs_mode=str(probe.obs_mode),  # type: ignore[attr-defined]
        catalog_size=int(probe.catalog.size),  # type: ignore[attr-defined]
        seed=args.seed, env_kwargs=env_kwargs, versions=versions(),
    )
    callbacks: list[Any] = []
    evaluator = _evaluator(info, scenario, eval_makers, hp, run, log)
    callbacks.append(evaluator)
    if hp.checkpoint_freq:
        callbacks.append(_checkpoints(CheckpointCallback, info,
                                      max(hp.checkpoint_freq // args.n_envs, 1), run))
    if not opponents:
        callbacks.append(_league_callback(hp))
        _snapshot(model)  # the league starts with the untrained policy
    start = time.perf_counter()
    model.learn(args.timesteps, callback=CallbackList(callbacks), progress_bar=progress_bar,
                tb_log_name=name)
    wall = time.perf_counter() - start
    env_seconds = float(sum(venv.env_method("get_wrapper_attr", "seconds")))
    evaluator.final(model)
    venv.close()
    model_path = _save(model, run / name, info)
    result = TrainResult(run, model_path, int(model.num_timesteps), wall, env_seconds,
                         evaluator.history)
    (run / "summary.json").write_text(json.dumps(result.to_json(), indent=2) + "\n",
                                      encoding="utf-8")
    return result


def warm_start(model: Any, algo_cls: Any, init: str) -> None:
    """Copy the policy weights of the saved model ``init`` into ``model`` (as the RL Zoo's
    ``--trained-agent``): the run goes on learning from them with its own hyperparameters
    and optimizer. ConfigError when the file does not load or its network does not fit."""
    path = Path(init).with_suffix(".zip")
    if not path.is_file():
        raise ConfigError(f"--init {init}: no such model file")
    try:
        old = algo_cls.load(str(path), device="cpu")
    except Exception as exc:  # SB3 raises many kinds on a foreign or broken zip
        raise ConfigError(f"--init {init}: cannot load ({type(exc).__name__}: {exc})"
                          ) from None
    if (old.observation_space.shape != model.observation_space.shape
            or old.action_space.n != model.action_space.n):
        raise ConfigError(
            f"--init {init}: observations {old.observation_space.shape} and "
            f"{old.action_space.n} actions, this env has {model.observation_space.shape} "
            f"and {model.action_space.n}")
    try:
        model.policy.load_state_dict(old.policy.state_dict())
    except RuntimeError:
        raise ConfigError(f"--init {init}: its network is not this run's policy_kwargs "
                          "(net_arch, activation_fn)") from None


def _checkpoints(base: Any, info: ModelInfo, save_freq: int, run: Path) -> Any:
    """SB3's CheckpointCallback (``rl_model_<N>_steps.zip``) that also writes each
    checkpoint's metadata beside it, as :func:`_save` does for the final model, so that
    ``evaluate``, ``export-policy`` and ``model:PATH`` take a checkpoint too."""
    class Checkpoints(base):  # type: ignore[misc,unused-ignore]
        def _on_step(self) -> bool:
            go_on: bool = super()._on_step()
            if self.n_calls % self.save_freq == 0:
                _write_info(Path(self._checkpoint_path(extension="zip")), info)
            return go_on

    return Checkpoints(save_freq, str(run), name_prefix="rl_model")


def _save(model: Any, path: Path, info: ModelInfo) -> Path:
    zip_path = path.with_suffix(".zip")
    model.save(str(zip_path))
    _write_info(zip_path, info)
    return zip_path


def _write_info(model_path: Path, info: ModelInfo) -> None:
    """The metadata of the model saved at ``model_path``, beside it as ``NAME.json``."""
    from dataclasses import asdict

    model_path.with_suffix(".json").write_text(json.dumps(asdict(info), indent=2) + "\n",
                                               encoding="utf-8")


def _evaluator(info: ModelInfo, scenario: Scenario, makers: Mapping[str, PolicyMaker],
               hp: Hyperparams, run: Path, log: Callable[[str], None] | None) -> Any:
    """An SB3 callback evaluating the model every ``eval_freq`` timesteps (and at the end)."""
    from stable_baselines3.common.callbacks import BaseCallback

    class PeriodicEvaluation(BaseCallback):  # type: ignore[misc,unused-ignore]  # Any without SB3
        def __init__(self) -> None:
            super().__init__()
            self.history: list[dict[str, Any]] = []
            self.best = -1.0
            self._next = hp.eval_freq

        def _on_step(self) -> bool:
            if hp.eval_freq and self.num_timesteps >= self._next:
                self._next += hp.eval_freq
                self.run_once(self.model)
            return True

        def final(self, model: Any) -> None:
            if not self.history or self.history[-1]["timesteps"] != model.num_timesteps:
                self.run_once(model)
            steps = np.array([h["timesteps"] for h in self.history])
            scores = np.array([[h["scores"][o] for o in makers] for h in self.history])
            np.savez(run / "evaluations.npz", timesteps=steps, scores=scores,
                     opponents=np.array(list(makers)))

        def run_once(self, model: Any) -> None:
            if not makers:
                return
            policy = AgentPolicy(LearnedAgent(model, info), scenario)  # holds no battle state
            player: PolicyMaker = lambda _rng, _cid: policy  # noqa: E731
            ev = evaluate(scenario, player, makers, episodes=hp.eval_episodes, seed=10**6)
            scores = {o: round(ev.pooled(o).score, 4) for o in makers}
            mean = float(np.mean(list(scores.values())))
            for o, s in scores.items():
                self.logger.record(f"eval/score_vs_{o}", s)
            self.logger.record("eval/mean_score", mean)
            self.history.append({"timesteps": int(model.num_timesteps), "scores": scores,
                                 "mean_score": round(mean, 4)})
            if log is not None:
                log(f"{model.num_timesteps} steps: " +
                    ", ".join(f"{s:.2f} vs {o}" for o, s in scores.items()))
            if mean > self.best:
                self.best = mean
                _save(model, run / "best_model", info)

    return PeriodicEvaluation()


def _snapshot(model: Any) -> None:
    """Add the policy as it is now to every sub-env's league (self-play)."""

    layers, activation = sb3_weights(model)
    model.get_env().env_method("add_snapshot", layers, activation)


def _league_callback(hp: Hyperparams) -> Any:
    """Snapshots the policy into the league every ``snapshot_freq`` timesteps."""
    from stable_baselines3.common.callbacks import BaseCallback

    class LeagueSnapshots(BaseCallback):  # type: ignore[misc,unused-ignore]  # Any without SB3
        def __init__(self) -> None:
            super().__init__()
            self._next = hp.snapshot_freq

        def _on_step(self) -> bool:
            if self.num_timesteps >= self._next:
                self._next += hp.snapshot_freq
                _snapshot(self.model)
            return True

    return LeagueSnapshots()


def is_tty() -> bool:
    return sys.stderr.isatty()
