"""Scripted tactics from YAML: a few rules of thumb over a base policy.

A tactic file (``configs/tactics/NAME.yaml``, every key in
``docs/tactics.md``; ``vtm-sim schema tactic``) names a base policy, the
built-in ``nearest`` or the ``tactician``, and the rules a Storyteller would
give an NPC on top of it: take cover first, aim before shooting, fire bursts,
defend at any cost or never, run at a wound level, spend blood freely. Each
rule answers only the decisions it speaks of; the base answers the rest.
:class:`TacticPolicy` interprets one over the battle's decisions, the same
way for every tactic.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from vtm_sim.attack import SHOOTING, defense_pool, hand_weapon
from vtm_sim.battle import Battle
from vtm_sim.choices import (
    Action,
    ActionKind,
    BloodSpend,
    BloodUse,
    Choice,
    Decision,
    DecisionKind,
    Declaration,
    Defense,
    DefenseKind,
)
from vtm_sim.combatant import Combatant
from vtm_sim.config import config_dir, load_yaml, validate
from vtm_sim.errors import ConfigError
from vtm_sim.policy import NearestEnemyPolicy
from vtm_sim.simulate import Policy
from vtm_sim.tables import load_tables

__all__ = ["Tactic", "TacticPolicy", "load_tactic", "tactic_dir"]


class Tactic(BaseModel):
    """A scripted NPC's rules of thumb (one tactic file)."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

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


_BURSTS = ("full_auto", "burst")  # the bigger volley first


class TacticPolicy:
    """Plays a :class:`Tactic`: its rules first, its base policy for the rest."""

    def __init__(self, tactic: Tactic) -> None:
        self.tactic = tactic
        self.base: Policy = NearestEnemyPolicy()
        if tactic.base == "tactician":
            from vtm_sim.tactics import TacticianPolicy

            self.base = TacticianPolicy()
        self._flee_from = -1

    def explain(self) -> str:
        return self.tactic.description or self.tactic.name

    def choose(self, battle: Battle, decision: Decision) -> Choice:
        if len(decision.options) == 1:
            return decision.options[0]
        me = battle.combatants[decision.actor]
        pick: Choice | None = None
        if decision.kind is DecisionKind.BLOOD:
            pick = self._blood(me, decision)
        elif decision.kind is DecisionKind.DECLARE:
            pick = self._declare(me, battle, decision)
        elif decision.kind is DecisionKind.DEFEND:
            pick = self._defend(me, decision)
        else:
            pick = self._act(me, battle, decision)
        return pick if pick is not None else self.base.choose(battle, decision)

    def _fleeing(self, me: Combatant, battle: Battle) -> bool:
        t = self.tactic
        if t.flee_at is None:
            return False
        if self._flee_from < 0:
            names = [lvl.name for lvl in battle.tables.health]
            self._flee_from = names.index(t.flee_at) + 1  # boxes filled at that level
        return me.health.filled >= self._flee_from

    def _blood(self, me: Combatant, d: Decision) -> Choice | None:
        spends = [o for o in d.options if isinstance(o, BloodSpend)]
        if self.tactic.blood == "never":
            return next((o for o in spends if o.use is BloodUse.NONE), None)
        if self.tactic.blood == "heal":
            return None
        heals = [o for o in spends if o.use is BloodUse.HEAL]
        if heals:  # VAMP-2: hurt: heal as much as the turn allows
            return max(heals, key=lambda o: o.points)
        _, idx = hand_weapon(me, False)
        use = BloodUse.DEXTERITY if idx >= 0 and me.stats.weapons[idx].cls in SHOOTING \
            else BloodUse.STRENGTH
        boosts = [o for o in spends if o.use is use]
        return max(boosts, key=lambda o: o.points) if boosts else None

    def _declare(self, me: Combatant, battle: Battle, d: Decision) -> Choice | None:
        decls = [o for o in d.options if isinstance(o, Declaration)]
        if self.tactic.full_defense or self._fleeing(me, battle):
            full = [o for o in decls if o.full_defense]
            if full:
                return max(full, key=lambda o: (o.celerity, o.willpower))
        if self.tactic.willpower and me.willpower > 0:
            plain = [o for o in decls if o.actions == 1 and not o.full_defense and o.willpower]
            if plain:
                return max(plain, key=lambda o: o.celerity)
        return None

    def _defend(self, me: Combatant, d: Decision) -> Choice | None:
        defenses = [o for o in d.options if isinstance(o, Defense)]
        if self.tactic.defend == "never":
            return next((o for o in defenses if o.kind is DefenseKind.NONE), None)
        if self.tactic.defend == "free":
            return None
        real = [o for o in defenses if o.kind is not DefenseKind.NONE]
        if not real:
            return None
        # DEF-3: aborting by a roll before spending Willpower
        return max(real, key=lambda o: (defense_pool(me, o.kind, 0), o.abort is None,
                                        str(o.abort)))

    def _act(self, me: Combatant, battle: Battle, d: Decision) -> Choice | None:
        actions = [o for o in d.options if isinstance(o, Action)]
        t = self.tactic
        enemies = battle.enemies(me)
        if self._fleeing(me, battle) and enemies:
            nearest = min(enemies, key=lambda e: (me.distance(e), e.id))
            away = [o for o in actions if o.kind is ActionKind.MOVE and o.away
                    and o.target == nearest.id]
            if away:
                return away[0]
        w, idx = hand_weapon(me, False)
        gun = idx >= 0 and w.cls in SHOOTING and me.ammo[idx] > 0
        in_cover = battle.field.cover_at(me.x, me.y) is not None
        if gun and t.take_cover and not in_cover:
            cover = [o for o in actions if o.kind is ActionKind.TAKE_COVER]
            if cover:
                return cover[0]
        base = self.base.choose(battle, d)
        if not (isinstance(base, Action) and base.kind is ActionKind.ATTACK and gun):
            return base
        if t.aim and (in_cover or not t.take_cover) and me.aim is None:
            aim = [o for o in actions if o.kind is ActionKind.AIM and o.target == base.target]
            if aim:
                return aim[0]
        if t.burst:  # RNG-4, RNG-5: the bigger volley the gun allows, at the same target
            for m in _BURSTS:
                for o in actions:
                    if (o.kind is ActionKind.ATTACK and o.maneuver == m and o.target == base.target
                            and o.called is None and not o.offhand):
                        return o
        return base
