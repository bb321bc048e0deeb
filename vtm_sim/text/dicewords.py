"""Dice and counts in plain words: ``6 dice at difficulty 6 -> 8 6 1: 1 success``.

Kept apart from :mod:`vtm_sim.text.narration` (which reads whole event logs) so the
roll and attack commands print rolls without importing the events.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
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
    ``ev``: the event, or its JSON form (what the roll and attack commands hold).
    """
    if isinstance(ev, Mapping):
        return _roll_words(int(ev.get("pool", 0)), str(ev.get("what", "")), ev.get("diff"),
                           bool(ev.get("spec")), bool(ev.get("wp")), ev.get("faces") or [],
                           int(ev.get("succ", 0)), bool(ev.get("botch")), label)
    return _roll_words(ev.pool, ev.what, ev.diff, ev.spec, ev.wp, ev.faces, ev.succ, ev.botch,
                       label)


def _roll_words(pool: int, what: str, diff: object, spec: bool, wp: bool,
                faces: Sequence[int], succ: int, botch: bool, label: str) -> str:
    damage = what in ("damage", "soak")
    word = f"{label} " if label else ""
    dice = plural(pool, f"{word}die", f"{word}dice")
    head = dice if damage else f"{dice} at difficulty {diff}"
    notes = []
    if spec:
        notes.append("specialty")
    if wp:
        notes.append("+1 success from Willpower")
    if notes:
        head += f" ({', '.join(notes)})"
    if pool <= 0 and not faces:
        if damage:
            return f"no {word}dice"
        return f"{dice}: the pool is empty, nothing can be rolled"
    result = "botch" if botch else plural(succ, "success", "successes")
    return f"{head} -> {' '.join(str(f) for f in faces)}: {result}"
