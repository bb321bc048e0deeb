"""Scripted agents: readable rules of thumb over the env's action catalog."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from agents.base import legal_indices
from envs.actions import ActionCatalog
from envs.observation import DISTANCE_BANDS, OTHER, SELF, ObservationEncoder
from vtm_sim.core.choices import (
    Action,
    ActionKind,
    BloodSpend,
    BloodUse,
    Choice,
    Declaration,
    Defense,
    DefenseKind,
)
from vtm_sim.core.maneuvers import Maneuver, WeaponUse

__all__ = ["BrawlerAgent", "RandomAgent", "maneuver_ranks"]

# Preferred weapons, best first: the one in hand (a blade, autofire, a shot, a throw),
# then claws, then bare hands.
WEAPON_PREFERENCE = (
    WeaponUse.MELEE,
    WeaponUse.AUTOFIRE,
    WeaponUse.SHOOTING,
    WeaponUse.THROWN,
    WeaponUse.CLAWS,
    WeaponUse.UNARMED,
)
DEFENSE_PREFERENCE = (DefenseKind.PARRY, DefenseKind.DODGE, DefenseKind.BLOCK)
_BAND_START = OTHER.features.index("band_0")
_ENEMY = OTHER.features.index("enemy")
_PRESENT = OTHER.features.index("present")
_HEALTH = SELF.features.index("health")


def maneuver_ranks(maneuvers: Mapping[str, Maneuver]) -> dict[str, int]:
    """The brawler's order of maneuvers, best first (0).

    Plain blows first (no effect, no area): by ``WEAPON_PREFERENCE``, then the
    most accurate, then the easiest; then every other maneuver, in table order.
    """

    def key(item: tuple[int, Maneuver]) -> tuple[int, int, int, int, int]:
        i, spec = item
        if spec.effect is None and spec.area == 0 and spec.weapon in WEAPON_PREFERENCE:
            return (0, WEAPON_PREFERENCE.index(spec.weapon), -spec.accuracy, spec.difficulty, i)
        return (1, 0, 0, 0, i)

    ordered = sorted(enumerate(maneuvers.values()), key=key)
    return {spec.name: rank for rank, (_, spec) in enumerate(ordered)}


class RandomAgent:
    """Uniformly random legal actions from its own seeded generator."""

    def __init__(self, seed: int | np.random.Generator = 0) -> None:
        self.rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)

    def act(self, observation: Any, mask: np.ndarray) -> int:
        idx = legal_indices(mask)
        return int(idx[self.rng.integers(idx.size)])

    def explain(self) -> str:
        return "picks any legal action at random"


class BrawlerAgent:
    """Rules of thumb of a street fighter.

    Declares one action (with every Celerity action on offer), strikes the
    nearest enemy with its best maneuver (weapon first, never a called shot),
    reloads an empty gun, gets up when down, closes in when nothing reaches,
    defends when it costs nothing (parry, dodge, block), heals one level with
    blood when hurt.

    Args:
        catalog: the env's action catalog (``env.unwrapped.catalog``).
        encoder: the env's observation encoder (``env.unwrapped.encoder``).
        agent_id: the combatant the agent plays (rows of ``others`` skip it).
    """

    def __init__(self, catalog: ActionCatalog, encoder: ObservationEncoder, agent_id: int) -> None:
        self.catalog = catalog
        self.encoder = encoder
        self.agent_id = agent_id
        self._maneuver_rank = maneuver_ranks(catalog.maneuvers)

    @classmethod
    def for_env(cls, env: Any, agent_id: int | None = None) -> BrawlerAgent:
        """Build one for a (possibly wrapped) env of :mod:`envs`."""
        base = env.unwrapped
        aid = agent_id if agent_id is not None else getattr(base, "agent_id", 0)
        return cls(base.catalog, base.encoder, aid)

    def explain(self) -> str:
        return (
            "strikes the nearest enemy with its best weapon, closes in when out of reach, "
            "defends when it is free, heals when hurt"
        )

    def act(self, observation: Any, mask: np.ndarray) -> int:
        idx = legal_indices(mask)
        if idx.size == 1:
            return int(idx[0])
        choices = self.catalog.choices
        legal = [(int(i), choices[i]) for i in idx if i < self.catalog.size]
        view = self._view(observation)
        ranks = self._distance_ranks(view["others"])
        hurt = bool(view["self"][_HEALTH] > 0)
        best = min(legal, key=lambda ic: self._score(ic[1], ranks, hurt))
        return best[0]

    def _view(self, observation: Any) -> dict[str, np.ndarray]:
        obs = observation
        if isinstance(obs, dict) and "observation" in obs:  # the PettingZoo form
            obs = obs["observation"]
        if isinstance(obs, dict):
            return obs
        return self.encoder.split(np.asarray(obs))

    def _distance_ranks(self, others: np.ndarray) -> dict[int, int]:
        """Combatant id -> distance band, for enemies still standing."""
        ids = [i for i in range(self.encoder.num_combatants) if i != self.agent_id]
        out: dict[int, int] = {}
        for cid, row in zip(ids, others, strict=True):
            if row[_PRESENT] > 0 and row[_ENEMY] > 0:
                bands = row[_BAND_START : _BAND_START + len(DISTANCE_BANDS) + 1]
                out[cid] = int(np.argmax(bands))
        return out

    def _score(self, c: Choice, ranks: dict[int, int], hurt: bool) -> tuple[int, int, int]:
        """Lower is better: (priority, distance, detail)."""
        far = len(DISTANCE_BANDS) + 1
        if isinstance(c, Declaration):
            plain = c.actions == 1 and not c.full_defense and not c.willpower
            return (0 if plain else 9, -c.celerity, 0)
        if isinstance(c, Defense):
            if c.abort is not None:
                return (9, 0, 0)
            if c.kind in DEFENSE_PREFERENCE:
                return (0, DEFENSE_PREFERENCE.index(c.kind), 0)
            return (5, 0, 0)
        if isinstance(c, BloodSpend):
            if c.use is BloodUse.HEAL and c.points == 1 and hurt:
                return (0, 0, 0)
            return (1 if c.use is BloodUse.NONE else 9, c.points, 0)
        return self._score_action(c, ranks, far)

    def _score_action(self, a: Action, ranks: dict[int, int], far: int) -> tuple[int, int, int]:
        dist = ranks.get(a.target, far) if a.target is not None else far
        if a.kind is ActionKind.ATTACK:
            if a.called is not None or a.offhand or a.target not in ranks:
                return (8, dist, 0)
            return (0, dist, self._maneuver_rank.get(a.maneuver or "", 99))
        order = {
            ActionKind.RELOAD: 1,
            ActionKind.CLEAR: 1,
            ActionKind.GET_UP: 2,
            ActionKind.BREAK_FREE: 3,
        }
        if a.kind in order:
            return (order[a.kind], 0, 0)
        if a.kind is ActionKind.MOVE and not a.away and a.target in ranks:
            return (4, dist, 0)
        if a.kind is ActionKind.PURSUE and a.target in ranks:
            return (5, dist, 0)  # MOVE-4: nothing better to do: run after a fleeing enemy
        if a.kind is ActionKind.PASS:
            return (6, 0, 0)
        return (7, 0, 0)
