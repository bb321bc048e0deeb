"""One registry of everything that can play a combatant, found by name.

Every command that takes a policy (``fight --policy``, ``tournament
--policies``, ``suggest --policy``, ``export-behaviors --policy``, ``ladder``)
and the envs' ``opponents=`` resolve names here, with :func:`maker`:

- engine policies: ``nearest``, ``tactician``, ``random``, ``planner``;
- observation-level agents of :mod:`agents` (``brawler``, ``random_agent``),
  run through :class:`agents.adapter.AgentPolicy`;
- scripted tactics from YAML, one per file of ``configs/tactics/`` by its
  file name (``gunman``), or any tactic file as ``tactic:PATH``
  (:mod:`vtm_sim.policies.playbook`);
- trained policies: ``model:PATH`` (a saved model, :mod:`agents.learned`) and
  ``trained:NAME`` (a policy shipped in ``agents/policies/``);
- the difficulty ladder's rungs, ``ladder:1`` (weakest) to ``ladder:N``
  (``configs/ladder.yaml``, measured by ``vtm-sim ladder``).

The engine must not import ``envs`` or ``agents`` (layering), so entries in
those packages are lazy entry points, ``"module:function"`` strings loaded with
:mod:`importlib` only when the name is asked for (as Gymnasium's registry
does with ``entry_point``). A builder gets the scenario (observation agents
need its action catalog and encoder) and the text after the prefix, and
returns a :data:`PolicyMaker`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from vtm_sim.errors import ConfigError

if TYPE_CHECKING:  # nor numpy nor the engine is needed to list or look up names
    import numpy as np  # (`vtm-sim policies`): builders import what they build

    from vtm_sim.engine.battle import Battle
    from vtm_sim.files.scenarios import Scenario
    from vtm_sim.policies.play import Policy

__all__ = [
    "PolicyMaker",
    "describe",
    "make_policy",
    "maker",
    "names",
    "register",
    "scenario_of",
]

# A battle policy for one combatant (its id), given a generator of its own.
PolicyMaker = Callable[["np.random.Generator", int], "Policy"]
# Builds the makers of one entry for a scenario; the second argument is what follows
# the prefix (``model:PATH`` -> ``PATH``), empty for a plain name.
Builder = Callable[["Scenario", str], PolicyMaker]


@dataclass(frozen=True, slots=True)
class Entry:
    """A registered name: its builder (a function or a lazy ``"module:function"``)."""

    name: str
    target: Builder | str
    summary: str
    prefix: bool = False  # a family: ``name:ARGUMENT``

    def builder(self) -> Builder:
        if not isinstance(self.target, str):
            return self.target
        module, _, attr = self.target.partition(":")
        try:
            fn: Builder = getattr(importlib.import_module(module), attr)
        except (ImportError, AttributeError) as exc:
            raise ConfigError(f"policy {self.name!r}: cannot load {self.target} ({exc})") from None
        return fn


_ENTRIES: dict[str, Entry] = {}


def register(name: str, target: Builder | str, summary: str, *, prefix: bool = False) -> None:
    """Add a name (or, with ``prefix``, a ``name:ARGUMENT`` family) to the registry."""
    if name in _ENTRIES:
        raise ValueError(f"policy {name!r} is already registered")
    _ENTRIES[name] = Entry(name, target, summary, prefix)


def _tactic_files() -> dict[str, Path]:
    from vtm_sim.data.tactic_files import tactic_dir

    return {p.stem: p for p in sorted(tactic_dir().glob("*.yaml"))}


def names() -> list[str]:
    """Every name a policy can be given by: plain names, tactic files, ladder rungs,
    then the families (``model:PATH``, ``tactic:PATH``, ``trained:NAME``)."""
    from vtm_sim.policies.rungs import rungs

    plain = [e.name for e in _ENTRIES.values() if not e.prefix]
    tactics = [n for n in _tactic_files() if n not in _ENTRIES]
    ladder = [f"ladder:{k}" for k in range(1, len(rungs()) + 1)]
    families = [f"{e.name}:{_ARG[e.name]}" for e in _ENTRIES.values() if e.prefix and
                e.name != "ladder"]
    return plain + tactics + ladder + families


_ARG = {"model": "PATH", "tactic": "PATH", "trained": "NAME", "ladder": "N", "planner_at": "N"}


def _unknown(name: str) -> ConfigError:
    return ConfigError(f"unknown policy {name!r} (expected one of {', '.join(names())})")


def _entry(name: str) -> tuple[Entry, str]:
    if name in _ENTRIES and not _ENTRIES[name].prefix:
        return _ENTRIES[name], ""
    head, sep, arg = name.partition(":")
    if sep and head in _ENTRIES and _ENTRIES[head].prefix:
        if not arg:
            raise ConfigError(f"policy {name!r}: expected {head}:{_ARG.get(head, 'ARGUMENT')}")
        return _ENTRIES[head], arg
    if not sep and name in _tactic_files():
        return _ENTRIES["tactic"], str(_tactic_files()[name])
    raise _unknown(name)


def maker(name: str, scenario: Scenario) -> PolicyMaker:
    """The policy maker a name stands for, built for ``scenario``.

    Raises:
        ConfigError: one line, for an unknown name or one that cannot be built
            (a missing model file, a bad tactic file, a rung past the top).
    """
    entry, arg = _entry(name.strip())
    return entry.builder()(scenario, arg)


def make_policy(name: str, scenario: Scenario | str, combatant: int, *, seed: int = 0) -> Policy:
    """The policy ``name`` plays for combatant ``combatant`` of ``scenario`` (a name or
    a loaded :class:`~vtm_sim.files.scenarios.Scenario`), its own draws seeded by ``seed``.

    Raises:
        ConfigError: one line, for an unknown name or one that cannot be built.
    """
    import numpy as np  # numpy loads with the engine, not with `vtm-sim policies`

    from vtm_sim.files.scenarios import load_scenario

    s = load_scenario(scenario) if isinstance(scenario, str) else scenario
    return maker(name, s)(np.random.default_rng(seed), combatant)


def describe(name: str) -> str:
    """One line saying what a name (or a family: ``model``, ``model:PATH``) plays like."""
    head, sep, arg = name.partition(":")
    if head in _ENTRIES and _ENTRIES[head].prefix and (not sep or arg.isupper()):
        return _ENTRIES[head].summary
    entry, arg = _entry(name)
    if entry.name == "ladder":
        from vtm_sim.policies.rungs import rung_name

        return f"rung {arg} of the difficulty ladder: {rung_name(arg)}"
    if entry.name == "tactic":
        from vtm_sim.data.tactic_files import load_tactic

        t = load_tactic(arg)
        return f"{t.name.lower()}: {t.description}" if t.description else t.name
    return entry.summary if not arg else f"{entry.summary} ({arg})"


def scenario_of(battle: Battle, name: str = "battle") -> Scenario:
    """A scenario standing for a battle's setup (for agents that need a catalog)."""
    from vtm_sim.engine.battle import Fighter
    from vtm_sim.files.scenarios import Scenario

    fighters = tuple(Fighter(c.stats, c.side, c.x, c.y) for c in battle.combatants)
    return Scenario(name, name, "", battle.rules, battle.turn_limit, fighters, battle.field,
                    {}, battle.ambush, "")


