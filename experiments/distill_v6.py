"""Distil a layout-4 export into a layout-6 policy that plays every seat as it did.

``experiments/reexport_v6.py`` rewrites an old export's weights for the new layout, but
one action head cannot keep the old play from every seat: version 6 numbers targets
relative to the observer, and the old head learned each seat's absolute ids. This
script instead lets the old policy play exactly as before (``OldPolicy``: its own
layout-4 prefix of the observation and its own absolute-target catalog, from any seat)
over seeded battles on every seat, records its picks as the new env would show them
(:class:`agents.imitation.Recorder`: layout-6 observation with ``self.seat``, relative
targets), and fits an MLP clone (:func:`agents.imitation.fit_clone`, needs torch).

    python experiments/distill_v6.py /tmp/duel_v4.npz --battles 3000 --out duel_v6.npz

The old exports are in git history (``git show a6b3ad0:agents/policies/duel.npz``).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from agents.imitation import Decisions, Recorder, fit_clone
from envs.actions import ActionCatalog
from envs.observation import ObservationEncoder
from vtm_sim.arena.tournament import seeded_battle
from vtm_sim.core.choices import Choice, Decision
from vtm_sim.engine.battle import Battle
from vtm_sim.files.scenarios import Scenario, load_scenario
from vtm_sim.policies.registry import maker

sys.path.insert(0, str(Path(__file__).resolve().parent))
from reexport_v6 import old_catalog

OPPONENTS = ("self", "self", "tactician", "berserker", "nearest", "random")


class OldPolicy:
    """A layout-4 export playing exactly as it did: its prefix of today's observation,
    its catalog of absolute targets, from whichever seat it is asked."""

    def __init__(self, path: Path, scenario: Scenario) -> None:
        with np.load(path, allow_pickle=False) as data:
            meta = json.loads(str(data["meta"]))
            self.weights = [(np.asarray(data[f"w{k}"], np.float64),
                             np.asarray(data[f"b{k}"], np.float64))
                            for k in range(int(meta["layers"]))]
        self.info = meta["info"]
        self.choices = old_catalog(scenario.name)
        self.index = {c: i for i, c in enumerate(self.choices)}
        self.encoder = ObservationEncoder.for_scenario(scenario)
        self.inputs = self.weights[0][0].shape[1]

    def choose(self, battle: Battle, decision: Decision) -> Choice:
        options = decision.options
        if len(options) == 1:
            return options[0]
        x = self.encoder.encode(battle, decision.actor)[: self.inputs].astype(np.float64)
        last = len(self.weights) - 1
        for k, (w, b) in enumerate(self.weights):
            x = w @ x + b
            if k < last:
                x = np.tanh(x)
        legal = [self.index[o] for o in options]
        return self.choices[legal[int(np.argmax(x[legal]))]]


def record(old: Path, scenario: Scenario, battles: int, seed: int) -> Decisions:
    catalog = ActionCatalog.for_scenario(scenario)
    encoder = ObservationEncoder.for_scenario(scenario)
    rows: list[tuple[np.ndarray, np.ndarray, int]] = []
    teacher = OldPolicy(old, scenario)
    taped = lambda _rng, _cid: Recorder(teacher, catalog, encoder, rows)  # noqa: E731
    makers = {name: maker(name, scenario) for name in OPPONENTS if name != "self"}
    sides = sorted({f.side for f in scenario.fighters})
    for k in range(battles):
        seat, name = sides[k % 2], OPPONENTS[(k // 2) % len(OPPONENTS)]
        other = taped if name == "self" else makers[name]
        seeded_battle(scenario, {seat: taped, sides[1 - k % 2]: other}, seed + k)
    return Decisions(np.array([r[0] for r in rows], np.float32).reshape(-1, encoder.size),
                     np.array([r[1] for r in rows], np.int8).reshape(-1, catalog.size),
                     np.array([r[2] for r in rows], np.int64))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("old", type=Path)
    ap.add_argument("--battles", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=1_000_000)
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--hidden", default="128,128")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    with np.load(args.old, allow_pickle=False) as data:
        info = json.loads(str(data["meta"]))["info"]
    scenario = load_scenario(info["scenario"])
    t0 = time.perf_counter()
    data = record(args.old, scenario, args.battles, args.seed)
    t1 = time.perf_counter()
    import envs

    path, agreement = fit_clone(data, args.out, scenario=scenario,
                                teacher=f"{info['algo']} layout 4 ({args.old.name})",
                                env_id=envs.env_id(scenario.name),
                                hidden=tuple(int(h) for h in args.hidden.split(",")),
                                epochs=args.epochs, seed=0)
    print(f"{path}: {len(data)} decisions of {args.battles} battles in {t1 - t0:.0f} s, "
          f"fitted in {time.perf_counter() - t1:.0f} s; agrees with the old policy on "
          f"{agreement:.3f} of held-out decisions")


if __name__ == "__main__":
    main()
