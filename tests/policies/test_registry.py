"""One registry of policy names, resolved the same way by every command and the envs."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from envs import VtmEnv
from vtm_sim.cli import main
from vtm_sim.errors import ConfigError
from vtm_sim.files.scenarios import load_scenario
from vtm_sim.policies import registry
from vtm_sim.policies.planner import PLANNER_ROLLOUTS, PlannerPolicy
from vtm_sim.policies.play import play
from vtm_sim.policies.playbook import TacticPolicy
from vtm_sim.policies.rungs import rungs

DUEL = load_scenario("duel")
# every plain name but the planner (seconds a battle): it is checked by what it builds
CHEAP = [n for n in registry.names() if ":" not in n or n.startswith("ladder:")]
CHEAP = [n for n in CHEAP if n != "planner" and n != f"ladder:{len(rungs())}"]


def cli(*args: str) -> tuple[int, list[str]]:
    r = CliRunner().invoke(main, list(args))
    return r.exit_code, r.output.strip().splitlines()


def test_names_cover_every_kind_of_player() -> None:
    names = registry.names()
    for name in ("nearest", "tactician", "random", "planner", "brawler", "random_agent",
                 "gunman", "survivor", "defender", "berserker", "ladder:1",
                 "model:PATH", "trained:NAME", "tactic:PATH"):
        assert name in names
    assert f"ladder:{len(rungs())}" in names and f"ladder:{len(rungs()) + 1}" not in names


@pytest.mark.parametrize("name", CHEAP)
def test_every_name_plays_a_seeded_battle_the_same_way_twice(name: str) -> None:
    make = registry.maker(name, DUEL)
    logs = []
    for _ in range(2):
        rng = np.random.default_rng([3, 7])
        b = play(DUEL.battle(seed=3), [make(rng, i) for i in range(len(DUEL.fighters))])
        assert b.pending is None
        logs.append(b.log.sha256())
    assert logs[0] == logs[1]


def test_planner_at_n_is_the_planner_at_n_rollouts() -> None:
    """planner_at:N plays as planner does, at N rollouts a duel decision (the same battle
    at the tournament's budget), and past two combatants at that budget's share."""
    pol = registry.maker("planner_at:8", DUEL)(np.random.default_rng(0), 0)
    assert isinstance(pol, PlannerPolicy) and pol.rollouts == 8
    gunfight = load_scenario("gunfight")
    crowd = registry.maker("planner_at:64", gunfight)(np.random.default_rng(0), 0)
    assert crowd.rollouts == registry.maker("planner", gunfight)(
        np.random.default_rng(0), 0).rollouts
    logs = []
    for name in ("planner", f"planner_at:{PLANNER_ROLLOUTS}"):
        rng = np.random.default_rng([5, 7])
        make = registry.maker(name, DUEL)
        logs.append(play(DUEL.battle(seed=5), [make(rng, i) for i in range(2)]).log.sha256())
    assert logs[0] == logs[1]
    assert "planner_at:N" in registry.names()


@pytest.mark.parametrize("bad", ["planner_at:0", "planner_at:x", "planner_at:-3",
                                 "planner_at:99999"])
def test_planner_at_needs_a_count_of_rollouts(bad: str) -> None:
    with pytest.raises(ConfigError, match="expected planner_at:N"):
        registry.maker(bad, DUEL)


def test_planner_plays_at_the_tournament_budget() -> None:
    pol = registry.maker("planner", DUEL)(np.random.default_rng(0), 0)
    assert isinstance(pol, PlannerPolicy) and pol.rollouts == PLANNER_ROLLOUTS
    top = registry.maker(f"ladder:{len(rungs())}", DUEL)(np.random.default_rng(0), 0)
    assert type(top) is type(registry.maker(rungs()[-1], DUEL)(np.random.default_rng(0), 0))


def test_a_tactic_file_by_name_and_by_path() -> None:
    by_name = registry.maker("gunman", DUEL)(np.random.default_rng(0), 0)
    by_path = registry.maker("tactic:configs/tactics/gunman.yaml", DUEL)(
        np.random.default_rng(0), 0)
    assert isinstance(by_name, TacticPolicy) and isinstance(by_path, TacticPolicy)
    assert by_name.tactic == by_path.tactic


@pytest.mark.parametrize(
    ("name", "needle"),
    [
        ("smart", "unknown policy 'smart' (expected one of nearest, "),
        ("ladder:99", "no such rung (expected ladder:1 to ladder:"),
        ("ladder:", "expected ladder:N"),
        ("trained:nowhere", "trained:nowhere: no shipped policy"),
        ("model:nowhere.zip", "model:nowhere.zip: cannot load the model"),
        ("tactic:nowhere.yaml", "tactic 'nowhere.yaml': no file"),
    ],
)
def test_bad_names_are_one_line_config_errors(name: str, needle: str) -> None:
    with pytest.raises(ConfigError) as exc:
        registry.maker(name, DUEL)
    assert needle in str(exc.value) and "\n" not in str(exc.value)


@pytest.mark.parametrize(
    "args",
    [
        ["fight", "duel", "--policy", "smart"],
        ["tournament", "duel", "--policies", "nearest,smart", "--battles", "1"],
        ["suggest", "duel", "--npc", "Knife Fighter", "--policy", "smart"],
        ["export-behaviors", "duel", "--npc", "Knife Fighter", "--policy", "smart"],
        ["export-behaviors", "duel", "--npc", "Knife Fighter", "--others", "smart"],
    ],
)
def test_every_command_rejects_an_unknown_policy_in_one_line(args: list[str]) -> None:
    code, lines = cli(*args)
    assert code == 2 and len(lines) == 1
    assert "unknown policy 'smart' (expected one of" in lines[0]


@pytest.mark.parametrize("name", ["gunman", "ladder:2", "brawler", "random_agent"])
def test_any_name_works_in_every_command(name: str) -> None:
    code, out = cli("fight", "duel", "--seed", "2", "--policy", name, "--json")
    assert code == 0 and json.loads("\n".join(out))["reason"] in ("victory", "escape", "turn limit")
    code, out = cli("tournament", "duel", "--policies", f"nearest,{name}", "--battles", "2")
    assert code == 0 and any(line.startswith(name) for line in out)
    code, out = cli("suggest", "duel", "--npc", "Knife Fighter", "--policy", name,
                    "--rollouts", "10")
    assert code == 0 and f"policy {name}" in out[0]
    code, out = cli("export-behaviors", "duel", "--npc", "Knife Fighter", "--policy", name,
                    "--battles", "3")
    assert code == 0 and out


@pytest.mark.parametrize("name", ["gunman", "ladder:1", "brawler", "survivor"])
def test_env_opponents_take_any_name(name: str) -> None:
    env = VtmEnv(opponents=name)
    _obs, info = env.reset(seed=4)
    for _ in range(200):
        action = int(np.flatnonzero(info["action_mask"])[0])
        _obs, _, term, trunc, info = env.step(action)
        if term or trunc:
            break
    with pytest.raises(ConfigError, match=r"opponents: unknown policy 'smart'"):
        VtmEnv(opponents="smart")


def test_policies_command_lists_every_name() -> None:
    code, out = cli("policies", "--json")
    assert code == 0
    listed = [row["name"] for row in json.loads("\n".join(out))]
    assert listed == registry.names()
