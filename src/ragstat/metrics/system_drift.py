"""ANN Recall@k against exact search, embedding drift by MMD, and the sample-size margin.

Re-exported by :mod:`ragstat.metrics.system`; see there for the overview.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ragstat.errors import BackendUnavailable, InputError
from ragstat.metrics.filters import _frozen

__all__ = [
    "AnnRecall",
    "MMDDrift",
    "ann_recall",
    "exact_search",
    "hnsw_search",
    "mmd_drift",
    "proportion_margin",
]


@dataclass(frozen=True)
class AnnRecall:
    """Per query ``recall[q] = |A_k(q) ∩ E_k(q)| / |E_k(q)|`` where ``A_k`` / ``E_k`` are the
    first k ids of the approximate and exact lists (``|E_k| = k`` unless the exact list is
    shorter). ``missing``: queries with no approximate list (scored 0). ``mean`` = macro
    Recall@k; the seed's first gate is ``mean ≥ 0.95`` at k = 10."""

    k: int
    item_ids: tuple[str, ...]
    recall: np.ndarray
    missing: tuple[str, ...]

    @property
    def mean(self) -> float:
        return float(self.recall.mean())

    def records(self) -> dict[str, float]:
        return dict(zip(self.item_ids, self.recall.tolist(), strict=True))


def ann_recall(
    approximate: Mapping[str, Sequence], exact: Mapping[str, Sequence], k: int = 10
) -> AnnRecall:
    """ANN Recall@k of ``approximate`` (query → ranked ids) against ``exact`` (brute force at
    the same k). Queries are those of ``exact``; an empty exact list or no query →
    InputError."""
    if not isinstance(k, int) or k < 1:
        raise InputError(f"ann_recall: k must be a positive int, got {k!r}")
    if not isinstance(exact, Mapping) or not exact:
        raise InputError("ann_recall: no query (empty denominator)")
    out = []
    for qid, ids in exact.items():
        truth = set(list(ids)[:k])
        if not truth:
            raise InputError(f"ann_recall: query {qid!r} has an empty exact list")
        got = set(list(approximate.get(qid, ()))[:k])
        out.append(len(got & truth) / len(truth))
    return AnnRecall(
        k=k,
        item_ids=tuple(str(q) for q in exact),
        recall=_frozen(out, float),
        missing=tuple(str(q) for q in exact if q not in approximate),
    )


def _matrix(x: object, name: str) -> np.ndarray:
    arr = np.asarray(x, dtype=float)
    if arr.ndim != 2 or arr.shape[0] == 0 or not np.isfinite(arr).all():
        raise InputError(f"{name} must be a non-empty finite 2-D array, got shape {arr.shape}")
    return arr


def exact_search(
    vectors: np.ndarray, queries: np.ndarray, k: int = 10, space: str = "l2"
) -> list[list[int]]:
    """Brute-force top-k row indices per query: ``space="l2"`` (ascending squared distance)
    or ``"ip"`` (descending inner product); ties broken by lower index."""
    v, q = _matrix(vectors, "vectors"), _matrix(queries, "queries")
    if v.shape[1] != q.shape[1]:
        raise InputError(f"dimension mismatch: vectors {v.shape[1]}, queries {q.shape[1]}")
    if space == "l2":
        score = ((q[:, None, :] - v[None, :, :]) ** 2).sum(-1)
    elif space == "ip":
        score = -(q @ v.T)
    else:
        raise InputError(f"space must be 'l2' or 'ip', got {space!r}")
    order = np.argsort(score, axis=1, kind="stable")[:, :k]
    return order.tolist()


def hnsw_search(
    vectors: np.ndarray,
    queries: np.ndarray,
    k: int = 10,
    space: str = "l2",
    ef: int = 50,
    m: int = 16,
    seed: int = 100,
) -> list[list[int]]:
    """Approximate top-k with hnswlib (optional extra ``ann``); single-threaded and seeded
    so repeated runs agree. ``ef`` is the query-time beam (raised to k when smaller)."""
    try:
        import hnswlib
    except ImportError as exc:
        raise BackendUnavailable("hnsw_search needs hnswlib: pip install 'ragstat[ann]'") from exc
    v, q = _matrix(vectors, "vectors"), _matrix(queries, "queries")
    if space not in ("l2", "ip"):
        raise InputError(f"space must be 'l2' or 'ip', got {space!r}")
    index = hnswlib.Index(space=space, dim=v.shape[1])
    index.init_index(max_elements=v.shape[0], ef_construction=max(ef, 100), M=m, random_seed=seed)
    index.set_num_threads(1)
    index.add_items(v, np.arange(v.shape[0]))
    index.set_ef(max(ef, k))
    labels, _ = index.knn_query(q, k=min(k, v.shape[0]))
    return labels.astype(np.int64).tolist()


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
    x, y = _matrix(reference, "reference"), _matrix(current, "current")
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


def proportion_margin(rate: float, n: int, z: float = 1.96) -> float:
    """Normal-approximation half-width ``z·sqrt(p(1−p)/n)`` of a 95% interval for a rate.

    Seed 004: 200 queries at a pass rate of 0.8 → 1.96·sqrt(0.8·0.2/200) = 0.0554, about
    ±5.5 points. A planning rule of thumb; it ignores clustering by document, which widens
    the interval (use ragstat's clustered intervals for the real one).
    """
    if not 0.0 <= rate <= 1.0 or not isinstance(n, int) or n < 1 or not z > 0:
        raise InputError(f"proportion_margin: need 0 ≤ rate ≤ 1, n ≥ 1, z > 0; got {rate}, {n}")
    return z * math.sqrt(rate * (1.0 - rate) / n)
