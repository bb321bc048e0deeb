"""experiments/cleanrl_ppo_masked.py (skipped without torch): the script end to end for a
few hundred steps, as a user runs it (its figures: experiments/results/cleanrl_ppo_masked.md),
and its masking: only legal actions, finite on the final step's pass-only mask."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from experiment_scripts import ROOT, load_experiment  # noqa: E402

import envs  # noqa: E402

ppo = load_experiment("cleanrl_ppo_masked")


def test_the_script_runs_end_to_end_and_evaluates() -> None:
    out = subprocess.run(
        [sys.executable, str(ROOT / "experiments" / "cleanrl_ppo_masked.py"),
         "--total-timesteps", "256", "--num-envs", "2", "--num-steps", "64",
         "--eval-episodes", "2", "--eval-opponents", "nearest,ladder:3", "--json"],
        capture_output=True, text=True, timeout=300, check=True, cwd=ROOT)
    summary = json.loads(out.stdout.strip().splitlines()[-1])
    assert summary["env_id"] == envs.env_id("duel") and summary["steps"] == 256
    assert envs.env_id("duel") in out.stdout
    ev = summary["evaluation"]["opponents"]
    assert set(ev) == {"nearest", "ladder:3"}
    assert all(ev[o]["pooled"]["games"] == 4 for o in ev)


def test_masked_policy_plays_only_legal_actions_and_stays_finite() -> None:
    torch.manual_seed(0)
    agent = ppo.Agent(8, 6, 16)
    x = torch.randn(3, 8)
    mask = torch.tensor([[0, 1, 0, 1, 0, 0], [0, 0, 0, 0, 1, 0], [1, 1, 1, 1, 1, 1]],
                        dtype=torch.bool)  # the middle row: a final step's pass-only mask
    for _ in range(20):
        action, logprob, entropy, _value = agent.get_action_and_value(x, mask)
        assert mask[torch.arange(3), action].all()
        assert torch.isfinite(logprob).all() and torch.isfinite(entropy).all()
    assert logprob[1].item() == pytest.approx(0.0) and entropy[1].item() == pytest.approx(0.0)
    player = ppo.TorchPlayer(agent)
    legal = np.array([0, 0, 1, 0, 1, 0], dtype=np.int8)
    assert player.act(np.zeros(8, np.float32), legal) in (2, 4)
