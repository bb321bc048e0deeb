"""One attack exchange: a single attack by one character on another, outside a battle.

:func:`resolve_exchange` stands two stat blocks a distance apart, puts the chosen
weapon in the attacker's hand, and checks that the rules allow the maneuver at that
distance, under that rules profile, and the defense against it. Then it rolls the
attack through the whole chain (attack, defense, damage, soak: :mod:`vtm_sim.mechanics.attack`)
and returns the plan, the outcome and the events. The events start with an
``exchange`` header naming the two sides, so :func:`vtm_sim.text.narration.narrate` can tell
the log. :func:`exchange_odds` gives the exact distribution of health levels the same
exchange deals. ``vtm-sim attack`` only parses its options, calls these two and
prints the result.

Autofire spray (RNG-6) follows the battle's rules. A lone target's share of the roll
comes from :func:`vtm_sim.engine.queries.spray_shares`, the +1 difficulty of dodging it from
:data:`vtm_sim.mechanics.attack.SPRAY_DODGE`. What needs a battlefield is left out: cover,
movement, ammunition spent, a botch's mishap (CPX-6), dodging to cover (DEF-5).
Pass a :class:`~vtm_sim.mechanics.attack.Situation` for the battlefield's modifiers to the
attack.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from vtm_sim.core.choices import (
    NO_DEFENSE,
    AbortMethod,
    Action,
    ActionKind,
    CalledShot,
    Choice,
    Decision,
    Defense,
    DefenseKind,
)
from vtm_sim.core.dice import DiceSource, roll
from vtm_sim.core.maneuvers import Need, WeaponUse
from vtm_sim.data.rules import RuleSet, load_rules
from vtm_sim.data.stat_blocks import StatBlock
from vtm_sim.data.tables import UNARMED, Tables, Weapon, WeaponClass, load_tables
from vtm_sim.engine.battle import Battle, sheet_of
from vtm_sim.engine.chances import ChancePoint, acting
from vtm_sim.engine.effects import instead_of_damage
from vtm_sim.engine.options import may_bite
from vtm_sim.engine.queries import spray_shares
from vtm_sim.errors import IllegalActionError
from vtm_sim.events import (
    AbortEvent,
    ActionEvent,
    AttackEvent,
    DefenseEvent,
    Event,
    EventLog,
    ExchangeEvent,
)
from vtm_sim.mechanics.attack import (
    BASE_DIFFICULTY,
    SPRAY_DODGE,
    AttackChain,
    AttackOutcome,
    AttackPlan,
    DiceFor,
    Situation,
    hand_weapon,
    legal_defenses,
    log_roll,
    maneuver_weapon,
    plan_attack,
    range_modifier,
    reach_of,
    resolve_attack,
    roll_attack,
    unmet_need,
)
from vtm_sim.mechanics.combatant import Combatant
from vtm_sim.mechanics.forecast import plan_odds
from vtm_sim.mechanics.odds import roll_odds

__all__ = [
    "CLOSE_DISTANCE",
    "RANGED_DISTANCE",
    "ExchangeError",
    "ExchangeResult",
    "StandingExchange",
    "default_distance",
    "default_maneuver",
    "exchange_odds",
    "resolve_exchange",
    "resolve_standing",
    "standing_exchange",
    "standing_odds",
]

ATTACKER, DEFENDER = 0, 1  # combatant ids (and sides) in an exchange's events
TURN = 1  # the turn an exchange is rolled in (a stun costs the next one: DMG-6)
CLOSE_DISTANCE = 1.0  # yards between them by default for a close-combat maneuver
RANGED_DISTANCE = 10.0  # ... and for a ranged one


class ExchangeError(IllegalActionError):
    """An exchange the rules do not allow.

    ``argument`` names the keyword of :func:`resolve_exchange` at fault (``weapon``,
    ``maneuver``, ``distance``, ``rules``, ``defense``), or is None when the exchange
    as a whole cannot be made; ``reason`` says why; ``others`` names other keywords
    whose change would do as well. ``str()`` gives them all.
    """

    def __init__(self, argument: str | None, reason: str, others: tuple[str, ...] = ()) -> None:
        text = f"{argument}: {reason}" if argument else reason
        if others:
            text += f" (pick another {' or '.join([*others, argument or ''])})"
        super().__init__(text)
        self.argument = argument
        self.reason = reason
        self.others = others


@dataclass(frozen=True, slots=True)
class ExchangeResult:
    """What one exchange did.

    ``attacker`` and ``defender`` are the combatants as they ended it (health,
    stun); ``events`` the log, an ``exchange`` header first.
    """

    attacker: Combatant
    defender: Combatant
    distance: float
    plan: AttackPlan
    defense: DefenseKind
    outcome: AttackOutcome
    events: tuple[Event, ...]


# needs about the weapon in hand: an unmet one is told as the wrong weapon
_HAND_NEEDS = frozenset({Need.MELEE_WEAPON, Need.AUTOFIRE})
# the kind of maneuver a weapon class is plainly used in
_PLAIN_USE = {
    WeaponClass.UNARMED: WeaponUse.UNARMED,
    WeaponClass.MELEE: WeaponUse.MELEE,
    WeaponClass.THROWN: WeaponUse.THROWN,
    WeaponClass.FIREARM: WeaponUse.SHOOTING,
    WeaponClass.BOW: WeaponUse.SHOOTING,
    WeaponClass.CROSSBOW: WeaponUse.SHOOTING,
}


def default_maneuver(weapon: Weapon, tables: Tables | None = None) -> str:
    """The plain attack with a weapon: a strike, a shot, a throw, or a punch.

    The first row of the maneuver table made with that kind of weapon, with no
    effect, area or grapple.
    """
    use = _PLAIN_USE[weapon.cls]
    for m, spec in (tables or load_tables()).maneuvers.items():
        if spec.weapon is use and spec.effect is None and spec.area == 0 and not spec.grapple:
            return m
    raise ExchangeError("maneuver", f"no plain {use.value} maneuver in the maneuver table")


def default_distance(maneuver: str, tables: Tables | None = None) -> float:
    """Yards between the two when none are given: in reach, or a short shot."""
    spec = (tables or load_tables()).maneuvers.get(maneuver)
    return CLOSE_DISTANCE if spec is not None and spec.close else RANGED_DISTANCE


def _wield(c: Combatant, weapon: str | None) -> None:
    """Put the named weapon in hand ('unarmed': none; None: the first weapon)."""
    if weapon is None:
        return
    if weapon == "unarmed":
        c.wielding = -1
        return
    names = [w.name for w in c.stats.weapons]
    if weapon not in names:
        has = ", ".join(names) if names else "none"
        raise ExchangeError("weapon", f"{c.name} has no {weapon!r} (has: {has}; or 'unarmed')")
    c.wielding = names.index(weapon)


def _plan(
    attacker: Combatant, defender: Combatant, maneuver: str, distance: float, rules: RuleSet,
    tables: Tables, situation: Situation | None, called: CalledShot | None,
) -> AttackPlan:
    """The attack's plan, or the first rule it breaks (ATK-1, RNG-2, the profile)."""
    spec = tables.maneuvers.get(maneuver)
    if spec is None:
        known = ", ".join(sorted(tables.maneuvers))
        raise ExchangeError("maneuver", f"unknown maneuver {maneuver!r} (expected one of {known})")
    weapon = maneuver_weapon(attacker, spec)
    need = unmet_need(attacker, spec) if weapon is None else None
    if need is not None and need not in _HAND_NEEDS:
        raise ExchangeError(
            "maneuver", f"{attacker.name} cannot use {maneuver}: it needs {need.value}")
    if spec.grapple and attacker.grapple_turn.get(defender.id) is None:
        raise ExchangeError(  # MAN-8
            "maneuver", f"{maneuver} needs a grip: {attacker.name} must have clinched, held "
            f"or tackled {defender.name} in an earlier turn (MAN-8); one attack outside a "
            "fight has none (play it in a battle or a state file)")
    if weapon is None:
        raise ExchangeError(
            "maneuver",
            f"{attacker.name} cannot use {maneuver} with "
            f"{attacker.weapon.name.replace('_', ' ')} in hand",
            others=("weapon",),
        )
    if spec.close:
        reach = reach_of(spec)
        if distance > reach:
            raise ExchangeError(
                "distance",
                f"{distance:g} yards is out of reach for {maneuver} (at most {reach:g}; ATK-1)",
            )
    else:
        if weapon.cls is WeaponClass.FIREARM and not rules.firearms_allowed:
            raise ExchangeError("rules", f"the {rules.name} profile allows no firearms")
        if range_modifier(weapon, distance) is None:
            raise ExchangeError(
                "distance",
                f"{distance:g} yards is beyond twice the {weapon.name} range of "
                f"{weapon.range} yards (RNG-2)",
            )
    plan = plan_attack(attacker, defender, maneuver, tables, rules, distance=distance,
                       situation=situation, called=called)
    if plan is None:
        raise ExchangeError(None, f"{attacker.name} cannot make a {maneuver} attack now")
    return plan


