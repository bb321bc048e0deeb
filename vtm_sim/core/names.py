"""Finding one of several things by a name a person types: a combatant by ``--npc``, a stat
block on the command line.

A name matches, in this order: its label exactly; its label or one of its other names
(a short name, the name before a comma, a file's stem) whatever the case; a unique prefix
of any of those, whatever the case. Two or more matches are ambiguous (one line listing
them); none gives "did you mean ...?" from the closest names (:mod:`difflib`).
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass, field

from vtm_sim.errors import ConfigError

__all__ = ["Named", "aliases_of", "find_named"]


@dataclass(frozen=True, slots=True)
class Named:
    """One candidate: the ``label`` shown and written, and the other names it answers to."""

    label: str
    aliases: tuple[str, ...] = field(default=())

    def names(self) -> tuple[str, ...]:
        return (self.label, *self.aliases)


def aliases_of(name: str, short: str | None = None) -> tuple[str, ...]:
    """The other names of a character called ``name``: its ``short`` name, and the name
    before a comma ("Jax" for "Jax, Brujah Neonate")."""
    out: list[str] = []
    if short:
        out.append(short.strip())
    head = name.split(",", 1)[0].strip()
    if head and head != name.strip():
        out.append(head)
    return tuple(x for x in dict.fromkeys(out) if x)


def find_named(text: str, candidates: Sequence[Named], what: str, where: str) -> int:
    """The index of the candidate ``text`` names; a ConfigError (``where: ...``) otherwise."""
    typed = text.strip()
    labels = [c.label for c in candidates]
    if typed in labels and labels.count(typed) == 1:
        return labels.index(typed)
    low = typed.lower()
    for prefix in (False, True):
        if not low:
            break
        hits = [i for i, c in enumerate(candidates)
                if any(n.lower().startswith(low) if prefix else n.lower() == low
                       for n in c.names())]
        if len(hits) == 1:
            return hits[0]
        if hits:
            shown = ", ".join(labels[i] for i in hits)
            raise ConfigError(f"{where}: {typed!r} is ambiguous: it names {shown} "
                              f"(write one of these)")
    spelled: dict[str, str] = {}  # every name and every word of one -> its label
    for c in candidates:
        for n in c.names():
            for key in (n, *n.replace(",", " ").split()):
                spelled.setdefault(key.lower(), c.label)
    close = difflib.get_close_matches(low, list(spelled), n=3, cutoff=0.55)
    guesses = list(dict.fromkeys(spelled[n] for n in close))
    if guesses:
        hint = "did you mean " + " or ".join(repr(g) for g in guesses) + "?"
    else:
        sep = "; " if any("," in lb for lb in labels) else ", "
        hint = f"expected one of: {sep.join(labels) or 'none'}"
    raise ConfigError(f"{where}: no {what} {typed!r}; {hint}")
