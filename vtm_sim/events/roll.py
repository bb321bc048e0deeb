"""The ``roll`` event: every die the engine rolls is in one (DICE-9)."""

from __future__ import annotations

from typing import Any, ClassVar

from vtm_sim.events.event import Event, EventKind, bool_of, int_of, ints_of, str_of


# Slotted with their own __init__, read-only by convention (see vtm_sim.events.event).
class RollEvent(Event):
    """One dice pool rolled by ``who`` for ``what`` (``attack``, ``soak``, ``abort``...).

    ``diff`` is the difficulty, ``faces`` every face in order, ``succ`` the net
    successes; ``botch``, ``wp`` (a Willpower success, DICE-8), ``spec`` (a
    specialty, DICE-5) and ``auto`` (Potence's automatic damage successes,
    VAMP-5) are written only when set.
    """

    __slots__ = ("auto", "botch", "diff", "faces", "pool", "spec", "succ", "what", "who", "wp")
    e: ClassVar[EventKind] = EventKind.ROLL
    KEYS: ClassVar[frozenset[str]] = frozenset(
        ("e", "who", "what", "pool", "diff", "faces", "succ", "botch", "wp", "spec", "auto"))

    who: int
    what: str
    pool: int
    diff: int
    faces: tuple[int, ...]
    succ: int
    botch: bool
    wp: bool
    spec: bool
    auto: int

    def __init__(self, who: int, what: str, pool: int, diff: int, faces: tuple[int, ...],
                 succ: int, botch: bool = False, wp: bool = False, spec: bool = False,
                 auto: int = 0) -> None:
        self.who = who
        self.what = what
        self.pool = pool
        self.diff = diff
        self.faces = faces
        self.succ = succ
        self.botch = botch
        self.wp = wp
        self.spec = spec
        self.auto = auto

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"e": EventKind.ROLL, "who": self.who, "what": self.what,
                             "pool": self.pool, "diff": self.diff, "faces": list(self.faces),
                             "succ": self.succ}
        if self.botch:
            d["botch"] = True
        if self.wp:
            d["wp"] = True
        if self.spec:
            d["spec"] = True
        if self.auto:
            d["auto"] = self.auto
        return d

    @staticmethod
    def from_json(d: dict[str, Any]) -> RollEvent:
        return RollEvent(
            int_of(d, "who"), str_of(d, "what"), int_of(d, "pool"), int_of(d, "diff"),
            ints_of(d, "faces"), int_of(d, "succ"), "botch" in d and bool_of(d, "botch"),
            "wp" in d and bool_of(d, "wp"), "spec" in d and bool_of(d, "spec"),
            int_of(d, "auto") if "auto" in d else 0,
        )
