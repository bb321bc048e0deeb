"""Confidence intervals of rates: the one place the project computes them.

Wilson score intervals come from scipy (``scipy.stats.binomtest``), imported on
first use so commands that print no interval never load scipy. Tournaments,
``vtm-sim regress``'s balance tier and evaluations all call :func:`wilson`.
"""

from __future__ import annotations

CONFIDENCE = 0.95


def wilson(count: int, n: int, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """The Wilson score interval of ``count`` successes out of ``n`` (0..1 when n is 0)."""
    if n == 0:
        return 0.0, 1.0
    from scipy.stats import binomtest

    ci = binomtest(count, n).proportion_ci(confidence_level=confidence, method="wilson")
    return float(ci.low), float(ci.high)
