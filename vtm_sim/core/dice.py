"""Dice pools of d10 (DICE-1..9).

A roll draws its faces from a :class:`DiceSource`: either :class:`RngDice`
(a seeded numpy Generator, drawn in batches for speed) or :class:`ScriptedDice`
(faces given by the caller: a Storyteller's physical dice or a test's fixed
dice). Resolution is a pure function of the faces, so a roll replays exactly
from its recorded faces.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, Protocol

from vtm_sim.core.symbol import Symbol
from vtm_sim.errors import DiceError

if TYPE_CHECKING:  # numpy is imported when dice are first drawn: a command rolling none skips it
    import numpy as np

MIN_DIFFICULTY: Final = 2
MAX_DIFFICULTY: Final = 10
DEFAULT_DIFFICULTY: Final = 6


class SpecialtyRule(Symbol):
    """How a specialty treats a 10 (DICE-5 variant ``specialty_rule``)."""

    EXPLODE = "explode"  # 10 scores and adds one more die, which may explode again
    DOUBLE = "double"  # published V20: 10 counts two successes


# read on every roll: module constants (see vtm_sim.core.symbol)
_EXPLODE: Final = SpecialtyRule.EXPLODE
_DOUBLE: Final = SpecialtyRule.DOUBLE


class DiceSource(Protocol):
    """Anything that hands out d10 faces in order."""

    def faces(self, n: int) -> list[int]:
        """Return the next ``n`` faces, each in 1..10."""
        ...


class RngDice:
    """Faces drawn from a numpy Generator (DICE-9).

    Faces are drawn in batches: one numpy call per ``batch`` dice costs far
    less than one call per pool. The sequence is a pure function of the
    generator's state, so the same seed gives the same faces in any process.

    A copy (:meth:`clone`, for forking a battle) shares the drawn batch (never
    changed in place: a refill makes a new list) and keeps only the
    generator's state, building its own generator on its first refill, so a
    fork that rolls fewer dice than are left in the batch costs no generator.
    """

    __slots__ = ("_batch", "_buf", "_i", "_rng", "_seed", "_state")

    def __init__(self, rng: np.random.Generator | None, batch: int = 2048) -> None:
        self._rng = rng
        self._state: dict[str, Any] | None = None  # the generator's state while not built
        self._seed: tuple[int, ...] = ()  # or the entropy it is to be built from
        self._batch = batch
        self._buf: list[int] = []
        self._i = 0

    @classmethod
    def preloaded(cls, faces: list[int], entropy: Sequence[int], batch: int = 256) -> RngDice:
        """Dice that hand out ``faces`` first (the list is shared, never changed), then
        the faces of ``numpy.random.default_rng(entropy)``, built only if they run out.

        Rollouts use these: a block of them drawn by one numpy call costs far less
        than a generator each (most rollouts never roll past their preloaded faces).
        """
        new = cls(None, batch)
        new._buf = faces
        new._seed = tuple(entropy)
        return new

    @property
    def rng(self) -> np.random.Generator:
        if self._rng is None:
            import numpy as np

            st = self._state
            if st is None:
                self._rng = np.random.default_rng(list(self._seed))
                return self._rng
            bit = getattr(np.random, str(st["bit_generator"]))()
            bit.state = st
            self._rng = np.random.Generator(bit)
            self._state = None
        return self._rng

    def faces(self, n: int) -> list[int]:
        i = self._i
        if i + n > len(self._buf):
            rest = self._buf[i:]
            need = max(self._batch, n - len(rest))
            import numpy as np  # once a batch

            self._buf = rest + self.rng.integers(1, 11, size=need, dtype=np.int16).tolist()
            i = 0
        self._i = i + n
        return self._buf[i : i + n]

    def _generator_state(self) -> dict[str, Any]:
        if self._rng is None and self._state is not None:
            return self._state
        return dict(self.rng.bit_generator.state)

    def clone(self) -> RngDice:
        """An independent copy that draws the same faces from here on."""
        new = RngDice(None, self._batch)
        if self._rng is None:  # not built yet: the copy builds its own alike
            new._state = self._state
            new._seed = self._seed
        else:
            new._state = dict(self._rng.bit_generator.state)
        new._buf = self._buf
        new._i = self._i
        return new

    def to_json(self) -> dict[str, Any]:
        return {"kind": "rng", "batch": self._batch, "generator": self._generator_state(),
                "buffer": faces_text(self._buf[self._i :])}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RngDice:
        new = cls(None, int(data["batch"]))
        new._state = dict(data["generator"])
        new._buf = faces_list(str(data["buffer"]))
        return new


# faces 1..10 as the digits "1".."9", "0" (bytes.translate: far faster than a loop)
_TO_DIGITS: Final = bytes.maketrans(bytes(range(1, 11)), b"1234567890")
_FROM_DIGITS: Final = bytes.maketrans(b"1234567890", bytes(range(1, 11)))


def faces_text(faces: Sequence[int]) -> str:
    """Faces as digits, ``0`` for a 10 (a compact form for saved states)."""
    return bytes(faces).translate(_TO_DIGITS).decode("ascii")


def faces_list(text: str) -> list[int]:
    raw = text.encode("ascii", "replace")
    if raw.translate(None, b"1234567890"):
        raise DiceError(f"saved dice {text[:20]!r}: expected digits 0-9")
    return list(raw.translate(_FROM_DIGITS))


class ScriptedDice:
    """Faces supplied by the caller, used in order (DICE-9)."""

    __slots__ = ("_faces", "_i", "label")

    def __init__(self, faces: Iterable[int], label: str = "roll") -> None:
        values = list(faces)
        for f in values:
            if not 1 <= f <= 10:
                raise DiceError(f"{label}: face {f} is not a d10 face (expected 1..10)")
        self._faces = values
        self._i = 0
        self.label = label

    def clone(self) -> ScriptedDice:
        new = ScriptedDice((), self.label)
        new._faces = self._faces  # never changed in place
        new._i = self._i
        return new

    def to_json(self) -> dict[str, Any]:
        return {"kind": "scripted", "label": self.label, "faces": self._faces[self._i :]}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ScriptedDice:
        return cls([int(f) for f in data["faces"]], str(data.get("label", "roll")))

    def faces(self, n: int) -> list[int]:
        if self._i + n > len(self._faces):
            have = len(self._faces) - self._i
            missing = n - have
            raise DiceError(
                f"{self.label}: {missing} more {_faces_word(missing)} needed "
                f"({n} {'die' if n == 1 else 'dice'} to roll, {have} {_faces_word(have)} left)"
            )
        out = self._faces[self._i : self._i + n]
        self._i += n
        return out

    @property
    def remaining(self) -> int:
        return len(self._faces) - self._i



# Built on the hot path: not frozen (a frozen dataclass costs several times more to
# build) and with its own __init__ (mypyc compiles that one; the generated one stays
# Python); read-only by convention.
@dataclass(slots=True, init=False)
class Roll:
    """One roll of a dice pool and its outcome.

    Attributes:
        pool: dice in the pool after modifiers (0 or less: not rolled, DICE-7).
        difficulty: target number after clamping to 2..10 (DICE-1).
        faces: every face rolled, extra specialty dice included, in order.
        successes: net successes (0 on a failure or a botch).
        botch: no success and at least one 1 (DICE-4).
        willpower: one automatic success was bought with Willpower (DICE-8).
        specialty: the roll was covered by a specialty (DICE-5).
        damage: a damage or soak roll (DICE-6): 1s do not cancel, no botch.
    """

    pool: int
    difficulty: int
    faces: tuple[int, ...]
    successes: int
    botch: bool
    willpower: bool = False
    specialty: bool = False
    damage: bool = False

    def __init__(
        self, pool: int, difficulty: int, faces: tuple[int, ...], successes: int, botch: bool,
        willpower: bool = False, specialty: bool = False, damage: bool = False,
    ) -> None:
        self.pool = pool
        self.difficulty = difficulty
        self.faces = faces
        self.successes = successes
        self.botch = botch
        self.willpower = willpower
        self.specialty = specialty
        self.damage = damage

    @property
    def rolled(self) -> bool:
        return self.pool > 0


def clamp_difficulty(difficulty: int) -> int:
    """DICE-1: difficulties are clamped to 2..10."""
    if difficulty < MIN_DIFFICULTY:
        return MIN_DIFFICULTY
    if difficulty > MAX_DIFFICULTY:
        return MAX_DIFFICULTY
    return difficulty


def count(
    faces: Sequence[int],
    difficulty: int,
    *,
    specialty: SpecialtyRule | None = None,
    damage: bool = False,
    willpower: bool = False,
) -> tuple[int, bool]:
    """Net successes and botch for given faces (the pure part of a roll).

    ``faces`` must already include any exploded specialty dice.
    """
    hits = 0
    ones = 0
    tens = 0
    for f in faces:
        if f >= difficulty:  # DICE-2: a 10 always meets a clamped difficulty
            hits += 1
            if f == 10:
                tens += 1
        elif f == 1:
            ones += 1
    if specialty is _DOUBLE:
        hits += tens
    if damage:  # DICE-6
        return hits + (1 if willpower else 0), False
    net = hits - ones  # DICE-3
    if net < 0:
        net = 0
    botch = hits == 0 and ones > 0 and not willpower  # DICE-4; DICE-8 averts it
    if willpower:
        net += 1
    return net, botch


def roll(
    pool: int,
    difficulty: int,
    dice: DiceSource,
    *,
    specialty: SpecialtyRule | None = None,
    damage: bool = False,
    willpower: bool = False,
) -> Roll:
    """Roll ``pool`` d10 against ``difficulty``.

    Args:
        pool: dice after every modifier; 0 or less fails without a roll (DICE-7).
        difficulty: raw difficulty, clamped to 2..10.
        dice: where the faces come from.
        specialty: the rule for 10s when a specialty applies, else None.
        damage: a damage or soak roll (1s do not cancel, cannot botch).
        willpower: one automatic success (DICE-8).
    """
    diff = clamp_difficulty(difficulty)
    if pool <= 0:
        return Roll(pool, diff, (), 0, False, willpower, specialty is not None, damage)
    faces = dice.faces(pool)
    if specialty is _EXPLODE:
        extra = faces.count(10)
        while extra:
            try:
                more = dice.faces(extra)
            except DiceError as exc:
                tens = "a 10" if extra == 1 else f"{extra} tens"
                raise DiceError(f"{exc}, after {tens} exploded with the specialty "
                                "(DICE-5)") from None
            faces = faces + more
            extra = more.count(10)
    successes, botch = count(
        faces, diff, specialty=specialty, damage=damage, willpower=willpower
    )
    return Roll(
        pool, diff, tuple(faces), successes, botch, willpower, specialty is not None, damage
    )


def _faces_word(n: int) -> str:
    return "face" if n == 1 else "faces"


def dice_from_json(data: dict[str, Any]) -> RngDice | ScriptedDice:
    """A dice stream saved by ``to_json`` (a battle state's ``dice``)."""
    kind = data.get("kind")
    if kind == "rng":
        return RngDice.from_json(data)
    if kind == "scripted":
        return ScriptedDice.from_json(data)
    raise DiceError(f"saved dice: kind {kind!r} (expected rng or scripted)")
