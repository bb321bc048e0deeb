"""One attack exchange outside a battle (vtm_sim.engine.exchange), called directly."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from rule_helpers import FILLER, dice_for, sheet, successes

from vtm_sim.core.choices import CalledShot, DefenseKind
from vtm_sim.core.dice import DiceSource, RngDice, ScriptedDice
from vtm_sim.data.rules import load_rules
from vtm_sim.data.stat_blocks import StatBlock
from vtm_sim.data.tables import load_tables
from vtm_sim.engine.exchange import (
    ExchangeError,
    ExchangeResult,
    default_distance,
    default_maneuver,
    exchange_odds,
    resolve_exchange,
)
from vtm_sim.engine.queries import spray_shares
from vtm_sim.events import ActionEvent, EventKind
from vtm_sim.mechanics.attack import BASE_DIFFICULTY, SPRAY_DODGE, Situation
from vtm_sim.text.narration import narrate

V20 = load_rules("v20")
TABLES = load_tables()
DODGE = DefenseKind.DODGE
BLOCK = DefenseKind.BLOCK
PARRY = DefenseKind.PARRY


def sprayer() -> StatBlock:
    """Dex 3 + Firearms 2 + 10 = 15 dice at 6 + 2; small SMG: 4 damage dice."""
    return sheet("sprayer", dexterity=3, wits=3, firearms=2, weapons=["small_smg"])


def target() -> StatBlock:
    """Dex 2 + Dodge 2 = 4 dodge dice; a mortal soaks no lethal damage."""
    return sheet("target", dexterity=2, dodge=2)


def rolls(result: ExchangeResult, what: str) -> list[dict[str, Any]]:
    return [e for e in result.events if e["e"] == EventKind.ROLL and e["what"] == what]


# --- RNG-6: spray -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("hits", "targets", "shares"),
    [
        (7, 1, [3]),  # a lone target gets half, rounded down
        (6, 1, [3]),
        (1, 1, [0]),
        (7, 3, [3, 2, 2]),  # an even split, the remainder to the aimed-at target
        (6, 3, [2, 2, 2]),
        (2, 3, [1, 1, 0]),  # fewer successes than targets: one each, in order
        (0, 2, [0, 0]),
        (5, 0, []),
    ],
)
def test_RNG_6_spray_shares(hits: int, targets: int, shares: list[int]) -> None:
    assert spray_shares(hits, targets) == shares


@pytest.mark.parametrize("hits", [0, 1, 2, 5, 6, 7])
def test_RNG_6_a_lone_target_of_a_spray_gets_half_added_whole(hits: int) -> None:
    """One roll of 15 dice at 8; the defender's share is half (the battle's rule) and,
    less its dodge, is added whole to the 4 damage dice."""
    result = resolve_exchange(
        sprayer(), target(), maneuver="spray", rules=V20, tables=TABLES,
        dice_for=dice_for(attack=successes(hits, 15), damage=[FILLER] * 20),
    )
    (atk,) = rolls(result, "attack")
    assert (atk["pool"], atk["diff"], atk["succ"]) == (15, 8, hits)
    (share,) = spray_shares(hits, 1)
    spray = [e for e in result.events if e.e is EventKind.ACTION]
    assert spray == [ActionEvent(0, "spray", {"targets": (1,), "shares": (share,)})]
    assert spray[0].to_json() == {"e": "action", "who": 0, "action": "spray", "targets": [1],
                                  "shares": [share]}
    assert result.outcome.net == share
    assert [r["pool"] for r in rolls(result, "damage")] == ([4 + share] if share else [])
    assert result.outcome.attack.successes == hits


def test_RNG_6_dodging_a_spray_is_one_harder() -> None:
    spray = resolve_exchange(
        sprayer(), target(), maneuver="spray", defense=DODGE, rules=V20, tables=TABLES,
        dice_for=dice_for(attack=successes(6, 15), dodge=successes(1, 4), damage=[FILLER] * 6),
    )
    (dodge,) = rolls(spray, "dodge")
    assert (dodge["pool"], dodge["diff"]) == (4, BASE_DIFFICULTY + SPRAY_DODGE)
    assert SPRAY_DODGE == 1
    assert spray.outcome.net == 3 - 1
    single = resolve_exchange(
        sprayer(), target(), defense=DODGE, rules=V20, tables=TABLES,
        dice_for=dice_for(attack=successes(2, 5), dodge=successes(1, 4), damage=[FILLER] * 4),
    )
    assert single.plan.maneuver == "single_shot"
    (dodge,) = rolls(single, "dodge")
    assert dodge["diff"] == BASE_DIFFICULTY


def test_RNG_6_spray_narration_tells_the_share() -> None:
    result = resolve_exchange(
        sprayer(), target(), maneuver="spray", defense=DODGE, rules=V20, tables=TABLES,
        dice_for=dice_for(attack=successes(3, 15), dodge=successes(2, 4)),
    )
    lines = narrate(result.events)
    assert lines[2] == (
        "sprayer sprays fire across target, alone in the area: half the successes (1)."
    )
    assert lines[-1] == "Miss: the dodge takes away the only success."


# --- DEF-4..6 and the other rules an exchange checks --------------------------------------

KNIFE = sheet("knife", dexterity=3, melee=3, strength=3, weapons=["knife"])
PISTOL = sheet("pistol", dexterity=3, firearms=2, weapons=["light_pistol", "knife"])
BARE = sheet("bare", dexterity=2, brawl=2, stamina=2)
ARMED = sheet("armed", dexterity=2, melee=2, weapons=["club"])


@pytest.mark.parametrize(
    ("attacker", "defender", "kwargs", "argument", "needles"),
    [
        (KNIFE, BARE, {"defense": BLOCK}, "defense", ["block lethal", "DEF-4"]),
        (KNIFE, BARE, {"defense": PARRY}, "defense", ["parry without a melee weapon", "DEF-6"]),
        (PISTOL, BARE, {"defense": BLOCK}, "defense", ["close combat", "DEF-4, DEF-6"]),
        (PISTOL, ARMED, {"defense": PARRY}, "defense", ["close combat", "only dodge"]),
        (KNIFE, BARE, {"weapon": "sword"}, "weapon", ["no 'sword'", "has: knife"]),
        (KNIFE, BARE, {"maneuver": "moonwalk"}, "maneuver", ["unknown maneuver"]),
        (KNIFE, BARE, {"maneuver": "single_shot"}, "maneuver", ["cannot use single_shot"]),
        (KNIFE, BARE, {"distance": 3}, "distance", ["out of reach", "ATK-1"]),
        (PISTOL, BARE, {"distance": 41}, "distance", ["twice", "RNG-2"]),
    ],
)
def test_DEF_4_DEF_6_ATK_1_RNG_2_an_exchange_the_rules_refuse(
    attacker: StatBlock, defender: StatBlock, kwargs: dict[str, Any], argument: str,
    needles: list[str],
) -> None:
    with pytest.raises(ExchangeError) as caught:
        resolve_exchange(attacker, defender, rules=V20, tables=TABLES,
                         dice=ScriptedDice([]), **kwargs)
    assert caught.value.argument == argument
    for needle in needles:
        assert needle in str(caught.value)
    with pytest.raises(ExchangeError):  # the odds refuse the same exchange
        exchange_odds(attacker, defender, rules=V20, tables=TABLES, **kwargs)


def test_the_legal_defenses_are_allowed() -> None:
    dice = RngDice(np.random.default_rng(0))
    for attacker, defender, kind in [
        (KNIFE, BARE, DODGE), (PISTOL, BARE, DODGE), (BARE, BARE, BLOCK),  # DEF-4: bashing
        (KNIFE, ARMED, PARRY), (BARE, ARMED, PARRY),
    ]:
        result = resolve_exchange(attacker, defender, defense=kind, rules=V20, tables=TABLES,
                                  dice=dice)
        assert result.defense is kind


def test_a_weapon_and_maneuver_that_do_not_fit_name_both() -> None:
    with pytest.raises(ExchangeError) as caught:
        resolve_exchange(KNIFE, BARE, maneuver="burst", dice=ScriptedDice([]))
    assert (caught.value.argument, caught.value.others) == ("maneuver", ("weapon",))
    assert str(caught.value).endswith("in hand (pick another weapon or maneuver)")


def test_firearms_outside_the_profile_and_impossible_plans() -> None:
    with pytest.raises(ExchangeError) as caught:
        resolve_exchange(PISTOL, BARE, rules=load_rules("dark_ages"), dice=ScriptedDice([]))
    assert caught.value.argument == "rules" and "no firearms" in str(caught.value)
    with pytest.raises(ExchangeError) as caught:  # RNG-5/6: no called shot with autofire
        resolve_exchange(sprayer(), BARE, maneuver="spray", called=CalledShot.SMALL,
                         dice=ScriptedDice([]))
    assert caught.value.argument is None and "cannot make a spray attack" in str(caught.value)


def test_defaults_weapon_choice_and_dice_arguments() -> None:
    assert [default_maneuver(w) for w in PISTOL.weapons] == ["single_shot", "weapon_strike"]
    assert (default_distance("punch"), default_distance("burst")) == (1.0, 10.0)
    dice = RngDice(np.random.default_rng(1))
    knife = resolve_exchange(PISTOL, BARE, weapon="knife", dice=dice)
    assert (knife.plan.maneuver, knife.plan.weapon.name, knife.distance) == (
        "weapon_strike", "knife", 1.0)
    bare = resolve_exchange(PISTOL, BARE, weapon="unarmed", dice=dice)
    assert (bare.plan.maneuver, bare.plan.weapon.name) == ("punch", "unarmed")
    with pytest.raises(TypeError):
        resolve_exchange(PISTOL, BARE)
    with pytest.raises(TypeError):
        resolve_exchange(PISTOL, BARE, dice=dice, dice_for=lambda _: dice)


# --- events ---------------------------------------------------------------------------


def test_the_events_are_an_exchange_not_a_battle() -> None:
    """An ``exchange`` header (no battle, no turn), then the attack as a battle logs it;
    Potence's successes are in the damage roll event itself (VAMP-5)."""
    elder = sheet("Elder", kind="vampire", generation=8, dexterity=3, brawl=3, strength=2,
                  potence=2)
    result = resolve_exchange(
        elder, BARE, defense=DODGE, rules=V20, tables=TABLES,
        dice_for=dice_for(attack=successes(3, 6), dodge=successes(1, 2),
                          damage=successes(1, 3), soak=successes(1, 2)),
    )
    kinds = [e["e"] for e in result.events]
    assert kinds[:3] == [EventKind.EXCHANGE, EventKind.ATTACK, EventKind.DEFENSE]
    assert EventKind.BATTLE not in kinds and EventKind.TURN not in kinds
    header = result.events[0]
    assert [c["sheet"]["name"] for c in header["combatants"]] == ["Elder", "bare"]
    assert header["rules"] == V20.model_dump()
    (damage,) = rolls(result, "damage")
    assert list(damage) == ["e", "who", "what", "pool", "diff", "faces", "succ", "auto"]
    assert (damage["pool"], damage["succ"], damage["auto"]) == (3, 1, 2)
    assert result.outcome.levels == 1 + 2 - 1
    lines = narrate(result.events)
    assert lines[0] == "Elder faces bare, 1 yard apart."
    assert "1 success + 2 from Potence = 3" in lines[-1]


