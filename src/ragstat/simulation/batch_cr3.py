"""CR3 (the leave-one-document-out variance) for R samples at once, as `inference.jackknife`.

With the intercept regression's cluster totals — micro (n_d, s_d), macro (1, r_d) — and
u_d = s_d − θ̂ n_d, the clubSandwich CR3 standard error and the Satterthwaite df of that
estimator under Ω = I are

    se = sqrt(Σ_d u_d² / (N − n_d)²),
    ν  = (Σ_d a_d² G_dd)² / (Σ_d a_d⁴ G_dd² + Σ_{d≠e} w_d w_e),
    a_d² = (N/(N − n_d))²,  G_dd = n_d (N − n_d)/N,  w_d = a_d² n_d² / N,

rows of (R, K) arrays; the interval is θ̂ ± t_{1−α/2}(ν) · se · √fpc, unavailable where
se ≤ tol or ν is undefined, the point interval at θ̂ for a census (fpc = 0).
"""

from __future__ import annotations

import numpy as np

from ragstat.simulation.batch_boot import Bounds
from ragstat.simulation.batch_df import others, t_quantile

__all__ = ["cr3_batch_bounds", "cr3_batch_df", "cr3_batch_se"]


def _totals(n: np.ndarray, s: np.ndarray, estimand: str) -> tuple[np.ndarray, np.ndarray]:
    if estimand == "micro":
        return n, s
    return np.ones_like(n), s / n


def cr3_batch_se(n: np.ndarray, s: np.ndarray) -> np.ndarray:
    """sqrt(Σ_d u_d² / (N − n_d)²) per row of the cluster totals (n, s)."""
    theta = s.sum(axis=1) / n.sum(axis=1)
    step = (s - theta[:, None] * n) / others(n)
    return np.sqrt(np.sum(step * step, axis=1))


def cr3_batch_df(n: np.ndarray) -> np.ndarray:
    """The CR3 Satterthwaite ν per row (NaN where undefined)."""
    N = n.sum(axis=1, keepdims=True)
    rest = others(n)
    a2 = (N / rest) ** 2
    diag = a2 * (n * rest / N)
    w = a2 * n * n / N
    tr = diag.sum(axis=1)
    tr2 = np.sum(diag * diag, axis=1) + np.sum(w * others(w), axis=1)
    good = (tr2 > 0) & np.isfinite(tr2)
    return np.where(good, tr * tr / np.where(good, tr2, 1.0), np.nan)


def cr3_batch_bounds(
    n: np.ndarray,
    s: np.ndarray,
    estimand: str,
    *,
    level: float,
    fpc: float,
    tol: np.ndarray,
) -> Bounds:
    """CR3 intervals ("cr3_bm") for the rows of (n, s); `inference.jackknife.cr3_bm` per row."""
    nn, ss = _totals(n, s, estimand)
    theta = ss.sum(axis=1) / nn.sum(axis=1)
    if fpc == 0.0:
        return Bounds(theta.copy(), theta.copy(), np.ones(theta.shape, bool))
    se, df = cr3_batch_se(nn, ss), cr3_batch_df(nn)
    ok = (se > tol) & np.isfinite(df) & (df > 0)
    half = t_quantile(1 - (1 - level) / 2, df, ok) * se * np.sqrt(fpc)
    return Bounds(np.where(ok, theta - half, np.nan), np.where(ok, theta + half, np.nan), ok)
