"""Diagnostics that explain the clustered calculation (seeds 000 and 001).

ICC by the one-way ANOVA estimator for unequal cluster sizes:
    MSB = Σ n_d (r_d − R)² / (K − 1),  MSW = (Σ q_d − Σ s_d²/n_d) / (N − K),
    n₀ = (N − Σ n_d²/N) / (K − 1),     ρ = (MSB − MSW) / (MSB + (n₀ − 1) MSW).
Design effect with unequal sizes (the self-retrieval benchmark): DEFF = 1 + (m̄ (1 + CV²) − 1) ρ,
m̄ = N/K, CV = population sd of n_d over m̄ (so m̄(1 + CV²) = Σ n_d² / N).
Lag-1 autocorrelation of within-document residuals e = y − r_d between
neighbouring queries: (Σ_pairs e_i e_{i+1} / P) / (Σ_i e_i² / N).
"""

from __future__ import annotations

import math

import numpy as np

from ragstat.inference.results import Diagnostics
from ragstat.inference.variance import moulton_parameters
from ragstat.records.docstats import DocStats

__all__ = ["chunk_distribution", "compute_diagnostics", "deff", "icc_anova", "lag1_autocorrelation"]


def icc_anova(
    n: np.ndarray, s: np.ndarray, q: np.ndarray, w: np.ndarray | None = None
) -> float | None:
    """One-way ANOVA intraclass correlation for unequal sizes (None when undefined).

    ``w`` are the centred within-document sums of squares (default q − s²/n).
    """
    K, N = n.shape[0], n.sum()
    if K < 2 or N <= K:
        return None
    R = s.sum() / N
    r = s / n
    w = np.maximum(q - s * s / n, 0.0) if w is None else w
    msb = np.sum(n * (r - R) ** 2) / (K - 1)
    msw = np.sum(w) / (N - K)
    n0 = (N - np.sum(n * n) / N) / (K - 1)
    denom = msb + (n0 - 1.0) * msw
    if not denom > 0:
        return None
    return float((msb - msw) / denom)


def deff(n: np.ndarray, icc: float | None) -> float | None:
    """DEFF = 1 + (m̄(1 + CV²) − 1) ρ with the population CV of chunks per document."""
    m = n.mean()
    if np.all(n == 1):
        return 1.0  # one query per document: no clustering to inflate the variance
    if icc is None:
        return None
    cv2 = n.var() / (m * m)
    return float(1.0 + (m * (1.0 + cv2) - 1.0) * icc)


def lag1_autocorrelation(stats: DocStats) -> float | None:
    """Pooled lag-1 autocorrelation of within-document residuals (needs positions)."""
    if stats.lag is None:
        return None
    lag, r = stats.lag, stats.r
    pairs = lag.p.sum()
    ssw = float(np.sum(stats.within_ss))
    if pairs <= 0 or not ssw > 0:
        return None
    cross = np.sum(lag.c - r * lag.a + lag.p * r * r)
    return float((cross / pairs) / (ssw / stats.N))


def chunk_distribution(n: np.ndarray) -> tuple[float, float, float, float]:
    """(mean, CV, median, share of all queries held by the largest 10 % of documents)."""
    K = n.shape[0]
    top = math.ceil(0.1 * K)
    largest = np.sort(n)[::-1][:top]
    m = float(n.mean())
    return m, float(n.std() / m), float(np.median(n)), float(largest.sum() / n.sum())


def compute_diagnostics(stats: DocStats) -> Diagnostics:
    """All diagnostics for one `DocStats`."""
    n, s, q = stats.n, stats.s, stats.q
    icc = icc_anova(n, s, q, stats.within_ss)
    d = deff(n, icc)
    m, cv, median, top = chunk_distribution(n)
    r = stats.r
    sigma2, rho = moulton_parameters(n, s, q, stats.within_ss) if stats.K >= 2 else (None, None)
    sigma2 = None if sigma2 is None else float(sigma2)
    return Diagnostics(
        icc=icc,
        deff=d,
        n_eff=None if d is None or d <= 0 else float(stats.N / d),
        chunks_mean=m,
        chunks_cv=cv,
        chunks_median=median,
        chunks_top10_share=top,
        share_rate0=float(np.mean(r == 0)),
        share_rate1=float(np.mean(r == 1)),
        lag1_autocorrelation=lag1_autocorrelation(stats),
        moulton_rho=rho,
        moulton_sigma2=sigma2,
    )
