"""Reranking deltas: the gain of a reranker on identical candidate sets.

Reranking delta (the RAG reference, "Reranking"): ΔnDCG / ΔMRR is the gain of a reranker
over no reranking, computed by running the same metric on the ranking before and
after reranking **on identical candidate sets** per query; anything else mixes a
retrieval change into the reranking gain::

    Δ = metric(after) − metric(before)   per query

The metric name goes through the same parser as `evaluate`
(:func:`ragstat.metrics.ir.names.parse_metric`) and is computed by the same
vectorised kernels (:mod:`ragstat.metrics.ir.kernels`: nDCG@k with the grade as
gain, RR@k, P@k), so a rerank delta and an `evaluate` table agree to the bit on
the same rankings. Grades here may be any finite real number (only ``rel > 0``
is relevant and counts as gain); rankings are taken in the given order.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ragstat.arrays import frozen_array
from ragstat.errors import InputError
from ragstat.metrics.ir import kernels as K
from ragstat.metrics.ir.names import Metric, parse_metric
from ragstat.metrics.ir.ranked_ids import ranked_ids, rankings_by_query

__all__ = ["RERANK_METRICS", "RerankDelta", "rerank_delta"]

#: Metric names accepted by :func:`rerank_delta` (``@k`` optional except for ``p``).
RERANK_METRICS = ("ndcg@k", "ndcg", "mrr@k", "mrr", "rr@k", "rr", "p@k")

_KINDS = frozenset({"ndcg", "mrr", "p"})  # Metric kinds behind RERANK_METRICS
_SHOW = 5  # ids shown in an error message


@dataclass(frozen=True)
class RerankDelta:
    """Per-query metric before and after reranking, and Δ = after − before.

    ``metric`` is the canonical name (``ndcg@10``, ``mrr``, ``p@5``; ``rr@k`` reads
    ``mrr@k``). ``query_ids[i]`` owns ``before[i]``, ``after[i]`` and ``delta[i]``
    (read-only float64 arrays): every qrels query with at least one relevant
    document, in qrels order. ``missing``: those of them with no ranking before or
    after (scored as empty rankings, Δ = 0). ``no_relevant``: queries with no
    relevant document in qrels (a separate slice, not scored as zero).
    ``unjudged``: queries ranked but absent from the qrels.
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


def _rerank_metric(metric: object) -> Metric:
    """`parse_metric`, restricted to the kinds of :data:`RERANK_METRICS`."""
    try:
        parsed = parse_metric(metric)  # type: ignore[arg-type]
    except InputError:
        parsed = None
    if parsed is None or parsed.kind not in _KINDS:
        raise InputError(
            f"unknown reranking metric {metric!r}; valid: {', '.join(RERANK_METRICS)} "
            "(k a positive integer, e.g. ndcg@10)"
        )
    return parsed


def _grades(qrels: object) -> dict[str, dict[str, float]]:
    """qrels as query → {doc: grade}; grades must be finite real numbers."""
    qrels = rankings_by_query(qrels, "qrels")
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


def _same_candidates(before: Mapping, after: Mapping) -> dict[str, tuple[list, list]]:
    """Both rankings per query (missing = empty); InputError at the first query whose sets differ."""
    pairs: dict[str, tuple[list, list]] = {}
    for qid in [*before, *(q for q in after if q not in before)]:
        b = ranked_ids(qid, before.get(qid, []), "before")
        a = ranked_ids(qid, after.get(qid, []), "after")
        if set(b) != set(a):
            only_b, only_a = sorted(set(b) - set(a)), sorted(set(a) - set(b))
            raise InputError(
                f"query {qid!r}: the candidate sets before and after reranking differ "
                f"({len(only_b)} only before: {only_b[:_SHOW]}, {len(only_a)} only after: "
                f"{only_a[:_SHOW]}); ΔnDCG / ΔMRR need identical candidate sets"
            )
        pairs[qid] = (b, a)
    return pairs


def _ideal(scored: list[str], grades: dict[str, dict[str, float]]) -> K.Ideal:
    """The kernels' `Ideal` of the scored queries (query index = position in ``scored``)."""
    query = [i for i, q in enumerate(scored) for _ in grades[q]]
    grade = [g for q in scored for g in grades[q].values()]
    return K.ideal_ranking(
        np.asarray(query, dtype=np.int64), np.asarray(grade, dtype=np.float64), len(scored)
    )


def _hits(rankings: list[list[str]], grades: list[dict[str, float]]) -> K.Hits:
    """The kernels' `Hits`: relevant documents of each ranking, in rank order."""
    query: list[int] = []
    rank0: list[int] = []
    gain: list[float] = []
    for i, (ranked, judged) in enumerate(zip(rankings, grades, strict=True)):
        for r, doc in enumerate(ranked):
            g = judged.get(doc, 0.0)
            if g > 0:
                query.append(i)
                rank0.append(r)
                gain.append(g)
    return K.Hits(
        np.asarray(query, dtype=np.int64),
        np.asarray(rank0, dtype=np.int64),
        np.asarray(gain, dtype=np.float64),
    )


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
    depth), ``mrr@k`` / ``rr@k``, ``mrr`` / ``rr`` (full depth), ``p@k``, parsed
    and computed as by `evaluate` (module docstring). Pools that differ for a
    query, duplicate ids, an unknown metric or no query with a relevant
    document → InputError.
    """
    m = _rerank_metric(metric)
    pairs = _same_candidates(rankings_by_query(before, "before"), rankings_by_query(after, "after"))
    grades = _grades(qrels)
    scored = [q for q, g in grades.items() if any(v > 0 for v in g.values())]
    if not scored:
        raise InputError("rerank_delta: no query in qrels has a relevant document (rel > 0)")
    scored_set = set(scored)
    ideal = _ideal(scored, grades)
    judged = [grades[q] for q in scored]
    sides = [[pairs.get(q, ([], []))[side] for q in scored] for side in (0, 1)]
    b_val, a_val = (m.compute(_hits(ranked, judged), ideal) for ranked in sides)
    return RerankDelta(
        metric=m.name,
        query_ids=tuple(scored),
        before=frozen_array(b_val, np.float64),
        after=frozen_array(a_val, np.float64),
        delta=frozen_array(a_val - b_val, np.float64),
        missing=tuple(q for q in scored if q not in pairs),
        no_relevant=tuple(q for q in grades if q not in scored_set),
        unjudged=tuple(q for q in pairs if q not in grades),
    )
