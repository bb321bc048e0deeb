"""State files: the fight as it stands, written by hand by a Storyteller.

A state file (YAML or JSON, documented in ``docs/states.md``) names a
scenario and says, per combatant, only what differs from a fresh start, plus
the turn about to start and optionally the initiative already rolled::

    scenario: gunfight
    turn: 3
    combatants:
      Detective Ortiz: {damage: {lethal: 3}, willpower: 4, ammo: {heavy_revolver: 2}}
      Patrol Officer#2: {damage: {bashing: 1, lethal: 2}}

Two layers:

- :class:`StateSpec` is the file as written, by names; :func:`read_state`
  checks it against the scenario, and every mistake is one
  :class:`~vtm_sim.errors.ConfigError` line naming the file and the key.
- :class:`Standing` is the same situation by ids and indices.
  :func:`apply_standing` is the one place that writes it onto a battle made
  with ``start=False``, and records it in the log header (key ``standing``)
  so that :func:`vtm_sim.files.replay.replay` rebuilds the very same battle.

A machine-written state (JSON with ``"format": "vtm_sim.state"``) is not
parsed here: :func:`load_state` hands it to ``Battle.from_state``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Annotated, Any

from pydantic import Field, field_validator

from vtm_sim.core.goals import GOAL_WORDS
from vtm_sim.core.health import Status
from vtm_sim.core.relations import Aim, Chase, Grip, GripKind, Pursuer
from vtm_sim.core.space import CoverZone, Obstacle, ObstacleKind
from vtm_sim.core.weapons import WeaponClass
from vtm_sim.data.config import MAX_YARDS, StrictModel, Yards, config_dir, load_yaml, validate
from vtm_sim.data.formats import STATE_FORMAT
from vtm_sim.data.stat_blocks import Kind, StatBlock, load_stat_block
from vtm_sim.engine.battle import Battle, Fighter
from vtm_sim.engine.positions import ADJACENT_YARDS
from vtm_sim.engine.queries import REACH_SLACK, face_nearest
from vtm_sim.errors import ConfigError
from vtm_sim.files.scenarios import (
    MAX_COMBATANTS,
    CombatantSpec,
    GoalText,
    ObstacleSpec,
    Scenario,
    load_scenario,
    misplaced,
    obstacles_of,
)
from vtm_sim.mechanics.attack import SHOOTING
from vtm_sim.mechanics.combatant import Combatant

UNARMED = "unarmed"

__all__ = [
    "CombatantState",
    "LoadedState",
    "Override",
    "Standing",
    "StateSpec",
    "apply_standing",
    "labels",
    "load_state",
    "read_state",
]


# --- the file as written (names) ------------------------------------------------


class DamageSpec(StrictModel):
    """Boxes of the health track already filled, by damage type (DMG-7)."""

    bashing: int = Field(default=0, ge=0, le=50)
    lethal: int = Field(default=0, ge=0, le=50)
    aggravated: int = Field(default=0, ge=0, le=50)


class AimSpec(StrictModel):
    """RNG-7: aiming at ``target`` for ``dice`` dice so far; this turn may continue it."""

    target: str
    dice: int = Field(default=1, ge=1, le=10)


class FleeingSpec(StrictModel):
    """MOVE-4: a chase in progress with this combatant the quarry."""

    successes: int = Field(ge=0, le=100, description="its total so far, the lead's included")
    turns: int = Field(default=1, ge=1, le=50,
                       description="turns run so far (chase rolls made: a mortal tires)")


class PursuingSpec(StrictModel):
    """MOVE-4: running after ``target`` (who is fleeing) in a chase in progress."""

    target: str
    successes: int = Field(default=0, ge=0, le=100, description="its total so far")
    turns: int = Field(default=1, ge=1, le=50,
                       description="turns run so far (chase rolls made: a mortal tires)")


class CombatantState(StrictModel):
    """What differs from a fresh start for one combatant (all keys optional)."""

    sheet: str | None = Field(
        default=None, min_length=1,
        description="another stat block for this combatant (a file, looked up beside the "
        "state file first, or a shipped sheet's name); it keeps its side and place")
    damage: DamageSpec | None = None
    willpower: int | None = Field(default=None, ge=0, le=10, description="points left")
    blood: int | None = Field(default=None, ge=0, le=100,
                              description="blood points left (vampires, ghouls)")
    ammo: dict[str, Annotated[int, Field(ge=0)]] = Field(
        default_factory=dict, description="rounds left, by weapon name on the sheet")
    at: tuple[Yards, Yards] | None = Field(default=None, description="position in yards")
    prone: bool | None = None
    blinded: bool | None = None
    wielding: str | None = Field(default=None,
                                 description="the weapon in hand (a name on the sheet) or unarmed")
    jammed: list[str] = Field(default_factory=list, description="weapons jammed (CPX-6)")
    lost: list[str] = Field(default_factory=list,
                            description="weapons dropped, thrown, broken or disarmed")
    cover: str | None = Field(default=None, description="a cover zone of the scenario")
    aim: AimSpec | None = None
    clinch: str | None = Field(default=None,
                               description="in a clinch with NAME, begun by this combatant")
    holding: str | None = Field(default=None, description="holds NAME (MAN-7)")
    held_by: str | None = Field(default=None, description="held by NAME (MAN-7)")
    staked: bool = Field(default=False, description="a stake in the heart (CPX-5, vampires)")
    stunned: bool = Field(default=False, description="loses the turn about to start (DMG-6)")
    facing: str | tuple[float, float] | None = Field(
        default=None, description="a combatant's name, or a direction [dx, dy]")
    fleeing: FleeingSpec | None = Field(
        default=None, description="MOVE-4: fleeing, a chase in progress (the quarry)")
    pursuing: PursuingSpec | None = Field(
        default=None, description="MOVE-4: running after a fleeing enemy")
    goal: GoalText | None = Field(
        default=None, description="what it wants (vtm-sim suggest): " + GOAL_WORDS
        + "; default the scenario's, else win")

    @field_validator("facing", mode="before")
    @classmethod
    def _facing(cls, v: Any) -> Any:
        if v is None or isinstance(v, str):
            return v
        if isinstance(v, list | tuple) and len(v) == 2 and all(
            isinstance(x, int | float) and not isinstance(x, bool) and abs(x) <= MAX_YARDS
            for x in v
        ):
            return v
        raise ValueError(f"expected a combatant's name or a direction [dx, dy] (got {v!r})")


class StateSpec(StrictModel):
    """A hand-written state file: a scenario and what differs from its start."""

    scenario: str = Field(min_length=1,
                          description="a shipped scenario name, or a path to a scenario file")
    description: str = ""
    turn: int = Field(default=1, ge=1, le=500, description="the turn about to start")
    combatants: dict[str, CombatantState] = Field(default_factory=dict)
    initiative: list[str] | dict[str, int] | None = Field(
        default=None,
        description="names, highest first; or a mapping name -> current total")
    obstacles: list[ObstacleSpec] = Field(
        default_factory=list,
        description="gaps and low obstacles added to the scenario's field (MOVE-3)")
    add: list[CombatantSpec] = Field(
        default_factory=list, max_length=MAX_COMBATANTS,
        description="combatants joining the scenario's, each as in a scenario's combatants "
        "(sheet, side, at, prone, blinded); named in combatants by their sheets' names")

    @field_validator("initiative", mode="before")
    @classmethod
    def _initiative(cls, v: Any) -> Any:
        if v is None:
            return v
        if isinstance(v, list):
            for x in v:
                if not isinstance(x, str):
                    raise ValueError(f"expected combatants' names, highest first (got {x!r})")
            return v
        if isinstance(v, dict):
            for k, x in v.items():
                if not isinstance(x, int) or isinstance(x, bool):
                    raise ValueError(f"{k}: expected a whole-number total (got {x!r})")
            return v
        raise ValueError(
            f"expected a list of names (highest first) or a mapping name -> total (got {v!r})")


# --- the same situation by ids (what the log header records) ---------------------


class Override(StrictModel):
    """One combatant's changes from a fresh start, by ids and weapon indices."""

    id: int = Field(ge=0)
    damage: tuple[int, int, int] | None = None  # bashing, lethal, aggravated
    willpower: int | None = None
    blood: int | None = None
    ammo: list[tuple[int, int]] = Field(default_factory=list)  # (weapon index, rounds)
    at: tuple[Yards, Yards] | None = None
    prone: bool | None = None
    blinded: bool | None = None
    wielding: int | None = None  # weapon index, -1 unarmed
    jammed: list[int] = Field(default_factory=list)
    lost: list[int] = Field(default_factory=list)
    aim: tuple[int, int] | None = None  # target id, dice
    clinch: int | None = None  # partner id; this combatant began the clinch
    holding: int | None = None  # victim id
    staked: bool = False
    stunned: bool = False
    facing: tuple[float, float] | None = None  # unit vector; None: toward the nearest foe
    fleeing: tuple[int, int] | None = None  # MOVE-4 quarry: successes, chase rolls made
    pursuing: tuple[int, int, int] | None = None  # MOVE-4: quarry id, successes, rolls


