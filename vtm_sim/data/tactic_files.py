"""Tactic files: the schema and loader of ``configs/tactics/NAME.yaml``.

A tactic file names a base policy and a Storyteller's rules of thumb for one
NPC (every key in ``docs/tactics.md``; ``vtm-sim schema tactic``).
:class:`vtm_sim.policies.playbook.TacticPolicy` plays one. This module reads and checks
them without the engine, so ``vtm-sim policies`` can describe every tactic
without importing it.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Literal

from pydantic import Field, field_validator, model_validator

from vtm_sim.data.config import StrictModel, config_dir, load_yaml, validate
from vtm_sim.data.tables import load_tables
from vtm_sim.errors import ConfigError

__all__ = ["Tactic", "load_tactic", "tactic_dir"]


class Tactic(StrictModel):
    """A scripted NPC's rules of thumb (one tactic file)."""

    name: str = Field(description="What a Storyteller calls this NPC.")
    description: str = Field(default="", description="The tactic in a sentence or two.")
    base: Literal["nearest", "tactician"] = Field(
        default="nearest",
        description="Who decides what the rules leave open: rules of thumb (nearest) or "
        "exact odds (tactician).")
    take_cover: bool = Field(
        default=False, description="With a gun in hand and out of cover, get into the nearest "
        "cover before shooting (RNG-1).")
    aim: bool = Field(
        default=False, description="From cover, aim at the target for a turn before the first "
        "shot (RNG-7).")
    burst: bool = Field(
        default=False, description="Fire a three-round burst or full auto rather than a single "
        "shot when the gun can (RNG-4, RNG-5).")
    defend: Literal["free", "always", "never"] = Field(
        default="free", description="Defend when it costs no action (free), even by aborting "
        "the declared action (always, DEF-3), or never.")
    full_defense: bool = Field(
        default=False, description="Declare full defense every turn (DEF-7).")
    flee_at: str | None = Field(
        default=None, description="From this health level on (a name in health.yaml, e.g. "
        "wounded) declare full defense and move away from the nearest enemy.")
    blood: Literal["heal", "freely", "never"] = Field(
        default="heal", description="Spend blood to heal when hurt (heal), as much as the turn "
        "allows on healing or Strength and Dexterity (freely), or never (VAMP-2).")
    willpower: bool = Field(
        default=False, description="Declare a Willpower point for an automatic success every "
        "turn while points last (DICE-8).")
    called_shots: bool = Field(
        default=False, description="Aim at a limb, the head or a vital spot whenever the exact "
        "odds say the extra damage is worth the harder roll (RNG-8); needs base tactician.")

    grapple: bool = Field(
        default=False, description="Bare-handed against a blade, clinch the blade wielder "
        "and hold on (MAN-6, DEF-6), taking the blows it could only stop by aborting; needs "
        "base tactician.")

    @model_validator(mode="after")
    def _odds(self) -> Tactic:
        for key in ("called_shots", "grapple"):
            if getattr(self, key) and self.base != "tactician":
                raise ValueError(f"{key}: a plan the tactician's odds carry out, so it needs "
                                 "base: tactician")
        return self

    @field_validator("flee_at")
    @classmethod
    def _level(cls, v: str | None) -> str | None:
        levels = [lvl.name for lvl in load_tables().health]
        if v is not None and v not in levels:
            raise ValueError(f"unknown health level {v!r} (expected one of {', '.join(levels)})")
        return v


def tactic_dir() -> Path:
    return config_dir() / "tactics"


@cache
def _load(path: Path) -> Tactic:
    return validate(Tactic, load_yaml(path), path)


def load_tactic(name_or_path: str) -> Tactic:
    """A tactic by file name (``configs/tactics/NAME.yaml``) or path."""
    p = Path(name_or_path)
    if p.suffix not in (".yaml", ".yml"):
        p = tactic_dir() / f"{name_or_path}.yaml"
    if not p.is_file():
        known = ", ".join(sorted(q.stem for q in tactic_dir().glob("*.yaml")))
        raise ConfigError(f"tactic {name_or_path!r}: no file {p} (shipped: {known})")
    return _load(p.resolve())
