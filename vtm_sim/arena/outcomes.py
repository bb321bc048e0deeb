"""Wins, draws and losses of a set of battles: the counts every report tallies.

Tournaments (:mod:`vtm_sim.arena.results`), the ladder (:mod:`vtm_sim.arena.ladder`),
``vtm-sim regress``'s balance tier (:mod:`vtm_sim.regress.balance`) and evaluations
(:mod:`agents.evaluation`) keep their own dataclasses (frozen or
growing, with their own extra columns); this mixin is what they share.
"""

from __future__ import annotations


class Outcomes:
    """``games``, ``score`` and ``rate`` from ``wins``, ``draws`` and ``losses``."""

    __slots__ = ()
    wins: int
    draws: int
    losses: int

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        """Wins plus half the draws, per game."""
        return (self.wins + 0.5 * self.draws) / self.games if self.games else 0.0

    def rate(self, count: int) -> float:
        """``count`` (of wins, draws or losses) per game."""
        return count / self.games if self.games else 0.0
