"""Jumping or going around (MOVE-3, seed 003) as a mover's choice inside a battle.

Where a move's route goes around an obstacle (it has a ``detour`` and the run left
pays it), the same move that jumps instead is offered beside it (``Action.jump``);
going around costs the detour's yards from the run left, and a close attack's
approach counts them in its ACT-4 cost. ``suggest`` names the route and the jump's
exact chance to clear.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from vtm_sim.analysis.wording import describe, jump_chance
from vtm_sim.core.choices import (
    Action,
    ActionKind,
    BloodSpend,
    BloodUse,
    Choice,
    Decision,
    DecisionKind,
)
from vtm_sim.core.dice import RngDice, count
from vtm_sim.core.space import Field, Obstacle, ObstacleKind
from vtm_sim.data.config import config_dir
from vtm_sim.data.stat_blocks import load_stat_block
from vtm_sim.engine.battle import Battle, Fighter
from vtm_sim.engine.obstacles import action_route
from vtm_sim.engine.queries import approach
from vtm_sim.events import JumpEvent, RollEvent
from vtm_sim.files.replay import replay

# A fence across the way at x = 6: 3 ft up (2 successes), 4 yards to go around.
FENCE = Obstacle("fence", ObstacleKind.LOW, 6.0, -5.0, 6.0, 5.0, 3.0, 4.0)
# A ditch at x = 6 with no way around: 8 ft across (2 successes).
DITCH = Obstacle("ditch", ObstacleKind.GAP, 6.0, -20.0, 6.0, 20.0, 8.0)


def battle(obstacle: Obstacle | None, knife_at: float = 12.0, seed: int = 1) -> Battle:
    chars = config_dir() / "characters"
    fighters = [Fighter(load_stat_block(chars / "brawler.yaml"), 0, 0.0, 0.0),
                Fighter(load_stat_block(chars / "knife_fighter.yaml"), 1, knife_at, 0.0)]
    field = Field(obstacles=(obstacle,) if obstacle is not None else ())
    return Battle(fighters, dice=RngDice(np.random.default_rng(seed)), field=field)


def calm(d: Decision) -> Choice:
    if d.kind is DecisionKind.BLOOD:
        return next(o for o in d.options if isinstance(o, BloodSpend) and o.use is BloodUse.NONE)
    return d.options[0]


def first_act(b: Battle, who: int = 0) -> Decision:
    """Play calmly (no blood, one action, the first option) to ``who``'s first ACT."""
    while b.pending is not None and not (b.pending.kind is DecisionKind.ACT
                                         and b.pending.actor == who):
        d = b.pending
        if d.kind is DecisionKind.ACT:
            b.choose(next(o for o in d.options if isinstance(o, Action)
                          and o.kind is ActionKind.PASS))
        else:
            b.choose(calm(d))
    assert b.pending is not None
    return b.pending


def moves(d: Decision, kind: ActionKind = ActionKind.MOVE) -> list[Action]:
    return [o for o in d.options if isinstance(o, Action) and o.kind is kind]


def test_move3_a_way_around_is_one_option_and_jumping_another() -> None:
    b = battle(FENCE)
    d = first_act(b)
    toward = [m for m in moves(d) if not m.away]
    assert [m.jump for m in toward] == [False, True]  # go around, or jump the fence
    assert [m.jump for m in moves(d, ActionKind.FLEE)] == [False]  # away: nothing in the way
    around, over = (action_route(b, b.combatants[0], m) for m in toward)
    assert (around.around, around.detour, around.jump) == (("fence",), 4.0, None)
    assert (over.around, over.jump) == ((), FENCE)


@pytest.mark.parametrize(("obstacle", "why"), [(DITCH, "no way around"), (None, "nothing")])
def test_move3_no_second_option_where_there_is_no_choice(obstacle: Obstacle | None,
                                                         why: str) -> None:
    d = first_act(battle(obstacle))
    assert [m.jump for m in moves(d) if not m.away] == [False], why


