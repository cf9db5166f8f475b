"""Columnar storage behind `Qrels` and `Run`: one flat array per field, grouped by query.

Query ``query_ids[i]`` owns rows ``offsets[i]:offsets[i + 1]``; row ``r`` names
document ``doc_vocab[doc_codes[r]]`` and carries ``values[r]`` (a run's score,
or a qrels' graded relevance). In a run, rows of a query are in rank order.

Building these arrays is where every structural check happens (one document
twice for a query, non-finite scores), so the metric kernels never re-check.

Ranking order of a run (trec_eval's ``comp_sim_docno`` in ``form_res_rels.c``):
score descending, ties broken by document id descending in ``strcmp`` (byte)
order; any rank column is ignored. Python compares ``str`` by code point, which
is the byte order of their UTF-8 encoding, so the two orders agree.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ragstat.errors import InputError

__all__ = [
    "Columns",
    "JudgmentsView",
    "Locate",
    "RankingsView",
    "build_columns",
    "group_codes",
    "trec_order",
]

Locate = Callable[[int], str]
"""Maps a row's index in the caller's input order to a location (``file:line``, ``row 7``)."""


@dataclass(frozen=True, eq=False)
class Columns:
    """Flat, query-grouped arrays (see the module docstring); immutable once built."""

    query_ids: np.ndarray  # object array of str, unique, order of first appearance
    offsets: np.ndarray  # int64, len(query_ids) + 1
    doc_codes: np.ndarray  # int64 indices into doc_vocab
    doc_vocab: np.ndarray  # object array of str, unique
    values: np.ndarray  # float64 scores (run) or int64 relevance (qrels)

    def __post_init__(self) -> None:
        for arr in (self.query_ids, self.offsets, self.doc_codes, self.doc_vocab, self.values):
            arr.flags.writeable = False

    @property
    def n_rows(self) -> int:
        return int(self.offsets[-1])

    @property
    def lengths(self) -> np.ndarray:
        return np.diff(self.offsets)

    def row_query(self) -> np.ndarray:
        """Query index (into ``query_ids``) of every row."""
        return np.repeat(np.arange(len(self.query_ids), dtype=np.int64), self.lengths)

    def same_as(self, other: Columns) -> bool:
        """Element-wise equality (document ids compared as strings, not codes)."""
        return (
            np.array_equal(self.query_ids, other.query_ids)
            and np.array_equal(self.offsets, other.offsets)
            and np.array_equal(self.doc_vocab[self.doc_codes], other.doc_vocab[other.doc_codes])
            and np.array_equal(self.values, other.values)
        )


class _View(Mapping):
    """Read-only mapping over `Columns`; subclasses decide what one query's entry looks like."""

    __slots__ = ("_columns", "_index")

    def __init__(self, columns: Columns):
        self._columns = columns
        self._index: dict[str, int] | None = None

    @property
    def columns(self) -> Columns:
        return self._columns

    def _bounds(self, query_id: str) -> tuple[int, int]:
        if self._index is None:
            self._index = {q: i for i, q in enumerate(self._columns.query_ids.tolist())}
        i = self._index[query_id]
        return int(self._columns.offsets[i]), int(self._columns.offsets[i + 1])

    def _docs(self, lo: int, hi: int) -> list[str]:
        return self._columns.doc_vocab[self._columns.doc_codes[lo:hi]].tolist()

    def __iter__(self) -> Iterator[str]:
        return iter(self._columns.query_ids.tolist())

    def __len__(self) -> int:
        return len(self._columns.query_ids)

    def __contains__(self, query_id: object) -> bool:
        try:
            self._bounds(query_id)  # type: ignore[arg-type]
        except (KeyError, TypeError):
            return False
        return True

    def __eq__(self, other: object) -> bool:
        if isinstance(other, _View) and type(other) is type(self):
            return self._columns.same_as(other._columns)
        return Mapping.__eq__(self, other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        cols = self._columns
        return f"{type(self).__name__}({len(cols.query_ids)} queries, {cols.n_rows} rows)"


class RankingsView(_View):
    """``query_id → [(doc_id, score), …]`` in rank order, read from `Columns`."""

    def __getitem__(self, query_id: str) -> list[tuple[str, float]]:
        lo, hi = self._bounds(query_id)
        return list(zip(self._docs(lo, hi), self._columns.values[lo:hi].tolist(), strict=True))


class JudgmentsView(_View):
    """``query_id → {doc_id: relevance}``, read from `Columns`."""

    def __getitem__(self, query_id: str) -> dict[str, int]:
        lo, hi = self._bounds(query_id)
        return dict(zip(self._docs(lo, hi), self._columns.values[lo:hi].tolist(), strict=True))


def group_codes(values: Any) -> tuple[np.ndarray, np.ndarray]:
    """``(codes, uniques)`` in order of first appearance; O(n) when equal values are contiguous."""
    series = (
        values if isinstance(values, pd.Series) else pd.Series(np.asarray(values, dtype=object))
    )
    n = len(series)
    if n == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=object)
    change = series.ne(series.shift()).to_numpy(dtype=bool, na_value=True).copy()  # arrow: fast
    change[0] = True
    heads = series[change].to_numpy(dtype=object)
    if len(pd.unique(heads)) == len(heads):  # every query's rows are contiguous
        return np.cumsum(change, dtype=np.int64) - 1, heads
    codes, uniques = pd.factorize(series)
    return np.asarray(codes, dtype=np.int64), np.asarray(uniques, dtype=object)


