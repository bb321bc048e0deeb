"""The health track (DMG-7, DMG-8, DMG-9)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from vtm_sim.core.sheet import Kind
from vtm_sim.core.symbol import Symbol
from vtm_sim.core.weapons import DamageType


class HealthLevel(Protocol):
    """One level of the health table as the track reads it (``data.tables.HealthLevel``)."""

    @property
    def name(self) -> str: ...
    @property
    def penalty(self) -> int: ...
    @property
    def move(self) -> str: ...
    @property
    def yards(self) -> int | None: ...


class Status(Symbol):
    """Whether a combatant is still in the fight."""

    ACTIVE = "active"
    INCAPACITATED = "incapacitated"  # DMG-8: out of the fight
    TORPOR = "torpor"  # DMG-8: vampire past Incapacitated by bashing/lethal
    DEAD = "dead"  # DMG-8: mortal past Incapacitated, or vampire's Final Death

    @property
    def out(self) -> bool:
        return self is not Status.ACTIVE


@dataclass(slots=True)
class HealthTrack:
    """Boxes filled by damage type; worse damage is listed first (DMG-7).

    The last level of the table is Incapacitated: when every box is filled the
    character is out. Damage beyond the track follows DMG-8: bashing first
    turns existing bashing into lethal; with no bashing left to turn, a mortal
    dies and a vampire falls into torpor; aggravated overflow is Final Death
    for a vampire.
    """

    levels: tuple[HealthLevel, ...]
    kind: Kind
    bashing: int = 0
    lethal: int = 0
    aggravated: int = 0
    status: Status = Status.ACTIVE
    # kept in step with the boxes by every change (read on every roll: the hot path)
    filled: int = field(init=False, repr=False, compare=False, default=0)
    penalty: int = field(init=False, repr=False, compare=False, default=0)
    """Dice lost from every pool and from initiative (DMG-7, INIT-4)."""

    def __post_init__(self) -> None:
        self._sync()

    def resync(self) -> None:
        """Recompute the cached filled boxes and penalty after setting the boxes directly."""
        self._sync()

    def _sync(self) -> None:
        f = self.bashing + self.lethal + self.aggravated
        self.filled = f
        self.penalty = self.levels[f - 1].penalty if f else 0

    @property
    def size(self) -> int:
        return len(self.levels)

    @property
    def level(self) -> HealthLevel | None:
        """The current health level (None while unhurt)."""
        f = self.filled
        return self.levels[f - 1] if f else None

    @property
    def level_name(self) -> str:
        lvl = self.level
        return "unhurt" if lvl is None else lvl.name

    def marks(self) -> str:
        """The track as marks, worst first, e.g. ``*XX//..``."""
        return (
            "*" * self.aggravated + "X" * self.lethal + "/" * self.bashing
            + "." * (self.size - self.filled)
        )

    def take(self, levels: int, dtype: DamageType) -> None:
        """Mark ``levels`` health levels of ``dtype`` (after soak and halving)."""
        for _ in range(levels):
            if self.status in (Status.DEAD, Status.TORPOR):
                if dtype is DamageType.AGGRAVATED:
                    self.status = Status.DEAD
                return
            if self.filled < self.size:
                self._add(dtype, 1)
            elif dtype is DamageType.BASHING and self.bashing > 0:
                self.bashing -= 1  # bashing past the track becomes lethal
                self.lethal += 1
                self._sync()
            elif self.kind is Kind.VAMPIRE and dtype is not DamageType.AGGRAVATED:
                self.status = Status.TORPOR
            else:
                self.status = Status.DEAD
        if self.status is Status.ACTIVE and self.filled >= self.size:
            self.status = Status.INCAPACITATED

    def _add(self, dtype: DamageType, n: int) -> None:
        if dtype is DamageType.BASHING:
            self.bashing += n
        elif dtype is DamageType.LETHAL:
            self.lethal += n
        else:
            self.aggravated += n
        self._sync()

    def heal(self, levels: int) -> int:
        """Heal bashing first, then lethal (VAMP-2). Returns levels healed."""
        healed = 0
        while healed < levels and (self.bashing or self.lethal):
            if self.bashing:
                self.bashing -= 1
            else:
                self.lethal -= 1
            healed += 1
        self._sync()
        if healed and self.status is Status.INCAPACITATED and self.filled < self.size:
            self.status = Status.ACTIVE
        return healed

    def copy(self) -> HealthTrack:
        return HealthTrack(
            self.levels, self.kind, self.bashing, self.lethal, self.aggravated, self.status
        )
