"""The fight told in short plain sentences a Storyteller can read aloud.

:func:`tell` turns a battle's events into prose: who does what to whom, with
what, whether it lands and what it does, naming the modifiers that mattered
("Slugger is behind good cover, +2") and leaving the dice out (the detailed
log with every roll is :func:`vtm_sim.text.narration.narrate`, ``--narrate dice``).
Built from the events alone, like the dice log, so a saved log can be told
again: each event goes to the handler of its class (:data:`_HANDLERS`), which
reads the typed event's attributes. Each attack becomes one sentence once its
outcome is known.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Final

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
    StatusEvent,
    StunEvent,
    TurnEvent,
)
from vtm_sim.text.narration import _join, _thing, _yards, plural

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
QUIET = frozenset({"pass", "ambush", "spray", "drink"})  # told elsewhere, or not worth a line


@dataclass(slots=True)
class _Who:
    name: str
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
        self.cover: list[tuple[str, float, float, float, int]] = []
        self.lines: list[str] = []
        self.blow: _Blow | None = None
        self.turn = 0
        self.sides: dict[int, str] = {}

    # --- helpers --------------------------------------------------------------
    def name(self, i: Any) -> str:
        try:
            return self.people[int(i)].name
        except (IndexError, TypeError, ValueError):
            return f"combatant {i}"

    def say(self, text: str) -> None:
        self.lines.append(text[0].upper() + text[1:])

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
        names = [str((c.get("sheet") or {}).get("name", f"combatant {i}"))
                 for i, c in enumerate(raw)]
        for i, c in enumerate(raw):
            n = names[i]
            if names.count(n) > 1:
                n = f"{n} {names[: i + 1].count(n)}"
            self.people.append(_Who(n, int(c.get("side", i)), float(c.get("x", 0.0)),
                                    float(c.get("y", 0.0)), prone=bool(c.get("prone"))))
        fld = ev.field or (state.get("field") if isinstance(state, dict) else None) or {}
        self.cover = [(str(n), float(x), float(y), float(r), int(lv))
                      for n, x, y, r, lv in fld.get("cover", [])]
        if len(self.people) == 2 and self.people[0].side != self.people[1].side:
            a, b = self.people
            d = ((a.x - b.x) ** 2 + (a.y - b.y) ** 2) ** 0.5
            self.say(f"{a.name} and {b.name} face each other, {_yards(d)} apart.")
        else:
            sides: dict[int, list[str]] = {}
            for p in self.people:
                sides.setdefault(p.side, []).append(p.name)
            self.say(" against ".join(_join(v) for _, v in sorted(sides.items())) + ".")
        if fld.get("lighting") == "dark":
            self.say("It is pitch dark.")
        for name, _x, _y, _r, _level in self.cover:
            inside = [p.name for p in self.people if self._in(p, name)]
            if inside:
                self.say(f"{_join(inside)} {'is' if len(inside) == 1 else 'are'} "
                         f"behind the {name}.")

    def _in(self, p: _Who, zone: str) -> bool:
        for name, x, y, r, _lv in self.cover:
            if name == zone and (p.x - x) ** 2 + (p.y - y) ** 2 <= r * r + 1e-9:
                return True
        return False

    def on_turn(self, ev: TurnEvent) -> None:
        self.flush()
        self.turn = ev.turn
        self.say(f"Turn {self.turn}.")

    def on_move(self, ev: MoveEvent) -> None:
        self.flush()
        who = ev.who
        p = self.people[who]
        to = ev.to
        fx, fy = p.x, p.y
        p.x, p.y = float(to[0]), float(to[1])
        if float(ev.yards) < MIN_TOLD_YARDS:
            return  # a shuffle into reach is not worth a sentence
        foes = [q for q in self.people if q.side != p.side and q.active]
        if foes:
            near = min(foes, key=lambda q: (q.x - p.x) ** 2 + (q.y - p.y) ** 2)
            before = ((near.x - fx) ** 2 + (near.y - fy) ** 2) ** 0.5
            after = ((near.x - p.x) ** 2 + (near.y - p.y) ** 2) ** 0.5
            way = f"closes in on {near.name}" if after < before else f"backs away from {near.name}"
        else:
            way = "moves"
        self.say(f"{p.name} {way} ({_yards(float(ev.yards))}).")

    def on_attack(self, ev: AttackEvent) -> None:
        self.flush()
        self.blow = _Blow(ev.who, ev.target, ev.maneuver, ev.weapon,
                          None if ev.called is None else ev.called.value)

    def on_defense(self, ev: DefenseEvent) -> None:
        if self.blow is not None and ev.who == self.blow.target:
            self.blow.defense = ev.kind.value

    def on_abort(self, ev: AbortEvent) -> None:
        if not ev.ok:
            self.say(f"{self.name(ev.who)} tries to abandon what it planned, but can't.")

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
            self.say(f"{self.name(ev.who)} takes {plural(levels, 'level')} of "
                     f"{ev.type.value} damage ({ev.level}).")

    def on_stun(self, ev: StunEvent) -> None:
        text = f"{self.name(ev.who)} is stunned and loses the next turn."
        if self.blow is not None:
            self.blow.after.append(text)
        else:
            self.say(text)

    def on_status(self, ev: StatusEvent) -> None:
        who = ev.who
        status = ev.status.value
        self.people[who].active = status == "active"
        words = {"incapacitated": "goes down and stays down", "torpor": "falls into torpor",
                 "dead": "is dead", "active": "is back on their feet"}
        text = f"{self.name(who)} {words.get(status, status)}."
        if self.blow is not None:
            self.blow.after.append(text)
        else:
            self.say(text)

    def on_armor(self, ev: ArmorEvent) -> None:
        text = f"{self.name(ev.who)}'s armor is torn apart."
        if self.blow is not None:
            self.blow.after.append(text)
        else:
            self.say(text)

    def on_ammo(self, ev: AmmoEvent) -> None:
        if ev.left == 0:
            text = f"{self.name(ev.who)}'s {_thing(ev.weapon)} is empty."
            if self.blow is not None:
                self.blow.after.append(text)
            else:
                self.say(text)

    def on_mishap(self, ev: MishapEvent) -> None:
        who, w = self.name(ev.who), _thing(ev.weapon)
        effect = str(ev.effect)
        words = {
            "jam": f"{who}'s {w} jams.", "drop": f"{who} fumbles and drops the {w}.",
            "break": f"{who}'s {w} breaks.", "off_balance": f"{who} stumbles, off balance.",
            "fall": f"{who} slips and falls.", "self_damage": f"{who} hurts themself.",
            "struck_by_opponent": f"{who} leaves an opening and is struck.",
            "hit_ally": f"{who}'s attack goes astray.",
        }
        text = words.get(effect, f"{who} botches badly ({effect}).")
        if self.blow is not None:
            self.blow.hit = False
            self.blow.after.append(text)
        else:
            self.say(text)

    def on_action(self, ev: ActionEvent) -> None:
        what = ev.action
        who = ev.who
        data = ev.data
        me = self.name(who)
        if what in QUIET:
            if what == "drink" and data.get("points"):
                self.flush()
                self.say(f"{me} drinks {plural(int(data['points']), 'point')} of blood from "
                         f"{self.name(data.get('target'))}.")
            return
        if what in ("falls prone", "regains footing", "off balance", "disarmed", "staked"):
            text = {
                "falls prone": f"{me} is knocked off their feet.",
                "regains footing": f"{me} staggers but keeps their feet.",
                "off balance": f"{me} is thrown off balance.",
                "disarmed": f"{me}'s {_thing(data.get('weapon'))} goes flying.",
                "staked": f"The stake finds {me}'s heart: {me} is paralysed.",
            }[what]
            if what == "falls prone":
                self.people[who].prone = True
            if self.blow is not None:
                self.blow.after.append(text)
            else:
                self.say(text)
            return
        self.flush()
        if what in ("clinch", "hold", "kiss"):
            target = self.name(data.get("target"))
            words = {"clinch": f"{me} and {target} are locked in a clinch.",
                     "hold": f"{me} pins {target}.",
                     "kiss": f"{me} sinks into the Kiss on {target}."}
            self.say(words[what])
            return
        if what == "drop_prone":
            if self.people[who].active and not self.people[who].prone:
                self.people[who].prone = True
                self.say(f"{me} drops flat.")
            return
        if what == "get_up":
            if data.get("ok", True):
                self.people[who].prone = False
                self.say(f"{me} gets back up.")
            else:
                self.say(f"{me} tries to get up and fails.")
            return
        ok = data.get("ok", True)
        simple = {
            "reload": f"{me} reloads." if ok else f"{me} fumbles the reload.",
            "clear": f"{me} clears the jam." if ok else f"{me} can't clear it.",
            "draw": f"{me} readies the {_thing(data.get('weapon'))}.",
            "take_cover": f"{me} dives behind the {data.get('cover', 'cover')}.",
            "dodge_to_cover": f"{me} throws themself behind the {data.get('cover', 'cover')}.",
            "aim": f"{me} takes careful aim at {self.name(data.get('target'))}.",
            "crush": f"{me} squeezes {self.name(data.get('target'))}.",
            "release": f"{me} lets go.",
            "break_free": (f"{me} breaks free." if data.get("ok")
                           else f"{me} struggles but can't break free."),
        }
        if what == "blood":
            use = str(data.get("use"))
            pts = int(data.get("points", 0))
            if use == "heal":
                healed = int(data.get("healed", 0))
                self.say(f"{me} spends blood to heal {plural(healed, 'level')}.")
            elif pts:
                self.say(f"{me} spends {plural(pts, 'blood point')} on {use}.")
            return
        if what in simple:
            self.say(simple[what])

    # --- chases and jumps (MOVE-3, MOVE-4) ------------------------------------
    def on_flee(self, ev: FleeEvent) -> None:
        self.flush()
        self.say(f"{self.name(ev.who)} turns and runs, {_yards(ev.lead)} ahead of the nearest "
                 "enemy.")

    def on_chase(self, ev: ChaseEvent) -> None:
        self.flush()
        who, quarry = ev.who, ev.quarry
        me = self.name(who)
        if ev.tired:
            self.say(f"{me} is tiring.")
        if who == quarry:
            return  # the quarry's running is told by its moves and the pursuers' gains
        q = self.name(quarry)
        if ev.total > ev.rival:
            return  # told as the catch
        if ev.added > 0:
            self.say(f"{me} runs after {q} and gains on them.")
        else:
            self.say(f"{me} runs after {q} but loses ground.")

    def on_caught(self, ev: CaughtEvent) -> None:
        self.flush()
        me, q = self.name(ev.who), self.name(ev.quarry)
        if ev.dead_end:
            self.say(f"{q} runs into a dead end, and {me} is on them.")
        else:
            self.say(f"{me} catches up with {q}.")

    def on_escaped(self, ev: EscapeEvent) -> None:
        self.flush()
        who = ev.who
        self.people[who].active = False
        if ev.reason == "unpursued":
            self.say(f"Nobody gives chase: {self.name(who)} gets away.")
        else:
            self.say(f"{self.name(who)} outruns them all and gets away.")

    def on_jump(self, ev: JumpEvent) -> None:
        self.flush()
        me = self.name(ev.who)
        what = ev.obstacle
        if ev.detour:
            self.say(f"{me} goes around the {what}.")
        elif ev.ok:
            self.say(f"{me} leaps the {what}.")
        elif ev.prone:
            self.people[ev.who].prone = True
            self.say(f"{me} comes up short at the {what} and falls.")
        else:
            self.say(f"{me} comes up short at the {what} but lands on their feet.")

    def on_end(self, ev: EndEvent) -> None:
        self.flush()
        turns = ev.turns
        winner = ev.winner
        if ev.reason == "turn limit":
            self.say(f"The fight is called after {plural(turns, 'turn')}, undecided.")
        elif winner is None:
            self.say(f"After {plural(turns, 'turn')} nobody is left standing.")
        else:
            names = [p.name for p in self.people if p.side == winner and p.active]
            names = names or [p.name for p in self.people if p.side == winner]
            verb = "wins" if len(names) == 1 else "win"
            self.say(f"{_join(names)} {verb} after {plural(turns, 'turn')}.")

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
        me, them = self.name(b.who), self.name(b.target)
        w = _thing(b.weapon) if b.weapon and b.weapon != "unarmed" else None
        if b.maneuver in FIREARM_WORDS:
            verb = f"{FIREARM_WORDS[b.maneuver]} {them}"
            if b.maneuver in ("single_shot",) and w and ("bow" in w or "crossbow" in w):
                verb = f"looses an arrow at {them}"
        elif b.maneuver == "thrown":
            verb = f"throws the {w or 'weapon'} at {them}"
        elif b.maneuver == "weapon_strike":
            verb = f"swings the {w or 'weapon'} at {them}"
        else:
            verb = f"{CLOSE_WORDS.get(b.maneuver, 'attacks')} {them}"
        text = f"{me} {verb}"
        if b.called:
            text += f", aiming for {CALLED_WORDS.get(b.called, 'a weak spot')}"
        mods = self.modifiers(b)
        if mods:
            text += f" ({mods})"
        return text + self.outcome(b, them)

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

    @staticmethod
    def outcome(b: _Blow, them: str) -> str:
        if b.hit is False or b.hit is None:
            if b.defense in ("dodge", "block", "parry"):
                verb = {"dodge": "dodges", "block": "blocks", "parry": "parries"}[b.defense]
                return f", but {them} {verb} it."
            return ", but misses."
        if b.maneuver in ("clinch", "hold", "kiss") and not b.levels:
            return "."
        if b.levels is None:
            return " and connects."
        if b.levels == 0:
            return f" and connects, but {them} shrugs it off."
        return (f" and it lands: {them} takes {plural(b.levels, 'level')} of {b.dtype} "
                "damage.")


# Each event class's handler, built once: the story dispatches on the event's class.
# An event of a class not here (an exchange header, initiative, rolls, ...) says nothing.
_HANDLERS: Final[dict[type[Event], Callable[[Teller, Any], None]]] = {
    BattleEvent: Teller.on_battle,
    TurnEvent: Teller.on_turn,
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
