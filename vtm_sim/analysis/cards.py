"""Tactic cards: every legal option one character has against another, with exact odds.

A Storyteller's answer to "what can this NPC do now, and what are the odds?".
The card is read off a battle at the character's action (a fresh pair of
stat blocks a distance apart, or a fight as it stands from a state file), so
it lists only what the rules allow there (MAN-8: no bite without a grip) and
sees cover, wounds, blood, distance and prone. Per attack: the pool and
difficulty, the defense assumed (the defender's best, without penalty,
unless told it does not defend) with its pool and difficulty, ``p_hit`` (the
attack's net successes beat the defense), ``p_damage`` (at least one health
level gets through soak), the expected levels and the chance of a crippling
blow. Every carried weapon appears: those not in hand marked as needing to be
drawn first (ACT-5). The other options (cover, prone, aim, reload, moving,
drawing, full defense) say what they buy.
"""

from __future__ import annotations

from dataclasses import dataclass

from vtm_sim.analysis.advice import route_words
from vtm_sim.core.choices import (
    Action,
    ActionKind,
    CalledShot,
    DecisionKind,
    Declaration,
    DefenseKind,
)
from vtm_sim.core.dice import ScriptedDice
from vtm_sim.data.rules import RuleSet
from vtm_sim.data.stat_blocks import StatBlock
from vtm_sim.engine.battle import Battle, Fighter
from vtm_sim.engine.chances import with_weapon_drawn
from vtm_sim.engine.effects import STAKE_LEVELS, STAKE_WEAPON
from vtm_sim.mechanics.attack import (
    BASE_DIFFICULTY,
    SPRAY_DODGE,
    AttackPlan,
    defense_pool,
    effective_damage_type,
)
from vtm_sim.mechanics.attack import soak_pool as soak_pool_of
from vtm_sim.mechanics.combatant import Combatant
from vtm_sim.mechanics.forecast import best_defense, expected, plan_hit_chance, plan_odds
from vtm_sim.mechanics.movement import Pursuit
from vtm_sim.policies.nearest import NearestEnemyPolicy

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
    defense_difficulty: int = BASE_DIFFICULTY
    p_damage: float = 0.0  # at least one health level after soak
    ready: bool = True  # the weapon is in hand (else: draw it first, ACT-5)
    offhand: bool = False
    called: str | None = None  # a called shot (RNG-8): only the stake at the heart (CPX-5)


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

    @property
    def best(self) -> CardRow | None:
        return max((r for r in self.rows if r.ready and r.called is None),
                   key=lambda r: r.expected_levels, default=None)


def tactic_card(attacker: StatBlock, defender: StatBlock, *, distance: float,
                rules: RuleSet, defend: bool = True) -> TacticCard:
    """The card of ``attacker`` against ``defender``, both fresh, ``distance`` yards apart,
    at the attacker's first action (the defender is assumed to use its best legal defense
    unless ``defend`` is false)."""
    fighters = [Fighter(attacker, 0, 0.0, 0.0), Fighter(defender, 1, float(distance), 0.0)]
    # initiative faces only: no other die is rolled before the first decision
    battle = Battle(fighters, dice=ScriptedDice([10, 1]), rules=rules, turn_limit=1)
    while battle.pending is not None and not (
        battle.pending.kind is DecisionKind.ACT and battle.pending.actor == 0
    ):
        d = battle.pending
        one = next((o for o in d.options if o == Declaration()), d.options[0])
        battle.choose(one)
    return card_for(battle, 0, 1, defend=defend)


def card_for(battle: Battle, me_id: int, foe_id: int, *, defend: bool = True) -> TacticCard:
    """The card of combatant ``me_id`` against ``foe_id`` at ``me_id``'s pending action
    (the battle is not changed; others are played by the nearest policy until then)."""
    b = battle.clone()
    nearest = NearestEnemyPolicy()
    for _ in range(500):
        d = b.pending
        if d is None or (d.kind is DecisionKind.ACT and d.actor == me_id):
            break
        b.choose(nearest.choose(b, d))
    me, foe = b.combatants[me_id], b.combatants[foe_id]
    d = b.pending
    rows: list[CardRow] = []
    others: list[OtherOption] = []
    if d is not None and d.actor == me_id and d.kind is DecisionKind.ACT:
        rows += _attack_rows(b, me, foe, d.options, defend, ready=True)
        for i, w in enumerate(me.stats.weapons):
            if i in (me.wielding, me.offhand) or me.lost[i]:
                continue
            fork = with_weapon_drawn(b, i)  # as if drawn: what it would offer
            assert fork.pending is not None
            rows += [r for r in _attack_rows(fork, fork.combatants[me_id],
                                             fork.combatants[foe_id], fork.pending.options,
                                             defend, ready=False) if r.weapon == w.name]
        others = _other_options(b, me, foe, d.options)
    return TacticCard(me.name, foe.name, round(me.distance(foe), 3), b.rules.name,
                      tuple(rows), tuple(others), tuple(_situation(b, me, foe)))


