"""Tactic cards: every legal option one character has against another, with exact odds.

A Storyteller's answer to "what can this NPC do now, and what are the odds?".
The card is read off a battle as it stands (a fresh pair of stat blocks a
distance apart, or a fight from a state file): the engine asks the character
for its action in a copy (:func:`vtm_sim.engine.chances.acting`), no decision
played and no die rolled first, so wounds, cover, declarations, grapples,
ammunition and positions are the file's, and the card lists only what the
rules allow there (MAN-6: a clinch allows a crush, breaking free and, for the
vampire who began it, a bite; MAN-8: no bite without a grip). Each attack is
taken to the roll it leads to (:meth:`Battle.chance`): the pool and difficulty
as rolled (after closing in, ACT-4), and the defense the engine offers the
target there, the best of them (none in a clinch or hold, MAN-6/7; by aborting
its declared action, DEF-3, when that is the only way; with the multiple-action
penalty, DEF-2) unless told it does not defend. Per attack: ``p_hit`` (the
attack's net successes beat the defense), ``p_damage`` (at least one health
level gets through soak), the expected levels and the chance of a crippling
blow. Every carried weapon appears: those not in hand marked as needing to be
drawn first (ACT-5). The other options (crush, break free, cover, prone, aim,
reload, moving, drawing, full defense) say what they buy.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from vtm_sim.analysis.advice import route_words
from vtm_sim.core.choices import (
    NO_DEFENSE,
    AbortMethod,
    Action,
    ActionKind,
    CalledShot,
    Choice,
    Decision,
    DecisionKind,
    Declaration,
    Defense,
    DefenseKind,
)
from vtm_sim.core.dice import ScriptedDice
from vtm_sim.data.rules import RuleSet
from vtm_sim.data.stat_blocks import StatBlock
from vtm_sim.data.tables import DamageType
from vtm_sim.engine.battle import Battle, Fighter
from vtm_sim.engine.chances import ChancePoint, acting, with_weapon_drawn
from vtm_sim.engine.effects import (
    STAKE_LEVELS,
    STAKE_WEAPON,
    break_free_chance,
    crush_damage,
    crush_odds,
    strength_pool,
)
from vtm_sim.mechanics.attack import defense_pool, effective_damage_type
from vtm_sim.mechanics.attack import soak_pool as soak_pool_of
from vtm_sim.mechanics.combatant import Combatant
from vtm_sim.mechanics.forecast import expected, plan_hit_chance, plan_odds
from vtm_sim.mechanics.movement import Pursuit
from vtm_sim.mechanics.odds import roll_odds

BIG_HIT = 3  # levels that make a blow "crippling" on the card


@dataclass(frozen=True, slots=True)
class CardRow:
    maneuver: str
    weapon: str
    pool: int
    difficulty: int
    defense: str
    defense_pool: int
    damage_pool: int
    damage_type: str
    soak_pool: int
    p_hit: float  # net successes beat the defense
    expected_levels: float
    p_big_hit: float
    distribution: tuple[float, ...]
    defense_difficulty: int = 6
    p_damage: float = 0.0  # at least one health level after soak
    ready: bool = True  # the weapon is in hand (else: draw it first, ACT-5)
    offhand: bool = False
    called: str | None = None  # a called shot (RNG-8): only the stake at the heart (CPX-5)
    defense_penalty: int = 0  # dice off the defense (DEF-2: the defender's other actions)
    p_abort: float | None = None  # DEF-3: the chance the defender's abort roll lets it defend


@dataclass(frozen=True, slots=True)
class OtherOption:
    """A non-attack option and what it buys."""

    action: str
    buys: str


@dataclass(frozen=True, slots=True)
class TacticCard:
    attacker: str
    defender: str
    distance: float
    rules: str
    rows: tuple[CardRow, ...]
    others: tuple[OtherOption, ...] = ()
    situation: tuple[str, ...] = ()
    unable: str | None = None  # why the attacker cannot act now (None: it can)
    notes: tuple[str, ...] = ()  # what the defenses assume (DEF-3)

    @property
    def best(self) -> CardRow | None:
        return max((r for r in self.rows if r.ready and r.called is None),
                   key=lambda r: r.expected_levels, default=None)


def tactic_card(attacker: StatBlock, defender: StatBlock, *, distance: float,
                rules: RuleSet, defend: bool = True) -> TacticCard:
    """The card of ``attacker`` against ``defender``, both fresh, ``distance`` yards apart,
    at the attacker's first action (the defender is assumed to keep its turn for its best
    legal defense, without penalty, DEF-7, unless ``defend`` is false)."""
    fighters = [Fighter(attacker, 0, 0.0, 0.0), Fighter(defender, 1, float(distance), 0.0)]

    def first_action(guard: Declaration) -> Battle:
        # initiative faces only: no other die is rolled before the first decision
        battle = Battle(fighters, dice=ScriptedDice([10, 1]), rules=rules, turn_limit=1)
        while battle.pending is not None and not (
            battle.pending.kind is DecisionKind.ACT and battle.pending.actor == 0
        ):
            d = battle.pending
            want = guard if d.actor == 1 else Declaration()
            one = next((o for o in d.options if o == want),
                       next((o for o in d.options if o == Declaration()), d.options[0]))
            battle.choose(one)
        return battle

    plain = first_action(Declaration())
    if not defend:
        return card_for(plain, 0, 1, defend=False)
    # DEF-7: the defender keeps its turn for defense; its own threat is its plain turn's
    return _card(first_action(Declaration(1, True, 0, False)), plain, 0, 1, defend=True)


def card_for(battle: Battle, me_id: int, foe_id: int, *, defend: bool = True,
             declared: int | None = None) -> TacticCard:
    """The card of combatant ``me_id`` against ``foe_id`` at an action of ``me_id``, the
    battle as it stands: its pending ACT decision, else the action the engine would ask
    it for now (:func:`~vtm_sim.engine.chances.acting`; ``declared``: the actions it
    declared this turn, ACT-1). Nothing is played first, and ``battle`` is not changed."""
    return _card(battle, battle, me_id, foe_id, defend=defend, declared=declared)


def _card(battle: Battle, threats: Battle, me_id: int, foe_id: int, *,
          defend: bool, declared: int | None = None) -> TacticCard:
    """:func:`card_for`, the foe's threat read off ``threats`` (its own action there)."""
    me0, foe0 = battle.combatants[me_id], battle.combatants[foe_id]
    b = acting(battle, me_id, declared=declared)
    situation = tuple(_situation(battle, me0, foe0))
    if b is None or b.pending is None:
        return TacticCard(me0.name, foe0.name, round(me0.distance(foe0), 3), battle.rules.name,
                          (), (), situation, unable=_unable(battle, me0))
    me, foe = b.combatants[me_id], b.combatants[foe_id]
    d = b.pending
    rows = _attack_rows(b, me, foe, d.options, defend, ready=True)
    for i, w in enumerate(me.stats.weapons):
        if i in (me.wielding, me.offhand) or me.lost[i]:
            continue
        fork = with_weapon_drawn(b, i)  # as if drawn: what it would offer
        assert fork.pending is not None
        rows += [r for r in _attack_rows(fork, fork.combatants[me_id],
                                         fork.combatants[foe_id], fork.pending.options,
                                         defend, ready=False) if r.weapon == w.name]
    others = _other_options(threats, b, me, foe, d.options)
    notes = []
    aborts = [r.p_abort for r in rows if r.p_abort is not None]
    if aborts:
        notes.append(f"{foe.name} has an action declared and not yet taken: it defends only "
                     f"by aborting it, on a Willpower roll ({aborts[0]:.0%} to succeed, "
                     "DEF-3); the odds count that roll.")
    return TacticCard(me.name, foe.name, round(me.distance(foe), 3), b.rules.name,
                      tuple(rows), tuple(others), situation, notes=tuple(notes))


