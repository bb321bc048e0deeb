"""Tactic cards learned from simulated battles: what an NPC does, when, and how it works.

:func:`learn` plays a scenario (or a state file: :class:`Start`) many times with
one NPC under a policy (the others under theirs), a share of the battles begun
with the NPC wounded so that the card has rows for wounded situations, and at
every action the NPC takes records the situation
as a Storyteller would see it (its wound band, the range to the nearest able
enemy, cover, ammunition, whether that enemy is hurt, grappled or down) and
what it did (attack with which maneuver, move in, back off, take cover,
reload, aim, ...). Per situation it counts each kind of action, the win rate
of the battles where it was taken there, and the health levels the NPC dealt
before its next action (its hits' damage, a crush's, MAN-6, and drinking's,
MAN-9). :func:`card_markdown` prints the result as a one-page decision table
with plain-language rules and a glossary of its situation words
(:data:`GLOSSARY`); :meth:`BehaviorCard.to_json` is what JSON and YAML exports
hold. Deterministic for a seed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from vtm_sim.core.choices import Action, ActionKind, Decision, DecisionKind
from vtm_sim.engine.battle import Battle
from vtm_sim.events import EventKind
from vtm_sim.files.scenarios import Scenario
from vtm_sim.files.state_files import Override, Standing, apply_standing, read_state
from vtm_sim.mechanics.combatant import Combatant
from vtm_sim.policies.registry import PolicyMaker

# wound bands (DMG-7 level names)
BANDS = {"unhurt": "unhurt", "bruised": "unhurt", "hurt": "hurt", "injured": "hurt",
         "wounded": "wounded", "mauled": "badly hurt", "crippled": "badly hurt",
         "incapacitated": "badly hurt"}
BAND_ORDER = ("unhurt", "hurt", "wounded", "badly hurt")
RANGES = ((2.0, "in reach"), (10.0, "close"), (30.0, "medium range"), (float("inf"), "far"))
# the words of a situation, for the card's glossary
GLOSSARY: tuple[tuple[str, str], ...] = (
    ("unhurt", "no damage or Bruised on the health track (no dice lost, DMG-7)"),
    ("hurt", "Hurt or Injured (DMG-7)"),
    ("wounded", "Wounded (DMG-7)"),
    ("badly hurt", "Mauled or Crippled (DMG-7)"),
    ("in reach", f"the nearest able enemy within {RANGES[0][0]:g} yards"),
    ("close", f"{RANGES[0][0]:g} to {RANGES[1][0]:g} yards from it"),
    ("medium range", f"{RANGES[1][0]:g} to {RANGES[2][0]:g} yards from it"),
    ("far", f"more than {RANGES[2][0]:g} yards from it"),
    ("in cover", "standing in a cover zone of the field, or prone (RNG-1)"),
    ("gun loaded", "the ranged weapon in hand holds half its rounds or more"),
    ("gun low", "it holds fewer than half its rounds, at least one"),
    ("gun empty", "it holds none: reload (ACT-7) or fight another way"),
    ("blood to spend", "a third of its blood pool or more (vampires, ghouls)"),
    ("low blood", "less than a third of its blood pool"),
    ("no blood", "an empty blood pool"),
    ("that enemy unhurt / hurt", "the nearest able enemy without damage / with some"),
    ("that enemy grappled", "the nearest able enemy is in a clinch, hold or feeding"),
    ("that enemy down", "no enemy is still fighting"),
    ("wins", "the share of the battles where it did that which its side won"),
    ("levels dealt", "health levels it dealt from that action until its next one: hits, "
                     "crushes in a clinch (MAN-6), drinking (MAN-9)"),
)
WOUNDS = (2, 4, 5, 3, 6)  # lethal levels a wounded start adds, in turn (DMG-7 bands)
MIN_SEEN = 5  # times a situation must come up to make the card
UNROLLED_HARM = frozenset({"crush", "drink"})  # ACTION events whose damage follows (MAN-6, 9)


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
    win_rate: float  # over the battles begun as the source has it (not wounded further)
    rules: tuple[Rule, ...]
    notes: tuple[str, ...] = field(default=())
    wounded: int = 0  # battles begun with the NPC wounded further

    def to_json(self) -> dict[str, Any]:
        return {"scenario": self.scenario, "npc": self.npc, "policy": self.policy,
                "battles": self.battles, "wounded_starts": self.wounded, "seed": self.seed,
                "win_rate": round(self.win_rate, 4),
                "rules": [r.to_json() for r in self.rules], "notes": list(self.notes),
                "glossary": dict(GLOSSARY)}


@dataclass(frozen=True, slots=True)
class Start:
    """Where the simulated battles begin: a scenario's first turn or a state file's
    fight as it stands. ``battle(seed, wound)`` gives one begun, with ``wound`` more
    lethal levels on combatant ``npc`` (0: as written); ``sides`` each combatant's side."""

    name: str
    npc: int
    sides: tuple[int, ...]
    names: tuple[str, ...]
    battle: Callable[[int, int], Battle]
    woundable: bool = True  # False: a machine-written state, taken only as it is


