"""Measure what compiling the hot modules with mypyc buys (an experiment, not a build).

Usage: python experiments/bench_compiled.py [--steps N]

Copies the working tree to a temporary folder, compiles the engine's hot
modules and the observation encoder with mypyc (needs mypy, which the dev
extra installs, and a C compiler), then runs experiments/bench_env.py on the
compiled copy and on this tree, and prints both rates. The installed package
is never touched; the compiled copy is deleted afterwards.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HOT = [
    "vtm_sim/dice.py",
    "vtm_sim/health.py",
    "vtm_sim/combatant.py",
    "vtm_sim/attack.py",
    "vtm_sim/effects.py",
    "vtm_sim/state.py",
    "vtm_sim/options.py",
    "vtm_sim/strikes.py",
    "vtm_sim/battle.py",
    "vtm_sim/movement.py",
    "vtm_sim/blood.py",
    "vtm_sim/space.py",
    "vtm_sim/policy.py",
    "envs/observation.py",
]


def bench(tree: Path, steps: int) -> str:
    env = {**os.environ, "PYTHONPATH": str(tree), "VTM_SIM_CONFIGS": str(tree / "configs")}
    out = subprocess.run(
        [
            sys.executable,
            str(tree / "experiments" / "bench_env.py"),
            "--steps",
            str(steps),
            "--repeat",
            "2",
            "--vec-steps",
            "200",
        ],
        capture_output=True,
        text=True,
        check=True,
        env=env,
        cwd=tree,
    ).stdout
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--steps", type=int, default=20000)
    args = ap.parse_args()
    mypyc = shutil.which("mypyc", path=str(Path(sys.executable).parent)) or shutil.which("mypyc")
    if mypyc is None:
        sys.exit("mypyc not found: pip install mypy")
    with tempfile.TemporaryDirectory() as tmp:
        tree = Path(tmp) / "tree"
        shutil.copytree(
            ROOT,
            tree,
            ignore=shutil.ignore_patterns(
                ".venv", ".git", "__pycache__", ".mypy_cache", ".pytest_cache", "build", "runs"
            ),
        )
        subprocess.run([mypyc, *HOT], cwd=tree, check=True, capture_output=True)
        print("== pure Python (this tree)")
        print(bench(ROOT, args.steps))
        print("== hot modules compiled with mypyc")
        print(bench(tree, args.steps))


if __name__ == "__main__":
    main()
