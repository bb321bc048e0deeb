"""Training a learning agent on a registered environment (needs the training extra).

gymnasium, the environments and stable-baselines3 (with torch) are imported
only when the command runs, so the rest of the command line works without
them.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from vtm_sim.cli.base import _fail, main, user_errors

TRAINING_HINT = (
    "training needs torch and stable-baselines3: pip install torch==2.13.0 (the CPU "
    "build), then pip install -e '.[training]'"
)


@main.command("train")
@click.option("--env", "env_id", default="vtm_sim/Duel-v0", show_default=True, metavar="ID",
              help="A registered environment id (see README: Environments).")
@click.option("--algo", type=click.Choice(["MaskablePPO", "PPO"]), default="MaskablePPO",
              show_default=True, help="MaskablePPO uses the action masks; PPO learns "
              "unmasked with illegal actions penalized.")
@click.option("--steps", type=click.IntRange(64, 10**9), default=20000, show_default=True,
              metavar="N", help="Environment steps to train for.")
@click.option("--opponents", default="nearest", show_default=True, metavar="NAME",
              help="Who plays the other combatants: any policy name (`vtm-sim policies`).")
@click.option("--shaping", type=float, default=0.05, show_default=True,
              help="Reward per health level dealt minus taken (0 for win/loss only).")
@click.option("--seed", type=int, default=0, show_default=True, metavar="N")
@click.option("--out", "out_path", default=None, metavar="PATH",
              help="Where to save the model (.zip and .json beside it); default "
              "runs/<env>-<algo>-seed<N>.")
def train_cmd(env_id: str, algo: str, steps: int, opponents: str, shaping: float, seed: int,
              out_path: str | None) -> None:
    """Train an agent with stable-baselines3 and save it with its metadata."""
    try:
        import gymnasium as gym

        import envs  # noqa: F401  (registers the ids)
        from agents.learned import save_model

        algo_cls: Any
        if algo == "MaskablePPO":
            from sb3_contrib import MaskablePPO

            algo_cls = MaskablePPO
        else:
            from stable_baselines3 import PPO

            algo_cls = PPO
    except ImportError:
        _fail(TRAINING_HINT)
    kwargs: dict[str, Any] = {"opponents": opponents, "shaping": shaping}
    if algo == "PPO":
        kwargs["illegal_action"] = "penalize"
    with user_errors():
        try:
            env = gym.make(env_id, **kwargs)
        except gym.error.Error as exc:
            _fail(f"--env {env_id}: {exc}")
        model = algo_cls("MlpPolicy", env, seed=seed, device="cpu", verbose=0)
        model.learn(steps)
        name = env_id.split("/")[-1]
        path = Path(out_path) if out_path else Path("runs") / f"{name}-{algo}-seed{seed}"
        try:
            zip_path = save_model(model, path, env, seed=seed, env_id=env_id,
                                  env_kwargs=kwargs)
            (zip_path.parent / f"{zip_path.stem}.command.txt").write_text(
                " ".join(["vtm-sim", *sys.argv[1:]]) + "\n", encoding="utf-8")
        except OSError as exc:
            _fail(f"--out {path}: cannot write ({exc.strerror})")
    click.echo(json.dumps({"model": str(zip_path), "steps": steps, "algo": algo,
                           "env": env_id, "seed": seed}))
    click.echo(f"Evaluate it: vtm-sim tournament {name_of(env_id)} --policies "
               f"nearest,tactician,model:{zip_path}", err=True)
    import vtm_sim

    if not vtm_sim.compiled_modules():
        click.echo("The engine ran as pure Python: VTM_SIM_COMPILE=1 pip install . builds it "
                   "with mypyc, about 3x faster steps (README, Speed).", err=True)


def name_of(env_id: str) -> str:
    """The scenario behind a registered id (``vtm_sim/BarBrawl-v0`` -> ``bar_brawl``)."""
    import envs
    from vtm_sim.scenario import list_scenarios

    for scenario in list_scenarios():
        if envs.env_id(scenario) == env_id:
            return scenario
    return "duel"
