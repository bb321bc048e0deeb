"""Imitation: a policy's decisions as env data, and a fast numpy clone fitted to them.

The planner (``ladder:4``) costs a few milliseconds a decision, so training against it
gets a tenth of the steps a cheap opponent allows. :func:`record` plays seeded battles
with a *teacher* (any policy name) on one seat and a mix of opponents on the other,
and keeps every decision the teacher made among two or more options as the env
would show it: the flat observation, the action mask and the catalog index of the
teacher's pick. :func:`fit_clone` fits an MLP to those picks (masked cross-entropy,
torch, imported lazily) and writes it as an exported policy (:mod:`agents.numpy_policy`),
so that ``model:FILE.npz`` plays the teacher's moves with numpy alone.

experiments/planner_clone.py runs both for the duel's planner and measures the clone.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path

import numpy as np

from agents.model_info import ModelInfo
from agents.numpy_policy import NumpyPolicy, write_policy
from envs.actions import ActionCatalog
from envs.observation import ObservationEncoder
from vtm_sim.arena.tournament import seeded_battle
from vtm_sim.core.choices import Choice, Decision
from vtm_sim.data.formats import OBS_VERSION
from vtm_sim.engine.battle import Battle
from vtm_sim.files.scenarios import Scenario
from vtm_sim.policies.play import Policy
from vtm_sim.policies.registry import PolicyMaker, maker

__all__ = ["Decisions", "Recorder", "fit_clone", "record"]


@dataclass(frozen=True)
class Decisions:
    """A teacher's decisions: ``obs`` (n, features) float32, ``mask`` (n, actions) int8,
    ``action`` (n,) the catalog index the teacher picked (always legal in its mask)."""

    obs: np.ndarray
    mask: np.ndarray
    action: np.ndarray

    def __len__(self) -> int:
        return int(self.action.shape[0])

    @classmethod
    def join(cls, parts: Sequence[Decisions]) -> Decisions:
        return cls(np.concatenate([p.obs for p in parts]),
                   np.concatenate([p.mask for p in parts]),
                   np.concatenate([p.action for p in parts]))

    def save(self, path: str | Path) -> None:
        np.savez_compressed(path, obs=self.obs, mask=self.mask, action=self.action)

    @classmethod
    def load(cls, path: str | Path) -> Decisions:
        with np.load(path, allow_pickle=False) as data:
            return cls(data["obs"], data["mask"], data["action"])


class Recorder:
    """A battle policy that plays ``policy`` and keeps its decisions as env data."""

    def __init__(self, policy: Policy, catalog: ActionCatalog, encoder: ObservationEncoder,
                 rows: list[tuple[np.ndarray, np.ndarray, int]]) -> None:
        self.policy, self.catalog, self.encoder, self.rows = policy, catalog, encoder, rows

    def choose(self, battle: Battle, decision: Decision) -> Choice:
        if len(decision.options) == 1:  # the env never asks these
            return self.policy.choose(battle, decision)
        obs = self.encoder.encode(battle, decision.actor)  # before the teacher looks ahead
        catalog = self.catalog.seat(decision.actor)  # targets relative to the actor
        mask = catalog.mask(decision)
        choice = self.policy.choose(battle, decision)
        self.rows.append((np.asarray(obs, np.float32), mask, catalog.index[choice]))
        return choice


def record(scenario: Scenario, teacher: str, opponents: Sequence[str], battles: range,
           *, seed: int = 0) -> Decisions:
    """The teacher's decisions over seeded battles of a two-sided, one-a-side scenario.

    Battle ``k`` (of ``battles``) puts the teacher on seat ``k % 2`` against
    ``opponents[(k // 2) % len(opponents)]`` (a name may repeat, to weight it); an
    opponent named as the teacher is recorded too. Battle ``k`` is battle ``seed + k`` of
    :func:`vtm_sim.arena.tournament.seeded_battle` (the one seeding convention), so any split of
    ``battles`` over worker processes gives the same rows in the same order when joined.
    """
    if len(scenario.fighters) != 2:
        raise ValueError(f"{scenario.name}: record takes a one-a-side scenario, not "
                         f"{len(scenario.fighters)} combatants")
    if not opponents:
        raise ValueError("record needs at least one opponent")
    catalog = ActionCatalog.for_scenario(scenario)
    encoder = ObservationEncoder.for_scenario(scenario)
    teach = maker(teacher, scenario)
    makers = {name: maker(name, scenario) for name in dict.fromkeys(opponents)}
    rows: list[tuple[np.ndarray, np.ndarray, int]] = []

    def taped(make: PolicyMaker) -> PolicyMaker:
        return lambda rng, cid: Recorder(make(rng, cid), catalog, encoder, rows)

    sides = [f.side for f in scenario.fighters]
    for k in battles:
        seat, name = k % 2, opponents[(k // 2) % len(opponents)]
        other = makers[name]
        seeded_battle(scenario, {sides[seat]: taped(teach),
                                 sides[1 - seat]: taped(other) if name == teacher else other},
                      seed + k)
    # (reshaped, so that no decisions at all are still (0, features) and (0, actions))
    return Decisions(np.array([r[0] for r in rows], np.float32).reshape(-1, encoder.size),
                     np.array([r[1] for r in rows], np.int8).reshape(-1, catalog.size),
                     np.array([r[2] for r in rows], np.int64))


def fit_clone(data: Decisions, out: str | Path, *, scenario: Scenario, teacher: str,
              env_id: str = "", hidden: Sequence[int] = (256, 256), epochs: int = 10, seed: int = 0,
              holdout: float = 0.1) -> tuple[Path, float]:
    """Fit an MLP (tanh) to ``data``'s picks and export it to ``out``; returns the written
    path and the clone's agreement with the teacher on the held-out decisions (the
    last ``holdout`` share of a seeded shuffle), as the exported numpy policy plays."""
    import torch
    from torch import nn

    if len(data) < 10:
        raise ValueError(f"{len(data)} decisions: too few to fit a clone")
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(data))
    cut = max(1, int(len(data) * holdout))
    held, train = order[:cut], order[cut:]
    torch.manual_seed(seed)
    sizes = [data.obs.shape[1], *hidden]
    layers: list[nn.Module] = []
    for a, b in pairwise(sizes):
        layers += [nn.Linear(a, b), nn.Tanh()]
    net = nn.Sequential(*layers, nn.Linear(sizes[-1], data.mask.shape[1]))
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    obs = torch.from_numpy(np.ascontiguousarray(data.obs, np.float32))
    legal = torch.from_numpy(data.mask.astype(bool))
    target = torch.from_numpy(data.action.astype(np.int64))
    for _ in range(epochs):
        for batch in np.array_split(rng.permutation(train), max(1, len(train) // 512)):
            b = torch.from_numpy(batch)
            logits = net(obs[b]).masked_fill(~legal[b], -1e9)
            loss = nn.functional.cross_entropy(logits, target[b])
            opt.zero_grad()
            loss.backward()  # type: ignore[no-untyped-call,unused-ignore]  # torch 2.13: untyped
            opt.step()
    linear = [m for m in net if isinstance(m, nn.Linear)]
    weights = [(m.weight.detach().numpy().copy(), m.bias.detach().numpy().copy())
               for m in linear]
    info = ModelInfo(algo=f"clone of {teacher}", env_id=env_id, scenario=scenario.name, agent_id=0,
                     obs_version=OBS_VERSION, obs_mode="flat",
                     catalog_size=int(data.mask.shape[1]), seed=seed)
    path = write_policy(out, weights, "tanh", info)
    clone = NumpyPolicy.load(path)
    hits = sum(clone.act(data.obs[i], data.mask[i]) == int(data.action[i]) for i in held)
    return path, hits / len(held)
