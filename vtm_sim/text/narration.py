"""Plain-English narration of a battle, built only from its event log (STYLE 5).

:func:`narrate` turns the events of :mod:`vtm_sim.events` into lines a
Storyteller can read aloud: turns, initiative, declarations, moves, each attack
with its dice, defenses, damage, stuns, status changes and the end. Names come
from the header, the first event: a ``battle`` or, for a single attack outside a
battle (:mod:`vtm_sim.engine.exchange`), an ``exchange``. Nothing here reads engine state:
each event goes to the handler of its class (:data:`_HANDLERS`), which reads the
typed event's attributes; a log read back from JSONL
(:meth:`~vtm_sim.events.EventLog.read`) gives the same typed events, so it narrates
exactly like the live battle.

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

Names follow :mod:`vtm_sim.text.names`: a combatant's full name at its first mention
("Jax, Brujah Neonate"), its short name after ("Jax"). Unlike the story, this log
uses no pronouns: each line names whom it is about, to be found at a glance. A move
says the yards run and the gap they leave ("moves 8 yards and closes to 2 yards of
the Elder"); a stun, the turn it costs.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from vtm_sim.core.choices import AbortMethod, Action, ActionKind, DecisionKind, Declaration
from vtm_sim.events import (
    AbortEvent,
    ActionEvent,
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
    ExchangeEvent,
    FleeEvent,
    HitEvent,
    InitiativeEvent,
    JumpEvent,
    MishapEvent,
    MissEvent,
    MoveEvent,
    OrderEvent,
    RollEvent,
    StatusEvent,
    StunEvent,
    TurnEvent,
)
from vtm_sim.text.dicewords import plural, roll_text
from vtm_sim.text.names import Cast, cast_of

__all__ = ["Narration", "narrate", "plural", "roll_text"]

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


_SAME_GAP = 0.05  # yards: a move that changes the gap by less neither closes nor opens it


def _yards(y: float) -> str:
    v = round(float(y), 1)
    text = str(int(v)) if v == int(v) else f"{v:g}"
    return f"{text} yard" if text == "1" else f"{text} yards"


def _thing(name: str | None) -> str:
    """A weapon or armor id as words: ``light_pistol`` -> ``light pistol``."""
    return (name or "weapon").replace("_", " ")


@dataclass
class _Who:
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
    cast: Cast = field(default_factory=Cast)
    lines: list[str] = field(default_factory=list)
    turn: int = 0
    totals: dict[int, int] = field(default_factory=dict)  # initiative this turn
    stunned: dict[int, int] = field(default_factory=dict)  # who -> turn lost
    delayed: set[int] = field(default_factory=set)
    last_act: dict[int, Action] = field(default_factory=dict)
    attack: AttackEvent | None = None  # the attack event whose roll is awaited
    attack_rolled: bool = False
    attack_roll: RollEvent | None = None
    miss_told: bool = False
    defense: str | None = None
    hit: list[str] = field(default_factory=list)  # parts of the outcome line
    hit_auto: int = 0  # Potence successes that may join the damage roll
    damage_roll: RollEvent | None = None
    damage_at: int = -1  # index of the damage dice in ``hit``
    soak_roll: RollEvent | None = None
    shares: dict[int, int] = field(default_factory=dict)  # RNG-6: each target's share
    out: set[int] = field(default_factory=set)  # out of the fight (down, dead, escaped)

    # --- names ------------------------------------------------------------
    def name(self, who: Any, start: bool = False) -> str:
        """A mention of a combatant (:mod:`vtm_sim.text.names`): its full name the first
        time, its short name after; a leading 'The' is lowercased inside a sentence."""
        return self.cast.ref(who, start)

    def setup(self, combatants: Sequence[Mapping[str, Any]],
              state: Mapping[str, Any] | None) -> None:
        raw: Sequence[Mapping[str, Any]] = combatants or []
        if isinstance(state, dict):  # a log begun from a saved state (Battle.from_state)
            raw = [{**c, "sheet": sheet} for sheet, c in
                   zip(state.get("sheets") or [], state.get("combatants") or [], strict=False)]
        self.cast.people = cast_of([c.get("sheet") or {} for c in raw])
        for i, c in enumerate(raw):
            sheet = c.get("sheet") or {}
            self.people.append(
                _Who(
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
        self.lines.append(self.cast.resolve(line))

    # --- the outcome line of an attack ------------------------------------------
    def flush_hit(self) -> None:
        if self.hit:
            self.say("; ".join(self.hit) + ".")
        self.hit = []
        self.damage_roll = self.soak_roll = None
        self.hit_auto = 0

    def flush_attack(self) -> None:
        """An attack that never rolled: out of reach, no ammunition, no dice."""
        ev = self.attack
        if ev is not None and not self.attack_rolled:
            self.say(
                f"{self.name(ev.who, True)} tries to attack "
                f"{self.name(ev.target)} with {self.weapon_phrase(ev.maneuver, ev.weapon)}, "
                "but cannot: the action is lost."
            )
        self.attack = None

    @staticmethod
    def weapon_phrase(maneuver: str | None, weapon: str | None) -> str:
        m = str(maneuver)
        if m in _MANEUVER_NOUN:
            return _MANEUVER_NOUN[m]
        if m == "weapon_strike" or weapon not in (None, "unarmed"):
            return f"the {_thing(weapon)}"
        return f"a {_thing(m)}"

    def attack_verb(self, target: Any, maneuver: str | None, weapon: str | None) -> str:
        """``shoots at the Elder with the ak47``, ``attacks the Elder with a kick``."""
        whom = self.name(target)
        shot = _SHOT_VERB.get(str(maneuver))
        if shot is not None:
            return shot.format(t=whom, w=_thing(weapon))
        return f"attacks {whom} with {self.weapon_phrase(maneuver, weapon)}"

    def attack_notes(self, who: int) -> str:
        """A called shot or an off-hand attack, from the action just chosen."""
        act = self.last_act.get(who)
        notes = []
        if act is not None and act.called is not None:
            notes.append(f"a called shot at a {act.called.value} target")
        if act is not None and act.offhand:
            notes.append("with the off hand")
        return f" ({', '.join(notes)})" if notes else ""

    # --- events -------------------------------------------------------------------
    def feed(self, event: Event) -> None:
        cls = type(event)
        if self.hit and cls not in _CHAIN:
            self.flush_hit()
        handler = _HANDLERS.get(cls)
        if handler is not None:
            handler(self, event)

    def on_exchange(self, ev: ExchangeEvent) -> None:
        """A single attack outside a battle: the two sides, so far apart."""
        if not self.people:
            self.introduce(ev.combatants, None, None)

    def on_battle(self, ev: BattleEvent) -> None:
        if self.people:
            return
        self.introduce(ev.combatants, ev.state, ev.standing)
        lighting = (ev.field or {}).get("lighting")
        if lighting == "dark":
            self.say("The fight takes place in darkness.")
        elif lighting and lighting != "normal":
            self.say(f"Lighting: {lighting}.")

    def introduce(self, combatants: Sequence[Mapping[str, Any]],
                  state: Mapping[str, Any] | None, standing: Mapping[str, Any] | None) -> None:
        """Who faces whom (or the sides), and who starts prone or blinded."""
        self.setup(combatants, state)
        sides: dict[int, list[int]] = {}
        for i, p in enumerate(self.people):
            sides.setdefault(p.side, []).append(i)
        if len(self.people) == 2 and len(sides) == 2:
            d = self.distance(0, 1) or 0.0
            self.say(f"{self.name(0, True)} faces {self.name(1)}, {_yards(d)} apart.")
        else:
            self.say(" ".join(f"Side {s}: {self.cast.join(ids, True)}."
                              for s, ids in sorted(sides.items())))
        for i, c in enumerate(combatants or []):
            state_words = [w for w in ("prone", "blinded") if isinstance(c, dict) and c.get(w)]
            if state_words:
                self.say(f"{self.name(i, True)} starts {' and '.join(state_words)}.")
        if isinstance(standing, dict) and "turn" in standing:
            self.say(f"The fight as it stood before turn {standing['turn']} (a state file).")

    def on_turn(self, ev: TurnEvent) -> None:
        self.flush_attack()
        self.turn = ev.turn
        self.totals = {}
        self.delayed = set()
        self.say(f"Turn {self.turn}.")

    def on_initiative(self, ev: InitiativeEvent) -> None:
        who = ev.who
        self.totals[who] = ev.total
        if ev.given is not None:  # a state file's initiative, already rolled
            self.say(f"{self.name(who, True)}'s initiative stands at {ev.total}.")
            return
        wounds = f" - {ev.penalty} (wounds)" if ev.penalty else ""
        self.say(f"{self.name(who, True)} rolls initiative {ev.die} + {ev.rating}{wounds} = "
                 f"{ev.total}.")

    def on_order(self, ev: OrderEvent) -> None:
        order = ev.order
        if len(order) > 1:
            parts = [f"{self.name(i, True)} ({self.totals.get(i, '?')})" for i in order]
            self.say("Acting order: " + ", ".join(parts) + ".")
        for who, lost in sorted(self.stunned.items()):
            if lost == self.turn and who in order:
                self.say(f"{self.name(who, True)} is still dazed and loses this turn.")

    def on_decide(self, ev: DecideEvent) -> None:
        who = ev.who
        choice = ev.choice
        if ev.kind is DecisionKind.DECLARE and isinstance(choice, Declaration):
            self.declare(who, choice)
        elif ev.kind is DecisionKind.ACT and isinstance(choice, Action):
            self.last_act[who] = choice
            what = choice.kind
            if what is ActionKind.DELAY:
                if who in self.delayed:
                    self.say(f"{self.name(who, True)} keeps holding back.")
                else:
                    self.say(f"{self.name(who, True)} delays, ready to interrupt.")
                self.delayed.add(who)
            elif what is ActionKind.WAIT:
                self.say(f"{self.name(who, True)} waits for the others to act first.")
            else:
                self.delayed.discard(who)

    def declare(self, who: int, choice: Declaration) -> None:
        n = self.name(who, True)
        if choice.full_defense:
            self.say(f"{n} declares a full defense for the turn.")
            return
        actions = choice.actions
        cel = choice.celerity
        wp = choice.willpower
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

    def on_move(self, ev: MoveEvent) -> None:
        """The yards run and the gap they leave: closed, opened or kept."""
        who = ev.who
        to = ev.to
        if 0 <= who < len(self.people):
            self.people[who].x, self.people[who].y = float(to[0]), float(to[1])
        act = self.last_act.get(who)
        kind = act.kind if act is not None else None
        other = self.reference(who, act.target if act is not None else None)
        yards = _yards(ev.yards)
        n = self.name(who, True)
        runs = "runs" if kind in (ActionKind.FLEE, ActionKind.PURSUE) else "moves"
        if other is None:
            self.say(f"{n} {runs} {yards}.")
            return
        q = self.people[other]
        before = ((q.x - ev.from_[0]) ** 2 + (q.y - ev.from_[1]) ** 2) ** 0.5
        after = self.distance(who, other) or 0.0
        gap, t = _yards(after), self.name(other)
        if kind is ActionKind.FLEE:
            self.say(f"{n} runs {yards} away, now {gap} from {t}.")
        elif kind is ActionKind.PURSUE:
            self.say(f"{n} runs {yards} after {t}, now {gap} behind.")
        elif after < before - _SAME_GAP:
            self.say(f"{n} {runs} {yards} and closes to {gap} of {t}.")
        elif after > before + _SAME_GAP:
            self.say(f"{n} {runs} {yards} and backs off to {gap} from {t}.")
        else:
            self.say(f"{n} {runs} {yards}, still {gap} from {t}.")

    def reference(self, who: int, target: int | None) -> int | None:
        """Whom a move's gap is told from: the action's target, else the nearest enemy
        still in the fight."""
        if isinstance(target, int) and target != who and 0 <= target < len(self.people):
            return target
        if not 0 <= who < len(self.people):
            return None
        side = self.people[who].side
        foes = [i for i, q in enumerate(self.people) if q.side != side and i not in self.out]
        return min(foes, key=lambda i: self.distance(who, i) or 0.0) if foes else None

    def on_attack(self, ev: AttackEvent) -> None:
        self.flush_attack()
        self.attack = ev
        self.miss_told = False
        self.attack_rolled = False
        self.attack_roll = None
        self.defense = None
        self.shares = {}

    def on_defense(self, ev: DefenseEvent) -> None:
        self.defense = ev.kind.value

    def on_abort(self, ev: AbortEvent) -> None:
        n = self.name(ev.who, True)
        if ev.method is AbortMethod.WILLPOWER:
            self.say(f"{n} spends a Willpower point to abandon the declared action and defend.")
        elif ev.ok:
            self.say(f"{n} abandons the declared action to defend.")
        else:
            self.say(f"{n} fails to abort and must carry out the declared action.")

    def on_roll(self, ev: RollEvent) -> None:
        what = ev.what
        who = ev.who
        text = roll_text(ev)  # damage and soak rolls name their dice instead
        if what == "attack":
            a = self.attack
            verb = (self.attack_verb(a.target, a.maneuver, a.weapon) if a is not None
                    else self.attack_verb(None, None, None)) + self.attack_notes(who)
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
            faces = " ".join(str(f) for f in ev.faces)
            self.say(f"{self.name(who, True)} rolls on the mishap table: {faces}.")
        elif what in _ROLL_PHRASE:
            self.say(f"{self.name(who, True)} {_ROLL_PHRASE[what]}: {text}.")
        else:
            self.say(f"{self.name(who, True)} rolls {what.replace('_', ' ')}: {text}.")

    def on_mishap(self, ev: MishapEvent) -> None:
        w = ev.weapon
        with_what = "bare hands" if w == "unarmed" else f"the {_thing(w)}"
        effect = ev.effect
        then = ""
        if effect:
            then = " " + _MISHAP_TEXT.get(str(effect), "and suffers a mishap ({e})").format(
                w=_thing(w), e=str(effect).replace("_", " ")
            )
        self.say(f"A botch: {self.name(ev.who)} fumbles the attack with {with_what}{then}.")

    def on_miss(self, ev: MissEvent) -> None:
        if self.attack is not None and not self.attack_rolled:
            self.flush_attack()
            return
        self.attack = None
        if self.miss_told:  # already said before a parry's counterblow
            self.miss_told = False
            return
        self.say(self.miss_line(ev.target))

    def miss_line(self, target: int | None = None) -> str:
        a = self.attack_roll
        succ = a.succ if a else 0
        if target is not None and target in self.shares:  # RNG-6: its share only
            succ = self.shares[target]
        if succ and self.defense:
            lost = "the only success" if succ == 1 else f"all {succ} successes"
            return f"Miss: the {self.defense} takes away {lost}."
        return "Miss."

    def on_hit(self, ev: HitEvent) -> None:
        self.flush_hit()
        net = ev.net
        if ev.parry:  # DEF-6: the attack missed; the miss event follows the counter
            self.say(self.miss_line())
            self.miss_told = True
            self.hit = [
                f"The parry turns the blow back on {self.name(ev.target)}: "
                f"{plural(net, 'extra success', 'extra successes')}"
            ]
        elif ev.mishap:
            self.hit = [f"The botched blow strikes {self.name(ev.target)} instead"]
        else:
            self.attack = None
            self.hit = [f"Hit with {plural(net, 'net success', 'net successes')}"]
        p = self.person(ev.who)
        self.hit_auto = p.potence if p else 0

    def person(self, who: Any) -> _Who | None:
        if isinstance(who, int) and 0 <= who < len(self.people):
            return self.people[who]
        return None

    def on_armor(self, ev: ArmorEvent) -> None:
        who = ev.who
        p = self.person(who)
        armor = p.armor if p else None
        part = f"{self.name(who)}'s {_thing(armor) if armor else 'armor'} is torn apart"
        if self.hit:
            self.hit.append(part)
        else:
            self.say(part[0].upper() + part[1:] + ".")

    def on_damage(self, ev: DamageEvent) -> None:
        who = ev.who
        levels = ev.levels
        dtype = ev.type.value
        track = ev.track
        level = ev.level.capitalize()
        auto = self._auto(levels, dtype, who)
        if auto and 0 <= self.damage_at < len(self.hit) and self.damage_roll is not None:
            total = self.damage_roll.succ + auto
            self.hit[self.damage_at] += f" + {auto} from Potence = {total}"
        if self._halved(dtype, who) and self.damage_roll is not None:
            dealt = self.damage_roll.succ + auto
            soak = self.soak_roll.succ if self.soak_roll else 0
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

    def _auto(self, levels: int, dtype: str, who: int) -> int:
        """Potence successes (VAMP-5) are not in the roll event: infer them.

        The recorded levels must equal max(0, damage + auto - soak), halved for
        a vampire taking bashing damage; of 0 and the attacker's Potence the
        value that fits is reported (0 when both or neither fit).
        """
        if not self.hit_auto or self.damage_roll is None:
            return 0
        dmg = self.damage_roll.succ
        soak = self.soak_roll.succ if self.soak_roll else 0
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

    def _halved(self, dtype: str, who: int) -> bool:
        """DMG-5: a vampire halves bashing damage after soak."""
        p = self.person(who)
        return dtype == "bashing" and p is not None and p.kind == "vampire"

    def on_stun(self, ev: StunEvent) -> None:
        who = ev.who
        lost = ev.turn
        self.stunned[who] = lost
        when = f"turn {lost}" if self.turn else "the next turn"
        self.say(f"{self.name(who, True)} is stunned by the blow and will lose {when}.")

    def on_status(self, ev: StatusEvent) -> None:
        who = ev.who
        status = ev.status.value
        if status == "active":
            self.out.discard(who)
        else:
            self.out.add(who)
        n = self.name(who, True)
        if status == "dead":
            p = self.person(who)
            vampire = p is not None and p.kind == "vampire"
            self.say(f"{n} meets Final Death." if vampire else f"{n} is dead.")
        else:
            self.say(f"{n} {_STATUS_TEXT.get(status, 'is now ' + status)}.")

    def on_action(self, ev: ActionEvent) -> None:
        n = self.name(ev.who, True)
        what = ev.action
        data = ev.data
        ok = data.get("ok", True)
        weapon = data.get("weapon")
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
            by = data.get("by")
            hand = f" by {self.name(by)}" if isinstance(by, int) else ""
            self.say(f"{n} is disarmed{hand} and loses the {_thing(weapon)}.")
        elif what == "blood":
            self.blood_line(data, n)
        elif what == "ambush":
            self.ambush_line(ev.who, data, n)
        elif what == "spray":
            self.spray_line(data, n)
        else:
            target = data.get("target")
            t = self.name(target) if isinstance(target, int) else "the enemy"
            table = _ACTION_TEXT if ok else _ACTION_FAILED
            if ok and what in _ACTION_OK:
                table = _ACTION_OK
            template = table.get(str(what))
            if template is None:
                done = "" if ok else ", without success"
                words = str(what).replace("_", " ").replace("{", "{{").replace("}", "}}")
                template = f"{{n}}: {words}{{at}}{done}."
            targets = [self.name(i) for i in data.get("targets") or []]
            self.say(
                template.format(
                    n=n,
                    t=t,
                    w=_thing(weapon),
                    at=f" at {t}" if isinstance(target, int) else "",
                    points=data.get("points", "?"),
                    blood=data.get("blood", "?"),
                    dice=data.get("dice", "?"),
                    cover=_thing(data.get("cover") or "cover"),
                    targets=_join(targets) if targets else "the enemy",
                )
            )

    def spray_line(self, data: Mapping[str, Any], n: str) -> None:
        """RNG-6: who is in the area and each one's share of the successes."""
        targets = [t for t in data.get("targets") or [] if isinstance(t, int)]
        shares = [int(x) for x in data.get("shares") or []]
        line = f"{n} sprays fire across {self.cast.join(targets) if targets else 'the enemy'}"
        if len(shares) == len(targets) == 1:
            line += f", alone in the area: half the successes ({shares[0]})"
        elif shares and len(shares) == len(targets):
            line += f" (shares {_join([str(x) for x in shares])})"
        if len(shares) == len(targets):
            self.shares = dict(zip(targets, shares, strict=True))
        self.say(line + ".")

    def blood_line(self, data: Mapping[str, Any], n: str) -> None:
        """VAMP-2: blood spent before declarations (nothing to say for none)."""
        use, points = str(data.get("use", "none")), int(data.get("points", 0))
        if use == "none" or not points:
            return
        spent = f"{n} spends {plural(points, 'blood point')}"
        left = f"{data.get('blood', '?')} blood left"
        if use == "heal":
            healed = int(data.get("healed", points))
            self.say(
                f"{spent} to heal {plural(healed, 'level')} "
                f"(track {data.get('track', '?')}, {left})."
            )
        else:
            self.say(f"{spent} to raise {use.capitalize()} by {points} ({left}).")

    def ambush_line(self, who: int, data: Mapping[str, Any], n: str) -> None:
        """ATK-11: the margin of the attacker's Stealth over the target's notice."""
        target = data.get("target")
        margin = int(data.get("margin", 0))
        if margin > 0:
            dice = plural(margin, "extra die", "extra dice")
            self.say(f"{n} catches {self.name(target)} by surprise ({dice}).")
        elif margin == 0:
            self.say(f"{n} strikes first from hiding, but {self.name(target)} may still defend.")
        else:
            self.say(f"{self.name(target, True)} spots {self.name(who)} in time.")

    # MOVE-3, MOVE-4 (vtm_sim.events.chase)
    def on_flee(self, ev: FleeEvent) -> None:
        self.say(f"{self.name(ev.who, True)} flees with a {_yards(ev.lead)} lead "
                 f"({plural(ev.start, 'success', 'successes')} to start the chase).")

    def on_chase(self, ev: ChaseEvent) -> None:
        who, quarry = ev.who, ev.quarry
        total, rival = ev.total, ev.rival
        tired = ev.tired
        note = f", tired: {plural(tired, 'die', 'dice')} fewer" if tired else ""
        if who == quarry:
            against = "" if rival < 0 else f" against {rival}"
            self.say(f"Chase: {self.name(who, True)} has {total}{against}{note}.")
        else:
            self.say(f"Chase: {self.name(who, True)} has {total} against "
                     f"{self.name(quarry)}'s {rival}{note}.")

    def on_caught(self, ev: CaughtEvent) -> None:
        how = " at a dead end" if ev.dead_end else ""
        self.say(f"{self.name(ev.who, True)} catches {self.name(ev.quarry)}{how}.")

    def on_escaped(self, ev: EscapeEvent) -> None:
        self.out.add(ev.who)
        why = "nobody gives chase" if ev.reason == "unpursued" else "outruns the pursuit"
        self.say(f"{self.name(ev.who, True)} escapes ({why}) and is out of the fight.")

    def on_jump(self, ev: JumpEvent) -> None:
        n = self.name(ev.who, True)
        what = ev.obstacle
        if ev.detour:
            self.say(f"{n} goes around {what} ({_yards(ev.detour)} more).")
            return
        feet, reached = ev.feet, ev.reached
        kind = "running" if ev.running else "standing"
        if ev.ok:
            self.say(f"{n} clears {what} with a {kind} jump ({reached:g} ft of {feet:g}).")
        elif ev.prone:
            self.say(f"{n} falls short of {what} ({reached:g} ft of {feet:g}) and goes down.")
        else:
            self.say(f"{n} falls short of {what} ({reached:g} ft of {feet:g}) but lands well.")

    def on_end(self, ev: EndEvent) -> None:
        self.flush_attack()
        after = f"after {plural(ev.turns, 'turn')}"
        winner = ev.winner
        if winner is not None:
            ids = [i for i, p in enumerate(self.people) if p.side == winner]
            who = self.cast.join(ids, True) if ids else "nobody"
            self.say(f"The battle ends {after}: side {winner} ({who}) wins.")
        elif ev.reason == "turn limit":
            self.say(f"The battle ends undecided {after}: the turn limit is reached.")
        else:
            self.say(f"The battle ends {after}: nobody is left standing.")


