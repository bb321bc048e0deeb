"""Saved battles: rebuilding a :class:`~vtm_sim.engine.battle.Battle` from ``to_state()``.

A saved state holds the setup (sheets, sides, field, rules), every
combatant's changing state, the turn sequence's frames, the pending decision,
the dice stream and, optionally, the log so far. Rebuilding re-asks the
pending decision from the frames and checks it is the one saved, so a state
edited into something the rules would not ask is refused.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from vtm_sim.core.dice import DiceSource
from vtm_sim.data.formats import STATE_FORMAT, STATE_VERSION
from vtm_sim.data.tables import Tables, load_tables
from vtm_sim.errors import ConfigError, DiceError, ReplayError, StateError

if TYPE_CHECKING:
    from vtm_sim.engine.battle import Battle


def battle_from_state(data: dict[str, Any], *, seed: int | None = None,
                      dice: DiceSource | None = None,
                      tables: Tables | None = None) -> Battle:
    """See :meth:`Battle.from_state`."""
    if not isinstance(data, dict) or data.get("format") != STATE_FORMAT:
        raise StateError(f"not a saved battle state (expected \"format\": \"{STATE_FORMAT}\")")
    if data.get("version") != STATE_VERSION:
        raise StateError(f"version: {data.get('version')!r} (expected {STATE_VERSION})")
    try:
        return _rebuild(data, seed, dice, tables or load_tables())
    except StateError:
        raise
    except (ConfigError, DiceError, ReplayError) as exc:
        raise StateError(f"saved state: {exc}") from None
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
        raise StateError(f"saved state is malformed: {type(exc).__name__}: {exc}") from None


def _rebuild(data: dict[str, Any], seed: int | None, dice: DiceSource | None,
             tables: Tables) -> Battle:
    """Every part of the state as vtm_sim.engine.battle.STATE says: Battle's arguments
    first, then the rest in order."""
    from vtm_sim.engine.battle import STATE, Battle, Loading

    ld = Loading(data, tables, seed, dice, None)
    args: dict[str, Any] = {}
    for part in STATE:
        if part.arg and part.key is not None:
            value = data[part.key]
            args[part.attr] = value if part.load is None else part.load(value, ld)
    b = Battle((), tables=tables, start=False, **args)
    ld = Loading(data, tables, seed, dice, b)
    for part in STATE:
        if part.arg or part.key is None or not part.attr:
            continue
        value = data.get(part.key) if part.optional else data[part.key]
        setattr(b, part.attr, value if part.load is None else part.load(value, ld))
    return b
