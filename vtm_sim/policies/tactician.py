"""A tactician NPC: picks attacks and defenses by their exact odds.

Where :class:`vtm_sim.policies.nearest.NearestEnemyPolicy` follows rules of thumb, the
tactician asks :func:`vtm_sim.mechanics.odds.attack_odds` how many health levels each
attack it may make is expected to deal (after the target's likely defense,
soak and a vampire's halving) and takes the best; it aborts to a defense when
the incoming attack is expected to hurt, and says why in plain words
(:meth:`TacticianPolicy.explain`), with the odds a Storyteller can quote.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from vtm_sim.core.choices import (
    AbortMethod,
    Action,
    ActionKind,
    BloodSpend,
    BloodUse,
    CalledShot,
    Choice,
    Decision,
    DecisionKind,
    Declaration,
    Defense,
    DefenseKind,
)
from vtm_sim.core.maneuvers import Effect, Maneuver, WeaponUse
from vtm_sim.core.weapons import WeaponClass
from vtm_sim.data.tables import DamageType, Tables
from vtm_sim.engine.battle import Battle
from vtm_sim.engine.chase import pursuit
from vtm_sim.mechanics.attack import (
    SHOOTING,
    AttackPlan,
    defense_pool,
    hand_weapon,
    soak_pool,
)
from vtm_sim.mechanics.combatant import Combatant
from vtm_sim.mechanics.forecast import best_defense, expected, plan_odds
from vtm_sim.mechanics.odds import attack_odds

ABORT_WITH_POINT: Final = 2.5  # expected levels that make a Willpower point worth spending
ABORT_WITH_ROLL: Final = 1.5  # ... that make a Willpower roll worth trying
SPARE_DEFENSE: Final = 0.5  # ... that make a defense worth a spare action
GRAPPLE_VALUE: Final = 0.75  # levels a vampire counts a successful clinch or hold as worth
KISS_VALUE: Final = 1.5  # levels a hungry vampire counts a kiss as worth
STAKE_VALUE: Final = 10.0  # a staked vampire is out of the fight
STAKE_USES: Final = frozenset({WeaponUse.MELEE, WeaponUse.THROWN})  # how a stake strikes (CPX-5)
GRAPPLES: Final = frozenset({Effect.CLINCH, Effect.HOLD})


@dataclass(frozen=True, slots=True)
class Estimate:
    """What an attack is expected to do, by exact odds."""

    p_hit: float
    expected_levels: float
    value: float


def estimate(battle: Battle, me: Combatant, action: Action, plan: AttackPlan) -> Estimate:
    """Exact odds of one attack option against its target's likely defense."""
    assert action.target is not None
    t = battle.combatants[action.target]
    penalty = t.defenses_used if t.full_defense else 0  # DEF-7
    kind = DefenseKind.NONE
    if t.full_defense or t.actions_left > 0:
        kind = best_defense(t, plan, room=not battle.field.cramped, penalty=penalty)
    d_pool = 0 if kind is DefenseKind.NONE else defense_pool(t, kind, penalty)
    dist = plan_odds(plan, t, battle.rules, kind, defense_penalty=penalty)
    p_hit = 1.0 - dist[0] if not plan.no_damage else _p_hit(plan, d_pool)
    levels = 0.0 if plan.no_damage else expected(dist)
    value = levels
    if me.vampire and plan.effect in GRAPPLES:
        value += GRAPPLE_VALUE * p_hit
    if plan.effect is Effect.FEED:
        hunger = 1.0 - me.blood / max(1, me.stats.blood_pool)
        value += KISS_VALUE * hunger * p_hit
    if plan.effect is Effect.DISARM:
        value += 0.5 * p_hit
    if plan.weapon.name == "stake" and action.called is CalledShot.TINY and t.vampire:
        value += STAKE_VALUE * (sum(dist[3:]) if len(dist) > 3 else 0.0)
    return Estimate(p_hit, levels, value)


def _outgunned(me: Combatant, t: Combatant) -> bool:
    """Whether ``me`` fights bare-handed against a lethal weapon in ``t``'s hand."""
    mine, theirs = hand_weapon(me, False)[0], hand_weapon(t, False)[0]
    return mine.cls is WeaponClass.UNARMED and theirs.cls is WeaponClass.MELEE and (
        theirs.damage_type is not DamageType.BASHING)