# --- the built-in entries ------------------------------------------------------------------


def _nearest(_scenario: Scenario, _arg: str) -> PolicyMaker:
    from vtm_sim.policies.nearest import NearestEnemyPolicy

    return lambda _rng, _cid: NearestEnemyPolicy()


def _tactician(_scenario: Scenario, _arg: str) -> PolicyMaker:
    from vtm_sim.policies.tactician import TacticianPolicy

    return lambda _rng, _cid: TacticianPolicy()


def _random(_scenario: Scenario, _arg: str) -> PolicyMaker:
    from vtm_sim.policies.nearest import RandomPolicy

    return lambda rng, _cid: RandomPolicy(rng)


def _planner(scenario: Scenario, _arg: str) -> PolicyMaker:
    from vtm_sim.policies.planner import PLANNER_ROLLOUTS

    return _planner_at(scenario, str(PLANNER_ROLLOUTS))


def _planner_at(scenario: Scenario, arg: str) -> PolicyMaker:
    """``planner_at:N``: the planner as ``planner`` plays it, at N rollouts a duel decision
    instead of the tournament's budget (a cheaper or a stronger opponent; ladder:4 stays
    ``planner``)."""
    from vtm_sim.policies.planner import PlannerPolicy

    if not arg.isdigit() or not 1 <= int(arg) <= 4096:
        raise ConfigError(f"policy 'planner_at:{arg}': expected planner_at:N, N rollouts a "
                          "decision from 1 to 4096")
    n, rollouts = len(scenario.fighters), int(arg)
    return lambda rng, _cid: PlannerPolicy.for_fight(n, rollouts,
                                                     seed=int(rng.integers(2**31)))


def _tactic(_scenario: Scenario, path: str) -> PolicyMaker:
    from vtm_sim.policies.playbook import TacticPolicy, load_tactic

    tactic = load_tactic(path)
    return lambda _rng, _cid: TacticPolicy(tactic)


def _ladder(scenario: Scenario, arg: str) -> PolicyMaker:
    from vtm_sim.policies.rungs import rung_name

    return maker(rung_name(arg), scenario)


register("nearest", _nearest, "attacks the nearest able enemy with its best pool")
register("tactician", _tactician, "picks attacks and defenses by their exact odds")
register("random", _random, "any legal option at random")
register("planner", _planner, "rollouts from clones of the battle, at the tournament budget "
         "(fewer a decision, played on by the tactician, in fights of more than two)")
register("planner_at", _planner_at, "the planner at N rollouts a duel decision (the "
         "tournament's budget: vtm_sim.policies.planner.PLANNER_ROLLOUTS)", prefix=True)
register("brawler", "agents.registered:brawler",
         "the scripted street fighter of agents/ (sees only the env's observation)")
register("random_agent", "agents.registered:random_agent",
         "the random agent of agents/ (any legal action of the env's mask)")
register("tactic", _tactic, "a scripted tactic from a YAML file", prefix=True)
register("model", "agents.registered:model", "a saved trained model", prefix=True)
register("trained", "agents.registered:trained",
         "a trained policy shipped in agents/policies/", prefix=True)
register("ladder", _ladder, "a rung of the difficulty ladder", prefix=True)
