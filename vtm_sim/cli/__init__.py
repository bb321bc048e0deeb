"""The ``vtm-sim`` command line: thin Click commands over the library (STYLE 11).

Each command parses its options, loads the YAML it names, calls the library
and prints (``--json`` for machine-readable output). User errors print one
line on stderr and exit with status 2 (1 when a replay fails to verify);
never a traceback. Dice come from ``--seed`` (default 0) unless given with
``--faces``; the same seed always prints the same bytes.

The commands live in the modules beside this one and are imported only when
named: ``vtm_sim.cli.base.COMMANDS`` maps each command to its module, one line
each, so ``vtm-sim --help`` imports click and nothing of the engine.
"""

from vtm_sim.cli.base import main

__all__ = ["main"]
