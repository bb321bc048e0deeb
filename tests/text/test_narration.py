"""Narration (vtm_sim.text.narration): plain English built only from the event log.

Events here are written by hand as plain JSON dicts and read as a JSONL log's lines
are (``tell``), so every test also shows that narration needs nothing but the events.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from vtm_sim.data.stat_blocks import load_stat_block
from vtm_sim.engine.battle import Fighter
from vtm_sim.events import EventLog
from vtm_sim.policies.play import fight
from vtm_sim.text.narration import narrate, roll_text

CHARS = Path(__file__).resolve().parents[2] / "configs" / "characters"


def header(*people: tuple[str, str, int, float], **sheet_extra: Any) -> dict[str, Any]:
    """A battle header: (name, kind, side, x) per combatant."""
    combatants = []
    for i, (name, kind, side, x) in enumerate(people):
        sheet = {"name": name, "kind": kind, "disciplines": {}}
        sheet.update(sheet_extra.get(f"sheet{i}", {}))
        combatants.append({"id": i, "side": side, "x": x, "y": 0.0, "sheet": sheet})
    return {"e": "battle", "version": 1, "seed": 0, "rules": {}, "turn_limit": 20,
            "field": {"lighting": "normal", "cramped": False, "cover": [], "walls": []},
            "ambush": [], "combatants": combatants}


def tell(events: list[dict[str, Any]]) -> list[str]:
    """Narrate hand-written JSON events, parsed into typed events as a log file is."""
    return narrate(EventLog.from_json(events))


NIKOLAI_ELDER = header(
    ("Nikolai", "vampire", 0, 0.0),
    ("The Elder", "vampire", 1, 30.0),
    sheet1={"disciplines": {"potence": 3}},
)


def roll(who: int, what: str, pool: int, faces: list[int], succ: int, **kw: Any) -> dict[str, Any]:
    return {
        "e": "roll",
        "who": who,
        "what": what,
        "pool": pool,
        "diff": 6,
        "faces": faces,
        "succ": succ,
        **kw,
    }


def test_brief_example_turn_initiative_attack_dodge_hit() -> None:
    """The Storyteller's lines for one turn, header names lowercased mid-sentence."""
    events = [
        NIKOLAI_ELDER,
        {"e": "turn", "turn": 2},
        {"e": "initiative", "who": 0, "die": 9, "rating": 7, "penalty": 0, "total": 16},
        {"e": "initiative", "who": 1, "die": 5, "rating": 8, "penalty": 1, "total": 12},
        {"e": "order", "order": [0, 1]},
        {
            "e": "decide",
            "who": 0,
            "kind": "act",
            "choice": {"kind": "attack", "maneuver": "punch", "target": 1},
        },
        {"e": "attack", "who": 0, "target": 1, "maneuver": "punch", "weapon": "unarmed"},
        {"e": "decide", "who": 1, "kind": "defend", "choice": {"kind": "dodge"}},
        {"e": "defense", "who": 1, "kind": "dodge", "against": 0},
        roll(0, "attack", 6, [8, 6, 7, 8, 6, 10, 1], 5, spec=True),
        roll(1, "dodge", 4, [9, 2, 6, 3], 2),
        {"e": "hit", "who": 0, "target": 1, "net": 3},
        roll(0, "damage", 5, [7, 2, 6, 9, 1], 3),
        roll(1, "soak", 4, [3, 6, 2, 2], 1),
        {
            "e": "damage",
            "who": 1,
            "levels": 1,
            "type": "bashing",
            "track": "/......",
            "level": "bruised",
        },
    ]
    assert tell(events) == [
        "Nikolai faces the Elder, 30 yards apart.",
        "Turn 2.",
        "Nikolai rolls initiative 9 + 7 = 16.",
        "The Elder rolls initiative 5 + 8 - 1 (wounds) = 12.",
        "Acting order: Nikolai (16), The Elder (12).",
        "Nikolai attacks the Elder with a punch: 6 dice at difficulty 6 (specialty) -> "
        "8 6 7 8 6 10 1: 5 successes.",
        "The Elder dodges: 4 dice at difficulty 6 -> 9 2 6 3: 2 successes.",
        # DMG-5: 3 damage - 1 soak = 2, halved for a vampire to 1.
        "Hit with 3 net successes; 5 damage dice -> 7 2 6 9 1: 3 successes; "
        "4 soak dice -> 3 6 2 2: 1 success; 2 halved to 1 (a vampire against bashing); "
        "the Elder takes 1 level of bashing damage (track /......, Bruised).",
    ]