# --- odds -------------------------------------------------------------------------------


class _NeedFace(Exception):
    def __init__(self, label: str) -> None:
        self.label = label


class _Prefix:
    """Faces for one roll, read from a shared script; past its end, ask for one more."""

    def __init__(self, script: list[int], label: str, at: list[int]) -> None:
        self.script, self.label, self.at = script, label, at

    def faces(self, n: int) -> list[int]:
        i = self.at[0]
        if i + n > len(self.script):
            raise _NeedFace(self.label)
        self.at[0] = i + n
        return self.script[i : i + n]


class _Same:
    def __init__(self, face: int) -> None:
        self.face = face

    def faces(self, n: int) -> list[int]:
        return [self.face] * n


def _face_classes(difficulty: int, damage: bool) -> list[tuple[int, float]]:
    """d10 faces grouped by what they do at ``difficulty``: (a face of each group, P)."""
    groups: dict[tuple[bool, bool, bool], list[int]] = {}
    for f in range(1, 11):
        groups.setdefault((f == 1 and not damage, f >= difficulty, f == 10), []).append(f)
    return [(fs[0], len(fs) / 10) for fs in groups.values()]


def _brute_force(attacker: StatBlock, defender: StatBlock, **kw: Any) -> list[float]:
    """Every sequence of faces the exchange can read, by depth-first search."""
    # a first exchange that makes every roll (the attack hits, the defense fails) tells
    # each roll's difficulty, so faces that act alike are followed once, weighted
    probe = resolve_exchange(
        attacker, defender, rules=V20, tables=TABLES,
        dice_for=lambda label: _Same(9 if label in ("attack", "damage") else 2), **kw,
    )
    diff = {e["what"]: (e["diff"], e["what"] in ("damage", "soak"))
            for e in probe.events if e["e"] == EventKind.ROLL}
    dist: list[float] = []

    def walk(script: list[int], p: float) -> None:
        at = [0]

        def source(label: str) -> DiceSource:
            return _Prefix(script, label, at)

        try:
            result = resolve_exchange(attacker, defender, rules=V20, tables=TABLES,
                                      dice_for=source, **kw)
        except _NeedFace as need:
            d, damage = diff[need.label]
            for face, q in _face_classes(d, damage):
                walk([*script, face], p * q)
            return
        assert at[0] == len(script)
        levels = result.outcome.levels
        dist.extend([0.0] * (levels + 1 - len(dist)))
        dist[levels] += p

    walk([], 1.0)
    return dist


