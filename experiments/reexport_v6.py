"""Re-export the shipped policies to observation layout 6 (env version 6).

Version 6 appends ``self.seat`` to the observation and makes action targets relative
to the observer (target slot ``k`` is the ``k``-th other combatant in id order), so the
old exports (layout 4, absolute target ids) no longer fit. This writes the same
network for the new layout, without training:

- input: the layout-4 observation is the layout-6 one's prefix up to the end of
  ``self`` less its new floats (``seat``) and the ``tempo`` rows; those get zero
  weights, so the policy reads what it read before;
- action head: row ``j`` of the new head is the old row of the same choice as combatant
  ``seat`` (``--seat``, default the model's ``agent_id``) sees it: a target slot is the
  absolute id it names from that seat.

From that seat the re-exported policy picks what the old one picked (checked here over
seeded battles, ``--check``). From another seat its target rows are the ones learned for
the first seat's targets, so its play there changes: re-measure it (docs/policies.md).

    python experiments/reexport_v6.py agents/policies/duel.npz --check 20
"""

from __future__ import annotations

import argparse
import json
from dataclasses import replace
from pathlib import Path

import numpy as np

import envs
from agents.model_info import ModelInfo
from agents.numpy_policy import NumpyPolicy, write_policy
from envs.actions import ActionCatalog, _actions, _blood, _declarations, _defenses, _jumps
from envs.observation import SELF, TEMPO, ObservationEncoder
from vtm_sim.core.choices import shared
from vtm_sim.data.formats import OBS_VERSION
from vtm_sim.data.tables import load_tables
from vtm_sim.files.scenarios import load_scenario

OLD_SELF_EXTRA = 1  # the floats ``self`` gained since layout 4: seat


def old_catalog(scenario_name: str) -> list[object]:
    """The choices of the layout-4/5 catalog (absolute targets, the combatant itself too)."""
    scenario = load_scenario(scenario_name)
    tables = load_tables()
    stats = [f.stats for f in scenario.fighters]
    n = len(stats)
    rules = scenario.rules
    targets = list(range(n))
    max_weapons = max(len(s.weapons) for s in stats)
    celerity = max(5, max(s.discipline("celerity") for s in stats))
    points = max(g.per_turn for g in tables.generations.values())
    return [shared(c) for c in (
        _blood(points) + _declarations(rules.max_actions, celerity, rules.delay_announced)
        + _actions(targets, max_weapons, tables.maneuvers) + _defenses() + _jumps(targets))]


def reexport(path: Path, out: Path, seat: int | None) -> Path:
    with np.load(path, allow_pickle=False) as data:
        meta = json.loads(str(data["meta"]))
        weights = [(np.asarray(data[f"w{k}"], np.float32), np.asarray(data[f"b{k}"], np.float32))
                   for k in range(int(meta["layers"]))]
    info = ModelInfo(**meta["info"])
    if info.obs_version != 4:
        raise SystemExit(f"{path}: layout {info.obs_version}; this script re-exports layout 4")
    seat = info.agent_id if seat is None else seat
    scenario = load_scenario(info.scenario)
    encoder = ObservationEncoder.for_scenario(scenario)
    catalog = ActionCatalog.for_scenario(scenario, observer=seat)
    old = old_catalog(info.scenario)
    if len(old) != info.catalog_size:
        raise SystemExit(f"{path}: {info.catalog_size} actions, the old catalog {len(old)}")
    old_index = {c: i for i, c in enumerate(old)}
    # input: [decision, others, self(v4)] read as before; seat and tempo get zero weights
    w0, b0 = weights[0]
    self_end = encoder.size - encoder.slots * TEMPO.size  # the end of ``self``
    if w0.shape[1] != self_end - OLD_SELF_EXTRA:
        raise SystemExit(f"{path}: {w0.shape[1]} inputs, expected {self_end - OLD_SELF_EXTRA}")
    w_in = np.zeros((w0.shape[0], encoder.size), np.float32)
    w_in[:, : w0.shape[1]] = w0
    assert SELF.features[-1] == "seat"
    # head: each new choice's row is the old row of the same choice
    wh, bh = weights[-1]
    rows = [old_index[c] for c in catalog.choices]
    new = [(w_in, b0), *weights[1:-1], (wh[rows], bh[rows])]
    new_info = replace(info, obs_version=OBS_VERSION, catalog_size=catalog.size,
                       env_id=envs.env_id(info.scenario))
    return write_policy(out, new, str(meta["activation"]), new_info)


def check(old_path: Path, new_path: Path, seat: int, battles: int) -> None:
    """Both policies pick the same choice at every decision of ``seat`` over seeded
    battles against the nearest-enemy opponent (the old one through the old catalog)."""
    from envs.env import VtmEnv

    with np.load(old_path, allow_pickle=False) as data:
        meta = json.loads(str(data["meta"]))
        ow = [(np.asarray(data[f"w{k}"], np.float32), np.asarray(data[f"b{k}"], np.float32))
              for k in range(int(meta["layers"]))]
    newp = NumpyPolicy.load(new_path)
    old = old_catalog(newp.info.scenario)
    act = {"tanh": np.tanh, "relu": lambda x: np.maximum(x, 0)}[meta["activation"]]
    decisions = 0
    for k in range(battles):
        env = VtmEnv(newp.info.scenario, agent_id=seat, control="side")
        obs, info = env.reset(seed=k)
        done = False
        while not done:
            mask = info["action_mask"]
            me = env.match.asked(seat)
            cat = env.match.catalog.seat(me)
            legal_new = np.flatnonzero(mask)
            x = obs[: ow[0][0].shape[1]]
            for j, (w, b) in enumerate(ow):
                x = w @ x + b
                if j < len(ow) - 1:
                    x = act(x)
            legal_old = [old.index(cat.choices[i]) for i in legal_new]
            pick_old = old[legal_old[int(np.argmax(x[legal_old]))]]
            pick_new = cat.choices[newp.act(obs, mask)]
            if me == seat and pick_old != pick_new:
                raise SystemExit(f"battle {k}: old {pick_old}, new {pick_new}")
            decisions += me == seat
            obs, _, term, trunc, info = env.step(newp.act(obs, mask))
            done = term or trunc
    print(f"{new_path}: the same pick at all {decisions} decisions of seat {seat} "
          f"in {battles} battles")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("policy", type=Path, nargs="+")
    ap.add_argument("--seat", type=int, default=None)
    ap.add_argument("--check", type=int, default=0, metavar="BATTLES")
    args = ap.parse_args()
    for path in args.policy:
        tmp = path.with_name(path.stem + ".v6.npz")
        written = reexport(path, tmp, args.seat)
        if args.check:
            seat = args.seat if args.seat is not None else NumpyPolicy.load(written).info.agent_id
            check(path, written, seat, args.check)
        written.replace(path)
        print(f"{path}: re-exported to layout {OBS_VERSION}")


if __name__ == "__main__":
    main()
