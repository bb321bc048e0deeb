"""Tournaments: policies play scenarios' sides against each other, seed by seed.

Every pairing of two different policies plays the same seeded battles on
every seat: policy A on one side and policy B on the others, then the other
way round. A policy against itself plays them once (what a seat is worth).
Battle ``k`` of a scenario has seed ``seed + k`` in every pairing, so a
difference in the table is a difference in play, not in dice. Battles are
independent tasks named by (scenario, index, seats): any number of workers,
in any order, plays the same battles into the same records
(:mod:`vtm_sim.arena.results` sums them up; :mod:`vtm_sim.arena.run_dirs` keeps them).

Workers get policy *names*, the scenario and a resolver (a module-level
function, so it pickles by name): they build the policies themselves.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterable, Iterator, Mapping, Sequence
from contextlib import closing
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from vtm_sim.errors import ConfigError
from vtm_sim.events.damage import DamageEvent
from vtm_sim.files.scenarios import Scenario, load_scenario
from vtm_sim.policies.play import play
from vtm_sim.policies.registry import PolicyMaker

if TYPE_CHECKING:
    from vtm_sim.engine.battle import Battle

CHUNK = 10  # battles a worker plays per task: a kill loses little, and the last planner
# chunks leave the other workers idle for a few seconds at most


# Turns a policy name into a maker for one scenario; raises ConfigError for an unknown name.
Resolver = Callable[[str, Scenario], PolicyMaker]
# (scenario name, battle index, the policy on each side in side order)
BattleKey = tuple[str, int, tuple[str, ...]]


@dataclass(frozen=True, slots=True)
class Setup:
    """What a tournament is: the arguments that decide every battle and record."""

    scenarios: tuple[str, ...]  # as named on the command line (a name or a file)
    policies: tuple[str, ...]
    battles: int  # per pairing and seat
    seed: int  # battle k has seed ``seed + k``

    def to_json(self) -> dict[str, Any]:
        return {"scenarios": list(self.scenarios), "policies": list(self.policies),
                "battles": self.battles, "seed": self.seed}


def sides(scenario: Scenario) -> list[int]:
    return sorted({f.side for f in scenario.fighters})


def seeded_battle(scenario: Scenario, makers: Mapping[int, PolicyMaker], seed: int) -> Battle:
    """Battle ``seed`` of ``scenario``, played to its end: the one seeding convention.

    The battle's dice are seeded ``seed``; every combatant's policy is made, in
    combatant order, by its side's maker (``makers[side]``) from one generator
    seeded ``[seed, 7]``. Tournaments, the ladder, the balance tier of ``vtm-sim
    regress``, evaluations and the experiments all play their battles here, so
    the same seed and policies are the same battle in each of them.
    """
    rng = np.random.default_rng([seed, 7])
    pols = [makers[f.side](rng, i) for i, f in enumerate(scenario.fighters)]
    return play(scenario.battle(seed=seed), pols)


def pairings(policies: Sequence[str]) -> list[tuple[str, str]]:
    """Every pair of policies, each with itself too, in the order given."""
    return [(a, b) for i, a in enumerate(policies) for b in policies[i:]]


def seatings(a: str, b: str, side_list: Sequence[int]) -> list[tuple[str, ...]]:
    """The policy on each side: A on each side in turn and B on the others (once if A is B)."""
    if a == b:
        return [tuple(a for _ in side_list)]
    return [tuple(a if s == seat else b for s in side_list) for seat in side_list]


def check_setup(setup: Setup, scenarios: Sequence[Scenario], resolver: Resolver) -> None:
    """Refuse what cannot run: no or repeated policies, repeated scenarios, unknown names."""
    if not setup.policies:
        raise ConfigError("--policies: expected at least one policy name")
    for name in setup.policies:
        if setup.policies.count(name) > 1:
            raise ConfigError(f"--policies: {name!r} is named twice")
    names = [sc.name for sc in scenarios]
    for sc in scenarios:
        if names.count(sc.name) > 1:
            raise ConfigError(f"SCENARIO: {sc.name!r} is named twice")
        if len(sides(sc)) != 2:
            raise ConfigError(f"SCENARIO: {sc.name} has {len(sides(sc))} sides; a tournament "
                              "needs exactly two")
        for name in setup.policies:
            _maker(resolver, name, sc)


@dataclass(frozen=True, slots=True)
class Chunk:
    """A worker's task: consecutive battles of one seating in one scenario.

    The scenario travels as its file (``Scenario.source``) and each worker loads it
    once: plain strings pickle the same in every build, where the compiled build's
    frozen dataclasses do not unpickle."""

    scenario_file: str
    policies: tuple[str, str]  # the pairing
    seats: tuple[str, ...]  # the policy on each side, in side order
    first_seed: int  # the tournament's seed: battle k has seed first_seed + k
    indices: tuple[int, ...]
    resolver: Resolver


_MAKERS: dict[tuple[str, str, str, str, str], PolicyMaker] = {}


def _maker(resolver: Resolver, name: str, scenario: Scenario) -> PolicyMaker:
    """A worker's makers, built once per process (a learned model loads once)."""
    key = (resolver.__module__, resolver.__qualname__, name, scenario.name, scenario.source)
    if key not in _MAKERS:
        _MAKERS[key] = resolver(name, scenario)
    return _MAKERS[key]


