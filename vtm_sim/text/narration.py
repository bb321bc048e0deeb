"""Plain-English narration of a battle, built only from its event log (STYLE 5).

:func:`narrate` turns the events of :mod:`vtm_sim.events` into lines a
Storyteller can read aloud: turns, initiative, declarations, moves, each attack
with its dice, defenses, damage, stuns, status changes and the end. Names come
from the header, the first event: a ``battle`` or, for a single attack outside a
battle (:mod:`vtm_sim.engine.exchange`), an ``exchange``. Nothing here reads engine state,
and each event is read in its JSON form (:meth:`~vtm_sim.events.Event.to_json`, the
line a log file holds), so a log read back from JSONL narrates exactly like the
live battle.

An attack chain is told in at most three lines: the attack roll, the defense
roll, and one line for the outcome (hit, damage dice, soak dice and the health
levels taken), e.g.::

    Turn 2.
    Nikolai rolls initiative 9 + 7 = 16.
    Nikolai attacks the Elder with a punch: 6 dice at difficulty 6 (specialty) -> ...: 5 successes.
    The Elder dodges: 4 dice at difficulty 6 -> 9 2 6 3: 2 successes.
    Hit with 3 net successes; 5 damage dice -> 7 2 6 9 1: 3 successes; 4 soak dice -> 3 6 2 2:
    1 success; 2 halved to 1 (a vampire against bashing); the Elder takes 1 level of bashing
    damage (track /......, Bruised).

(the last three sentences are one line). Potence's automatic damage successes
(VAMP-5) are not in the roll events; they are inferred from the levels taken.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from vtm_sim.events import Event, EventKind
from vtm_sim.text.dicewords import plural, roll_text

# An event's JSON form (Event.to_json), what narration reads: exactly what a log
# file holds, so a live log and one read back from JSONL narrate alike.
Fields = dict[str, Any]

__all__ = ["narrate", "plural", "roll_text"]

_MANEUVER_NOUN = {
    "punch": "a punch",
    "kick": "a kick",
    "sweep": "a sweep",
    "tackle": "a tackle",
    "clinch": "a clinch",
    "hold": "a hold",
    "bite": "a bite",
    "kiss": "the Kiss",
    "disarm": "a disarm",
    "claws": "claws",
}
_SHOT_VERB = {
    "single_shot": "shoots at {t} with the {w}",
    "burst": "fires a burst at {t} with the {w}",
    "full_auto": "opens up on {t} with the {w} on full auto",
    "spray": "sprays fire at {t} with the {w}",
    "thrown": "throws the {w} at {t}",
}
# ACTION events by name: {n} actor, {t} target, {w} weapon, {points}/{blood} feeding.
_ACTION_TEXT = {
    "pass": "{n} does nothing.",
    "aim": "{n} takes aim{at} (+{dice} dice).",
    "take_cover": "{n} takes cover behind the {cover}.",
    "dodge_to_cover": "{n} dives behind the {cover}.",
    "drop_prone": "{n} drops prone.",
    "clear": "{n} clears the jammed {w}.",
    "falls prone": "{n} falls prone.",
    "regains footing": "{n} stumbles but stays up (-2 initiative next turn).",
    "off balance": "{n} stays up but is thrown off balance.",
    "clinch": "{n} and {t} are locked in a clinch.",
    "hold": "{n} holds {t} fast.",
    "crush": "{n} crushes {t}.",
    "release": "{n} lets go.",
    "kiss": "{n} sinks fangs into {t}: the Kiss.",
    "feed": "{n} keeps drinking.",
    "drink": "{n} drinks {points} blood from {t} (now {blood}).",
    "staked": "{n} is staked through the heart and paralyzed.",
}
_ACTION_FAILED = {
    "break_free": "{n} strains against {t} but cannot break free.",
    "clear": "{n} fails to clear the jammed {w}.",
}
_ACTION_OK = {"break_free": "{n} breaks free of {t}."}
_ROLL_PHRASE = {
    "abort": "tries to abort to a defense with Willpower",
    "draw": "rolls to ready a weapon in a hurry",
    "reload": "rolls to reload in a hurry",
    "get_up": "rolls to get up in a hurry",
    "footing": "rolls to stay standing",
    "knockdown": "rolls against the knockdown",
    "break_free": "strains to break free",
    "hold_on": "holds on",
    "stealth": "sneaks up",
    "notice": "watches for danger",
    "chase": "runs (Dexterity + Athletics)",  # MOVE-4
    "jump": "jumps (Strength)",  # MOVE-3
    "landing": "tries to land well",  # MOVE-3 (003)
}
_MISHAP_TEXT = {  # CPX-6, after "X fumbles the attack with the knife"
    "jam": "and it jams",
    "drop": "and drops it",
    "break": "and it breaks",
    "hit_ally": "and the blow goes astray",
    "off_balance": "and is thrown off balance",
    "fall": "and falls",
    "self_damage": "and is hurt by it",
    "struck_by_opponent": "and leaves an opening for the opponent",
}

_DEFENSE_VERB = {"dodge": "dodges", "block": "blocks", "parry": "parries"}
_STATUS_TEXT = {
    "incapacitated": "is incapacitated and out of the fight",
    "torpor": "falls into torpor",
    "active": "is back in the fight",
}


def _yards(y: float) -> str:
    v = round(float(y), 1)
    text = str(int(v)) if v == int(v) else f"{v:g}"
    return f"{text} yard" if text == "1" else f"{text} yards"


def _thing(name: str | None) -> str:
    """A weapon or armor id as words: ``light_pistol`` -> ``light pistol``."""
    return (name or "weapon").replace("_", " ")


@dataclass
class _Who:
    name: str
    side: int
    kind: str
    x: float
    y: float
    armor: str | None
    potence: int


@dataclass
class _Narrator:
    """Reads events one by one; a few pieces of context make full sentences."""

    people: list[_Who] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    turn: int = 0
    totals: dict[int, int] = field(default_factory=dict)  # initiative this turn
    stunned: dict[int, int] = field(default_factory=dict)  # who -> turn lost
    delayed: set[int] = field(default_factory=set)
    last_act: dict[int, dict[str, Any]] = field(default_factory=dict)
    attack: Fields | None = None  # the attack event whose roll is awaited
    attack_rolled: bool = False
    attack_roll: Fields | None = None
    miss_told: bool = False
    defense: str | None = None
    hit: list[str] = field(default_factory=list)  # parts of the outcome line
    hit_auto: int = 0  # Potence successes that may join the damage roll
    damage_roll: Fields | None = None
    damage_at: int = -1  # index of the damage dice in ``hit``
    soak_roll: Fields | None = None
    shares: dict[int, int] = field(default_factory=dict)  # RNG-6: each target's share

    # --- names ------------------------------------------------------------
    def name(self, who: Any, start: bool = False) -> str:
        """A combatant's name; a leading 'The' is lowercased inside a sentence."""
        try:
            n = self.people[int(who)].name
        except (IndexError, TypeError, ValueError):
            n = f"combatant {who}"
        if not start and n.startswith("The "):
            return "the " + n[4:]
        return n

    def setup(self, header: Fields) -> None:
        raw = header.get("combatants") or []
        state = header.get("state")
        if isinstance(state, dict):  # a log begun from a saved state (Battle.from_state)
            raw = [{**c, "sheet": sheet} for sheet, c in
                   zip(state.get("sheets") or [], state.get("combatants") or [], strict=False)]
        names = [
            str((c.get("sheet") or {}).get("name", f"combatant {i}")) for i, c in enumerate(raw)
        ]
        for i, c in enumerate(raw):
            sheet = c.get("sheet") or {}
            name = names[i]
            if names.count(name) > 1:  # two Street Thugs: Street Thug 1, Street Thug 2
                name = f"{name} {names[: i + 1].count(name)}"
            self.people.append(
                _Who(
                    name,
                    int(c.get("side", i)),
                    str(sheet.get("kind", "mortal")),
                    float(c.get("x", 0.0)),
                    float(c.get("y", 0.0)),
                    sheet.get("armor"),
                    int((sheet.get("disciplines") or {}).get("potence", 0)),
                )
            )

    def distance(self, a: int, b: int) -> float | None:
        try:
            p, q = self.people[a], self.people[b]
        except IndexError:
            return None
        return float(((p.x - q.x) ** 2 + (p.y - q.y) ** 2) ** 0.5)

    def say(self, line: str) -> None:
        self.lines.append(line)

    # --- the outcome line of an attack ------------------------------------------
    def flush_hit(self) -> None:
        if self.hit:
            self.say("; ".join(self.hit) + ".")
        self.hit = []
        self.damage_roll = self.soak_roll = None
        self.hit_auto = 0

    def flush_attack(self) -> None:
        """An attack that never rolled: out of reach, no ammunition, no dice."""
        if self.attack is not None and not self.attack_rolled:
            ev = self.attack
            self.say(
                f"{self.name(ev.get('who'), True)} tries to attack "
                f"{self.name(ev.get('target'))} with {self.weapon_phrase(ev)}, "
                "but cannot: the action is lost."
            )
        self.attack = None

    def weapon_phrase(self, ev: Fields) -> str:
        m = str(ev.get("maneuver"))
        if m in _MANEUVER_NOUN:
            return _MANEUVER_NOUN[m]
        if m == "weapon_strike" or ev.get("weapon") not in (None, "unarmed"):
            return f"the {_thing(ev.get('weapon'))}"
        return f"a {_thing(m)}"

    def attack_verb(self, ev: Fields) -> str:
        """``shoots at the Elder with the ak47``, ``attacks the Elder with a kick``."""
        target = self.name(ev.get("target"))
        weapon = _thing(ev.get("weapon"))
        shot = _SHOT_VERB.get(str(ev.get("maneuver")))
        if shot is not None:
            return shot.format(t=target, w=weapon)
        return f"attacks {target} with {self.weapon_phrase(ev)}"

    def attack_notes(self, who: Any) -> str:
        """A called shot or an off-hand attack, from the action just chosen."""
        act = self.last_act.get(who) if isinstance(who, int) else None
        notes = []
        if act and act.get("called"):
            notes.append(f"a called shot at a {act['called']} target")
        if act and act.get("offhand"):
            notes.append("with the off hand")
        return f" ({', '.join(notes)})" if notes else ""

    # --- events -------------------------------------------------------------------
    def feed(self, event: Event) -> None:
        kind = event.e
        chain = (EventKind.ROLL, EventKind.ARMOR)
        if self.hit and kind not in chain and kind is not EventKind.DAMAGE:
            self.flush_hit()
        handler = getattr(self, f"on_{kind.value}", None)
        if handler is not None:
            handler(event.to_json())

    def on_exchange(self, ev: Fields) -> None:
        """A single attack outside a battle: the two sides, so far apart."""
        if not self.people:
            self.introduce(ev)

    def on_battle(self, ev: Fields) -> None:
        if self.people:
            return
        self.introduce(ev)
        lighting = (ev.get("field") or {}).get("lighting")
        if lighting == "dark":
            self.say("The fight takes place in darkness.")
        elif lighting and lighting != "normal":
            self.say(f"Lighting: {lighting}.")

    def introduce(self, ev: Fields) -> None:
        """Who faces whom (or the sides), and who starts prone or blinded."""
        self.setup(ev)
        sides: dict[int, list[str]] = {}
        for i, p in enumerate(self.people):
            sides.setdefault(p.side, []).append(self.name(i, True))
        if len(self.people) == 2 and len(sides) == 2:
            d = self.distance(0, 1) or 0.0
            self.say(f"{self.name(0, True)} faces {self.name(1)}, {_yards(d)} apart.")
        else:
            self.say(" ".join(f"Side {s}: {_join(names)}." for s, names in sorted(sides.items())))
        for i, c in enumerate(ev.get("combatants") or []):
            state = [w for w in ("prone", "blinded") if isinstance(c, dict) and c.get(w)]
            if state:
                self.say(f"{self.name(i, True)} starts {' and '.join(state)}.")
        standing = ev.get("standing")
        if isinstance(standing, dict) and "turn" in standing:
            self.say(f"The fight as it stood before turn {standing['turn']} (a state file).")

    def on_turn(self, ev: Fields) -> None:
        self.flush_attack()
        self.turn = int(ev.get("turn", self.turn + 1))
        self.totals = {}
        self.delayed = set()
        self.say(f"Turn {self.turn}.")

    def on_initiative(self, ev: Fields) -> None:
        who = int(ev["who"])
        die, rating, pen, total = (ev.get(k, 0) for k in ("die", "rating", "penalty", "total"))
        self.totals[who] = int(total)
        if "given" in ev:  # a state file's initiative, already rolled
            self.say(f"{self.name(who, True)}'s initiative stands at {total}.")
            return
        wounds = f" - {pen} (wounds)" if pen else ""
        self.say(f"{self.name(who, True)} rolls initiative {die} + {rating}{wounds} = {total}.")

    def on_order(self, ev: Fields) -> None:
        order = [int(i) for i in ev.get("order", [])]
        if len(order) > 1:
            parts = [f"{self.name(i, True)} ({self.totals.get(i, '?')})" for i in order]
            self.say("Acting order: " + ", ".join(parts) + ".")
        for who, lost in sorted(self.stunned.items()):
            if lost == self.turn and who in order:
                self.say(f"{self.name(who, True)} is still dazed and loses this turn.")

    def on_decide(self, ev: Fields) -> None:
        who = int(ev["who"])
        choice = ev.get("choice") or {}
        kind = ev.get("kind")
        if kind == "declare":
            self.declare(who, choice)
        elif kind == "act":
            self.last_act[who] = choice
            what = choice.get("kind")
            if what == "delay":
                if who in self.delayed:
                    self.say(f"{self.name(who, True)} keeps holding back.")
                else:
                    self.say(f"{self.name(who, True)} delays, ready to interrupt.")
                self.delayed.add(who)
            elif what == "wait":
                self.say(f"{self.name(who, True)} waits for the others to act first.")
            else:
                self.delayed.discard(who)

    def declare(self, who: int, choice: dict[str, Any]) -> None:
        n = self.name(who, True)
        if choice.get("full_defense"):
            self.say(f"{n} declares a full defense for the turn.")
            return
        actions = int(choice.get("actions", 1))
        cel = int(choice.get("celerity", 0))
        wp = bool(choice.get("willpower"))
        if actions == 1 and not cel and not wp:
            return
        parts = [f"{n} declares {plural(actions, 'action')}"]
        if actions > 1:
            parts[0] += f" (-{actions} dice on the first)"
        if cel:
            parts[0] += f" plus {plural(cel, 'Celerity action')} ({cel} blood)"
        if wp:
            parts.append("will spend Willpower on the first attack")
        self.say(", ".join(parts[:-1]) + (" and " if len(parts) > 1 else "") + parts[-1] + ".")

    def on_move(self, ev: Fields) -> None:
        who = int(ev["who"])
        to = ev.get("to") or [0.0, 0.0]
        if 0 <= who < len(self.people):
            self.people[who].x, self.people[who].y = float(to[0]), float(to[1])
        act = self.last_act.get(who, {})
        target = act.get("target")
        yards = _yards(float(ev.get("yards", 0.0)))
        n = self.name(who, True)
        if target is None:
            self.say(f"{n} runs {yards} away." if act.get("kind") == "flee"
                     else f"{n} moves {yards}.")
            return
        d = self.distance(who, int(target))
        apart = f" ({_yards(d)} apart)" if d is not None else ""
        t = self.name(target)
        if act.get("kind") == "attack":
            self.say(f"{n} closes {yards} on {t}{apart}.")
        elif act.get("kind") == "pursue":
            self.say(f"{n} runs {yards} after {t}{apart}.")
        elif act.get("away"):
            self.say(f"{n} falls back {yards} from {t}{apart}.")
        else:
            self.say(f"{n} moves {yards} toward {t}{apart}.")

    def on_attack(self, ev: Fields) -> None:
        self.flush_attack()
        self.attack = ev
        self.miss_told = False
        self.attack_rolled = False
        self.attack_roll = None
        self.defense = None
        self.shares = {}

    def on_defense(self, ev: Fields) -> None:
        self.defense = str(ev.get("kind"))

    def on_abort(self, ev: Fields) -> None:
        n = self.name(ev.get("who"), True)
        if ev.get("method") == "willpower":
            self.say(f"{n} spends a Willpower point to abandon the declared action and defend.")
        elif ev.get("ok"):
            self.say(f"{n} abandons the declared action to defend.")
        else:
            self.say(f"{n} fails to abort and must carry out the declared action.")

    def on_roll(self, ev: Fields) -> None:
        what = str(ev.get("what", ""))
        who = ev.get("who")
        text = roll_text(ev)  # damage and soak rolls name their dice instead
        if what == "attack":
            a = self.attack or {"who": who, "maneuver": None}
            verb = self.attack_verb(a) + self.attack_notes(who)
            self.attack_rolled = True
            self.attack_roll = ev
            self.say(f"{self.name(who, True)} {verb}: {text}.")
        elif what in _DEFENSE_VERB:
            self.say(f"{self.name(who, True)} {_DEFENSE_VERB[what]}: {text}.")
        elif what == "damage":
            text = roll_text(ev, "damage")
            if not self.hit:  # damage without an attack roll (e.g. a crush)
                text = f"{self.name(who, True)} rolls {text}"
                p = self.person(who)
                self.hit_auto = p.potence if p else 0
            self.damage_roll = ev
            self.damage_at = len(self.hit)
            self.hit.append(text)
        elif what == "soak":
            self.soak_roll = ev
            self.hit.append(roll_text(ev, "soak"))
        elif what == "mishap":
            faces = " ".join(str(f) for f in ev.get("faces") or [])
            self.say(f"{self.name(who, True)} rolls on the mishap table: {faces}.")
        elif what in _ROLL_PHRASE:
            self.say(f"{self.name(who, True)} {_ROLL_PHRASE[what]}: {text}.")
        else:
            self.say(f"{self.name(who, True)} rolls {what.replace('_', ' ')}: {text}.")

    def on_mishap(self, ev: Fields) -> None:
        w = ev.get("weapon")
        with_what = "bare hands" if w == "unarmed" else f"the {_thing(w)}"
        effect = ev.get("effect")
        then = ""
        if effect:
            then = " " + _MISHAP_TEXT.get(str(effect), "and suffers a mishap ({e})").format(
                w=_thing(w), e=str(effect).replace("_", " ")
            )
        self.say(f"A botch: {self.name(ev.get('who'))} fumbles the attack with {with_what}{then}.")

    def on_miss(self, ev: Fields) -> None:
        if self.attack is not None and not self.attack_rolled:
            self.flush_attack()
            return
        self.attack = None
        if self.miss_told:  # already said before a parry's counterblow
            self.miss_told = False
            return
        self.say(self.miss_line(ev.get("target")))

    def miss_line(self, target: Any = None) -> str:
        a = self.attack_roll
        succ = int(a.get("succ", 0)) if a else 0
        if isinstance(target, int) and target in self.shares:  # RNG-6: its share only
            succ = self.shares[target]
        if succ and self.defense:
            lost = "the only success" if succ == 1 else f"all {succ} successes"
            return f"Miss: the {self.defense} takes away {lost}."
        return "Miss."

    def on_hit(self, ev: Fields) -> None:
        self.flush_hit()
        net = int(ev.get("net", 0))
        if ev.get("parry"):  # DEF-6: the attack missed; the miss event follows the counter
            self.say(self.miss_line())
            self.miss_told = True
            self.hit = [
                f"The parry turns the blow back on {self.name(ev.get('target'))}: "
                f"{plural(net, 'extra success', 'extra successes')}"
            ]
        elif ev.get("mishap"):
            self.hit = [f"The botched blow strikes {self.name(ev.get('target'))} instead"]
        else:
            self.attack = None
            self.hit = [f"Hit with {plural(net, 'net success', 'net successes')}"]
        who = ev.get("who")
        p = self.person(who)
        self.hit_auto = p.potence if p else 0

    def person(self, who: Any) -> _Who | None:
        if isinstance(who, int) and 0 <= who < len(self.people):
            return self.people[who]
        return None

    def on_armor(self, ev: Fields) -> None:
        who = ev.get("who")
        p = self.person(who)
        armor = p.armor if p else None
        part = f"{self.name(who)}'s {_thing(armor) if armor else 'armor'} is torn apart"
        if self.hit:
            self.hit.append(part)
        else:
            self.say(part[0].upper() + part[1:] + ".")

    def on_damage(self, ev: Fields) -> None:
        who = ev.get("who")
        levels = int(ev.get("levels", 0))
        dtype = str(ev.get("type", ""))
        track = ev.get("track", "")
        level = str(ev.get("level", "")).capitalize()
        auto = self._auto(levels, dtype, who)
        if auto and 0 <= self.damage_at < len(self.hit) and self.damage_roll is not None:
            total = int(self.damage_roll.get("succ", 0)) + auto
            self.hit[self.damage_at] += f" + {auto} from Potence = {total}"
        if self._halved(dtype, who) and self.damage_roll is not None:
            dealt = int(self.damage_roll.get("succ", 0)) + auto
            soak = int(self.soak_roll.get("succ", 0)) if self.soak_roll else 0
            if dealt > soak and (dealt - soak) // 2 == levels:
                self.hit.append(f"{dealt - soak} halved to {levels} (a vampire against bashing)")
        if levels:
            self.hit.append(
                f"{self.name(who)} takes {plural(levels, 'level')} of {dtype} damage "
                f"(track {track}, {level})"
            )
        else:
            self.hit.append(f"{self.name(who)} takes no damage (track {track}, {level})")
        line = "; ".join(self.hit)
        self.hit = []
        self.say(line[0].upper() + line[1:] + ".")
        self.damage_roll = self.soak_roll = None
        self.hit_auto = 0

    def _auto(self, levels: int, dtype: str, who: Any) -> int:
        """Potence successes (VAMP-5) are not in the roll event: infer them.

        The recorded levels must equal max(0, damage + auto - soak), halved for
        a vampire taking bashing damage; of 0 and the attacker's Potence the
        value that fits is reported (0 when both or neither fit).
        """
        if not self.hit_auto or self.damage_roll is None:
            return 0
        dmg = int(self.damage_roll.get("succ", 0))
        soak = int(self.soak_roll.get("succ", 0)) if self.soak_roll else 0
        halve = self._halved(dtype, who)

        def fits(auto: int) -> bool:
            dealt = dmg + auto
            if (self.soak_roll is not None) != (dealt > 0):
                return False
            lv = max(0, dealt - soak)
            return (lv // 2 if halve else lv) == levels

        if fits(self.hit_auto) and not fits(0):
            return self.hit_auto
        return 0

    def _halved(self, dtype: str, who: Any) -> bool:
        """DMG-5: a vampire halves bashing damage after soak."""
        p = self.person(who)
        return dtype == "bashing" and p is not None and p.kind == "vampire"

    def on_stun(self, ev: Fields) -> None:
        who = int(ev["who"])
        lost = int(ev.get("turn", self.turn + 1))
        self.stunned[who] = lost
        when = f"turn {lost}" if self.turn else "the next turn"
        self.say(f"{self.name(who, True)} is stunned by the blow and will lose {when}.")

    def on_status(self, ev: Fields) -> None:
        who = ev.get("who")
        status = str(ev.get("status"))
        n = self.name(who, True)
        if status == "dead":
            p = self.person(who)
            vampire = p is not None and p.kind == "vampire"
            self.say(f"{n} meets Final Death." if vampire else f"{n} is dead.")
        else:
            self.say(f"{n} {_STATUS_TEXT.get(status, 'is now ' + status)}.")

    def on_action(self, ev: Fields) -> None:
        n = self.name(ev.get("who"), True)
        what = ev.get("action")
        ok = ev.get("ok", True)
        weapon = ev.get("weapon")
        if what == "draw":
            if not ok:
                self.say(f"{n} fumbles and fails to ready a weapon.")
            elif weapon == "unarmed":
                self.say(f"{n} puts the weapon away and raises bare fists.")
            else:
                self.say(f"{n} readies the {_thing(weapon)}.")
        elif what == "reload":
            self.say(f"{n} reloads the {_thing(weapon)}." if ok else f"{n} fails to reload.")
        elif what == "get_up":
            self.say(f"{n} gets back up." if ok else f"{n} tries to get up but fails.")
        elif what == "disarmed":
            by = ev.get("by")
            hand = f" by {self.name(by)}" if isinstance(by, int) else ""
            self.say(f"{n} is disarmed{hand} and loses the {_thing(weapon)}.")
        elif what == "blood":
            self.blood_line(ev, n)
        elif what == "ambush":
            self.ambush_line(ev, n)
        elif what == "spray":
            self.spray_line(ev, n)
        else:
            target = ev.get("target")
            t = self.name(target) if isinstance(target, int) else "the enemy"
            table = _ACTION_TEXT if ok else _ACTION_FAILED
            if ok and what in _ACTION_OK:
                table = _ACTION_OK
            template = table.get(str(what))
            if template is None:
                done = "" if ok else ", without success"
                words = str(what).replace("_", " ").replace("{", "{{").replace("}", "}}")
                template = f"{{n}}: {words}{{at}}{done}."
            targets = [self.name(i) for i in ev.get("targets") or []]
            self.say(
                template.format(
                    n=n,
                    t=t,
                    w=_thing(weapon),
                    at=f" at {t}" if isinstance(target, int) else "",
                    points=ev.get("points", "?"),
                    blood=ev.get("blood", "?"),
                    dice=ev.get("dice", "?"),
                    cover=_thing(ev.get("cover") or "cover"),
                    targets=_join(targets) if targets else "the enemy",
                )
            )

    def spray_line(self, ev: Fields, n: str) -> None:
        """RNG-6: who is in the area and each one's share of the successes."""
        targets = [t for t in ev.get("targets") or [] if isinstance(t, int)]
        shares = [int(x) for x in ev.get("shares") or []]
        names = [self.name(t) for t in targets]
        line = f"{n} sprays fire across {_join(names) if names else 'the enemy'}"
        if len(shares) == len(targets) == 1:
            line += f", alone in the area: half the successes ({shares[0]})"
        elif shares and len(shares) == len(targets):
            line += f" (shares {_join([str(x) for x in shares])})"
        if len(shares) == len(targets):
            self.shares = dict(zip(targets, shares, strict=True))
        self.say(line + ".")

    def blood_line(self, ev: Fields, n: str) -> None:
        """VAMP-2: blood spent before declarations (nothing to say for none)."""
        use, points = str(ev.get("use", "none")), int(ev.get("points", 0))
        if use == "none" or not points:
            return
        spent = f"{n} spends {plural(points, 'blood point')}"
        left = f"{ev.get('blood', '?')} blood left"
        if use == "heal":
            healed = int(ev.get("healed", points))
            self.say(
                f"{spent} to heal {plural(healed, 'level')} (track {ev.get('track', '?')}, {left})."
            )
        else:
            self.say(f"{spent} to raise {use.capitalize()} by {points} ({left}).")

    def ambush_line(self, ev: Fields, n: str) -> None:
        """ATK-11: the margin of the attacker's Stealth over the target's notice."""
        target = ev.get("target")
        margin = int(ev.get("margin", 0))
        if margin > 0:
            dice = plural(margin, "extra die", "extra dice")
            self.say(f"{n} catches {self.name(target)} by surprise ({dice}).")
        elif margin == 0:
            self.say(f"{n} strikes first from hiding, but {self.name(target)} may still defend.")
        else:
            self.say(f"{self.name(target, True)} spots {self.name(ev.get('who'))} in time.")

    # MOVE-3, MOVE-4 (vtm_sim.events.chase)
    def on_flee(self, ev: Fields) -> None:
        lead = float(ev.get("lead", 0.0))
        start = int(ev.get("start", 0))
        self.say(f"{self.name(ev.get('who'), True)} flees with a {_yards(lead)} lead "
                 f"({plural(start, 'success', 'successes')} to start the chase).")

    def on_chase(self, ev: Fields) -> None:
        who, quarry = ev.get("who"), ev.get("quarry")
        total, rival = int(ev.get("total", 0)), int(ev.get("rival", -1))
        tired = int(ev.get("tired", 0))
        note = f", tired: {plural(tired, 'die', 'dice')} fewer" if tired else ""
        if who == quarry:
            against = "" if rival < 0 else f" against {rival}"
            self.say(f"Chase: {self.name(who, True)} has {total}{against}{note}.")
        else:
            self.say(f"Chase: {self.name(who, True)} has {total} against "
                     f"{self.name(quarry)}'s {rival}{note}.")

    def on_caught(self, ev: Fields) -> None:
        how = " at a dead end" if ev.get("dead_end") else ""
        self.say(f"{self.name(ev.get('who'), True)} catches {self.name(ev.get('quarry'))}{how}.")

    def on_escaped(self, ev: Fields) -> None:
        why = "nobody gives chase" if ev.get("reason") == "unpursued" else "outruns the pursuit"
        self.say(f"{self.name(ev.get('who'), True)} escapes ({why}) and is out of the fight.")

    def on_jump(self, ev: Fields) -> None:
        n = self.name(ev.get("who"), True)
        what = str(ev.get("obstacle", "the obstacle"))
        detour = float(ev.get("detour", 0.0))
        if detour:
            self.say(f"{n} goes around {what} ({_yards(detour)} more).")
            return
        feet = float(ev.get("feet", 0.0))
        reached = float(ev.get("reached", 0.0))
        kind = "running" if ev.get("running") else "standing"
        if ev.get("ok"):
            self.say(f"{n} clears {what} with a {kind} jump ({reached:g} ft of {feet:g}).")
        elif ev.get("prone"):
            self.say(f"{n} falls short of {what} ({reached:g} ft of {feet:g}) and goes down.")
        else:
            self.say(f"{n} falls short of {what} ({reached:g} ft of {feet:g}) but lands well.")

    def on_end(self, ev: Fields) -> None:
        self.flush_attack()
        turns = int(ev.get("turns", self.turn))
        after = f"after {plural(turns, 'turn')}"
        winner = ev.get("winner")
        reason = ev.get("reason")
        if winner is not None:
            names = [p.name for p in self.people if p.side == winner]
            who = _join(names) if names else "nobody"
            self.say(f"The battle ends {after}: side {winner} ({who}) wins.")
        elif reason == "turn limit":
            self.say(f"The battle ends undecided {after}: the turn limit is reached.")
        else:
            self.say(f"The battle ends {after}: nobody is left standing.")


def _join(names: Sequence[str]) -> str:
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def narrate(events: Iterable[Event]) -> list[str]:
    """Narrate a battle log: one line per meaningful event, in order.

    Args:
        events: the log, header first (a live :class:`~vtm_sim.events.EventLog`
            or one read back from JSONL).

    Returns:
        Lines of plain English; the same events always give the same lines.
    """
    n = _Narrator()
    for ev in events:
        n.feed(ev)
    n.flush_hit()
    n.flush_attack()
    return n.lines
