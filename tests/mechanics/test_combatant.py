"""Combatant.copy(): every field copied by name, no mutable one shared."""

from __future__ import annotations

import dataclasses
from typing import Any

from vtm_sim.core.health import HealthTrack, Status
from vtm_sim.core.relations import Aim, Chase, Grip, GripKind
from vtm_sim.data.tables import DamageType, load_tables
from vtm_sim.files.scenarios import load_scenario
from vtm_sim.mechanics.combatant import Combatant

# what a copy must not share: copied, each, into a new object
MUTABLE = {"health", "ammo", "attr_bonus", "jammed", "lost", "grapple_turn", "shots"}


def _distinct(c: Combatant) -> None:
    """Give every field a value of its own, unlike a new combatant's."""
    for n, f in enumerate(dataclasses.fields(Combatant)):
        value: Any = getattr(c, f.name)
        if f.name in ("id", "stats", "side", "health"):
            continue
        if isinstance(value, bool):
            new: Any = not value
        elif isinstance(value, int | float) or (value is None and f.name == "sim_penalty"):
            new = 1000 + n
        elif isinstance(value, list):
            new = [*value, value[0] if value else 7]
        elif isinstance(value, dict):
            new = {**value, 90 + n: n}
        elif isinstance(value, tuple):
            new = (0.6, 0.8)
        elif f.name == "aim":
            new = Aim(1, 2, 3)
        elif f.name == "grip":
            new = Grip(GripKind.CLINCH, c.id, 1, 2)
        elif f.name == "chase":
            new = Chase(4, 8.0, 2)
        else:
            raise AssertionError(f"no distinct value for Combatant.{f.name}: add one here")
        setattr(c, f.name, new)
    c.health.lethal = 2
    c.health.status = Status.INCAPACITATED
    c.health.resync()


def test_a_copy_has_every_field_and_shares_no_mutable_one() -> None:
    tables = load_tables()
    stats = load_scenario("gunfight").fighters[0].stats
    c = Combatant.create(3, stats, 1, tables, 2.0, 5.0)
    _distinct(c)
    d = c.copy()
    for f in dataclasses.fields(Combatant):
        mine, theirs = getattr(c, f.name), getattr(d, f.name)
        if isinstance(mine, HealthTrack):
            assert (theirs.bashing, theirs.lethal, theirs.aggravated, theirs.status,
                    theirs.filled, theirs.penalty, theirs.levels) == (
                mine.bashing, mine.lethal, mine.aggravated, mine.status, mine.filled,
                mine.penalty, mine.levels), f.name
        else:
            assert theirs == mine, f.name
        if f.name in MUTABLE:
            assert theirs is not mine, f"Combatant.copy shares its {f.name}"
        elif f.name != "stats":
            assert not isinstance(mine, list | dict | set | HealthTrack), (
                f"Combatant.{f.name} is mutable: copy it in Combatant.copy and list it here")
    assert d == c
    # and changing the copy leaves the original alone
    d.health.take(1, DamageType.BASHING)
    d.ammo[0] += 1
    d.attr_bonus["strength"] = 9
    d.jammed[0] = not d.jammed[0]
    d.lost[0] = not d.lost[0]
    d.grapple_turn[5] = 5
    d.shots[5] = 5
    assert d != c and c.health.bashing == 0 and "strength" not in c.attr_bonus
    assert 5 not in c.grapple_turn and 5 not in c.shots
