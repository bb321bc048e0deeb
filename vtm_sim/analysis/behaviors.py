"""Tactic cards learned from simulated battles: what an NPC does, when, and how it works.

:func:`learn` plays a scenario many times with one NPC under a policy (the
others under theirs), and at every action the NPC takes records the situation
as a Storyteller would see it (its wound band, the range to the nearest able
enemy, cover, ammunition, whether that enemy is hurt, grappled or down) and
what it did (attack with which maneuver, move in, back off, take cover,
reload, aim, ...). Per situation it counts each kind of action, the win rate
of the battles where it was taken there, and the health levels the NPC dealt
before its next action. :func:`card_markdown` prints the result as a
one-page decision table with plain-language rules; :meth:`BehaviorCard.to_json`
is what JSON and YAML exports hold. Deterministic for a seed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from vtm_sim.core.choices import Action, ActionKind, Decision, DecisionKind
from vtm_sim.engine.battle import Battle
from vtm_sim.events import EventKind
from vtm_sim.files.scenarios import Scenario
from vtm_sim.mechanics.combatant import Combatant
from vtm_sim.policies.registry import PolicyMaker

# wound bands (DMG-7 level names)
BANDS = {"unhurt": "unhurt", "bruised": "unhurt", "hurt": "hurt", "injured": "hurt",
         "wounded": "wounded", "mauled": "badly hurt", "crippled": "badly hurt",
         "incapacitated": "badly hurt"}
RANGES = ((2.0, "in reach"), (10.0, "close"), (30.0, "medium range"), (float("inf"), "far"))
MIN_SEEN = 5  # times a situation must come up to make the card


@dataclass(frozen=True, slots=True)
class Situation:
    wounds: str
    range: str
    cover: bool
    ammo: str  # "no gun", "empty", "low", "loaded"
    enemy: str  # "unhurt", "hurt", "grappled", "down", "none"
    blood: str  # "no blood", "low blood", "blood" ("" for mortals)

    def words(self) -> str:
        bits = [self.wounds, self.range + " of the nearest enemy"]
        if self.cover:
            bits.append("in cover")
        if self.ammo != "no gun":
            bits.append(f"gun {self.ammo}")
        if self.blood:
            bits.append(self.blood)
        if self.enemy != "none":
            bits.append(f"that enemy {self.enemy}")
        return ", ".join(bits)

    def to_json(self) -> dict[str, Any]:
        return {"wounds": self.wounds, "range": self.range, "cover": self.cover,
                "ammo": self.ammo, "enemy": self.enemy, "blood": self.blood}


@dataclass(slots=True)
class Tally:
    times: int = 0
    wins: float = 0.0
    levels: int = 0

    @property
    def win_rate(self) -> float:
        return self.wins / self.times if self.times else 0.0

    @property
    def mean_levels(self) -> float:
        return self.levels / self.times if self.times else 0.0


@dataclass(frozen=True, slots=True)
class Rule:
    situation: Situation
    seen: int
    actions: tuple[tuple[str, int, float, float], ...]  # (action, times, win rate, levels)

    @property
    def main(self) -> tuple[str, int, float, float]:
        return self.actions[0]

    def sentence(self) -> str:
        action, times, win, levels = self.main
        share = times / self.seen
        how = "" if share > 0.9 else f" ({share:.0%} of the time)"
        tail = f" Works: wins {win:.0%}"
        if levels >= 0.05:
            tail += f", {levels:.1f} levels dealt before its next action"
        alt = ""
        if len(self.actions) > 1 and self.actions[1][1] / self.seen >= 0.2:
            alt = f" Otherwise: {self.actions[1][0]}."
        return f"{self.situation.words().capitalize()}: {action}{how}.{alt}{tail}."

    def to_json(self) -> dict[str, Any]:
        return {"situation": self.situation.to_json(), "when": self.situation.words(),
                "seen": self.seen, "rule": self.sentence(),
                "actions": [{"action": a, "times": t, "win_rate": round(w, 4),
                             "mean_levels": round(lv, 3)} for a, t, w, lv in self.actions]}


@dataclass(frozen=True, slots=True)
class BehaviorCard:
    scenario: str
    npc: str
    policy: str
    battles: int
    seed: int
    win_rate: float
    rules: tuple[Rule, ...]
    notes: tuple[str, ...] = field(default=())

    def to_json(self) -> dict[str, Any]:
        return {"scenario": self.scenario, "npc": self.npc, "policy": self.policy,
                "battles": self.battles, "seed": self.seed,
                "win_rate": round(self.win_rate, 4),
                "rules": [r.to_json() for r in self.rules], "notes": list(self.notes)}


def situation_of(battle: Battle, me: Combatant) -> Situation:
    foes = [o for o in battle.combatants if o.side != me.side and battle.able(o)]
    foe = min(foes, key=lambda o: (me.distance(o), o.id)) if foes else None
    d = me.distance(foe) if foe is not None else float("inf")
    rng = next(name for limit, name in RANGES if d <= limit)
    cover = battle.field.cover_at(me.x, me.y) is not None or me.prone
    w = me.weapon
    if w.magazine and w.cls.ranged and me.wielding >= 0:
        left = me.ammo[me.wielding]
        ammo = "empty" if left == 0 else ("low" if 2 * left < w.magazine else "loaded")
    else:
        ammo = "no gun"
    enemy = "none"
    if foe is not None:
        if foe.grappling:
            enemy = "grappled"
        elif foe.health.filled == 0:
            enemy = "unhurt"
        else:
            enemy = "hurt"
    elif any(o.side != me.side for o in battle.combatants):
        enemy = "down"
    blood = ""
    if me.stats.blood_pool:
        blood = "no blood" if me.blood == 0 else (
            "low blood" if 3 * me.blood < me.stats.blood_pool else "blood to spend")
    return Situation(BANDS.get(me.health.level_name, me.health.level_name), rng, cover,
                     ammo, enemy, blood)


def action_words(battle: Battle, me: Combatant, a: Action) -> str:
    """The kind of action, in words that generalise over targets."""
    k = a.kind
    if k is ActionKind.ATTACK and a.maneuver is not None:
        words = a.maneuver.replace("_", " ")
        if a.called is not None:
            words += f" ({a.called.value} called shot)"
        return "attack: " + words
    if k is ActionKind.MOVE:
        return ("back off" if a.away else "close in") + (" (jumping)" if a.jump else "")
    if a.jump:  # MOVE-3: jumping what the plain move would go around
        return action_words(battle, me, Action(k, a.maneuver, a.target)) + " (jumping)"
    return {
        ActionKind.TAKE_COVER: "take cover", ActionKind.RELOAD: "reload",
        ActionKind.AIM: "aim", ActionKind.DRAW: "draw a weapon",
        ActionKind.DROP_PRONE: "drop prone", ActionKind.GET_UP: "get up",
        ActionKind.CLEAR: "clear the weapon", ActionKind.CRUSH: "crush in the clinch",
        ActionKind.BREAK_FREE: "break free", ActionKind.RELEASE: "let go",
        ActionKind.FEED: "keep feeding", ActionKind.DELAY: "hold back (delay)",
        ActionKind.WAIT: "wait", ActionKind.PASS: "do nothing",
        ActionKind.FLEE: "break off and run", ActionKind.PURSUE: "give chase",  # MOVE-4
    }.get(k, str(k.value))


def learn(
    scenario: Scenario,
    npc: int,
    policy: PolicyMaker,
    *,
    policy_name: str,
    others: PolicyMaker,
    battles: int = 200,
    seed: int = 0,
    npc_label: str | None = None,
    max_rules: int = 12,
) -> BehaviorCard:
    """Play ``battles`` seeded battles and tabulate the NPC's actions by situation."""
    table: dict[Situation, dict[str, Tally]] = {}
    seen: dict[Situation, int] = {}
    side = scenario.fighters[npc].side
    won = 0.0
    for k in range(battles):
        s = seed + k
        rng = np.random.default_rng([s, 11])
        pols = [policy(rng, i) if i == npc else others(rng, i)
                for i in range(len(scenario.fighters))]
        b = scenario.battle(seed=s)
        records: list[tuple[Situation, str, int]] = []  # situation, action, log position
        while b.pending is not None:
            d: Decision = b.pending
            choice = pols[d.actor].choose(b, d)
            if d.actor == npc and d.kind is DecisionKind.ACT and isinstance(choice, Action):
                me = b.combatants[npc]
                records.append((situation_of(b, me), action_words(b, me, choice), len(b.log)))
            b.choose(choice)
        result = 0.5 if b.winner is None else (1.0 if b.winner == side else 0.0)
        won += result
        dealt = _levels_dealt(b, npc, [pos for _, _, pos in records])
        for (sit, act, _), levels in zip(records, dealt, strict=True):
            t = table.setdefault(sit, {}).setdefault(act, Tally())
            t.times += 1
            t.wins += result
            t.levels += levels
            seen[sit] = seen.get(sit, 0) + 1
    rules = []
    for sit, acts in table.items():
        n = seen[sit]
        if n < MIN_SEEN:
            continue
        ranked = sorted(acts.items(), key=lambda kv: (-kv[1].times, kv[0]))
        rules.append(Rule(sit, n, tuple((a, t.times, t.win_rate, t.mean_levels)
                                        for a, t in ranked)))
    rules.sort(key=lambda r: (-r.seen, r.situation.words()))
    kept = tuple(rules[:max_rules])
    notes = []
    if len(rules) > max_rules:
        rest = sum(r.seen for r in rules[max_rules:])
        notes.append(f"{len(rules) - max_rules} rarer situations ({rest} actions) left off.")
    name = npc_label or scenario.fighters[npc].stats.name
    return BehaviorCard(scenario.name, name, policy_name, battles, seed,
                        won / battles if battles else 0.0, kept, tuple(notes))