def _check_defense(defender: Combatant, plan: AttackPlan, kind: DefenseKind) -> None:
    """DEF-4..6: block and parry only in close combat; block lethal only armored or
    with Fortitude; parry only with a melee weapon in hand."""
    if kind is DefenseKind.NONE or kind in legal_defenses(defender, plan):
        return
    what = plan.maneuver.replace("_", " ")
    if not plan.close:
        raise ExchangeError(
            "defense",
            f"{kind.value} only works in close combat; "
            f"against a {what} only dodge is allowed (DEF-4, DEF-6)",
        )
    if kind is DefenseKind.BLOCK:
        raise ExchangeError(
            "defense",
            f"{defender.name} cannot block {plan.damage_type.value} damage without "
            "armor or Fortitude (DEF-4)",
        )
    raise ExchangeError(
        "defense", f"{defender.name} cannot parry without a melee weapon in hand (DEF-6)"
    )


def _header(attacker: Combatant, defender: Combatant, rules: RuleSet) -> ExchangeEvent:
    """The ``exchange`` event: the rules and the two sides, where they stand."""
    return ExchangeEvent(
        rules.model_dump(),
        tuple({"id": c.id, "side": c.side, "x": c.x, "y": c.y, "sheet": sheet_of(c.stats)}
              for c in (attacker, defender)),
    )


