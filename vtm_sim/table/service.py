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
kept in memory while its version is the database's, so a step costs one clone, one
decision and one transaction.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["PLAYERS", "DICE_MODES", "TableService", "default_db"]

PLAYERS = ("pc", "npc")  # who decides for a combatant: the Storyteller enters it, or an NPC
# who enters dice: nobody (the tool rolls every die), the players (each pc's rolls are
# entered), or everyone (every roll is entered)
DICE_MODES = ("tool", "pcs", "all")
DEFAULT_POLICY = "tactician"  # how an NPC with no policy of its own plays in ``auto``

Faces = Sequence[int] | Sequence[Sequence[int]]  # one roll's faces, or one list per roll


def default_db() -> Path:
    """The database used without ``--db``: ``tables.sqlite3`` in the user's data
    directory (``platformdirs.user_data_dir("vtm-sim")``), created when first used."""
    raise NotImplementedError


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
    """

    def __init__(self, db: str | Path | None = None) -> None:
        raise NotImplementedError

    def close(self) -> None:
        """Close the database (the service is not usable after)."""
        raise NotImplementedError

    def __enter__(self) -> TableService:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- encounters ----------------------------------------------------------------
    def new(self, name: str, *, scenario: str | None = None, state: str | Path | None = None,
            sheets: Sequence[str] = (), foes: Sequence[str] = (), distance: float = 10.0,
            damage: Sequence[str | Path] = (), pcs: Sequence[str] = (), seed: int = 0,
            dice: str = "tool") -> dict[str, Any]:
        """Start an encounter from exactly one of: a scenario (a name or a file), a state
        file (hand-written or machine-written), or stat blocks (``sheets`` on side 0 at
        x=0, ``foes`` on side 1 at x=``distance``, each a file or a shipped sheet's name).

        Args:
            name: the encounter's name (unique in the database; 1-80 printable characters).
            damage: files written by ``vtm-sim import foundry --damage-out``: each names
                a combatant (``name``) and its ``damage``, ``willpower``, ``blood``.
            pcs: the combatants the players run (``pc``); everyone else is an ``npc``.
            seed: seeds the dice the tool rolls (stored with the encounter).
            dice: who enters dice, one of :data:`DICE_MODES`.

        Returns:
            :meth:`show` of the new encounter (version 0: at its first decision).
        """
        raise NotImplementedError

    def list(self) -> list[dict[str, Any]]:
        """Every encounter: ``name``, ``scenario``, ``turn``, ``version``, ``over``,
        ``pending`` (who decides, or null), ``created``, ``updated``; by name."""
        raise NotImplementedError

    def delete(self, name: str) -> None:
        """Remove an encounter and its steps."""
        raise NotImplementedError

    def fork(self, name: str, new: str, *, at: int | None = None) -> dict[str, Any]:
        """A "what if" copy of ``name`` under the name ``new``: the same start, the steps up
        to ``at`` (default: all), the same settings; the two go on apart. Returns its
        :meth:`show`."""
        raise NotImplementedError

    def export(self, name: str) -> dict[str, Any]:
        """The battle as it stands, as a machine-written state (``Battle.to_state``): write
        it as JSON and ``vtm-sim fight --state FILE`` (or ``load_state``) continues it with
        the encounter's own dice stream."""
        raise NotImplementedError

    # --- reading ------------------------------------------------------------------------
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
        raise NotImplementedError

    def options(self, name: str) -> list[dict[str, Any]]:
        """The pending decision's legal options: ``index``, ``label`` (the Storyteller's
        words, unique), ``short`` (a short name to type) and ``choice`` (the engine's
        choice as JSON). Empty when the fight is over."""
        raise NotImplementedError

    def steps(self, name: str) -> list[dict[str, Any]]:
        """The steps so far: ``version``, ``turn``, ``actor``, ``decision``, ``label``,
        ``by`` (``storyteller``, ``suggestion``, ``policy:NAME``) and ``rolls`` (each
        ``who``, ``what``, ``dice``, ``faces``, ``entered``)."""
        raise NotImplementedError

    def suggest(self, name: str, *, seconds: float | None = 2.0, rollouts: int | None = None,
                policy: str = "auto", seed: int = 0) -> dict[str, Any]:
        """What the pending decision's combatant should choose, for its goal
        (:func:`vtm_sim.analysis.advice.advise` on the pending decision).

        Returns ``actor``, ``decision``, ``goal``, ``goal_words``, ``index`` and ``label``
        (the recommended option, as :meth:`options` numbers it), ``reason``, ``ranked``
        (each ``index``, ``label``, ``reason``, ``value``), ``rollouts``, ``seconds``,
        and ``advice`` (the whole answer as ``vtm-sim suggest --json`` prints it).
        """
        raise NotImplementedError

    def verify(self, name: str) -> dict[str, Any]:
        """Replay the encounter from its start, as a fresh open does, and check every step
        (raises :class:`~vtm_sim.table.errors.TableCorrupt` on a difference). Returns
        ``version``, ``steps`` and ``log_sha256`` (the event log's hash)."""
        raise NotImplementedError

    def log(self, name: str) -> str:
        """The whole event log as JSONL (what ``vtm-sim replay`` reads)."""
        raise NotImplementedError

    # --- changing ----------------------------------------------------------------------
    def choose(self, name: str, option: str | int, *, faces: Faces | None = None,
               version: int | None = None, by: str = "storyteller") -> dict[str, Any]:
        """Answer the pending decision with ``option`` and append the step.

        Args:
            option: an index of :meth:`options` (an int, or digits), a label, a short
                name, or a unique prefix of one (whatever the case).
            faces: the faces of the step's rolls, in the order they are rolled: one list
                per roll (a flat list is the first roll); each roll's count must be its
                dice and every face 1-10. Rolls not given are rolled by the tool, unless
                the dice setting says they are entered: then
                :class:`~vtm_sim.table.errors.FacesNeeded` names the first one missing
                and nothing changes.
            version: the version the caller saw (see the class).
            by: who made the choice, recorded with the step.

        Returns:
            ``step`` (``version``, ``label``, ``rolls``, ``narration``: the lines it
            added) and ``table`` (:meth:`show` after it).
        """
        raise NotImplementedError

    def auto(self, name: str, *, policy: str | None = None, version: int | None = None,
             max_steps: int = 1000) -> dict[str, Any]:
        """Let the NPCs play until a PC must decide (or the fight ends): each NPC by its
        own policy (:meth:`set_player`), else ``policy``, else ``tactician``; one step
        per decision. Stops early, with ``stopped`` saying why, when a roll must be
        entered. Returns ``steps`` (each as :meth:`choose`'s ``step``), ``stopped`` and
        ``table``."""
        raise NotImplementedError

    def set_player(self, name: str, combatant: str, player: str,
                   policy: str | None = None) -> dict[str, Any]:
        """Who decides for ``combatant``: ``pc`` or ``npc`` (:data:`PLAYERS`), and for an NPC
        the policy it plays by in :meth:`auto` (a name of ``vtm-sim policies``; None: the
        one ``auto`` is given). A setting, not a step: undo leaves it. Returns
        :meth:`show`."""
        raise NotImplementedError

    def set_dice(self, name: str, mode: str) -> dict[str, Any]:
        """Who enters dice from now on, one of :data:`DICE_MODES`. Returns :meth:`show`."""
        raise NotImplementedError

    def undo(self, name: str, *, to: int | None = None,
             version: int | None = None) -> dict[str, Any]:
        """Go back to version ``to`` (default: one step back), dropping the later steps;
        the dice the tool rolls from there are those it rolled then, so choosing the
        same again gives the same log, byte for byte. Returns :meth:`show`."""
        raise NotImplementedError
