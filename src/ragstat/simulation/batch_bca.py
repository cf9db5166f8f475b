"""The BCa document bootstrap for R samples at once, as `inference.bca.doc_bootstrap_bca`.

Replicate estimates come from multinomial count matrices c (documents drawn with
replacement): micro θ* = c·s / c·n, macro θ* = c·r / K. Per sample, as the library
(Efron & Tibshirani 1993, eq. 14.15; ``scipy.stats.bootstrap(method="BCa")``):

    z₀ = Φ⁻¹((#{θ* < θ̂} + #{θ* ≤ θ̂}) / (2B))                 (ties count half)
    U_d = (K − 1)(θ̄₋ − θ̂₋d),  a = (Σ U_d³/K³) / 6 / (Σ U_d²/K²)^{3/2}
    α₁,₂ = Φ(z₀ + (z₀ + z) / (1 − a (z₀ + z))),  z = z_{α/2}, z_{1−α/2}

with θ̂₋d the leave-one-document-out estimates (prefix and suffix sums, as
`jackknife_estimates`); the limits are the α₁ and α₂ quantiles of the θ* (numpy's
linear rule), shrunk toward θ̂ by √fpc. Unavailable (NaN) where α₁ or α₂ is undefined
(z₀ infinite: every replicate on one side of θ̂; a undefined: every θ̂₋d equal). A census
(fpc = 0) gives the point interval at θ̂. Every group of `batch_boot.SHARE` samples
shares one count matrix (common random numbers, as the other document bootstraps);
``counts`` injects them: (B, K) for every sample, or (R, B, K) one per sample.
"""

from __future__ import annotations

import numpy as np
from scipy.special import ndtr, ndtri

from ragstat.simulation.batch_boot import (
    GEMM_ELEMENTS,
    SHARE,
    Bounds,
    count_matrix,
    plan_blocks,
)
from ragstat.simulation.batch_df import others

__all__ = ["bca_batch_bounds", "bca_batch_limits", "bca_replicates"]


def _rates(n: np.ndarray, s: np.ndarray, estimand: str) -> tuple[np.ndarray, np.ndarray]:
    """(θ̂, θ̂₋d) per sample: micro (S − s_d)/(N − n_d), macro the other rates' mean."""
    if estimand == "micro":
        return s.sum(axis=1) / n.sum(axis=1), others(s) / others(n)
    r = s / n
    return r.mean(axis=1), others(r) / others(np.ones_like(r))


def bca_replicates(n: np.ndarray, s: np.ndarray, estimand: str, counts: np.ndarray) -> np.ndarray:
    """θ* of shape (rows, B) from counts (B, K) shared by the rows, or (rows, B, K)."""
    if counts.ndim == 2:
        if estimand == "micro":
            return (s @ counts.T) / (n @ counts.T)
        return ((s / n) @ counts.T) / n.shape[1]
    if estimand == "micro":
        return np.matmul(counts, s[:, :, None])[..., 0] / np.matmul(counts, n[:, :, None])[..., 0]
    return np.matmul(counts, (s / n)[:, :, None])[..., 0] / n.shape[1]


def _quantile(xs: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Row-wise quantile p[i] of sorted rows (numpy's linear rule, as `sorted_quantile`)."""
    m = xs.shape[1]
    virtual = (m - 1) * p
    lo = np.floor(virtual).astype(np.int64)
    hi = np.minimum(lo + 1, m - 1)
    gamma = virtual - lo
    rows = np.arange(xs.shape[0])
    a, b = xs[rows, lo], xs[rows, hi]
    diff = b - a
    return np.where(gamma >= 0.5, b - diff * (1 - gamma), a + diff * gamma)


def bca_batch_limits(
    theta: np.ndarray, replicates: np.ndarray, jack: np.ndarray, level: float
) -> tuple[np.ndarray, np.ndarray]:
    """BCa limits per row (NaN where undefined), `inference.bca.bca_limits` row by row."""
    B = replicates.shape[1]
    below = np.count_nonzero(replicates < theta[:, None], axis=1)
    at_or_below = np.count_nonzero(replicates <= theta[:, None], axis=1)
    z0 = ndtri((below + at_or_below) / (2 * B))
    K = float(jack.shape[1])
    U = (K - 1) * (jack.mean(axis=1)[:, None] - jack)
    with np.errstate(divide="ignore", invalid="ignore"):
        a = (np.sum(U**3, axis=1) / K**3) / 6 / (np.sum(U**2, axis=1) / K**2) ** 1.5
        z = float(ndtri((1 - level) / 2))
        num1, num2 = z0 + z, z0 - z
        alpha_1 = ndtr(z0 + num1 / (1 - a * num1))
        alpha_2 = ndtr(z0 + num2 / (1 - a * num2))
    ok = np.isfinite(alpha_1) & np.isfinite(alpha_2)
    xs = np.sort(replicates, axis=1)
    lo = _quantile(xs, np.where(ok, alpha_1, 0.0))
    hi = _quantile(xs, np.where(ok, alpha_2, 1.0))
    return np.where(ok, lo, np.nan), np.where(ok, hi, np.nan)


def _replicate_block(rng, counts, n, s, estimand, rows: slice, B: int) -> np.ndarray:
    """θ* (rows, B) for one block: one count matrix per group of SHARE samples, drawn (or
    taken from ``counts``) in replicate chunks of at most GEMM_ELEMENTS multiply-adds."""
    K = n.shape[1]
    stars = np.empty((rows.stop - rows.start, B))
    step = max(1, GEMM_ELEMENTS // (SHARE * K))
    for g in range(rows.start, rows.stop, SHARE):
        group = slice(g, min(g + SHARE, rows.stop))
        out = stars[g - rows.start : group.stop - rows.start]
        for j in range(0, B, step):
            cols = slice(j, min(j + step, B))
            if counts is None:
                c = count_matrix(rng, 1, cols.stop - cols.start, K)[0]
            else:
                c = counts[cols] if counts.ndim == 2 else counts[group, cols]
            out[:, cols] = bca_replicates(n[group], s[group], estimand, c)
    return stars


def bca_batch_bounds(
    n: np.ndarray,
    s: np.ndarray,
    estimand: str,
    *,
    level: float,
    fpc: float,
    rng: np.random.Generator | None,
    tol: np.ndarray,
    reps: int = 999,
    counts: np.ndarray | None = None,
) -> Bounds:
    """BCa intervals ("doc_bootstrap_bca") for the rows of (n, s), as the library per row.

    ``tol`` is accepted for the common signature; the BCa rule needs no zero-SE test (a
    sample whose documents share one rate has every θ̂₋d equal: unavailable).
    """
    R, K = n.shape
    theta, jack = _rates(n, s, estimand)
    if fpc == 0.0:  # census: no sampling error
        return Bounds(theta.copy(), theta.copy(), np.ones(R, dtype=bool), np.zeros(R, int))
    if counts is None and rng is None:
        raise ValueError("the BCa bootstrap needs a random generator or count matrices")
    B = reps if counts is None else counts.shape[-2]
    lower, upper = np.empty(R), np.empty(R)
    f = float(np.sqrt(fpc))
    for rows, _ in plan_blocks(R, B, K):
        stars = _replicate_block(rng, counts, n, s, estimand, rows, B)
        lo, hi = bca_batch_limits(theta[rows], stars, jack[rows], level)
        th = theta[rows]
        lower[rows], upper[rows] = th + f * (lo - th), th + f * (hi - th)
    available = np.isfinite(lower) & np.isfinite(upper)
    return Bounds(lower, upper, available, np.zeros(R, int))