@pytest.mark.parametrize(
    ("attacker", "defender", "kw"),
    [
        # 2 attack dice; 1 dodge die; 1-2 damage dice (bashing); 1 soak die
        (sheet("a", dexterity=1, brawl=1, strength=1), sheet("d", stamina=1), {"defense": DODGE}),
        # Potence 1 (VAMP-5) against a vampire, who halves bashing after soak (DMG-5)
        (
            sheet("a", kind="vampire", generation=10, dexterity=1, brawl=1, strength=1,
                  potence=1),
            sheet("d", kind="vampire", generation=10, stamina=1),
            {},
        ),
        # RNG-6 spray on a lone target, cut to 2 dice at 8; a dodge at 7
        (
            sheet("a", dexterity=1, firearms=1, weapons=["small_smg"]),
            sheet("d"),
            {"maneuver": "spray", "defense": DODGE, "situation": Situation(dice=-10)},
        ),
    ],
)
def test_odds_agree_with_every_face_the_exchange_can_read(
    attacker: StatBlock, defender: StatBlock, kw: dict[str, Any]
) -> None:
    odds = list(exchange_odds(attacker, defender, rules=V20, tables=TABLES, **kw))
    brute = _brute_force(attacker, defender, **kw)
    assert math.isclose(math.fsum(brute), 1.0, abs_tol=1e-12)
    size = max(len(odds), len(brute))
    odds += [0.0] * (size - len(odds))
    brute += [0.0] * (size - len(brute))
    assert odds == pytest.approx(brute, abs=1e-12)
    assert sum(1 for p in brute if p > 0) >= 2