def test_VAMP_5_potence_successes_are_shown_with_the_damage_roll() -> None:
    """The roll event holds dice only; Potence's 3 automatic successes explain the levels."""
    events = [
        NIKOLAI_ELDER,
        {"e": "attack", "who": 1, "target": 0, "maneuver": "weapon_strike", "weapon": "sword"},
        roll(1, "attack", 8, [6, 6, 2, 2, 2, 2, 2, 2], 2),
        {"e": "hit", "who": 1, "target": 0, "net": 2},
        roll(1, "damage", 7, [6, 2, 2, 2, 2, 2, 2], 1),
        roll(0, "soak", 6, [6, 2, 2, 2, 2, 2], 1),
        {"e": "armor", "who": 0, "destroyed": True},
        {
            "e": "damage",
            "who": 0,
            "levels": 3,
            "type": "lethal",
            "track": "XXX....",
            "level": "injured",
        },
    ]
    lines = tell(events)
    # 1 + 3 Potence = 4 successes, 1 soaked: 3 levels.
    assert lines[-1] == (
        "Hit with 2 net successes; 7 damage dice -> 6 2 2 2 2 2 2: 1 success + 3 from "
        "Potence = 4; 6 soak dice -> 6 2 2 2 2 2: 1 success; Nikolai's armor is torn apart; "
        "Nikolai takes 3 levels of lethal damage (track XXX...., Injured)."
    )
    assert lines[1] == (
        "The Elder attacks Nikolai with the sword: 8 dice at difficulty 6 -> "
        "6 6 2 2 2 2 2 2: 2 successes."
    )


def test_DMG_6_DMG_8_stun_status_and_end_lines() -> None:
    events = [
        header(("Bar Brawler", "mortal", 0, 0.0), ("Knife Fighter", "mortal", 1, 1.0)),
        {"e": "turn", "turn": 1},
        {"e": "attack", "who": 1, "target": 0, "maneuver": "weapon_strike", "weapon": "knife"},
        roll(1, "attack", 6, [9, 9, 9, 9, 2, 2], 4),
        {"e": "hit", "who": 1, "target": 0, "net": 4},
        roll(1, "damage", 8, [6, 6, 6, 6, 2, 2, 2, 2], 4),
        roll(0, "soak", 0, [], 0),
        {
            "e": "damage",
            "who": 0,
            "levels": 4,
            "type": "lethal",
            "track": "XXXX...",
            "level": "wounded",
        },
        {"e": "stun", "who": 0, "turn": 2},
        {"e": "turn", "turn": 2},
        {"e": "initiative", "who": 0, "die": 3, "rating": 5, "penalty": 2, "total": 6},
        {"e": "initiative", "who": 1, "die": 3, "rating": 6, "penalty": 0, "total": 9},
        {"e": "order", "order": [1, 0]},
        {"e": "status", "who": 0, "status": "dead"},
        {"e": "end", "winner": 1, "turns": 2, "reason": "victory"},
    ]
    lines = tell(events)
    assert "no soak dice" in lines[3]  # SOAK-2: mortals do not soak lethal damage
    assert lines[4] == "Bar Brawler is stunned by the blow and will lose turn 2."
    assert "Bar Brawler is still dazed and loses this turn." in lines
    assert lines[-2:] == [
        "Bar Brawler is dead.",
        "The battle ends after 2 turns: side 1 (Knife Fighter) wins.",
    ]


def test_DMG_8_vampire_torpor_and_final_death() -> None:
    events = [
        NIKOLAI_ELDER,
        {"e": "status", "who": 0, "status": "torpor"},
        {"e": "status", "who": 1, "status": "dead"},
        {"e": "status", "who": 0, "status": "incapacitated"},
    ]
    assert tell(events)[1:] == [
        "Nikolai falls into torpor.",
        "The Elder meets Final Death.",
        "Nikolai is incapacitated and out of the fight.",
    ]


def test_DICE_4_botch_mishap_and_miss() -> None:
    events = [
        NIKOLAI_ELDER,
        {"e": "attack", "who": 0, "target": 1, "maneuver": "single_shot", "weapon": "ak47"},
        roll(0, "attack", 5, [1, 2, 3, 4, 5], 0, botch=True),
        {"e": "mishap", "who": 0, "weapon": "ak47", "effect": None},
        {"e": "miss", "who": 0, "target": 1, "net": 0},
    ]
    assert tell(events)[1:] == [
        "Nikolai shoots at the Elder with the ak47: 5 dice at difficulty 6 -> 1 2 3 4 5: botch.",
        "A botch: Nikolai fumbles the attack with the ak47.",
        "Miss.",
    ]


