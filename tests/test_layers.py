"""STYLE 1: the rules engine imports neither gymnasium nor torch."""

import subprocess
import sys


def test_engine_imports_neither_gymnasium_nor_torch() -> None:
    code = (
        "import sys, vtm_sim, vtm_sim.battle, vtm_sim.attack, vtm_sim.odds, vtm_sim.replay, "
        "vtm_sim.simulate, vtm_sim.cli, vtm_sim.narration\n"
        "bad = [m for m in ('gymnasium', 'torch', 'stable_baselines3') if m in sys.modules]\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert out == ""
