"""Relations between combatants: grips (clinch, hold, feeding) and aims, as small values.

A grip is one frozen object that both partners point to (MAN-6 clinch, MAN-7
hold, MAN-9 feeding), so the two sides of it can never disagree; an aim is
the shooter's (RNG-7). Both are replaced, never changed, so battle copies
share them. The combatant's ``clinch_with``, ``holding``, ``held_by``,
``feeding_on``, ``fed_on_by`` and ``aim_*`` read them (-1 or 0 for none).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from vtm_sim.symbol import Symbol


class GripKind(Symbol):
    CLINCH = "clinch"  # MAN-6: both grapple
    HOLD = "hold"  # MAN-7: the holder pins the victim
    FEED = "feed"  # MAN-9: the holder drinks from the victim


@dataclass(frozen=True, slots=True)
class Grip:
    kind: GripKind
    holder: int  # who made it: the clincher, the holder, the one feeding
    victim: int  # the other partner
    since: int  # the turn it began

    def partner(self, cid: int) -> int:
        return self.victim if cid == self.holder else self.holder

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind.value, "holder": self.holder, "victim": self.victim,
                "since": self.since}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Grip:
        return cls(GripKind(data["kind"]), int(data["holder"]), int(data["victim"]),
                   int(data["since"]))


@dataclass(frozen=True, slots=True)
class Aim:
    """RNG-7: aiming at ``target``, ``dice`` gathered, the last aiming in ``turn``."""

    target: int
    dice: int
    turn: int

    def to_json(self) -> dict[str, Any]:
        return {"target": self.target, "dice": self.dice, "turn": self.turn}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Aim:
        return cls(int(data["target"]), int(data["dice"]), int(data["turn"]))
