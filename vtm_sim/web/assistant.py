"""`vtm-sim mcp`: the table for an AI assistant, as an MCP server over stdio.

Built on the official SDK, version 2 (``from mcp.server import MCPServer``). A model
proposes; the engine validates and rolls: every change is a call of
:class:`~vtm_sim.table.service.TableService`, whose answer comes back as the narration
plus the new state. A refused call is a tool error of one line that says what would
have been valid (the legal options, the dice asked for, the version to use).

Tools (:data:`TOOLS`): ``start_encounter``, ``read_encounter``, ``suggest``, ``act``
(``choose``, ``auto``, ``undo``), ``odds``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field

from vtm_sim.errors import VtmSimError
from vtm_sim.table.errors import FacesNeeded, UnknownTable, VersionConflict
from vtm_sim.table.service import TableService

TOOLS = ("start_encounter", "read_encounter", "suggest", "act", "odds")
INSTRUCTIONS = """\
You are helping a Storyteller run a Vampire: The Masquerade (V20) fight. The engine \
holds the rules, the dice and the state: you never change the state yourself. \
Start with start_encounter (or read_encounter with no name to see what exists), read \
the pending decision and its options with read_encounter, ask suggest what an NPC \
should do, and apply a decision with act (action "choose", the option's index or \
label, and the version you read). A player's physical dice go in "faces". Every \
answer gives the narration of what happened and the new state."""

RECENT_LINES = 12  # narration lines sent back with a state (the whole log is long)


def _brief(shown: dict[str, Any]) -> dict[str, Any]:
    """The state for a model: show()'s JSON with only the last narration lines."""
    out = dict(shown)
    lines = shown.get("narration", [])
    out["narration"] = lines[-RECENT_LINES:]
    out["narration_lines"] = len(lines)
    p = shown.get("pending")
    if p is not None:
        out["pending"] = {k: v for k, v in p.items() if k != "options"}
    return out


def _valid(tables: TableService, name: str) -> str:
    try:
        opts = tables.options(name)
        version = tables.show(name)["version"]
    except VtmSimError:
        return ""
    if not opts:
        return " (the fight is over)"
    listed = "; ".join(f"{o['index']}: {o['label']}" for o in opts[:25])
    more = f"; ... {len(opts) - 25} more" if len(opts) > 25 else ""
    return f" Valid options at version {version}: {listed}{more}."


def create_server(db: str | Path | None = None, *,
                  service: TableService | None = None) -> Any:
    """The MCP server over the tables of ``db`` (an ``MCPServer``; run it with
    ``.run("stdio")``)."""
    from mcp.server import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError

    from vtm_sim.version import __version__

    tables = service if service is not None else TableService(db)
    server = MCPServer("vtm-sim table", instructions=INSTRUCTIONS, version=__version__)

    def refuse(exc: VtmSimError, name: str | None = None) -> ToolError:
        msg = " ".join(str(exc).split())
        if isinstance(exc, UnknownTable):
            known = [t["name"] for t in tables.tables()]
            msg += f" Existing encounters: {', '.join(known) or 'none (start one)'}."
        elif isinstance(exc, VersionConflict):
            msg += f" Read it again, then act with version {exc.current}."
        elif isinstance(exc, FacesNeeded):
            n = exc.roll.get("dice")
            msg += (f" Give faces: {n} {'number' if n == 1 else 'numbers'} from 1 to 10 for "
                    f"{exc.roll.get('who')}'s {exc.roll.get('what')} roll (or ask the "
                    "Storyteller for the dice).")
        elif name is not None and "expected an index" not in msg:
            msg += _valid(tables, name)
        return ToolError(msg)

    def guarded(name: str | None, call: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        try:
            return call()
        except VtmSimError as exc:
            raise refuse(exc, name) from None

    @server.tool()
    def start_encounter(
        name: Annotated[str, Field(description="A new encounter's name (1-80 characters).")],
        scenario: Annotated[str | None, Field(
            description="A shipped scenario's name, e.g. duel, bar_brawl, gunfight "
            "(read_encounter without a name lists them).")] = None,
        state: Annotated[dict[str, Any] | None, Field(
            description="Or a state file's data (as `vtm-sim table export` writes).")] = None,
        sheets: Annotated[list[str | dict[str, Any]] | None, Field(
            description="Or the characters on side 0: shipped sheet names or stat blocks' "
            "data; with foes.")] = None,
        foes: Annotated[list[str | dict[str, Any]] | None, Field(
            description="Their opponents on side 1, as sheets.")] = None,
        distance: Annotated[float, Field(description="Yards between the sides.", gt=0)] = 10.0,
        pcs: Annotated[list[str] | None, Field(
            description="Combatants the players run (the Storyteller decides for them); "
            "everyone else is an NPC.")] = None,
        dice: Annotated[Literal["tool", "pcs", "all"], Field(
            description="Whose rolls are entered as faces: none (tool rolls), the PCs', "
            "or all.")] = "tool",
        seed: Annotated[int, Field(description="Seed of the tool's dice.", ge=0)] = 0,
    ) -> dict[str, Any]:
        """Start a new encounter from exactly one of: a scenario, a state, or sheets and
        foes. Returns its state: whose decision is pending, every combatant."""
        def call() -> dict[str, Any]:
            return _brief(tables.new(name, scenario=scenario, state=state,
                                     sheets=sheets or (), foes=foes or (), distance=distance,
                                     pcs=pcs or (), dice=dice, seed=seed))
        try:
            return call()
        except VtmSimError as exc:
            from vtm_sim.files.scenarios import list_scenarios

            msg = " ".join(str(exc).split())
            if "expected one of" not in msg:
                msg += " Shipped scenarios: " + ", ".join(list_scenarios()) + "."
            raise ToolError(msg) from None

    @server.tool()
    def read_encounter(
        name: Annotated[str | None, Field(
            description="The encounter; omit it to list every encounter and the shipped "
            "scenarios.")] = None,
        what: Annotated[Literal["state", "options", "steps", "story", "export"], Field(
            description="state: whose decision, its options, every combatant (health, "
            "blood, Willpower, weapons, conditions, position) and the latest narration; "
            "options: the legal options with index, label and short name; steps: the "
            "decisions so far; story: the whole narration; export: a state file's data."
            )] = "state",
    ) -> dict[str, Any]:
        """Read an encounter (nothing changes)."""
        if name is None:
            from vtm_sim.files.scenarios import list_scenarios

            return {"encounters": tables.tables(), "scenarios": list_scenarios()}

        def call() -> dict[str, Any]:
            if what == "options":
                return {"version": tables.show(name)["version"],
                        "options": [{k: o[k] for k in ("index", "label", "short")}
                                    for o in tables.options(name)]}
            if what == "steps":
                return {"steps": tables.steps(name)}
            if what == "story":
                return {"narration": tables.show(name)["narration"]}
            if what == "export":
                return {"state": tables.export(name)}
            return _brief(tables.show(name))
        return guarded(name, call)

    @server.tool()
    def suggest(
        name: Annotated[str, Field(description="The encounter.")],
        seconds: Annotated[float, Field(
            description="Thinking time; 0.3 for a quick answer, 2 for a better one.",
            gt=0, le=30)] = 2.0,
    ) -> dict[str, Any]:
        """What the combatant whose decision is pending should choose for its goal, with
        the reason, and the other options ranked. Changes nothing: apply it with act."""
        def call() -> dict[str, Any]:
            out = tables.suggest(name, seconds=seconds)
            out.pop("advice", None)
            out["ranked"] = out["ranked"][:6]
            return out
        return guarded(name, call)

    @server.tool()
    def act(
        name: Annotated[str, Field(description="The encounter.")],
        action: Annotated[Literal["choose", "auto", "undo"], Field(
            description="choose: answer the pending decision with option; auto: let the "
            "NPCs play by their policies until a PC must decide; undo: take back the last "
            "step (or go back to version `to`).")],
        version: Annotated[int, Field(
            description="The version you last read (state's `version`): a stale one is "
            "refused, so nothing is applied on a state you have not seen.")],
        option: Annotated[int | str | None, Field(
            description="For choose: the option's index, label or short name.")] = None,
        faces: Annotated[list[list[int]] | None, Field(
            description="For choose: physical dice rolled at the table, one list of faces "
            "(1-10) per roll, in the order asked; omit to let the engine roll.")] = None,
        to: Annotated[int | None, Field(
            description="For undo: the version to go back to.", ge=0)] = None,
    ) -> dict[str, Any]:
        """Change the encounter through the rules engine. Returns what happened (the
        narration) and the new state."""
        def call() -> dict[str, Any]:
            if action == "choose":
                if option is None:
                    raise VtmSimError("act choose: give option (an index or a label).")
                out = tables.choose(name, option, faces=faces or None, version=version)
                return {"narration": out["step"]["narration"], "step": out["step"],
                        "state": _brief(out["table"])}
            if action == "auto":
                out = tables.auto(name, version=version)
                lines = [f"[{s['version']}] {s['label']}" for s in out["steps"]]
                lines += [ln for s in out["steps"] for ln in s["narration"]][-RECENT_LINES:]
                return {"narration": lines, "stopped": out["stopped"],
                        "proposed": out["proposed"], "state": _brief(out["table"])}
            shown = tables.undo(name, to=to, version=version)
            return {"narration": [f"back to version {shown['version']}"],
                    "state": _brief(shown)}
        return guarded(name, call)

    @server.tool()
    def odds(
        pool: Annotated[int, Field(description="Dice in the pool.", ge=0, le=100)],
        difficulty: Annotated[int, Field(description="Difficulty, 2-10.", ge=2, le=10)] = 6,
        willpower: Annotated[bool, Field(
            description="Willpower spent: one automatic success.")] = False,
        specialty: Annotated[bool, Field(description="A specialty: 10s count twice.")] = False,
        damage: Annotated[bool, Field(
            description="A damage or soak roll (1s do not cancel, no botch).")] = False,
    ) -> dict[str, Any]:
        """Exact odds of one roll: the chance of each number of successes, of at least
        one, and of a botch. Changes nothing."""
        from vtm_sim.core.dice import SpecialtyRule
        from vtm_sim.mechanics.odds import roll_odds

        r = roll_odds(pool, difficulty, willpower=willpower, damage=damage,
                      specialty=SpecialtyRule.DOUBLE if specialty else None)
        return {"p_success": round(r.p_success, 4), "p_botch": round(r.p_botch, 4),
                "expected_successes": round(r.expected, 3),
                "at_least": {str(k): round(sum(r.distribution[k:]), 4)
                             for k in range(1, len(r.distribution))}}

    return server


def run(db: str | Path | None) -> None:
    """Serve over stdio until the client closes it."""
    create_server(db).run("stdio")