def test_DEF_1_defense_cancels_every_success() -> None:
    events = [
        NIKOLAI_ELDER,
        {"e": "attack", "who": 0, "target": 1, "maneuver": "single_shot", "weapon": "ak47"},
        {"e": "defense", "who": 1, "kind": "dodge", "against": 0},
        roll(0, "attack", 5, [6, 7, 2, 2, 2], 2),
        roll(1, "dodge", 8, [6, 7, 8, 2, 2, 2, 2, 2], 3),
        {"e": "miss", "who": 0, "target": 1, "net": 0},
    ]
    assert tell(events)[-1] == "Miss: the dodge takes away all 2 successes."


def test_RNG_6_a_spray_tells_each_share_and_a_miss_counts_the_share_only() -> None:
    people = header(("Nikolai", "vampire", 0, 0.0), ("A", "mortal", 1, 10.0),
                    ("B", "mortal", 1, 11.0))
    events = [
        people,
        {"e": "attack", "who": 0, "target": 1, "maneuver": "spray", "weapon": "ak47"},
        {"e": "defense", "who": 2, "kind": "dodge", "against": 0},
        roll(0, "attack", 15, [8] * 7 + [2] * 8, 7),
        {"e": "action", "who": 0, "action": "spray", "targets": [1, 2], "shares": [4, 3]},
        {"e": "hit", "who": 0, "target": 1, "net": 4},
        roll(0, "damage", 11, [2] * 11, 0),
        {"e": "damage", "who": 1, "levels": 0, "type": "lethal", "track": ".......",
         "level": "healthy"},
        roll(2, "dodge", 4, [9, 9, 9, 2], 3),
        {"e": "miss", "who": 0, "target": 2, "net": 0},
    ]
    lines = tell(events)
    assert lines[2] == "Nikolai sprays fire across A and B (shares 4 and 3)."
    assert lines[-1] == "Miss: the dodge takes away all 3 successes."


def test_an_exchange_header_introduces_a_single_attack() -> None:
    """``vtm_sim.engine.exchange``: one attack outside a battle, without turns."""
    exchange = {"e": "exchange", "rules": {}, "combatants": NIKOLAI_ELDER["combatants"]}
    events = [
        exchange,
        {"e": "attack", "who": 0, "target": 1, "maneuver": "single_shot", "weapon": "ak47"},
        roll(0, "attack", 5, [6, 2, 2, 2, 2], 1),
        {"e": "miss", "who": 0, "target": 1, "net": 0},
    ]
    assert tell(events) == [
        "Nikolai faces the Elder, 30 yards apart.",
        "Nikolai shoots at the Elder with the ak47: 5 dice at difficulty 6 -> 6 2 2 2 2: "
        "1 success.",
        "Miss.",
    ]


def test_attack_that_cannot_be_rolled_and_moves() -> None:
    events = [
        NIKOLAI_ELDER,
        {
            "e": "decide",
            "who": 1,
            "kind": "act",
            "choice": {"kind": "attack", "maneuver": "weapon_strike", "target": 0},
        },
        {"e": "move", "who": 1, "from": [30.0, 0.0], "to": [22.0, 0.0], "yards": 8.0},
        {"e": "attack", "who": 1, "target": 0, "maneuver": "weapon_strike", "weapon": None},
        {"e": "miss", "who": 1, "target": 0, "net": 0},
        {
            "e": "decide",
            "who": 0,
            "kind": "act",
            "choice": {"kind": "move", "target": 1, "away": True},
        },
        {"e": "move", "who": 0, "from": [0.0, 0.0], "to": [-12.5, 0.0], "yards": 12.5},
    ]
    # the gap after the move, and whether the move closed or opened it
    assert tell(events)[1:] == [
        "The Elder moves 8 yards and closes to 22 yards of Nikolai.",
        "The Elder tries to attack Nikolai with the weapon, but cannot: the action is lost.",
        "Nikolai moves 12.5 yards and backs off to 34.5 yards from the Elder.",
    ]


