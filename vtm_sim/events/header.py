"""The first event of a log: a ``battle`` header, or an ``exchange`` one for a single attack.

Headers carry JSON-shaped setup (rules, field, stat sheets, a saved state): the
event keeps what it is given (the emit site passes data nothing else changes) and
:meth:`~vtm_sim.events.event.Event.to_json` hands out deep copies.
"""

from __future__ import annotations

from typing import Any, ClassVar

from vtm_sim.events.event import (
    Event,
    EventKind,
    copy_json,
    dict_of,
    int_of,
    list_of,
    opt_int_of,
)


# Slotted with their own __init__, read-only by convention (see vtm_sim.events.event).
class BattleEvent(Event):
    """The setup needed to replay a battle (``vtm_sim.files.replay``), or a saved state.

    A battle begun by :meth:`vtm_sim.engine.battle.Battle.begin` writes ``version``,
    ``seed`` (may be None), ``rules``, ``turn_limit``, ``field``, ``ambush``
    ((attacker, target) pairs), ``combatants`` (id, side, position and sheet
    each) and, for a battle set from a state file, ``standing``. A log begun
    from a saved state (:meth:`vtm_sim.engine.battle.Battle.from_state` without a log)
    writes only ``version`` and ``state``: the state holds the setup, and the
    setup fields are None.
    """

    __slots__ = ("ambush", "combatants", "field", "rules", "seed", "standing", "state",
                 "turn_limit", "version")
    e: ClassVar[EventKind] = EventKind.BATTLE
    KEYS: ClassVar[frozenset[str]] = frozenset(
        ("e", "version", "seed", "rules", "turn_limit", "field", "ambush", "combatants",
         "standing", "state"))

    version: int
    seed: int | None
    rules: dict[str, Any] | None
    turn_limit: int | None
    field: dict[str, Any] | None
    ambush: tuple[tuple[int, int], ...]
    combatants: tuple[dict[str, Any], ...]
    standing: dict[str, Any] | None
    state: dict[str, Any] | None

    def __init__(self, version: int, seed: int | None, rules: dict[str, Any] | None,
                 turn_limit: int | None, field: dict[str, Any] | None,
                 ambush: tuple[tuple[int, int], ...], combatants: tuple[dict[str, Any], ...],
                 standing: dict[str, Any] | None = None,
                 state: dict[str, Any] | None = None) -> None:
        self.version = version
        self.seed = seed
        self.rules = rules
        self.turn_limit = turn_limit
        self.field = field
        self.ambush = ambush
        self.combatants = combatants
        self.standing = standing
        self.state = state

    @staticmethod
    def saved(version: int, state: dict[str, Any]) -> BattleEvent:
        """The header of a log begun from a saved state."""
        return BattleEvent(version, None, None, None, None, (), (), None, state)

    def to_json(self) -> dict[str, Any]:
        if self.state is not None:
            return {"e": EventKind.BATTLE, "version": self.version,
                    "state": copy_json(self.state)}
        d: dict[str, Any] = {
            "e": EventKind.BATTLE, "version": self.version, "seed": self.seed,
            "rules": copy_json(self.rules), "turn_limit": self.turn_limit,
            "field": copy_json(self.field), "ambush": [[a, t] for a, t in self.ambush],
            "combatants": copy_json(self.combatants),
        }
        if self.standing is not None:
            d["standing"] = copy_json(self.standing)
        return d

    @staticmethod
    def from_json(d: dict[str, Any]) -> BattleEvent:
        version = int_of(d, "version")
        if "state" in d:
            extra = sorted(set(d) - {"e", "version", "state"})
            if extra:
                raise ValueError(f"a saved-state header has no {', '.join(map(repr, extra))}")
            return BattleEvent.saved(version, dict_of(d, "state"))
        ambush = []
        for pair in list_of(d, "ambush"):
            if type(pair) is not list or len(pair) != 2 or not all(
                type(x) is int for x in pair
            ):
                raise TypeError(f"'ambush' must hold [attacker, target] pairs, not {pair!r}")
            ambush.append((pair[0], pair[1]))
        return BattleEvent(
            version, opt_int_of(d, "seed"), dict_of(d, "rules"), int_of(d, "turn_limit"),
            dict_of(d, "field"), tuple(ambush), _combatants(d),
            dict_of(d, "standing") if "standing" in d else None,
        )


class ExchangeEvent(Event):
    """A single attack outside a battle (:mod:`vtm_sim.engine.exchange`): the rules and the
    two sides (id, side, position and sheet each)."""

    __slots__ = ("combatants", "rules")
    e: ClassVar[EventKind] = EventKind.EXCHANGE
    KEYS: ClassVar[frozenset[str]] = frozenset(("e", "rules", "combatants"))

    rules: dict[str, Any]
    combatants: tuple[dict[str, Any], ...]

    def __init__(self, rules: dict[str, Any], combatants: tuple[dict[str, Any], ...]) -> None:
        self.rules = rules
        self.combatants = combatants

    def to_json(self) -> dict[str, Any]:
        return {"e": EventKind.EXCHANGE, "rules": copy_json(self.rules),
                "combatants": copy_json(self.combatants)}

    @staticmethod
    def from_json(d: dict[str, Any]) -> ExchangeEvent:
        return ExchangeEvent(dict_of(d, "rules"), _combatants(d))


def _combatants(d: dict[str, Any]) -> tuple[dict[str, Any], ...]:
    cs = list_of(d, "combatants")
    for c in cs:
        if type(c) is not dict:
            raise TypeError(f"'combatants' must hold objects, not {c!r}")
    return tuple(cs)
