"""Training, evaluating and exporting learning agents: ``train``, ``evaluate``,
``export-policy`` (the training extra; :mod:`agents.training` does the work).

gymnasium, the environments, agents and stable-baselines3 (with torch) are
imported only when a command runs, so the rest of the command line works
without them. ``evaluate`` of an exported ``.npz`` policy needs no torch.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from vtm_sim.cli.base import SEED, _dump, _fail, backend_options, main, user_errors
from vtm_sim.errors import ConfigError

if TYPE_CHECKING:
    from agents.evaluation import PolicyMaker
    from agents.training import RunArgs
    from vtm_sim.files.scenarios import Scenario

TRAINING_HINT = (
    "needs torch and stable-baselines3: pip install torch==2.13.0 (the CPU "
    "build), then pip install -e '.[training]'"
)
DEFAULT_OPPONENTS = "nearest,tactician"
DEFAULT_ENV = "vtm_sim/Duel-v6"  # envs.env_id("duel"), written out: envs loads only to run
ALGO_NAMES = ("maskable-ppo", "ppo")


def _names(text: str, option: str) -> list[str]:
    names = [p.strip() for p in text.split(",") if p.strip()]
    if not names:
        raise ConfigError(f"{option}: expected at least one policy name")
    return names


def policy_makers(names: list[str], scenario: Scenario, option: str) -> dict[str, PolicyMaker]:
    """Battle-policy makers for policy names, from the one registry (vtm_sim.policies.registry)."""
    from vtm_sim.policies import registry

    out: dict[str, PolicyMaker] = {}
    for n in names:
        try:
            out[n] = registry.maker(n, scenario)
        except ConfigError as exc:
            raise ConfigError(f"{option}: {exc}") from None
    return out


def _scenario_of(env_id: str) -> Scenario:
    import envs  # noqa: F401  (registers the ids)
    from agents.training import env_scenario
    from vtm_sim.files.scenarios import load_scenario

    return load_scenario(env_scenario(env_id))


def _current(recorded: str) -> str | None:
    """The id a model's recorded env id names today (its older versions included)."""
    import envs

    return envs.current_id(recorded)


def _training_imports() -> None:
    try:
        import sb3_contrib  # noqa: F401
        import stable_baselines3  # noqa: F401
        import torch  # noqa: F401
    except ImportError:
        _fail(f"training {TRAINING_HINT}")


def _default_out(algo: str, env_id: str) -> Path:
    """``runs/<algo>/<Env>_<k>`` with the first free k (the Zoo's numbering)."""
    base = Path("runs") / algo
    name = env_id.split("/")[-1]
    k = 1
    while (base / f"{name}_{k}").exists():
        k += 1
    return base / f"{name}_{k}"


@main.command("train")
@click.option("--env", "env_id", default=DEFAULT_ENV, show_default=True, metavar="ID",
              help="A registered environment id (docs/environments/index.md).")
@click.option("--algo", type=click.Choice(ALGO_NAMES), default="maskable-ppo",
              show_default=True, help="maskable-ppo learns with the action masks; ppo learns "
              "unmasked, an action outside the mask being the env's penalized pass.")
@click.option("--timesteps", type=click.IntRange(1, 10**10), default=None, metavar="N",
              help="Environment steps to train for (default: n_timesteps of the "
              "hyperparameters).")
@click.option("--seed", type=SEED, default=0, show_default=True, metavar="S")
@click.option("--opponents", default=DEFAULT_OPPONENTS, show_default=True, metavar="A,B,...",
              help="Who plays the other combatants (each seat of the sub-envs faces them in "
              "turn), any "
              "policy name; or 'self' for self-play against a league of past snapshots.")
@click.option("--eval-opponents", default=None, metavar="A,B,...",
              help="Opponents of the periodic evaluations (default: --opponents, or "
              f"{DEFAULT_OPPONENTS} with self-play).")
@click.option("--n-envs", type=click.IntRange(1, 64), default=None, metavar="K",
              help="Parallel sub-envs (default: n_envs of the hyperparameters); sub-env k "
              "plays seat k mod the number of sides, and the opponents take turns, so at "
              "least one sub-env per opponent is needed.")
@click.option("--shaping", type=float, default=None, metavar="W",
              help="Reward per health level dealt minus taken (default: the env's default).")
@click.option("--control", type=click.Choice(["combatant", "side"]), default=None,
              help="combatant: the learner plays the first combatant of its seat, "
              "--opponents its allies too; side: it plays the whole side, as evaluate and "
              "tournaments play a policy (default: the env's default, combatant).")
@click.option("--init", "init_model", default=None, metavar="MODEL",
              help="Start from the weights of a saved model (.zip, same env and network) "
              "and go on learning with this run's hyperparameters.")
@click.option("--config", "config_file", type=click.Path(dir_okay=False), default=None,
              metavar="FILE", help="YAML of hyperparameters overriding "
              "experiments/hyperparams/<algo>.yml.")
