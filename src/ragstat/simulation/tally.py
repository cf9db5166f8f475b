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
    """Coverage with its Monte-Carlo SE sqrt(c(1 − c)/R); an unavailable interval is a miss."""
    R = estimate.shape[0]
    ok = available & np.isfinite(lower) & np.isfinite(upper)
    covered = ok & (lower <= target) & (target <= upper)
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