def _unable(b: Battle, c: Combatant) -> str:
    """Why ``c`` is not asked for an action now."""
    if not c.active:
        return f"{c.name} is {c.health.status.value}"
    if c.staked:
        return f"{c.name} is staked and cannot act (CPX-5)"
    if c.stunned(b.turn if b.stack else b.turn + 1):
        return f"{c.name} is stunned and loses this turn (DMG-6)"
    if c.full_defense:
        return f"{c.name} declared a full defense this turn (DEF-7)"
    if b.over:
        return "the fight is over"
    return f"{c.name} has no action left this turn"


def _best_defense(fork: Battle, d: Decision) -> Choice:
    """The offered defense with the largest pool; an abort by roll before one by a
    Willpower point (DEF-3); none when nothing has a die."""
    c = fork.combatants[d.actor]
    best: Choice = NO_DEFENSE
    top = 0
    for o in d.options:
        if not isinstance(o, Defense) or o.kind is DefenseKind.NONE:
            continue
        if o.abort is AbortMethod.WILLPOWER:
            continue
        pool = defense_pool(c, o.kind, 0)
        if pool > top:
            best, top = o, pool
    return best


def _no_defense(_fork: Battle, d: Decision) -> Choice:
    return NO_DEFENSE if NO_DEFENSE in d.options else d.options[0]


