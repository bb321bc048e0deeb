"""Saved battles: rebuilding a :class:`~vtm_sim.engine.battle.Battle` from ``to_state()``.

A saved state holds the setup (sheets, sides, field, rules), every
combatant's changing state, the turn sequence's frames, the pending decision,
the dice stream and, optionally, the log so far. Rebuilding re-asks the
pending decision from the frames and checks it is the one saved, so a state
edited into something the rules would not ask is refused.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from vtm_sim.core.choices import DecisionKind, choice_from_json, shared
from vtm_sim.core.dice import DiceSource, RngDice, dice_from_json
from vtm_sim.data.formats import LOG_VERSION, STATE_FORMAT, STATE_VERSION
from vtm_sim.data.rules import RuleSet
from vtm_sim.data.stat_blocks import StatBlockSpec, build_stat_block
from vtm_sim.data.tables import Tables, load_tables
from vtm_sim.engine.flow import Frame
from vtm_sim.errors import ConfigError, DiceError, ReplayError, StateError
from vtm_sim.events import BattleEvent, EventLog
from vtm_sim.mechanics.combatant import Combatant

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
    from vtm_sim.engine.battle import Battle, field_from_json

    rules = RuleSet.model_validate(data["rules"])
    if dice is None and seed is not None:
        import numpy as np  # here: a saved state's own dice build their generator when drawn

        dice = RngDice(np.random.default_rng(seed))
    elif dice is None:
        dice = dice_from_json(data["dice"])
    b = Battle((), dice=dice, rules=rules, tables=tables, turn_limit=int(data["turn_limit"]),
               field=field_from_json(data["field"]),
               ambush=[(int(a), int(t)) for a, t in data["ambush"]], start=False)
    b.seed = data["seed"] if seed is None else seed
    sheets = data["sheets"]
    cs: list[Combatant] = []
    for n, (sheet, c) in enumerate(zip(sheets, data["combatants"], strict=True)):
        stats = build_stat_block(StatBlockSpec.model_validate(sheet), f"combatants.{n}")
        cs.append(Combatant.from_json(c, stats, tables))
    if [c.id for c in cs] != list(range(len(cs))):
        raise StateError("combatants: ids must be 0, 1, 2, ... in order")
    b.combatants = cs
    b.turn = int(data["turn"])
    b.over = bool(data["over"])
    b.winner = None if data["winner"] is None else int(data["winner"])
    b.end_reason = str(data["end_reason"])
    b.order = [cs[int(i)] for i in data["order"]]
    sur = data["surprise"]
    b._surprise = None if sur is None else (int(sur[0]), int(sur[1]), int(sur[2]),
                                            bool(sur[3]))
    given = data.get("initiative_given")
    b.initiative_given = None if given is None else {int(k): int(v) for k, v in given}
    b.stack = [Frame.from_json(f, tables) for f in data["flow"]]
    if "log" in data:
        b.log = EventLog.from_json(data["log"])
    else:
        b.log = EventLog()
        b.log.emit(BattleEvent.saved(LOG_VERSION, data))  # data itself: see Battle.from_state
    saved = data["pending"]
    if not b.stack:
        if saved is not None:
            raise StateError("pending: a decision is saved but the battle is over")
        return b
    if saved is None:
        raise StateError("pending: missing (the battle is not over)")
    pending = b.ask(b.stack[-1])
    kind = DecisionKind(saved["kind"])
    options = tuple(shared(choice_from_json(kind, o)) for o in saved["options"])
    if pending.kind is not kind or pending.actor != int(saved["actor"]) or (
        pending.options != options
    ):
        raise StateError(
            f"pending: the saved {kind.value} decision of combatant {saved['actor']} is not "
            f"what the rules ask here ({pending.kind.value} of {pending.actor})"
        )
    b.pending = pending
    return b
