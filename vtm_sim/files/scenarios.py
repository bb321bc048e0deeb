"""Scenarios: who fights whom, where, in what light, under which rules.

A scenario is a YAML file in ``configs/scenarios/`` (or anywhere), found by
name or path. Stat-block paths are resolved against the scenario's folder
first, then against ``configs/``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from pathlib import Path
from typing import Annotated, Literal

from pydantic import AfterValidator, Field, model_validator

from vtm_sim.core.dice import DiceSource
from vtm_sim.core.goals import GOAL_WORDS, GoalSpec
from vtm_sim.core.space import CoverLevel, CoverZone, Lighting, Obstacle, ObstacleKind, Wall
from vtm_sim.core.space import Field as Battlefield
from vtm_sim.data.config import StrictModel, Yards, config_dir, load_yaml, validate
from vtm_sim.data.rules import RuleSet, load_rules
from vtm_sim.data.stat_blocks import StatBlock, load_stat_block
from vtm_sim.engine.battle import Battle, Fighter
from vtm_sim.errors import ConfigError

MAX_COMBATANTS = 16  # in one fight: a scenario's, with those a state file adds


def _goal(text: str) -> str:
    try:
        return str(GoalSpec.parse(text, "goal"))
    except ConfigError:
        raise ValueError(f"expected {GOAL_WORDS} (got {text!r})") from None


# what the combatant wants (`vtm-sim suggest` advises for it): checked as written, the
# name in protect:NAME matched to a combatant when it is used
GoalText = Annotated[str, AfterValidator(_goal)]


class CombatantSpec(StrictModel):
    sheet: str = Field(min_length=1, description="a stat block file: characters/NAME.yaml")
    side: int = Field(ge=0, le=7)
    at: tuple[Yards, Yards] = (0.0, 0.0)
    prone: bool = False
    blinded: bool = False
    goal: GoalText | None = Field(
        default=None, description="what it wants: " + GOAL_WORDS + " (default win)")


class CoverSpec(StrictModel):
    name: str = "cover"
    at: tuple[Yards, Yards]
    radius: float = Field(gt=0, le=50)
    level: Literal["light", "good", "superior"]


class ObstacleSpec(StrictModel):
    """MOVE-3: a gap to jump across or a low obstacle to jump over, along a segment."""

    name: str = Field(default="obstacle", min_length=1)
    kind: Literal["gap", "low"] = Field(description="gap: jumped across; low: jumped over")
    line: tuple[tuple[Yards, Yards], tuple[Yards, Yards]] = Field(
        description="its two ends, [[x1, y1], [x2, y2]] in yards")
    width: float | None = Field(default=None, gt=0, le=100,
                                description="a gap's width in feet (4 ft a success)")
    height: float | None = Field(default=None, gt=0, le=50,
                                 description="a low obstacle's height in feet (2 ft a success)")
    detour: float | None = Field(default=None, ge=0, le=500,
                                 description="extra yards to go around it (absent: no way around)")

    @model_validator(mode="after")
    def _size(self) -> ObstacleSpec:
        need, other = ("width", "height") if self.kind == "gap" else ("height", "width")
        if getattr(self, need) is None:
            raise ValueError(f"a {self.kind} needs {need} (feet)")
        if getattr(self, other) is not None:
            raise ValueError(f"a {self.kind} has a {need}, not a {other}")
        (x1, y1), (x2, y2) = self.line
        if x1 == x2 and y1 == y2:
            raise ValueError("line: its two ends are the same point")
        return self

    def obstacle(self) -> Obstacle:
        (x1, y1), (x2, y2) = self.line
        feet = self.width if self.kind == "gap" else self.height
        assert feet is not None
        return Obstacle(self.name, ObstacleKind(self.kind), x1, y1, x2, y2, feet, self.detour)


# Closer than this (yards) is the same spot, or standing on a wall's or an obstacle's line
SAME_SPOT = 1e-6


def misplaced(points: list[tuple[str, str, float, float]],
              field: Battlefield) -> tuple[str, str] | None:
    """The first of ``points`` (key, name, x, y) that shares its spot with an earlier one or
    stands on a wall or an obstacle's line, as (key, what is wrong); None when none does.

    A wall blocks sight only when a line crosses it (ATK-2), and a jump is needed only to
    cross an obstacle (MOVE-3): someone standing on the line would see and walk through.
    """
    for n, (key, name, x, y) in enumerate(points):
        for _k, other, ox, oy in points[:n]:
            if math.hypot(x - ox, y - oy) < SAME_SPOT:
                return key, (f"{name} stands on the same spot as {other} ({[x, y]}); "
                             "two combatants need two places")
        for i, w in enumerate(field.walls):
            seg = Obstacle("wall", ObstacleKind.LOW, w.x1, w.y1, w.x2, w.y2, 0.0)
            if seg.distance_to(x, y) < SAME_SPOT:
                return key, (f"{name} at {[x, y]} stands on wall {i} "
                             f"({[[w.x1, w.y1], [w.x2, w.y2]]}): stand on one side of it")
        for o in field.obstacles:
            if o.distance_to(x, y) < SAME_SPOT:
                return key, (f"{name} at {[x, y]} stands on the line of the {o.kind.value} "
                             f"obstacle {o.name!r}: stand on one side of it")
    return None


def obstacles_of(specs: list[ObstacleSpec], source: Path, key: str = "obstacles",
                 taken: tuple[str, ...] = ()) -> tuple[Obstacle, ...]:
    """The obstacles of a file's list; names must be unique (a jump is told by name)."""
    seen = set(taken)
    for n, o in enumerate(specs):
        if o.name in seen:
            raise ConfigError(f"{source}: {key}.{n}.name: {o.name!r} is already an obstacle "
                              "(names must be unique)")
        seen.add(o.name)
    return tuple(o.obstacle() for o in specs)


