"""Point estimators of the interval guide, step 2 (the estimand is declared, never inferred).

micro:  N = Σ n_d,  R = Σ s_d / N          (rate of a random query/chunk)
macro:  r_d = s_d / n_d,  r̄ = (1/K) Σ r_d  (rate in a typical document)
"""

from __future__ import annotations

import numpy as np

from ragstat.errors import InputError

__all__ = ["ESTIMANDS", "check_documents", "fpc_factor", "macro_mean", "micro_mean"]

ESTIMANDS = ("micro", "macro")


def micro_mean(n: np.ndarray, s: np.ndarray) -> float:
    """R = Σ s_d / Σ n_d, the ratio estimator."""
    return float(s.sum() / n.sum())


def macro_mean(n: np.ndarray, s: np.ndarray) -> float:
    """r̄ = mean of the per-document rates s_d / n_d."""
    return float(np.mean(s / n))


def check_documents(K: int) -> None:
    """Clustered inference needs at least two documents."""
    if K < 2:
        raise InputError(
            f"need at least two documents for a clustered interval, got K = {K}; "
            "the sampling unit is the document, not the query"
        )


def fpc_factor(K: int, M: int | None) -> float:
    """Finite-population correction 1 − K/M for SRS of K of M documents (1 when M is None)."""
    if M is None:
        return 1.0
    if M < K:
        raise InputError(f"population size M = {M} is smaller than the sample, K = {K}")
    return 1.0 - K / M