def _attack_rows(b: Battle, me: Combatant, foe: Combatant, options: Sequence[Choice],
                 defend: bool, *, ready: bool) -> list[CardRow]:
    out = []
    for o in options:
        if not (isinstance(o, Action) and o.kind is ActionKind.ATTACK and o.target == foe.id):
            continue
        plan = b.plan(me.id, o)
        if plan is None or plan.pool <= 0 or plan.no_damage:
            continue
        if o.called is not None and not (o.called is CalledShot.TINY and foe.vampire
                                         and plan.weapon.name == STAKE_WEAPON):
            continue  # the card keeps one called shot: a stake at a vampire's heart
        point = b.chance(o, _best_defense if defend else _no_defense)
        if point is None:
            continue  # it fails at once, or rolls something else first (a jump, MOVE-3)
        out.append(_row(b, point, ready))
    return out


def _mix(p: float, a: Sequence[float], b: Sequence[float]) -> tuple[float, ...]:
    n = max(len(a), len(b))
    return tuple(p * (a[k] if k < len(a) else 0.0) + (1 - p) * (b[k] if k < len(b) else 0.0)
                 for k in range(n))


def _row(b: Battle, point: ChancePoint, ready: bool) -> CardRow:
    rules = b.rules
    plan, foe = point.plan, point.defender
    kind, pen, extra, wp = (point.defense, point.defense_penalty, point.defense_extra,
                            point.willpower)
    d_pool = defense_pool(foe, kind, pen) if kind is not DefenseKind.NONE else 0
    dtype = effective_damage_type(plan.damage_type, plan.weapon, foe, rules)
    s_pool = soak_pool_of(foe, dtype, rules, elemental=plan.weapon.elemental)
    dist = plan_odds(plan, foe, rules, kind, defense_penalty=pen, defense_extra=extra,
                     willpower=wp)
    hit = plan_hit_chance(plan, foe, rules, kind, defense_penalty=pen, defense_extra=extra,
                          willpower=wp)
    p_abort = None
    if point.abort_roll is not None and kind is not DefenseKind.NONE:  # DEF-3
        pool, difficulty = point.abort_roll
        p_abort = math.fsum(roll_odds(pool, difficulty).distribution[1:])
        dist = _mix(p_abort, dist, plan_odds(plan, foe, rules, willpower=wp))
        hit = p_abort * hit + (1 - p_abort) * plan_hit_chance(plan, foe, rules, willpower=wp)
    return CardRow(
        plan.maneuver, plan.weapon.name, plan.pool, plan.difficulty,
        kind.value if d_pool > 0 else "none", d_pool, plan.damage_base, dtype.value, s_pool,
        hit, expected(dist), math.fsum(dist[BIG_HIT:]), dist,
        defense_difficulty=point.defense_difficulty, p_damage=1.0 - dist[0],
        ready=ready, offhand=plan.offhand,
        called=None if plan.called is None else plan.called.value,
        defense_penalty=pen if d_pool > 0 else 0, p_abort=p_abort if d_pool > 0 else None,
    )


@dataclass(frozen=True, slots=True)
class _Threat:
    """The foe's best attack on me at its own action (undefended), and my best guard."""

    what: str  # the maneuver, in words
    levels: float  # expected levels undefended
    guard: DefenseKind  # my best defense the engine allows against it (NONE: none)
    guarded: float  # expected levels against that defense, without penalty (DEF-7)
    ranged: bool


def _threat(battle: Battle, me: Combatant, foe: Combatant) -> _Threat | None:
    """What ``foe`` can do to ``me`` when it acts, as the engine asks it."""
    fb = acting(battle, foe.id)
    if fb is None or fb.pending is None:
        return None
    best: _Threat | None = None
    for o in fb.pending.options:
        if not isinstance(o, Action) or o.target != me.id:
            continue
        if o.kind is ActionKind.CRUSH:  # MAN-6: no roll, no defense
            levels = expected(crush_odds(fb, fb.combatants[foe.id], fb.combatants[me.id]))
            t = _Threat("crush", levels, DefenseKind.NONE, levels, False)
        elif o.kind is ActionKind.ATTACK and o.called is None:
            point = fb.chance(o, _best_defense)
            if point is None or point.plan.no_damage:
                continue
            plan, at = point.plan, point.defender
            levels = expected(plan_odds(plan, at, fb.rules, willpower=point.willpower))
            guard = point.defense if point.offered else DefenseKind.NONE
            guarded = levels
            if guard is not DefenseKind.NONE:
                guarded = expected(plan_odds(plan, at, fb.rules, guard,
                                             defense_extra=point.defense_extra,
                                             willpower=point.willpower))
            t = _Threat(plan.maneuver.replace("_", " "), levels, guard, guarded,
                        not plan.close)
        else:
            continue
        if best is None or t.levels > best.levels:
            best = t
    return best


