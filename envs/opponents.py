"""Who answers the decisions of combatants that are not learning agents.

An opponent is given as any of:

- a policy object with ``choose(battle, decision) -> Choice`` (used as is);
- a callable ``(battle, decision) -> Choice`` (used as is);
- a policy class, instantiated at every reset: with a generator derived
  from the env's ``np_random`` if its constructor takes an argument
  (``RandomPolicy``), else with none (``NearestEnemyPolicy``);
- a name of :mod:`vtm_sim.policies.registry` (``vtm-sim policies``): ``"nearest"``
  (:class:`~vtm_sim.policies.nearest.NearestEnemyPolicy`), ``"tactician"`` (by exact
  odds), ``"random"`` (env-seeded), ``"planner"``, ``"brawler"``, a tactic
  such as ``"gunman"``, a ladder rung ``"ladder:3"``, ``"model:PATH"``, ...;
- a dict combatant id -> any of the above (ids not in it get ``"nearest"``).

Give a class or a name, not an instance, for a random policy whose dice
should follow ``reset(seed=...)``.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Mapping

import numpy as np

from vtm_sim.core.choices import Choice, Decision
from vtm_sim.engine.battle import Battle
from vtm_sim.errors import ConfigError
from vtm_sim.files.scenarios import Scenario
from vtm_sim.policies import registry
from vtm_sim.policies.play import Policy

__all__ = ["OpponentSpec", "PolicyFn", "build_policies", "opponent_factories"]

PolicyFn = Callable[[Battle, Decision], Choice]

OneOpponent = str | type | Policy | PolicyFn
OpponentSpec = OneOpponent | Mapping[int, OneOpponent] | None
# A factory gets a maker of its episode's generator: it is derived only when wanted.
Factory = Callable[[Callable[[], np.random.Generator]], PolicyFn]


def _wants_rng(cls: type) -> bool:
    try:
        params = inspect.signature(cls).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(
        p.default is inspect.Parameter.empty
        and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        for p in params
    )


def _as_fn(obj: object) -> PolicyFn:
    choose = getattr(obj, "choose", None)  # a Policy (checked by attribute: cheap)
    if callable(choose):
        fn_: PolicyFn = choose
        return fn_
    if callable(obj):
        fn: PolicyFn = obj
        return fn
    raise TypeError(f"opponent {obj!r}: expected a policy with choose(battle, decision)")


def _factory(spec: OneOpponent, cid: int, scenario: Scenario) -> Factory:
    if isinstance(spec, str):
        try:
            make = registry.maker(spec, scenario)
        except ConfigError as exc:
            raise ConfigError(f"opponents: {exc}") from None
        return lambda rng: _as_fn(make(rng(), cid))
    if isinstance(spec, type):
        cls = spec
        if _wants_rng(cls):
            return lambda rng: _as_fn(cls(rng()))
        return lambda _rng: _as_fn(cls())
    fn = _as_fn(spec)
    return lambda _rng: fn


def opponent_factories(
    spec: OpponentSpec, ids: Iterable[int], scenario: Scenario
) -> dict[int, Factory]:
    """One policy factory per combatant id in ``ids`` (checked now, built at reset)."""
    if spec is None:
        spec = "nearest"
    if isinstance(spec, Mapping):
        return {i: _factory(spec.get(i, "nearest"), i, scenario) for i in ids}
    return {i: _factory(spec, i, scenario) for i in ids}


def build_policies(
    factories: Mapping[int, Factory], rng: np.random.Generator
) -> dict[int, PolicyFn]:
    """Fresh policies for one episode; each gets its own generator derived from ``rng``."""
    seed = int(rng.integers(0, 2**63 - 1))

    def maker(i: int) -> Callable[[], np.random.Generator]:
        return lambda: np.random.default_rng([seed, i])

    return {i: f(maker(i)) for i, f in factories.items()}
