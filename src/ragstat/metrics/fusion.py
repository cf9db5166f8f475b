"""Reciprocal rank fusion of runs keyed by document id, and reranking deltas.

Reciprocal rank fusion (Cormack, Clarke & Büttcher, SIGIR 2009), seed 004 part 4.
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

Reranking delta (seed 004, "Reranking"): ΔnDCG / ΔMRR is the gain of a reranker
over no reranking, computed by running the same metric on the ranking before and
after reranking **on identical candidate sets** per query; anything else mixes a
retrieval change into the reranking gain. Kernels (relevance rel(d) from qrels;
only rel > 0 counts as relevant and as gain)::

    DCG@k  = Σ_{i=1}^{min(k, n)} rel(d_i) / log2(i + 1)
    nDCG@k = DCG@k / IDCG@k      (IDCG@k: DCG@k of the qrels' gains sorted descending)
    RR@k   = 1 / min{i ≤ k : rel(d_i) > 0}    (0 when no relevant document in the top k)
    P@k    = |{i ≤ k : rel(d_i) > 0}| / k
    Δ      = metric(after) − metric(before)   per query
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ragstat.errors import InputError

__all__ = ["RERANK_METRICS", "RerankDelta", "rerank_delta", "rrf_fuse"]

#: Metric names accepted by :func:`rerank_delta` (``@k`` optional except for ``p``).
RERANK_METRICS = ("ndcg@k", "ndcg", "mrr@k", "mrr", "rr@k", "rr", "p@k")

_METRIC = re.compile(r"^(ndcg|mrr|rr|p)(?:@(\d+))?$")
_SHOW = 5  # ids shown in an error message


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


def _ranking(qid: object, ids: object, where: str) -> list[str]:
    """``ids`` as a list of unique ``str`` document ids, or InputError naming query and list."""
    if not isinstance(qid, str):
        raise InputError(f"{where}: query ids must be strings, got {qid!r}")
    if isinstance(ids, np.ndarray) and ids.ndim == 1:
        ids = ids.tolist()
    if isinstance(ids, (str, bytes)) or not isinstance(ids, Sequence):
        raise InputError(
            f"{where}, query {qid!r}: the ranking must be a sequence of document ids, "
            f"got {type(ids).__name__}"
        )
    out = list(ids)
    seen: set[str] = set()
    for doc in out:
        if not isinstance(doc, str):
            raise InputError(f"{where}, query {qid!r}: document ids must be strings, got {doc!r}")
        if doc in seen:
            raise InputError(
                f"{where}, query {qid!r}: document {doc!r} appears more than once "
                "(rankings must hold unique document ids)"
            )
        seen.add(doc)
    return out


def _mapping(obj: object, where: str) -> Mapping:
    if not isinstance(obj, Mapping):
        raise InputError(f"{where} must be a mapping query id → ranked document ids")
    return obj


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
        run = _mapping(run, f"run {r}")
        for qid, ids in run.items():
            ranked = _ranking(qid, ids, f"run {r}")
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


# ---------------------------------------------------------------- reranking delta


@dataclass(frozen=True)
class RerankDelta:
    """Per-query metric before and after reranking, and Δ = after − before.

    ``query_ids[i]`` owns ``before[i]``, ``after[i]`` and ``delta[i]`` (read-only
    float64 arrays): every qrels query with at least one relevant document, in
    qrels order. ``missing``: those of them with no ranking before or after
    (scored as empty rankings, Δ = 0). ``no_relevant``: queries with no relevant
    document in qrels (a separate slice, not scored as zero). ``unjudged``: queries
    ranked but absent from the qrels.
    """

    metric: str
    query_ids: tuple[str, ...]
    before: np.ndarray
    after: np.ndarray
    delta: np.ndarray
    missing: tuple[str, ...]
    no_relevant: tuple[str, ...]
    unjudged: tuple[str, ...] = ()

    @property
    def n_queries(self) -> int:
        return len(self.query_ids)

    @property
    def mean_before(self) -> float:
        return float(self.before.mean())

    @property
    def mean_after(self) -> float:
        return float(self.after.mean())

    @property
    def mean_delta(self) -> float:
        """Mean Δ over the scored queries (= mean_after − mean_before up to rounding)."""
        return float(self.delta.mean())


def _parse_metric(metric: object) -> tuple[str, int | None]:
    m = _METRIC.match(metric.strip().lower()) if isinstance(metric, str) else None
    cut = None if m is None or m.group(2) is None else int(m.group(2))
    if m is None or cut == 0 or (m.group(1) == "p" and cut is None):
        raise InputError(
            f"unknown reranking metric {metric!r}; valid: {', '.join(RERANK_METRICS)} "
            "(k a positive integer, e.g. ndcg@10)"
        )
    return ("rr" if m.group(1) == "mrr" else m.group(1)), cut


def _grades(qrels: object) -> dict[str, dict[str, float]]:
    """qrels as query → {doc: grade}; grades must be finite real numbers."""
    qrels = _mapping(qrels, "qrels")
    out: dict[str, dict[str, float]] = {}
    for qid, judged in qrels.items():
        if not isinstance(qid, str) or not isinstance(judged, Mapping):
            raise InputError(f"qrels must map query id (str) → {{doc id: grade}}, got {qid!r}")
        grades: dict[str, float] = {}
        for doc, rel in judged.items():
            ok = isinstance(rel, (int, float, np.integer, np.floating)) and not isinstance(
                rel, bool
            )
            if not isinstance(doc, str) or not ok or not math.isfinite(rel):
                raise InputError(f"qrels, query {qid!r}: bad judgment {doc!r}: {rel!r}")
            grades[doc] = float(rel)
        out[qid] = grades
    return out


def _score(name: str, cut: int | None, ranked: list[str], grades: dict[str, float]) -> float:
    top = ranked if cut is None else ranked[:cut]
    gains = [max(grades.get(d, 0.0), 0.0) for d in top]
    if name == "rr":
        return next((1.0 / i for i, g in enumerate(gains, start=1) if g > 0), 0.0)
    if name == "p":
        return sum(g > 0 for g in gains) / cut
    ideal = sorted((g for g in grades.values() if g > 0), reverse=True)
    ideal = ideal if cut is None else ideal[:cut]
    dcg = sum(g / math.log2(i + 1) for i, g in enumerate(gains, start=1))
    idcg = sum(g / math.log2(i + 1) for i, g in enumerate(ideal, start=1))
    return dcg / idcg


def _check_same_candidates(before: Mapping, after: Mapping) -> dict[str, tuple[list, list]]:
    """Both rankings per query (missing = empty); InputError at the first query whose sets differ."""
    pairs: dict[str, tuple[list, list]] = {}
    for qid in [*before, *(q for q in after if q not in before)]:
        b = _ranking(qid, before.get(qid, []), "before")
        a = _ranking(qid, after.get(qid, []), "after")
        if set(b) != set(a):
            only_b, only_a = sorted(set(b) - set(a)), sorted(set(a) - set(b))
            raise InputError(
                f"query {qid!r}: the candidate sets before and after reranking differ "
                f"({len(only_b)} only before: {only_b[:_SHOW]}, {len(only_a)} only after: "
                f"{only_a[:_SHOW]}); ΔnDCG / ΔMRR need identical candidate sets"
            )
        pairs[qid] = (b, a)
    return pairs


def rerank_delta(
    qrels: Mapping[str, Mapping[str, int]],
    before: Mapping[str, Sequence[str]],
    after: Mapping[str, Sequence[str]],
    metric: str = "ndcg@10",
) -> RerankDelta:
    """ΔnDCG@k / ΔMRR@k / ΔP@k of a reranker on identical candidate sets.

    ``before`` / ``after``: query id → ranked document ids, the same pool per
    query (a query absent from one side counts as an empty pool); pass the whole
    reranked pool and let ``@k`` cut it. ``metric``: ``ndcg@k``, ``ndcg`` (full
    depth), ``mrr@k`` / ``rr@k``, ``mrr`` / ``rr`` (full depth), ``p@k``.
    Kernels and conventions: see the module docstring. Pools that differ for a
    query, duplicate ids, an unknown metric or no query with a relevant
    document → InputError.
    """
    name, cut = _parse_metric(metric)
    pairs = _check_same_candidates(_mapping(before, "before"), _mapping(after, "after"))
    grades = _grades(qrels)
    scored = [q for q, g in grades.items() if any(v > 0 for v in g.values())]
    if not scored:
        raise InputError("rerank_delta: no query in qrels has a relevant document (rel > 0)")
    scored_set = set(scored)
    no_relevant = [q for q in grades if q not in scored_set]
    unjudged = [q for q in pairs if q not in grades]
    b_val = np.empty(len(scored))
    a_val = np.empty(len(scored))
    for i, qid in enumerate(scored):
        b, a = pairs.get(qid, ([], []))
        b_val[i] = _score(name, cut, b, grades[qid])
        a_val[i] = _score(name, cut, a, grades[qid])
    delta = a_val - b_val
    for arr in (b_val, a_val, delta):
        arr.flags.writeable = False
    return RerankDelta(
        metric=metric.strip().lower(),
        query_ids=tuple(scored),
        before=b_val,
        after=a_val,
        delta=delta,
        missing=tuple(q for q in scored if q not in pairs),
        no_relevant=tuple(no_relevant),
        unjudged=tuple(unjudged),
    )