@click.option("--out", "out_dir", default=None, metavar="DIR",
              help="The run folder (default runs/<algo>/<Env>_<k>).")
@click.option("--json", "as_json", is_flag=True, help="Print the run's summary as JSON.")
def train_cmd(env_id: str, algo: str, timesteps: int | None, seed: int, opponents: str,
              eval_opponents: str | None, n_envs: int | None, shaping: float | None,
              control: str | None, init_model: str | None, config_file: str | None,
              out_dir: str | None, as_json: bool) -> None:
    """Train an agent with stable-baselines3 into a run folder (RL Zoo layout).

    Evaluates it against --eval-opponents as it learns (TensorBoard logs in
    DIR/tb), saves checkpoints and the best model, then the final model with
    its metadata, resolved config, arguments, command line and library versions.
    """
    _training_imports()
    from agents.evaluation import seats
    from agents.training import SELF, RunArgs, assignments, load_hyperparams, train

    with user_errors():
        scenario = _scenario_of(env_id)
        hp, _ = load_hyperparams(algo, env_id, config_file)
        opp = tuple(_names(opponents, "--opponents"))
        if SELF in opp and opp != (SELF,):
            raise ConfigError("--opponents: 'self' trains against past snapshots only; "
                              "give it alone")
        if opp == (SELF,) and (control or hp.env_kwargs.get("control")) == "side":
            raise ConfigError("--control side: self-play (--opponents self) trains one "
                              "combatant against its league; give --control combatant")
        train_makers = {} if opp == (SELF,) else policy_makers(list(opp), scenario,
                                                               "--opponents")
        default_eval = DEFAULT_OPPONENTS if opp == (SELF,) else opponents
        eval_names = _names(eval_opponents or default_eval, "--eval-opponents")
        eval_makers = policy_makers(eval_names, scenario, "--eval-opponents")
        out = Path(out_dir) if out_dir else _default_out(algo, env_id)
        args = RunArgs(env_id=env_id, algo=algo, timesteps=timesteps or hp.n_timesteps,
                       seed=seed, opponents=opp, eval_opponents=tuple(eval_names),
                       n_envs=n_envs or hp.n_envs, out=str(out), config=config_file,
                       shaping=shaping, control=control, init=init_model)
        if init_model is not None and not Path(init_model).with_suffix(".zip").is_file():
            raise ConfigError(f"--init {init_model}: no such model file")
        assignments(scenario, list(train_makers), args.n_envs)  # every opponent played
        pairs = len(seats(scenario)) * max(1, len(train_makers))
        if args.n_envs < pairs:  # sub-env k: seat k mod S, opponent k mod O
            click.echo(f"warning: --n-envs {args.n_envs} covers {args.n_envs} of the {pairs} "
                       f"seat x opponent pairs; give --n-envs {pairs} (or a multiple) to "
                       "train on every one", err=True)
        quiet = as_json or not sys.stderr.isatty()
        result = train(args, hp, train_makers, eval_makers, scenario, progress_bar=not quiet,
                       command=_command_line(args),
                       log=None if quiet else lambda line: click.echo(line, err=True))
    if as_json:
        click.echo(json.dumps(result.to_json(), indent=2))
        return
    click.echo(f"Trained {result.timesteps} steps in {result.wall_seconds:.0f} s "
               f"({result.env_share:.0%} in the env): {result.model}")
    if result.evaluations:
        last = result.evaluations[-1]["scores"]
        click.echo("Final scores: " + ", ".join(f"{s:.3f} vs {o}" for o, s in last.items()))
    click.echo(f"Evaluate it: vtm-sim evaluate {result.model} --episodes 200")
    from vtm_sim.version import compiled_modules

    if not compiled_modules():
        click.echo("The engine ran as pure Python: VTM_SIM_COMPILE=1 pip install . builds it "
                   "with mypyc, about 3x faster steps (docs/speed.md).", err=True)


def _command_line(args: RunArgs) -> list[str]:
    """The command that reruns this run exactly (every default resolved)."""
    import shlex

    words = ["vtm-sim", "train", "--env", args.env_id, "--algo", args.algo,
             "--timesteps", str(args.timesteps), "--seed", str(args.seed),
             "--opponents", ",".join(args.opponents),
             "--eval-opponents", ",".join(args.eval_opponents),
             "--n-envs", str(args.n_envs), "--out", args.out]
    if args.config is not None:
        words += ["--config", args.config]
    if args.shaping is not None:
        words += ["--shaping", repr(args.shaping)]
    if args.control is not None:
        words += ["--control", args.control]
    if args.init is not None:
        words += ["--init", args.init]
    return [shlex.quote(w) for w in words]


