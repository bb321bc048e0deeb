"""A combatant of a battle by the name a person types (``--npc`` everywhere, and a name
given with ``--state``): its label (``Name#2`` where names repeat), its name, its
``short`` name or the name before a comma, or a unique prefix of any, whatever the case
(:func:`vtm_sim.core.names.find_named`)."""

from __future__ import annotations

from vtm_sim.core.names import Named, aliases_of, find_named
from vtm_sim.engine.battle import Battle
from vtm_sim.files.state_files import labels

__all__ = ["find_combatant"]


def find_combatant(battle: Battle, name: str, where: str = "--npc") -> int:
    """A combatant's id by name; a one-line ConfigError (``where: ...``) otherwise: none
    (with "did you mean ...?"), or several (listing them)."""
    cs = battle.combatants
    written = labels([c.name for c in cs])
    return find_named(name, [
        Named(lb, tuple(dict.fromkeys(
            x for x in (c.name, *aliases_of(c.name, c.stats.short)) if x != lb)))
        for lb, c in zip(written, cs, strict=True)
    ], "combatant", where)
