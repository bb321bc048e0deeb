"""Shared helpers for the rule tests: stat blocks, combatants and scripted battles.

Every battle here is built with :class:`vtm_sim.core.dice.ScriptedDice`, so each test
knows every face the engine will read. Dice order in a battle turn: one
initiative d10 per active combatant in id order; then, per attack, the attack
roll, the defense roll (if any), the damage roll (on a hit) and the soak roll
(when damage succeeded and the soak pool is above 0).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from vtm_sim.core.choices import (
    NO_DEFENSE,
    Action,
    ActionKind,
    Choice,
    Decision,
    DecisionKind,
    Declaration,
    Defense,
    DefenseKind,
)
from vtm_sim.core.dice import DiceSource, ScriptedDice
from vtm_sim.core.space import OPEN_FIELD, Field
from vtm_sim.data.rules import RuleSet, load_rules
from vtm_sim.data.stat_blocks import Kind, StatBlock, StatBlockSpec, build_stat_block
from vtm_sim.data.tables import load_tables
from vtm_sim.engine.battle import Battle, Fighter
from vtm_sim.events import Event, EventKind
from vtm_sim.mechanics.combatant import Combatant

BLOOD = DecisionKind.BLOOD
DECLARE = DecisionKind.DECLARE
ACT = DecisionKind.ACT
DEFEND = DecisionKind.DEFEND
ONE = Declaration()
PASS = Action(ActionKind.PASS)
WAIT = Action(ActionKind.WAIT)
DELAY = Action(ActionKind.DELAY)
DODGE = Defense(DefenseKind.DODGE)
BLOCK = Defense(DefenseKind.BLOCK)
PARRY = Defense(DefenseKind.PARRY)
NONE = NO_DEFENSE
FILLER = 2  # a face that is neither a success (at difficulty >= 3) nor a 1


def block(
    name: str = "x",
    *,
    kind: str = "mortal",
    attrs: dict[str, int] | None = None,
    abil: dict[str, int] | None = None,
    disc: dict[str, int] | None = None,
    **kw: Any,
) -> StatBlock:
    """A stat block built in memory (source ``test``)."""
    spec = StatBlockSpec(
        name=name,
        kind=Kind(kind),
        attributes=attrs or {},
        abilities=abil or {},
        disciplines=disc or {},
        **kw,
    )
    return build_stat_block(spec, "test")


def combatant(
    stats: StatBlock, cid: int = 0, side: int = 0, x: float = 0.0, y: float = 0.0
) -> Combatant:
    return Combatant.create(cid, stats, side, load_tables(), x, y)


def rules(name: str = "v20") -> RuleSet:
    return load_rules(name)


def battle(
    fighters: Iterable[Fighter],
    faces: Iterable[int],
    *,
    profile: str = "v20",
    turn_limit: int = 1,
) -> Battle:
    return Battle(
        list(fighters),
        dice=ScriptedDice(list(faces)),
        rules=load_rules(profile),
        turn_limit=turn_limit,
    )


def skip_blood(b: Battle) -> None:
    """Answer pending blood decisions (VAMP-2, before declaring) by spending nothing."""
    while b.pending is not None and b.pending.kind is BLOOD:
        b.choose(b.pending.options[0])


def step(b: Battle, kind: DecisionKind, actor: int, choice: Choice) -> Decision | None:
    """Check who must decide what, then answer (blood decisions: spend nothing)."""
    if kind is not BLOOD:
        skip_blood(b)
    d = b.pending
    assert d is not None, f"battle over, expected {kind.value} by {actor}"
    assert (d.kind, d.actor) == (kind, actor), (
        f"expected {kind.value} by {actor}, pending {d.kind.value} by {d.actor}"
    )
    return b.choose(choice)


def declare_all(b: Battle, declarations: dict[int, Declaration] | None = None) -> list[int]:
    """Answer every pending DECLARE (default: one action). Returns who declared, in order."""
    who = []
    declarations = declarations or {}
    skip_blood(b)
    while b.pending is not None and b.pending.kind is DECLARE:
        actor = b.pending.actor
        who.append(actor)
        b.choose(declarations.get(actor, ONE))
        skip_blood(b)
    return who


def attack(maneuver: str, target: int) -> Action:
    return Action(ActionKind.ATTACK, maneuver, target)


def run(b: Battle, decide: Callable[[Decision], Choice], limit: int = 200) -> list[Decision]:
    """Answer decisions with ``decide`` until the battle ends; returns them all
    (blood decisions are answered by spending nothing)."""
    seen = []
    while b.pending is not None and limit:
        if b.pending.kind is BLOOD:
            skip_blood(b)
            continue
        seen.append(b.pending)
        b.choose(decide(b.pending))
        limit -= 1
    assert b.pending is None, "battle did not end"
    return seen


def events(b: Battle, event: EventKind, /, **match: Any) -> list[Event]:
    """The log's events of one kind whose JSON keys match ``match``."""
    return [
        e for e in b.log.events if e.e is event and all(e.get(k) == v for k, v in match.items())
    ]