class Standing(StrictModel):
    """The turn about to start, the initiative given (id, total) and the overrides."""

    turn: int = Field(ge=1)
    initiative: list[tuple[int, int]] | None = None
    combatants: list[Override] = Field(default_factory=list)
    # MOVE-3: obstacles added to the field: name, kind, x1, y1, x2, y2, feet, detour
    obstacles: list[tuple[str, str, float, float, float, float, float, float | None]] = Field(
        default_factory=list)


def apply_standing(battle: Battle, standing: Standing) -> None:
    """Set a battle made with ``start=False`` (not begun) to ``standing``.

    The one place that writes a state onto a battle's fields; it also keeps
    the state for the log header (``Battle.begin`` writes it as ``standing``).
    """
    if len(battle.log):
        raise ValueError("apply_standing: the battle has begun (make it with start=False)")
    turn = standing.turn
    cs = battle.combatants
    for o in standing.combatants:
        _apply_combatant(cs, o, turn)
    for o in standing.combatants:
        if o.fleeing is not None:  # MOVE-4: fled and rolled in earlier turns
            total, rolls = o.fleeing
            cs[o.id].chase = Chase(total, 0.0, turn - 1, rolls, turn - 1, turn - 1)
    for o in standing.combatants:
        if o.pursuing is not None:
            q = cs[o.pursuing[0]]
            ch = q.chase
            assert ch is not None  # checked by the resolver
            run = Pursuer(o.id, o.pursuing[1], o.pursuing[2], turn - 1)
            q.chase = replace(ch, pursuers=(*ch.pursuers, run))
    facing = {o.id: o.facing for o in standing.combatants if o.facing is not None}
    for c in cs:
        f = facing.get(c.id)
        if f is None:
            face_nearest(battle, c)  # as a fresh battle does, from the new positions
        else:
            c.facing = f
    if standing.obstacles:  # MOVE-3 (a replayed header's field may hold them already)
        have = {o.name for o in battle.field.obstacles}
        more = tuple(Obstacle(n, ObstacleKind(k), x1, y1, x2, y2, ft, det)
                     for n, k, x1, y1, x2, y2, ft, det in standing.obstacles if n not in have)
        battle.field = replace(battle.field, obstacles=battle.field.obstacles + more)
    battle.turn = turn - 1  # the turns already played
    battle.initiative_given = (
        None if standing.initiative is None else {i: t for i, t in standing.initiative}
    )
    battle.standing = standing.model_dump(mode="json", exclude_defaults=True)


