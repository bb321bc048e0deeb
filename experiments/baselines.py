"""Baselines: maskable-ppo and ppo over several seeds, scored against every ladder rung.

One command reruns experiments/results/baselines.md (the table, baselines.json and
the learning-curve PNGs):

    python experiments/baselines.py                      # the duel, as committed
    python experiments/baselines.py --envs duel,gunfight

For every env, algo and seed it runs the project's own pipeline, one process at a
time, exactly as a user would:

    vtm-sim train --env ID --algo ALGO --timesteps N --seed S \\
        --opponents ladder:2,ladder:3 --eval-opponents ladder:1,ladder:2,ladder:3 \\
        --n-envs 4 --config experiments/hyperparams/baselines.yml --out RUN --json
    vtm-sim evaluate RUN/Env-v6.zip --opponents ladder:1,ladder:2,ladder:3 --episodes E --json
    vtm-sim evaluate RUN/Env-v6.zip --opponents ladder:4 --episodes P --json   (the planner)

The learning curves are the pipeline's own periodic evaluations (RUN/evaluations.npz).
The scores (wins plus half the draws) are aggregated over the seeds with rliable:
interquartile mean with 95% stratified-bootstrap intervals, per opponent and seat, and
over all rungs (the rungs being the tasks), plus the probability that one algo
improves on the other. Resumable: a run folder with its summary.json (training) or
final_*.json (evaluations) is not run again; ``--aggregate-only`` only rewrites the
results from the run folders. Needs the training and experiments extras.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
# -P: never the checkout's own packages ahead of the installed ones (with cwd the tree,
# `python -c` would import the pure source even from the compiled build's interpreter)
VTM_SIM = [sys.executable, "-P", "-c", "from vtm_sim.cli import main; main()"]
ENVS = {"duel": "vtm_sim/Duel-v6", "gunfight": "vtm_sim/Gunfight-v6"}
ALGOS = ("maskable-ppo", "ppo")
RUNGS = ("ladder:1", "ladder:2", "ladder:3")  # cheap rungs: --episodes battles a seat
TOP = "ladder:4"  # the planner: slow, --top-episodes battles a seat
SEATS = ("0", "1", "pooled")
CONFIG = "experiments/hyperparams/baselines.yml"
ALL = "all rungs"  # the aggregate over every rung (rungs as rliable's tasks)


def run_dir(out: Path, env: str, algo: str, seed: int) -> Path:
    return out / env / algo / f"seed_{seed}"


def vtm_sim(args: list[str], log: Path) -> Any:
    """Run one vtm-sim command (``nice -n 10``) and return its JSON output."""
    print("vtm-sim " + " ".join(args), file=sys.stderr, flush=True)
    proc = subprocess.run(["nice", "-n", "10", *VTM_SIM, *args], cwd=ROOT,
                          capture_output=True, text=True, check=False)
    log.write_text(proc.stderr, encoding="utf-8")
    if proc.returncode != 0:
        sys.exit(f"vtm-sim {' '.join(args)} failed: {proc.stderr.strip()[-2000:]}")
    return json.loads(proc.stdout[proc.stdout.index("{"):])


def train_and_evaluate(a: argparse.Namespace, env: str, algo: str, seed: int) -> None:
    """One run: train (unless RUN/summary.json exists), then the final evaluations
    (unless their JSON exists)."""
    run = run_dir(a.out, env, algo, seed)
    name = ENVS[env].split("/")[-1]
    if not (run / "summary.json").is_file():
        run.mkdir(parents=True, exist_ok=True)
        vtm_sim(["train", "--env", ENVS[env], "--algo", algo, "--timesteps", str(a.timesteps),
                 "--seed", str(seed), "--opponents", a.opponents,
                 "--eval-opponents", ",".join(RUNGS), "--n-envs", str(a.n_envs),
                 "--config", a.config, "--out", str(run), "--json"], run / "train.log")
    model = str(run / f"{name}.zip")
    for key, opponents, episodes in (("rungs", RUNGS, a.episodes), ("top", (TOP,), a.top_episodes)):
        path = run / f"final_{key}.json"
        if episodes > 0 and not path.is_file():
            t = time.perf_counter()
            result = vtm_sim(["evaluate", model, "--opponents", ",".join(opponents),
                              "--episodes", str(episodes), "--json"], run / f"final_{key}.log")
            result["wall_seconds"] = round(time.perf_counter() - t, 1)  # the whole command
            path.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")


def collect(out: Path, env: str, algo: str, seed: int) -> dict[str, Any] | None:
    """A finished run's record: training summary, final scores, learning curve."""
    run = run_dir(out, env, algo, seed)
    if not (run / "summary.json").is_file():
        return None
    summary = json.loads((run / "summary.json").read_text(encoding="utf-8"))
    final: dict[str, dict[str, float]] = {}
    games: dict[str, int] = {}
    for key in ("rungs", "top"):
        path = run / f"final_{key}.json"
        if path.is_file():
            ev = json.loads(path.read_text(encoding="utf-8"))
            for opp, by_seat in ev["opponents"].items():
                final[opp] = {seat: r["score"] for seat, r in by_seat.items()}
                games[opp] = by_seat["0"]["games"]
    curve = np.load(run / "evaluations.npz")
    return {
        "seed": seed,
        "train": {k: summary[k] for k in ("timesteps", "wall_seconds", "env_seconds",
                                          "env_share")},
        "final": final,
        "games_per_seat": games,
        "curve": {"timesteps": curve["timesteps"].tolist(),
                  "scores": {str(o): curve["scores"][:, i].tolist()
                             for i, o in enumerate(curve["opponents"])}},
    }