def _wounded(standing: Standing, npc: int, boxes: int, size: int) -> Standing:
    """``standing`` with ``boxes`` more lethal levels on ``npc``, short of Incapacitated."""
    rows = list(standing.combatants)
    old = next((o for o in rows if o.id == npc), Override(id=npc))
    b, lethal, agg = old.damage or (0, 0, 0)
    lethal = max(lethal, min(lethal + boxes, size - 1 - b - agg))
    new = old.model_copy(update={"damage": (b, lethal, agg)})
    rows = [new if o.id == npc else o for o in rows] + ([] if old in rows else [new])
    return standing.model_copy(update={"combatants": rows})


def scenario_start(scenario: Scenario, npc: int) -> Start:
    """The battles of ``scenario`` from its first turn."""

    def battle(seed: int, wound: int) -> Battle:
        b = Battle(scenario.fighters, seed=seed, rules=scenario.rules,
                   turn_limit=scenario.turn_limit, field=scenario.field,
                   ambush=scenario.ambush, scenario=scenario.name, start=False)
        if wound:
            size = b.combatants[npc].health.size
            apply_standing(b, _wounded(Standing(turn=1), npc, wound, size))
        b.begin()
        return b

    fs = scenario.fighters
    return Start(scenario.name, npc, tuple(f.side for f in fs), tuple(f.stats.name for f in fs),
                 battle)