def _levels_dealt(b: Battle, npc: int, starts: Sequence[int]) -> list[int]:
    """Health levels the NPC's hits dealt from each action until its next one."""
    out = [0] * len(starts)
    events = b.log.events
    bounds = [*starts, len(events)]
    for i in range(len(starts)):
        target = -1
        for ev in events[bounds[i]:bounds[i + 1]]:
            e = ev["e"]
            if e == EventKind.HIT:
                target = int(ev["target"]) if ev["who"] == npc else -1
            elif e == EventKind.DAMAGE and target >= 0 and ev["who"] == target:
                out[i] += int(ev["levels"])
                target = -1
    return out


def card_markdown(card: BehaviorCard) -> str:
    """One printable page."""
    lines = [
        f"# {card.npc}: tactic card",
        "",
        f"*{card.scenario}*, playing as **{card.policy}**: learned from {card.battles} "
        f"simulated battles (seeds {card.seed}..{card.seed + card.battles - 1}); "
        f"this side wins {card.win_rate:.0%}.",
        "",
        "## Rules of thumb",
        "",
    ]
    lines += [f"- {r.sentence()}" for r in card.rules]
    lines += ["", "## Decision table", "",
              "| when | does | how often | wins | levels dealt |",
              "|---|---|---|---|---|"]
    for r in card.rules:
        a, t, w, lv = r.main
        lines.append(f"| {r.situation.words()} | {a} | {t}/{r.seen} | {w:.0%} | {lv:.1f} |")
    if card.notes:
        lines += ["", *[f"*{n}*" for n in card.notes]]
    return "\n".join(lines) + "\n"
