"""Embedding drift by MMD (the RAG reference, serving): a permutation test between two samples."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ragstat.errors import InputError
from ragstat.metrics.system.ann import embedding_matrix

__all__ = ["MMDDrift", "mmd_drift"]


@dataclass(frozen=True)
class MMDDrift:
    """``mmd2``: unbiased MMD² between reference X (m rows) and current Y (n rows) with an
    RBF kernel ``k(a, b) = exp(−‖a − b‖² / (2σ²))``::

        MMD²_u = Σ_{i≠j} k(x_i, x_j) / (m(m−1)) + Σ_{i≠j} k(y_i, y_j) / (n(n−1))
                 − 2 Σ_{i,j} k(x_i, y_j) / (mn)

    (can be slightly negative under no drift). ``bandwidth`` σ: the median heuristic, the
    median pairwise Euclidean distance of the pooled sample (i < j, zeros dropped).
    ``p_value = (1 + #{b: MMD²_b ≥ MMD²}) / (1 + B)`` over B seeded label permutations.
    """

    mmd2: float
    p_value: float
    bandwidth: float
    n_permutations: int
    n_reference: int
    n_current: int


def _median_bandwidth(d2: np.ndarray) -> float:
    iu = np.triu_indices(d2.shape[0], k=1)
    dist = np.sqrt(d2[iu])
    dist = dist[dist > 0]
    if dist.size == 0:
        raise InputError("mmd_drift: all embeddings are identical; no bandwidth")
    return float(np.median(dist))


def _mmd2_batch(kmat: np.ndarray, masks: np.ndarray, m: int, n: int) -> np.ndarray:
    """Unbiased MMD² for each row of ``masks`` (True = reference) from the pooled kernel
    with a zeroed diagonal: sXX = uᵀK₀u, sYY = vᵀK₀v, sXY = uᵀK₀v."""
    u = masks.astype(float)
    v = 1.0 - u
    ku = u @ kmat
    sxx = (ku * u).sum(1)
    sxy = (ku * v).sum(1)
    syy = ((v @ kmat) * v).sum(1)
    return sxx / (m * (m - 1)) + syy / (n * (n - 1)) - 2.0 * sxy / (m * n)


def mmd_drift(
    reference: np.ndarray,
    current: np.ndarray,
    n_permutations: int = 1000,
    seed: int = 0,
    bandwidth: float | None = None,
) -> MMDDrift:
    """Embedding drift test by MMD (see :class:`MMDDrift`); needs ≥ 2 rows per sample."""
    x, y = embedding_matrix(reference, "reference"), embedding_matrix(current, "current")
    m, n = x.shape[0], y.shape[0]
    if m < 2 or n < 2 or x.shape[1] != y.shape[1]:
        raise InputError(f"mmd_drift: need ≥ 2 rows of equal dimension, got {x.shape}, {y.shape}")
    if n_permutations < 1:
        raise InputError("mmd_drift: n_permutations must be >= 1")
    z = np.vstack([x, y])
    sq = (z**2).sum(1)
    d2 = np.maximum(sq[:, None] + sq[None, :] - 2.0 * z @ z.T, 0.0)
    sigma = _median_bandwidth(d2) if bandwidth is None else float(bandwidth)
    if not sigma > 0:
        raise InputError(f"mmd_drift: bandwidth must be > 0, got {sigma}")
    kmat = np.exp(-d2 / (2.0 * sigma**2))
    np.fill_diagonal(kmat, 0.0)
    base = np.arange(m + n) < m
    observed = float(_mmd2_batch(kmat, base[None, :], m, n)[0])
    rng = np.random.default_rng(seed)
    perms = np.array([rng.permutation(base) for _ in range(n_permutations)])
    null = _mmd2_batch(kmat, perms, m, n)
    p = (1 + int((null >= observed - 1e-12).sum())) / (1 + n_permutations)
    return MMDDrift(observed, p, sigma, n_permutations, m, n)
