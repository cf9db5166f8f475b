"""Per-query outcomes of the self-retrieval protocol from a ranked result list.

For query i (a chunk of document d_i) and its top-k list, with the query's own
chunk already excluded: ``first_rank`` is the 1-based rank of the first chunk
of d_i (null when none is in the top k), ``hit@j`` = first_rank ≤ j,
``rr`` = 1/first_rank (0 when null), ``top1_tied`` = the top score is shared by
the second result (the tie was broken by corpus order).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ragstat.retrieval.base import SearchResult

__all__ = ["Outcomes", "outcomes"]


@dataclass(frozen=True, eq=False)
class Outcomes:
    """Columns, one entry per query."""

    first_rank: np.ndarray  # float, NaN when not in the top k
    hit: dict[int, np.ndarray]  # j -> 0/1 for j in (1, 5, 10) with j ≤ k
    rr: np.ndarray
    top1_index: np.ndarray  # −1 when the list is empty
    top1_score: np.ndarray
    top1_tied: np.ndarray


def outcomes(result: SearchResult, query_doc: np.ndarray, chunk_doc: np.ndarray) -> Outcomes:
    """Hit/rank columns from top-k indices; ``query_doc`` and ``chunk_doc`` are document codes."""
    idx = result.indices
    Q, k = idx.shape
    found = idx >= 0
    docs = np.where(found, chunk_doc[np.maximum(idx, 0)], -1)
    same = found & (docs == query_doc[:, None])
    any_same = same.any(axis=1)
    first = np.where(any_same, same.argmax(axis=1) + 1.0, np.nan)
    hit = {j: (any_same & (first <= j)).astype(np.int8) for j in (1, 5, 10) if j <= k}
    rr = np.where(any_same, 1.0 / np.where(any_same, first, 1.0), 0.0)
    scores = result.scores
    tied = found[:, 1] & (scores[:, 0] == scores[:, 1]) if k > 1 else np.zeros(Q, bool)
    return Outcomes(
        first_rank=first,
        hit=hit,
        rr=rr,
        top1_index=idx[:, 0].astype(np.int64),
        top1_score=np.where(found[:, 0], scores[:, 0], np.nan),
        top1_tied=tied,
    )
