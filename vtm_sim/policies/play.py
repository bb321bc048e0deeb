"""Running battles with policies: the loop the CLI and benchmarks use."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from vtm_sim.core.choices import Choice, Decision
from vtm_sim.data.rules import RuleSet
from vtm_sim.engine.battle import Battle, Fighter
from vtm_sim.policies.nearest import NearestEnemyPolicy


class Policy(Protocol):
    def choose(self, battle: Battle, decision: Decision) -> Choice: ...


def play(battle: Battle, policies: Sequence[Policy] | None = None) -> Battle:
    """Drive ``battle`` to its end; ``policies[i]`` decides for combatant i."""
    default = NearestEnemyPolicy()
    pols = list(policies) if policies is not None else []
    while battle.pending is not None:
        d = battle.pending
        pol = pols[d.actor] if d.actor < len(pols) else default
        battle.choose(pol.choose(battle, d))
    return battle


def fight(
    fighters: Sequence[Fighter], *, seed: int, rules: RuleSet | None = None,
    turn_limit: int = 20, policies: Sequence[Policy] | None = None,
) -> Battle:
    """A whole seeded battle with the built-in policy (or the given ones)."""
    return play(Battle(fighters, seed=seed, rules=rules, turn_limit=turn_limit), policies)