@dataclass(frozen=True, slots=True)
class _Setup:
    attacker: Combatant
    defender: Combatant
    distance: float
    plan: AttackPlan
    defense: DefenseKind
    rules: RuleSet


def _setup(
    attacker: StatBlock, defender: StatBlock, maneuver: str | None, weapon: str | None,
    distance: float | None, defense: DefenseKind, called: CalledShot | None,
    situation: Situation | None, rules: RuleSet | None, tables: Tables | None,
) -> _Setup:
    rules = rules if rules is not None else load_rules("v20")
    tables = tables if tables is not None else load_tables()
    a = Combatant.create(ATTACKER, attacker, ATTACKER, tables)
    _wield(a, weapon)
    man = maneuver if maneuver is not None else default_maneuver(a.weapon, tables)
    dist = float(distance if distance is not None else default_distance(man, tables))
    d = Combatant.create(DEFENDER, defender, DEFENDER, tables, dist)
    plan = _plan(a, d, man, dist, rules, tables, situation, called)
    _check_defense(d, plan, defense)
    return _Setup(a, d, dist, plan, defense, rules)


def _always(source: DiceSource) -> DiceFor:
    return lambda _label: source


def resolve_exchange(
    attacker: StatBlock,
    defender: StatBlock,
    *,
    maneuver: str | None = None,
    weapon: str | None = None,
    distance: float | None = None,
    defense: DefenseKind = DefenseKind.NONE,
    called: CalledShot | None = None,
    situation: Situation | None = None,
    rules: RuleSet | None = None,
    tables: Tables | None = None,
    dice: DiceSource | None = None,
    dice_for: DiceFor | None = None,
) -> ExchangeResult:
    """Roll one attack of ``attacker`` on ``defender`` through the whole chain.

    Args:
        maneuver: a maneuver of ``configs/maneuvers.yaml``. By default the plain
            attack with the weapon in hand (:func:`default_maneuver`).
        weapon: the name of one of the attacker's weapons to attack with, or
            ``'unarmed'``. By default the first weapon.
        distance: yards between them. By default 1 for close combat, 10 for a
            ranged attack (:func:`default_distance`).
        defense: the defender's reaction (DEF-4..6). It costs the defender no dice.
        called: a called shot (RNG-8).
        situation: the battlefield's modifiers to the attack (cover, flanking, ...).
        rules: the rules profile (default v20).
        dice: where every die comes from; or
        dice_for: the dice for each roll by its label (``attack``, ``dodge``,
            ``block``, ``parry``, ``damage``, ``soak``). Give exactly one of the two.

    Raises:
        ExchangeError: the rules do not allow the exchange (unknown weapon or
            maneuver, out of reach or range, no firearms in the profile, an
            illegal defense).
        DiceError: scripted dice that do not fit a roll.
    """
    if dice_for is None:
        if dice is None:
            raise TypeError("resolve_exchange: give dice or dice_for")
        dice_for = _always(dice)
    elif dice is not None:
        raise TypeError("resolve_exchange: give dice or dice_for, not both")
    s = _setup(attacker, defender, maneuver, weapon, distance, defense, called, situation,
               rules, tables)
    a, d, plan, kind = s.attacker, s.defender, s.plan, s.defense
    log = EventLog([_header(a, d, s.rules)])
    log.emit(AttackEvent(a.id, d.id, plan.maneuver, plan.weapon.name, called))
    if kind is not DefenseKind.NONE:
        log.emit(DefenseEvent(d.id, kind, a.id))
    if plan.area > 0:  # RNG-6: the defender is the lone target in the area
        atk = roll_attack(plan, a, s.rules, dice_for, log)
        shares = spray_shares(atk.successes, 1)
        log.emit(ActionEvent(a.id, "spray", {"targets": (d.id,), "shares": tuple(shares)}))
        chain = AttackChain(plan, a, d, kind, 0, BASE_DIFFICULTY + SPRAY_DODGE, s.rules,
                            dice_for, log, TURN, attack_roll=atk, successes=shares[0],
                            spray=True, instead_of_damage=instead_of_damage(plan))
    else:
        chain = AttackChain(plan, a, d, kind, 0, BASE_DIFFICULTY, s.rules, dice_for, log,
                            TURN, instead_of_damage=instead_of_damage(plan))
    out = resolve_attack(chain)
    return ExchangeResult(a, d, s.distance, plan, kind, out, tuple(log.events))