def test_INIT_5_to_INIT_7_declarations_delays_and_waits() -> None:
    events = [
        NIKOLAI_ELDER,
        {"e": "turn", "turn": 1},
        {
            "e": "decide",
            "who": 1,
            "kind": "declare",
            "choice": {"actions": 1, "full_defense": False, "celerity": 3, "willpower": False},
        },
        {
            "e": "decide",
            "who": 0,
            "kind": "declare",
            "choice": {"actions": 2, "full_defense": False, "celerity": 0, "willpower": True},
        },
        {
            "e": "decide",
            "who": 0,
            "kind": "declare",
            "choice": {"actions": 1, "full_defense": True, "celerity": 0, "willpower": False},
        },
        {
            "e": "decide",
            "who": 1,
            "kind": "declare",
            "choice": {"actions": 1, "full_defense": False, "celerity": 0, "willpower": False},
        },
        {"e": "decide", "who": 0, "kind": "act", "choice": {"kind": "delay"}},
        {"e": "decide", "who": 0, "kind": "act", "choice": {"kind": "delay"}},
        {"e": "decide", "who": 1, "kind": "act", "choice": {"kind": "wait"}},
        {"e": "decide", "who": 1, "kind": "act", "choice": {"kind": "pass"}},
        {"e": "action", "who": 1, "action": "pass"},
    ]
    assert tell(events)[2:] == [
        "The Elder declares 1 action plus 3 Celerity actions (3 blood).",
        "Nikolai declares 2 actions (-2 dice on the first) and will spend Willpower on the "
        "first attack.",
        "Nikolai declares a full defense for the turn.",
        "Nikolai delays, ready to interrupt.",
        "Nikolai keeps holding back.",
        "The Elder waits for the others to act first.",
        "The Elder does nothing.",
    ]


def test_DEF_6_parry_counter_is_told() -> None:
    events = [
        header(("Brawler", "mortal", 0, 0.0), ("Swordsman", "mortal", 1, 1.0)),
        {"e": "attack", "who": 0, "target": 1, "maneuver": "punch", "weapon": "unarmed"},
        {"e": "defense", "who": 1, "kind": "parry", "against": 0},
        roll(0, "attack", 4, [6, 2, 2, 2], 1),
        roll(1, "parry", 6, [6, 7, 8, 2, 2, 2], 3),
        {"e": "hit", "who": 1, "target": 0, "net": 2, "parry": True},
        roll(1, "damage", 7, [6, 6, 2, 2, 2, 2, 2], 2),
        roll(0, "soak", 0, [], 0),
        {
            "e": "damage",
            "who": 0,
            "levels": 2,
            "type": "lethal",
            "track": "XX.....",
            "level": "hurt",
        },
        {"e": "miss", "who": 0, "target": 1, "net": 0},
    ]
    assert tell(events)[3:] == [
        "Miss: the parry takes away the only success.",
        "The parry turns the blow back on Brawler: 2 extra successes; 7 damage dice -> "
        "6 6 2 2 2 2 2: 2 successes; no soak dice; Brawler takes 2 levels of lethal damage "
        "(track XX....., Hurt).",
    ]


def test_end_lines_turn_limit_and_all_down_and_same_names() -> None:
    h = header(("Street Thug", "mortal", 0, 0.0), ("Street Thug", "mortal", 1, 3.0))
    assert tell([h, {"e": "end", "winner": None, "turns": 20, "reason": "turn limit"}]) == [
        "Street Thug 1 faces Street Thug 2, 3 yards apart.",
        "The battle ends undecided after 20 turns: the turn limit is reached.",
    ]
    assert tell([h, {"e": "end", "winner": None, "turns": 1, "reason": "all down"}])[-1] == (
        "The battle ends after 1 turn: nobody is left standing."
    )


def test_MAN_10_disarm_and_damage_without_an_attack_roll() -> None:
    events = [
        NIKOLAI_ELDER,
        {"e": "action", "who": 0, "action": "disarmed", "weapon": "ak47", "by": 1},
        roll(1, "damage", 4, [6, 6, 6, 6], 4),
        roll(0, "soak", 3, [2, 2, 2], 0),
        {
            "e": "damage",
            "who": 0,
            "levels": 2,
            "type": "bashing",
            "track": "//.....",
            "level": "hurt",
        },
    ]
    assert tell(events)[1:] == [
        "Nikolai is disarmed by the Elder and loses the ak47.",
        "The Elder rolls 4 damage dice -> 6 6 6 6: 4 successes; 3 soak dice -> 2 2 2: "
        "0 successes; 4 halved to 2 (a vampire against bashing); Nikolai takes 2 levels of "
        "bashing damage (track //....., Hurt).",
    ]


