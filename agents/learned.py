"""Learned agents: a stable-baselines3 model saved with its metadata (STYLE 9).

A model ``NAME.zip`` is saved next to ``NAME.json``: the algorithm, env id and
keyword arguments, scenario, observation layout version, action catalog
size, training seed and library versions. :meth:`LearnedAgent.load` checks the
layout version and catalog size before loading. stable-baselines3 (and so
torch) is imported only inside :func:`save_model` and :meth:`LearnedAgent.load`.
:func:`load_agent` also reads policies exported to numpy (``.npz``,
:mod:`agents.numpy_policy`), which need no torch.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

from agents.base import legal_indices
from agents.model_info import ALGORITHMS, ModelInfo, other_layout, versions
from agents.numpy_policy import NumpyPolicy, sb3_weights, write_policy
from vtm_sim.data.formats import OBS_VERSION

__all__ = ["LearnedAgent", "ModelInfo", "export_policy", "load_agent", "save_model"]

def _paths(path: str | Path) -> tuple[Path, Path]:
    p = Path(path)
    base = p.with_suffix("") if p.suffix == ".zip" else p
    return base.with_suffix(".zip"), base.with_suffix(".json")


def save_model(
    model: Any,
    path: str | Path,
    env: Any,
    *,
    seed: int | None = None,
    env_id: str = "",
    env_kwargs: dict[str, Any] | None = None,
) -> Path:
    """Save an SB3 model and its metadata; returns the ``.zip`` path.

    Args:
        model: a trained stable-baselines3 / sb3-contrib model.
        path: where to save (``.zip`` added).
        env: the env it was trained on (any wrapper of :class:`envs.env.VtmEnv`).
        seed: the training seed.
        env_id: the registered id used (recorded, for rebuilding the env).
        env_kwargs: keyword arguments given to ``gymnasium.make``.
    """
    base = env.unwrapped
    zip_path, json_path = _paths(path)
    zip_path.parent.mkdir(parents=True, exist_ok=True)
    model.save(str(zip_path))
    info = ModelInfo(
        algo=type(model).__name__,
        env_id=env_id,
        scenario=base.scenario.name,
        agent_id=int(base.agent_id),
        obs_version=OBS_VERSION,
        obs_mode=base.obs_mode,
        catalog_size=int(base.catalog.size),
        seed=seed,
        env_kwargs=dict(env_kwargs or {}),
        versions=versions(),
    )
    json_path.write_text(json.dumps(asdict(info), indent=2) + "\n", encoding="utf-8")
    return zip_path


def load_agent(path: str | Path) -> LearnedAgent | NumpyPolicy:
    """The trained agent saved at ``path``: what ``model:PATH`` names.

    A ``.npz`` is a policy exported by ``vtm-sim export-policy`` and runs on numpy
    alone (:class:`agents.numpy_policy.NumpyPolicy`); anything else is a
    stable-baselines3 model (``NAME.zip`` with ``NAME.json``), which needs torch.
    Both have ``info`` (:class:`ModelInfo`) and ``act(observation, mask)``.

    Raises:
        ValueError: a missing or unreadable file, or one for another observation layout.
    """
    if Path(path).suffix == ".npz":
        return NumpyPolicy.load(path)
    return LearnedAgent.load(path)


class LearnedAgent:
    """A trained policy answering ``act(observation, mask)`` (greedy among legal actions)."""

    def __init__(self, model: Any, info: ModelInfo) -> None:
        self.model = model
        self.info = info

    @classmethod
    def load(cls, path: str | Path) -> LearnedAgent:
        """Load ``NAME.zip`` with ``NAME.json``; checks the observation layout version."""
        zip_path, json_path = _paths(path)
        info = ModelInfo.read(json_path)
        if info.obs_version != OBS_VERSION:
            raise ValueError(other_layout(json_path, info))
        module_name = ALGORITHMS.get(info.algo)
        if module_name is None:
            raise ValueError(
                f"{json_path}: algo {info.algo!r}: expected one of {', '.join(ALGORITHMS)}"
            )
        import importlib

        algo = getattr(importlib.import_module(module_name), info.algo)
        model = algo.load(str(zip_path), device="cpu")
        n = int(model.action_space.n)
        if n != info.catalog_size:
            raise ValueError(f"{zip_path}: {n} actions, metadata says {info.catalog_size}")
        return cls(model, info)

    def explain(self) -> str:
        return (
            f"{self.info.algo} policy trained on {self.info.scenario} as combatant "
            f"{self.info.agent_id} (seed {self.info.seed})"
        )

    def act(self, observation: Any, mask: np.ndarray) -> int:
        legal = legal_indices(mask)
        if self.info.algo == "MaskablePPO":
            action, _ = self.model.predict(
                observation, action_masks=np.asarray(mask, bool), deterministic=True
            )
            return int(action)
        import torch  # only reached with a model loaded, i.e. torch installed

        policy = self.model.policy
        obs_t, _ = policy.obs_to_tensor(observation)
        with torch.no_grad():
            probs = policy.get_distribution(obs_t).distribution.probs[0].cpu().numpy()
        return int(legal[int(np.argmax(probs[legal]))])


def export_policy(model_path: str | Path, out: str | Path) -> Path:
    """Write the saved model ``model_path`` (``NAME.zip`` + ``NAME.json``) as a numpy policy.

    Returns the ``.npz`` written. Raises ValueError for a model that cannot be read
    or exported (needs torch and stable-baselines3 installed).
    """
    agent = LearnedAgent.load(model_path)
    weights, activation = sb3_weights(agent.model)
    return write_policy(out, weights, activation, agent.info)