def _apply_combatant(cs: list[Combatant], o: Override, turn: int) -> None:
    """What the state says of one combatant, set on ``cs[o.id]`` (its chase comes after)."""
    c = cs[o.id]
    if o.damage is not None:
        h = c.health
        h.bashing, h.lethal, h.aggravated = o.damage
        h.resync()
        h.status = Status.INCAPACITATED if h.filled >= h.size else Status.ACTIVE
    if o.willpower is not None:
        c.willpower = o.willpower
    if o.blood is not None:
        c.blood = o.blood
    for i, n in o.ammo:
        c.ammo[i] = n
    if o.at is not None:
        c.x, c.y = o.at
    if o.prone is not None:
        c.prone = o.prone
    if o.blinded is not None:
        c.blinded = o.blinded
    for i in o.jammed:
        c.jammed[i] = True
    for i in o.lost:
        c.lost[i] = True
        if c.wielding == i:
            c.wielding = -1
        if c.offhand == i:
            c.offhand = -1
    if o.wielding is not None:
        c.wielding = o.wielding
        if c.offhand >= 0 and c.offhand == o.wielding:
            c.offhand = -1  # the off-hand weapon is now the one in hand
    if o.aim is not None:
        # RNG-7: aimed last turn, so it still counts
        c.aim = Aim(o.aim[0], o.aim[1], turn - 1)
    if o.clinch is not None:  # MAN-6
        p = cs[o.clinch]
        c.grip = p.grip = Grip(GripKind.CLINCH, c.id, p.id, turn - 1)
        c.grapple_turn[p.id] = turn - 1  # MAN-8: the one who began it may bite
    if o.holding is not None:  # MAN-7
        p = cs[o.holding]
        c.grip = p.grip = Grip(GripKind.HOLD, c.id, p.id, turn - 1)
        c.grapple_turn[p.id] = turn - 1
    if o.staked:
        c.staked = True  # CPX-5
    if o.stunned:
        c.stunned_turn = turn  # DMG-6, CPX-2


# --- names ------------------------------------------------------------------------


def labels(names: Sequence[str]) -> list[str]:
    """How a state file writes each name: ``Name#1``, ``Name#2`` where names repeat."""
    out = []
    for i, n in enumerate(names):
        out.append(f"{n}#{names[: i + 1].count(n)}" if names.count(n) > 1 else n)
    return out


def _find(written: str, names: Sequence[str], what: str) -> int:
    """The index of ``written`` among ``names`` (``Name#k`` for repeated names)."""
    text = written.strip()
    if text in names:
        if names.count(text) == 1:
            return names.index(text)
        shared = [lb for n, lb in zip(names, labels(names), strict=True) if n == text]
        raise ValueError(
            f"{text!r} is ambiguous: {len(shared)} {what}s have that name; "
            f"write {' or '.join(shared)}"
        )
    base, sep, k = text.rpartition("#")
    base = base.strip()
    if sep and base in names and k.strip().isdigit():
        n = int(k)
        idx = [i for i, x in enumerate(names) if x == base]
        if 1 <= n <= len(idx):
            return idx[n - 1]
        shared = [f"{base}#{k}" for k in range(1, len(idx) + 1)]
        raise ValueError(f"no {base}#{n}: only {len(idx)} {what}"
                         f"{'s have' if len(idx) > 1 else ' has'} that name "
                         f"({', '.join(shared)})")
    known = ", ".join(labels(names)) or "none"
    raise ValueError(f"no {what} named {text!r} (expected one of: {known})")


# --- reading -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class LoadedState:
    """A state file read: the battle, and whether it has begun.

    A hand-written state gives a battle made with ``start=False`` and set to
    the state, not begun (``battle.turn`` is the turns already played); a
    machine-written one gives whatever ``Battle.from_state`` returns.
    """

    source: Path
    battle: Battle
    begun: bool
    scenario: Scenario | None = None
    spec: StateSpec | None = None
    goals: dict[int, str] | None = None  # combatant id -> its goal as written

    @property
    def turn(self) -> int:
        """The turn about to start (hand-written) or under way (machine-written)."""
        return self.battle.turn if self.begun else self.battle.turn + 1

    def side_name(self, side: int) -> str:
        return self.scenario.side_name(side) if self.scenario else f"side {side}"