# Each event class's handler, built once: narration dispatches on the event's class.
# An event of a class not here (``ammo``) says nothing.
_HANDLERS: Final[dict[type[Event], Callable[[_Narrator, Any], None]]] = {
    ExchangeEvent: _Narrator.on_exchange,
    BattleEvent: _Narrator.on_battle,
    TurnEvent: _Narrator.on_turn,
    InitiativeEvent: _Narrator.on_initiative,
    OrderEvent: _Narrator.on_order,
    DecideEvent: _Narrator.on_decide,
    MoveEvent: _Narrator.on_move,
    AttackEvent: _Narrator.on_attack,
    DefenseEvent: _Narrator.on_defense,
    AbortEvent: _Narrator.on_abort,
    RollEvent: _Narrator.on_roll,
    MishapEvent: _Narrator.on_mishap,
    MissEvent: _Narrator.on_miss,
    HitEvent: _Narrator.on_hit,
    ArmorEvent: _Narrator.on_armor,
    DamageEvent: _Narrator.on_damage,
    StunEvent: _Narrator.on_stun,
    StatusEvent: _Narrator.on_status,
    ActionEvent: _Narrator.on_action,
    FleeEvent: _Narrator.on_flee,
    ChaseEvent: _Narrator.on_chase,
    CaughtEvent: _Narrator.on_caught,
    EscapeEvent: _Narrator.on_escaped,
    JumpEvent: _Narrator.on_jump,
    EndEvent: _Narrator.on_end,
}
# the events that belong to an attack's outcome line: any other ends it
_CHAIN: Final[frozenset[type[Event]]] = frozenset({RollEvent, ArmorEvent, DamageEvent})