class AmbushSpec(StrictModel):
    attacker: int = Field(ge=0)
    target: int = Field(ge=0)


class ScenarioSpec(StrictModel):
    title: str
    description: str = ""
    rules: str = "v20"
    turn_limit: int = Field(default=20, ge=1, le=500)
    lighting: Lighting = Lighting.NORMAL
    cramped: bool = False  # DEF-8: no room to dodge
    sides: dict[int, str] = Field(default_factory=dict)
    combatants: list[CombatantSpec] = Field(min_length=2, max_length=MAX_COMBATANTS)
    cover: list[CoverSpec] = Field(default_factory=list)
    walls: list[tuple[tuple[Yards, Yards], tuple[Yards, Yards]]] = Field(default_factory=list)
    ambush: list[AmbushSpec] = Field(default_factory=list)
    obstacles: list[ObstacleSpec] = Field(default_factory=list)  # MOVE-3


@dataclass(frozen=True, slots=True)
class Scenario:
    """A loaded scenario: ready to start battles."""

    name: str
    title: str
    description: str
    rules: RuleSet
    turn_limit: int
    fighters: tuple[Fighter, ...]
    field: Battlefield
    sides: dict[int, str]
    ambush: tuple[tuple[int, int], ...]
    source: str
    goals: dict[int, str] = dataclass_field(default_factory=dict)  # combatant id -> goal

    def battle(self, *, seed: int | None = None, dice: DiceSource | None = None,
               turn_limit: int | None = None) -> Battle:
        return Battle(
            self.fighters, seed=seed, dice=dice, rules=self.rules,
            turn_limit=turn_limit or self.turn_limit, field=self.field,
            ambush=self.ambush, scenario=self.name,
        )

    def side_name(self, side: int) -> str:
        return self.sides.get(side, f"side {side}")


LEVELS = {"light": CoverLevel.LIGHT, "good": CoverLevel.GOOD, "superior": CoverLevel.SUPERIOR}


def scenario_dir() -> Path:
    return config_dir() / "scenarios"


def list_scenarios() -> list[str]:
    return sorted(p.stem for p in scenario_dir().glob("*.yaml"))


