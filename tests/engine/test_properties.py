"""Property tests: thousands of seeded random battles keep the invariants.

INIT-3 (simultaneous actors may act although struck down in their group),
CPX-2 (no action while stunned), DMG-7 (health within the track), DICE-9
(determinism), and replay of every log.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from vtm_sim.core.choices import DecisionKind
from vtm_sim.data.stat_blocks import StatBlock, load_stat_block
from vtm_sim.engine.battle import Battle, Fighter
from vtm_sim.events import EventLog
from vtm_sim.files.replay import replay
from vtm_sim.policies.nearest import NearestEnemyPolicy, RandomPolicy

CHARS = sorted(
    Path(__file__).resolve().parents[2].joinpath("configs", "characters").glob("*.yaml")
)
BLOCKS: list[StatBlock] = [load_stat_block(p) for p in CHARS]


def play_checked(battle: Battle, policies: list[object]) -> Battle:
    while battle.pending is not None:
        d = battle.pending
        c = battle.combatants[d.actor]
        if d.kind is DecisionKind.ACT:
            # no action by an incapacitated combatant, unless struck in its simultaneous group
            assert c.active or c.sim_penalty is not None
            assert not c.stunned(battle.turn)
        if d.kind is DecisionKind.DECLARE:
            assert c.active and not c.stunned(battle.turn)
        assert d.options, "every decision offers at least one option"
        pol = policies[d.actor]
        battle.choose(pol.choose(battle, d))  # type: ignore[attr-defined]
        for x in battle.combatants:
            h = x.health
            assert 0 <= h.filled <= h.size
            assert min(h.bashing, h.lethal, h.aggravated) >= 0
            assert x.willpower >= 0 and x.blood >= 0
            assert all(a >= 0 for a in x.ammo)
    assert battle.over and battle.log.events[-1]["e"] == "end"
    return battle


def make(seed: int, a: int, b: int, dist: float, extra: int) -> tuple[Battle, list[object]]:
    rng = np.random.default_rng(seed + 7919)
    fighters = [Fighter(BLOCKS[a], 0, 0.0, 0.0), Fighter(BLOCKS[b], 1, dist, 0.0)]
    if extra >= 0:
        fighters.append(Fighter(BLOCKS[extra], 1, dist, 3.0))
    pols: list[object] = [
        RandomPolicy(rng) if i % 2 == 0 else NearestEnemyPolicy() for i in range(len(fighters))
    ]
    return Battle(fighters, seed=seed, turn_limit=12), pols


idx = st.integers(0, len(BLOCKS) - 1)


@settings(max_examples=400, deadline=None)
@given(
    seed=st.integers(0, 2**31 - 1),
    a=idx,
    b=idx,
    dist=st.floats(0.5, 60.0),
    extra=st.integers(-1, len(BLOCKS) - 1),
)
def test_random_battles_keep_invariants_and_replay(
    seed: int, a: int, b: int, dist: float, extra: int
) -> None:
    for k in range(5):
        battle, pols = make(seed + k, a, b, round(dist, 2), extra)
        play_checked(battle, pols)
        again, pols2 = make(seed + k, a, b, round(dist, 2), extra)
        play_checked(again, pols2)
        assert again.log.jsonl() == battle.log.jsonl()  # DICE-9: same seed, same battle
    log = EventLog.parse(battle.log.jsonl())
    assert replay(log).log.sha256() == battle.log.sha256()


def test_DICE_9_same_seed_same_log_in_another_process() -> None:
    battle, pols = make(12345, 0, 1, 10.0, 2)
    play_checked(battle, pols)
    code = (
        "import sys; sys.path[:0] = ['tests/engine', 'tests/support'];"
        "from test_properties import make, play_checked;"
        "b, p = make(12345, 0, 1, 10.0, 2); play_checked(b, p); print(b.log.sha256())"
    )
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=root,
        env={"PYTHONHASHSEED": "123", "PATH": ""},
    ).stdout.strip()
    assert out == battle.log.sha256()