def _load(model: str) -> Any:
    from agents.learned import load_agent

    if model.startswith("trained:"):  # a shipped policy: agents/policies/NAME.npz
        from agents.registered import POLICY_DIR, shipped

        name = model.removeprefix("trained:")
        if name not in shipped():
            _fail(f"MODEL {model}: no shipped policy {name!r} "
                  f"(shipped: {', '.join(shipped()) or 'none'})")
        model = str(POLICY_DIR / f"{name}.npz")
    p = Path(model)
    if not (p.is_file() if p.suffix == ".npz" else p.with_suffix(".zip").is_file()):
        _fail(f"MODEL {model}: no such model file")
    try:
        return load_agent(model)
    except ImportError:
        _fail(f"MODEL {model}: a .zip model {TRAINING_HINT} (or export-policy it to .npz)")
    except (OSError, ValueError) as exc:
        _fail(f"MODEL {model}: cannot load ({exc})")


@main.command("evaluate")
@click.argument("model", metavar="MODEL")
@click.option("--env", "env_id", default=None, metavar="ID",
              help="The environment id (default: the one the model was trained on).")
@click.option("--opponents", default=DEFAULT_OPPONENTS, show_default=True,
              metavar="A,B,...", help="Policies to play against (any policy name).")
@click.option("--episodes", type=click.IntRange(1, 10**6), default=100, show_default=True,
              metavar="N", help="Seeded battles per seat and opponent.")
@click.option("--seed", type=SEED, default=0, show_default=True, metavar="S",
              help="First seed.")
@backend_options
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def evaluate_cmd(model: str, env_id: str | None, opponents: str, episodes: int, seed: int,
                 jobs: int, backend_name: str, address: str | None, as_json: bool) -> None:
    """Win / draw / loss of a trained model per seat and pooled, with 95% intervals.

    MODEL is a saved model (NAME.zip, which needs torch), a policy exported to
    .npz (numpy only) or a shipped one, trained:NAME (numpy only); model:PATH
    (as other commands name a model) is PATH.
    """
    from agents.evaluation import evaluate_named
    from envs.actions import ActionCatalog
    from envs.mixed import COMMON, MIXED
    from vtm_sim.arena.backends import backend
    from vtm_sim.data.formats import OBS_VERSION

    model = model.removeprefix("model:")
    agent = _load(model)
    with user_errors():
        mixed = agent.info.scenario == MIXED  # envs.mixed: plays any scenario, padded
        if mixed and env_id is None:
            raise ConfigError(f"MODEL {model}: trained on {agent.info.env_id} (every "
                              "scenario): name the scenario to play with --env ID")
        scenario = _scenario_of(env_id or _current(agent.info.env_id) or DEFAULT_ENV)
        if not mixed and agent.info.scenario != scenario.name:
            raise ConfigError(f"--env {env_id}: plays {scenario.name}, the model was trained "
                              f"on {agent.info.scenario}")
        if mixed:
            try:
                COMMON.check(scenario)
            except ValueError as exc:
                raise ConfigError(f"MODEL {model}: {exc}") from None
        makers = policy_makers(_names(opponents, "--opponents"), scenario, "--opponents")
        size = (COMMON.catalog(scenario) if mixed else ActionCatalog.for_scenario(scenario)).size
        # an older layout that today's only appends to plays its prefix (agents.numpy_policy)
        if agent.info.obs_version == OBS_VERSION and size != agent.info.catalog_size:
            raise ConfigError(f"MODEL {model}: {agent.info.catalog_size} actions, the "
                              f"scenario's catalog has {size}")
        runner = backend(backend_name, jobs, address)
        # the workers build the model's policy from its name, as a tournament's do
        player = model if model.startswith("trained:") else f"model:{Path(model).resolve()}"
        sides = len({f.side for f in scenario.fighters})
        total = episodes * sum(1 if o == player else sides for o in makers)
        with click.progressbar(length=total, label="battles", file=sys.stderr,
                               show_pos=True) as bar:
            result = evaluate_named(scenario, player, list(makers), episodes=episodes,
                                    seed=seed, backend=runner, progress=bar.update)
    if as_json:
        click.echo(_dump({"model": model, **result.to_json()}))
        return
    for line in result.lines():
        click.echo(line)


@main.command("export-policy")
@click.argument("model", metavar="MODEL")
@click.option("--out", "out_file", required=True, type=click.Path(dir_okay=False),
              metavar="FILE", help="The .npz to write (numpy only: runs without torch).")
def export_policy_cmd(model: str, out_file: str) -> None:
    """Write a trained MLP policy (.zip) to a numpy-only .npz file.

    The file holds the policy's weights, activation, mask handling, the
    observation version and mode and the action count; ``model:FILE.npz``
    then plays wherever a policy is named, without torch.
    """
    if not Path(model).with_suffix(".zip").is_file():
        _fail(f"MODEL {model}: no such model file")
    _training_imports()
    from agents.learned import export_policy

    try:
        path = export_policy(model, out_file)
    except ValueError as exc:
        _fail(f"MODEL {model}: cannot export ({exc})")
    except OSError as exc:
        _fail(f"--out {out_file}: cannot write ({exc.strerror})")
    click.echo(f"Wrote {path} ({path.stat().st_size // 1024} KB): use it as model:{path}")
