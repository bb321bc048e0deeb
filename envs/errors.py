"""The environments' own errors (apart from the engine's, in :mod:`vtm_sim.errors`)."""

from __future__ import annotations


class CatalogError(RuntimeError):
    """The engine offered a choice that the action catalog has no index for."""