def state_start(path: str | Path, npc: int) -> Start:
    """The battles of a state file from the fight as it stands (ConfigError: a bad file)."""
    first = read_state(path)
    if first.begun or first.scenario is None:  # machine-written: exactly as saved
        def saved(seed: int, _wound: int) -> Battle:
            return read_state(path, seed=seed).battle

        cs = first.battle.combatants
        return Start(Path(path).name, npc, tuple(c.side for c in cs),
                     tuple(c.name for c in cs), saved, woundable=False)
    sc = first.scenario
    standing = Standing.model_validate(first.battle.standing or {"turn": 1})
    size = first.battle.combatants[npc].health.size

    def battle(seed: int, wound: int) -> Battle:
        b = Battle(sc.fighters, seed=seed, rules=sc.rules, turn_limit=sc.turn_limit,
                   field=sc.field, ambush=sc.ambush if standing.turn == 1 else (),
                   scenario=sc.name, start=False)
        apply_standing(b, _wounded(standing, npc, wound, size) if wound else standing)
        b.begin()
        return b

    return Start(Path(path).name, npc, tuple(f.side for f in sc.fighters),
                 tuple(f.stats.name for f in sc.fighters), battle)


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
    source: Scenario | Start,
    npc: int,
    policy: PolicyMaker,
    *,
    policy_name: str,
    others: PolicyMaker,
    battles: int = 200,
    seed: int = 0,
    npc_label: str | None = None,
    max_rules: int = 12,
    wounded: float = 0.5,
) -> BehaviorCard:
    """Play ``battles`` seeded battles and tabulate the NPC's actions by situation.

    A share ``wounded`` of them (every other one at 0.5) begins with the NPC wounded
    further (2 to 6 lethal levels in turn, short of Incapacitated), so that the card
    has rows for wounded situations; the win rate is the other battles'. The card
    keeps up to ``max_rules`` situations, the commonest of each wound band first.
    """
    start = source if isinstance(source, Start) else scenario_start(source, npc)
    table: dict[Situation, dict[str, Tally]] = {}
    seen: dict[Situation, int] = {}
    side = start.sides[npc]
    won = 0.0
    plain = 0
    hurt = 0
    for k in range(battles):
        s = seed + k
        rng = np.random.default_rng([s, 11])
        pols = [policy(rng, i) if i == npc else others(rng, i)
                for i in range(len(start.sides))]
        wound = 0
        if start.woundable and wounded > 0 and int((k + 1) * wounded) > int(k * wounded):
            wound = WOUNDS[hurt % len(WOUNDS)]
            hurt += 1
        b = start.battle(s, wound)
        records: list[tuple[Situation, str, int]] = []  # situation, action, log position
        while b.pending is not None:
            d: Decision = b.pending
            choice = pols[d.actor].choose(b, d)
            if d.actor == npc and d.kind is DecisionKind.ACT and isinstance(choice, Action):
                me = b.combatants[npc]
                records.append((situation_of(b, me), action_words(b, me, choice), len(b.log)))
            b.choose(choice)
        result = 0.5 if b.winner is None else (1.0 if b.winner == side else 0.0)
        if not wound:
            won += result
            plain += 1
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
    kept = _keep(rules, max_rules)
    notes = []
    if len(rules) > len(kept):
        rest = sum(r.seen for r in rules if r not in kept)
        notes.append(f"{len(rules) - len(kept)} rarer situations ({rest} actions) left off.")
    if hurt:
        notes.append(f"{hurt} of the {battles} battles began with the NPC wounded further "
                     f"({min(WOUNDS)} to {max(WOUNDS)} lethal levels), for the wounded rows; "
                     "the win rate above is the other battles'.")
    name = npc_label or start.names[npc]
    return BehaviorCard(start.name, name, policy_name, battles, seed,
                        won / plain if plain else 0.0, kept, tuple(notes), hurt)


def _band(r: Rule) -> int:
    w = r.situation.wounds
    return BAND_ORDER.index(w) if w in BAND_ORDER else len(BAND_ORDER)


def _keep(rules: list[Rule], most: int) -> tuple[Rule, ...]:
    """Up to ``most`` rules: the commonest of each wound band in turn (so every band
    seen often enough has rows), then by wound band and how often each came up."""
    by_seen = sorted(rules, key=lambda r: (-r.seen, r.situation.words()))
    bands: dict[int, list[Rule]] = {}
    for r in by_seen:
        bands.setdefault(_band(r), []).append(r)
    kept: list[Rule] = []
    depth = 0
    while len(kept) < most and any(depth < len(v) for v in bands.values()):
        for key in sorted(bands):
            if depth < len(bands[key]) and len(kept) < most:
                kept.append(bands[key][depth])
        depth += 1
        if depth >= 3:  # after three of each band, simply the commonest left
            rest = [r for r in by_seen if r not in kept]
            kept += rest[:most - len(kept)]
            break
    return tuple(sorted(kept, key=lambda r: (_band(r), -r.seen, r.situation.words())))


def _levels_dealt(b: Battle, npc: int, starts: Sequence[int]) -> list[int]:
    """Health levels the NPC dealt from each action until its next one: its hits' damage,
    and what hurts without an attack roll (a crush in the clinch, MAN-6; drinking, MAN-9)."""
    out = [0] * len(starts)
    events = b.log.events
    bounds = [*starts, len(events)]
    for i in range(len(starts)):
        target = -1
        for ev in events[bounds[i]:bounds[i + 1]]:
            e = ev["e"]
            if e == EventKind.HIT or (e == EventKind.ACTION and ev["action"] in UNROLLED_HARM):
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
    lines += ["", "## Words", ""]
    lines += [f"- **{word}**: {meaning}" for word, meaning in GLOSSARY]
    return "\n".join(lines) + "\n"
