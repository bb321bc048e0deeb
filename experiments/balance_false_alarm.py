"""The balance tier's real false-alarm rate and power, computed exactly from its baselines.

Usage: python experiments/balance_false_alarm.py [--suite tests/golden] [--shift 0.1]

For each match-up of the suite, with its committed baseline rate p and its N
battles: the chance that Fisher's exact test at the match-up's level
(false_alarm / M) fails when the new run's true rate is still p (a false alarm),
and when it has moved by --shift (the power), treating the baseline and the new
run as independent binomial samples of N (the same seeds make them alike, which
only lowers the false alarms). The tier's false-alarm rate is at most the sum
over match-ups (and at least the largest). No battle is played.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

try:
    import vtm_sim  # noqa: F401
except ImportError:  # a checkout that is not installed
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scipy.stats import binom, fisher_exact

from vtm_sim.regress.balance import matchup_id, read_baselines
from vtm_sim.regress.suite import load_suite


def reject_chance(n: int, p_old: float, p_new: float, alpha: float) -> float:
    """P(Fisher's test rejects at ``alpha``) for Binom(n, p_old) against Binom(n, p_new)."""
    def support(p: float) -> range:
        lo, hi = binom.ppf(1e-7, n, p), binom.isf(1e-7, n, p)
        return range(int(max(0, lo)), int(min(n, hi)) + 1)

    total = 0.0
    old_w = {k: binom.pmf(k, n, p_old) for k in support(p_old)}
    new_w = {k: binom.pmf(k, n, p_new) for k in support(p_new)}
    for k0, w0 in old_w.items():
        for k1, w1 in new_w.items():
            if fisher_exact([[k0, n - k0], [k1, n - k1]]).pvalue < alpha:
                total += w0 * w1
    return total


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--suite", default="tests/golden")
    ap.add_argument("--shift", type=float, default=0.1)
    args = ap.parse_args()
    folder = Path(args.suite)
    spec = load_suite(folder)
    baselines = read_baselines(folder)
    m_count = len(spec.balance.matchups)
    alpha = spec.balance.false_alarm / m_count
    print(f"Stated false-alarm rate {spec.balance.false_alarm} over {m_count} match-ups "
          f"(each at {alpha:.4g}); shift for power: {args.shift:+}")
    total = 0.0
    for m in spec.balance.matchups:
        t = baselines[json.dumps(m.model_dump(), sort_keys=True)]
        p = t.win_rate
        size = reject_chance(t.games, p, p, alpha)
        moved = min(1.0, p + args.shift) if p < 0.5 else max(0.0, p - args.shift)
        power = reject_chance(t.games, p, moved, alpha)
        total += size
        print(f"  {matchup_id(m):<32} N={t.games:<4} rate {p:.3f}: false alarm "
              f"{size:.2e}, power vs {moved:.3f}: {power:.2f}")
    print(f"Tier false-alarm rate: at most {total:.2e} (stated bound "
          f"{spec.balance.false_alarm}).")


if __name__ == "__main__":
    main()
