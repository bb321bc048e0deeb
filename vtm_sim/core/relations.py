"""Relations between combatants: grips, aims, chases and surprise, as small values.

A grip is one frozen object that both partners point to (MAN-6 clinch, MAN-7
hold, MAN-9 feeding), so the two sides of it can never disagree; an aim is
the shooter's (RNG-7). Both are replaced, never changed, so battle copies
share them. A chase (MOVE-4) is the quarry's: its successes and each
pursuer's, replaced after every roll (the rules are in :mod:`vtm_sim.engine.chase`).
The combatant's ``clinch_with``, ``holding``, ``held_by``,
``feeding_on``, ``fed_on_by`` and ``aim_*`` read them (-1 or 0 for none).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from vtm_sim.core.symbol import Symbol


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


@dataclass(frozen=True, slots=True)
class Pursuer:
    """MOVE-4: one pursuer's side of a chase."""

    id: int
    total: int  # successes so far
    rolls: int  # chase rolls made (a mortal tires)
    turn: int  # the turn of its last roll

    def to_json(self) -> list[int]:
        return [self.id, self.total, self.rolls, self.turn]


@dataclass(frozen=True, slots=True)
class Chase:
    """MOVE-4: a quarry's flight: its successes (the lead's included) and its pursuers'."""

    total: int  # the quarry's successes: one per 2 yards of lead, then its rolls
    lead: float  # the yards of lead it started with
    started: int  # the turn it fled
    rolls: int = 0  # chase rolls made (a mortal tires)
    turn: int = -1  # the turn of its last roll
    checked: int = -1  # the last turn end that looked for an escape
    pursuers: tuple[Pursuer, ...] = ()
    lost: tuple[int, ...] = ()  # MOVE-5: pursuers who lost sight of it (pursue no more)

    def pursuer(self, cid: int) -> Pursuer | None:
        for p in self.pursuers:
            if p.id == cid:
                return p
        return None

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"total": self.total, "lead": self.lead, "started": self.started,
                             "rolls": self.rolls, "turn": self.turn, "checked": self.checked,
                             "pursuers": [p.to_json() for p in self.pursuers]}
        if self.lost:  # MOVE-5: only when someone lost it (older states stay as they were)
            d["lost"] = list(self.lost)
        return d

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Chase:
        return cls(int(data["total"]), float(data["lead"]), int(data["started"]),
                   int(data.get("rolls", 0)), int(data.get("turn", -1)),
                   int(data.get("checked", -1)),
                   tuple(Pursuer(int(i), int(t), int(r), int(n))
                         for i, t, r, n in data.get("pursuers", [])),
                   tuple(int(i) for i in data.get("lost", [])))


@dataclass(frozen=True, slots=True)
class Surprise:
    """ATK-11: an ambusher's free attack before the first turn, while it lasts.

    ``dice`` is the stealth roll's margin, added to the attack; a margin above
    0 leaves the target no defense (a tie lets it defend as if undeclared).
    """

    attacker: int
    target: int
    dice: int
    no_defense: bool

    def to_json(self) -> list[Any]:
        return [self.attacker, self.target, self.dice, self.no_defense]

    @classmethod
    def from_json(cls, data: list[Any]) -> Surprise:
        a, t, dice, no_defense = data
        return cls(int(a), int(t), int(dice), bool(no_defense))
