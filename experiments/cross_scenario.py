"""Across scenarios: MaskablePPO trained on the training scenarios, scored on held-out ones.

One command reruns experiments/results/cross_scenario.md (and cross_scenario.json):

    python experiments/cross_scenario.py --seeds 5 --timesteps 65536 --episodes 30 \\
        --reference ladder:1,ladder:2,ladder:3

For every seed it trains one MaskablePPO policy on ``vtm_sim/Mixed-v6`` (:mod:`envs.mixed`:
one common padded observation and action space, a training scenario and a side drawn
per episode, the agent playing its whole side), with the committed ``maskable-ppo.yml``
hyperparameters (its ``default`` entry) and 4 sub-envs, two against ``ladder:2`` and two
against ``ladder:3``. The model is saved with its metadata (scenario ``"mixed"``), so it
is an ordinary ``model:PATH``; then it is scored on every held-out scenario
(:data:`envs.mixed.TEST_SCENARIOS`), and on every training one for comparison, against
``ladder:1``, ``ladder:2`` and ``ladder:3``: ``--episodes`` seeded battles a side, the
same battles as

    vtm-sim evaluate RUN/Mixed-v6.zip --env vtm_sim/KnifeDuel-v6 \\
        --opponents ladder:1,ladder:2,ladder:3 --episodes E --json

(:func:`agents.evaluation.evaluate_named`, which that command calls, run here in this
process). The scores (wins plus half the draws, both sides pooled) are aggregated over
the seeds with rliable as experiments/baselines.py does (its :func:`aggregate`): the
interquartile mean with a 95% stratified-bootstrap interval per scenario and rung, per
scenario over the rungs, and over every held-out (or training) scenario and rung, the
(scenario, rung) pairs being rliable's tasks. The scripted rungs themselves are scored
as reference rows on the same battles (``--reference``).

Resumable: a run folder's summary.json (training) and eval_<scenario>.json are not
redone; ``--aggregate-only`` only rewrites the results. Needs the training and
experiments extras.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script: experiments/baselines.py beside it
    sys.path.insert(0, str(ROOT))

from experiments.baselines import ALL, aggregate, fmt, publish, shown  # noqa: E402

RUNGS = ("ladder:1", "ladder:2", "ladder:3")
TRAIN_OPPONENTS = ("ladder:2", "ladder:3")
SEATS = ("0", "1", "pooled")
ALGO = "maskable-ppo"
HELD_OUT, TRAINING = "held-out", "training"


def run_dir(out: Path, seed: int) -> Path:
    return out / f"seed_{seed}"


def train(a: argparse.Namespace, seed: int) -> None:
    """Train seed ``seed`` on the training split (unless RUN/summary.json exists)."""
    run = run_dir(a.out, seed)
    if (run / "summary.json").is_file():
        return
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    import envs
    from agents.model_info import ModelInfo, versions
    from agents.training import load_hyperparams
    from envs.mixed import MIXED, VtmMixedEnv

    hp, _ = load_hyperparams(ALGO, envs.MIXED_ID)
    torch.set_num_threads(hp.torch_threads)
    run.mkdir(parents=True, exist_ok=True)
    opponents = [TRAIN_OPPONENTS[k % len(TRAIN_OPPONENTS)] for k in range(a.n_envs)]
    venv = DummyVecEnv([lambda o=o: VtmMixedEnv("train", opponents=o) for o in opponents])
    model = MaskablePPO(
        hp.policy, venv, learning_rate=hp.learning_rate, n_steps=hp.n_steps,
        batch_size=hp.batch_size, n_epochs=hp.n_epochs, gamma=hp.gamma,
        gae_lambda=hp.gae_lambda, clip_range=hp.clip_range, ent_coef=hp.ent_coef,
        vf_coef=hp.vf_coef, max_grad_norm=hp.max_grad_norm, seed=seed, device="cpu",
        policy_kwargs={"net_arch": list(hp.policy_kwargs.net_arch),
                       "activation_fn": torch.nn.Tanh}, verbose=0)
    print(f"seed {seed}: training {a.timesteps:,} steps", file=sys.stderr, flush=True)
    start = time.perf_counter()
    model.learn(a.timesteps)
    wall = time.perf_counter() - start
    probe = venv.envs[0].unwrapped
    zip_path = run / "Mixed-v6.zip"
    model.save(str(zip_path))
    info = ModelInfo(algo="MaskablePPO", env_id=envs.MIXED_ID, scenario=MIXED, agent_id=0,
                     obs_version=int(probe.obs_version), obs_mode=str(probe.obs_mode),
                     catalog_size=int(probe.catalog.size), seed=seed,
                     env_kwargs={"split": "train", "opponents": list(TRAIN_OPPONENTS)},
                     versions=versions())
    zip_path.with_suffix(".json").write_text(json.dumps(asdict(info), indent=2) + "\n",
                                             encoding="utf-8")
    summary = {"timesteps": int(model.num_timesteps), "wall_seconds": round(wall, 1),
               "steps_per_second": round(model.num_timesteps / wall, 1),
               "train_opponents": opponents, "hyperparams": hp.model_dump()}
    (run / "summary.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    venv.close()


def evaluate(player: str, scenario: str, episodes: int, path: Path) -> dict[str, Any]:
    """``player`` (a policy name, ``model:PATH`` included) on ``scenario`` against the rungs,
    as ``vtm-sim evaluate`` plays it; cached in ``path``."""
    if path.is_file():
        result: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        return result
    from agents.evaluation import evaluate_named
    from vtm_sim.files.scenarios import load_scenario

    t = time.perf_counter()
    ev = evaluate_named(load_scenario(scenario), player, list(RUNGS), episodes=episodes,
                        seed=0)
    result = {"player": player, **ev.to_json(),
              "wall_seconds": round(time.perf_counter() - t, 1)}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return result


def scenarios(a: argparse.Namespace) -> dict[str, list[str]]:
    from envs.mixed import split_scenarios

    out = {HELD_OUT: split_scenarios("test")}
    if not a.held_out_only:
        out[TRAINING] = split_scenarios("train")
    return out


def scores_of(result: Mapping[str, Any]) -> dict[str, dict[str, float]]:
    """opponent -> seat -> score of one evaluation's JSON."""
    return {opp: {seat: float(r["score"]) for seat, r in by_seat.items()}
            for opp, by_seat in result["opponents"].items()}


