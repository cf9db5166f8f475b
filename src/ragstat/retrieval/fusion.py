"""Reciprocal rank fusion (Cormack, Clarke & Büttcher, SIGIR 2009).

For lists r = 1..R, each ranking chunk d at rank_r(d) (from 1), over the union of
their candidates::

    score(d) = Σ_r 1 / (k + rank_r(d))        (terms only for lists that contain d)

with k = 60 by default (the original paper's value, the RAG reference). Only ranks are
used, never the members' raw scores. Fused lists follow the ranking rule of
every retriever: score descending, chunk index ascending.

Exact ties: each chunk's terms are summed in ascending order of their values,
so two chunks with the same multiset of ranks get bit-identical scores whatever
the order of the lists (floating-point addition is not associative). Chunks tied
within a member list already hold consecutive ranks there (lower index first),
so fusion carries that order forward rather than re-creating the tie.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ragstat.errors import InputError
from ragstat.retrieval.base import Retriever, SearchResult
from ragstat.retrieval.text import check_texts
from ragstat.retrieval.topk import check_exclude, check_k, empty_result

__all__ = ["RRFRetriever", "rrf"]


def _check_k_rrf(k: object) -> float:
    if isinstance(k, bool) or not isinstance(k, (int, float, np.integer, np.floating)):
        raise InputError(f"RRF k must be a positive number, got {k!r}")
    if not np.isfinite(k) or k <= 0:
        raise InputError(f"RRF k must be a positive number (60 is the usual value), got {k}")
    return float(k)


def _contributions(
    results: Sequence[SearchResult], k: float, depth: int | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """(query row, chunk index, 1/(k + rank)) for every listed candidate, and the row count."""
    if not results:
        raise InputError("rrf needs at least one result list")
    n_rows = np.asarray(results[0].indices).shape[0]
    rows, docs, terms = [], [], []
    for r, res in enumerate(results):
        idx = np.asarray(res.indices)
        if idx.ndim != 2 or idx.shape[0] != n_rows:
            raise InputError(
                f"result list {r} has shape {idx.shape}; every list needs {n_rows} rows (queries)"
            )
        if depth is not None:
            idx = idx[:, :depth]
        row, pos = np.nonzero(idx >= 0)
        doc = idx[row, pos].astype(np.int64)
        key = np.stack([row, doc])
        if np.unique(key, axis=1).shape[1] != key.shape[1]:
            raise InputError(f"result list {r} repeats a chunk within one query's ranking")
        rows.append(row)
        docs.append(doc)
        terms.append(1.0 / (k + pos + 1.0))
    return np.concatenate(rows), np.concatenate(docs), np.concatenate(terms), n_rows


def rrf(
    results: Sequence[SearchResult],
    k: float = 60,
    depth: int | None = None,
    top: int | None = None,
) -> SearchResult:
    """Fuse ranked lists (same queries, same chunk indexing) by reciprocal rank.

    ``depth``: only the first ``depth`` ranks of each list vote (None: all).
    ``top``: width of the fused rows (None: the sum of the input widths, i.e.
    room for the whole union); rows are padded with −1 / NaN.
    Padding (−1) in the inputs is skipped; a chunk repeated within one list → InputError.
    """
    k = _check_k_rrf(k)
    if depth is not None:
        depth = check_k(depth)
    rows, docs, terms, n_rows = _contributions(results, k, depth)
    if top is None:
        top = max(1, sum(np.asarray(r.indices).shape[1] for r in results))
    top = check_k(top)
    out_idx, out_val = empty_result(n_rows, top)
    if rows.size == 0:
        return SearchResult(out_idx, out_val)
    order = np.lexsort((terms, docs, rows))  # per (row, chunk): terms ascending
    rows, docs, terms = rows[order], docs[order], terms[order]
    first = np.ones(rows.size, dtype=bool)
    first[1:] = (rows[1:] != rows[:-1]) | (docs[1:] != docs[:-1])
    starts = np.flatnonzero(first)
    score = np.add.reduceat(terms, starts)
    rows, docs = rows[starts], docs[starts]
    order = np.lexsort((docs, -score, rows))  # score descending, chunk index ascending
    rows, docs, score = rows[order], docs[order], score[order]
    pos = np.arange(rows.size) - np.searchsorted(rows, np.arange(n_rows))[rows]
    keep = pos < top
    out_idx[rows[keep], pos[keep]] = docs[keep]
    out_val[rows[keep], pos[keep]] = score[keep]
    return SearchResult(out_idx, out_val)


class RRFRetriever:
    """Fits every member on the same chunks; searches each ``depth`` deep and fuses by :func:`rrf`.

    Each member gets the same ``exclude``, so a query's own chunk is in no list.
    """

    name = "rrf"

    def __init__(self, retrievers: Sequence[Retriever], k: float = 60, depth: int = 100) -> None:
        self.retrievers = list(retrievers)
        if not self.retrievers:
            raise InputError("RRFRetriever needs at least one member retriever")
        self.k = _check_k_rrf(k)
        self.depth = check_k(depth)
        self.n_chunks: int | None = None

    def fit(self, texts: Sequence[str]) -> RRFRetriever:
        texts = check_texts(texts, "texts", allow_empty=False)
        for member in self.retrievers:
            member.fit(texts)
        self.n_chunks = len(texts)
        return self

    def search(
        self, queries: Sequence[str], k: int, exclude: np.ndarray | None = None
    ) -> SearchResult:
        """Top-k of the fusion of each member's top-max(depth, k) list."""
        k = check_k(k)
        if self.n_chunks is None:
            raise InputError("RRFRetriever.search called before fit(texts)")
        queries = check_texts(queries, "queries", allow_empty=True)
        excl = check_exclude(exclude, len(queries), self.n_chunks)
        deep = max(self.depth, k)
        lists = [member.search(queries, deep, excl) for member in self.retrievers]
        return rrf(lists, k=self.k, top=k)
