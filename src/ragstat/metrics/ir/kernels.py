"""Vectorised per-query IR metric kernels with trec_eval's conventions.

Notation for one query q: the run ranks documents at 1-based ranks ``i = 1, 2, …``;
``rel_i`` is the qrels grade of the document at rank i (0 when unjudged);
``b_i = [rel_i ≥ 1]`` is binary relevance (trec_eval's default relevance level 1);
``R = |{d : rel(d) ≥ 1}|`` counts the relevant documents *in the qrels* (retrieved
or not); a cutoff ``k`` keeps ranks ``i ≤ k`` (no cutoff: every retrieved rank).

* ``P@k      = Σ_{i≤k} b_i / k``  (divides by k even when fewer were retrieved; trec_eval ``P_k``)
* ``recall@k = Σ_{i≤k} b_i / R``  (trec_eval ``recall_k``)
* ``hit@k    = [Σ_{i≤k} b_i > 0]`` (trec_eval ``success_k``)
* ``RR@k     = 1 / min{i ≤ k : b_i = 1}``, 0 when none (trec_eval ``recip_rank`` without k)
* ``AP@k     = (1/R) Σ_{i≤k, b_i=1} (Σ_{j≤i} b_j) / i`` (trec_eval ``map`` / ``map_cut_k``)
* ``R-prec   = Σ_{i≤R} b_i / R`` (trec_eval ``Rprec``)
* ``nDCG@k   = DCG@k / IDCG@k`` with ``DCG@k = Σ_{i≤k} g_i / log2(i + 1)``,
  gain ``g_i = max(rel_i, 0)`` (the grade itself; trec_eval ``ndcg_cut_k`` / ``ndcg``)
  and IDCG@k the same sum over the qrels' positive grades sorted descending
  (every judged document, retrieved or not).

Queries with ``R = 0`` get NaN for every metric (trec_eval reports 0; here they
are a separate slice, never averaged in as zeros). Only retrieved documents
with ``rel ≥ 1`` contribute to any of these sums, so the kernels work on those
"hits" alone: O(hits) after one lookup pass over the run.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = [
    "Hits",
    "Ideal",
    "ap",
    "hit",
    "ideal_ranking",
    "ndcg",
    "precision",
    "recall",
    "rprec",
    "rr",
]

_NO_CUTOFF = np.iinfo(np.int64).max


@dataclass(frozen=True)
class Ideal:
    """Per-qrels-query facts: ``n_rel`` (R) and the positive grades in descending order."""

    n_rel: np.ndarray  # int64, one per query
    query: np.ndarray  # query index of each positive grade, grouped, grades descending
    rank0: np.ndarray  # 0-based position of that grade in its query's ideal ranking
    gain: np.ndarray  # float64 grade


@dataclass(frozen=True)
class Hits:
    """Retrieved documents with ``rel ≥ 1``, grouped by query, rank ascending within a query."""

    query: np.ndarray  # int64 query index
    rank0: np.ndarray  # int64 0-based rank
    gain: np.ndarray  # float64 grade

    def within(self, k: int | None) -> np.ndarray:
        return self.rank0 < (_NO_CUTOFF if k is None else k)


def ideal_ranking(query: np.ndarray, grade: np.ndarray, n_queries: int) -> Ideal:
    """`Ideal` from judgments: ``query[j]`` (query index) judged ``grade[j]``.

    Grades ``> 0`` are relevant (R counts them); each query's relevant grades are
    sorted descending into its ideal ranking. Integer (qrels) or real grades.
    """
    pos = grade > 0
    q, g = query[pos], grade[pos]
    n_rel = np.bincount(q, minlength=n_queries).astype(np.int64)
    order = np.lexsort((-g, q))
    q, g = q[order], g[order].astype(np.float64)
    starts = np.concatenate([[0], np.cumsum(n_rel)[:-1]])
    return Ideal(n_rel, q, np.arange(len(q)) - starts[q], g)


def _per_query(query: np.ndarray, weights: np.ndarray | None, n: int) -> np.ndarray:
    return np.bincount(query, weights=weights, minlength=n).astype(np.float64)


def _over_r(total: np.ndarray, ideal: Ideal) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        out = total / ideal.n_rel
    out[ideal.n_rel == 0] = np.nan
    return out


def _nan_if_no_rel(values: np.ndarray, ideal: Ideal) -> np.ndarray:
    values[ideal.n_rel == 0] = np.nan
    return values


def precision(hits: Hits, ideal: Ideal, k: int) -> np.ndarray:
    """P@k = (relevant in the top k) / k."""
    m = hits.within(k)
    return _nan_if_no_rel(_per_query(hits.query[m], None, len(ideal.n_rel)) / k, ideal)


def recall(hits: Hits, ideal: Ideal, k: int) -> np.ndarray:
    """Recall@k = (relevant in the top k) / R."""
    m = hits.within(k)
    return _over_r(_per_query(hits.query[m], None, len(ideal.n_rel)), ideal)


def hit(hits: Hits, ideal: Ideal, k: int) -> np.ndarray:
    """Hit@k (success@k) = 1 when a relevant document is in the top k, else 0."""
    m = hits.within(k)
    found = _per_query(hits.query[m], None, len(ideal.n_rel)) > 0
    return _nan_if_no_rel(found.astype(np.float64), ideal)


def rprec(hits: Hits, ideal: Ideal) -> np.ndarray:
    """R-precision = (relevant in the top R) / R."""
    m = hits.rank0 < ideal.n_rel[hits.query]
    return _over_r(_per_query(hits.query[m], None, len(ideal.n_rel)), ideal)


def _group_start(query: np.ndarray) -> np.ndarray:
    """Index of the first element of each element's (contiguous) group."""
    first = np.ones(len(query), dtype=bool)
    first[1:] = query[1:] != query[:-1]
    return np.maximum.accumulate(np.where(first, np.arange(len(query)), 0))