def _join(names: Sequence[str]) -> str:
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def narrate(events: Iterable[Event], *, finished: bool = True) -> list[str]:
    """Narrate a battle log: one line per meaningful event, in order.

    Args:
        events: the log, header first (a live :class:`~vtm_sim.events.EventLog`
            or one read back from JSONL).
        finished: the log is all there will be. False for a fight still going on (the
            table, :mod:`vtm_sim.table`): an attack waiting for its defense is not told
            as lost, it is told when its roll comes.

    Returns:
        Lines of plain English; the same events always give the same lines.
    """
    n = _Narrator()
    for ev in events:
        n.feed(ev)
    n.flush_hit()
    if finished:
        n.flush_attack()
    return n.lines


class Narration:
    """A fight's narration kept up to date as it goes on (the table, :mod:`vtm_sim.table`):
    fed each step's new events, :meth:`lines` gives what :func:`narrate` of the whole log
    would, without reading the log again."""

    __slots__ = ("_n",)

    def __init__(self, events: Iterable[Event] = ()) -> None:
        self._n = _Narrator()
        self.feed(events)

    def feed(self, events: Iterable[Event]) -> None:
        """The next events of the log, in order."""
        for ev in events:
            self._n.feed(ev)

    def lines(self, *, finished: bool = True) -> list[str]:
        """``narrate(every event fed, finished=finished)``; the narration goes on as if
        this had not been asked (the last line is told on a copy)."""
        n = self._n
        if not n.hit and (n.attack is None or n.attack_rolled or not finished):
            return list(n.lines)
        tail = copy.copy(n)  # what flushing changes, copied: the outcome line and the cast
        tail.lines = []
        tail.hit = list(n.hit)
        cast = copy.copy(n.cast)
        cast.mentioned = set(n.cast.mentioned)
        cast.others = set(n.cast.others)
        cast.subjects = list(n.cast.subjects)
        tail.cast = cast
        tail.flush_hit()
        if finished:
            tail.flush_attack()
        return n.lines + tail.lines