def test_CPX_4_CPX_6_MAN_6_MAN_9_maneuver_effects_are_told() -> None:
    """Effects logged as action events, mishap rolls and a blow that hits an ally."""
    events = [
        NIKOLAI_ELDER,
        roll(1, "footing", 5, [2, 3, 4, 5, 1], 0, botch=True),
        {"e": "action", "who": 1, "action": "falls prone"},
        {"e": "action", "who": 0, "action": "clinch", "target": 1},
        roll(1, "break_free", 6, [6, 2, 2, 2, 2, 2], 1),
        roll(0, "hold_on", 5, [6, 6, 2, 2, 2], 2),
        {"e": "action", "who": 1, "action": "break_free", "ok": False, "target": 0},
        {"e": "action", "who": 0, "action": "kiss", "target": 1},
        {"e": "action", "who": 0, "action": "drink", "target": 1, "points": 3, "blood": 9},
        roll(0, "mishap", 1, [4], 1),
        {"e": "mishap", "who": 0, "weapon": "ak47", "effect": "jam"},
        {"e": "action", "who": 0, "action": "somersault", "ok": False},
    ]
    assert tell(events)[1:] == [
        "The Elder rolls to stay standing: 5 dice at difficulty 6 -> 2 3 4 5 1: botch.",
        "The Elder falls prone.",
        "Nikolai and the Elder are locked in a clinch.",
        "The Elder strains to break free: 6 dice at difficulty 6 -> 6 2 2 2 2 2: 1 success.",
        "Nikolai holds on: 5 dice at difficulty 6 -> 6 6 2 2 2: 2 successes.",
        "The Elder strains against Nikolai but cannot break free.",
        "Nikolai sinks fangs into the Elder: the Kiss.",
        "Nikolai drinks 3 blood from the Elder (now 9).",
        "Nikolai rolls on the mishap table: 4.",
        "A botch: Nikolai fumbles the attack with the ak47 and it jams.",
        "Nikolai: somersault, without success.",
    ]


def test_VAMP_2_ATK_11_RNG_1_RNG_7_blood_ambush_cover_aim() -> None:
    events = [
        NIKOLAI_ELDER,
        {
            "e": "action",
            "who": 1,
            "action": "blood",
            "use": "none",
            "points": 0,
            "healed": 0,
            "blood": 20,
            "track": ".......",
        },
        {
            "e": "action",
            "who": 0,
            "action": "blood",
            "use": "heal",
            "points": 2,
            "healed": 2,
            "blood": 8,
            "track": "X......",
        },
        {
            "e": "action",
            "who": 1,
            "action": "blood",
            "use": "strength",
            "points": 1,
            "healed": 0,
            "blood": 19,
            "track": ".......",
        },
        roll(1, "stealth", 5, [6, 7, 8, 2, 2], 3),
        roll(0, "notice", 5, [6, 2, 2, 2, 2], 1),
        {"e": "action", "who": 1, "action": "ambush", "target": 0, "margin": 2},
        {"e": "action", "who": 0, "action": "ambush", "target": 1, "margin": -1},
        {"e": "action", "who": 0, "action": "aim", "target": 1, "dice": 3},
        {"e": "action", "who": 0, "action": "take_cover", "cover": "parked_car"},
        {"e": "action", "who": 0, "action": "spray", "targets": [1], "shares": [3]},
    ]
    assert tell(events)[1:] == [
        "Nikolai spends 2 blood points to heal 2 levels (track X......, 8 blood left).",
        "The Elder spends 1 blood point to raise Strength by 1 (19 blood left).",
        "The Elder sneaks up: 5 dice at difficulty 6 -> 6 7 8 2 2: 3 successes.",
        "Nikolai watches for danger: 5 dice at difficulty 6 -> 6 2 2 2 2: 1 success.",
        "The Elder catches Nikolai by surprise (2 extra dice).",
        "The Elder spots Nikolai in time.",
        "Nikolai takes aim at the Elder (+3 dice).",
        "Nikolai takes cover behind the parked car.",
        "Nikolai sprays fire across the Elder, alone in the area: half the successes (3).",
    ]


def test_DICE_6_DICE_7_DICE_8_roll_text() -> None:
    assert roll_text({"pool": 0, "diff": 6, "faces": [], "succ": 0}) == (
        "0 dice: the pool is empty, nothing can be rolled"
    )
    assert roll_text({"what": "soak", "pool": 0, "faces": [], "succ": 0}, "soak") == (
        "no soak dice"
    )
    assert roll_text({"pool": 1, "diff": 7, "faces": [1], "succ": 1, "wp": True}) == (
        "1 die at difficulty 7 (+1 success from Willpower) -> 1: 1 success"
    )
    assert roll_text({"what": "damage", "pool": 2, "faces": [1, 6], "succ": 1}, "damage") == (
        "2 damage dice -> 1 6: 1 success"
    )


