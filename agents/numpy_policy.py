"""A trained MLP policy that runs on numpy alone (no torch): ``model:FILE.npz``.

``vtm-sim export-policy`` (:mod:`vtm_sim.cli.training`) writes the policy
network of a stable-baselines3 / sb3-contrib actor-critic model to one
``.npz`` file: the weight matrices and biases of the policy's hidden layers
(``w0``, ``b0``, ``w1``, ...) and of its action head (the last pair), the
hidden activation, how illegal actions are handled, and the metadata the
model was saved with (observation layout version, observation mode, action
count, scenario, algorithm, seed). :class:`NumpyPolicy` reads it back with
``numpy.load`` and answers ``act(observation, mask)`` like the torch policy
in deterministic mode: the action with the highest logit among the legal ones
(MaskablePPO masks the logits, PPO's :class:`~agents.learned.LearnedAgent`
takes the most probable legal action; both are this argmax). Arithmetic is
float32, as in torch.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

from agents.base import legal_indices
from agents.model_info import ModelInfo, other_layout
from vtm_sim.data.formats import OBS_VERSION, POLICY_FORMAT

__all__ = [
    "ACTIVATIONS",
    "MASK_HANDLING",
    "NumpyPolicy",
    "sb3_weights",
    "write_policy",
]

# What act() does with the mask: the argmax of the action logits over the legal actions.
MASK_HANDLING = "argmax of the logits over the legal actions"


def _relu(x: np.ndarray) -> np.ndarray:
    out: np.ndarray = np.maximum(x, np.float32(0))
    return out


def _elu(x: np.ndarray) -> np.ndarray:
    return np.where(x > 0, x, np.expm1(x)).astype(np.float32)


def _silu(x: np.ndarray) -> np.ndarray:
    out: np.ndarray = (x / (np.float32(1) + np.exp(-x))).astype(np.float32)
    return out


ACTIVATIONS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "tanh": np.tanh,
    "relu": _relu,
    "elu": _elu,
    "silu": _silu,
    "identity": lambda x: x,
}


def write_policy(
    path: str | Path,
    weights: Sequence[tuple[np.ndarray, np.ndarray]],
    activation: str,
    info: ModelInfo,
) -> Path:
    """Write an MLP policy to ``path`` (``.npz`` added if missing); returns the path.

    Args:
        weights: ``(W, b)`` per layer, input to output, ``W`` shaped (out, in) as in
            ``torch.nn.Linear``; the last layer is the action head (no activation).
        activation: the hidden layers' activation, a key of :data:`ACTIVATIONS`.
        info: what the model was trained on (its ``catalog_size`` is the head's width).
    """
    if activation not in ACTIVATIONS:
        raise ValueError(f"activation {activation!r}: expected one of {', '.join(ACTIVATIONS)}")
    if not weights:
        raise ValueError("a policy needs at least its action head")
    out_dim = int(np.asarray(weights[-1][0]).shape[0])
    if out_dim != info.catalog_size:
        raise ValueError(f"the action head has {out_dim} outputs, the catalog {info.catalog_size}")
    p = Path(path)
    if p.suffix != ".npz":
        p = p.with_name(p.name + ".npz")
    arrays: dict[str, Any] = {}
    for k, (w, b) in enumerate(weights):
        arrays[f"w{k}"] = np.asarray(w, dtype=np.float32)
        arrays[f"b{k}"] = np.asarray(b, dtype=np.float32)
    meta = {"format": POLICY_FORMAT, "activation": activation, "mask_handling": MASK_HANDLING,
            "layers": len(weights), "info": asdict(info)}
    arrays["meta"] = np.array(json.dumps(meta))
    p.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(p, **arrays)
    return p


class NumpyPolicy:
    """An exported policy: ``act(observation, mask)`` with numpy only.

    Load with :meth:`load`; ``info`` is the model's :class:`~agents.learned.ModelInfo`.
    """

    def __init__(
        self, weights: list[tuple[np.ndarray, np.ndarray]], activation: str, info: ModelInfo
    ) -> None:
        self.weights = weights
        self.activation = activation
        self._act = ACTIVATIONS[activation]
        self.info = info
        self.input_size = int(weights[0][0].shape[1])

    @classmethod
    def load(cls, path: str | Path) -> NumpyPolicy:
        """Read an exported ``.npz``; checks its format, layout version and shapes."""
        p = Path(path)
        try:
            with np.load(p, allow_pickle=False) as data:
                meta = json.loads(str(data["meta"]))
                n = int(meta["layers"])
                weights = [(np.asarray(data[f"w{k}"], np.float32),
                            np.asarray(data[f"b{k}"], np.float32)) for k in range(n)]
        except FileNotFoundError:
            raise ValueError(f"{p}: no such file") from None
        except (OSError, KeyError, ValueError, TypeError) as exc:
            raise ValueError(f"{p}: not an exported policy ({exc})") from None
        if meta.get("format") != POLICY_FORMAT:
            raise ValueError(f"{p}: format {meta.get('format')!r}, expected {POLICY_FORMAT!r}")
        try:
            info = ModelInfo(**meta["info"])
        except TypeError as exc:
            raise ValueError(f"{p}: bad model metadata ({exc})") from None
        if info.obs_version != OBS_VERSION:
            raise ValueError(other_layout(p, info) + " and export it again")
        activation = meta.get("activation")
        if activation not in ACTIVATIONS:
            raise ValueError(f"{p}: activation {activation!r}: expected one of "
                             f"{', '.join(ACTIVATIONS)}")
        for k in range(1, n):
            if weights[k][0].shape[1] != weights[k - 1][0].shape[0]:
                raise ValueError(f"{p}: layer {k} does not fit layer {k - 1}")
        if weights[-1][0].shape[0] != info.catalog_size:
            raise ValueError(f"{p}: {weights[-1][0].shape[0]} actions, metadata says "
                             f"{info.catalog_size}")
        return cls(weights, str(activation), info)

    def logits(self, observation: Any) -> np.ndarray:
        """The action logits for one flat observation (float32, one per catalog action)."""
        x = self._flat(observation)
        last = len(self.weights) - 1
        for k, (w, b) in enumerate(self.weights):
            x = w @ x + b
            if k < last:
                x = self._act(x)
        return x

    def act(self, observation: Any, mask: np.ndarray) -> int:
        legal = legal_indices(mask)
        z = self.logits(observation)
        return int(legal[int(np.argmax(z[legal]))])

    def explain(self) -> str:
        return (
            f"{self.info.algo} policy trained on {self.info.scenario} as combatant "
            f"{self.info.agent_id} (seed {self.info.seed}), run with numpy"
        )

    def _flat(self, observation: Any) -> np.ndarray:
        obs = observation
        if isinstance(obs, dict) and "observation" in obs:  # the PettingZoo form
            obs = obs["observation"]
        if isinstance(obs, dict):
            raise ValueError("an exported policy takes the flat observation (obs_mode='flat')")
        x = np.asarray(obs, dtype=np.float32).reshape(-1)
        if x.size == self.input_size:
            return x
        raise ValueError(f"observation of {x.size} features, the policy takes "
                         f"{self.input_size}")


def sb3_weights(model: Any) -> tuple[list[tuple[np.ndarray, np.ndarray]], str]:
    """The policy network of an SB3 actor-critic model as ``(W, b)`` layers and activation.

    Supports the ``MlpPolicy`` of PPO, A2C and MaskablePPO on a flat observation
    (a ``FlattenExtractor``); imports torch (it is only called with a loaded model).

    Raises:
        ValueError: for a policy this format cannot hold (another feature
            extractor, mixed activations, a layer that is not Linear).
    """
    import torch

    policy = model.policy
    extractor = type(policy.features_extractor).__name__
    if extractor != "FlattenExtractor":
        raise ValueError(f"feature extractor {extractor}: only MlpPolicy on a flat "
                         "observation (FlattenExtractor) can be exported")
    names = {torch.nn.Tanh: "tanh", torch.nn.ReLU: "relu", torch.nn.ELU: "elu",
             torch.nn.SiLU: "silu"}
    layers: list[tuple[np.ndarray, np.ndarray]] = []
    seen: set[str] = set()
    modules = [*policy.mlp_extractor.policy_net, policy.action_net]
    for module in modules:
        if isinstance(module, torch.nn.Linear):
            w = module.weight.detach().cpu().numpy().astype(np.float32)
            b = (module.bias.detach().cpu().numpy() if module.bias is not None
                 else np.zeros(w.shape[0])).astype(np.float32)
            layers.append((w, b))
        elif type(module) in names:
            seen.add(names[type(module)])
        elif not isinstance(module, torch.nn.Identity):
            raise ValueError(f"layer {type(module).__name__}: only Linear layers and "
                             f"{', '.join(names.values())} activations can be exported")
    if len(seen) > 1:
        raise ValueError(f"activations {sorted(seen)}: one activation for every layer expected")
    return layers, (seen.pop() if seen else "identity")
