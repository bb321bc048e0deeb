"""The difficulty ladder's rungs: policy names from weakest (``ladder:1``) to strongest.

The rungs are listed in ``configs/ladder.yaml``; how well each beats the one
below is measured in :mod:`vtm_sim.arena.ladder`.
"""

from __future__ import annotations

from functools import cache

from pydantic import Field

from vtm_sim.data.config import StrictModel, config_dir, load_yaml, validate
from vtm_sim.errors import ConfigError

__all__ = ["LadderSpec", "rung_name", "rungs"]


class LadderSpec(StrictModel):
    rungs: list[str] = Field(min_length=2, description="Policy names, weakest first.")


@cache
def rungs() -> tuple[str, ...]:
    """The ladder's policy names, weakest first (``configs/ladder.yaml``)."""
    path = config_dir() / "ladder.yaml"
    spec = validate(LadderSpec, load_yaml(path), path)
    if any(r.startswith("ladder:") for r in spec.rungs):
        raise ConfigError(f"{path}: rungs: a rung cannot be another rung")
    return tuple(spec.rungs)


def rung_name(arg: str) -> str:
    """The policy name of rung ``arg`` (``"1"`` is the weakest)."""
    top = len(rungs())
    if not arg.isdigit() or not 1 <= int(arg) <= top:
        raise ConfigError(
            f"policy 'ladder:{arg}': no such rung (expected ladder:1 to ladder:{top})")
    return rungs()[int(arg) - 1]