def _other_options(battle: Battle, b: Battle, me: Combatant, foe: Combatant,
                   options: Sequence[Choice]) -> list[OtherOption]:
    out: list[OtherOption] = []
    threat = _threat(battle, battle.combatants[me.id], battle.combatants[foe.id])
    ranged_threat = threat is not None and threat.ranged
    seen: set[ActionKind] = set()
    cs = b.combatants
    for o in options:
        if not isinstance(o, Action) or o.kind is ActionKind.ATTACK:
            continue
        k = o.kind
        if k is ActionKind.MOVE:
            if o.target != foe.id:
                continue
            left = max(0.0, b.run_allowance(me) - me.moved)
            way = route_words(b, me, o)  # MOVE-3: around an obstacle, or jumping it
            if o.away:
                out.append(OtherOption(f"back away from {foe.name}{way}",
                                       f"up to {left:.0f} more yards between you"))
            else:
                out.append(OtherOption(f"close in on {foe.name}{way}",
                                       f"up to {left:.0f} yards nearer (no attack this action)"))
            continue
        if k in seen:
            continue
        seen.add(k)
        if k is ActionKind.CRUSH and o.target is not None:  # MAN-6
            v = cs[o.target]
            pool, auto = crush_damage(me)
            dist = crush_odds(b, me, v)
            extra = f" + {auto} from Potence" if auto else ""
            out.append(OtherOption(
                f"crush {v.name} in the clinch",
                f"{pool} dice of bashing damage{extra}, no attack roll and no defense, "
                f"{soak_pool_of(v, DamageType.BASHING, b.rules)} dice to soak: "
                f"{expected(dist):.2f} levels expected, {1 - dist[0]:.0%} to wound (MAN-6)"))
        elif k is ActionKind.BREAK_FREE and o.target is not None:  # MAN-6/MAN-7
            other = cs[o.target]
            rule = "MAN-7" if me.held_by >= 0 else "MAN-6"
            mine, _ = strength_pool(b, me)
            theirs, _ = strength_pool(b, other)
            out.append(OtherOption(
                f"break free of {other.name}",
                f"{break_free_chance(b, me, other):.0%}: resisted Strength + Brawl, {mine} "
                f"dice against {theirs}, more successes needed ({rule})"))
        elif k is ActionKind.RELEASE:
            out.append(OtherOption("let go", "ends the grapple: free to move and strike"))
        elif k is ActionKind.FEED and o.target is not None:
            out.append(OtherOption(f"keep feeding on {cs[o.target].name}",
                                   "up to 3 more blood this turn (MAN-9)"))
        elif k is ActionKind.TAKE_COVER:
            left = max(0.0, b.run_allowance(me) - me.moved)
            zone = b.field.nearest_cover(me.x, me.y, left)
            if zone is not None:
                gain = (f"+{zone.level.value} difficulty on {foe.name}'s shots at you (RNG-1)"
                        if ranged_threat else f"nothing against {foe.name}'s close attacks")
                out.append(OtherOption(f"take cover ({zone.name})", gain))
        elif k is ActionKind.DROP_PRONE:
            out.append(OtherOption("drop prone", "+1 difficulty on ranged attacks at you "
                                   "(light cover, RNG-1); you must get up to move or strike"))
        elif k is ActionKind.AIM and o.target == foe.id:
            scope = me.weapon.scope
            out.append(OtherOption(f"aim at {foe.name}", f"+1 die on the next shot"
                                   f"{' (+2 more with the scope)' if scope else ''}, a die a "
                                   "turn up to Perception (RNG-7)"))
        elif k is ActionKind.RELOAD:
            out.append(OtherOption("reload", f"a full magazine ({me.weapon.magazine} rounds)"))
        elif k is ActionKind.CLEAR:
            out.append(OtherOption("clear the jam", "the weapon fires again (CPX-6)"))
        elif k is ActionKind.GET_UP:
            out.append(OtherOption("get up", "stand to move and strike again (ACT-6)"))
        elif k is ActionKind.DELAY:
            out.append(OtherOption("delay", "act later this turn, interrupting slower "
                                   "characters (INIT-6)"))
        elif k is ActionKind.FLEE:
            lead = me.distance(foe)
            out.append(OtherOption("flee" + route_words(b, me, o),
                                   f"a chase (MOVE-4): a {lead:.0f}-yard lead is "
                                   f"{Pursuit.start(lead).quarry} successes ahead of "
                                   f"{foe.name}; getting away ends the fight for you"))
    if threat is not None and threat.levels > 0 and threat.guard is not DefenseKind.NONE:
        out.append(OtherOption(
            f"{threat.guard.value} (full defense, or a spare action)",
            f"{foe.name}'s {threat.what} drops from {threat.levels:.1f} to "
            f"{threat.guarded:.1f} levels expected (DEF-1, DEF-7)"))
    elif threat is not None and threat.levels > 0:
        out.append(OtherOption(
            "no defense", f"{foe.name}'s {threat.what} ({threat.levels:.1f} levels expected) "
            "cannot be dodged, blocked or parried from here"
            + (" (MAN-6/7)" if me.grip is not None else "")))
    return out


