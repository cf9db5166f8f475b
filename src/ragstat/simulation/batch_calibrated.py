"""The calibrated document bootstrap ("doc_bootstrap_calibrated") for R samples at once.

The method is `ragstat.inference.calibrated` (double bootstrap of the documents; the
percentile interval of the outer estimates at the levels q_lo, q_hi that the inner
resamples calibrate). Here every group of SHARE consecutive samples shares one set of
resampling indices (common random numbers, as `batch_boot`): each sample's double
bootstrap is still an ordinary one, and the index draws cost B₁ × B₂ × K per group
instead of per sample. For a group:

- outer counts C₁ (B₁, K) of the outer indices; outer estimates by sums,
  micro (C₁ s)/(C₁ n), macro (C₁ r)/K;
- inner counts C₂ (B₁ B₂, K) of the inner resamples' documents (outer[b, inner[b, j, k]]);
  the tie-aware comparison θ** ≤ θ̂ is the sign of c·v (v the sample's centred values,
  `centred_values`), so one matrix product (B₁ B₂, K) @ (K, samples) decides every inner
  replicate of the group — no inner estimate is ever divided out;
- shares u_b, levels q_lo, q_hi and the limits as in the library, the quantile of the
  sorted outer estimates at each sample's own level (numpy's linear rule).

The inner products are taken in chunks of outer resamples (≤ BLOCK_ELEMENTS counts at
once). Cost: R/SHARE × B₁ B₂ K index draws, R × B₁ B₂ K multiply-adds.
"""

from __future__ import annotations

import numpy as np

from ragstat.inference.calibrated import (
    CalibrationDraws,
    calibrated_levels,
    centred_values,
    draw_indices,
    inner_documents,
    tie_shares,
)
from ragstat.simulation.batch_boot import BLOCK_ELEMENTS, SHARE, Bounds

__all__ = ["calibrated_batch_bounds"]


def _counts(idx: np.ndarray, K: int) -> np.ndarray:
    """Counts of each document in every row of ``idx`` (rows, K) → (rows, K) float64."""
    rows = idx.shape[0]  # rows × K ≤ BLOCK_ELEMENTS (or B₁ × K): flat indices fit int32
    flat = np.add(idx, (np.arange(rows, dtype=np.int32) * K)[:, None], dtype=np.int32)
    return np.bincount(flat.ravel(), minlength=rows * K).astype(np.float64).reshape(rows, K)


def _outer_estimates(n, s, estimand: str, C1: np.ndarray) -> np.ndarray:
    """θ*_b of shape (samples, B₁) from the outer counts."""
    if estimand == "micro":
        return (s @ C1.T) / (n @ C1.T)
    return ((s / n) @ C1.T) / n.shape[1]


def _shares(v: np.ndarray, tie: np.ndarray, draws: CalibrationDraws) -> np.ndarray:
    """u_b of shape (samples, B₁): the tie-aware share of inner replicates ≤ θ̂."""
    B1, B2 = draws.sizes
    G, K = v.shape
    step = max(1, BLOCK_ELEMENTS // max(1, B2 * K))
    out = np.empty((G, B1))
    for b in range(0, B1, step):
        rows = slice(b, min(b + step, B1))
        docs = inner_documents(draws, rows)
        C2 = _counts(docs.reshape(-1, K), K)
        sums = (C2 @ v.T).T.reshape(G, -1, B2)
        out[:, rows] = tie_shares(sums, tie[:, None])
    return out


def _row_quantile(xs: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Quantile p[i] of each sorted row i by numpy's linear rule (as `np.quantile` writes it:
    x_j + γ (x_{j+1} − x_j), or x_{j+1} − (1 − γ)(x_{j+1} − x_j) for γ ≥ ½)."""
    m = xs.shape[1]
    virtual = (m - 1) * p
    lo = np.floor(virtual).astype(np.int64)
    hi = np.minimum(lo + 1, m - 1)
    gamma = virtual - lo
    rows = np.arange(xs.shape[0])
    a, b = xs[rows, lo], xs[rows, hi]
    diff = b - a
    return np.where(gamma >= 0.5, b - diff * (1 - gamma), a + diff * gamma)


def _group(n, s, estimand: str, draws: CalibrationDraws, alpha: float):
    """(θ̂, sorted θ*, lower, upper) for one group of samples sharing ``draws``."""
    K = n.shape[1]
    v, tie = centred_values(n, s, estimand)
    theta = s.sum(axis=1) / n.sum(axis=1) if estimand == "micro" else (s / n).mean(axis=1)
    xs = np.sort(_outer_estimates(n, s, estimand, _counts(draws.outer, K)), axis=1)
    q_lo, q_hi = calibrated_levels(_shares(v, tie, draws), alpha)
    return theta, xs, _row_quantile(xs, q_lo), _row_quantile(xs, q_hi)


def calibrated_batch_bounds(
    n: np.ndarray,
    s: np.ndarray,
    estimand: str,
    *,
    level: float,
    fpc: float,
    rng: np.random.Generator,
    tol: np.ndarray,
    outer: int = 200,
    inner: int = 100,
    draws: CalibrationDraws | None = None,
) -> Bounds:
    """Calibrated percentile bounds for R samples (n, s of shape (R, K)).

    Unavailable (NaN) where the outer estimates' range is ≤ ``tol``; fpc = 0 (a census)
    gives the point θ̂. ``draws`` injects one set of indices used for every sample.
    """
    R, K = n.shape
    if fpc == 0.0:
        theta = s.sum(axis=1) / n.sum(axis=1) if estimand == "micro" else (s / n).mean(axis=1)
        return Bounds(theta, theta.copy(), np.ones(R, dtype=bool), np.zeros(R, int))
    alpha = 1.0 - level
    lower, upper = np.empty(R), np.empty(R)
    theta, ok = np.empty(R), np.empty(R, dtype=bool)
    for start in range(0, R, SHARE):
        rows = slice(start, min(start + SHARE, R))
        d = draws if draws is not None else draw_indices(rng, K, outer, inner)
        theta[rows], xs, lower[rows], upper[rows] = _group(n[rows], s[rows], estimand, d, alpha)
        ok[rows] = xs[:, -1] - xs[:, 0] > tol[rows]
    f = np.sqrt(fpc)
    lower = np.where(ok, theta + f * (lower - theta), np.nan)
    upper = np.where(ok, theta + f * (upper - theta), np.nan)
    return Bounds(lower, upper, ok, np.zeros(R, int))