# --- real battles -----------------------------------------------------------------

PAIRS = [
    ("brawler", "knife_fighter", 10.0),
    ("nikolai", "elder", 30.0),
    ("thug", "nikolai", 30.0),
    ("elder", "thug", 5.0),
]


def _battle(a: str, b: str, distance: float, seed: int) -> EventLog:
    fighters = [
        Fighter(load_stat_block(CHARS / f"{a}.yaml"), 0, 0.0),
        Fighter(load_stat_block(CHARS / f"{b}.yaml"), 1, distance),
    ]
    return fight(fighters, seed=seed).log


@pytest.mark.parametrize(("a", "b", "distance"), PAIRS)
@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_DICE_9_battle_narration_is_deterministic_and_complete(
    a: str, b: str, distance: float, seed: int, tmp_path: Path
) -> None:
    """Every turn, attack roll and end has its line; a JSONL round trip narrates the same."""
    log = _battle(a, b, distance, seed)
    lines = narrate(log)
    assert lines == narrate(_battle(a, b, distance, seed))
    path = tmp_path / "log.jsonl"
    log.write(path)
    assert narrate(EventLog.read(path)) == lines
    turns = [e for e in log if e["e"] == "turn"]
    attacks = [e for e in log if e["e"] == "roll" and e["what"] == "attack"]
    damage = [e for e in log if e["e"] == "damage"]
    assert sum(1 for x in lines if x.startswith("Turn ")) == len(turns)
    for ev in attacks:
        assert sum(1 for x in lines if x.endswith(f": {roll_text(ev)}.")) >= 1
    assert sum(1 for x in lines if re.search(r" takes (no damage|\d+ levels? of)", x)) == len(
        damage
    )
    assert lines[-1].startswith("The battle ends after") or "undecided" in lines[-1]
    assert all(x and x[0].isupper() and x.endswith(".") for x in lines), lines


def test_full_names_once_then_short_names_and_the_gap_after_a_move() -> None:
    """Issue 32: "Jax, Brujah Neonate" once, "Jax" after; a sheet's short: name; the
    gap a move leaves, closed or opened; no pronouns in the dice log."""
    events = [
        header(("Jax, Brujah Neonate", "vampire", 0, 0.0), ("SWAT Breacher", "mortal", 1, 10.0),
               sheet0={"pronoun": "he"}, sheet1={"short": "The Breacher"}),
        {"e": "turn", "turn": 1},
        {"e": "initiative", "who": 0, "die": 9, "rating": 7, "penalty": 0, "total": 16},
        {"e": "initiative", "who": 1, "die": 5, "rating": 5, "penalty": 0, "total": 10},
        {"e": "order", "order": [0, 1]},
        {"e": "decide", "who": 0, "kind": "act",
         "choice": {"kind": "attack", "maneuver": "punch", "target": 1}},
        {"e": "move", "who": 0, "from": [0.0, 0.0], "to": [8.0, 0.0], "yards": 8.0},
        {"e": "stun", "who": 1, "turn": 2},
        {"e": "decide", "who": 1, "kind": "act", "choice": {"kind": "move", "target": 0,
                                                             "away": True}},
        {"e": "move", "who": 1, "from": [10.0, 0.0], "to": [14.0, 0.0], "yards": 4.0},
        {"e": "decide", "who": 0, "kind": "act", "choice": {"kind": "move"}},
        {"e": "move", "who": 0, "from": [8.0, 0.0], "to": [8.0, 3.0], "yards": 3.0},
        {"e": "end", "winner": 0, "turns": 1, "reason": "victory"},
    ]
    assert tell(events) == [
        "Jax, Brujah Neonate faces SWAT Breacher, 10 yards apart.",
        "Turn 1.",
        "Jax rolls initiative 9 + 7 = 16.",
        "The Breacher rolls initiative 5 + 5 = 10.",
        "Acting order: Jax (16), The Breacher (10).",
        "Jax moves 8 yards and closes to 2 yards of the Breacher.",
        "The Breacher is stunned by the blow and will lose turn 2.",
        "The Breacher moves 4 yards and backs off to 6 yards from Jax.",
        "Jax moves 3 yards and backs off to 6.7 yards from the Breacher.",
        "The battle ends after 1 turn: side 0 (Jax) wins.",
    ]
