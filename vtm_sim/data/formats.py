"""The version (or format name) of every file format vtm_sim writes, in one place.

A reader refuses, or reads differently, a file whose version is not the one here;
bump a version when its format changes, with a word on what changed. Kept in the
data layer, below every module that writes or reads one (the engine's saved
battles and logs, the state files, the arena's run directories and results, the
envs' observations and the exported policies), so each imports it from here.
"""

from __future__ import annotations

from typing import Final

__all__ = [
    "LOG_VERSION",
    "OBS_VERSION",
    "POLICY_FORMAT",
    "RESULTS_FORMAT",
    "RUN_DIR_FORMAT",
    "STATE_FORMAT",
    "STATE_VERSION",
    "TABLE_SCHEMA_VERSION",
]

# Battle logs (JSON lines): the BATTLE event's "version", and a saved state's
# "log_version" (vtm_sim.engine.battle, vtm_sim.engine.serialisation).
# 2: chases and jumps (flee, chase, caught, escaped, jump events)
LOG_VERSION: Final = 2

# A saved battle (Battle.to_state, and a machine-written state file): its "format"
# (vtm_sim.engine.serialisation, vtm_sim.files.state_files) and "version".
STATE_FORMAT: Final = "vtm_sim.state"  # named after the module that wrote the first ones
# 2: grips and aims saved as relations (vtm_sim.core.relations)
STATE_VERSION: Final = 2

# A tournament's --out directory: the "format" of its manifest (vtm_sim.arena.run_dirs)
RUN_DIR_FORMAT: Final = 1
# Tournament results (results.json): their "format" (vtm_sim.arena.results)
RESULTS_FORMAT: Final = 1

# The envs' observation layout (envs.observation), saved with every trained model.
# 2: ``others`` before ``self`` (the dict's key order); 3: chase and obstacle
# features at the end of the self block; 4: the nearest obstacle's jump and detour
# appended (MOVE-3), with the jumping moves appended to the action catalog; 5: the
# ``tempo`` block appended (each other combatant's Willpower, declarations, actions left);
# 6: ``seat`` appended to ``self``, and action targets relative to the observer (the
# k-th other combatant, as the observation's rows), so one policy plays every seat
OBS_VERSION: Final = 6
# (Versions 3 and 4 were read as prefixes of version 5; version 6 renumbers the action
# catalog, so a model of any other layout must be retrained or re-exported.)

# An exported numpy-only policy (.npz, agents.numpy_policy): its metadata's "format"
POLICY_FORMAT: Final = "vtm-sim numpy policy 1"

# A table database (vtm_sim.table.store): the schema of its SQLite tables
TABLE_SCHEMA_VERSION: Final = 1
