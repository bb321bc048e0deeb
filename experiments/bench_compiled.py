"""Measure the optional compiled build against the pure-Python one, in one run.

Usage: python experiments/bench_compiled.py [--steps N] [--keep DIR]

Builds this tree the way a user would ask for the compiled package
(``VTM_SIM_COMPILE=1 pip install .``, see ``build_hooks.py``) into a fresh
virtual environment in a temporary folder (or ``--keep DIR``), then runs
``experiments/bench_env.py`` with this interpreter (the pure-Python package
it has installed) and with the compiled one, and prints both reports. The
build takes about a minute on two cores and needs a C compiler.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "experiments" / "bench_env.py"


def bench(python: str, steps: int) -> str:
    return subprocess.run(
        [python, str(BENCH), "--steps", str(steps), "--repeat", "2", "--vec-steps", "200"],
        capture_output=True, text=True, check=True, cwd=Path(tempfile.gettempdir()),
    ).stdout


def build(folder: Path) -> str:
    """A virtual environment in ``folder`` with the compiled package; its python."""
    venv.create(folder, with_pip=True)
    python = str(folder / "bin" / "python")
    subprocess.run(
        [python, "-m", "pip", "install", "-q", str(ROOT)],
        check=True, env={**os.environ, "VTM_SIM_COMPILE": "1"},
    )
    return python


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=20000)
    ap.add_argument("--keep", type=Path, help="build the compiled environment here and keep it")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        compiled = build(args.keep or Path(tmp) / "venv")
        print("== this interpreter's package")
        print(bench(sys.executable, args.steps))
        print("== VTM_SIM_COMPILE=1 build")
        print(bench(compiled, args.steps))


if __name__ == "__main__":
    main()
