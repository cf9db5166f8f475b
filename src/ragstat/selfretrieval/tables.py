"""Records and candidates of a study from ranked lists, in two steps shared by every engine.

1. :func:`outcome_columns` / :func:`candidate_columns`: numbers only, in index
   coordinates (a chunk is its position in the index) — what a batch worker
   computes and writes as a Parquet part;
2. :func:`records_frame` / :func:`candidates_frame`: the same columns labelled
   with chunk ids, document ids and positions — done once by the client.

The in-process study runs both steps on all queries at once; the batched study
runs step 1 per batch and step 2 on the concatenated parts, so the tables are
the same rows with the same values in the same order.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ragstat.retrieval.base import SearchResult
from ragstat.selfretrieval.outcomes import outcomes

__all__ = [
    "CANDIDATE_COLUMNS",
    "RECORD_COLUMNS",
    "Labels",
    "candidate_columns",
    "candidates_frame",
    "outcome_columns",
    "records_frame",
]

#: Numeric record columns (index coordinates) in the order they are written.
RECORD_COLUMNS = (
    "query",
    "hit1",
    "first_rank",
    "rr",
    "hit5",
    "hit10",
    "top1",
    "top1_score",
    "top1_tied",
)
#: Numeric candidate columns (index coordinates).
CANDIDATE_COLUMNS = ("query", "rank", "chunk", "score")


@dataclass(frozen=True, eq=False)
class Labels:
    """Per indexed chunk (index coordinates): chunk id, document id and position in it."""

    chunk_id: np.ndarray
    doc_id: np.ndarray
    position: np.ndarray


def outcome_columns(
    res: SearchResult, query: np.ndarray, chunk_doc: np.ndarray
) -> dict[str, np.ndarray]:
    """Per query: ``query`` (its chunk's index position), hit/rank columns, the top result.

    ``chunk_doc``: document code of every indexed chunk; ``res``: index coordinates.
    """
    o = outcomes(res, chunk_doc[query], chunk_doc)
    cols = {"query": np.asarray(query, dtype=np.int64), "hit1": o.hit[1]}
    cols["first_rank"] = o.first_rank
    cols["rr"] = o.rr
    cols.update({f"hit{j}": v for j, v in o.hit.items() if j > 1})
    cols.update(top1=o.top1_index, top1_score=o.top1_score, top1_tied=o.top1_tied)
    return cols


def candidate_columns(res: SearchResult, query: np.ndarray, k: int) -> dict[str, np.ndarray]:
    """The first ``k`` listed chunks of every query: query, rank (from 1), chunk, score."""
    keep = res.indices >= 0
    keep[:, k:] = False
    rows, ranks = np.nonzero(keep)
    return {
        "query": np.asarray(query, dtype=np.int64)[rows],
        "rank": ranks + 1,
        "chunk": res.indices[keep],
        "score": res.scores[keep],
    }


def records_frame(
    name: str,
    cols: dict[str, np.ndarray],
    labels: Labels,
    weight: np.ndarray | None = None,
) -> pd.DataFrame:
    """One row per query: ids, hit columns, the top result; ``weight`` when sampled."""
    q = cols["query"]
    top = cols["top1"]
    hits: dict[str, np.ndarray] = {c: cols[c] for c in ("hit5", "hit10") if c in cols}
    columns: dict[str, object] = {
        "query_id": labels.chunk_id[q],
        "doc_id": labels.doc_id[q],
        "position": labels.position[q],
        "retriever": name,
        "hit1": cols["hit1"],
        "first_rank": pd.Series(cols["first_rank"]).astype("Int64"),  # null: not in top k
        "rr": cols["rr"],
        **hits,
        "top1_chunk": np.where(top >= 0, labels.chunk_id[np.maximum(top, 0)], None),
        "top1_doc": np.where(top >= 0, labels.doc_id[np.maximum(top, 0)], None),
        "top1_score": cols["top1_score"],
        "top1_tied": cols["top1_tied"],
    }
    frame = pd.DataFrame(columns)
    if weight is not None:
        frame["weight"] = weight
    return frame


def candidates_frame(name: str, cols: dict[str, np.ndarray], labels: Labels) -> pd.DataFrame:
    chunk = cols["chunk"]
    return pd.DataFrame(
        {
            "query_id": labels.chunk_id[cols["query"]],
            "retriever": name,
            "rank": cols["rank"],
            "chunk_id": labels.chunk_id[chunk],
            "doc_id": labels.doc_id[chunk],
            "score": cols["score"],
        }
    )