def rolls(b: Battle, what: str | None = None, who: int | None = None) -> list[Event]:
    out = events(b, EventKind.ROLL)
    if what is not None:
        out = [e for e in out if e["what"] == what]
    if who is not None:
        out = [e for e in out if e["who"] == who]
    return out


def dice_for(**faces: list[int]) -> Callable[[str], DiceSource]:
    """A ``dice_for`` giving each roll label (attack, dodge, damage, soak...) its own dice."""
    sources = {label: ScriptedDice(f, label) for label, f in faces.items()}

    def pick(label: str) -> DiceSource:
        assert label in sources, f"unexpected {label} roll"
        return sources[label]

    return pick


def one_success(pool: int, face: int = 6) -> list[int]:
    """Faces for a ``pool``-die roll with exactly one success (``face``) and no 1s."""
    return [face] + [FILLER] * (pool - 1)


# --- helpers for the maneuver, ranged, complication, vampire, movement and space tests ---


def battle_on(
    fighters: Iterable[Fighter],
    faces: Iterable[int],
    *,
    rules_set: RuleSet | None = None,
    profile: str = "v20",
    turn_limit: int = 1,
    field: Field = OPEN_FIELD,
    ambush: Iterable[tuple[int, int]] = (),
) -> Battle:
    """Like :func:`battle`, with a battlefield, ambushes or a custom rules set."""
    return Battle(
        list(fighters),
        dice=ScriptedDice(list(faces)),
        rules=rules_set if rules_set is not None else load_rules(profile),
        turn_limit=turn_limit,
        field=field,
        ambush=list(ambush),
    )


def offered(b: Battle) -> tuple[Choice, ...]:
    """The options of the pending decision (blood decisions skipped)."""
    skip_blood(b)
    assert b.pending is not None, "battle over: nothing offered"
    return b.pending.options


def offered_maneuvers(b: Battle, target: int | None = None) -> set[str]:
    """Attack maneuvers the pending ACT decision offers (against ``target`` if given)."""
    return {
        o.maneuver
        for o in offered(b)
        if isinstance(o, Action)
        and o.kind is ActionKind.ATTACK
        and o.maneuver is not None
        and (target is None or o.target == target)
    }


def offered_kinds(b: Battle) -> set[ActionKind]:
    """Action kinds the pending ACT decision offers."""
    return {o.kind for o in offered(b) if isinstance(o, Action)}


def single_roll(b: Battle, what: str, who: int | None = None) -> dict[str, Any]:
    """The one roll of a kind in the log (fails if there are none or several)."""
    found = rolls(b, what, who)
    assert len(found) == 1, f"expected one {what} roll, got {found}"
    return found[0]


def successes(n: int, pool: int, face: int = 8) -> list[int]:
    """Faces for a ``pool``-die roll with exactly ``n`` successes (``face``) and no 1s."""
    assert 0 <= n <= pool
    return [face] * n + [FILLER] * (pool - n)


def sheet(name: str = "x", *, kind: str = "mortal", **traits: Any) -> StatBlock:
    """A stat block from flat keywords: Attributes, Abilities and Disciplines are sorted
    by name; anything else (weapons, armor, merits, generation, blood, carrying,
    willpower, specialties) goes to the spec as is."""
    from vtm_sim.data.stat_blocks import ABILITIES, ATTRIBUTES, DISCIPLINES

    attrs = {k: v for k, v in traits.items() if k in ATTRIBUTES}
    abil = {k: v for k, v in traits.items() if k in ABILITIES}
    disc = {k: v for k, v in traits.items() if k in DISCIPLINES}
    rest = {k: v for k, v in traits.items() if k not in attrs and k not in abil and k not in disc}
    return block(name, kind=kind, attrs=attrs, abil=abil, disc=disc, **rest)


def puncher_at_its_action(declares: Declaration) -> tuple[Battle, Action]:
    """A two-dice puncher (side 0) at its action against a one-die dodger who declared
    ``declares`` (initiative: the puncher rolls 10, the dodger 1); the puncher's plain
    punch."""
    a = block("Puncher", attrs={"dexterity": 2, "strength": 1, "stamina": 1, "wits": 3})
    d = block("Dodger", attrs={"dexterity": 1, "stamina": 1, "wits": 1}, willpower=1)
    b = Battle([Fighter(a, 0, 0.0), Fighter(d, 1, 1.0)], dice=ScriptedDice([10, 1]),
               turn_limit=3)
    while b.pending is not None and b.pending.kind is not DecisionKind.ACT:
        p = b.pending
        b.choose(declares if p.kind is DecisionKind.DECLARE and p.actor == 1
                 else Declaration() if p.kind is DecisionKind.DECLARE else p.options[0])
    assert b.pending is not None and b.pending.actor == 0
    punch = next(o for o in b.pending.options if isinstance(o, Action)
                 and o.maneuver == "punch" and o.called is None)
    return b, punch