def load_state(path: str | Path, *, seed: int | None = None) -> Battle:
    """A battle from a state file, begun: at its first decision (or over).

    ``seed`` seeds the dice. Errors are one-line ConfigErrors naming the file
    and the key.
    """
    loaded = read_state(path, seed=seed)
    if not loaded.begun:
        loaded.battle.begin()
    return loaded.battle


def read_state(path: str | Path, *, seed: int | None = None) -> LoadedState:
    """Read and check a state file; a hand-written state's battle is not begun yet."""
    p = Path(path)
    data = _read(p)
    if isinstance(data, dict) and data.get("format") == STATE_FORMAT:
        return LoadedState(p, _from_machine_state(p, data, seed), True)
    spec = validate(StateSpec, data, p)
    scenario = _scenario(p, spec.scenario)
    if spec.turn > scenario.turn_limit:
        raise ConfigError(
            f"{p}: turn: {spec.turn} is past the scenario's turn limit of {scenario.turn_limit}"
        )
    fighters, first_names = _fighters(p, spec, scenario)
    battle = Battle(
        fighters, seed=seed, rules=scenario.rules, turn_limit=scenario.turn_limit,
        field=scenario.field, ambush=scenario.ambush if spec.turn == 1 else (), start=False,
    )
    resolver = _Resolver(p, spec, scenario, battle.combatants, first_names)
    apply_standing(battle, resolver.standing())
    goals = dict(scenario.goals)
    for written, st in spec.combatants.items():
        if st.goal is not None:
            goals[resolver.who(written, f"combatants.{written}")] = st.goal
    return LoadedState(p, battle, False, scenario, spec, goals)


def _fighters(p: Path, spec: StateSpec, scenario: Scenario) -> tuple[list[Fighter], list[str]]:
    """The scenario's fighters with the sheets the state swaps (``sheet``) and the
    combatants it adds (``add``), and the names each was first known by: the scenario's
    (or the added sheet's) name, by which ``combatants`` may still name a swapped one."""
    fighters = list(scenario.fighters)
    first = [f.stats.name for f in fighters]
    total = len(fighters) + len(spec.add)
    if total > MAX_COMBATANTS:
        raise ConfigError(f"{p}: add: {total} combatants, at most {MAX_COMBATANTS} in a fight")
    for n, c in enumerate(spec.add):
        stats = _sheet(p, c.sheet, f"add.{n}.sheet")
        fighters.append(Fighter(stats, c.side, c.at[0], c.at[1], c.prone, c.blinded))
        first.append(stats.name)
    swapped: dict[int, str] = {}
    for written, st in spec.combatants.items():
        if st.sheet is None:
            continue
        key = f"combatants.{written}"
        try:
            cid = _find(written, first, "combatant")
        except ValueError as exc:
            raise ConfigError(f"{p}: {key}: {exc}") from None
        if cid in swapped:
            raise ConfigError(f"{p}: {key}.sheet: its sheet is already given at "
                              f"combatants.{swapped[cid]}")
        swapped[cid] = written
        fighters[cid] = replace(fighters[cid], stats=_sheet(p, st.sheet, f"{key}.sheet"))
    sides = {f.side for f in fighters}
    if len(sides) < 2:
        raise ConfigError(f"{p}: add: every combatant is on side {sides.pop()}: a fight "
                          "needs two sides")
    rules = scenario.rules
    changed = [(f"combatants.{w}.sheet", fighters[cid]) for cid, w in swapped.items()] + [
        (f"add.{n}.sheet", f) for n, f in enumerate(fighters[len(scenario.fighters):])]
    for key, f in changed:
        for w in f.stats.weapons:
            if w.cls is WeaponClass.FIREARM and not rules.firearms_allowed:
                raise ConfigError(f"{p}: {key}: {w.name} is a firearm, not allowed under the "
                                  f"{rules.name} rules")
    return fighters, first


def _sheet(p: Path, written: str, key: str) -> StatBlock:
    """A stat block a state file names: a file beside the state file, under ``configs/``
    (``characters/thug.yaml``) or from the current folder, or a shipped sheet's name."""
    cand = Path(written)
    if not cand.is_absolute():
        for base in (p.parent, config_dir()):
            if (base / cand).is_file():
                cand = base / cand
                break
    try:
        return load_stat_block(cand if cand.is_file() else written)
    except ConfigError as exc:
        raise ConfigError(f"{p}: {key}: {exc}") from None


def _read(p: Path) -> Any:
    if p.suffix.lower() != ".json":
        return load_yaml(p)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{p}: file not found") from None
    except OSError as exc:
        raise ConfigError(f"{p}: cannot read ({exc.strerror})") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{p}: not a text file (byte {exc.start} is not UTF-8); "
                          "expected JSON") from None
    try:
        return json.loads(text, object_pairs_hook=_unique_keys)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{p}: invalid JSON at line {exc.lineno}: {exc.msg}") from None
    except _DuplicateKey as exc:
        raise ConfigError(f"{p}: invalid JSON: duplicate key {exc.args[0]!r}") from None
    except RecursionError:
        raise ConfigError(f"{p}: invalid JSON: nested too deeply") from None


