"""What a saved or exported model was trained on: its metadata and the library versions.

Read by both kinds of saved policy, the SB3 models of :mod:`agents.learned` and
the torch-free exports of :mod:`agents.numpy_policy`.
"""

from __future__ import annotations

import json
import platform
from dataclasses import dataclass, field
from importlib import metadata as importlib_metadata
from pathlib import Path
from typing import Any

from vtm_sim.version import compiled_modules

__all__ = ["ALGORITHMS", "LIBRARIES", "ModelInfo", "other_layout", "versions"]

LIBRARIES = ("vtm-sim", "gymnasium", "numpy", "torch", "stable-baselines3", "sb3-contrib")
# Policy-gradient algorithms (they expose action probabilities for masking).
ALGORITHMS = {"MaskablePPO": "sb3_contrib", "PPO": "stable_baselines3", "A2C": "stable_baselines3"}


def versions() -> dict[str, str]:
    out = {"python": platform.python_version()}
    for name in LIBRARIES:
        try:
            out[name] = importlib_metadata.version(name)
        except importlib_metadata.PackageNotFoundError:
            continue
    out["vtm_sim_build"] = "mypyc" if compiled_modules() else "pure Python"
    return out


@dataclass(frozen=True)
class ModelInfo:
    """What a saved model was trained on."""

    algo: str
    env_id: str
    scenario: str
    agent_id: int
    obs_version: int
    obs_mode: str
    catalog_size: int
    seed: int | None
    env_kwargs: dict[str, Any] = field(default_factory=dict)
    versions: dict[str, str] = field(default_factory=dict)

    @classmethod
    def read(cls, path: Path) -> ModelInfo:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise ValueError(f"{path}: cannot read the model metadata ({exc})") from None
        try:
            return cls(**data)
        except TypeError as exc:
            raise ValueError(f"{path}: bad model metadata ({exc})") from None


def other_layout(path: object, info: ModelInfo) -> str:
    """The one line refusing a model of another observation layout: both ids and both
    layout versions (the model's id as recorded, the one this code registers for it)."""
    import envs

    now = envs.current_id(info.env_id) or envs.env_id(info.scenario)
    trained = info.env_id or f"scenario {info.scenario}"
    return (f"{path}: trained on {trained} with observation layout {info.obs_version}, "
            f"but this code is {now} with layout {envs.OBS_VERSION}: retrain the model")