def rr(hits: Hits, ideal: Ideal, k: int | None) -> np.ndarray:
    """RR@k = 1 / (rank of the first relevant document), 0 when none within k."""
    out = np.zeros(len(ideal.n_rel))
    if len(hits.query):
        first = np.ones(len(hits.query), dtype=bool)
        first[1:] = hits.query[1:] != hits.query[:-1]
        q, r0 = hits.query[first], hits.rank0[first]
        ok = r0 < (_NO_CUTOFF if k is None else k)
        out[q[ok]] = 1.0 / (r0[ok] + 1)
    return _nan_if_no_rel(out, ideal)


def ap(hits: Hits, ideal: Ideal, k: int | None) -> np.ndarray:
    """AP@k = (1/R) Σ over relevant ranks i ≤ k of precision@i."""
    # relevant documents so far in the query, this one included
    seen = np.arange(len(hits.query)) - _group_start(hits.query) + 1
    prec = seen / (hits.rank0 + 1.0)
    m = hits.within(k)
    return _over_r(_per_query(hits.query[m], prec[m], len(ideal.n_rel)), ideal)


def ndcg(hits: Hits, ideal: Ideal, k: int | None) -> np.ndarray:
    """nDCG@k = Σ_{i≤k} g_i / log2(i+1) over the same sum for the ideal (qrels) ordering."""
    n = len(ideal.n_rel)
    m = hits.within(k)
    dcg = _per_query(hits.query[m], hits.gain[m] / np.log2(hits.rank0[m] + 2.0), n)
    mi = ideal.rank0 < (_NO_CUTOFF if k is None else k)
    idcg = _per_query(ideal.query[mi], ideal.gain[mi] / np.log2(ideal.rank0[mi] + 2.0), n)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = dcg / idcg
    return _nan_if_no_rel(out, ideal)