def exchange_odds(
    attacker: StatBlock,
    defender: StatBlock,
    *,
    maneuver: str | None = None,
    weapon: str | None = None,
    distance: float | None = None,
    defense: DefenseKind = DefenseKind.NONE,
    called: CalledShot | None = None,
    situation: Situation | None = None,
    rules: RuleSet | None = None,
    tables: Tables | None = None,
) -> tuple[float, ...]:
    """The exact distribution of health levels :func:`resolve_exchange` deals with
    the same arguments (index = levels; :func:`vtm_sim.mechanics.forecast.plan_odds`).

    Raises:
        ExchangeError: as :func:`resolve_exchange`.
    """
    s = _setup(attacker, defender, maneuver, weapon, distance, defense, called, situation,
               rules, tables)
    return plan_odds(s.plan, s.defender, s.rules, s.defense)


# --- an exchange in a fight as it stands (``vtm-sim attack --state``) -----------------


@dataclass(frozen=True, slots=True)
class StandingExchange:
    """An attack of one combatant of a battle on another, as the engine would roll it now.

    ``point`` is the roll the attack leads to (:meth:`Battle.chance`): the plan with
    every modifier of the battle (wounds, cover, range, the multiple-action penalty,
    prone, closing in, ...), the defense taken and its penalty; ``attacker`` the
    attacker as it stands.
    """

    point: ChancePoint
    attacker: Combatant
    rules: RuleSet

    @property
    def defense(self) -> DefenseKind:
        return self.point.defense


def _cannot_act(b: Battle, c: Combatant) -> str:
    if not c.active:
        return f"{c.name} is {c.health.status.value}"
    if c.staked:
        return f"{c.name} is staked (CPX-5)"
    if c.stunned(b.turn):
        return f"{c.name} is stunned and loses this turn (DMG-6)"
    if c.full_defense:
        return f"{c.name} declared a full defense (DEF-7)"
    return f"{c.name} has no action left this turn"


