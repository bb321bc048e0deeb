"""The fight told in short plain sentences a Storyteller can read aloud.

:func:`tell` turns a battle's events into prose: who does what to whom, with
what, whether it lands and what it does, naming the modifiers that mattered
("Slugger is behind good cover, +2") and leaving the dice out (the detailed
log with every roll is :func:`vtm_sim.text.narration.narrate`, ``--narrate dice``).
Built from the events alone, like the dice log, so a saved log can be told
again: each event goes to the handler of its class (:data:`_HANDLERS`), which
reads the typed event's attributes. Each attack becomes one sentence once its
outcome is known.

Names follow :mod:`vtm_sim.text.names`: the full name at a combatant's first mention,
the short one after, and a pronoun for the subject of consecutive sentences when
nobody else was named in between ("Jax spends blood to heal 2 levels. He closes to 2
yards of the goon."). A move says the gap it leaves and whether it closed or opened
it; a stun says which turn it costs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Final

from vtm_sim.core.choices import Action, ActionKind, DecisionKind
from vtm_sim.events import (
    AbortEvent,
    ActionEvent,
    AmmoEvent,
    ArmorEvent,
    AttackEvent,
    BattleEvent,
    CaughtEvent,
    ChaseEvent,
    DamageEvent,
    DecideEvent,
    DefenseEvent,
    EndEvent,
    EscapeEvent,
    Event,
    FleeEvent,
    HitEvent,
    JumpEvent,
    MishapEvent,
    MissEvent,
    MoveEvent,
    OrderEvent,
    StatusEvent,
    StunEvent,
    TurnEvent,
)
from vtm_sim.text.names import PRONOUNS, Cast, cast_of
from vtm_sim.text.narration import _thing, _yards, plural

COVER_WORDS = {1: "light", 2: "good", 3: "superior"}
FIREARM_WORDS = {"single_shot": "fires at", "burst": "fires a burst at",
                 "full_auto": "empties the magazine at", "spray": "sprays fire at"}
CLOSE_WORDS = {
    "punch": "throws a punch at", "kick": "kicks at", "sweep": "sweeps at the legs of",
    "tackle": "tackles", "clinch": "grapples with", "hold": "grabs for",
    "bite": "sinks fangs into", "kiss": "goes for the throat of", "claws": "rakes claws at",
    "disarm": "goes for the weapon of",
}
CALLED_WORDS = {"medium": "a limb", "small": "the head", "tiny": "a vital spot"}
MIN_TOLD_YARDS = 0.5
SAME_GAP_YARDS = 0.05  # a move that changes the gap by less neither closes nor opens it
QUIET = frozenset({"pass", "ambush", "spray", "drink"})  # told elsewhere, or not worth a line


@dataclass(slots=True)
class _Who:
    side: int
    x: float
    y: float
    active: bool = True
    prone: bool = False


@dataclass(slots=True)
class _Blow:
    """An attack being told: what we know so far."""

    who: int
    target: int
    maneuver: str
    weapon: str | None
    called: str | None
    defense: str | None = None
    hit: bool | None = None
    levels: int | None = None
    dtype: str = ""
    after: list[str] = field(default_factory=list)  # sentences that follow (down, stunned)


class Teller:
    def __init__(self) -> None:
        self.people: list[_Who] = []
        self.cast = Cast(pronouns=True)
        self.cover: list[tuple[str, float, float, float, int]] = []
        self.lines: list[str] = []
        self.blow: _Blow | None = None
        self.turn = 0
        self.sides: dict[int, str] = {}
        self.acts: dict[int, Action] = {}  # each combatant's action being carried out
        self.stunned: dict[int, int] = {}  # who -> the turn a stun costs (DMG-6)

    # --- helpers --------------------------------------------------------------
    def name(self, i: Any) -> str:
        """A mention of ``i`` (its full name the first time, then its short name)."""
        return self.cast.ref(i)

    def subject(self, i: Any, verb: str) -> str:
        """``i`` opening a sentence with its verb: a pronoun where unambiguous."""
        return self.cast.subject(i, verb)

    def say(self, text: str) -> None:
        line = self.cast.resolve(text)
        self.lines.append(line[0].upper() + line[1:])

    def later(self, text: str) -> None:
        """A sentence that follows the attack being told (or stands alone)."""
        if self.blow is not None:
            self.blow.after.append(text)
        else:
            self.say(text)

    def cover_of(self, i: int, against: int) -> tuple[str, int] | None:
        """The cover zone ``i`` stands in that ``against`` is not in (RNG-1)."""
        p, q = self.people[i], self.people[against]
        best: tuple[str, int] | None = None
        for name, x, y, r, level in self.cover:
            inside = (p.x - x) ** 2 + (p.y - y) ** 2 <= r * r + 1e-9
            other = (q.x - x) ** 2 + (q.y - y) ** 2 <= r * r + 1e-9
            if inside and not other and (best is None or level > best[1]):
                best = (name, level)
        return best

    # --- events ---------------------------------------------------------------
    def on_battle(self, ev: BattleEvent) -> None:
        raw: Any = ev.combatants or []
        state = ev.state
        if isinstance(state, dict):
            raw = [{**c, "sheet": sh} for sh, c in
                   zip(state.get("sheets") or [], state.get("combatants") or [], strict=False)]
        self.cast.people = cast_of([c.get("sheet") or {} for c in raw])
        for i, c in enumerate(raw):
            self.people.append(_Who(int(c.get("side", i)), float(c.get("x", 0.0)),
                                    float(c.get("y", 0.0)), prone=bool(c.get("prone"))))
        fld = ev.field or (state.get("field") if isinstance(state, dict) else None) or {}
        self.cover = [(str(n), float(x), float(y), float(r), int(lv))
                      for n, x, y, r, lv in fld.get("cover", [])]
        if len(self.people) == 2 and self.people[0].side != self.people[1].side:
            a, b = self.people
            d = ((a.x - b.x) ** 2 + (a.y - b.y) ** 2) ** 0.5
            self.say(f"{self.name(0)} and {self.name(1)} face each other, {_yards(d)} apart.")
        else:
            sides: dict[int, list[int]] = {}
            for i, p in enumerate(self.people):
                sides.setdefault(p.side, []).append(i)
            self.say(" against ".join(self.cast.join(v) for _, v in sorted(sides.items())) + ".")
        if fld.get("lighting") == "dark":
            self.say("It is pitch dark.")
        for name, _x, _y, _r, _level in self.cover:
            inside = [i for i, p in enumerate(self.people) if self._in(p, name)]
            if inside:
                self.say(f"{self.cast.join(inside)} {'is' if len(inside) == 1 else 'are'} "
                         f"behind the {name}.")

    def _in(self, p: _Who, zone: str) -> bool:
        for name, x, y, r, _lv in self.cover:
            if name == zone and (p.x - x) ** 2 + (p.y - y) ** 2 <= r * r + 1e-9:
                return True
        return False

    def on_turn(self, ev: TurnEvent) -> None:
        self.flush()
        self.turn = ev.turn
        self.acts = {}
        self.say(f"Turn {self.turn}.")

    def on_order(self, ev: OrderEvent) -> None:
        """CPX-2: who sits this turn out, stunned the turn before (DMG-6)."""
        for who, lost in sorted(self.stunned.items()):
            if lost == self.turn and who in ev.order and self.people[who].active:
                self.say(self.subject(who, "is still dazed and ^sits out this turn") + ".")

    def on_decide(self, ev: DecideEvent) -> None:
        if ev.kind is DecisionKind.ACT and isinstance(ev.choice, Action):
            self.acts[ev.who] = ev.choice

    def on_move(self, ev: MoveEvent) -> None:
        self.flush()
        who = ev.who
        p = self.people[who]
        fx, fy = p.x, p.y
        p.x, p.y = float(ev.to[0]), float(ev.to[1])
        if float(ev.yards) < MIN_TOLD_YARDS:
            return  # a shuffle into reach is not worth a sentence
        act = self.acts.get(who)
        kind = act.kind if act is not None else None
        other = self.reference(who, act)
        yards = _yards(float(ev.yards))
        if other is None:
            verb = "runs" if kind in (ActionKind.FLEE, ActionKind.PURSUE) else "moves"
            self.say(self.subject(who, f"{verb} {yards}") + ".")
            return
        q = self.people[other]
        before = ((q.x - fx) ** 2 + (q.y - fy) ** 2) ** 0.5
        after = ((q.x - p.x) ** 2 + (q.y - p.y) ** 2) ** 0.5
        gap, them = _yards(after), self.name(other)
        if kind is ActionKind.FLEE:
            self.say(self.subject(who, f"runs {yards}, now {gap} from") + f" {them}.")
        elif kind is ActionKind.PURSUE:
            self.say(self.subject(who, f"runs {yards} after") + f" {them}, now {gap} behind.")
        elif after < before - SAME_GAP_YARDS:
            self.say(self.subject(who, f"closes to {gap} of") + f" {them}.")
        elif after > before + SAME_GAP_YARDS:
            self.say(self.subject(who, f"backs off to {gap} from") + f" {them}.")
        else:
            self.say(self.subject(who, f"moves {yards}, still {gap} from") + f" {them}.")

    def reference(self, who: int, act: Action | None) -> int | None:
        """Whom a move's distance is told from: the target of the action, else the
        nearest enemy still in the fight (after the move)."""
        target = act.target if act is not None else None
        if isinstance(target, int) and target != who and 0 <= target < len(self.people):
            return target
        p = self.people[who]
        foes = [i for i, q in enumerate(self.people) if q.side != p.side and q.active]
        if not foes:
            return None
        return min(foes, key=lambda i: (self.people[i].x - p.x) ** 2
                   + (self.people[i].y - p.y) ** 2)

    def on_attack(self, ev: AttackEvent) -> None:
        self.flush()
        self.blow = _Blow(ev.who, ev.target, ev.maneuver, ev.weapon,
                          None if ev.called is None else ev.called.value)

    def on_defense(self, ev: DefenseEvent) -> None:
        if self.blow is not None and ev.who == self.blow.target:
            self.blow.defense = ev.kind.value

    def on_abort(self, ev: AbortEvent) -> None:
        if not ev.ok:
            self.say(self.subject(ev.who, "tries") + f" to abandon "
                     f"{self.cast.possessive(ev.who)} plan, but cannot.")

    def on_miss(self, ev: MissEvent) -> None:
        b = self.blow
        if b is not None and ev.target == b.target and b.hit is None:
            b.hit = False

    def on_hit(self, ev: HitEvent) -> None:
        b = self.blow
        if ev.parry:
            self.flush()
            self.say(f"{self.name(ev.who)}'s parry cuts {self.name(ev.target)}'s hand.")
            return
        if ev.mishap:
            self.flush()
            self.say(f"The blow goes wide and strikes {self.name(ev.target)} instead.")
            return
        if b is not None and ev.target == b.target:
            b.hit = True

    def on_damage(self, ev: DamageEvent) -> None:
        b = self.blow
        levels = ev.levels
        if b is not None and ev.who == b.target and b.levels is None:
            b.levels = levels
            b.dtype = ev.type.value
            return
        if levels:
            self.flush()
            self.say(self.subject(ev.who, f"takes {plural(levels, 'level')} of "
                                          f"{ev.type.value} damage ({ev.level})") + ".")

    def on_stun(self, ev: StunEvent) -> None:
        """DMG-6: the stun costs the next turn, not the rest of this one: say which."""
        self.stunned[ev.who] = ev.turn
        self.later(self.subject(ev.who, f"is stunned and will lose turn {ev.turn}") + ".")

    def on_status(self, ev: StatusEvent) -> None:
        who = ev.who
        status = ev.status.value
        self.people[who].active = status == "active"
        words = {"incapacitated": "goes down and ^stays down", "torpor": "falls into torpor",
                 "dead": "is dead",
                 "active": f"is back on {self.cast.possessive(who)} feet"}
        self.later(self.subject(who, words.get(status, f"is {status}")) + ".")

    def on_armor(self, ev: ArmorEvent) -> None:
        self.later(f"{self.name(ev.who)}'s armor is torn apart.")

    def on_ammo(self, ev: AmmoEvent) -> None:
        if ev.left == 0:
            self.later(f"{self.name(ev.who)}'s {_thing(ev.weapon)} is empty.")

    def on_mishap(self, ev: MishapEvent) -> None:
        who, w = ev.who, _thing(ev.weapon)
        effect = str(ev.effect)
        me, act = self.name(who), self.subject
        words = {
            "jam": f"{me}'s {w} jams.", "drop": act(who, f"fumbles and ^drops the {w}") + ".",
            "break": f"{me}'s {w} breaks.", "off_balance": act(who, "stumbles, off balance") + ".",
            "fall": act(who, "slips and ^falls") + ".",
            "self_damage": act(who, f"hurts {self.cast.reflexive(who)}") + ".",
            "struck_by_opponent": act(who, "leaves an opening and ^is struck") + ".",
            "hit_ally": f"{me}'s attack goes astray.",
        }
        text = words.get(effect) or act(who, f"botches badly ({effect})") + "."
        if self.blow is not None:
            self.blow.hit = False
        self.later(text)

    def on_action(self, ev: ActionEvent) -> None:
        what = ev.action
        who = ev.who
        data = ev.data
        act = self.subject
        own, oneself = self.cast.possessive(who), self.cast.reflexive(who)
        if what in QUIET:
            if what == "drink" and data.get("points"):
                self.flush()
                self.say(act(who, f"drinks {plural(int(data['points']), 'point')} of blood "
                                  "from") + f" {self.name(data.get('target'))}.")
            return
        if what in ("falls prone", "regains footing", "off balance", "disarmed", "staked"):
            text = {
                "falls prone": act(who, f"is knocked off {own} feet") + ".",
                "regains footing": act(who, f"staggers but ^keeps {own} feet") + ".",
                "off balance": act(who, "is thrown off balance") + ".",
                "disarmed": f"{self.name(who)}'s {_thing(data.get('weapon'))} goes flying.",
                "staked": f"The stake finds {self.name(who)}'s heart: "
                          f"{self.cast.they(who, 'is')} paralysed.",
            }[what]
            if what == "falls prone":
                self.people[who].prone = True
            self.later(text)
            return
        self.flush()
        if what in ("clinch", "hold", "kiss"):
            target = self.name(data.get("target"))
            words = {"clinch": f"{self.name(who)} and {target} are locked in a clinch.",
                     "hold": act(who, "pins") + f" {target}.",
                     "kiss": act(who, "sinks into the Kiss on") + f" {target}."}
            self.say(words[what])
            return
        if what == "drop_prone":
            if self.people[who].active and not self.people[who].prone:
                self.people[who].prone = True
                self.say(act(who, "drops flat") + ".")
            return
        if what == "get_up":
            if data.get("ok", True):
                self.people[who].prone = False
                self.say(act(who, "gets back up") + ".")
            else:
                self.say(act(who, "tries to get up and ^fails") + ".")
            return
        ok = data.get("ok", True)
        target = self.name(data.get("target"))
        simple = {
            "reload": act(who, "reloads" if ok else "fumbles the reload") + ".",
            "clear": act(who, "clears the jam" if ok else "can't clear it") + ".",
            "draw": act(who, f"readies the {_thing(data.get('weapon'))}") + ".",
            "take_cover": act(who, f"dives behind the {data.get('cover', 'cover')}") + ".",
            "dodge_to_cover": act(who, f"throws {oneself} behind the "
                                       f"{data.get('cover', 'cover')}") + ".",
            "aim": act(who, "takes careful aim at") + f" {target}.",
            "crush": act(who, "squeezes") + f" {target}.",
            "release": act(who, "lets go") + ".",
            "break_free": act(who, "breaks free" if data.get("ok")
                              else "struggles but can't break free") + ".",
        }
        if what == "blood":
            use = str(data.get("use"))
            pts = int(data.get("points", 0))
            if use == "heal":
                healed = int(data.get("healed", 0))
                self.say(act(who, f"spends blood to heal {plural(healed, 'level')}") + ".")
            elif pts:
                self.say(act(who, f"spends {plural(pts, 'blood point')} on {use}") + ".")
            return
        if what in simple:
            self.say(simple[what])

    # --- chases and jumps (MOVE-3, MOVE-4) ------------------------------------
    def on_flee(self, ev: FleeEvent) -> None:
        self.flush()
        self.say(self.subject(ev.who, f"turns and ^runs, {_yards(ev.lead)} ahead of the "
                                      "nearest enemy") + ".")

    def on_chase(self, ev: ChaseEvent) -> None:
        self.flush()
        who, quarry = ev.who, ev.quarry
        if ev.tired:
            self.say(self.subject(who, "is tiring") + ".")
        if who == quarry:
            return  # the quarry's running is told by its moves and the pursuers' gains
        if ev.total > ev.rival:
            return  # told as the catch
        q, them = self.name(quarry), self.cast.object(quarry)
        if ev.added > 0:
            self.say(self.subject(who, "runs after") + f" {q} and ^gains on {them}.")
        else:
            self.say(self.subject(who, "runs after") + f" {q} but ^loses ground.")

    def on_caught(self, ev: CaughtEvent) -> None:
        self.flush()
        if ev.dead_end:
            self.say(self.subject(ev.quarry, "runs into a dead end") + f", and "
                     f"{self.name(ev.who)} is on {self.cast.object(ev.quarry)}.")
        else:
            self.say(self.subject(ev.who, "catches up with") + f" {self.name(ev.quarry)}.")

    def on_escaped(self, ev: EscapeEvent) -> None:
        self.flush()
        who = ev.who
        self.people[who].active = False
        if ev.reason == "unpursued":
            self.say(f"Nobody gives chase: {self.name(who)} gets away.")
        else:
            self.say(self.subject(who, "outruns them all and ^gets away") + ".")

    def on_jump(self, ev: JumpEvent) -> None:
        self.flush()
        who = ev.who
        what = ev.obstacle
        if ev.detour:
            self.say(self.subject(who, f"goes around the {what}") + ".")
        elif ev.ok:
            self.say(self.subject(who, f"leaps the {what}") + ".")
        elif ev.prone:
            self.people[who].prone = True
            self.say(self.subject(who, f"comes up short at the {what} and ^falls") + ".")
        else:
            self.say(self.subject(who, f"comes up short at the {what} but ^lands on "
                                       f"{self.cast.possessive(who)} feet") + ".")

    def on_end(self, ev: EndEvent) -> None:
        self.flush()
        turns = ev.turns
        winner = ev.winner
        if ev.reason == "turn limit":
            self.say(f"The fight is called after {plural(turns, 'turn')}, undecided.")
        elif winner is None:
            self.say(f"After {plural(turns, 'turn')} nobody is left standing.")
        else:
            ids = [i for i, p in enumerate(self.people) if p.side == winner and p.active]
            ids = ids or [i for i, p in enumerate(self.people) if p.side == winner]
            verb = "wins" if len(ids) == 1 else "win"
            self.say(f"{self.cast.join(ids)} {verb} after "
                     f"{plural(turns, 'turn')}.")

    # --- one attack, one sentence ---------------------------------------------
    def flush(self) -> None:
        b = self.blow
        if b is None:
            return
        self.blow = None
        self.say(self.sentence(b))
        for text in b.after:
            self.say(text)

    def sentence(self, b: _Blow) -> str:
        them = self.name(b.target)
        w = _thing(b.weapon) if b.weapon and b.weapon != "unarmed" else None
        if b.maneuver in FIREARM_WORDS:
            verb = FIREARM_WORDS[b.maneuver]
            if b.maneuver in ("single_shot",) and w and ("bow" in w or "crossbow" in w):
                verb = "looses an arrow at"
        elif b.maneuver == "thrown":
            verb = f"throws the {w or 'weapon'} at"
        elif b.maneuver == "weapon_strike":
            verb = f"swings the {w or 'weapon'} at"
        else:
            verb = CLOSE_WORDS.get(b.maneuver, "attacks")
        text = f"{self.subject(b.who, verb)} {them}"
        if b.called:
            text += f", aiming for {CALLED_WORDS.get(b.called, 'a weak spot')}"
        mods = self.modifiers(b)
        if mods:
            text += f" ({mods})"
        return text + self.outcome(b)

    def modifiers(self, b: _Blow) -> str:
        bits: list[str] = []
        if b.maneuver in FIREARM_WORDS or b.maneuver == "thrown":
            theirs = self.cover_of(b.target, b.who)
            if theirs is not None:
                bits.append(f"{self.name(b.target)} is behind {COVER_WORDS.get(theirs[1], '')} "
                            f"cover, +{theirs[1]}")
            elif self.people[b.target].prone:
                bits.append(f"{self.name(b.target)} is down flat, +1")
            mine = self.cover_of(b.who, b.target)
            if mine is not None:
                bits.append(f"shooting from behind the {mine[0]}")
        return "; ".join(bits)

    def outcome(self, b: _Blow) -> str:
        if b.hit is False or b.hit is None:
            if b.defense in ("dodge", "block", "parry"):
                verb = {"dodge": "dodges", "block": "blocks", "parry": "parries"}[b.defense]
                return f", but {self.defender(b)} {verb} it."
            return ", but ^misses."
        if b.maneuver in ("clinch", "hold", "kiss") and not b.levels:
            return "."
        if b.levels is None:
            return " and ^connects."
        if b.levels == 0:
            return " and ^connects, to no effect."
        return f" and ^hits for {plural(b.levels, 'level')} of {b.dtype} damage."

    def defender(self, b: _Blow) -> str:
        """The target, named again in its own attack's sentence: a pronoun where the
        attacker's cannot be confused with it ("Jax swings at Wren, but she dodges")."""
        mine, theirs = self.cast.pronoun(b.who), self.cast.pronoun(b.target)
        if mine != theirs and "they" not in (mine, theirs):
            return PRONOUNS[theirs][0]
        return self.name(b.target)