def evaluate_seed(a: argparse.Namespace, seed: int) -> None:
    run = run_dir(a.out, seed)
    model = f"model:{(run / 'Mixed-v6.zip').resolve()}"
    for group, names in scenarios(a).items():
        for name in names:
            print(f"seed {seed}: {group} {name}", file=sys.stderr, flush=True)
            evaluate(model, name, a.episodes, run / f"eval_{name}.json")


def collect(a: argparse.Namespace) -> tuple[list[int], dict[str, Any]]:
    """The finished seeds and, per scenario, opponent and seat, their per-seed scores."""
    groups = scenarios(a)
    done = [s for s in range(a.seeds)
            if all((run_dir(a.out, s) / f"eval_{n}.json").is_file()
                   for names in groups.values() for n in names)]
    raw: dict[str, Any] = {}
    for names in groups.values():
        for n in names:
            per_seed = [scores_of(json.loads((run_dir(a.out, s) / f"eval_{n}.json")
                                             .read_text(encoding="utf-8"))) for s in done]
            raw[n] = {opp: {seat: [p[opp][seat] for p in per_seed] for seat in SEATS}
                      for opp in RUNGS}
    return done, raw


def reference(a: argparse.Namespace) -> dict[str, dict[str, dict[str, float]]]:
    """The scripted rungs as players on the same battles: scenario -> player -> rung."""
    out: dict[str, dict[str, dict[str, float]]] = {}
    for names in scenarios(a).values():
        for n in names:
            out[n] = {}
            for player in a.reference:
                res = evaluate(player, n, a.episodes,
                               a.out / "reference" / f"{player.replace(':', '_')}_{n}.json")
                out[n][player] = {o: s["pooled"] for o, s in scores_of(res).items()}
    return out


def machine() -> str:
    load = os.getloadavg()
    return (f"{platform.node() or 'host'}: {os.cpu_count()} cores, Python "
            f"{platform.python_version()}, load averages {load[0]:.2f} {load[1]:.2f} "
            f"{load[2]:.2f} when the results were written")


def uptime() -> str:
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True, check=False
                              ).stdout.strip()
    except OSError:
        return ""


