"""What a combatant may choose when asked: the legal options of each decision."""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Final

from vtm_sim.core.choices import (
    Action,
    ActionKind,
    CalledShot,
    Choice,
    Declaration,
    action,
    shared,
)
from vtm_sim.core.maneuvers import Maneuver, WeaponUse, names_where
from vtm_sim.data.stat_blocks import StatBlock
from vtm_sim.data.tables import Tables, Weapon, WeaponClass
from vtm_sim.engine.chase import can_flee, can_pursue
from vtm_sim.engine.obstacles import action_route
from vtm_sim.engine.positions import ADJACENT_YARDS, enemies, running_room
from vtm_sim.engine.queries import (
    REACH_SLACK,
    action_penalty,
    approach,
    base_situation,
    plan_action,
)
from vtm_sim.mechanics.attack import (
    SHOOTING,
    Situation,
    attack_numbers,
    hand_weapon,
    maneuver_weapon,
    rate_cost,
    reach_of,
)
from vtm_sim.mechanics.combatant import Combatant
from vtm_sim.mechanics.movement import walk_speed

if TYPE_CHECKING:
    from vtm_sim.engine.battle import Battle


# The option lists of DECLARE and ACT decisions.


def declare_options(b: Battle, c: Combatant) -> tuple[Choice, ...]:
    celerity = 0
    if c.stats.blood_pool and not c.staked:
        celerity = min(c.stats.disciplines.get("celerity", 0), c.blood)  # VAMP-3
    wp = c.willpower_available(b.turn, b.rules.willpower_per_turn)
    return declarations(b.rules.max_actions, celerity, wp, not c.grappling,
                        delay=b.rules.delay_announced)


def attack_options(b: Battle, c: Combatant, opts: list[Choice]) -> None:
    hands = [False, True] if c.offhand >= 0 and not c.lost[c.offhand] else [False]
    penalty = action_penalty(b, c)
    plans = b.start_plans(c.id)  # what each option's plan is made of, kept by the battle
    candidates = usable_maneuvers(b, c, hands)
    if not candidates:
        return
    rules = b.rules
    for t in enemies(b, c):
        bases: dict[tuple[bool, bool], Situation | None] = {}
        approaches: dict[float, tuple[float, int] | None] = {}
        grappled = may_bite(b, c, t)
        tw = hand_weapon(t, False)[0]
        longer = tw.length if tw.cls is WeaponClass.MELEE else -1
        for m, spec, off, close, w in candidates:
            if spec.grapple and not grappled:  # MAN-8
                continue
            move_pen = 0
            if close:
                reach = reach_of(spec)
                if reach not in approaches:
                    approaches[reach] = approach(b, c, t, reach)
                app = approaches[reach]
                if app is None:
                    continue
                move_pen = app[1]
                dist = min(c.distance(t), reach)
            else:
                dist = c.distance(t)
            key = (close, off)
            if key not in bases:
                bases[key] = base_situation(b, c, t, close, off)
            sit = bases[key]
            if sit is None:
                continue
            if close and longer > w.length:
                sit = Situation(sit.dice - 1, sit.difficulty, sit.auto_hit)  # ATK-9
            nums = attack_numbers(c, spec, w, rules, sit, dist,
                                  penalty=penalty + move_pen, offhand=off)
            if nums is None or nums[0] <= 0:  # DICE-7: a pool of 0 cannot be rolled
                continue
            variants = attack_actions(m, t.id, off, spec.called_shot)
            opts.extend(variants)
            plans[id(variants[0])] = (t.id, m, off, penalty + move_pen,
                                      dist if close else None, sit, w, nums)


def usable_maneuvers(b: Battle, c: Combatant, hands: list[bool]) -> list[Candidate]:
    """Maneuvers ``c`` could use on anyone now (weapon, stance, rate of fire)."""
    # Memoized across battles: the key holds everything the list depends on, and
    # the entry keeps the stat block and tables alive so their ids stay theirs.
    key = (id(b.tables), id(c.stats), c.wielding, c.offhand, tuple(c.jammed),
           tuple(c.lost), c.prone, c.grappling, tuple(sorted(c.shots.items())),
           c.claws_out, c.blood > 0, b.rules.rate_of_fire_counts)
    got = _CANDIDATES.get(key)
    if got is not None:
        return got[2]
    out: list[Candidate] = []
    for m, spec in b.tables.maneuvers.items():  # in table order
        close = spec.close
        # MAN-6/7: a grappler attacks only with what needs the grapple
        if (close and c.prone) or (c.grappling and not spec.grapple):
            continue
        for off in hands:
            if off and not spec.offhand:  # RNG-9
                continue
            w = maneuver_weapon(c, spec, off)
            if w is None:
                continue
            if not close and not rate_allows(b, c, spec, off):
                continue
            out.append((m, spec, off, close, w))
    if len(_CANDIDATES) > CACHE_LIMIT:
        _CANDIDATES.clear()
    _CANDIDATES[key] = (b.tables, c.stats, out)
    return out