# Each event class's handler, built once: the story dispatches on the event's class.
# An event of a class not here (an exchange header, initiative, rolls, ...) says nothing.
_HANDLERS: Final[dict[type[Event], Callable[[Teller, Any], None]]] = {
    BattleEvent: Teller.on_battle,
    TurnEvent: Teller.on_turn,
    OrderEvent: Teller.on_order,
    DecideEvent: Teller.on_decide,
    MoveEvent: Teller.on_move,
    AttackEvent: Teller.on_attack,
    DefenseEvent: Teller.on_defense,
    AbortEvent: Teller.on_abort,
    MissEvent: Teller.on_miss,
    HitEvent: Teller.on_hit,
    DamageEvent: Teller.on_damage,
    StunEvent: Teller.on_stun,
    StatusEvent: Teller.on_status,
    ArmorEvent: Teller.on_armor,
    AmmoEvent: Teller.on_ammo,
    MishapEvent: Teller.on_mishap,
    ActionEvent: Teller.on_action,
    FleeEvent: Teller.on_flee,
    ChaseEvent: Teller.on_chase,
    CaughtEvent: Teller.on_caught,
    EscapeEvent: Teller.on_escaped,
    JumpEvent: Teller.on_jump,
    EndEvent: Teller.on_end,
}


def tell(events: Iterable[Event]) -> list[str]:
    """The battle in plain sentences, in order (a live log or one read back from JSONL)."""
    t = Teller()
    for ev in events:
        handler = _HANDLERS.get(type(ev))
        if handler is not None:
            handler(t, ev)
    t.flush()
    return t.lines
