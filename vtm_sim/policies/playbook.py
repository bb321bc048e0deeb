"""Scripted tactics from YAML: a few rules of thumb over a base policy.

A tactic file (``configs/tactics/NAME.yaml``, every key in
``docs/tactics.md``; ``vtm-sim schema tactic``) names a base policy, the
built-in ``nearest`` or the ``tactician``, and the rules a Storyteller would
give an NPC on top of it: take cover first, aim before shooting, fire bursts,
defend at any cost or never, run at a wound level, spend blood freely. Each
rule answers only the decisions it speaks of; the base answers the rest.
:class:`TacticPolicy` interprets one over the battle's decisions, the same
way for every tactic.
"""

from __future__ import annotations

from vtm_sim.core.choices import (
    Action,
    ActionKind,
    BloodSpend,
    BloodUse,
    Choice,
    Decision,
    DecisionKind,
    Declaration,
    Defense,
    DefenseKind,
)
from vtm_sim.data.tactic_files import Tactic, load_tactic, tactic_dir
from vtm_sim.engine.battle import Battle
from vtm_sim.mechanics.attack import SHOOTING, defense_pool, hand_weapon
from vtm_sim.mechanics.combatant import Combatant
from vtm_sim.policies.nearest import NearestEnemyPolicy
from vtm_sim.policies.play import Policy
from vtm_sim.policies.tactician import TacticianPolicy

__all__ = ["Tactic", "TacticPolicy", "load_tactic", "tactic_dir"]


_BURSTS = ("full_auto", "burst")  # the bigger volley first


class TacticPolicy:
    """Plays a :class:`Tactic`: its rules first, its base policy for the rest."""

    def __init__(self, tactic: Tactic) -> None:
        self.tactic = tactic
        self.base: Policy = NearestEnemyPolicy()
        if tactic.base == "tactician":
            self.base = TacticianPolicy(grapple=tactic.grapple, called=tactic.called_shots)
        self._flee_from = -1

    def explain(self) -> str:
        return self.tactic.description or self.tactic.name

    def choose(self, battle: Battle, decision: Decision) -> Choice:
        if len(decision.options) == 1:
            return decision.options[0]
        me = battle.combatants[decision.actor]
        pick: Choice | None = None
        if decision.kind is DecisionKind.BLOOD:
            pick = self._blood(me, decision)
        elif decision.kind is DecisionKind.DECLARE:
            pick = self._declare(me, battle, decision)
        elif decision.kind is DecisionKind.DEFEND:
            pick = self._defend(me, decision)
        else:
            pick = self._act(me, battle, decision)
        return pick if pick is not None else self.base.choose(battle, decision)

    def _fleeing(self, me: Combatant, battle: Battle) -> bool:
        t = self.tactic
        if t.flee_at is None:
            return False
        if self._flee_from < 0:
            names = [lvl.name for lvl in battle.tables.health]
            self._flee_from = names.index(t.flee_at) + 1  # boxes filled at that level
        return me.health.filled >= self._flee_from

    def _blood(self, me: Combatant, d: Decision) -> Choice | None:
        spends = [o for o in d.options if isinstance(o, BloodSpend)]
        if self.tactic.blood == "never":
            return next((o for o in spends if o.use is BloodUse.NONE), None)
        if self.tactic.blood == "heal":
            return None
        heals = [o for o in spends if o.use is BloodUse.HEAL]
        if heals:  # VAMP-2: hurt: heal as much as the turn allows
            return max(heals, key=lambda o: o.points)
        _, idx = hand_weapon(me, False)
        use = BloodUse.DEXTERITY if idx >= 0 and me.stats.weapons[idx].cls in SHOOTING \
            else BloodUse.STRENGTH
        boosts = [o for o in spends if o.use is use]
        return max(boosts, key=lambda o: o.points) if boosts else None

    def _declare(self, me: Combatant, battle: Battle, d: Decision) -> Choice | None:
        decls = [o for o in d.options if isinstance(o, Declaration)]
        if self.tactic.full_defense or self._fleeing(me, battle):
            full = [o for o in decls if o.full_defense]
            if full:
                return max(full, key=lambda o: (o.celerity, o.willpower))
        if self.tactic.willpower and me.willpower > 0:
            plain = [o for o in decls if o.actions == 1 and not o.full_defense and o.willpower]
            if plain:
                return max(plain, key=lambda o: o.celerity)
        return None

    def _defend(self, me: Combatant, d: Decision) -> Choice | None:
        defenses = [o for o in d.options if isinstance(o, Defense)]
        if self.tactic.defend == "never":
            return next((o for o in defenses if o.kind is DefenseKind.NONE), None)
        if self.tactic.defend == "free":
            return None
        real = [o for o in defenses if o.kind is not DefenseKind.NONE]
        if not real:
            return None
        # DEF-3: aborting by a roll before spending Willpower
        return max(real, key=lambda o: (defense_pool(me, o.kind, 0), o.abort is None,
                                        str(o.abort)))

    def _act(self, me: Combatant, battle: Battle, d: Decision) -> Choice | None:
        actions = [o for o in d.options if isinstance(o, Action)]
        t = self.tactic
        enemies = battle.enemies(me)
        if self._fleeing(me, battle) and enemies:
            nearest = min(enemies, key=lambda e: (me.distance(e), e.id))
            away = [o for o in actions if o.kind is ActionKind.MOVE and o.away
                    and o.target == nearest.id]
            if away:
                return away[0]
        w, idx = hand_weapon(me, False)
        gun = idx >= 0 and w.cls in SHOOTING and me.ammo[idx] > 0
        in_cover = battle.field.cover_at(me.x, me.y) is not None
        if gun and t.take_cover and not in_cover:
            cover = [o for o in actions if o.kind is ActionKind.TAKE_COVER]
            if cover:
                return cover[0]
        base = self.base.choose(battle, d)
        if not (isinstance(base, Action) and base.kind is ActionKind.ATTACK and gun):
            return base
        if t.aim and (in_cover or not t.take_cover) and me.aim is None:
            aim = [o for o in actions if o.kind is ActionKind.AIM and o.target == base.target]
            if aim:
                return aim[0]
        if t.burst:  # RNG-4, RNG-5: the bigger volley the gun allows, at the same target
            for m in _BURSTS:
                for o in actions:
                    if (o.kind is ActionKind.ATTACK and o.maneuver == m and o.target == base.target
                            and o.called is None and not o.offhand):
                        return o
        return base
