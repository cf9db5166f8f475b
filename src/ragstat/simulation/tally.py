"""From per-replicate intervals to coverage, width, bias and RMSE."""

from __future__ import annotations

import numpy as np

from ragstat.simulation.results import MethodCoverage

__all__ = ["tally"]


def tally(
    k: int,
    estimand: str,
    method: str,
    target: float,
    estimate: np.ndarray,
    lower: np.ndarray,
    upper: np.ndarray,
    available: np.ndarray,
) -> MethodCoverage:
    """Coverage with its Monte-Carlo SE sqrt(c(1 − c)/R); an unavailable interval is a miss.

    The SE treats samples as independent; samples in one group of 25 share their
    bootstrap count matrix, a dependence measured here to change the variance of the
    coverage by less than its own Monte-Carlo error. The target is compared with a
    relative tolerance of 1e-12 so that point intervals of a census are not lost to
    summation order.
    """
    R = estimate.shape[0]
    ok = available & np.isfinite(lower) & np.isfinite(upper)
    eps = 1e-12 * max(1.0, abs(target))
    covered = ok & (lower - eps <= target) & (target <= upper + eps)
    c = float(covered.mean())
    width = (upper - lower)[ok]
    err = estimate - target
    return MethodCoverage(
        k=k,
        estimand=estimand,
        method=method,
        reps=R,
        coverage=c,
        coverage_se=float(np.sqrt(c * (1 - c) / R)),
        coverage_available=float(covered[ok].mean()) if ok.any() else None,
        mean_width=float(width.mean()) if width.size else None,
        median_width=float(np.median(width)) if width.size else None,
        bias=float(err.mean()),
        rmse=float(np.sqrt(np.mean(err * err))),
        unavailable=float(1 - ok.mean()),
    )