_SCENARIOS: dict[str, Scenario] = {}


def _scenario(source: str) -> Scenario:
    """A worker's scenarios, loaded once per process."""
    if source not in _SCENARIOS:
        _SCENARIOS[source] = load_scenario(source)
    return _SCENARIOS[source]


def play_chunk(chunk: Chunk) -> list[dict[str, Any]]:
    """Play a chunk's battles: one record each (what ``battles.jsonl`` holds)."""
    sc = _scenario(chunk.scenario_file)
    side_list = sides(sc)
    makers = {s: _maker(chunk.resolver, p, sc) for s, p in zip(side_list, chunk.seats, strict=True)}
    side_of = [f.side for f in sc.fighters]
    out = []
    for k in chunk.indices:
        seed = chunk.first_seed + k
        battle = seeded_battle(sc, makers, seed)
        taken = dict.fromkeys(side_list, 0)
        for e in battle.log.events:
            if isinstance(e, DamageEvent):
                taken[side_of[e.who]] += e.levels
        total = sum(taken.values())
        out.append({
            "scenario": sc.name, "index": k, "seed": seed, "policies": list(chunk.policies),
            "seats": {str(s): p for s, p in zip(side_list, chunk.seats, strict=True)},
            "winner": battle.winner, "turns": battle.turn,
            "levels_dealt": {str(s): total - taken[s] for s in side_list},
            "log_sha256": battle.log.sha256(),
        })
    return out


# wins, draws and losses of a pairing's first policy, by the side it played
SeatCounts = dict[int, list[int]]


def seat_results(
    scenario: Scenario, pairs: Sequence[tuple[str, str]], *, battles: Callable[[str, str], int],
    seed: int, resolver: Resolver, backend: Backend | None = None,
    progress: Callable[[int], None] | None = None,
) -> dict[tuple[str, str], SeatCounts]:
    """Each pair ``(a, b)`` as a tournament plays it (:func:`seatings`): ``a`` on each side
    in turn, ``b`` on the others, ``battles(a, b)`` seeds a seat, every battle a chunk's
    (:func:`play_chunk`), so ``backend`` decides only where they run. A policy against
    itself plays each seed once, scored for every side. The ladder's round robin and
    ``vtm-sim evaluate`` count their battles here."""
    side_list = sides(scenario)
    tasks = []
    for a, b in pairs:
        n = battles(a, b)
        for start in range(0, n, CHUNK):
            indices = tuple(range(start, min(start + CHUNK, n)))
            tasks += [Chunk(scenario.source, (a, b), seats, seed, indices, resolver)
                      for seats in seatings(a, b, side_list)]
    counts = {(pair, side): [0, 0, 0] for pair in pairs for side in side_list}
    with closing(_run(backend, tasks)) as finished:
        for records in finished:
            for r in records:
                a, b = r["policies"]
                mine = [int(k) for k, name in r["seats"].items() if name == a]
                for side in mine if a == b else mine[:1]:
                    c = counts[((a, b), side)]
                    c[1 if r["winner"] is None else 0 if r["winner"] == side else 2] += 1
            if progress is not None:
                progress(len(records))
    return {pair: {side: counts[(pair, side)] for side in side_list} for pair in pairs}