def find_scenario(name_or_path: str) -> Path:
    p = Path(name_or_path)
    if p.suffix in (".yaml", ".yml"):
        if not p.exists():
            raise ConfigError(f"{p}: file not found")
        return p
    q = scenario_dir() / f"{name_or_path}.yaml"
    if not q.exists():
        raise ConfigError(
            f"scenario {name_or_path!r}: unknown (expected one of {', '.join(list_scenarios())})"
        )
    return q


def _sheet(path: Path, sheet: str, i: int) -> StatBlock:
    for base in (path.parent, config_dir()):
        cand = base / sheet
        if cand.is_file():
            return load_stat_block(cand)
    raise ConfigError(f"{path}: combatants.{i}.sheet: stat block {sheet!r} not found")


def load_scenario(name_or_path: str) -> Scenario:
    """Load and validate a scenario by name or file path."""
    path = find_scenario(name_or_path)
    spec = validate(ScenarioSpec, load_yaml(path), path)
    try:
        rules = load_rules(spec.rules)
    except ConfigError as exc:
        raise ConfigError(f"{path}: rules: {exc}") from None
    fighters = tuple(
        Fighter(_sheet(path, c.sheet, i), c.side, c.at[0], c.at[1], c.prone, c.blinded)
        for i, c in enumerate(spec.combatants)
    )
    sides = {f.side for f in fighters}
    if len(sides) < 2:
        raise ConfigError(f"{path}: combatants: expected at least two sides")
    for side in spec.sides:
        if side not in sides:
            raise ConfigError(f"{path}: sides.{side}: no combatant is on side {side}")
    conflict = _firearm_conflict(fighters, rules)
    if conflict is not None:
        raise ConfigError(f"{path}: {conflict}")
    for n, a in enumerate(spec.ambush):
        for key, idx in (("attacker", a.attacker), ("target", a.target)):
            if idx >= len(fighters):
                raise ConfigError(f"{path}: ambush.{n}.{key}: no combatant {idx}")
        if fighters[a.attacker].side == fighters[a.target].side:
            raise ConfigError(f"{path}: ambush.{n}: attacker and target are on the same side")
    zones = tuple(
        CoverZone(c.name, c.at[0], c.at[1], c.radius, LEVELS[c.level])
        for c in spec.cover
    )
    for n, (end1, end2) in enumerate(spec.walls):
        if math.dist(end1, end2) < SAME_SPOT:
            raise ConfigError(f"{path}: walls.{n}: its two ends are the same point "
                              f"({list(end1)}): a wall needs a length")
    walls = tuple(Wall(a[0], a[1], b[0], b[1]) for a, b in spec.walls)
    field = Battlefield(zones, walls, spec.lighting, spec.cramped,
                        obstacles_of(spec.obstacles, path))
    bad = misplaced([(f"combatants.{i}.at", f"combatant {i} ({f.stats.name})", f.x, f.y)
                     for i, f in enumerate(fighters)], field)
    if bad is not None:
        raise ConfigError(f"{path}: {bad[0]}: {bad[1]}")
    return Scenario(
        path.stem, spec.title, spec.description, rules, spec.turn_limit, fighters,
        field, dict(spec.sides), tuple((a.attacker, a.target) for a in spec.ambush), str(path),
        {i: c.goal for i, c in enumerate(spec.combatants) if c.goal is not None},
    )


def _firearm_conflict(fighters: tuple[Fighter, ...], rules: RuleSet) -> str | None:
    for i, f in enumerate(fighters):
        for w in f.stats.weapons:
            if w.cls.value == "firearm" and not rules.firearms_allowed:
                return (f"combatants.{i}: {w.name} is a firearm, not allowed under "
                        f"the {rules.name} rules")
    return None


def rules_conflict(scenario: Scenario, rules: RuleSet) -> str | None:
    """Why ``scenario`` cannot be played under ``rules`` (a firearm where none is
    allowed), or None when it can (``dataclasses.replace(scenario, rules=rules)``)."""
    return _firearm_conflict(scenario.fighters, rules)