def _blade(battle: Battle, me: Combatant) -> Combatant | None:
    """The nearest able enemy when ``me`` is a bare-handed mortal and it wields a lethal
    melee weapon (the duel's Bar Brawler against the Knife Fighter), else None."""
    if me.vampire or me.willpower <= 0:
        return None
    enemies = [e for e in battle.enemies(me) if battle.able(e)]
    if not enemies:
        return None
    near = min(enemies, key=lambda e: (me.distance(e), e.id))
    return near if _outgunned(me, near) else None


def _clinch_declaration(me: Combatant, decision: Decision, *,
                        willpower: bool) -> Declaration | None:
    """One action, no Celerity: all on one clinch (MAN-6), with Willpower on it (DICE-8)
    unless already in the clinch (a crush needs no roll)."""
    for o in decision.options:
        if (isinstance(o, Declaration) and o.actions == 1 and o.willpower == willpower
                and not o.full_defense and o.celerity == 0):
            return o
    return None


def _plain_blow(spec: Maneuver) -> bool:
    """A blow the tactician weighs its own declared action by: no effect, grapple or
    area, and the weapon stays in hand (not thrown)."""
    return (spec.effect is None and not spec.grapple and spec.area == 0
            and spec.weapon is not WeaponUse.THROWN)


def _p_hit(plan: AttackPlan, d_pool: int) -> float:
    dist = attack_odds(
        attack_pool=plan.pool,
        attack_difficulty=plan.difficulty,
        defense_pool=d_pool,
        damage_base=1,
        auto_hit=plan.auto_hit,
    )
    return 1.0 - dist[0]


def blows(tables: Tables) -> list[str]:
    """The maneuvers a declaration is weighed by: those that only deal damage (no effect,
    no grip needed, not emptying the magazine), read off the maneuver table."""
    return [m for m, spec in tables.maneuvers.items()
            if spec.effect is None and not spec.magazine and not spec.grapple]
WILLPOWER_COST: Final = 0.35  # levels a Willpower point is worth keeping (more when few are left)
CELERITY_COST: Final = 0.1  # ... a blood point spent on Celerity
FULL_DEFENSE_COST: Final = 0.25  # ... a turn without attacking, beyond its expected damage
FULL_DEFENSE_MAX_ATTACK: Final = 0.2  # full defense only when no attack is worth more (levels)


class Blows:
    """The attacks a character could make, valued by exact odds at a dice penalty."""

    def __init__(self, battle: Battle, plans: list[tuple[AttackPlan, Combatant]]) -> None:
        self.battle = battle
        self.plans = plans
        self._memo: dict[tuple[int, bool], float] = {}

    def value(self, penalty: int, *, willpower: bool = False) -> float:
        key = (penalty, willpower)
        got = self._memo.get(key)
        if got is None:
            got = max((self._one(p, t, penalty, willpower) for p, t in self.plans), default=0.0)
            self._memo[key] = got
        return got

    def _one(self, plan: AttackPlan, t: Combatant, penalty: int, willpower: bool) -> float:
        if plan.pool - penalty <= 0:
            return 0.0
        less = _with_pool(plan, plan.pool - penalty)
        pen = t.defenses_used if t.full_defense else 0
        kind = DefenseKind.NONE
        if t.full_defense or t.actions_left > 0:
            kind = best_defense(t, less, room=not self.battle.field.cramped, penalty=pen)
        dist = plan_odds(less, t, self.battle.rules, kind, defense_penalty=pen,
                         willpower=willpower)
        return expected(dist)


class Threat:
    """An enemy's best attack on a character: what defending against it prevents."""

    def __init__(self, battle: Battle, me: Combatant, plan: AttackPlan, levels: float) -> None:
        self.battle = battle
        self.me = me
        self.plan = plan
        self.levels = levels

    def prevented(self, penalty: int) -> float:
        kind = best_defense(self.me, self.plan, room=not self.battle.field.cramped,
                            penalty=penalty)
        if kind is DefenseKind.NONE:
            return 0.0
        guarded = expected(plan_odds(self.plan, self.me, self.battle.rules, kind,
                                     defense_penalty=penalty))
        return max(0.0, self.levels - guarded)


def _with_pool(plan: AttackPlan, pool: int) -> AttackPlan:
    return AttackPlan(
        plan.maneuver, plan.weapon, plan.ability, pool, plan.difficulty, plan.specialty,
        plan.damage_base, plan.damage_auto, plan.damage_type, plan.extra_successes_add,
        plan.close, plan.rounds, plan.effect, plan.area, plan.auto_hit, plan.called,
        plan.offhand, plan.no_damage,
    )


