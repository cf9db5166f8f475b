"""ANN Recall@k against exact search (the RAG reference, serving): top-k overlap per query.

:func:`exact_search` (brute force) gives the truth, :func:`hnsw_search` an
approximate list (hnswlib, the optional ``ann`` extra), :func:`ann_recall` scores one
against the other.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ragstat.arrays import frozen_array
from ragstat.errors import BackendUnavailable, InputError

__all__ = ["AnnRecall", "ann_recall", "embedding_matrix", "exact_search", "hnsw_search"]


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
        recall=frozen_array(out, float),
        missing=tuple(str(q) for q in exact if q not in approximate),
    )


def embedding_matrix(x: object, name: str) -> np.ndarray:
    """``x`` as a non-empty, finite 2-D float array (rows = vectors), else InputError."""
    arr = np.asarray(x, dtype=float)
    if arr.ndim != 2 or arr.shape[0] == 0 or not np.isfinite(arr).all():
        raise InputError(f"{name} must be a non-empty finite 2-D array, got shape {arr.shape}")
    return arr


def exact_search(
    vectors: np.ndarray, queries: np.ndarray, k: int = 10, space: str = "l2"
) -> list[list[int]]:
    """Brute-force top-k row indices per query: ``space="l2"`` (ascending squared distance)
    or ``"ip"`` (descending inner product); ties broken by lower index."""
    v, q = embedding_matrix(vectors, "vectors"), embedding_matrix(queries, "queries")
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
    v, q = embedding_matrix(vectors, "vectors"), embedding_matrix(queries, "queries")
    if space not in ("l2", "ip"):
        raise InputError(f"space must be 'l2' or 'ip', got {space!r}")
    index = hnswlib.Index(space=space, dim=v.shape[1])
    index.init_index(max_elements=v.shape[0], ef_construction=max(ef, 100), M=m, random_seed=seed)
    index.set_num_threads(1)
    index.add_items(v, np.arange(v.shape[0]))
    index.set_ef(max(ef, k))
    labels, _ = index.knn_query(q, k=min(k, v.shape[0]))
    return labels.astype(np.int64).tolist()
