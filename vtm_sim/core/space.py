"""The battlefield: a continuous plane in yards with cover and walls.

Kept deliberately small and fast (STYLE: the battle loop is a hot path):

- Cover zones are circles. A combatant standing inside one has its cover
  level against attacks from outside the zone (RNG-1). Prone counts as
  light cover against ranged attacks (RNG-1).
- Walls are segments that block line of sight (ATK-2) for ranged attacks.
- Lighting applies to the whole field (ATK-10).
- Obstacles are segments a mover must jump or go around (MOVE-3): a gap
  (``width`` feet across) or a low obstacle (``height`` feet up); ``detour``
  is the extra yards going around costs (None: no way around).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Final

from vtm_sim.core.symbol import Symbol


class CoverLevel(Symbol):
    """RNG-1: difficulty to hit a target in cover."""

    NONE = 0
    LIGHT = 1  # prone, low obstacle
    GOOD = 2  # behind a wall
    SUPERIOR = 3  # only the head shows

    @property
    def shooter_penalty(self) -> int:
        """RNG-1: firing from one's own cover costs one less than it gives."""
        return max(0, self.value - 1)


class Lighting(Symbol):
    NORMAL = "normal"
    DARK = "dark"  # ATK-10: +2 difficulty in close combat, no firing blind


@dataclass(frozen=True, slots=True)
class CoverZone:
    name: str
    x: float
    y: float
    radius: float
    level: CoverLevel

    def contains(self, x: float, y: float) -> bool:
        return (x - self.x) ** 2 + (y - self.y) ** 2 <= self.radius**2 + 1e-9


@dataclass(frozen=True, slots=True)
class Wall:
    x1: float
    y1: float
    x2: float
    y2: float

    def blocks(self, ax: float, ay: float, bx: float, by: float) -> bool:
        """Whether the segment a-b crosses this wall (proper intersection)."""
        d1 = _orient(self.x1, self.y1, self.x2, self.y2, ax, ay)
        d2 = _orient(self.x1, self.y1, self.x2, self.y2, bx, by)
        d3 = _orient(ax, ay, bx, by, self.x1, self.y1)
        d4 = _orient(ax, ay, bx, by, self.x2, self.y2)
        return d1 * d2 < 0 and d3 * d4 < 0


class ObstacleKind(Symbol):
    """MOVE-3: what a mover must jump."""

    GAP = "gap"  # jumped across: 4 ft a success
    LOW = "low"  # jumped over: 2 ft up a success


@dataclass(frozen=True, slots=True)
class Obstacle:
    """A gap or a low obstacle along a segment (MOVE-3); it does not block sight."""

    name: str
    kind: ObstacleKind
    x1: float
    y1: float
    x2: float
    y2: float
    feet: float  # a gap's width, a low obstacle's height
    detour: float | None = None  # extra yards to go around it (None: no way around)

    def crossing(self, ax: float, ay: float, bx: float, by: float) -> float | None:
        """How far along a-b (0..1) the segment crosses this obstacle (None: it does not)."""
        rx, ry = bx - ax, by - ay
        sx, sy = self.x2 - self.x1, self.y2 - self.y1
        den = rx * sy - ry * sx
        if abs(den) < 1e-12:
            return None
        qx, qy = self.x1 - ax, self.y1 - ay
        t = (qx * sy - qy * sx) / den
        u = (qx * ry - qy * rx) / den
        if 1e-9 < t <= 1.0 + 1e-9 and -1e-9 <= u <= 1.0 + 1e-9:
            return t
        return None

    def distance_to(self, x: float, y: float) -> float:
        """Yards from a point to the obstacle's segment."""
        sx, sy = self.x2 - self.x1, self.y2 - self.y1
        n = sx * sx + sy * sy
        t = 0.0 if n <= 0 else max(0.0, min(1.0, ((x - self.x1) * sx + (y - self.y1) * sy) / n))
        return math.hypot(x - (self.x1 + t * sx), y - (self.y1 + t * sy))


def _orient(ax: float, ay: float, bx: float, by: float, cx: float, cy: float) -> float:
    return (bx - ax) * (cy - ay) - (by - ay) * (cx - ax)


@dataclass(frozen=True, slots=True)
class Field:
    """Cover, walls and light of a battlefield."""

    cover: tuple[CoverZone, ...] = ()
    walls: tuple[Wall, ...] = ()
    lighting: Lighting = Lighting.NORMAL
    cramped: bool = False  # DEF-8: no room to dodge anywhere
    obstacles: tuple[Obstacle, ...] = ()  # MOVE-3: gaps and low obstacles to jump

    def cover_at(self, x: float, y: float) -> CoverZone | None:
        best: CoverZone | None = None
        for z in self.cover:
            if z.contains(x, y) and (best is None or z.level.value > best.level.value):
                best = z
        return best

    def nearest_cover(self, x: float, y: float, within: float) -> CoverZone | None:
        """DEF-5: a cover zone whose edge is within ``within`` yards."""
        best: CoverZone | None = None
        best_d = math.inf
        for z in self.cover:
            d = max(0.0, math.hypot(x - z.x, y - z.y) - z.radius)
            if d <= within + 1e-9 and d < best_d:
                best, best_d = z, d
        return best

    def line_of_sight(self, ax: float, ay: float, bx: float, by: float) -> bool:
        return not any(w.blocks(ax, ay, bx, by) for w in self.walls)


OPEN_FIELD: Final = Field()