def _grapple_words(b: Battle, c: Combatant) -> str:
    cs = b.combatants
    for what, other in (("in a clinch with", c.clinch_with), ("holding", c.holding),
                        ("held by", c.held_by), ("feeding on", c.feeding_on),
                        ("fed on by", c.fed_on_by)):
        if other >= 0:
            return f", {what} {cs[other].name}"
    return ""


def _situation(b: Battle, me: Combatant, foe: Combatant) -> list[str]:
    lines = [f"{me.name}: {me.health.level_name}" + (f", {me.blood} blood" if
                                                     me.stats.blood_pool else "")
             + (", prone" if me.prone else "")
             + (", in cover" if b.field.cover_at(me.x, me.y) is not None else "")
             + _grapple_words(b, me),
             f"{foe.name}: {foe.health.level_name}" + (", prone" if foe.prone else "")
             + (f", cover +{b.cover_of(foe, me).value} against you"
                if b.cover_of(foe, me).value else "")
             + _grapple_words(b, foe)]
    return lines


def card_lines(card: TacticCard) -> list[str]:
    """The card as plain text a Storyteller can read at the table."""
    out = [f"{card.attacker} against {card.defender}, {card.distance:g} "
           f"{'yard' if card.distance == 1 else 'yards'} apart ({card.rules} rules)."]
    out += [f"  {s}" for s in card.situation]
    if card.unable is not None:
        out.append(f"{card.unable}: no options now.")
        return out
    if not card.rows:
        out.append(f"{card.attacker} has no attack on {card.defender} the rules allow here.")
    else:
        out.append(f"{'maneuver':<14}{'weapon':<18}{'dice':>5}{'diff':>5}  {'defense':<12}"
                   f"{'hit':>6}{'wound':>7}{'levels':>8}{f'{BIG_HIT}+ lv':>7}")
        for r in sorted(card.rows, key=lambda r: (not r.ready, -r.expected_levels)):
            defense = (f"{r.defense} {r.defense_pool}@{r.defense_difficulty}"
                       + ("*" if r.p_abort is not None else "")
                       if r.defense_pool else "none")
            weapon = r.weapon.replace("_", " ") + ("" if r.ready else " (draw)")
            what = r.maneuver.replace("_", " ") if r.called is None else "at the heart"
            out.append(f"{what:<14}{weapon:<18}"
                       f"{r.pool:>5}{r.difficulty:>5}  {defense:<12}{r.p_hit:>6.0%}"
                       f"{r.p_damage:>7.0%}{r.expected_levels:>8.2f}{r.p_big_hit:>7.0%}")
        heart = [r for r in card.rows if r.called is not None]
        for r in heart:
            out.append(f"At the heart: {sum(r.distribution[STAKE_LEVELS:]):.0%} to deal "
                       f"{STAKE_LEVELS}+ levels and stake {card.defender} (CPX-5).")
        best = card.best
        if best is not None:
            out.append(
                f"Best: {best.maneuver.replace('_', ' ')} with the "
                f"{best.weapon.replace('_', ' ')}: {best.p_hit:.0%} to hit, {best.p_damage:.0%} "
                f"to wound, {best.expected_levels:.2f} {best.damage_type} levels expected, "
                f"{best.p_big_hit:.0%} chance of {BIG_HIT} or more."
            )
    out += [("* " if "DEF-3" in n else "") + n for n in card.notes]
    if card.others:
        out.append("Other options:")
        out += [f"  {o.action}: {o.buys}" for o in card.others]
    return out
