"""The ``vtm-sim`` command line: thin Click commands over the library (STYLE 11).

Each command parses its options, loads the YAML it names, calls the library
and prints (``--json`` for machine-readable output). User errors print one
line on stderr and exit with status 2 (1 when a replay fails to verify);
never a traceback. Dice come from ``--seed`` (default 0) unless given with
``--faces``; the same seed always prints the same bytes.
"""

from vtm_sim.cli import advice, attacks, battles, ladder, rolls, states, training
from vtm_sim.cli.base import main

__all__ = ["advice", "attacks", "battles", "ladder", "main", "rolls", "states", "training"]
