"""Agents: scripted and learned policies sharing one small protocol (STYLE 9).

An agent answers ``act(observation, mask) -> action index`` for the
environments of :mod:`envs` (``mask`` is ``info["action_mask"]``) and may
``explain()`` itself to a Storyteller. Nothing here imports torch at import
time: :mod:`agents.learned` loads stable-baselines3 only when a model is
loaded or saved; an exported policy (:class:`NumpyPolicy`, ``.npz``) needs numpy only.
"""

from __future__ import annotations

from agents.base import Agent, Explaining
from agents.numpy_policy import NumpyPolicy
from agents.scripted import BrawlerAgent, RandomAgent

__all__ = ["Agent", "BrawlerAgent", "Explaining", "NumpyPolicy", "RandomAgent"]