# Aggregation (rliable) ------------------------------------------------------------------

@contextmanager
def bootstrap_seed(seed: int) -> Iterator[None]:
    """Seeds numpy's global generator for rliable, restoring it afterwards.

    rliable 1.2 draws its bootstrap indices with ``np.random.choice`` (the global
    generator: StratifiedBootstrap.update_indices, StratifiedIndependentBootstrap.
    _get_indices), whatever ``random_state`` it is given, so the only way to make its
    intervals reproducible is to seed that generator around each call.
    """
    state = np.random.get_state()
    np.random.seed(seed)
    try:
        yield
    finally:
        np.random.set_state(state)


def iqm(scores: np.ndarray) -> float:
    """rliable's interquartile mean of a (runs x tasks) matrix."""
    from rliable import metrics

    return float(metrics.aggregate_iqm(scores))


def interval(matrix: np.ndarray, func: Callable[[np.ndarray], float], reps: int, seed: int
             ) -> tuple[float, float, float]:
    """``func`` of a (runs x tasks) matrix with its 95% stratified-bootstrap interval
    (rliable, percentile method, ``reps`` resamples, numpy seeded with ``seed``)."""
    from rliable import library as rly

    with bootstrap_seed(seed):
        points, cis = rly.get_interval_estimates({"x": matrix}, lambda x: np.array([func(x)]),
                                                 reps=reps)
    return float(points["x"][0]), float(cis["x"][0, 0]), float(cis["x"][1, 0])


def aggregate(scores: Mapping[str, Mapping[str, Mapping[str, Sequence[float]]]], *,
              reps: int = 5_000, seed: int = 0) -> dict[str, dict[str, dict[str, Any]]]:
    """IQM and 95% interval over the seeds: ``scores[algo][opponent][seat]`` is the list of
    per-seed scores (seeds in the same order everywhere). Returns
    ``[algo][opponent or ALL][seat] = {"iqm", "ci95", "runs"}``; ALL takes the opponents as
    rliable's tasks (a bootstrap stratified by opponent)."""
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for algo, by_opp in scores.items():
        out[algo] = {}
        for opp, by_seat in by_opp.items():
            out[algo][opp] = {}
            for seat, values in by_seat.items():
                m = np.asarray(values, dtype=float).reshape(-1, 1)
                point, lo, hi = interval(m, iqm, reps, seed)
                out[algo][opp][seat] = {"iqm": point, "ci95": [lo, hi], "runs": len(values)}
        opps = list(by_opp)
        if len(opps) > 1:
            out[algo][ALL] = {}
            for seat in next(iter(by_opp.values())):
                m = np.array([by_opp[o][seat] for o in opps], dtype=float).T  # runs x tasks
                point, lo, hi = interval(m, iqm, reps, seed)
                out[algo][ALL][seat] = {"iqm": point, "ci95": [lo, hi], "runs": m.shape[0]}
    return out


def improvement(x: Sequence[Sequence[float]], y: Sequence[Sequence[float]], *,
                reps: int = 2_000, seed: int = 0) -> dict[str, Any]:
    """P(X > Y) of rliable (runs x tasks matrices, the tasks being the rungs), with its 95%
    stratified-bootstrap interval."""
    from rliable import library as rly
    from rliable import metrics

    pair = (np.asarray(x, dtype=float), np.asarray(y, dtype=float))
    with bootstrap_seed(seed):
        points, cis = rly.get_interval_estimates({"xy": pair},
                                                 metrics.probability_of_improvement, reps=reps)
    return {"p": float(np.ravel(points["xy"])[0]),
            "ci95": [float(np.ravel(cis["xy"])[0]), float(np.ravel(cis["xy"])[1])]}


