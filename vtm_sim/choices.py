"""What a combatant can be asked to decide, and the choices it can make."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from enum import Enum
from typing import Any

from vtm_sim.errors import ReplayError


class DecisionKind(Enum):
    DECLARE = "declare"  # INIT-5: actions, full defense, Celerity, Willpower
    ACT = "act"  # an action at the combatant's initiative (or after a delay)
    DEFEND = "defend"  # a reaction to an incoming attack (DEF-2, DEF-3)


class ActionKind(Enum):
    ATTACK = "attack"
    MOVE = "move"  # toward (or away from) a target, up to the running distance
    DRAW = "draw"  # ACT-5: ready another weapon (or put it away: unarmed)
    RELOAD = "reload"  # ACT-7
    GET_UP = "get_up"  # ACT-6
    DELAY = "delay"  # INIT-6: act later, interrupting slower characters
    WAIT = "wait"  # INIT-7: let the others act, act at the end of the turn
    PASS = "pass"  # do nothing with this action


class DefenseKind(Enum):
    NONE = "none"
    DODGE = "dodge"  # DEF-5
    BLOCK = "block"  # DEF-4
    PARRY = "parry"  # DEF-6


class AbortMethod(Enum):
    """DEF-3: how a character that has not acted abandons its declared action."""

    ROLL = "roll"  # reflexive Willpower roll, difficulty 6
    WILLPOWER = "willpower"  # spend one Willpower point


@dataclass(frozen=True, slots=True)
class Declaration:
    """INIT-5: declared in reverse initiative order before anyone acts."""

    actions: int = 1  # ACT-1: multiple actions
    full_defense: bool = False  # DEF-7
    celerity: int = 0  # VAMP-3: extra actions bought with blood
    willpower: bool = False  # DICE-8: one automatic success on the first attack roll

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class Action:
    kind: ActionKind
    maneuver: str | None = None
    target: int | None = None
    weapon: int | None = None  # DRAW: index into the stat block's weapons, -1 unarmed
    away: bool = False  # MOVE: away from the target instead of toward it

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"kind": self.kind.value}
        if self.maneuver is not None:
            d["maneuver"] = self.maneuver
        if self.target is not None:
            d["target"] = self.target
        if self.weapon is not None:
            d["weapon"] = self.weapon
        if self.away:
            d["away"] = True
        return d


@dataclass(frozen=True, slots=True)
class Defense:
    kind: DefenseKind
    abort: AbortMethod | None = None

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"kind": self.kind.value}
        if self.abort is not None:
            d["abort"] = self.abort.value
        return d


Choice = Declaration | Action | Defense
NO_DEFENSE = Defense(DefenseKind.NONE)


@dataclass(frozen=True, slots=True)
class Decision:
    """What the battle is waiting for: who decides what, and the legal options."""

    kind: DecisionKind
    actor: int
    options: tuple[Choice, ...]
    attacker: int | None = None  # DEFEND: who is attacking
    maneuver: str | None = None  # DEFEND: with what
    interrupt: bool = False  # ACT: a delayed character may act now (or keep delaying)


def choice_from_json(kind: DecisionKind, data: dict[str, Any]) -> Choice:
    """Rebuild a choice recorded in a ``decide`` event."""
    try:
        if kind is DecisionKind.DECLARE:
            return Declaration(**data)
        if kind is DecisionKind.ACT:
            return Action(
                ActionKind(data["kind"]), data.get("maneuver"), data.get("target"),
                data.get("weapon"), bool(data.get("away", False)),
            )
        abort = data.get("abort")
        return Defense(DefenseKind(data["kind"]), AbortMethod(abort) if abort else None)
    except (KeyError, TypeError, ValueError) as exc:
        raise ReplayError(f"bad {kind.value} choice {data!r}: {exc}") from None
