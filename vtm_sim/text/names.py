"""Who is who in a told fight: the full name once, a short name after, a pronoun
where it cannot be misread.

A narration names a combatant in full at its first mention ("Jax, Brujah Neonate"),
then by its short name: the stat block's ``short:`` if set, else the name before a
comma ("Jax"), else the full name. Two combatants that would share a short name keep
their full names (or their numbers, for two of one sheet: "Street Thug 1").

Lines are written with placeholders (:meth:`Cast.ref`, :meth:`Cast.subject`) and
resolved in the order they are said (:meth:`Cast.resolve`), so the first mention is
the first one read, whatever order the narrator built its sentences in. With
pronouns on, a sentence whose subject is the subject of the sentence before opens
with the pronoun ("she", "he", "they", "it": the sheet's ``pronoun:``, its verb
agreeing: "they reload") unless that sentence named someone else with the same
pronoun ("Jax closes on the Elder. Jax swings..." but "Jax closes on Wren. He
swings..."). A sentence that does not open with a combatant, a turn's heading
among them, breaks the chain.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

__all__ = ["PRONOUNS", "Cast", "Person", "agree", "cast_of", "they_form"]

# subject, object, possessive, reflexive
PRONOUNS: Final[dict[str, tuple[str, str, str, str]]] = {
    "she": ("she", "her", "her", "herself"),
    "he": ("he", "him", "his", "himself"),
    "they": ("they", "them", "their", "themself"),
    "it": ("it", "it", "its", "itself"),
}
_IRREGULAR: Final = {"is": "are", "has": "have", "does": "do", "goes": "go", "was": "were"}
# \x00, kind, who, \x01, verb, \x00: r a mention, R one capitalised, s a subject
_TOKEN: Final = re.compile(r"\x00([rRs])(\d+)\x01([^\x00]*)\x00")
_MARKED: Final = re.compile(r"\^(\w+)")  # a later verb of the sentence's subject


def _agreeing(plural: bool) -> Callable[[re.Match[str]], str]:
    return lambda m: _plural(m.group(1)) if plural else m.group(1)


def _plural(word: str) -> str:
    core = word.rstrip(",.;:")
    if core != word:
        return _plural(core) + word[len(core):]
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("sses", "shes", "ches", "xes", "zzes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def they_form(verb: str) -> str:
    """A verb phrase from the third person singular to the plural: its first word and
    each word marked ``^`` (a second verb): ``reloads`` -> ``reload``, ``is stunned``
    -> ``are stunned``, ``tries to get up and ^fails`` -> ``try to get up and fail``."""
    words = verb.split(" ")
    return " ".join(_plural(w.lstrip("^")) if i == 0 or w.startswith("^") else w
                    for i, w in enumerate(words))


def agree(subject: str, pronoun: str, verb: str) -> str:
    """``subject`` and its verb phrase, the verbs plural after "they" (``^`` marks
    dropped): ``agree("Jax", "he", "goes down and ^stays down")``."""
    phrase = they_form(verb) if pronoun == "they" else verb.replace("^", "")
    return f"{subject} {phrase}" if phrase else subject


@dataclass(frozen=True, slots=True)
class Person:
    """A combatant's names: ``full`` (numbered where a sheet appears twice), ``short``
    and ``pronoun`` (she, he, they or it)."""

    full: str
    short: str
    pronoun: str = "they"


def _numbered(short: str, k: int) -> str:
    """The k-th of a short name two combatants share: "Thug 2", "The second Rifleman"."""
    if short.startswith("The ") and 1 <= k <= len(_ORDINALS):
        return f"The {_ORDINALS[k - 1]} {short[4:]}"
    return f"{short} {k}"


_ORDINALS: Final = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh",
                    "eighth", "ninth", "tenth")


def cast_of(sheets: Sequence[Mapping[str, Any]]) -> list[Person]:
    """Each combatant's names from its sheet as a log header writes it.

    Two of one sheet are numbered: "Street Thug 1", "Street Thug 2", and so are their
    short names ("The first Rifleman" for a short name with an article). A short name
    two combatants would share, or that is another one's full name, falls back to the
    full names.
    """
    names = [str(s.get("name") or f"combatant {i}") for i, s in enumerate(sheets)]
    full, short = [], []
    for i, s in enumerate(sheets):
        name = names[i]
        given = s.get("short")
        cut = name.split(",", 1)[0].strip()
        brief = str(given).strip() if isinstance(given, str) and given.strip() else cut or name
        if names.count(name) > 1:
            k = names[: i + 1].count(name)
            name, brief = f"{name} {k}", _numbered(brief, k)
        full.append(name)
        short.append(brief)
    people = []
    for i, s in enumerate(sheets):
        brief = short[i]
        clash = any(j != i and (short[j] == brief or full[j] == brief)
                    for j in range(len(sheets)))
        pronoun = str(s.get("pronoun") or "they")
        people.append(Person(full[i], full[i] if clash else brief,
                             pronoun if pronoun in PRONOUNS else "they"))
    return people


@dataclass
class Cast:
    """The combatants of one told fight, and who has been mentioned so far.

    ``pronouns``: whether a repeated subject becomes a pronoun (the story to read
    aloud) or keeps its name (the dice log, whose lines each stand alone).
    """

    people: list[Person] = field(default_factory=list)
    pronouns: bool = False
    mentioned: set[int] = field(default_factory=set)
    focus: int | None = None  # the subject of the last sentence
    others: set[int] = field(default_factory=set)  # the others that sentence named
    subjects: list[int | None] = field(default_factory=list)  # each resolved line's subject

    # --- placeholders ---------------------------------------------------------
    def ref(self, who: Any, cap: bool = False) -> str:
        """A mention of ``who`` inside a sentence (capitalised with ``cap``)."""
        if not self._known(who):
            return f"combatant {who}"
        return f"\x00{'R' if cap else 'r'}{int(who)}\x01\x00"

    def subject(self, who: Any, verb: str) -> str:
        """``who`` and its verb phrase (third person singular): "Jax reloads", or at the
        start of a sentence that follows one about Jax alone, "he reloads"."""
        if not self._known(who):
            return f"combatant {who} {verb}"
        return f"\x00s{int(who)}\x01{verb}\x00"

    def object(self, who: Any) -> str:
        """``her``, ``him``, ``them``, ``it``: for a sentence whose subject is someone
        else and that has named ``who`` already."""
        return PRONOUNS[self.pronoun(who)][1]

    def possessive(self, who: Any) -> str:
        """``her``, ``his``, ``their``, ``its``: for a sentence about ``who`` itself."""
        return PRONOUNS[self.pronoun(who)][2]

    def reflexive(self, who: Any) -> str:
        return PRONOUNS[self.pronoun(who)][3]

    def they(self, who: Any, verb: str) -> str:
        """The pronoun and its verb, as plain words, for a clause whose sentence has
        named ``who`` and no one else: ``she is``, ``they are``."""
        pronoun = self.pronoun(who)
        return agree(PRONOUNS[pronoun][0], pronoun, verb)

    def pronoun(self, who: Any) -> str:
        return self.people[int(who)].pronoun if self._known(who) else "they"

    def name(self, who: Any) -> str:
        """The name as a mention now would read (without counting as one)."""
        if not self._known(who):
            return f"combatant {who}"
        p = self.people[int(who)]
        return p.short if int(who) in self.mentioned else p.full

    def join(self, who: Sequence[int], cap: bool = False) -> str:
        """Mentions of several combatants as a list: "A and B", "A, B and C", or "A; B;
        and C" where a name as it will read has a comma of its own ("Jax, Brujah
        Neonate")."""
        refs = [self.ref(i, cap) for i in who]
        if len(refs) <= 1:
            return "".join(refs)
        if len(refs) > 2 and any("," in self.name(i) for i in who):
            return "; ".join(refs[:-1]) + "; and " + refs[-1]
        return ", ".join(refs[:-1]) + " and " + refs[-1]

    def _known(self, who: Any) -> bool:
        return isinstance(who, int) and not isinstance(who, bool) and \
            0 <= who < len(self.people)

    # --- resolving, in the order lines are said ---------------------------------
    def resolve(self, line: str) -> str:
        """The line with its placeholders as words; counts its mentions, and records
        its subject (a combatant opening the line) in :attr:`subjects`."""
        tokens = list(_TOKEN.finditer(line))
        opens = bool(tokens) and tokens[0].start() == 0 and tokens[0].group(1) == "s"
        subject = int(tokens[0].group(2)) if opens else None
        plural = subject is not None and self._pronoun_fits(subject) and \
            self.people[subject].pronoun == "they"
        out: list[str] = []
        pos = 0
        for m in tokens:
            out.append(_MARKED.sub(_agreeing(plural), line[pos:m.start()]))
            pos = m.end()
            out.append(self._words(m.group(1), int(m.group(2)), m.group(3), m.start() == 0))
        out.append(_MARKED.sub(_agreeing(plural), line[pos:]))
        self.focus = subject
        self.others = {int(m.group(2)) for m in tokens} - {subject}
        self.subjects.append(subject)
        return "".join(out)

    def _pronoun_fits(self, who: int) -> bool:
        """The subject of the sentence before, and nobody named since who shares its
        pronoun: "she" cannot be misread."""
        mine = self.people[who].pronoun
        return self.pronouns and self.focus == who and \
            all(self.people[o].pronoun != mine for o in self.others)

    def _words(self, kind: str, who: int, verb: str, first: bool) -> str:
        p = self.people[who]
        if kind == "s" and first and self._pronoun_fits(who):
            return agree(PRONOUNS[p.pronoun][0].capitalize(), p.pronoun, verb)
        name = p.short if who in self.mentioned else p.full
        self.mentioned.add(who)
        if name.startswith("The ") and not first and kind != "R":
            name = "the " + name[4:]
        return agree(name, "he", verb) if kind == "s" else name
