"""Ray RLlib (new API stack) on the PettingZoo envs through envs.rllib: the key names of
RLlib's masking example, the registered names, and masked multi-agent PPO training on a
local Ray with the parallel and the AEC env, run as docs/environments/rllib.md shows it
(skipped without the rllib extra)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("ray.rllib")
torch = pytest.importorskip("torch")

from ray.tune.registry import ENV_CREATOR, _global_registry  # noqa: E402

from envs import rllib  # noqa: E402

PAGE = Path(__file__).resolve().parents[2] / "docs" / "environments" / "rllib.md"
FENCE = re.compile(r"^```python\n(?P<body># needs: ray\.rllib.*?)^```[ \t]*$", re.M | re.S)


@pytest.mark.parametrize("form", rllib.ENV_FORMS)
def test_the_envs_carry_the_key_names_of_rllibs_masking_module(form: rllib.EnvForm) -> None:
    """An episode with masked random actions: every observation is
    ``{"observations", "action_mask"}`` inside its space, and no action is illegal."""
    env = rllib.make_env("duel", form)
    rng = np.random.default_rng(0)
    obs, _ = env.reset(seed=0)
    steps, done = 0, False
    infos: dict[str, Any] = {}
    while not done:
        actions = {}
        for agent, o in obs.items():
            assert set(o) == {"observations", "action_mask"}
            assert env.observation_space[agent].contains(o), agent
            assert o["action_mask"].dtype == np.float32 and o["action_mask"].any()
            actions[agent] = int(rng.choice(np.flatnonzero(o["action_mask"])))
        obs, _, terminated, truncated, step_infos = env.step(actions)
        infos.update(step_infos)
        steps += 1
        done = terminated["__all__"] or truncated["__all__"]
    assert steps > 1
    assert infos and all(info["illegal_actions"] == 0 for info in infos.values())


def test_register_names_both_forms_of_every_scenario() -> None:
    names = rllib.register()
    assert "vtm_sim_duel_parallel" in names and "vtm_sim_duel_aec" in names
    assert len(names) == 2 * len(set(n.rsplit("_", 1)[0] for n in names))
    assert all(_global_registry.contains(ENV_CREATOR, name) for name in names)
    creator = _global_registry.get(ENV_CREATOR, "vtm_sim_duel_aec")
    env = creator({"shaping": 0.1, "max_steps": 5})
    assert env.env.unwrapped.shaping == 0.1 and env.env.unwrapped.max_steps == 5
    with pytest.raises(ValueError, match="parallel"):
        rllib.env_name("duel", "vector")  # type: ignore[arg-type]


def test_ppo_config_shares_one_masking_module_or_gives_each_combatant_its_own() -> None:
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import (
        ActionMaskingTorchRLModule,
    )

    shared = rllib.ppo_config("duel", env="aec")
    assert shared.env == "vtm_sim_duel_aec" and set(shared.policies) == {"shared"}
    assert shared.enable_rl_module_and_learner  # the new API stack
    spec = shared.rl_module_spec.rl_module_specs["shared"]
    assert spec.module_class is ActionMaskingTorchRLModule
    assert shared.policy_mapping_fn("combatant_1", None) == "shared"
    own = rllib.ppo_config("duel", shared=False)
    assert set(own.policies) == {"combatant_0", "combatant_1"}
    assert own.policy_mapping_fn("combatant_1", None) == "combatant_1"


def test_the_illegal_action_metric_sums_the_envs_counts() -> None:
    class Agent:
        def __init__(self, *counts: int) -> None:
            self.infos = [{"illegal_actions": c} for c in counts]

        def get_infos(self) -> list[dict[str, int]]:
            return self.infos

    class Episode:
        def __init__(self) -> None:
            self.agent_episodes = {"combatant_0": Agent(0, 1, 2), "combatant_1": Agent(0, 3),
                                   "down": Agent()}

    logged: list[tuple[str, int]] = []

    class Logger:
        def log_value(self, key: str, value: int, **kwargs: Any) -> None:
            logged.append((key, value))

    rllib.log_illegal_actions(episode=Episode(), metrics_logger=Logger())
    assert logged == [("illegal_actions", 5)]


def test_the_docs_example_trains_masked_ppo_on_both_envs() -> None:
    """docs/environments/rllib.md's example, as written: two PPO iterations on a local Ray
    with each env; the env steps are counted and the mask holds (no illegal action)."""
    blocks = [m.group("body") for m in FENCE.finditer(PAGE.read_text(encoding="utf-8"))]
    assert len(blocks) == 1, "the page has one example that needs RLlib"
    namespace: dict[str, Any] = {"__name__": "__docs__"}
    threads = torch.get_num_threads()  # the example sets 1: give the next tests theirs back
    try:
        exec(compile(blocks[0], str(PAGE), "exec"), namespace)
    finally:
        torch.set_num_threads(threads)
    results = namespace["results"]
    assert set(results) == {"parallel", "aec"}
    for form, result in results.items():
        assert result["training_iteration"] == 2, form
        runners = result["env_runners"]
        assert runners["num_env_steps_sampled_lifetime"] > 0, form
        assert runners["num_episodes_lifetime"] > 0, form
        assert runners["illegal_actions"] == 0, form
        assert "shared" in result["learners"], form
