"""Reciprocal rank fusion of runs keyed by document id.

Reciprocal rank fusion (Cormack, Clarke & Büttcher, SIGIR 2009), the RAG reference part 4.
For runs r = 1..R and each query, every document d listed by run r at rank_r(d)
(from 1) scores, over the union of the runs' documents::

    score(d) = Σ_r 1 / (k + rank_r(d))        (terms only for runs that list d)

with k = 60 by default (the paper's value). Only ranks are used, never the raw
scores of the members, so no cross-lane normalisation is needed. This is the
id-keyed twin of :func:`ragstat.retrieval.fusion.rrf` (chunk-index arrays) with
the same conventions:

* fused lists are sorted by score descending, then document id ascending
  (plain ``str`` order, so ``"d10" < "d2"``);
* each document's terms are summed in ascending order of their values, so two
  documents with the same multiset of ranks tie bit-for-bit whatever the order
  of the runs (floating-point addition is not associative).

Reranking deltas on the same kernels: :mod:`ragstat.metrics.ir.rerank`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from ragstat.errors import InputError
from ragstat.metrics.ir.ranked_ids import ranked_ids, rankings_by_query

__all__ = ["rrf_fuse"]


def _check_rrf_k(k: object) -> float:
    if isinstance(k, bool) or not isinstance(k, (int, float, np.integer, np.floating)):
        raise InputError(f"RRF k must be a positive number, got {k!r}")
    if not math.isfinite(k) or k <= 0:
        raise InputError(f"RRF k must be a positive finite number (60 is the usual value), got {k}")
    return float(k)


def _check_depth(depth: object) -> int | None:
    if depth is None:
        return None
    if isinstance(depth, bool) or not isinstance(depth, (int, np.integer)) or depth <= 0:
        raise InputError(f"depth must be a positive integer or None, got {depth!r}")
    return int(depth)


def rrf_fuse(
    rankings: Sequence[Mapping[str, Sequence[str]]],
    k: float = 60,
    depth: int | None = None,
) -> dict[str, list[tuple[str, float]]]:
    """Fuse runs (query id → ranked document ids) by reciprocal rank.

    ``score(d) = Σ_r 1 / (k + rank_r(d))`` over the runs that list d, ranks from 1.
    ``depth``: only the first ``depth`` ranks of each run vote (None: all).
    Returns query id → [(doc id, score), …] sorted by score descending, then doc
    id ascending; queries appear in order of first appearance (run 0 first) and
    a query every run ranks empty maps to ``[]``.
    ``k`` ≤ 0 or non-finite, no runs, or a document repeated within one query's
    list (anywhere in it) → InputError naming the query and the run.
    """
    k = _check_rrf_k(k)
    depth = _check_depth(depth)
    if isinstance(rankings, Mapping) or not isinstance(rankings, Sequence) or not rankings:
        raise InputError("rrf_fuse needs a non-empty sequence of runs (query id → ranked ids)")
    terms: dict[str, dict[str, list[float]]] = {}
    for r, run in enumerate(rankings):
        run = rankings_by_query(run, f"run {r}")
        for qid, ids in run.items():
            ranked = ranked_ids(qid, ids, f"run {r}")
            per_doc = terms.setdefault(qid, {})
            for rank, doc in enumerate(ranked[:depth], start=1):
                per_doc.setdefault(doc, []).append(1.0 / (k + rank))
    fused: dict[str, list[tuple[str, float]]] = {}
    for qid, per_doc in terms.items():
        scored = [(doc, _ascending_sum(t)) for doc, t in per_doc.items()]
        scored.sort(key=lambda ds: (-ds[1], ds[0]))
        fused[qid] = scored
    return fused


def _ascending_sum(values: list[float]) -> float:
    total = 0.0
    for v in sorted(values):
        total += v
    return total