def record_key(record: dict[str, Any]) -> BattleKey:
    seats = record["seats"]
    return (record["scenario"], record["index"],
            tuple(seats[k] for k in sorted(seats, key=int)))


def battle_order(setup: Setup, scenarios: Sequence[Scenario]) -> dict[BattleKey, int]:
    """Every battle of the tournament, numbered in its canonical order.

    Index outermost (then pairing, then seat): ratings are updated in this
    order whatever order the battles finished in.
    """
    order: dict[BattleKey, int] = {}
    for sc in scenarios:
        seating = [s for a, b in pairings(setup.policies) for s in seatings(a, b, sides(sc))]
        for k in range(setup.battles):
            for seats in seating:
                order[(sc.name, k, seats)] = len(order)
    return order


def chunks(setup: Setup, scenarios: Sequence[Scenario], resolver: Resolver,
           done: Iterable[BattleKey] = (), size: int = CHUNK) -> list[Chunk]:
    """The battles still to play, ``size`` to a task, early indices first."""
    finished = set(done)
    out: list[Chunk] = []
    for start in range(0, setup.battles, size):
        for sc in scenarios:
            for a, b in pairings(setup.policies):
                for seats in seatings(a, b, sides(sc)):
                    todo = tuple(k for k in range(start, min(start + size, setup.battles))
                                 if (sc.name, k, seats) not in finished)
                    if todo:
                        out.append(Chunk(sc.source, (a, b), seats, setup.seed, todo, resolver))
    return out


class Backend(Protocol):
    """Runs chunks somewhere and yields each one's records as it finishes."""

    def run(self, fn: Callable[[Chunk], list[dict[str, Any]]],
            tasks: Sequence[Chunk]) -> Iterator[list[dict[str, Any]]]: ...


class InProcess:
    """The backend of ``--jobs 1``: every chunk in this process, in order."""

    def run(self, fn: Callable[[Chunk], list[dict[str, Any]]],
            tasks: Sequence[Chunk]) -> Iterator[list[dict[str, Any]]]:
        for t in tasks:
            yield fn(t)


def play_all(setup: Setup, scenarios: Sequence[Scenario], resolver: Resolver, *,
             backend: Backend | None = None, done: Iterable[BattleKey] = (),
             on_records: Callable[[list[dict[str, Any]]], None] | None = None,
             ) -> list[dict[str, Any]]:
    """Play every battle not in ``done``; returns the new records as they finished.

    ``on_records`` sees each finished chunk's records first (the CLI appends
    them to ``battles.jsonl`` and moves the progress bar).
    """
    check_setup(setup, scenarios, resolver)
    tasks = chunks(setup, scenarios, resolver, done)
    out: list[dict[str, Any]] = []
    with closing(_run(backend, tasks)) as finished:
        for records in finished:
            if on_records is not None:
                on_records(records)
            out.extend(records)
    return out


def _run(backend: Backend | None,
         tasks: Sequence[Chunk]) -> Generator[list[dict[str, Any]], None, None]:
    """The chunks' records as ``backend`` plays them, as a generator the caller closes at
    once when it stops early (an error, Ctrl-C), so the backend stops its workers then
    and not when the interpreter exits."""
    yield from (backend or InProcess()).run(play_chunk, tasks)


def total_battles(setup: Setup, scenarios: Sequence[Scenario]) -> int:
    return len(battle_order(setup, scenarios))