def _doc_codes(values: Any) -> tuple[np.ndarray, np.ndarray]:
    codes, uniques = pd.factorize(values)
    return np.asarray(codes, dtype=np.int64), np.asarray(uniques, dtype=object)


def trec_order(
    qcodes: np.ndarray, scores: np.ndarray, dcodes: np.ndarray, vocab: np.ndarray
) -> np.ndarray:
    """Row permutation: query code ascending, then trec_eval's rank order within a query.

    Within a query: ``score`` descending, equal scores by document id descending
    (``strcmp(b, a)`` in trec_eval). O(n) when the input is already in that order
    apart from ties; only rows inside tie groups are sorted by document id.
    """
    n = len(qcodes)
    in_order = n < 2 or bool(
        np.all(
            (qcodes[1:] > qcodes[:-1]) | ((qcodes[1:] == qcodes[:-1]) & (scores[1:] <= scores[:-1]))
        )
    )
    if in_order:
        order = np.arange(n, dtype=np.int64)
    else:
        order = np.argsort(-scores, kind="stable")
        order = order[np.argsort(qcodes[order], kind="stable")]
    qs, ss = qcodes[order], scores[order]
    tie = (qs[1:] == qs[:-1]) & (ss[1:] == ss[:-1])
    if not tie.any():
        return order
    member = np.zeros(n, dtype=bool)
    member[1:] |= tie
    member[:-1] |= tie
    rows = np.flatnonzero(member)
    starts = np.ones(len(rows), dtype=bool)
    starts[1:] = ~tie[rows[1:] - 1]
    group = np.cumsum(starts)
    names = vocab[dcodes[order[rows]]]
    name_rank, _ = pd.factorize(names, sort=True)  # ascending code-point order
    order[rows] = order[rows][np.lexsort((-name_rank, group))]
    return order


def _first_duplicate(qcodes: np.ndarray, dcodes: np.ndarray, n_docs: int) -> tuple[int, int] | None:
    """Input rows ``(i, j)``, ``i < j``, of one (query, document) pair seen twice, else None."""
    key = qcodes * max(n_docs, 1) + dcodes
    ordered = np.sort(key)
    if not (ordered[1:] == ordered[:-1]).any():
        return None
    order = np.argsort(key, kind="stable")
    same = key[order[1:]] == key[order[:-1]]
    if not same.any():
        return None
    at = np.flatnonzero(same)
    pairs = np.stack([order[at], order[at + 1]], axis=1)
    i, j = pairs[np.argmin(pairs[:, 1])]
    return int(i), int(j)


def build_columns(
    query_ids: Any,
    doc_ids: Any,
    values: np.ndarray,
    *,
    kind: str,
    what: str,
    locate: Locate,
    order: str,
    queries: np.ndarray | None = None,
) -> Columns:
    """Group rows by query and check them; ids must already be strings.

    ``order``: ``"trec"`` sorts each query's rows into trec_eval's rank order
    (runs); ``"given"`` keeps each query's rows in input order (qrels, ranked lists).
    ``kind`` is ``"run"`` or ``"qrels"``; ``what`` names the input in errors
    (``"run 'bm25' (runs/bm25.trec)"``, ``"qrels"``). ``queries``, when given, is
    the full list of query ids in order (unique), so queries without rows are kept.
    """
    if queries is None:
        qcodes, qids = group_codes(query_ids)
    else:
        qids = np.asarray(queries, dtype=object)
        qcodes = pd.Index(qids).get_indexer(np.asarray(query_ids, dtype=object)).astype(np.int64)
    dcodes, vocab = _doc_codes(doc_ids)
    dup = _first_duplicate(qcodes, dcodes, len(vocab))
    if dup is not None:
        i, j = dup
        q, d = qids[qcodes[i]], vocab[dcodes[i]]
        entry = "ranks document" if kind == "run" else "has a judgment for document"
        raise InputError(
            f"{what}: query {q!r} {entry} {d!r} twice ({locate(i)} and {locate(j)}); "
            "each document may appear once per query: remove or merge the duplicate"
        )
    if order == "trec":
        perm = trec_order(qcodes, values, dcodes, vocab)
    elif bool(np.all(qcodes[1:] >= qcodes[:-1])):
        perm = None
    else:
        perm = np.argsort(qcodes, kind="stable")
    if perm is not None:
        qcodes, dcodes, values = qcodes[perm], dcodes[perm], values[perm]
    offsets = np.zeros(len(qids) + 1, dtype=np.int64)
    np.cumsum(np.bincount(qcodes, minlength=len(qids)), out=offsets[1:])
    return Columns(qids, offsets, dcodes, vocab, np.ascontiguousarray(values))
