"""Dice and counts in plain words: ``6 dice at difficulty 6 -> 8 6 1: 1 success``.

Kept apart from :mod:`vtm_sim.text.narration` (which reads whole event logs) so the
roll and attack commands print rolls without importing the events.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from vtm_sim.events import RollEvent


def plural(n: int, one: str, many: str | None = None) -> str:
    """``1 success``, ``2 successes``."""
    return f"{n} {one if n == 1 else (many or one + 's')}"



def roll_text(ev: RollEvent | Mapping[str, Any], label: str = "") -> str:
    """One roll event as ``6 dice at difficulty 6 -> 8 6 1: 1 success``.

    Damage and soak rolls (DICE-6) read ``5 dice -> ...`` (their difficulty
    is 6 and 1s do not cancel). ``label`` names the dice: ``5 damage dice``.
    ``ev``: the event or its JSON form.
    """
    if not isinstance(ev, Mapping):  # a RollEvent
        ev = ev.to_json()
    pool = int(ev.get("pool", 0))
    what = str(ev.get("what", ""))
    damage = what in ("damage", "soak")
    word = f"{label} " if label else ""
    dice = plural(pool, f"{word}die", f"{word}dice")
    head = dice if damage else f"{dice} at difficulty {ev.get('diff')}"
    notes = []
    if ev.get("spec"):
        notes.append("specialty")
    if ev.get("wp"):
        notes.append("+1 success from Willpower")
    if notes:
        head += f" ({', '.join(notes)})"
    faces = ev.get("faces") or []
    if pool <= 0 and not faces:
        if damage:
            return f"no {word}dice"
        return f"{dice}: the pool is empty, nothing can be rolled"
    succ = int(ev.get("succ", 0))
    result = "botch" if ev.get("botch") else plural(succ, "success", "successes")
    return f"{head} -> {' '.join(str(f) for f in faces)}: {result}"
