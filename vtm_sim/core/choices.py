"""What a combatant can be asked to decide, and the choices it can make."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any, Final, TypeVar

from vtm_sim.core.symbol import Symbol
from vtm_sim.errors import ReplayError


class DecisionKind(Symbol):
    BLOOD = "blood"  # VAMP-2: spend blood before declaring (raise Physical Attributes, heal)
    DECLARE = "declare"  # INIT-5: actions, full defense, Celerity, Willpower
    ACT = "act"  # an action at the combatant's initiative (or after a delay)
    DEFEND = "defend"  # a reaction to an incoming attack (DEF-2, DEF-3)


class ActionKind(Symbol):
    ATTACK = "attack"
    MOVE = "move"  # toward (or away from) a target, up to the running distance
    DRAW = "draw"  # ACT-5: ready another weapon (or put it away: unarmed)
    RELOAD = "reload"  # ACT-7
    GET_UP = "get_up"  # ACT-6
    AIM = "aim"  # RNG-7: a full turn aiming at a target
    TAKE_COVER = "take_cover"  # move into the nearest cover (RNG-1)
    DROP_PRONE = "drop_prone"  # light cover against ranged attacks (RNG-1)
    CLEAR = "clear"  # CPX-6: clear a jammed weapon
    CRUSH = "crush"  # MAN-6: automatic Strength damage inside a clinch
    BREAK_FREE = "break_free"  # MAN-6/MAN-7: resisted Strength + Brawl
    RELEASE = "release"  # let go of a clinch or hold
    FEED = "feed"  # MAN-9: keep drinking after a successful kiss
    DELAY = "delay"  # INIT-6: act later, interrupting slower characters
    WAIT = "wait"  # INIT-7: let the others act, act at the end of the turn
    PASS = "pass"  # do nothing with this action
    FLEE = "flee"  # MOVE-4: run from the fight (a chase if anyone pursues)
    PURSUE = "pursue"  # MOVE-4: run after a fleeing enemy


class DefenseKind(Symbol):
    NONE = "none"
    DODGE = "dodge"  # DEF-5
    BLOCK = "block"  # DEF-4
    PARRY = "parry"  # DEF-6


class AbortMethod(Symbol):
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
    # INIT-10 (004, the ``delay_announced`` profile option): a delay said at the
    # declaration; its first action is then delayed (INIT-6) when its turn comes
    delay: bool = False

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"actions": self.actions, "full_defense": self.full_defense,
                             "celerity": self.celerity, "willpower": self.willpower}
        if self.delay:  # only when announced: older logs keep their declarations
            d["delay"] = True
        return d


class CalledShot(Symbol):
    """RNG-8: target size of a called shot (the table is a rules-profile variant)."""

    MEDIUM = "medium"  # limb, bag
    SMALL = "small"  # hand, head, computer
    TINY = "tiny"  # eye, heart, lock


@dataclass(frozen=True, slots=True)
class Action:
    kind: ActionKind
    maneuver: str | None = None
    target: int | None = None
    weapon: int | None = None  # DRAW: index into the stat block's weapons, -1 unarmed
    away: bool = False  # MOVE: away from the target instead of toward it
    called: CalledShot | None = None  # ATTACK: a called shot (RNG-8)
    offhand: bool = False  # ATTACK: with the off-hand weapon (RNG-9)
    # MOVE, FLEE, PURSUE, TAKE_COVER: jump what is in the way even where the mover
    # could go around it (MOVE-3; vtm_sim.engine.obstacles). Offered only where it differs.
    jump: bool = False

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
        if self.called is not None:
            d["called"] = self.called.value
        if self.offhand:
            d["offhand"] = True
        if self.jump:
            d["jump"] = True
        return d


@cache
def action(kind: ActionKind, target: int | None = None, *, weapon: int | None = None,
           away: bool = False, jump: bool = False) -> Action:
    """A shared non-attack :class:`Action` (see :func:`shared`)."""
    return shared(Action(kind, target=target, weapon=weapon, away=away, jump=jump))


class BloodUse(Symbol):
    """VAMP-2: what a blood point buys."""

    NONE = "none"
    HEAL = "heal"  # one level of bashing or lethal damage
    STRENGTH = "strength"  # +1 for the scene
    DEXTERITY = "dexterity"
    STAMINA = "stamina"


@dataclass(frozen=True, slots=True)
class BloodSpend:
    """VAMP-2: spent reflexively before declarations, within the per-turn limit."""

    use: BloodUse = BloodUse.NONE
    points: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"use": self.use.value, "points": self.points}


@dataclass(frozen=True, slots=True)
class Defense:
    kind: DefenseKind
    abort: AbortMethod | None = None

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"kind": self.kind.value}
        if self.abort is not None:
            d["abort"] = self.abort.value
        return d


Choice = BloodSpend | Declaration | Action | Defense
C = TypeVar("C", bound="BloodSpend | Declaration | Action | Defense")
_SHARED: Final[dict[Choice, Choice]] = {}


def shared(choice: C) -> C:
    """The one shared object equal to ``choice`` (choices are immutable).

    Option lists are built from shared choices, and so is the environments'
    action catalog, so a chosen option is found by identity (a pointer) instead
    of by hashing and comparing its fields. There are finitely many choices of
    each battle size, so the table stays small.
    """
    return _SHARED.setdefault(choice, choice)  # type: ignore[return-value]


NO_DEFENSE: Final = shared(Defense(DefenseKind.NONE))


@cache
def defenses(kinds: tuple[DefenseKind, ...], abort: bool = False,
             willpower: bool = False) -> tuple[Defense, ...]:
    """DEFEND options (shared, immutable): no defense, then each kind; when the
    defense must abort the declared action (DEF-3), by roll and, with
    ``willpower``, by spending a point."""
    if not abort:
        return (NO_DEFENSE, *(shared(Defense(k)) for k in kinds))
    opts = [NO_DEFENSE]
    for k in kinds:
        opts.append(shared(Defense(k, AbortMethod.ROLL)))
        if willpower:
            opts.append(shared(Defense(k, AbortMethod.WILLPOWER)))
    return tuple(opts)


# Built on the hot path: not frozen (a frozen dataclass costs several times more to
# build) and with its own __init__ (mypyc compiles that one; the generated one stays
# Python); read-only by convention.
@dataclass(slots=True, init=False)
class Decision:
    """What the battle is waiting for: who decides what, and the legal options."""

    kind: DecisionKind
    actor: int
    options: tuple[Choice, ...]
    attacker: int | None = None  # DEFEND: who is attacking
    maneuver: str | None = None  # DEFEND: with what
    interrupt: bool = False  # ACT: a delayed character may act now (or keep delaying)

    def __init__(
        self, kind: DecisionKind, actor: int, options: tuple[Choice, ...],
        attacker: int | None = None, maneuver: str | None = None, interrupt: bool = False,
    ) -> None:
        self.kind = kind
        self.actor = actor
        self.options = options
        self.attacker = attacker
        self.maneuver = maneuver
        self.interrupt = interrupt


def choice_from_json(kind: DecisionKind, data: dict[str, Any]) -> Choice:
    """Rebuild a choice recorded in a ``decide`` event."""
    try:
        if kind is DecisionKind.BLOOD:
            return BloodSpend(BloodUse(data["use"]), int(data["points"]))
        if kind is DecisionKind.DECLARE:
            return Declaration(**data)
        if kind is DecisionKind.ACT:
            called = data.get("called")
            return Action(
                ActionKind(data["kind"]), data.get("maneuver"), data.get("target"),
                data.get("weapon"), bool(data.get("away", False)),
                CalledShot(called) if called else None, bool(data.get("offhand", False)),
                bool(data.get("jump", False)),
            )
        abort = data.get("abort")
        return Defense(DefenseKind(data["kind"]), AbortMethod(abort) if abort else None)
    except (KeyError, TypeError, ValueError) as exc:
        raise ReplayError(f"bad {kind.value} choice {data!r}: {exc}") from None