def _hand(c: Combatant, weapon: str | None) -> bool:
    """Whether ``weapon`` is the off-hand weapon (RNG-9); ExchangeError when it is not
    in a hand at all (drawing takes an action, ACT-5)."""
    if weapon is None or weapon == "unarmed":
        return False
    names = [w.name for w in c.stats.weapons]
    if weapon not in names:
        has = ", ".join(names) if names else "none"
        raise ExchangeError("weapon", f"{c.name} has no {weapon!r} (has: {has}; or 'unarmed')")
    i = names.index(weapon)
    if i == c.offhand:
        return True
    if i != c.wielding or c.lost[i]:
        held = c.weapon.name if c.wielding >= 0 else "nothing"
        raise ExchangeError("weapon", f"{c.name} holds {held}, not the {weapon} (drawing it "
                            "takes an action, ACT-5; a state file's wielding: puts it in hand)")
    return False


def standing_exchange(
    battle: Battle, attacker: int, target: int, *, maneuver: str | None = None,
    weapon: str | None = None, defense: DefenseKind = DefenseKind.NONE,
    actions: int | None = None,
) -> StandingExchange:
    """The attack of combatant ``attacker`` on ``target`` in ``battle`` as it stands,
    asked of the engine (:func:`vtm_sim.engine.chances.acting`: no decision played, no
    die rolled); ``battle`` is not changed.

    ``maneuver`` and ``weapon`` as :func:`resolve_exchange` (the weapon must be in a
    hand); ``defense`` must be one the engine offers the target against it (none in a
    clinch or a hold, MAN-6/7; by aborting its declared action, DEF-3, when that is its
    only way: the abort is rolled too); ``actions``: the actions the attacker declared
    this turn (ACT-1), when the state has not declared them.

    Raises:
        ExchangeError: the attacker cannot act, or the rules do not offer that attack
            or that defense there (MAN-8: no bite without a grip).
    """
    c = battle.combatants[attacker]
    t = battle.combatants[target]
    if actions is not None and not 1 <= actions <= battle.rules.max_actions:
        raise ExchangeError("actions", f"expected 1 to {battle.rules.max_actions} (INIT-5)")
    fork = acting(battle, attacker, declared=actions)
    if fork is None or fork.pending is None:
        raise ExchangeError(None, _cannot_act(battle, c) + ": no attack now")
    me = fork.combatants[attacker]
    off = _hand(me, weapon)
    w = UNARMED if weapon == "unarmed" else hand_weapon(me, off)[0]
    tables = fork.tables
    man = maneuver if maneuver is not None else default_maneuver(w, tables)
    spec = tables.maneuvers.get(man)
    if spec is None:
        known = ", ".join(sorted(tables.maneuvers))
        raise ExchangeError("maneuver", f"unknown maneuver {man!r} (expected one of {known})")
    opts = [o for o in fork.pending.options if isinstance(o, Action)
            and o.kind is ActionKind.ATTACK and o.target == target and o.called is None]
    choice = next((o for o in opts if o.maneuver == man and o.offhand == off), None)
    if choice is None:
        raise ExchangeError("maneuver", _not_offered(fork, me, fork.combatants[target], man,
                                                     opts))

    def pick(f: Battle, d: Decision) -> Choice:
        if d.actor != target or defense is DefenseKind.NONE:
            return NO_DEFENSE if NO_DEFENSE in d.options else d.options[0]
        for o in d.options:  # an abort by its roll before one by a Willpower point (DEF-3)
            if isinstance(o, Defense) and o.kind is defense and o.abort is not (
                AbortMethod.WILLPOWER
            ):
                return o
        return NO_DEFENSE

    point = fork.chance(choice, pick)
    if point is None:
        raise ExchangeError(None, f"{c.name}'s {man} on {t.name} is not rolled now (out of "
                            "reach, or a jump on the way in comes first, MOVE-3)")
    if defense is not DefenseKind.NONE and point.defense is not defense:
        kinds = [o.kind.value for o in point.offered if o.kind is not DefenseKind.NONE]
        why = (f"{t.name} may defend with {', '.join(dict.fromkeys(kinds))} only" if kinds
               else f"{t.name} cannot defend against it here" + _why_no_defense(fork, t))
        raise ExchangeError("defense", why)
    return StandingExchange(point, me.copy(), fork.rules)


def _why_no_defense(b: Battle, t: Combatant) -> str:
    if t.grip is not None:
        return " (a grapple allows no defense, MAN-6/7/9)"
    if not b.able(t) or t.stunned(b.turn):
        return " (it cannot act, CPX-2)"
    if t.actions_left <= 0 and not t.full_defense:
        return " (no action left to defend with, DEF-2)"
    return ""