def clinch_began(b: Battle, c: Combatant) -> int:
    partner = b.combatants[c.clinch_with]
    return max(c.grapple_turn.get(partner.id, -1), partner.grapple_turn.get(c.id, -1))


def may_bite(b: Battle, c: Combatant, t: Combatant) -> bool:
    """MAN-8: after a successful clinch, hold or tackle, in a following turn."""
    since = c.grapple_turn.get(t.id)
    if since is None or since >= b.turn or not c.vampire:
        return False
    return (
        c.clinch_with == t.id or c.holding == t.id
        or (since == b.turn - 1 and c.distance(t) <= ADJACENT_YARDS + REACH_SLACK)
    )


def rate_allows(b: Battle, c: Combatant, spec: Maneuver, offhand: bool) -> bool:
    """RNG-4: fire a turn up to the weapon's rate (RNG-9: each weapon's)."""
    w, idx = hand_weapon(c, offhand)
    if idx < 0:
        return False  # every ranged row shoots or throws the weapon in hand
    return c.shots.get(idx, 0) + rate_cost(w, spec, b.rules) <= w.rate


def action_options(b: Battle, c: Combatant, *, first: bool, interrupt: bool,
                    final: bool) -> tuple[Choice, ...]:
    opts: list[Choice] = []
    passive = action(ActionKind.PASS)
    if c.grip is None:  # the common case: none of the grapples' restrictions
        return free_options(b, c, opts, passive, first=first, interrupt=interrupt,
                            final=final)
    if c.fed_on_by >= 0:
        return (passive,)  # MAN-9: the victim can do nothing
    if c.feeding_on >= 0:
        if c.drunk < b.tables.feeding.feed_per_turn:  # MAN-9: 3 a turn
            return (action(ActionKind.FEED, c.feeding_on),
                    action(ActionKind.RELEASE), passive)
        return (action(ActionKind.RELEASE), passive)
    if c.held_by >= 0:  # MAN-7
        if c.grappled_turn == b.turn:
            return (passive,)
        return (action(ActionKind.BREAK_FREE, c.held_by), passive)
    if c.clinch_with >= 0:  # MAN-6: strike, break free, bite: nothing else
        if c.grappled_turn != b.turn and clinch_began(b, c) < b.turn:
            # MAN-6: once a turn, from the turn after the clinch began
            opts = [action(ActionKind.CRUSH, c.clinch_with),
                    action(ActionKind.BREAK_FREE, c.clinch_with)]
        attack_options(b, c, opts)
        opts.append(passive)
        return tuple(opts)
    if c.holding >= 0:
        attack_options(b, c, opts)
        opts.extend((action(ActionKind.RELEASE), passive))
        return tuple(opts)
    return free_options(b, c, opts, passive, first=first, interrupt=interrupt, final=final)


