"""Env fingerprints read as observation/action layout version 3.

Usage:
    python experiments/layout_prefix.py F.json

``F.json`` is ``experiments/fingerprint.py --out`` from before layout version 4.
Version 4 appended 3 observation floats and the jumping moves (MOVE-3) to the
action catalog; this replays fingerprint.py's masked-random env steps, hashing
each observation's version-3 prefix (``encoder.prefix_size(3)``; version 5 appended
the tempo block after it) and each mask less the appended moves
(checking they are never legal where there are no obstacles). A fingerprint
equal to the old one means only the layout grew: play did not change.
"""

import hashlib
import json
import sys
from pathlib import Path

import gymnasium as gym
import numpy as np

import envs  # noqa: F401  (registers the ids)

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fingerprint import ENV_STEPS

old = json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))["envs"]
same = 0
for env_id in sorted(i for i in gym.registry if i.startswith("vtm_sim/")):
    if env_id not in old:
        continue
    env = gym.make(env_id, illegal_action="penalize")
    keep = env.unwrapped.encoder.prefix_size(3)
    cut = env.unwrapped.catalog.size - (3 * env.unwrapped.catalog.num_combatants + 2)
    h = hashlib.sha256()
    rng = np.random.default_rng(0)
    obs, info = env.reset(seed=0)
    for _ in range(ENV_STEPS):
        mask = info["action_mask"]
        idx = mask.nonzero()[0]
        a = int(idx[rng.integers(idx.size)]) if idx.size else 0
        obs, r, term, trunc, info = env.step(a)
        assert not mask[cut:].any()
        h.update(np.asarray(obs[:keep], dtype=np.float64).tobytes())
        h.update(mask[:cut].tobytes())
        h.update(repr((round(float(r), 9), term, trunc)).encode())
        if term or trunc:
            obs, info = env.reset()
    got = h.hexdigest()[:16]
    same += got == old[env_id]
    print(env_id, got == old[env_id])
print(same, "of", len(old), "env fingerprints equal as layout version 3")
