"""The battle map: a top-down picture of a battle, what ``render_mode="rgb_array"`` returns.

A ``SIZE`` x ``SIZE`` RGB image (uint8) fitted to the combatants and cover:
cover zones as grey discs (darker for better cover), walls as dark lines, each
combatant as a square in its side's colour (faded once out of the fight) with
a health bar above it (green: levels left). Enough to watch a policy move,
take cover and fall in a video (Gymnasium's ``RecordVideo``, SB3's
``VecVideoRecorder``); ``render_mode="ansi"`` narrates the rules instead.
"""

from __future__ import annotations

import numpy as np

from vtm_sim.core.space import CoverLevel
from vtm_sim.engine.battle import Battle

__all__ = ["SIZE", "picture"]

SIZE = 256  # pixels per side
MARGIN = 24  # pixels around the fitted area
TOKEN = 5  # a combatant's square reaches this many pixels from its centre
BACKGROUND = (236, 230, 218)
WALL = (60, 55, 50)
SIDE_COLOURS = ((196, 40, 40), (40, 84, 196), (40, 150, 60), (200, 150, 30), (120, 60, 160))
HEALTH_LEFT, HEALTH_LOST = (40, 170, 60), (90, 20, 20)
_TOP_COVER = max(level.value for level in CoverLevel)


def picture(battle: Battle | None) -> np.ndarray:
    """The battle map of ``battle`` (a blank map before the first reset)."""
    img = np.empty((SIZE, SIZE, 3), np.uint8)
    img[:] = BACKGROUND
    if battle is None:
        return img
    fld = battle.field
    xs = [c.x for c in battle.combatants] + [z.x for z in fld.cover]
    ys = [c.y for c in battle.combatants] + [z.y for z in fld.cover]
    reach = max([z.radius for z in fld.cover], default=0.0)
    x0, y0 = min(xs) - reach, min(ys) - reach
    span = max(max(xs) + reach - x0, max(ys) + reach - y0, 1.0)
    scale = (SIZE - 2 * MARGIN) / span

    def px(x: float, y: float) -> tuple[int, int]:  # (row, column); north is up
        return SIZE - 1 - int(MARGIN + (y - y0) * scale), int(MARGIN + (x - x0) * scale)

    rows, cols = np.ogrid[:SIZE, :SIZE]
    for z in fld.cover:
        r, c = px(z.x, z.y)
        disc = (rows - r) ** 2 + (cols - c) ** 2 <= (z.radius * scale) ** 2
        shade = 200 - 70 * z.level.value // max(1, _TOP_COVER)
        img[disc] = (shade, shade, shade)
    for w in fld.walls:
        (r1, c1), (r2, c2) = px(w.x1, w.y1), px(w.x2, w.y2)
        n = max(abs(r2 - r1), abs(c2 - c1), 1) + 1
        rr = np.clip(np.linspace(r1, r2, n).round().astype(int), 0, SIZE - 1)
        cc = np.clip(np.linspace(c1, c2, n).round().astype(int), 0, SIZE - 1)
        img[rr, cc] = WALL
    for cb in battle.combatants:
        r, c = px(cb.x, cb.y)
        colour = np.array(SIDE_COLOURS[cb.side % len(SIDE_COLOURS)], np.int32)
        if not cb.active:
            colour = (colour + 2 * np.array(BACKGROUND)) // 3
        img[_box(r - TOKEN, r + TOKEN + 1, c - TOKEN, c + TOKEN + 1)] = colour
        h = cb.health
        left = c - TOKEN + round((2 * TOKEN + 1) * (h.size - h.filled) / h.size)
        img[_box(r - TOKEN - 4, r - TOKEN - 2, c - TOKEN, left)] = HEALTH_LEFT
        img[_box(r - TOKEN - 4, r - TOKEN - 2, left, c + TOKEN + 1)] = HEALTH_LOST
    return img


def _box(r0: int, r1: int, c0: int, c1: int) -> tuple[slice, slice]:
    """The clipped pixel rectangle rows r0..r1-1, columns c0..c1-1."""
    return slice(max(0, r0), max(0, min(SIZE, r1))), slice(max(0, c0), max(0, min(SIZE, c1)))