class _DuplicateKey(Exception):
    """A JSON object that repeats a key (the last would win silently)."""


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in pairs:
        if k in out:
            raise _DuplicateKey(k)
        out[k] = v
    return out


def _from_machine_state(p: Path, data: dict[str, Any], seed: int | None) -> Battle:
    from_state = getattr(Battle, "from_state", None)
    if from_state is None:
        raise ConfigError(
            f"{p}: format: a machine-written state ({STATE_FORMAT}) needs "
            "Battle.from_state, which this version of vtm_sim lacks"
        )
    try:
        battle: Battle = from_state(data, seed=seed)
    except ConfigError as exc:
        raise ConfigError(f"{p}: {exc}") from None
    except (KeyError, TypeError, ValueError) as exc:
        raise ConfigError(f"{p}: not a readable {STATE_FORMAT} state ({exc})") from None
    for n, c in enumerate(getattr(battle, "combatants", ())):  # (a test's stand-in has none)
        for axis, v in (("x", c.x), ("y", c.y)):
            if not -MAX_YARDS <= v <= MAX_YARDS:  # also false for nan
                raise ConfigError(f"{p}: combatants.{n}.{axis}: expected a finite number of "
                                  f"yards from -{MAX_YARDS:g} to {MAX_YARDS:g} (got {v!r})")
    return battle


def _scenario(p: Path, name: str) -> Scenario:
    """A shipped scenario by name, or a file (relative to the state file's folder first)."""
    cand = Path(name)
    if cand.suffix in (".yaml", ".yml") and not cand.is_absolute():
        beside = p.parent / cand
        if beside.exists():
            name = str(beside)
    try:
        return load_scenario(name)
    except ConfigError as exc:
        raise ConfigError(f"{p}: scenario: {exc}") from None


# --- checking a file against its scenario --------------------------------------------