def report(a: argparse.Namespace, done: list[int], raw: Mapping[str, Any],
           refs: Mapping[str, Any]) -> tuple[list[str], dict[str, Any]]:
    groups = scenarios(a)
    per_scenario = aggregate(raw, reps=a.reps, seed=a.bootstrap_seed)  # [scenario][opp|ALL]
    overall = {}
    for group, names in groups.items():
        tasks = {f"{n} / {o}": raw[n][o] for n in names for o in RUNGS}
        overall[group] = aggregate({group: tasks}, reps=a.reps,
                                   seed=a.bootstrap_seed)[group][ALL]
    summaries = [json.loads((run_dir(a.out, s) / "summary.json").read_text(encoding="utf-8"))
                 for s in done]
    walls = [s["wall_seconds"] for s in summaries]
    speeds = [s["steps_per_second"] for s in summaries]
    steps = sorted({s["timesteps"] for s in summaries})
    evals = [json.loads((run_dir(a.out, s) / f"eval_{n}.json").read_text(encoding="utf-8"))
             ["wall_seconds"] for s in done for names in groups.values() for n in names]
    md = [f"MaskablePPO on `vtm_sim/Mixed-v6`, {len(done)} seeds ({', '.join(map(str, done))}),"
          f" {'/'.join(f'{s:,}' for s in steps)} timesteps each on the training split "
          f"(against {' and '.join(TRAIN_OPPONENTS)}); training wall "
          f"{', '.join(f'{w:.0f}' for w in walls)} s ({np.median(speeds):.0f} steps/s "
          f"median), evaluation wall {sum(evals):.0f} s in all. {a.episodes} seeded battles "
          "a side, scenario and rung (seeds 0..), the same battles for every seed and for "
          "the reference rows.", "",
          "Scores: wins plus half the draws, both sides pooled; IQM over the seeds with "
          f"its 95% stratified-bootstrap interval (rliable, {a.reps:,} resamples).", "",
          "| scenario | split | vs ladder:1 | vs ladder:2 | vs ladder:3 | all rungs |"
          + "".join(f" {p} (reference) |" for p in a.reference),
          "|---|---|---|---|---|---|" + "---|" * len(a.reference)]
    for group, names in groups.items():
        for n in names:
            cells = [fmt(per_scenario[n][o]["pooled"]) for o in RUNGS]
            cells.append(fmt(per_scenario[n][ALL]["pooled"]))
            for p in a.reference:
                got = refs.get(n, {}).get(p, {})
                cells.append(" / ".join(f"{got[o]:.2f}" for o in RUNGS) if got else "")
            md.append(f"| {n} | {group} | " + " | ".join(cells) + " |")
    md.append("")
    for group in groups:
        md.append(f"- every {group} scenario and rung (the pairs as rliable's tasks, "
                  f"pooled sides): IQM {fmt(overall[group]['pooled'])}; side 0 "
                  f"{fmt(overall[group]['0'])}, side 1 {fmt(overall[group]['1'])}")
    if a.reference:
        md += ["", "Reference columns: the scripted rung as the player, its pooled score "
               "against ladder:1 / ladder:2 / ladder:3 on the same battles. Their mean "
               "over every scenario and rung of a split (one deterministic figure, no "
               "seeds):", ""]
        for p in a.reference:
            means = {g: np.mean([refs[n][p][o] for n in names for o in RUNGS])
                     for g, names in groups.items() if all(n in refs for n in names)}
            md.append(f"- {p} as the player: " + ", ".join(f"{g} {m:.3f}"
                                                           for g, m in means.items()))
    md += ["", "Per-seed pooled scores:", "", "| scenario | rung | " +
           " | ".join(f"seed {s}" for s in done) + " |",
           "|---|---|" + "---|" * len(done)]
    for names in groups.values():
        for n in names:
            for o in RUNGS:
                md.append(f"| {n} | {o} | " + " | ".join(f"{v:.3f}" for v in raw[n][o]["pooled"])
                          + " |")
    data = {"args": {k: shown(v) if isinstance(v, Path) else v for k, v in vars(a).items()
                     if k != "aggregate_only"},
            "seeds": done, "splits": groups, "per_seed": raw,
            "aggregate": {"per_scenario": per_scenario, "overall": overall},
            "reference": refs, "train": summaries, "eval_wall_seconds": round(sum(evals), 1),
            "machine": machine(), "uptime": uptime()}
    return md, data


def main(argv: Sequence[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--seeds", type=int, default=5, help="training seeds 0..N-1")
    p.add_argument("--timesteps", type=int, default=65_536)
    p.add_argument("--n-envs", type=int, default=4)
    p.add_argument("--episodes", type=int, default=30,
                   help="battles a side, scenario and rung at the final evaluation")
    p.add_argument("--held-out-only", action="store_true",
                   help="score the held-out scenarios only (not the training ones)")
    p.add_argument("--reference", default="ladder:1,ladder:2,ladder:3",
                   help="scripted players scored on the same battles ('' for none)")
    p.add_argument("--reps", type=int, default=5_000, help="bootstrap resamples")
    p.add_argument("--bootstrap-seed", type=int, default=0)
    p.add_argument("--out", type=Path, default=ROOT / "runs" / "cross_scenario")
    p.add_argument("--results", type=Path, default=ROOT / "experiments" / "results")
    p.add_argument("--name", default="cross_scenario", help="results file stem")
    p.add_argument("--aggregate-only", action="store_true",
                   help="only rewrite the results from the run folders")
    a = p.parse_args(argv)
    a.reference = [x.strip() for x in a.reference.split(",") if x.strip()]
    start = time.perf_counter()
    if not a.aggregate_only:
        for seed in range(a.seeds):
            train(a, seed)
            evaluate_seed(a, seed)
    refs = reference(a) if a.reference else {}
    done, raw = collect(a)
    if not done:
        sys.exit("no finished seed to aggregate")
    md, data = report(a, done, raw, refs)
    words = [w for w in (argv if argv is not None else sys.argv[1:]) if w != "--aggregate-only"]
    data["command"] = " ".join(["python experiments/cross_scenario.py", *words])
    # the run's wall time: this call's, or (only aggregating) the run's as last written
    previous = a.results / f"{a.name}.json"
    wall = round(time.perf_counter() - start, 1)
    if a.aggregate_only and previous.is_file():
        wall = json.loads(previous.read_text(encoding="utf-8")).get("script_wall_seconds", wall)
    data["script_wall_seconds"] = wall
    md = [f"Command: `{data['command']}` (resumable; `--aggregate-only` rewrites this from "
          f"{shown(a.out)}). Wall time of the run: {wall / 60:.0f} min.", "",
          f"Machine: `{data['uptime']}`; {data['machine']}.", "", *md]
    publish(a.results, a.name, data, md)


if __name__ == "__main__":
    main()