def free_options(b: Battle, c: Combatant, opts: list[Choice], passive: Action, *,
                 first: bool, interrupt: bool, final: bool) -> tuple[Choice, ...]:
    """The options of a combatant in no grapple: attacks, moves, cover, aim, weapons, ..."""
    if c.chase is not None:  # MOVE-4: a quarry keeps running (or gets up, or waits)
        return chase_options(b, c, passive)
    attack_options(b, c, opts)
    left = running_room(b, c) - c.moved
    if not c.prone and left > 0:
        foes = enemies(b, c)
        fleeing = False
        start = len(opts)
        for t in foes:
            if c.distance(t) > ADJACENT_YARDS + REACH_SLACK:
                opts.append(action(ActionKind.MOVE, t.id))
            opts.append(action(ActionKind.MOVE, t.id, away=True))
            if t.chase is not None:
                fleeing = True
        if fleeing:  # MOVE-4: run after a fleeing enemy
            opts.extend(action(ActionKind.PURSUE, t.id) for t in foes if can_pursue(b, c, t))
        if c.grip is None and not c.staked and any(not t.staked for t in foes):
            opts.append(action(ActionKind.FLEE))  # MOVE-4 (as chase.can_flee: on its feet,
            # free, running left, an able enemy; c.chase is None here)
        zone = b.field.nearest_cover(c.x, c.y, left)
        if zone is not None and b.field.cover_at(c.x, c.y) is None:
            opts.append(action(ActionKind.TAKE_COVER))
        if b.field.obstacles:  # MOVE-3: jump, or go around
            opts[start:] = with_jumps(b, c, opts[start:])
    if first and not final and c.declared == 1 and not c.celerity:
        w, idx = hand_weapon(c, False)
        skill = "archery" if w.cls in (WeaponClass.BOW, WeaponClass.CROSSBOW) else "firearms"
        if idx >= 0 and w.cls in SHOOTING and not c.jammed[idx] and (
            c.stats.ability(skill) >= 1
        ):
            walk = walk_speed(b.tables)
            shots = names_where(b.tables.maneuvers, "shots", _shooting)
            for t in enemies(b, c):
                if t.moved > walk:
                    continue
                for m in shots:  # RNG-7: a possible shot (single shot)
                    if plan_action(b, c.id, Action(ActionKind.ATTACK, m, t.id)) is not None:
                        opts.append(action(ActionKind.AIM, t.id))
                        break
    for i in range(len(c.stats.weapons)):
        if i != c.wielding and i != c.offhand and not c.lost[i]:
            opts.append(action(ActionKind.DRAW, weapon=i))  # ACT-5
    w, idx = hand_weapon(c, False)
    if idx >= 0 and c.jammed[idx]:
        opts.append(action(ActionKind.CLEAR))  # CPX-6
    elif idx >= 0 and w.magazine and w.cls not in (WeaponClass.THROWN, WeaponClass.BOW) and (
        c.ammo[idx] < w.magazine
    ):
        opts.append(action(ActionKind.RELOAD))  # ACT-7 (a bow's quiver is its supply)
    if c.prone:
        opts.append(action(ActionKind.GET_UP))  # ACT-6
    else:
        opts.append(action(ActionKind.DROP_PRONE))
    if interrupt:
        opts.append(action(ActionKind.DELAY))  # keep delaying
    elif first and not final:
        if not b.rules.delay_announced:  # INIT-10: else only a delay said at the declaration
            opts.append(action(ActionKind.DELAY))
        opts.append(action(ActionKind.WAIT))
    opts.append(passive)
    return tuple(opts)


def with_jumps(b: Battle, c: Combatant, moves: list[Choice]) -> list[Choice]:
    """MOVE-3: after each move that would go around an obstacle, the same move jumping
    it (where a move must jump anyway, or meets nothing, there is no second option)."""
    out: list[Choice] = []
    for m in moves:
        out.append(m)
        if isinstance(m, Action) and action_route(b, c, m).around:
            out.append(action(m.kind, m.target, away=m.away, jump=True))
    return out


def chase_options(b: Battle, c: Combatant, passive: Action) -> tuple[Choice, ...]:
    """MOVE-4: a quarry's options: run on (once a turn), get up, or pass."""
    if can_flee(b, c):
        if b.field.obstacles:  # MOVE-3
            return tuple(with_jumps(b, c, [action(ActionKind.FLEE)]))
        return (action(ActionKind.FLEE),)
    if c.prone:
        return (action(ActionKind.GET_UP), passive)
    return (passive,)


def _shooting(spec: Maneuver) -> bool:
    return spec.weapon is WeaponUse.SHOOTING  # RNG-7: a shot to aim for (single shot)


# usable maneuvers: (maneuver, spec, off hand, close, weapon)
Candidate = tuple[str, Maneuver, bool, bool, Weapon]
CACHE_LIMIT: Final = 4096  # entries in the memo of usable maneuvers
_CANDIDATES: Final[dict[tuple[object, ...], tuple[Tables, StatBlock, list[Candidate]]]] = {}


@cache
def attack_actions(m: str, target: int, off: bool, called: bool) -> tuple[Action, ...]:
    """The ATTACK choices for one maneuver and target: plain, then (if ``called``, the
    row's ``called_shot``, RNG-8) called shots.

    Shared and immutable, so a choice can be found in an option list by identity.
    """
    plain = shared(Action(ActionKind.ATTACK, m, target, offhand=off))
    if not called:
        return (plain,)
    return (plain,) + tuple(
        shared(Action(ActionKind.ATTACK, m, target, called=k, offhand=off)) for k in CalledShot
    )


@cache
def declarations(max_actions: int, celerity: int, willpower: bool,
                 full_defense: bool, *, delay: bool = False) -> tuple[Choice, ...]:
    """INIT-5: every declaration open to a character (shared, immutable); with
    ``delay`` (INIT-10, ``delay_announced``) each may announce a delay too, listed
    after the plain ones."""
    wp = (False, True) if willpower else (False,)
    opts: list[Choice] = [
        shared(Declaration(n, False, cel, w, d))
        for d in ((False, True) if delay else (False,))
        for n in range(1, max_actions + 1)
        for cel in range(celerity + 1)
        for w in wp
    ]
    if full_defense:
        opts.append(shared(Declaration(1, True, 0, False)))  # DEF-7
    return tuple(opts)
