"""Where a battle's turn sequence stands: a stack of frames, as plain data.

The turn sequence (INIT-*, ACT-*, DEF-*) is an explicit state machine: each
routine of it (the turn loop, declarations, the first pass, an action, an
attack, a defense, ...) keeps its place in a :class:`Frame` (``pc``, the step
it is at, and the combatants it walks), and the battle runs the top frame
until someone must decide. A frame holds only numbers, tuples of combatant
ids, an immutable choice and an attack plan, so a battle copies cheaply and
saves to JSON (``Battle.clone``, ``Battle.to_state``). A generator would read
more like the rules, but cannot be copied or saved.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from vtm_sim.core.choices import Action, CalledShot, DecisionKind, DefenseKind, choice_from_json
from vtm_sim.core.maneuvers import Effect
from vtm_sim.core.symbol import Symbol
from vtm_sim.data.tables import DamageType, Tables, Weapon
from vtm_sim.mechanics.attack import BONE_SPURS, FERAL_CLAWS, AttackPlan


class Routine(Symbol):
    TURNS = "turns"  # the root: ambushes, then turn after turn
    AMBUSH = "ambush"  # ATK-11
    DECLARE = "declare"  # INIT-5, VAMP-2
    FIRST = "first"  # first actions (INIT-3, INIT-6, INIT-7)
    INTERRUPTS = "interrupts"  # INIT-6
    EXTRA = "extra"  # INIT-8
    ACT = "act"  # one action
    ATTACK = "attack"  # one attack (RNG-6: a spray defends each target)
    DEFEND = "defend"  # DEF-2..7


# the steps (pc) a routine resumes at; 0 is always its start
TURNS_LOOP: Final = 1
TURNS_DECLARED: Final = 2
TURNS_FIRST_DONE: Final = 3
TURNS_PRELIMINARY: Final = 4  # INIT-9 (004): declared before the initiative roll
DECLARE_BLOOD: Final = 1
DECLARE_ASK: Final = 2
FIRST_GROUP: Final = 1
FIRST_INTERRUPTED: Final = 2
FIRST_ACTING: Final = 3
FIRST_END: Final = 4
FIRST_FINAL: Final = 5
AMBUSH_ASKED: Final = 1
AMBUSH_DONE: Final = 2
ACT_ASKED: Final = 1
ACT_ATTACKED: Final = 2
ATTACK_ROLLING: Final = 1
ATTACK_DEFENDING: Final = 2
DEFEND_ASKED: Final = 1


# Built a few times a step and copied on every Battle.clone: positional defaults and
# shared tuples keep both cheap (its own __init__: mypyc compiles it, the generated one
# stays Python).
@dataclass(slots=True, init=False)
class Frame:
    """One routine's place: ``pc`` and what it walks; the rest by routine.

    Only ``pc``, ``i`` and the routine's scalars change in place; the tuples are
    replaced, never changed, so a copy shares them.
    """

    routine: Routine
    pc: int
    actor: int  # who acts, declares or defends
    ids: tuple[int, ...]  # the combatants the routine walks (declare order, a group, targets)
    i: int  # the next of ``ids``
    rest: tuple[int, ...]  # FIRST: who is still to be reached
    first: bool  # ACT: the declared first action
    interrupt: bool  # ACT: interrupting (INIT-6)
    final: bool  # ACT: at the end of the pass (INIT-6/7)
    simultaneous: bool  # FIRST: the acting group has equal initiative (INIT-3)
    action: Action | None  # ATTACK: the attack chosen
    penalty: int  # ATTACK: the action's multiple-action penalty (ACT-1)
    plan: AttackPlan | None  # ATTACK: as planned when announced
    wp: bool  # ATTACK: Willpower spent on it (DICE-8)
    target: int  # DEFEND: the attacker
    defenses: tuple[tuple[DefenseKind, int], ...]  # ATTACK: each target's, in ``ids`` order

    def __init__(
        self, routine: Routine, pc: int = 0, actor: int = -1, ids: tuple[int, ...] = (),
        i: int = 0, rest: tuple[int, ...] = (), first: bool = False,
        interrupt: bool = False, final: bool = False, simultaneous: bool = False,
        action: Action | None = None, penalty: int = 0, plan: AttackPlan | None = None,
        wp: bool = False, target: int = -1,
        defenses: tuple[tuple[DefenseKind, int], ...] = (),
    ) -> None:
        self.routine = routine
        self.pc = pc
        self.actor = actor
        self.ids = ids
        self.i = i
        self.rest = rest
        self.first = first
        self.interrupt = interrupt
        self.final = final
        self.simultaneous = simultaneous
        self.action = action
        self.penalty = penalty
        self.plan = plan
        self.wp = wp
        self.target = target
        self.defenses = defenses

    def copy(self) -> Frame:
        # the tuples, the plan and the action are never changed once made: shared
        return Frame(self.routine, self.pc, self.actor, self.ids, self.i, self.rest, self.first,
                     self.interrupt, self.final, self.simultaneous, self.action, self.penalty,
                     self.plan, self.wp, self.target, self.defenses)

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"routine": self.routine.value, "pc": self.pc}
        if self.actor >= 0:
            d["actor"] = self.actor
        if self.ids:
            d["ids"] = list(self.ids)
        if self.i:
            d["i"] = self.i
        if self.rest:
            d["rest"] = list(self.rest)
        for name in ("first", "interrupt", "final", "simultaneous", "wp"):
            if getattr(self, name):
                d[name] = True
        if self.action is not None:
            d["action"] = self.action.to_json()
        if self.penalty:
            d["penalty"] = self.penalty
        if self.plan is not None:
            d["plan"] = plan_to_json(self.plan)
        if self.target >= 0:
            d["target"] = self.target
        if self.defenses:
            d["defenses"] = [[k.value, p] for k, p in self.defenses]
        return d

    @classmethod
    def from_json(cls, data: dict[str, Any], tables: Tables) -> Frame:
        action = data.get("action")
        plan = data.get("plan")
        chosen = None
        if action is not None:
            got = choice_from_json(DecisionKind.ACT, action)
            assert isinstance(got, Action)
            chosen = got
        return cls(
            Routine(data["routine"]), int(data["pc"]), actor=int(data.get("actor", -1)),
            ids=tuple(int(x) for x in data.get("ids", [])), i=int(data.get("i", 0)),
            rest=tuple(int(x) for x in data.get("rest", [])), first=bool(data.get("first")),
            interrupt=bool(data.get("interrupt")), final=bool(data.get("final")),
            simultaneous=bool(data.get("simultaneous")), action=chosen,
            penalty=int(data.get("penalty", 0)),
            plan=None if plan is None else plan_from_json(plan, tables),
            wp=bool(data.get("wp")), target=int(data.get("target", -1)),
            defenses=tuple((DefenseKind(k), int(p)) for k, p in data.get("defenses", [])),
        )


def plan_to_json(p: AttackPlan) -> dict[str, Any]:
    return {
        "maneuver": p.maneuver, "weapon": p.weapon.name, "ability": p.ability, "pool": p.pool,
        "difficulty": p.difficulty, "specialty": p.specialty, "damage_base": p.damage_base,
        "damage_auto": p.damage_auto, "damage_type": p.damage_type.value,
        "extra_successes_add": p.extra_successes_add, "close": p.close, "rounds": p.rounds,
        "effect": None if p.effect is None else p.effect.value, "area": p.area,
        "auto_hit": p.auto_hit,
        "called": None if p.called is None else p.called.value, "offhand": p.offhand,
        "no_damage": p.no_damage,
    }


def plan_from_json(d: dict[str, Any], tables: Tables) -> AttackPlan:
    called = d.get("called")
    effect = d.get("effect")
    return AttackPlan(
        str(d["maneuver"]), weapon_named(str(d["weapon"]), tables), str(d["ability"]),
        int(d["pool"]), int(d["difficulty"]), bool(d["specialty"]), int(d["damage_base"]),
        int(d["damage_auto"]), DamageType(d["damage_type"]), bool(d["extra_successes_add"]),
        bool(d["close"]), int(d["rounds"]), None if effect is None else Effect(effect),
        float(d["area"]), bool(d["auto_hit"]), None if called is None else CalledShot(called),
        bool(d["offhand"]), bool(d["no_damage"]),
    )


def weapon_named(name: str, tables: Tables) -> Weapon:
    """A weapon by name: the weapons table, unarmed, or a natural weapon (MAN-11)."""
    for natural in (FERAL_CLAWS, BONE_SPURS):
        if natural.name == name:
            return natural
    return tables.weapon(name)
