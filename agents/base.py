"""The agent protocol."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np

__all__ = ["Agent", "Explaining", "legal_indices"]


@runtime_checkable
class Agent(Protocol):
    """Anything that picks a legal action index from an observation and a mask."""

    def act(self, observation: Any, mask: np.ndarray) -> int: ...


@runtime_checkable
class Explaining(Protocol):
    """An agent that can say, in one line, how it plays."""

    def explain(self) -> str: ...


def legal_indices(mask: np.ndarray) -> np.ndarray:
    """The indices set in a mask; raises ValueError when nothing is legal."""
    idx = np.flatnonzero(mask)
    if idx.size == 0:
        raise ValueError("no legal action: the episode is over (call reset)")
    return idx