def _attack_rows(b: Battle, me: Combatant, foe: Combatant, options: tuple[object, ...],
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
        out.append(_row(b, plan, foe, defend, ready))
    return out


def _row(b: Battle, plan: AttackPlan, foe: Combatant, defend: bool, ready: bool) -> CardRow:
    rules = b.rules
    kind = best_defense(foe, plan, room=not b.field.cramped) if defend else DefenseKind.NONE
    d_pool = defense_pool(foe, kind, 0) if kind is not DefenseKind.NONE else 0
    extra = b.opponents_modifier(foe) + b.physical_difficulty(foe)
    spray = SPRAY_DODGE if plan.area > 0 else 0  # RNG-6
    dtype = effective_damage_type(plan.damage_type, plan.weapon, foe, rules)
    s_pool = soak_pool_of(foe, dtype, rules, elemental=plan.weapon.elemental)
    dist = plan_odds(plan, foe, rules, kind, defense_extra=extra)
    hit = plan_hit_chance(plan, foe, rules, kind, defense_extra=extra)
    return CardRow(
        plan.maneuver, plan.weapon.name, plan.pool, plan.difficulty,
        kind.value if d_pool > 0 else "none", d_pool, plan.damage_base, dtype.value, s_pool,
        hit, expected(dist), sum(dist[BIG_HIT:]), dist,
        defense_difficulty=BASE_DIFFICULTY + extra + spray, p_damage=1.0 - dist[0],
        ready=ready, offhand=plan.offhand,
        called=None if plan.called is None else plan.called.value,
    )


def _threat(b: Battle, me: Combatant, foe: Combatant) -> tuple[AttackPlan | None, float]:
    """The foe's best attack on ``me`` now and its expected levels (undefended)."""
    best: AttackPlan | None = None
    levels = 0.0
    for m in b.tables.maneuvers:
        plan = b.plan(foe.id, Action(ActionKind.ATTACK, m, me.id))
        if plan is None or plan.pool <= 0 or plan.no_damage:
            continue
        got = expected(plan_odds(plan, me, b.rules))
        if got > levels:
            best, levels = plan, got
    return best, levels


def _other_options(b: Battle, me: Combatant, foe: Combatant,
                   options: tuple[object, ...]) -> list[OtherOption]:
    out: list[OtherOption] = []
    threat, levels = _threat(b, me, foe)
    ranged_threat = threat is not None and not threat.close
    seen: set[ActionKind] = set()
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
        if k is ActionKind.TAKE_COVER:
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
    if threat is not None and levels > 0:
        kind = best_defense(me, threat, room=not b.field.cramped)
        if kind is not DefenseKind.NONE:
            guarded = expected(plan_odds(threat, me, b.rules, kind))
            out.append(OtherOption(
                f"{kind.value} (full defense, or a spare action)",
                f"{foe.name}'s {threat.maneuver.replace('_', ' ')} drops from "
                f"{levels:.1f} to {guarded:.1f} levels expected (DEF-1, DEF-7)"))
    return out


def _situation(b: Battle, me: Combatant, foe: Combatant) -> list[str]:
    lines = [f"{me.name}: {me.health.level_name}" + (f", {me.blood} blood" if
                                                     me.stats.blood_pool else "")
             + (", prone" if me.prone else "")
             + (", in cover" if b.field.cover_at(me.x, me.y) is not None else ""),
             f"{foe.name}: {foe.health.level_name}" + (", prone" if foe.prone else "")
             + (f", cover +{b.cover_of(foe, me).value} against you"
                if b.cover_of(foe, me).value else "")]
    return lines


def card_lines(card: TacticCard) -> list[str]:
    """The card as plain text a Storyteller can read at the table."""
    out = [f"{card.attacker} against {card.defender}, {card.distance:g} "
           f"{'yard' if card.distance == 1 else 'yards'} apart ({card.rules} rules)."]
    out += [f"  {s}" for s in card.situation]
    if not card.rows:
        out.append(f"{card.attacker} has no attack that reaches from here.")
    else:
        out.append(f"{'maneuver':<14}{'weapon':<18}{'dice':>5}{'diff':>5}  {'defense':<12}"
                   f"{'hit':>6}{'wound':>7}{'levels':>8}{f'{BIG_HIT}+ lv':>7}")
        for r in sorted(card.rows, key=lambda r: (not r.ready, -r.expected_levels)):
            defense = (f"{r.defense} {r.defense_pool}@{r.defense_difficulty}"
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
    if card.others:
        out.append("Other options:")
        out += [f"  {o.action}: {o.buys}" for o in card.others]
    return out