class _Resolver:
    """Turns a :class:`StateSpec` into a :class:`Standing`, checking every key."""

    def __init__(self, path: Path, spec: StateSpec, scenario: Scenario,
                 fresh: Sequence[Combatant], first_names: Sequence[str] = ()) -> None:
        self.path = path
        self.spec = spec
        self.scenario = scenario
        self.fresh = fresh
        self.names = [c.name for c in fresh]
        # a combatant whose sheet the state swaps may still go by its scenario's name
        self.first_names = list(first_names) or self.names
        self.labels = labels(self.names)
        self.zones = scenario.field.cover
        self.centred: dict[int, CoverZone] = {}  # placed by ``cover`` alone, at its centre

    def fail(self, key: str, message: str) -> ConfigError:
        return ConfigError(f"{self.path}: {key}: {message}")

    def who(self, written: str, key: str) -> int:
        try:
            return _find(written, self.names, "combatant")
        except ValueError as exc:
            if self.first_names != self.names:
                try:
                    return _find(written, self.first_names, "combatant")
                except ValueError:
                    pass
            raise self.fail(key, str(exc)) from None

    def weapon(self, c: Combatant, written: str, key: str, *, unarmed: bool = False) -> int:
        names = [w.name for w in c.stats.weapons]
        try:
            return _find(written, names, "weapon")
        except ValueError as exc:
            msg = str(exc)
            if msg.startswith("no weapon named"):
                carried = ", ".join(labels(names)) or "no weapons"
                also = f", or {UNARMED}" if unarmed else ""
                msg = (f"no weapon {written.strip()!r} on {self.labels[c.id]}'s sheet "
                       f"(it carries {carried}{also})")
            raise self.fail(key, msg) from None

    def standing(self) -> Standing:
        spec = self.spec
        rows: dict[int, dict[str, Any]] = {}
        keys: dict[int, str] = {}
        explicit: set[int] = set()  # positions given (at or cover)
        grapples: list[tuple[str, int, int, str]] = []  # kind, starter, partner, key
        facing_names: dict[int, tuple[int, str]] = {}
        for written, st in spec.combatants.items():
            key = f"combatants.{written}"
            cid = self.who(written, key)
            if cid in keys:
                raise self.fail(key, f"{self.labels[cid]} is already given as {keys[cid]!r}")
            keys[cid] = written
            rows[cid] = self.combatant(cid, st, key, grapples, explicit, facing_names)
        out = {cid for cid, row in rows.items() if self.out_of_fight(cid, row)}
        self.check_grapples(grapples, rows, out)
        self.place_grapplers(grapples, rows, explicit)
        taken = tuple(o.name for o in self.scenario.field.obstacles)
        added = obstacles_of(spec.obstacles, self.path, taken=taken)
        self.check_places(rows, keys, out, added)
        for cid, (target, key) in facing_names.items():
            rows[cid]["facing"] = self.face(cid, target, rows, key)
        for cid, row in rows.items():
            aim = row.get("aim")
            if aim is not None and aim[0] in out:
                raise self.fail(f"combatants.{keys[cid]}.aim.target",
                                f"{self.labels[aim[0]]} is out of the fight")
        self.check_chases(rows, keys, out)
        initiative = self.initiative(out)
        return Standing(
            turn=spec.turn, initiative=initiative,
            combatants=[Override(id=cid, **rows[cid]) for cid in sorted(rows)],
            obstacles=[(o.name, o.kind.value, o.x1, o.y1, o.x2, o.y2, o.feet, o.detour)
                       for o in added],
        )

    def combatant(self, cid: int, st: CombatantState, key: str,
                  grapples: list[tuple[str, int, int, str]], explicit: set[int],
                  facing_names: dict[int, tuple[int, str]]) -> dict[str, Any]:
        """What a state file says of combatant ``cid`` (at ``key``), checked against its
        sheet and the field, as the row :func:`apply_standing` applies; its grapples,
        whether it was placed and whom it faces go to the lists given."""
        row: dict[str, Any] = {}
        self._track(cid, st, key, row)
        wielding = self._weapons(cid, st, key, row)
        self._place(cid, st, key, row, explicit)
        self._conditions(cid, st, key, row, wielding, grapples, facing_names)
        return row

    def _track(self, cid: int, st: CombatantState, key: str, row: dict[str, Any]) -> None:
        """Damage, Willpower and blood, each within what the sheet holds."""
        c = self.fresh[cid]
        stats = c.stats
        name = self.labels[cid]
        if st.damage is not None:
            d = st.damage
            total = d.bashing + d.lethal + d.aggravated
            size = c.health.size
            if total > size:
                lv = c.health.levels
                raise self.fail(
                    f"{key}.damage",
                    f"{total} boxes filled, but the health track has {size} "
                    f"({lv[0].name} to {lv[-1].name})")
            row["damage"] = (d.bashing, d.lethal, d.aggravated)
        if st.willpower is not None:
            if st.willpower > stats.willpower:
                raise self.fail(f"{key}.willpower",
                                f"{st.willpower} points left, but {name}'s sheet has "
                                f"Willpower {stats.willpower}")
            row["willpower"] = st.willpower
        if st.blood is not None:
            if not stats.blood_pool:
                raise self.fail(f"{key}.blood",
                                f"{name} is a {stats.kind.value}: no blood pool "
                                "(only vampires and ghouls take blood)")
            if st.blood > stats.blood_pool:
                raise self.fail(f"{key}.blood",
                                f"{st.blood} points, but the blood pool of {name} holds at "
                                f"most {stats.blood_pool}")
            row["blood"] = st.blood

    def _weapons(self, cid: int, st: CombatantState, key: str, row: dict[str, Any]) -> int:
        """Rounds left, jammed and lost weapons, the one in hand (returned: -1 unarmed)."""
        c = self.fresh[cid]
        stats = c.stats
        ammo = []
        for wname, n in st.ammo.items():
            k = f"{key}.ammo.{wname}"
            i = self.weapon(c, wname, k)
            w = stats.weapons[i]
            if not w.magazine:
                raise self.fail(k, f"the {w.name} has no magazine (ammo is for firearms, "
                                "bows and crossbows)")
            if n > w.magazine:
                raise self.fail(k, f"{n} rounds, but the {w.name} holds at most {w.magazine}")
            ammo.append((i, n))
        if ammo:
            row["ammo"] = ammo
        for field in ("jammed", "lost"):
            idx = []
            for n, wname in enumerate(getattr(st, field)):
                i = self.weapon(c, wname, f"{key}.{field}.{n}")
                if i not in idx:
                    idx.append(i)
            if idx:
                row[field] = idx
        wielding = c.wielding
        if st.wielding is not None:
            k = f"{key}.wielding"
            if st.wielding.strip() == UNARMED:
                wielding = -1
            else:
                wielding = self.weapon(c, st.wielding, k, unarmed=True)
                if wielding in row.get("lost", ()):
                    raise self.fail(k, f"the {st.wielding} is listed as lost")
            row["wielding"] = wielding
        elif wielding in row.get("lost", ()):
            wielding = -1
        return wielding

    def _place(self, cid: int, st: CombatantState, key: str, row: dict[str, Any],
               explicit: set[int]) -> None:
        """Where it stands: ``at``, or the centre of the cover zone it is in."""
        at = st.at
        if st.cover is not None:
            k = f"{key}.cover"
            try:
                z = self.zones[_find(st.cover, [z.name for z in self.zones], "cover zone")]
            except ValueError as exc:
                raise self.fail(k, str(exc)) from None
            if at is None:
                at = (z.x, z.y)
                self.centred[cid] = z
            elif not z.contains(*at):
                raise self.fail(f"{key}.at",
                                f"{list(at)} is outside the cover zone {z.name!r} "
                                f"(centre {[z.x, z.y]}, radius {z.radius})")
        if at is not None:
            row["at"] = (float(at[0]), float(at[1]))
            explicit.add(cid)

    def _conditions(self, cid: int, st: CombatantState, key: str, row: dict[str, Any],
                    wielding: int, grapples: list[tuple[str, int, int, str]],
                    facing_names: dict[int, tuple[int, str]]) -> None:
        """Prone, blinded, staked, stunned, aiming, grappling, fleeing or pursuing, facing."""
        c = self.fresh[cid]
        stats = c.stats
        name = self.labels[cid]
        if st.prone is not None:
            row["prone"] = st.prone
        if st.blinded is not None:
            row["blinded"] = st.blinded
        if st.staked:
            if stats.kind is not Kind.VAMPIRE:
                raise self.fail(f"{key}.staked",
                                f"only a vampire can be staked (CPX-5); {name} is a "
                                f"{stats.kind.value}")
            row["staked"] = True
        if st.stunned:
            row["stunned"] = True
        if st.aim is not None:
            row["aim"] = self.aim(c, st.aim, wielding, key)
        for field, kind in (("clinch", "clinch"), ("holding", "hold"), ("held_by", "hold")):
            written = getattr(st, field)
            if written is None:
                continue
            k = f"{key}.{field}"
            other = self.enemy(cid, written, k, "grapple")
            pair = (other, cid) if field == "held_by" else (cid, other)
            grapples.append((kind, pair[0], pair[1], k))
        if st.fleeing is not None:
            row["fleeing"] = (st.fleeing.successes, st.fleeing.turns)
        if st.pursuing is not None:
            k = f"{key}.pursuing.target"
            p = st.pursuing
            row["pursuing"] = (self.enemy(cid, p.target, k, "run after"), p.successes, p.turns)
        if isinstance(st.facing, str):
            facing_names[cid] = (self.enemy(cid, st.facing, f"{key}.facing", "face", foe=False),
                                 f"{key}.facing")
        elif st.facing is not None:
            dx, dy = st.facing
            norm = math.hypot(dx, dy)
            if norm == 0:
                raise self.fail(f"{key}.facing", "a direction [dx, dy] must not be [0, 0]")
            row["facing"] = (dx / norm, dy / norm)

    def enemy(self, cid: int, written: str, key: str, verb: str, *, foe: bool = True) -> int:
        other = self.who(written, key)
        if other == cid:
            raise self.fail(key, f"a combatant cannot {verb} itself")
        c, o = self.fresh[cid], self.fresh[other]
        if foe and o.side == c.side:
            raise self.fail(key, f"{self.labels[other]} is on the same side "
                            f"({self.scenario.side_name(c.side)})")
        return other

    def aim(self, c: Combatant, aim: AimSpec, wielding: int, key: str) -> tuple[int, int]:
        target = self.enemy(c.id, aim.target, f"{key}.aim.target", "aim at")
        perception = c.stats.attr("perception")
        if aim.dice > perception:
            raise self.fail(f"{key}.aim.dice",
                            f"{aim.dice} dice, but aiming adds at most Perception ({perception})")
        w = c.stats.weapons[wielding] if wielding >= 0 else None
        if w is None or w.cls not in SHOOTING:
            held = "nothing" if w is None else f"the {w.name}"
            raise self.fail(f"{key}.aim", f"{self.labels[c.id]} has {held} in hand: aiming "
                            "needs a firearm, bow or crossbow (RNG-7)")
        return (target, aim.dice)

    def check_chases(self, rows: dict[int, dict[str, Any]], keys: dict[int, str],
                     out: set[int]) -> None:
        """MOVE-4: a quarry is able and in no grapple; a pursuer runs after a quarry and
        has not yet passed its total (it would have caught up)."""
        grappled: set[int] = set()
        for cid, row in rows.items():
            for k in ("clinch", "holding"):
                if row.get(k) is not None:
                    grappled |= {cid, row[k]}
        for cid, row in rows.items():
            fl, pu = row.get("fleeing"), row.get("pursuing")
            if fl is None and pu is None:
                continue
            key = f"combatants.{keys[cid]}"
            if fl is not None:
                if cid in out:
                    raise self.fail(f"{key}.fleeing", f"{self.labels[cid]} is out of the "
                                    "fight: a chase ends when the quarry is down or staked")
                if cid in grappled:
                    raise self.fail(f"{key}.fleeing", f"{self.labels[cid]} is in a grapple: "
                                    "a quarry runs free (MOVE-4)")
                if pu is not None:
                    raise self.fail(f"{key}.pursuing", f"{self.labels[cid]} is fleeing: a "
                                    "quarry cannot run after anyone")
            if pu is None:
                continue
            k = f"{key}.pursuing"
            target, total, _rolls = pu
            if cid in out:
                raise self.fail(k, f"{self.labels[cid]} is out of the fight")
            quarry = rows.get(target, {}).get("fleeing")
            if quarry is None:
                raise self.fail(f"{k}.target", f"{self.labels[target]} is not fleeing: give "
                                f"it fleeing: {{successes: N}} too")
            if total > quarry[0]:
                raise self.fail(f"{k}.successes", f"{total}, but past the quarry's "
                                f"{quarry[0]} it would have caught up: at most {quarry[0]}")

    def check_places(self, rows: dict[int, dict[str, Any]], keys: dict[int, str],
                     out: set[int], added: tuple[Obstacle, ...]) -> None:
        """Nobody in the fight shares a spot or stands on a wall or an obstacle's line."""
        field = replace(self.scenario.field, obstacles=self.scenario.field.obstacles + added)
        points = []
        # where the scenario puts them first: a clash is told at the position written
        first_added = len(self.scenario.fighters)
        for c in sorted(self.fresh, key=lambda c: ("at" in rows.get(c.id, {}),
                                                   c.id >= first_added)):
            if c.id in out or c.id in self.centred:
                continue  # down: another may stand over it
            if c.id in keys and "at" in rows[c.id]:
                key = f"combatants.{keys[c.id]}.at"
            elif c.id >= first_added:
                key = f"add.{c.id - first_added}.at"
            else:
                key = f"combatants.{keys.get(c.id, self.labels[c.id])}"
            points.append((key, self.labels[c.id], *self.position(c.id, rows)))
        for cid, z in self.centred.items():  # the centre, or the free spot nearest to it
            if cid in out:
                continue
            key = f"combatants.{keys[cid]}.cover"
            spots = [(z.x, z.y)] + [
                (round(z.x + r * math.cos(a * math.pi / 4), 3),
                 round(z.y + r * math.sin(a * math.pi / 4), 3))
                for r in (1.0, 0.5, z.radius) if r <= z.radius for a in range(8)]
            for x, y in spots:
                if misplaced([*points, (key, self.labels[cid], x, y)], field) is None:
                    break
            rows[cid]["at"] = (x, y)
            points.append((key, self.labels[cid], x, y))
        bad = misplaced(points, field)
        if bad is not None:
            raise self.fail(*bad)

    def out_of_fight(self, cid: int, row: dict[str, Any]) -> bool:
        dmg = row.get("damage")
        return bool(row.get("staked")) or (
            dmg is not None and sum(dmg) >= self.fresh[cid].health.size)

    def check_grapples(self, grapples: list[tuple[str, int, int, str]],
                       rows: dict[int, dict[str, Any]], out: set[int]) -> None:
        seen: dict[int, tuple[str, int, int, str]] = {}
        kept: list[tuple[str, int, int, str]] = []
        for g in grapples:
            kind, a, b, key = g
            for x in (a, b):
                if x in out:
                    raise self.fail(key, f"{self.labels[x]} is out of the fight: a grapple "
                                    "ends when either side is out or staked")
            prev = seen.get(a) or seen.get(b)
            if prev is not None:
                if prev[:3] == g[:3]:
                    continue  # holding and held_by both written: the same hold
                if kind == prev[0] == "clinch" and {a, b} == {prev[1], prev[2]}:
                    raise self.fail(key, f"the clinch is already written at {prev[3]}: write "
                                    "it once, on the one who began it")
                x = a if a in seen else b
                raise self.fail(key, f"{self.labels[x]} is already in a grapple ({prev[3]}); "
                                "one grapple at a time")
            seen[a] = seen[b] = g
            kept.append(g)
        grapples[:] = kept
        for kind, a, b, _key in kept:
            rows.setdefault(a, {})["clinch" if kind == "clinch" else "holding"] = b

    def position(self, cid: int, rows: dict[int, dict[str, Any]]) -> tuple[float, float]:
        at = rows.get(cid, {}).get("at")
        if at is not None:
            return (float(at[0]), float(at[1]))
        c = self.fresh[cid]
        return (c.x, c.y)

    def place_grapplers(self, grapples: list[tuple[str, int, int, str]],
                        rows: dict[int, dict[str, Any]], explicit: set[int]) -> None:
        """Grapplers stand within 1 yard: one without a given position steps in."""
        for _kind, a, b, key in grapples:
            pa, pb = self.position(a, rows), self.position(b, rows)
            d = math.dist(pa, pb)
            if d <= ADJACENT_YARDS + REACH_SLACK:
                continue
            if a not in explicit:
                mover, to, fro = a, pb, pa
            elif b not in explicit:
                mover, to, fro = b, pa, pb
            else:
                raise self.fail(key, f"{self.labels[a]} at {list(pa)} and {self.labels[b]} at "
                                f"{list(pb)} are {d:.1f} yards apart: a grapple needs them "
                                "within 1 yard")
            t = (d - ADJACENT_YARDS) / d
            rows.setdefault(mover, {})["at"] = (round(fro[0] + (to[0] - fro[0]) * t, 3),
                                                round(fro[1] + (to[1] - fro[1]) * t, 3))
            explicit.add(mover)

    def face(self, cid: int, target: int, rows: dict[int, dict[str, Any]],
             key: str) -> tuple[float, float]:
        (x, y), (tx, ty) = self.position(cid, rows), self.position(target, rows)
        d = math.hypot(tx - x, ty - y)
        if d == 0:
            raise self.fail(key, f"{self.labels[target]} stands on the same spot")
        return ((tx - x) / d, (ty - y) / d)

    def initiative(self, out: set[int]) -> list[tuple[int, int]] | None:
        given = self.spec.initiative
        if given is None:
            return None
        items = (
            [(n, written, None) for n, written in enumerate(given)]
            if isinstance(given, list) else [(n, w, t) for n, (w, t) in enumerate(given.items())]
        )
        totals: list[tuple[int, int]] = []
        seen: set[int] = set()
        for n, written, total in items:
            key = f"initiative.{n}" if total is None else f"initiative.{written}"
            cid = self.who(written, key)
            if cid in seen:
                raise self.fail(key, f"{self.labels[cid]} is named twice")
            if cid in out:
                raise self.fail(key, f"{self.labels[cid]} is out of the fight: no initiative")
            seen.add(cid)
            totals.append((cid, len(given) - n if total is None else total))
        if isinstance(given, list):
            missing = [self.labels[c.id] for c in self.fresh
                       if c.id not in seen and c.id not in out]
            if missing:
                raise self.fail("initiative",
                                f"the order leaves out {', '.join(missing)}: list everyone "
                                "still in the fight, or give totals (name: total)")
        return totals