class TacticianPolicy:
    """Chooses by exact odds; :meth:`explain` says why, in a Storyteller's words.

    Args:
        grapple: a bare-handed mortal facing a blade clinches it (MAN-6: in a clinch
            the knife is no use, DEF-6: a parry of any other blow cuts the hand that
            struck), one action with Willpower on it, and takes the blows it could only
            stop by aborting that action. A plan over turns rather than one exchange's
            odds: off for the ``tactician`` itself, on in the planner's prior (the
            duel's Bar Brawler wins 25% that way against the tactician's Knife Fighter,
            3% without; 300 seeds).
        called: weighs called shots (RNG-8: harder to hit, more damage) by their exact
            odds like any other attack, not only the heart shot with a stake. Off for the
            ``tactician`` itself, on in the planner's prior in fights of more than two: the
            gunfight's aimed shots at a vital spot (the robbers win 28% that way against the
            tactician, 11% without; 300 seeds a seat).
    """

    def __init__(self, grapple: bool = False, called: bool = False) -> None:
        self.grapple = grapple
        self.called = called
        self._why = "has not decided anything yet"

    def explain(self) -> str:
        return self._why

    def choose(self, battle: Battle, decision: Decision) -> Choice:
        me = battle.combatants[decision.actor]
        if decision.kind is DecisionKind.BLOOD:
            return self._blood(me, decision)
        if decision.kind is DecisionKind.DECLARE:
            return self._declare(battle, me, decision)
        if decision.kind is DecisionKind.DEFEND:
            return self._defend(battle, me, decision)
        return self._act(battle, me, decision)

    def _blood(self, me: Combatant, decision: Decision) -> Choice:
        heals = [
            o for o in decision.options if isinstance(o, BloodSpend) and o.use is BloodUse.HEAL
        ]
        if heals:
            best = max(heals, key=lambda o: o.points)
            self._why = f"{me.name} spends {best.points} blood to heal."
            return best
        self._why = f"{me.name} keeps its blood."
        return decision.options[0]

    def _declare(self, battle: Battle, me: Combatant, decision: Decision) -> Choice:
        """INIT-5 by exact odds: one action or several (ACT-1 penalties), Celerity (no
        penalty, a blood each), Willpower on the first attack, or full defense (DEF-7),
        by the health levels each is expected to deal or prevent this turn."""
        reserve = 2 if me.vampire else 0  # keep blood to heal
        if self.grapple and _blade(battle, me) is not None:
            plan = _clinch_declaration(me, decision, willpower=not me.grappling)
            if plan is not None:
                self._why = (f"{me.name} grapples the blade wielder: one action"
                             + (", Willpower on the clinch (MAN-6)." if plan.willpower else
                                ", squeezing (MAN-6)."))
                return plan
        blows = self._blows(battle, me)
        danger = self._threats(battle, me)
        best: tuple[float, int, Declaration] | None = None
        for i, o in enumerate(decision.options):
            if not isinstance(o, Declaration):
                continue
            if o.celerity and me.blood - o.celerity < reserve:
                continue
            value = self._declared_value(me, o, blows, danger)
            if best is None or value > best[0] + 1e-9:
                best = (value, i, o)
        assert best is not None
        value, _, choice = best
        if choice.full_defense:
            self._why = (f"{me.name} goes on full defense: it expects to prevent "
                         f"{value:.1f} levels and can hardly hurt anyone.")
        else:
            bits = [f"{choice.actions} action{'s' if choice.actions > 1 else ''}"]
            if choice.celerity:
                bits.append(f"{choice.celerity} with Celerity")
            if choice.willpower:
                bits.append("Willpower on the first blow")
            self._why = (f"{me.name} declares {', '.join(bits)} (about {value:.1f} levels "
                         "expected this turn, exact odds).")
        return choice

    @staticmethod
    def _declared_value(me: Combatant, o: Declaration, blows: Blows,
                        danger: list[Threat]) -> float:
        if o.full_defense:
            if blows.value(0) >= FULL_DEFENSE_MAX_ATTACK:
                return -1.0  # damage dealt wins fights; damage prevented only delays them
            worst = sorted(danger, key=lambda th: -th.prevented(0))
            return sum(th.prevented(k) for k, th in enumerate(worst)) - FULL_DEFENSE_COST
        n = o.actions
        value = 0.0
        for k in range(n):
            pen = n + k if n > 1 else 0
            attack = blows.value(pen, willpower=o.willpower and k == 0)
            if k == 0:
                value += attack
            else:
                # a spare action attacks again, or defends against the worst threat
                guard = max((th.prevented(pen) for th in danger), default=0.0)
                value += max(attack, guard)
        value += o.celerity * blows.value(0)
        if o.celerity:
            value -= CELERITY_COST * o.celerity
        if o.willpower:
            value -= WILLPOWER_COST if me.willpower > 2 else 2 * WILLPOWER_COST
        return value

    @staticmethod
    def _blows(battle: Battle, me: Combatant) -> Blows:
        """The attacks ``me`` could make now, as plans (penalties are added later)."""
        plans: list[tuple[AttackPlan, Combatant]] = []
        for t in battle.enemies(me):
            if not battle.able(t):
                continue
            for m in blows(battle.tables):
                plan = battle.plan(me.id, Action(ActionKind.ATTACK, m, t.id))
                if plan is not None and plan.pool > 0 and not plan.no_damage:
                    plans.append((plan, t))
        return Blows(battle, plans)

    @staticmethod
    def _threats(battle: Battle, me: Combatant) -> list[Threat]:
        """Each able enemy's best attack on ``me`` (what a defense would face)."""
        out = []
        for e in battle.enemies(me):
            if not battle.able(e):
                continue
            best: AttackPlan | None = None
            best_levels = 0.0
            for m in blows(battle.tables):
                plan = battle.plan(e.id, Action(ActionKind.ATTACK, m, me.id))
                if plan is None or plan.pool <= 0 or plan.no_damage:
                    continue
                levels = expected(plan_odds(plan, me, battle.rules))
                if levels > best_levels:
                    best, best_levels = plan, levels
            if best is not None:
                out.append(Threat(battle, me, best, best_levels))
        return out

    def _defend(self, battle: Battle, me: Combatant, decision: Decision) -> Choice:
        defenses = [
            o for o in decision.options if isinstance(o, Defense) and o.kind is not DefenseKind.NONE
        ]
        if not defenses:
            return decision.options[0]
        danger = self._incoming(battle, me, decision)

        def pool(o: Defense) -> int:
            return defense_pool(me, o.kind, me.defenses_used if me.full_defense else 0)

        free = [o for o in defenses if o.abort is None]
        spec = battle.tables.maneuvers.get(decision.maneuver or "")
        in_the_open = (
            spec is not None and not spec.close
            and not me.prone
            and battle.field.nearest_cover(me.x, me.y, 1.0) is None
            and hand_weapon(me, False)[0].cls not in SHOOTING
        )
        if in_the_open or danger < SPARE_DEFENSE:
            # DEF-5: dodging fire in the open leaves a brawler prone; a spare action
            # is better spent attacking than parrying a blow that will hardly hurt
            self._why = f"{me.name} ignores an attack expected to deal {danger:.1f} levels."
            return decision.options[0]
        if self.grapple and not free and _blade(battle, me) is not None:
            # outgunned: its Willpower goes on the clinch, and its action is its one hope
            self._why = f"{me.name} takes the blow (expected {danger:.1f} levels) to grapple."
            return decision.options[0]
        if free:
            best = max(free, key=pool)
            self._why = f"{me.name} {best.kind.value}s (expects {danger:.1f} levels otherwise)."
            return best
        method = None
        mine = self._my_blow(battle, me, decision.attacker)
        if danger >= ABORT_WITH_POINT and danger > 2 * mine:
            method = AbortMethod.WILLPOWER
        elif danger >= ABORT_WITH_ROLL and danger > mine:
            method = AbortMethod.ROLL
        paid = [o for o in defenses if o.abort is method] if method else []
        if not paid and method is AbortMethod.WILLPOWER:
            paid = [o for o in defenses if o.abort is AbortMethod.ROLL]
        if paid:
            best = max(paid, key=pool)
            self._why = (
                f"{me.name} abandons its action to {best.kind.value}: the blow is "
                f"expected to deal {danger:.1f} levels."
            )
            return best
        self._why = f"{me.name} takes the blow (expected {danger:.1f} levels) and keeps its action."
        return decision.options[0]

    def _my_blow(self, battle: Battle, me: Combatant, attacker: int | None) -> float:
        """What this character's own declared action is likely worth (against the attacker)."""
        if attacker is None:
            return 0.0
        best = 0.0
        for m, spec in battle.tables.maneuvers.items():
            if not _plain_blow(spec):
                continue
            a = Action(ActionKind.ATTACK, m, attacker)
            plan = battle.plan(me.id, a)
            if plan is not None and plan.pool > 0:
                best = max(best, estimate(battle, me, a, plan).expected_levels)
        return best

    @staticmethod
    def _incoming(battle: Battle, me: Combatant, decision: Decision) -> float:
        if decision.attacker is None or decision.maneuver is None:
            return 0.0
        a = Action(ActionKind.ATTACK, decision.maneuver, me.id)
        plan = battle.plan(decision.attacker, a)
        if plan is None:
            return 0.0
        dist = plan_odds(plan, me, battle.rules)
        return 0.0 if plan.no_damage else expected(dist)

    def _act(self, battle: Battle, me: Combatant, decision: Decision) -> Choice:
        actions = [o for o in decision.options if isinstance(o, Action)]
        for o in actions:
            if o.kind is ActionKind.FEED:
                self._why = f"{me.name} keeps drinking."
                return o
        blade = _blade(battle, me) if self.grapple and not me.grappling else None
        if blade is not None:
            for o in actions:
                if (o.kind is ActionKind.ATTACK and o.target == blade.id and o.called is None
                        and battle.tables.maneuvers[o.maneuver or ""].effect is Effect.CLINCH):
                    self._why = (f"{me.name} grapples {blade.name} to keep the blade "
                                 "out of play (MAN-6).")
                    return o
        best = self.best_attack(battle, me, actions, called=self.called)
        for o in actions:
            if o.kind is ActionKind.CRUSH and o.target is not None:
                crush = self._crush_value(battle, me, battle.combatants[o.target])
                if best is None or crush >= best[0]:
                    self._why = (
                        f"{me.name} squeezes {battle.combatants[o.target].name}: "
                        f"about {crush:.1f} health levels expected."
                    )
                    return o
        if best is not None and best[0] > 0.05:
            _, choice, est = best
            assert choice.target is not None
            target = battle.combatants[choice.target].name
            how = (choice.maneuver or "attack").replace("_", " ")
            self._why = (
                f"{me.name}: {how} on {target}, {est.p_hit:.0%} to hit, about "
                f"{est.expected_levels:.1f} health levels expected (exact odds)."
            )
            return choice
        for kind in (ActionKind.BREAK_FREE, ActionKind.CLEAR, ActionKind.RELOAD, ActionKind.GET_UP):
            for o in actions:
                if o.kind is kind:
                    self._why = f"{me.name}: {kind.value.replace('_', ' ')}."
                    return o
        run = pursuit(battle, me, actions)
        if run is not None:  # MOVE-4: nothing worth a blow: run after whoever flees
            assert run.target is not None
            self._why = f"{me.name} runs after {battle.combatants[run.target].name}."
            return run
        enemies = battle.enemies(me)
        if enemies:
            nearest = min(enemies, key=lambda e: (me.distance(e), e.id))
            for o in actions:
                if o.kind is ActionKind.MOVE and o.target == nearest.id and not o.away:
                    self._why = f"{me.name} closes on {nearest.name}."
                    return o
        self._why = f"{me.name} waits for an opening."
        return next((o for o in actions if o.kind is ActionKind.PASS), decision.options[-1])

    @staticmethod
    def best_attack(
        battle: Battle, me: Combatant, actions: list[Action], *, called: bool = False
    ) -> tuple[float, Action, Estimate] | None:
        """The attack option with the highest expected value, by exact odds; called shots
        only with ``called`` (else only the heart shot with a stake)."""
        best: tuple[float, Action, Estimate] | None = None
        table = battle.tables.maneuvers
        for o in actions:
            if o.kind is not ActionKind.ATTACK or o.offhand or o.maneuver is None:
                continue
            if o.called is not None and not called and not (
                o.called is CalledShot.TINY and table[o.maneuver].weapon in STAKE_USES
            ):
                continue  # only the heart shot with a stake is worth calling here
            plan = battle.plan(me.id, o)
            if plan is None:
                continue
            est = estimate(battle, me, o, plan)
            if best is None or est.value > best[0]:
                best = (est.value, o, est)
        return best

    @staticmethod
    def _crush_value(battle: Battle, me: Combatant, t: Combatant) -> float:
        """MAN-6: automatic Strength damage, soaked as bashing."""
        dist = attack_odds(
            attack_pool=0,
            attack_difficulty=6,
            auto_hit=True,
            damage_base=max(1, me.attr("strength")),
            extra_successes_add=False,
            soak_pool=soak_pool(t, DamageType.BASHING, battle.rules),
            halve=t.vampire,
            damage_auto=me.stats.discipline("potence"),
        )
        return sum(k * p for k, p in enumerate(dist))
