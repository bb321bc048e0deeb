"""Where two battle logs part: the first differing event, in plain words, side by side.

:func:`first_difference` compares two logs event by event (their JSON forms, the
lines a log file holds) and :func:`side_by_side` prints the event where they
part from both logs in two columns: the turn, who, what, and the dice in the
narration's words (:func:`vtm_sim.text.narration.roll_text`), with the narration's
line for that moment of each battle (:func:`vtm_sim.text.narration.narrate`) beneath.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from vtm_sim.events import Event, EventKind
from vtm_sim.text.dicewords import roll_text
from vtm_sim.text.narration import narrate

COLUMN = 48  # width of each column of the side-by-side diff

# The JSON keys told as "who" and "target" (combatant ids read as names).
_PEOPLE = ("who", "target")
# Keys not worth a word in a one-line description.
_QUIET = frozenset(("e", "who", "target", "choice", "faces", "pool", "diff", "succ", "spec",
                    "wp", "botch", "what"))


@dataclass(frozen=True, slots=True)
class Difference:
    """The first event where two logs part (``index`` counts from 0, the header)."""

    index: int
    old: Event | None  # None: the old log ended before
    new: Event | None  # None: the new log ended before
    old_log: tuple[Event, ...]
    new_log: tuple[Event, ...]


def first_difference(old: Sequence[Event], new: Sequence[Event]) -> Difference | None:
    """The first event (by JSON form) where ``old`` and ``new`` differ; None if equal."""
    for i in range(max(len(old), len(new))):
        a = old[i] if i < len(old) else None
        b = new[i] if i < len(new) else None
        if a is None or b is None or a.to_json() != b.to_json():
            return Difference(i, a, b, tuple(old), tuple(new))
    return None


def _names(log: Sequence[Event]) -> list[str]:
    """Combatant names from the header (``battle`` event), numbered when repeated."""
    raw: list[Any] = []
    if log and log[0].e is EventKind.BATTLE:
        head = log[0].to_json()
        raw = list(head.get("combatants") or [])
        state = head.get("state")
        if isinstance(state, dict):
            raw = [{"sheet": s} for s in state.get("sheets") or []]
    names = [str((c.get("sheet") or {}).get("name", f"combatant {i}")) for i, c in enumerate(raw)]
    return [f"{n} {names[: i + 1].count(n)}" if names.count(n) > 1 else n
            for i, n in enumerate(names)]


def _turn_at(log: Sequence[Event], index: int) -> int:
    turn = 0
    for ev in log[: index + 1]:
        if ev.e is EventKind.TURN:
            turn = int(ev.to_json()["turn"])
    return turn


def _value(v: Any, name: Callable[[Any], str] = str) -> str:
    """A JSON value in words: ``{kind attack, target Knife Fighter}``; ``name`` reads ids."""
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k} {name(x) if k in _PEOPLE else _value(x, name)}"
                               for k, x in v.items()) + "}"
    if isinstance(v, list | tuple):
        return " ".join(_value(x, name) for x in v)
    return str(v)


def describe(ev: Event, log: Sequence[Event], index: int) -> list[str]:
    """An event in plain words: ``turn``, ``who``, ``what`` and, for a roll, ``dice``."""
    names = _names(log)
    data = ev.to_json()

    def name(v: Any) -> str:
        return names[v] if isinstance(v, int) and 0 <= v < len(names) else str(v)

    kind = str(data["e"])
    lines = [f"event {index + 1}, turn {_turn_at(log, index)}"]
    if "who" in data:
        lines.append(f"who: {name(data['who'])}")
    what = kind if "what" not in data else f"{kind} ({data['what']})"
    if kind == EventKind.DECIDE:
        what = f"decides ({data.get('kind')})"
    if "target" in data:
        what += f" against {name(data['target'])}"
    if "choice" in data:
        what += f": {_value(data['choice'], name)}"
    rest = [f"{k} {_value(v, name)}" for k, v in data.items()
            if k not in _QUIET and not (kind == EventKind.DECIDE and k == "kind")]
    if kind == EventKind.BATTLE:
        rest = [f"seed {data.get('seed')}", f"rules {_value(data.get('rules', {}).get('name'))}"]
    if rest:
        what += "; " + ", ".join(rest)
    lines.append(f"what: {what}")
    if kind == EventKind.ROLL:
        lines.append(f"dice: {roll_text(data)}")
    return lines


def _story_line(log: Sequence[Event], index: int) -> str:
    """The narration's last line once the log has reached ``index`` (the moment told)."""
    lines = narrate(log[: index + 1])
    return lines[-1] if lines else ""


def _column(lines: Sequence[str]) -> list[str]:
    out: list[str] = []
    for line in lines:
        out.extend(textwrap.wrap(line, COLUMN, subsequent_indent="  ") or [""])
    return out


def side_by_side(diff: Difference, left: str = "golden", right: str = "now") -> list[str]:
    """The first differing event of both logs in two columns, then each story's line."""
    def told(ev: Event | None, log: Sequence[Event]) -> list[str]:
        if ev is None:
            return [f"event {diff.index + 1}: (the log has ended)"]
        return [*describe(ev, log, diff.index), f"story so far: {_story_line(log, diff.index)}"]

    a = _column(told(diff.old, diff.old_log))
    b = _column(told(diff.new, diff.new_log))
    rule = "-" * COLUMN
    out = [f"{left:<{COLUMN}} | {right}", f"{rule} | {rule}"]
    for i in range(max(len(a), len(b))):
        x = a[i] if i < len(a) else ""
        y = b[i] if i < len(b) else ""
        out.append(f"{x:<{COLUMN}} | {y}".rstrip())
    return out