def _not_offered(b: Battle, c: Combatant, t: Combatant, man: str, opts: list[Action]) -> str:
    spec = b.tables.maneuvers[man]
    if spec.grapple and not may_bite(b, c, t):
        return (f"{man} needs a grip on {t.name} first: a clinch, hold or tackle of "
                f"{c.name}'s in an earlier turn (MAN-8)")
    w, idx = hand_weapon(c, False)
    if not spec.close and idx >= 0 and w.magazine and c.ammo[idx] <= 0:
        return f"{c.name}'s {w.name} is empty (reload first, ACT-7)"
    can = ", ".join(dict.fromkeys(o.maneuver or "" for o in opts)) or "none"
    where = ""
    if c.grip is not None:
        where = " in a grapple (MAN-6/7)"
    return f"{c.name} cannot use {man} on {t.name} here{where} (can: {can})"


def resolve_standing(ex: StandingExchange, dice_for: DiceFor) -> ExchangeResult:
    """Roll :func:`standing_exchange`'s attack through the whole chain (a DEF-3 abort
    roll first, labelled ``abort``), on copies: the battle is not changed."""
    p = ex.point
    a, d, plan = ex.attacker.copy(), p.defender.copy(), p.plan
    share = p.targets.index(d.id) if d.id in p.targets else 0
    a.id, a.side, d.id, d.side = ATTACKER, ATTACKER, DEFENDER, DEFENDER  # the events' ids
    rules = ex.rules
    log = EventLog([_header(a, d, rules)])
    log.emit(AttackEvent(a.id, d.id, plan.maneuver, plan.weapon.name, plan.called))
    kind = p.defense
    if kind is not DefenseKind.NONE and p.abort_roll is not None:  # DEF-3
        pool, difficulty = p.abort_roll
        r = roll(pool, difficulty, dice_for("abort"))
        log_roll(log, d.id, "abort", r)
        log.emit(AbortEvent(d.id, AbortMethod.ROLL, r.successes > 0))
        if r.successes <= 0:
            kind = DefenseKind.NONE
    if kind is not DefenseKind.NONE:
        log.emit(DefenseEvent(d.id, kind, a.id))
    pen = p.defense_penalty if kind is not DefenseKind.NONE else 0
    d_diff = p.defense_difficulty
    if plan.area > 0:  # RNG-6: this target's share of one roll
        atk = roll_attack(plan, a, rules, dice_for, log, willpower=p.willpower)
        shares = spray_shares(atk.successes, len(p.targets))
        i = share
        log.emit(ActionEvent(a.id, "spray", {"targets": (d.id,), "shares": (shares[i],)}))
        chain = AttackChain(plan, a, d, kind, pen, d_diff, rules, dice_for, log, TURN,
                            willpower=p.willpower, attack_roll=atk, successes=shares[i],
                            spray=True, instead_of_damage=instead_of_damage(plan))
    else:
        chain = AttackChain(plan, a, d, kind, pen, d_diff, rules, dice_for, log, TURN,
                            willpower=p.willpower, instead_of_damage=instead_of_damage(plan))
    out = resolve_attack(chain)
    return ExchangeResult(a, d, round(ex.attacker.distance(p.defender), 3), plan, kind, out,
                          tuple(log.events))


def standing_odds(ex: StandingExchange) -> tuple[float, ...]:
    """The exact distribution of health levels :func:`resolve_standing` deals (index =
    levels), the DEF-3 abort roll's chance counted."""
    p = ex.point
    dist = plan_odds(p.plan, p.defender, ex.rules, p.defense,
                     defense_penalty=p.defense_penalty, defense_extra=p.defense_extra,
                     willpower=p.willpower)
    if p.abort_roll is None or p.defense is DefenseKind.NONE:
        return dist
    ok = math.fsum(roll_odds(*p.abort_roll).distribution[1:])
    bare = plan_odds(p.plan, p.defender, ex.rules, willpower=p.willpower)
    n = max(len(dist), len(bare))
    return tuple(ok * (dist[k] if k < len(dist) else 0.0)
                 + (1 - ok) * (bare[k] if k < len(bare) else 0.0) for k in range(n))