def test_move3_going_around_pays_the_detour_yards_and_still_arrives() -> None:
    b = battle(FENCE)
    me = b.combatants[0]
    d = first_act(b)
    b.choose(next(m for m in moves(d) if not m.away and not m.jump))
    ev = [e for e in b.log if isinstance(e, JumpEvent)][-1]
    assert (ev.who, ev.detour, ev.ok) == (0, 4.0, True)
    assert not [e for e in b.log if isinstance(e, RollEvent) and e.what == "jump"]
    assert me.x == pytest.approx(11.0)  # 11 yards straight, 1 yard short of the knife
    assert me.moved == pytest.approx(15.0)  # and 4 more going around (run 29)


def test_move3_jumping_instead_rolls_strength_and_athletics_at_3() -> None:
    b = battle(FENCE)
    d = first_act(b)
    b.choose(next(m for m in moves(d) if not m.away and m.jump))
    roll = next(e for e in b.log if isinstance(e, RollEvent) and e.what == "jump")
    assert (roll.who, roll.pool, roll.diff) == (0, 5, 3)  # running: Strength 3 + Athletics 2
    ev = [e for e in b.log if isinstance(e, JumpEvent)][-1]
    assert ev.detour is None or ev.detour == 0.0
    decide = [e for e in b.log.jsonl().splitlines() if '"jump":true' in e]
    assert decide  # the choice is in the log, so a replay takes it again
    assert replay(b.log).log.sha256() == b.log.sha256()


def test_move3_a_close_attacks_approach_counts_the_detour_yards() -> None:
    """ACT-4: each yard past half the run costs a die; going around adds its yards."""
    plain, fenced = battle(None, 16.0), battle(FENCE, 16.0)
    for b in (plain, fenced):
        first_act(b)
    c0, t0 = plain.combatants
    c1, t1 = fenced.combatants
    assert approach(plain, c0, t0, 1.0) == (15.0, 1)  # 15 of 29 yards: 0.5 past half
    assert approach(fenced, c1, t1, 1.0) == (15.0, 5)  # + 4 around: 19 yards, 4.5 past


def test_move3_suggest_describes_the_route_and_the_jump_odds() -> None:
    b = battle(FENCE)
    d = first_act(b)
    around, over = (m for m in moves(d) if not m.away)
    assert describe(b, 0, around) == "Move toward Knife Fighter, going around the fence (+4 yards)"
    text = describe(b, 0, over)
    p = jump_chance(b, b.combatants[0], action_route(b, b.combatants[0], over))
    assert text == (f"Move toward Knife Fighter, jumping the fence (3 ft up, running jump, "
                    f"{p:.0%} to clear)")


def test_move3_the_jump_odds_match_enumerating_every_face() -> None:
    """MOVE-3: 2 successes clear 3 ft up; 5 dice at difficulty 3, a botch gets nothing."""
    b = battle(FENCE)
    d = first_act(b)
    over = next(m for m in moves(d) if not m.away and m.jump)
    me = b.combatants[0]
    exact = jump_chance(b, me, action_route(b, me, over))
    hits = 0
    for faces in itertools.product(range(1, 11), repeat=5):
        net, botch = count(faces, 3)
        hits += (not botch) and net >= 2
    assert exact == pytest.approx(hits / 10**5, abs=1e-12)


def test_move3_potence_counts_in_the_jump_odds() -> None:
    """VAMP-5: Potence's dots are automatic successes; only a botch fails then."""
    chars = config_dir() / "characters"
    fighters = [Fighter(load_stat_block(chars / "neonate_brujah.yaml"), 0, 0.0, 0.0),
                Fighter(load_stat_block(chars / "knife_fighter.yaml"), 1, 12.0, 0.0)]
    b = Battle(fighters, dice=RngDice(np.random.default_rng(1)), field=Field(obstacles=(FENCE,)))
    d = first_act(b)
    over = next(m for m in moves(d) if not m.away and m.jump)
    me = b.combatants[0]
    p = jump_chance(b, me, action_route(b, me, over))
    pool = 6  # running: Strength 4 + Athletics 2
    assert p == pytest.approx(1 - (0.2**pool - 0.1**pool))  # 1 - P(botch) at difficulty 3
    assert math.isclose(p, 1 - 0.2**6 + 0.1**6)
