"""Every operation of the table, once: :class:`TableService` (issue 33).

A front end (``vtm-sim table``, the web page, the MCP server) opens a service on a
database and calls its methods with plain values; every method returns plain
JSON-able data (dicts, lists, strings, numbers) and raises only the errors of
:mod:`vtm_sim.table.errors` (one line each) for a bad request. No front end holds a
rule: the legal options, their labels, the suggestion, the dice and the narration
all come from here.

An encounter is its start (a machine-written state, ``Battle.to_state``, stored at
creation: no file is read again) and its steps, each one decision with the faces
entered for it, what every die drew, the events it appended and a hash of the state
after it. ``version`` is the number of steps. Opening an encounter replays its
steps from the start and checks each step's events and the last state's hash
(:class:`~vtm_sim.table.errors.TableCorrupt` if they differ); the replayed battle is
kept in memory while the database's revision of the encounter is the one it replayed
(an undo and another step elsewhere bring the version back, never the revision), so a
step costs one clone, one decision, one transaction and the narration's new lines.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import re
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec, TypeVar

from vtm_sim.core.choices import Choice, DecisionKind, choice_from_json
from vtm_sim.core.dice import RngDice
from vtm_sim.core.names import Named, find_named
from vtm_sim.errors import ConfigError, DiceError
from vtm_sim.events import Event, EventLog, InitiativeEvent, RollEvent
from vtm_sim.events.log import dumps
from vtm_sim.table.dice import TableDice
from vtm_sim.table.errors import (
    FacesNeeded,
    TableCorrupt,
    TableError,
    VersionConflict,
)
from vtm_sim.table.store import Encounter, Step, Store
from vtm_sim.text.narration import Narration

if TYPE_CHECKING:
    from vtm_sim.engine.battle import Battle

__all__ = ["DICE_MODES", "PLAYERS", "TableService", "default_db"]

PLAYERS = ("pc", "npc")  # who decides for a combatant: the Storyteller enters it, or an NPC
# who enters dice: nobody (the tool rolls every die), the players (each pc's rolls are
# entered), or everyone (every roll is entered)
DICE_MODES = ("tool", "pcs", "all")
DEFAULT_POLICY = "tactician"  # how an NPC with no policy of its own plays in ``auto``
MAX_NAME = 80

Faces = Sequence[int] | Sequence[Sequence[int]]  # one roll's faces, or one list per roll


def default_db() -> Path:
    """The database used without ``--db``: ``tables.sqlite3`` in the user's data
    directory (``platformdirs.user_data_dir("vtm-sim")``), created when first used."""
    from platformdirs import user_data_dir

    return Path(user_data_dir("vtm-sim")) / "tables.sqlite3"


def state_hash(battle: Battle) -> str:
    """sha256 of the battle's state without its log (canonical JSON)."""
    text = json.dumps(battle.to_state(log=False), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _events_text(log: EventLog, since: int) -> str:
    return "".join(dumps(e.to_json()) + "\n" for e in log.events[since:])


def _battle_from_start(text: str) -> Battle:
    from vtm_sim.engine.battle import Battle

    data = json.loads(text)
    return Battle.from_state(data, dice=TableDice(RngDice.from_json(data["dice"])))


def _rolls_of(battle: Battle, dice: TableDice) -> list[dict[str, Any]]:
    """What each draw of the step was: whose roll, for what (from the event after it)."""
    events = battle.log.events
    names = _labels(battle)
    out: list[dict[str, Any]] = []
    last = -1
    for d in dice.draws:
        who, what = -1, "roll"
        for i in range(max(d.at, 0), len(events)):
            ev = events[i]
            if isinstance(ev, RollEvent):
                who, what = ev.who, ev.what
            elif isinstance(ev, InitiativeEvent) and ev.die is not None:
                who, what = ev.who, "initiative"
            else:
                continue
            if i == last:
                what += " (exploding 10s)"  # DICE-5: more dice for the same roll
            last = i
            break
        out.append({"who": names[who] if who >= 0 else None, "who_id": who, "what": what,
                    "dice": d.dice, "faces": list(d.faces), "entered": d.entered})
    return out


def _labels(battle: Battle) -> list[str]:
    from vtm_sim.files.state_files import labels

    return labels([c.name for c in battle.combatants])


def _option_labels(battle: Battle) -> list[str]:
    """The pending options in the Storyteller's words, made unique (``#2``...)."""
    from vtm_sim.analysis.wording import describe

    p = battle.pending
    if p is None:
        return []
    words = [describe(battle, p.actor, o) for o in p.options]
    seen: dict[str, int] = {}
    for w in words:
        seen[w] = seen.get(w, 0) + 1
    k: dict[str, int] = {}
    out = []
    for w in words:
        if seen[w] > 1:
            k[w] = k.get(w, 0) + 1
            out.append(f"{w} #{k[w]}")
        else:
            out.append(w)
    return out


def _slug(label: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", label.lower()) or ["option"]


def short_names(labels: Sequence[str]) -> list[str]:
    """A short name for each label: the fewest of its first words (lower case, joined by
    ``-``) that no other label starts with; the whole slug when none are that short."""
    slugs = [_slug(lb) for lb in labels]
    out: list[str] = []
    for i, sl in enumerate(slugs):
        pick = sl
        for n in range(1, len(sl) + 1):
            head = sl[:n]
            if not any(j != i and other[:n] == head for j, other in enumerate(slugs)):
                pick = head
                break
        out.append("-".join(pick))
    seen: dict[str, int] = {}
    for i, s in enumerate(out):
        if s in seen or out.count(s) > 1:
            seen[s] = seen.get(s, 0) + 1
            out[i] = f"{s}-{seen[s]}"
    return out


def _parse_rolls(faces: Faces | None) -> list[list[int]]:
    """Entered faces as one list per roll, every face checked (1-10)."""
    if faces is None:
        return []
    rolls: list[list[int]]
    if all(isinstance(f, int) for f in faces):
        rolls = [[int(f) for f in faces]]  # type: ignore[arg-type]
    else:
        rolls = []
        for r in faces:
            if isinstance(r, int | str | bytes):
                raise TableError("faces: expected one list of faces per roll, or one list "
                                 f"of faces (got {faces!r})")
            rolls.append(list(r))
    for k, r in enumerate(rolls, 1):
        if not r:
            raise TableError(f"faces: roll {k} has no faces")
        for f in r:
            if isinstance(f, bool) or not isinstance(f, int) or not 1 <= f <= 10:
                raise TableError(f"faces: roll {k}: {f!r} is not a d10 face (expected 1-10)")
    return rolls


def parse_faces(text: str) -> list[list[int]]:
    """``"8 7 3/10,2"`` -> ``[[8, 7, 3], [10, 2]]``: rolls split by ``/`` or ``;``, faces by
    commas or spaces (``0`` stands for a 10, as dice show it)."""
    rolls: list[list[int]] = []
    for part in re.split(r"[/;]", text):
        items = [t for t in re.split(r"[,\s]+", part.strip()) if t]
        if not items:
            raise TableError(f"--faces {text!r}: an empty roll (expected faces such as "
                             "8,7,3 and rolls split by /)")
        try:
            rolls.append([10 if t == "0" else int(t) for t in items])
        except ValueError:
            raise TableError(f"--faces {text!r}: expected d10 faces such as 8,7,3 (rolls "
                             "split by /)") from None
    return _parse_rolls(rolls)


P = ParamSpec("P")
R = TypeVar("R")


def _locked(method: Callable[Concatenate[TableService, P], R]
            ) -> Callable[Concatenate[TableService, P], R]:
    """One call at a time on a service (a web server's threads share one)."""

    def call(self: TableService, /, *args: P.args, **kwargs: P.kwargs) -> R:
        with self._lock:
            return method(self, *args, **kwargs)

    functools.update_wrapper(call, method)  # its name and docstring (the API docs read it)
    return call


@dataclass(slots=True)
class _Live:
    """An encounter replayed: its battle at ``version``, kept while the database agrees."""

    enc: Encounter
    version: int
    battle: Battle
    narration: Narration  # fed every event so far
    lines: list[str]  # what it tells so far


@dataclass(frozen=True, slots=True)
class _Done:
    """A step carried out on a copy, not stored yet."""

    battle: Battle
    step: Step
    events: list[Event]  # the events it added


class TableService:
    """The encounters of one SQLite database and every operation on them.

    Args:
        db: the database file (created with its folder if missing; default
            :func:`default_db`).

    Every method naming an encounter raises
    :class:`~vtm_sim.table.errors.UnknownTable` when there is none of that name.
    Methods that change an encounter take ``version``: the version the caller saw;
    when the encounter has moved on since, nothing changes and
    :class:`~vtm_sim.table.errors.VersionConflict` carries the current version.
    ``None`` skips the check (a single Storyteller at one terminal).

    One service may be shared by threads (its calls take turns; a suggestion thinks
    outside the turn) and several processes may share one database file.
    """

    def __init__(self, db: str | Path | None = None) -> None:
        self.store = Store(default_db() if db is None else db)
        self._live: dict[str, _Live] = {}
        self._lock = threading.RLock()

    @_locked
    def close(self) -> None:
        """Close the database (the service is not usable after)."""
        self._live.clear()
        self.store.close()

    def __enter__(self) -> TableService:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- encounters ----------------------------------------------------------------
    @_locked
    def new(self, name: str, *, scenario: str | None = None,
            state: str | Path | Mapping[str, Any] | None = None,
            sheets: Sequence[str | Mapping[str, Any]] = (),
            foes: Sequence[str | Mapping[str, Any]] = (), distance: float = 10.0,
            damage: Sequence[str | Path | Mapping[str, Any]] = (), pcs: Sequence[str] = (),
            seed: int = 0, dice: str = "tool") -> dict[str, Any]:
        """Start an encounter from exactly one of: a scenario (a name or a file), a state
        (a file, or its data: hand-written or machine-written), or stat blocks (``sheets``
        on side 0 at x=0, ``foes`` on side 1 at x=``distance``, each a file, a shipped
        sheet's name, or a stat block's data as ``vtm-sim import foundry`` makes it).

        Data instead of files is for a front end given uploads (a web page, an MCP
        tool): no path of a request need be opened. A hand-written state given as data
        names a shipped scenario and shipped sheets.

        Args:
            name: the encounter's name (unique in the database; 1-80 printable characters).
            damage: what ``vtm-sim import foundry --damage-out`` writes (a file, or its
                data): each names a combatant (``name``) and its ``damage``,
                ``willpower``, ``blood``.
            pcs: the combatants the players run (``pc``); everyone else is an ``npc``.
            seed: seeds the dice the tool rolls (stored with the encounter); a
                machine-written state goes on with its own dice instead.
            dice: who enters dice, one of :data:`DICE_MODES`.

        Returns:
            :meth:`show` of the new encounter (version 0: at its first decision).
        """
        from vtm_sim.files.names import find_combatant

        _check_name(name)
        if dice not in DICE_MODES:
            raise TableError(f"--dice {dice!r}: expected one of {', '.join(DICE_MODES)}")
        given = (scenario is not None) + (state is not None) + bool(sheets or foes)
        if given != 1:
            raise TableError("table new: give exactly one of --scenario, --state, or stat "
                             "blocks (--sheet and --foe)")
        battle, source, goals = _start(scenario=scenario, state=state, sheets=sheets,
                                       foes=foes, distance=distance, seed=seed)
        for path in damage:
            _apply_damage(battle, path)
        if not battle.log.events:  # not begun: the first initiative is rolled now
            battle.begin()
        players = ["npc"] * len(battle.combatants)
        for written in pcs:
            players[find_combatant(battle, written, "--pc")] = "pc"
        start = json.dumps(battle.to_state(log=True), separators=(",", ":"))
        again = _battle_from_start(start)  # what a replay starts from, exactly
        settings = {"players": players, "policies": [None] * len(players), "dice": dice,
                    "seed": seed, "goals": {str(k): v for k, v in goals.items()}}
        self.store.create(name, source, start, state_hash(again), settings)
        self._live.pop(name, None)
        return self.show(name)

    @_locked
    def tables(self) -> list[dict[str, Any]]:
        """Every encounter: ``name``, ``scenario``, ``turn``, ``version``, ``over``,
        ``pending`` (who decides, or null), ``created``, ``updated``; by name."""
        out = []
        for name in self.store.names():
            live = self._open(name)
            b = live.battle
            p = b.pending
            out.append({
                "name": name, "scenario": live.enc.source.get("name"), "turn": b.turn,
                "version": live.version, "over": p is None,
                "pending": None if p is None else {
                    "actor": _labels(b)[p.actor], "decision": p.kind.value},
                "created": _iso(live.enc.created), "updated": _iso(live.enc.updated)})
        return out

    @_locked
    def delete(self, name: str) -> None:
        """Remove an encounter and its steps."""
        self.store.delete(name)
        self._live.pop(name, None)

    @_locked
    def fork(self, name: str, new: str, *, at: int | None = None) -> dict[str, Any]:
        """A "what if" copy of ``name`` under the name ``new``: the same start, the steps up
        to ``at`` (default: all), the same settings; the two go on apart. Returns its
        :meth:`show`."""
        _check_name(new)
        live = self._open(name)
        upto = live.version if at is None else at
        if not 0 <= upto <= live.version:
            raise TableError(f"--at {upto}: expected a version from 0 to {live.version}")
        enc = live.enc
        source = {**enc.source, "forked_from": name, "forked_at": upto}
        self.store.create(new, source, enc.start, enc.start_hash, enc.settings,
                          self.store.steps(enc.id, upto))
        return self.show(new)

    @_locked
    def export(self, name: str) -> dict[str, Any]:
        """The battle as it stands, as a machine-written state (``Battle.to_state``): write
        it as JSON and ``vtm-sim fight --state FILE`` (or ``load_state``) continues it with
        the encounter's own dice stream."""
        return self._open(name).battle.to_state(log=True)

    # --- reading ------------------------------------------------------------------------
    @_locked
    def show(self, name: str) -> dict[str, Any]:
        """Everything a front end draws, as JSON.

        Keys: ``name``, ``scenario``, ``turn``, ``turn_limit``, ``version``, ``over``,
        ``result`` (who won and why, when over), ``dice`` (the dice setting),
        ``initiative`` (names, first to act first), ``pending`` (null when over, else
        ``actor``, ``actor_id``, ``player``, ``decision``, ``options``: the labels,
        ``choices``: each ``index``, ``label``, ``short``), ``combatants`` (each
        ``name``, ``id``, ``side``, ``player``, ``policy``, ``health`` (the health level's
        name), ``status``, ``damage``, ``track``, ``penalty``, ``blood``, ``blood_pool``,
        ``willpower``, ``willpower_max``, ``weapons`` (rounds, in hand, jammed, lost),
        ``conditions``, ``at``) and ``narration`` (the fight so far, in lines).
        """
        live = self._open(name)
        return _show(live)

    @_locked
    def options(self, name: str) -> list[dict[str, Any]]:
        """The pending decision's legal options: ``index``, ``label`` (the Storyteller's
        words, unique), ``short`` (a short name to type) and ``choice`` (the engine's
        choice as JSON). Empty when the fight is over."""
        return _options(self._open(name).battle)

    @_locked
    def steps(self, name: str) -> list[dict[str, Any]]:
        """The steps so far: ``version``, ``turn``, ``actor``, ``decision``, ``label``,
        ``by`` (``storyteller``, ``suggestion``, ``policy:NAME``) and ``rolls`` (each
        ``who``, ``what``, ``dice``, ``faces``, ``entered``)."""
        live = self._open(name)
        names = _labels(live.battle)
        return [{"version": s.version, "turn": s.turn, "actor": names[s.actor],
                 "decision": s.decision, "label": s.label, "by": s.by, "rolls": s.rolls}
                for s in self.store.steps(live.enc.id)]

    def suggest(self, name: str, *, seconds: float | None = 2.0, rollouts: int | None = None,
                policy: str = "auto", seed: int = 0, workers: int = 1,
                progress: Callable[[int], None] | None = None) -> dict[str, Any]:
        """What the pending decision's combatant should choose, for its goal
        (:func:`vtm_sim.analysis.advice.advise` on the pending decision).

        Returns ``actor``, ``decision``, ``goal``, ``goal_words``, ``index`` and ``label``
        (the recommended option, as :meth:`options` numbers it), ``reason``, ``ranked``
        (each ``index``, ``label``, ``reason``, ``value``), ``rollouts``, ``seconds``,
        and ``advice`` (the whole answer as ``vtm-sim suggest --json`` prints it).
        ``workers`` processes search (default 1: a shared machine); ``progress`` is
        called with the simulated fights so far while it thinks. The search runs outside
        the service's turn: steps go on meanwhile (``version`` says which one it
        answers).
        """
        from vtm_sim.analysis.advice import advise
        from vtm_sim.analysis.goals import make_goal
        from vtm_sim.core.goals import GoalSpec

        with self._lock:  # a step replaces the live battle, never changes it: think outside
            live = self._open(name)
            b = live.battle
            version = live.version
            goals = live.enc.settings.get("goals", {})
        p = b.pending
        if p is None:
            raise TableError(f"table {name!r}: the fight is over: nothing to suggest")
        written = goals.get(str(p.actor), "win")
        spec = GoalSpec.parse(written, f"goal of {_labels(b)[p.actor]}")
        goal = make_goal(spec, b, p.actor, "goal")
        advice = advise(b, p.actor, playout=_playout(policy, b, seed), policy_name=policy,
                        goal=goal, goal_text=str(spec), seconds=seconds, rollouts=rollouts,
                        seed=seed, kind=p.kind, workers=workers, progress=progress)
        labels = _option_labels(b)

        def index(c: Choice) -> int:
            return p.options.index(c)

        rec = advice.recommended
        return {
            "actor": advice.npc, "decision": p.kind.value, "version": version,
            "goal": advice.goal, "goal_words": advice.goal_words,
            "index": index(rec.choice), "label": labels[index(rec.choice)],
            "reason": rec.reason,
            "ranked": [{"index": index(o.choice), "label": labels[index(o.choice)],
                        "reason": o.reason, "value": round(o.value, 4),
                        "tied_with_best": o.tied_with_best} for o in advice.options],
            "rollouts": advice.rollouts, "seconds": round(advice.seconds, 3),
            "advice": advice.to_json(),
        }

    @_locked
    def verify(self, name: str) -> dict[str, Any]:
        """Replay the encounter from its start, as a fresh open does, and check every step
        (raises :class:`~vtm_sim.table.errors.TableCorrupt` on a difference). Returns
        ``version``, ``steps`` and ``log_sha256`` (the event log's hash)."""
        self._live.pop(name, None)
        live = self._open(name)
        return {"version": live.version, "steps": live.version,
                "log_sha256": live.battle.log.sha256()}

    @_locked
    def log(self, name: str) -> str:
        """The whole event log as JSONL (what ``vtm-sim replay`` reads)."""
        return self._open(name).battle.log.jsonl()

    # --- changing ----------------------------------------------------------------------
    @_locked
    def choose(self, name: str, option: str | int, *, faces: Faces | None = None,
               version: int | None = None, by: str = "storyteller") -> dict[str, Any]:
        """Answer the pending decision with ``option`` and append the step.

        Args:
            option: an index of :meth:`options` (an int, or digits), a label, a short
                name, or a unique prefix of one (whatever the case).
            faces: entered faces, one list per roll (a flat list is one roll), every
                face 1-10, each roll's count its dice. They go, in order, to the rolls
                the dice setting says are entered: the PCs' rolls (``pcs``), every roll
                (``all``), or with ``tool`` the step's first rolls. Every other roll is
                rolled by the tool; an entered roll without faces is
                :class:`~vtm_sim.table.errors.FacesNeeded`, naming it, and nothing
                changes.
            version: the version the caller saw (see the class).
            by: who made the choice, recorded with the step.

        Returns:
            ``step`` (``version``, ``label``, ``rolls``, ``narration``: the lines it
            added) and ``table`` (:meth:`show` after it).
        """
        live = self._open(name)
        self._check_version(live, version)
        rolls = _parse_rolls(faces)
        idx = _find_option(live.battle, option)
        done = _step(live, idx, rolls, by, check=True)
        told = self._commit(live, done)
        return {"step": _step_json(done, told), "table": _show(live)}

    @_locked
    def auto(self, name: str, *, policy: str | None = None, version: int | None = None,
             max_steps: int = 1000) -> dict[str, Any]:
        """Let the NPCs play until a PC must decide (or the fight ends): each NPC by its
        own policy (:meth:`set_player`), else ``policy``, else ``tactician``; one step
        per decision. Returns ``steps`` (each as :meth:`choose`'s ``step``), ``stopped``
        (why it stopped), ``proposed`` and ``table``. When a roll of an NPC's step must
        be entered, it stops there and ``proposed`` is the policy's pick (``index``,
        ``label``, ``by``) with the ``roll`` asked for (as
        :class:`~vtm_sim.table.errors.FacesNeeded`'s): choose it with the faces."""
        from vtm_sim.policies.registry import make_policy, scenario_of

        live = self._open(name)
        self._check_version(live, version)
        settings = live.enc.settings
        made: dict[tuple[int, str], Any] = {}
        out: list[dict[str, Any]] = []
        stopped = ""
        proposed: dict[str, Any] | None = None
        scenario = None
        while len(out) < max_steps:
            b = live.battle
            p = b.pending
            if p is None:
                stopped = "the fight is over"
                break
            if settings["players"][p.actor] == "pc":
                stopped = f"{_labels(b)[p.actor]} (a PC) must decide"
                break
            pname = settings["policies"][p.actor] or policy or DEFAULT_POLICY
            key = (p.actor, pname)
            if key not in made:
                if scenario is None:
                    scenario = scenario_of(b, str(live.enc.source.get("name") or name))
                made[key] = make_policy(pname, scenario, p.actor, seed=live.version)
            view = b.clone()  # a policy never touches the live battle (nor its dice)
            assert view.pending is not None
            choice = made[key].choose(view, view.pending)
            idx = next(i for i, o in enumerate(p.options) if o == choice)
            try:
                done = _step(live, idx, [], f"policy:{pname}", check=True)
            except FacesNeeded as exc:
                stopped = str(exc)
                proposed = {"index": idx, "label": _option_labels(b)[idx],
                            "by": f"policy:{pname}", "roll": exc.roll}
                break
            told = self._commit(live, done)
            out.append(_step_json(done, told))
        else:
            stopped = f"{max_steps} steps played"
        return {"steps": out, "stopped": stopped, "proposed": proposed, "table": _show(live)}

    @_locked
    def set_player(self, name: str, combatant: str, player: str,
                   policy: str | None = None) -> dict[str, Any]:
        """Who decides for ``combatant``: ``pc`` or ``npc`` (:data:`PLAYERS`), and for an NPC
        the policy it plays by in :meth:`auto` (a name of ``vtm-sim policies``; None: the
        one ``auto`` is given). A setting, not a step: undo leaves it. Returns
        :meth:`show`."""
        from vtm_sim.files.names import find_combatant
        from vtm_sim.policies.registry import maker, scenario_of

        live = self._open(name)
        if player not in PLAYERS:
            raise TableError(f"player {player!r}: expected pc or npc")
        cid = find_combatant(live.battle, combatant, "combatant")
        if policy is not None:
            if player == "pc":
                raise TableError("--policy: a PC has no policy (the Storyteller decides)")
            maker(policy, scenario_of(live.battle))  # a ConfigError for an unknown name
        settings = dict(live.enc.settings)
        settings["players"] = list(settings["players"])
        settings["policies"] = list(settings["policies"])
        settings["players"][cid] = player
        settings["policies"][cid] = policy
        self._settings(live, settings)
        return _show(live)

    @_locked
    def set_dice(self, name: str, mode: str) -> dict[str, Any]:
        """Who enters dice from now on, one of :data:`DICE_MODES`. Returns :meth:`show`."""
        live = self._open(name)
        if mode not in DICE_MODES:
            raise TableError(f"dice {mode!r}: expected one of {', '.join(DICE_MODES)}")
        self._settings(live, {**live.enc.settings, "dice": mode})
        return _show(live)

    @_locked
    def undo(self, name: str, *, to: int | None = None,
             version: int | None = None) -> dict[str, Any]:
        """Go back to version ``to`` (default: one step back), dropping the later steps;
        the dice the tool rolls from there are those it rolled then, so choosing the
        same again gives the same log, byte for byte. Returns :meth:`show`."""
        live = self._open(name)
        self._check_version(live, version)
        target = live.version - 1 if to is None else to
        if live.version == 0 and to is None:
            raise TableError(f"table {name!r}: nothing to undo (no step taken yet)")
        if not 0 <= target <= live.version:
            raise TableError(f"undo --to {target}: expected a version from 0 to "
                             f"{live.version}")
        self.store.truncate(live.enc.id, name, live.version, live.enc.rev, target)
        self._live.pop(name, None)
        return self.show(name)

    # --- the replayed battles -----------------------------------------------------------
    def _open(self, name: str) -> _Live:
        """The encounter at the database's version: the kept replay, or a new one."""
        enc = self.store.encounter(name)
        live = self._live.get(name)
        if live is not None and live.enc.id == enc.id and live.enc.rev == enc.rev:
            live.enc = enc
            return live
        live = _replay(enc, self.store.steps(enc.id))
        self._live[name] = live
        return live

    def _check_version(self, live: _Live, version: int | None) -> None:
        if version is not None and version != live.version:
            raise VersionConflict(
                f"table {live.enc.name!r}: version {version} is stale, the table is at "
                f"version {live.version} (someone else moved it on: look again)",
                live.version)

    def _commit(self, live: _Live, done: _Done) -> list[str]:
        """Store the step; the live battle moves on. Returns the narration's new lines."""
        try:
            rev = self.store.append(live.enc.id, live.enc.name, live.version, live.enc.rev,
                                    done.step)
        except VersionConflict:
            self._live.pop(live.enc.name, None)
            raise
        live.enc = dataclasses.replace(live.enc, version=done.step.version, rev=rev)
        live.battle = done.battle
        live.version = done.step.version
        live.narration.feed(done.events)
        before = len(live.lines)
        live.lines = live.narration.lines(finished=done.battle.pending is None)
        return live.lines[before:]

    def _settings(self, live: _Live, settings: dict[str, Any]) -> None:
        self.store.settings(live.enc.id, settings)
        self._live.pop(live.enc.name, None)
        fresh = self._open(live.enc.name)
        live.enc, live.battle, live.version, live.narration, live.lines = (
            fresh.enc, fresh.battle, fresh.version, fresh.narration, fresh.lines)


# --- the steps --------------------------------------------------------------------------


def _step(live: _Live, idx: int, rolls: list[list[int]], by: str, *, check: bool) -> _Done:
    """Option ``idx`` of the pending decision taken in a copy of the live battle.

    Which rolls take the entered faces: with the dice setting ``tool``, the step's first
    rolls, in order; with ``pcs`` (or ``all``), the PCs' rolls (every roll), in order.
    Whose roll a call for faces is shows only once the step is done, so the step is run
    again with each roll found to be a PC's given the next entered faces: the rolls
    before it stay the same, so this ends after at most one run per entered roll.
    """
    base = live.battle
    p = base.pending
    assert p is not None
    label = _option_labels(base)[idx]
    mode = live.enc.settings.get("dice", "tool")
    plan: list[int] | None = None if mode == "tool" else []
    while True:
        work = base.clone()
        rng = work.dice.rng if isinstance(work.dice, TableDice) else None
        assert rng is not None
        dice = TableDice(rng, rolls, work.log, plan)
        work.dice = dice
        n0 = len(work.log.events)
        try:
            work.choose(p.options[idx])
        except DiceError as exc:  # (TableDice never raises; a dice source of a policy might)
            raise TableError(f"faces: {exc}") from None
        recorded = _rolls_of(work, dice)
        if not check or plan is None:
            break
        k = _first_unentered(live, recorded, dice, mode)
        if k is None:
            break
        if len(plan) >= len(rolls):
            _check_counts(recorded, dice)
            r = recorded[k]
            m = len(plan)
            raise FacesNeeded(
                f"faces needed: {_roll_words(k, r)}: enter its {r['dice']} "
                f"{'face' if r['dice'] == 1 else 'faces'}"
                + (f" as entered roll {m + 1}, after the {m} given (rolls split by /)"
                   if m else ""),
                {"index": m, "roll": k, "who": r["who"], "what": r["what"], "dice": r["dice"]})
        plan = [j for j in plan if j < k] + [k]
    if check:
        _check_counts(recorded, dice)
        if dice.unused:
            used = len(rolls) - dice.unused
            made = (f"takes only {used} entered roll{'' if used == 1 else 's'}" if used or
                    recorded else "rolls no dice")
            if recorded and not used:
                made = "rolls " + "; ".join(_roll_words(j, r) for j, r in enumerate(recorded))
                made += " (the tool's)" if mode != "tool" else ""
            raise TableError(f"faces: {len(rolls)} roll{'' if len(rolls) == 1 else 's'} "
                             f"given, but this step {made}")
    work.dice = TableDice(rng)
    events = _events_text(work.log, n0)
    step = Step(live.version + 1, base.turn, p.actor, p.kind.value,
                p.options[idx].to_json(), label, by, rolls, recorded, events,
                state_hash(work), time.time())
    return _Done(work, step, work.log.events[n0:])


def _roll_words(k: int, r: dict[str, Any]) -> str:
    who = f"{r['who']}'s " if r["who"] else ""
    return (f"roll {k + 1} of this step ({who}{r['what']}, {r['dice']} "
            f"{'die' if r['dice'] == 1 else 'dice'})")


def _check_counts(recorded: list[dict[str, Any]], dice: TableDice) -> None:
    """Entered faces whose count is not their roll's dice."""
    for k, (d, r) in enumerate(zip(dice.draws, recorded, strict=True)):
        if d.entered and len(d.given) != d.dice:
            raise TableError(f"faces: {_roll_words(k, r)}: {len(d.given)} "
                             f"{'face' if len(d.given) == 1 else 'faces'} given, "
                             f"expected {d.dice}")


def _first_unentered(live: _Live, recorded: list[dict[str, Any]], dice: TableDice,
                     mode: str) -> int | None:
    """The first roll the dice setting says is entered that was rolled by the tool."""
    players = live.enc.settings["players"]
    for k, (d, r) in enumerate(zip(dice.draws, recorded, strict=True)):
        if d.entered:
            if len(d.given) != d.dice:
                return None  # a wrong count: said as such (_check_counts)
            continue
        if mode == "all" or (r["who_id"] >= 0 and players[r["who_id"]] == "pc"):
            return k
    return None


def _step_json(done: _Done, narration: list[str]) -> dict[str, Any]:
    s = done.step
    return {"version": s.version, "turn": s.turn, "actor": _labels(done.battle)[s.actor],
            "decision": s.decision, "label": s.label, "by": s.by, "rolls": s.rolls,
            "narration": narration}


def _replay(enc: Encounter, steps: Sequence[Step]) -> _Live:
    """The encounter rebuilt from its start, every step checked against what it stored."""
    try:
        battle = _battle_from_start(enc.start)
    except (ConfigError, KeyError, TypeError, ValueError) as exc:
        raise TableCorrupt(f"table {enc.name!r}: its start does not load ({exc})") from None
    if state_hash(battle) != enc.start_hash:
        raise TableCorrupt(f"table {enc.name!r}: its start does not load as it was stored")
    for s in steps:
        p = battle.pending
        if p is None or p.actor != s.actor or p.kind.value != s.decision:
            raise TableCorrupt(f"table {enc.name!r}: step {s.version} ({s.label}) is not the "
                               "decision the replay reaches")
        choice = choice_from_json(DecisionKind(s.decision), s.choice)
        if choice not in p.options:
            raise TableCorrupt(f"table {enc.name!r}: step {s.version} ({s.label}): not a "
                               "legal option in the replay")
        rng = battle.dice.rng if isinstance(battle.dice, TableDice) else None
        assert rng is not None
        n0 = len(battle.log.events)
        plan = [k for k, r in enumerate(s.rolls) if r.get("entered")]
        battle.dice = TableDice(rng, s.entered, battle.log, plan)
        battle.choose(choice)
        battle.dice = TableDice(rng)
        if _events_text(battle.log, n0) != s.events:
            raise TableCorrupt(f"table {enc.name!r}: step {s.version} ({s.label}) replays "
                               "to other events than it stored")
    if steps and state_hash(battle) != steps[-1].state_hash:
        raise TableCorrupt(f"table {enc.name!r}: the replay ends in another state than "
                           f"version {steps[-1].version} stored")
    told = Narration(battle.log.events)
    return _Live(enc, len(steps), battle, told, told.lines(finished=battle.pending is None))


def _find_option(battle: Battle, option: str | int) -> int:
    p = battle.pending
    if p is None:
        raise TableError("the fight is over: nothing to choose")
    labels = _option_labels(battle)
    n = len(labels)
    text = str(option).strip()
    if isinstance(option, int) or text.isdigit():
        i = int(text)
        if not 0 <= i < n:
            raise TableError(f"option {i}: expected an index from 0 to {n - 1} or a label ("
                             + "; ".join(f"{k}: {lb}" for k, lb in enumerate(labels)) + ")")
        return i
    shorts = short_names(labels)
    try:
        return find_named(text, [Named(lb, (sh,)) for lb, sh in zip(labels, shorts, strict=True)],
                          "option", "option")
    except ConfigError as exc:
        if "ambiguous" in str(exc):
            raise TableError(str(exc)) from None
        who = _labels(battle)[p.actor]
        raise TableError(f"option {text!r}: not an option of {who}'s {p.kind.value} decision "
                         f"(expected an index from 0 to {n - 1}, a label or a short name: "
                         + "; ".join(f"{k} {sh}" for k, sh in enumerate(shorts)) + ")"
                         ) from None


def _options(battle: Battle) -> list[dict[str, Any]]:
    p = battle.pending
    if p is None:
        return []
    labels = _option_labels(battle)
    return [{"index": i, "label": lb, "short": sh, "choice": o.to_json()}
            for i, (lb, sh, o) in enumerate(zip(labels, short_names(labels), p.options,
                                                strict=True))]


def _show(live: _Live) -> dict[str, Any]:
    b = live.battle
    settings = live.enc.settings
    names = _labels(b)
    p = b.pending
    pending = None
    if p is not None:
        opts = _options(b)
        pending = {"actor": names[p.actor], "actor_id": p.actor,
                   "player": settings["players"][p.actor], "decision": p.kind.value,
                   "options": [o["label"] for o in opts],
                   "choices": [{k: o[k] for k in ("index", "label", "short")} for o in opts]}
        if p.attacker is not None:
            pending["attacker"] = names[p.attacker]
    result = None
    if p is None:
        result = {"winner": None if b.winner is None else b.winner, "reason": b.end_reason}
    return {
        "name": live.enc.name, "scenario": live.enc.source.get("name"), "turn": b.turn,
        "turn_limit": b.turn_limit, "version": live.version, "over": p is None,
        "result": result, "dice": settings.get("dice", "tool"),
        "initiative": [names[c.id] for c in b.order],
        "pending": pending,
        "combatants": [_combatant(b, c, names, settings) for c in b.combatants],
        "narration": live.lines,
    }


def _combatant(b: Battle, c: Any, names: list[str], settings: dict[str, Any]) -> dict[str, Any]:
    from vtm_sim.files.state_files import labels

    h = c.health
    wnames = labels([w.name for w in c.stats.weapons])
    return {
        "name": names[c.id], "id": c.id, "side": c.side,
        "player": settings["players"][c.id], "policy": settings["policies"][c.id],
        "kind": c.stats.kind.value,
        "health": h.level_name, "status": h.status.value, "track": h.marks(),
        "damage": {"bashing": h.bashing, "lethal": h.lethal, "aggravated": h.aggravated},
        "penalty": h.penalty,
        "blood": c.blood if c.stats.blood_pool else None,
        "blood_pool": c.stats.blood_pool or None,
        "willpower": c.willpower, "willpower_max": c.stats.willpower,
        "weapons": [{"name": wn, "in_hand": i == c.wielding,
                     "rounds": c.ammo[i] if w.magazine else None,
                     "magazine": w.magazine or None, "jammed": c.jammed[i], "lost": c.lost[i]}
                    for i, (wn, w) in enumerate(zip(wnames, c.stats.weapons, strict=True))],
        "conditions": b._conditions(c),
        "at": [round(c.x, 2), round(c.y, 2)],
    }


def _playout(name: str, battle: Battle, seed: int) -> Any:
    """Who plays on in the simulated fights (as ``vtm-sim suggest --policy``)."""
    import numpy as np

    from vtm_sim.policies import registry
    from vtm_sim.policies.planner import playout_for
    from vtm_sim.policies.playouts import advice_playout

    if name == "auto":
        return advice_playout(len(battle.combatants))
    if name == "planner":
        return playout_for(len(battle.combatants))
    make = registry.maker(name, registry.scenario_of(battle))
    rng = np.random.default_rng([seed, 7])
    return lambda cid: make(rng, cid)


# --- starting ---------------------------------------------------------------------------


def _check_name(name: str) -> None:
    if not name or len(name) > MAX_NAME or not name.isprintable() or name != name.strip():
        raise TableError(f"table name {name!r}: expected 1-{MAX_NAME} printable characters, "
                         "no space at either end")


def _iso(t: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ""


def _seeded(seed: int) -> TableDice:
    import numpy as np

    return TableDice(RngDice(np.random.default_rng(seed)))


def _start(*, scenario: str | None, state: str | Path | Mapping[str, Any] | None,
           sheets: Sequence[str | Mapping[str, Any]], foes: Sequence[str | Mapping[str, Any]],
           distance: float, seed: int) -> tuple[Battle, dict[str, Any], dict[int, str]]:
    """The battle to start from (not begun where it can still be changed), how it was
    given, and the goals it gives its combatants."""
    from vtm_sim.engine.battle import Battle, Fighter

    if scenario is not None:
        from vtm_sim.files.scenarios import find_scenario, load_scenario

        sc = load_scenario(scenario)
        b = Battle(sc.fighters, dice=_seeded(seed), seed=seed, rules=sc.rules,
                   turn_limit=sc.turn_limit, field=sc.field, ambush=sc.ambush,
                   scenario=sc.name, start=False)
        text = _read_text(find_scenario(scenario))
        return b, {"kind": "scenario", "name": sc.name, "text": text}, dict(sc.goals)
    if isinstance(state, Mapping):
        import tempfile

        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "state.json"
            path.write_text(json.dumps(state), encoding="utf-8")
            b, source, goals = _start(scenario=None, state=path, sheets=(), foes=(),
                                      distance=distance, seed=seed)
        return b, {**source, "file": None}, goals
    if state is not None:
        from vtm_sim.files.state_files import read_state

        loaded = read_state(state, seed=seed)
        if loaded.begun:  # a machine-written state goes on with its own dice stream
            loaded = read_state(state)
        b = loaded.battle
        if loaded.begun and isinstance(b.dice, RngDice):
            b.dice = TableDice(b.dice)
        else:
            b.dice = _seeded(seed)
        name = loaded.scenario.name if loaded.scenario else Path(state).stem
        return b, {"kind": "state", "name": name, "file": Path(state).name,
                   "text": _read_text(Path(state))}, dict(loaded.goals or {})
    from vtm_sim.data.stat_blocks import load_stat_block
    from vtm_sim.data.tables import load_tables

    if not sheets or not foes:
        raise TableError("table new: stat blocks need both sides: --sheet (side 0) and "
                         "--foe (side 1)")
    if len(sheets) + len(foes) > 16:
        raise TableError("table new: at most 16 combatants in a fight")
    tables = load_tables()

    def sheet(s: str | Mapping[str, Any], where: str) -> Any:
        if isinstance(s, Mapping):
            from vtm_sim.data.config import validate
            from vtm_sim.data.stat_blocks import StatBlockSpec, build_stat_block

            return build_stat_block(validate(StatBlockSpec, dict(s), where), where, tables)
        return load_stat_block(s, tables)

    fighters = [Fighter(sheet(s, f"sheets.{i}"), 0, 0.0, 2.0 * i)
                for i, s in enumerate(sheets)]
    fighters += [Fighter(sheet(s, f"foes.{i}"), 1, float(distance), 2.0 * i)
                 for i, s in enumerate(foes)]
    b = Battle(fighters, dice=_seeded(seed), seed=seed, start=False)
    return b, {"kind": "sheets", "name": "sheets",
               "sheets": [s if isinstance(s, str) else dict(s) for s in sheets],
               "foes": [s if isinstance(s, str) else dict(s) for s in foes]}, {}


def _apply_damage(battle: Battle, given: str | Path | Mapping[str, Any]) -> None:
    """A ``--damage-out`` file of ``vtm-sim import foundry`` (or its data): its
    combatant's damage, Willpower and blood, set before the fight begins."""
    from vtm_sim.data.config import load_yaml
    from vtm_sim.files.names import find_combatant

    if isinstance(given, Mapping):
        p, data = Path("damage"), dict(given)
    else:
        p = Path(given)
        data = load_yaml(p)
    if not isinstance(data, dict) or not isinstance(data.get("name"), str):
        raise TableError(f"{p}: expected a mapping with name, damage, willpower, blood")
    if battle.log.events:
        raise TableError(f"{p}: --damage applies to a fight not begun (a scenario, stat "
                         "blocks, or a hand-written state)")
    unknown = set(data) - {"name", "damage", "willpower", "blood"}
    if unknown:
        raise TableError(f"{p}: {sorted(unknown)[0]}: unknown key (expected name, damage, "
                         "willpower, blood)")
    c = battle.combatants[find_combatant(battle, data["name"], f"{p}: name")]
    dmg = data.get("damage") or {}
    h = c.health
    try:
        b_, l_, a_ = (int(dmg.get(k, 0)) for k in ("bashing", "lethal", "aggravated"))
    except (TypeError, ValueError, AttributeError):
        raise TableError(f"{p}: damage: expected bashing, lethal, aggravated as whole "
                         "numbers") from None
    if min(b_, l_, a_) < 0 or b_ + l_ + a_ > h.size:
        raise TableError(f"{p}: damage: {b_ + l_ + a_} boxes, the track holds {h.size}")
    h.bashing, h.lethal, h.aggravated = b_, l_, a_
    h.resync()
    if b_ + l_ + a_ >= h.size:
        raise TableError(f"{p}: damage: {c.name} would start incapacitated")
    for key, top in (("willpower", c.stats.willpower), ("blood", c.stats.blood_pool)):
        v = data.get(key)
        if v is None:
            continue
        if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= top:
            raise TableError(f"{p}: {key}: expected a whole number from 0 to {top} (got {v!r})")
        setattr(c, key, v)