def curve_band(curves: np.ndarray, reps: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """IQM over runs at every evaluation of a (runs x evaluations) array, and its 95%
    bootstrap interval (2 x evaluations), as rliable's sample-efficiency curves."""
    from rliable import library as rly
    from rliable import metrics

    m = curves[:, None, :]  # runs x 1 task x evaluations

    def per_point(x: np.ndarray) -> np.ndarray:
        return np.array([metrics.aggregate_iqm(x[..., t]) for t in range(x.shape[-1])])

    with bootstrap_seed(seed):
        points, cis = rly.get_interval_estimates({"c": m}, per_point, reps=reps)
    return points["c"], cis["c"]


# Output ---------------------------------------------------------------------------------

def per_seed_scores(records: Mapping[str, Sequence[dict[str, Any]]]
                    ) -> dict[str, dict[str, dict[str, list[float]]]]:
    """``[algo][opponent][seat]`` -> per-seed scores, for the opponents every run has."""
    out: dict[str, dict[str, dict[str, list[float]]]] = {}
    for algo, runs in records.items():
        opps = [o for o in (*RUNGS, TOP) if all(o in r["final"] for r in runs)]
        out[algo] = {o: {s: [r["final"][o][s] for r in runs] for s in SEATS} for o in opps}
    return out


def plot_curves(env: str, records: Mapping[str, Sequence[dict[str, Any]]], path: Path,
                reps: int, seed: int) -> None:
    """One panel per periodic-evaluation opponent: every algo's IQM over the seeds at each
    evaluation, with its 95% bootstrap band (matplotlib, headless)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    first = next(iter(records.values()))
    opps = list(first[0]["curve"]["scores"])
    fig, axes = plt.subplots(1, len(opps), figsize=(4.2 * len(opps), 3.6), sharey=True,
                             squeeze=False)
    for ax, opp in zip(axes[0], opps, strict=True):
        for algo, runs in records.items():
            steps = np.array(runs[0]["curve"]["timesteps"])
            curves = np.array([r["curve"]["scores"][opp] for r in runs])
            mid, ci = curve_band(curves, reps, seed)
            ax.plot(steps, mid, marker="o", markersize=3, label=f"{algo} (IQM)")
            ax.fill_between(steps, ci[0], ci[1], alpha=0.2)
        ax.set_title(f"vs {opp}")
        ax.set_xlabel("timesteps")
        ax.set_ylim(0, 1.02)
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("score (wins + draws/2)")
    axes[0][0].legend(loc="lower right", fontsize=8)
    fig.suptitle(f"{ENVS[env]}: periodic evaluations, IQM over {len(first)} seeds with 95% "
                 "stratified-bootstrap bands", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def fmt(cell: Mapping[str, Any]) -> str:
    lo, hi = cell["ci95"]
    return f"{cell['iqm']:.3f} ({lo:.3f}-{hi:.3f})"


def table(agg: Mapping[str, Any], raw: Mapping[str, Any], games: Mapping[str, int]
          ) -> list[str]:
    """The markdown table: IQM (95% interval) per algo, opponent and seat."""
    lines = ["| algo | opponent | battles a seat and seed | seat 0 | seat 1 | pooled "
             "| per-seed pooled scores |", "|---|---|---|---|---|---|---|"]
    for algo, by_opp in agg.items():
        for opp, by_seat in by_opp.items():
            seeds = ("" if opp == ALL else
                     " ".join(f"{s:.3f}" for s in raw[algo][opp]["pooled"]))
            lines.append(f"| {algo} | {opp} | {games.get(opp, '')} | "
                         + " | ".join(fmt(by_seat[s]) for s in SEATS) + f" | {seeds} |")
    return lines


def budget(records: Mapping[str, Sequence[dict[str, Any]]]) -> list[str]:
    """One line per algo: runs, steps, training wall and the env's share."""
    out = []
    for algo, runs in records.items():
        walls = [r["train"]["wall_seconds"] for r in runs]
        shares = [r["train"]["env_share"] for r in runs]
        steps = sorted({r["train"]["timesteps"] for r in runs})
        out.append(f"- {algo}: {len(runs)} seeds ({', '.join(str(r['seed']) for r in runs)}), "
                   f"{'/'.join(f'{s:,}' for s in steps)} steps each, training wall "
                   f"{', '.join(f'{w:.0f}' for w in walls)} s (median {np.median(walls):.0f}; "
                   f"periodic evaluations included), env's share {np.mean(shares):.0%}")
    return out


BEGIN, END = "<!-- baselines.py: begin -->", "<!-- baselines.py: end -->"


def publish(results: Path, name: str, data: Any, lines: Sequence[str]) -> None:
    """Write ``NAME.json`` and the generated part of ``NAME.md`` in ``results``, and print
    the page's lines."""
    results.mkdir(parents=True, exist_ok=True)
    (results / f"{name}.json").write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    write_page(results / f"{name}.md", lines)
    print("\n".join(lines))


def write_page(path: Path, lines: Sequence[str]) -> None:
    """Write the generated part between the BEGIN and END markers of ``path`` (the prose
    around them is kept); a new page is the generated part alone."""
    body = "\n".join([BEGIN, *lines, END])
    text = path.read_text(encoding="utf-8") if path.is_file() else ""
    if BEGIN in text and END in text:
        head, rest = text.split(BEGIN, 1)
        text = head + body + rest.split(END, 1)[1]
    else:
        text = body + "\n"
    path.write_text(text, encoding="utf-8")


def shown(path: Path) -> str:
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def main(argv: Sequence[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--envs", default="duel", help="comma-separated: duel, gunfight")
    p.add_argument("--algos", default=",".join(ALGOS))
    p.add_argument("--seeds", type=int, default=5, help="training seeds 0..N-1")
    p.add_argument("--timesteps", type=int, default=32_768)
    p.add_argument("--opponents", default="ladder:2,ladder:3",
                   help="training opponents (with 4 sub-envs: each seat against each)")
    p.add_argument("--n-envs", type=int, default=4)
    p.add_argument("--config", default=CONFIG)
    p.add_argument("--episodes", type=int, default=100,
                   help="final battles a seat against ladder:1..3")
    p.add_argument("--top-episodes", type=int, default=10,
                   help="final battles a seat against ladder:4, the planner (slow); 0: none")
    # 5 seeds have only 126 distinct resamples: 5,000 draws place the table's percentiles
    # within about 0.01 (rliable's default of 50,000 calls the IQM 1.8M times here, ~25 min)
    p.add_argument("--reps", type=int, default=5_000,
                   help="bootstrap resamples for the table (the curves use at most 1,000, "
                   "the probability of improvement at most 2,000)")
    p.add_argument("--bootstrap-seed", type=int, default=0)
    p.add_argument("--out", type=Path, default=ROOT / "runs" / "baselines")
    p.add_argument("--results", type=Path, default=ROOT / "experiments" / "results")
    p.add_argument("--name", default="baselines", help="results file stem")
    p.add_argument("--aggregate-only", action="store_true",
                   help="only rewrite the results from the run folders")
    a = p.parse_args(argv)
    envs = [e.strip() for e in a.envs.split(",") if e.strip()]
    algos = [x.strip() for x in a.algos.split(",") if x.strip()]
    for e in envs:
        if e not in ENVS:
            p.error(f"--envs: unknown {e!r} (expected {', '.join(ENVS)})")
    for x in algos:
        if x not in ALGOS:
            p.error(f"--algos: unknown {x!r} (expected {', '.join(ALGOS)})")
    if not a.aggregate_only:
        for env in envs:
            for seed in range(a.seeds):  # seeds outermost: a cut-short run stays balanced
                for algo in algos:
                    train_and_evaluate(a, env, algo, seed)
    report: dict[str, Any] = {
        "args": {k: shown(v) if isinstance(v, Path) else v for k, v in vars(a).items()
                 if k != "aggregate_only"},
        "envs": {}}
    md: list[str] = []
    a.results.mkdir(parents=True, exist_ok=True)
    for env in envs:
        records = {algo: [r for s in range(a.seeds)
                          if (r := collect(a.out, env, algo, s)) is not None] for algo in algos}
        records = {k: v for k, v in records.items() if v}
        if not records:
            continue
        raw = per_seed_scores(records)
        agg = aggregate(raw, reps=a.reps, seed=a.bootstrap_seed)
        games = next(iter(records.values()))[0]["games_per_seat"]
        entry: dict[str, Any] = {"env_id": ENVS[env], "per_seed": raw, "aggregate": agg,
                                 "runs": records}
        png = a.results / f"{a.name}_{env}.png"
        plot_curves(env, records, png, min(a.reps, 1_000), a.bootstrap_seed)
        entry["curves_png"] = shown(png)
        md += [f"### {ENVS[env]}", "", *budget(records), "", *table(agg, raw, games), ""]
        if len(records) == 2:
            x, y = list(raw)
            opps = [o for o in raw[x] if o in raw[y]]
            mx = np.array([raw[x][o]["pooled"] for o in opps]).T
            my = np.array([raw[y][o]["pooled"] for o in opps]).T
            poi = improvement(mx, my, reps=min(a.reps, 2_000), seed=a.bootstrap_seed)
            imp = {"x": x, "y": y, "tasks": opps, **poi}
            entry["improvement"] = imp
            md += [f"Probability of improvement (rliable), P({x} > {y}) over the seeds, "
                   f"the rungs {', '.join(opps)} as tasks (pooled scores): {imp['p']:.3f} "
                   f"({imp['ci95'][0]:.3f}-{imp['ci95'][1]:.3f}).", ""]
        md += [f"![learning curves]({png.name})", ""]
        report["envs"][env] = entry
    publish(a.results, a.name, report, md)


if __name__ == "__main__":
    main()
