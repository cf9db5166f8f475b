"""Relevance judgments (`Qrels`) and ranked results (`Run`): readers and constructors.

Formats
-------
* TREC qrels ``qid iter docid rel`` and TREC runs ``qid Q0 docid rank score tag``
  (whitespace separated; blank lines skipped; ``.gz`` read transparently).
* JSONL (``.jsonl``/``.ndjson``/``.json``), CSV (``.csv``), TSV (``.tsv``) and
  Parquet (``.parquet``/``.pq``) with columns ``query_id``, ``doc_id`` and
  ``relevance`` (qrels) or ``score`` [+ optional ``rank``] (runs).
* Python dicts (`qrels_from_dict`, `run_from_dict`) and DataFrames
  (`qrels_from_frame`, `run_from_frame`).

Ranking order, exactly as trec_eval (``form_res_rels.c``, comparator
``comp_sim_docno``) and therefore pytrec_eval / ir_measures: the rank column is
ignored; documents are sorted by score descending and equal scores by document
id *descending* in byte (``strcmp``) order. E.g. scores ``{a: 1, b: 1, c: 2}``
rank ``c, b, a``. A run given only ranks (no score) is ordered by rank.
Checked against pytrec_eval in ``tests/reference/ir`` (tie blocks, ids that
sort differently as numbers and as strings, shuffled rank columns).

Contracts: a document twice for one query is an `InputError` naming the query
(never de-duplicated silently); scores must be finite; relevance grades are
integers (``rel ≤ 0`` = not relevant); qrels cannot be empty. Ids are strings
(integers are accepted and turned into strings).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ragstat.errors import InputError
from ragstat.records.query_columns import Columns, JudgmentsView, RankingsView, build_columns
from ragstat.records.trec import (
    TREC_QRELS,
    TREC_RUN,
    RawTable,
    frame_ids,
    frame_numbers,
    read_table,
    require_columns,
)

__all__ = [
    "Qrels",
    "Run",
    "qrels_from_dict",
    "qrels_from_frame",
    "read_qrels",
    "read_run",
    "run_from_dict",
    "run_from_frame",
]


def _as_id(value: Any, what: str) -> str:
    if isinstance(value, str) and value:
        return value
    if isinstance(value, int | np.integer) and not isinstance(value, bool | np.bool_):
        return str(value)
    raise InputError(f"{what} must be a non-empty string (or an integer), got {value!r}")


def _as_grade(value: Any, where: str) -> int:
    if isinstance(value, bool | np.bool_):
        raise InputError(
            f"{where}: relevance {value!r} is a boolean; use integer grades (0, 1, 2, …)"
        )
    if isinstance(value, int | np.integer):
        return int(value)
    if isinstance(value, float | np.floating) and float(value).is_integer():
        return int(value)
    raise InputError(
        f"{where}: relevance {value!r} is not an integer; use integer grades "
        "(0 = not relevant, 1, 2, … graded)"
    )


def _as_score(value: Any, where: str) -> float:
    ok = isinstance(value, int | float | np.integer | np.floating) and not isinstance(
        value, bool | np.bool_
    )
    if not ok or not math.isfinite(float(value)):
        raise InputError(f"{where}: score {value!r} is not a finite number")
    return float(value)


def _nested_columns(data: Mapping, kind: str, what: str) -> Columns:
    """Columns from ``{qid: {doc: grade}}`` (qrels) or ``{qid: [(doc, score), …]}`` (run)."""
    if not isinstance(data, Mapping):
        raise InputError(
            f"{what}: expected a mapping query_id → entries, got {type(data).__name__}"
        )
    qids: list[str] = []
    docs: list[str] = []
    values: list[Any] = []
    where: list[int] = []  # position of each entry within its query
    order: dict[str, None] = {}
    for q, entries in data.items():
        qid = _as_id(q, f"{what}: query id")
        if qid in order:
            raise InputError(
                f"{what}: query id {qid!r} given twice (as {q!r}): merge the two entries"
            )
        order[qid] = None
        if kind == "qrels":
            if not isinstance(entries, Mapping):
                raise InputError(f"{what}: query {qid!r} must map doc_id → relevance")
            pairs = list(entries.items())
        else:
            if isinstance(entries, str | bytes | Mapping) or not isinstance(entries, Sequence):
                raise InputError(
                    f"{what}: query {qid!r} must hold a ranked list of (doc_id, score) pairs "
                    "(use run_from_dict for {doc: score} or plain doc lists)"
                )
            pairs = list(entries)
        for pos, pair in enumerate(pairs):
            spot = f"{what}: query {qid!r}, entry {pos}"
            if not (isinstance(pair, tuple | list) and len(pair) == 2):
                raise InputError(f"{spot}: expected a (doc_id, score) pair, got {pair!r}")
            doc, value = pair
            docs.append(_as_id(doc, f"{spot}: doc id"))
            values.append(_as_grade(value, spot) if kind == "qrels" else _as_score(value, spot))
            qids.append(qid)
            where.append(pos)
    dtype = np.int64 if kind == "qrels" else np.float64
    return build_columns(
        np.array(qids, dtype=object),
        np.array(docs, dtype=object),
        np.array(values, dtype=dtype),
        kind=kind,
        what=what,
        locate=lambda i: f"entry {where[i]}",
        order="given",
        queries=np.array(list(order), dtype=object),
    )


@dataclass(frozen=True)
class Qrels:
    """Graded judgments ``query_id → {doc_id: relevance}`` (``rel ≤ 0`` = not relevant).

    Stored column-wise (`columns`); ``judgments`` is a read-only mapping view.
    Mapping access works on the object itself: ``qrels["q1"]["d3"]``.
    """

    judgments: Mapping[str, Mapping[str, int]]
    columns: Columns = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        view = self.judgments
        if not isinstance(view, JudgmentsView):
            view = JudgmentsView(_nested_columns(view, "qrels", "qrels"))
            object.__setattr__(self, "judgments", view)
        object.__setattr__(self, "columns", view.columns)
        if self.columns.n_rows == 0:
            raise InputError(
                "qrels are empty: give at least one judgment (query_id, doc_id, relevance)"
            )

    def __getitem__(self, query_id: str) -> dict[str, int]:
        return self.judgments[query_id]  # type: ignore[return-value]

    def __iter__(self):
        return iter(self.judgments)

    def __len__(self) -> int:
        return len(self.judgments)

    def __contains__(self, query_id: object) -> bool:
        return query_id in self.judgments

    def to_frame(self) -> pd.DataFrame:
        """``query_id, doc_id, relevance``: one row per judgment."""
        c = self.columns
        return pd.DataFrame(
            {
                "query_id": c.query_ids[c.row_query()],
                "doc_id": c.doc_vocab[c.doc_codes],
                "relevance": c.values,
            }
        )


@dataclass(frozen=True)
class Run:
    """Ranked results ``query_id → [(doc_id, score), …]`` in rank order, and the system's name.

    Lists given directly are taken in the given order (scores are kept, not
    re-sorted); readers and `run_from_dict` / `run_from_frame` order by
    trec_eval's rule (module docstring). Stored column-wise (`columns`).
    """

    rankings: Mapping[str, Sequence[tuple[str, float]]]
    name: str = "run"
    columns: Columns = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise InputError(f"run name must be a non-empty string, got {self.name!r}")
        view = self.rankings
        if not isinstance(view, RankingsView):
            view = RankingsView(_nested_columns(view, "run", f"run {self.name!r}"))
            object.__setattr__(self, "rankings", view)
        object.__setattr__(self, "columns", view.columns)

    def __getitem__(self, query_id: str) -> list[tuple[str, float]]:
        return self.rankings[query_id]  # type: ignore[return-value]

    def __iter__(self):
        return iter(self.rankings)

    def __len__(self) -> int:
        return len(self.rankings)

    def __contains__(self, query_id: object) -> bool:
        return query_id in self.rankings

    def to_frame(self) -> pd.DataFrame:
        """``query_id, doc_id, score, rank`` (rank 1-based, in stored order)."""
        c = self.columns
        rows = c.row_query()
        rank = np.arange(c.n_rows, dtype=np.int64) - c.offsets[rows] + 1
        return pd.DataFrame(
            {
                "query_id": c.query_ids[rows],
                "doc_id": c.doc_vocab[c.doc_codes],
                "score": c.values,
                "rank": rank,
            }
        )


def _ranked_pairs(qid: str, entries: Any, what: str) -> list[tuple[Any, Any]]:
    """One query of `run_from_dict` as (doc, score) pairs in rank order."""
    if isinstance(entries, Mapping):
        pairs = [(d, _as_score(s, f"{what}: query {qid!r}, doc {d!r}")) for d, s in entries.items()]
        pairs.sort(key=lambda p: str(p[0]), reverse=True)  # ties: doc id descending (trec_eval)
        pairs.sort(key=lambda p: -p[1])  # stable: score descending
        return pairs
    if isinstance(entries, str | bytes) or not isinstance(entries, Sequence):
        raise InputError(
            f"{what}: query {qid!r} must hold {{doc: score}} or a ranked list of doc ids"
        )
    items = list(entries)
    if all(isinstance(x, str) for x in items):
        return [(d, float(len(items) - i)) for i, d in enumerate(items)]
    return items


def run_from_dict(data: Mapping[str, Any], name: str = "run") -> Run:
    """A `Run` from ``{qid: {doc: score}}``, ``{qid: [doc, …]}`` or ``{qid: [(doc, score), …]}``.

    ``{doc: score}`` is ordered by trec_eval's rule (score desc, doc id desc);
    a list keeps its order (plain doc lists get scores ``n, n-1, …, 1``).
    """
    what = f"run {name!r}"
    if not isinstance(data, Mapping):
        raise InputError(
            f"{what}: expected a mapping query_id → ranking, got {type(data).__name__}"
        )
    return Run({q: _ranked_pairs(str(q), v, what) for q, v in data.items()}, name=name)


def qrels_from_dict(data: Mapping[str, Any]) -> Qrels:
    """`Qrels` from ``{qid: {doc: relevance}}`` or ``{qid: {doc, …}}`` (a set/list: relevance 1)."""
    if not isinstance(data, Mapping):
        raise InputError(
            f"qrels: expected a mapping query_id → judgments, got {type(data).__name__}"
        )
    nested = {}
    for q, v in data.items():
        if isinstance(v, Mapping):
            nested[q] = v
        elif isinstance(v, str | bytes) or not isinstance(v, set | frozenset | Sequence):
            raise InputError(f"qrels: query {q!r} must hold {{doc: relevance}} or a set of doc ids")
        else:
            docs = list(v)
            if len(set(docs)) != len(docs):
                raise InputError(f"qrels: query {q!r} lists a document twice: remove the duplicate")
            nested[q] = dict.fromkeys(docs, 1)
    return Qrels(nested)


# --------------------------------------------------------------------------- frames


def _with_reread(raw: RawTable, build):
    try:
        return build(raw)
    except InputError:
        if raw.reread is None:
            raise
        return build(raw.reread())  # exact line numbers in the error


def _qrels_table(raw: RawTable, cols: tuple[str, str, str], what: str) -> Qrels:
    q, d, r = cols
    require_columns(raw.frame, list(cols), what)
    qid = frame_ids(raw.frame, q, raw.locate, what)
    doc = frame_ids(raw.frame, d, raw.locate, what)
    rel = frame_numbers(raw.frame[r], r, raw.locate, what, integer=True)
    columns = build_columns(
        qid, doc, rel, kind="qrels", what=what, locate=raw.locate, order="given"
    )
    return Qrels(JudgmentsView(columns))


def _run_table(raw: RawTable, cols: tuple[str, str, str, str], name: str, what: str) -> Run:
    q, d, s, r = cols
    frame = raw.frame
    if s not in frame.columns and r in frame.columns:
        require_columns(frame, [q, d, r], what)
        scores = -frame_numbers(frame[r], r, raw.locate, what, integer=False)
    else:
        require_columns(frame, [q, d, s], what)
        scores = frame_numbers(frame[s], s, raw.locate, what, integer=False)
    qid = frame_ids(frame, q, raw.locate, what)
    doc = frame_ids(frame, d, raw.locate, what)
    columns = build_columns(
        qid, doc, scores, kind="run", what=what, locate=raw.locate, order="trec"
    )
    return Run(RankingsView(columns), name=name)


def qrels_from_frame(
    frame: pd.DataFrame,
    *,
    query_col: str = "query_id",
    doc_col: str = "doc_id",
    relevance_col: str = "relevance",
) -> Qrels:
    """`Qrels` from a DataFrame with one row per judgment (ids as str or int)."""
    raw = RawTable(frame.reset_index(drop=True), lambda i: f"row {i}")
    return _qrels_table(raw, (query_col, doc_col, relevance_col), "qrels DataFrame")


def run_from_frame(
    frame: pd.DataFrame,
    name: str = "run",
    *,
    query_col: str = "query_id",
    doc_col: str = "doc_id",
    score_col: str = "score",
    rank_col: str = "rank",
) -> Run:
    """`Run` from a DataFrame (one row per retrieved document), in trec_eval order.

    The rank column is ignored when a score column exists; with ranks only,
    rank 1 comes first (equal ranks: doc id descending).
    """
    raw = RawTable(frame.reset_index(drop=True), lambda i: f"row {i}")
    cols = (query_col, doc_col, score_col, rank_col)
    return _run_table(raw, cols, name, f"run {name!r} DataFrame")


def read_qrels(path: str | Path) -> Qrels:
    """Read qrels: TREC ``qid iter docid rel``, or JSONL/CSV/TSV/Parquet (``query_id, doc_id, relevance``)."""
    raw = read_table(path, TREC_QRELS)
    cols = ("query_id", "doc_id", "relevance")
    return _with_reread(raw, lambda t: _qrels_table(t, cols, f"qrels {path}"))


def read_run(path: str | Path, name: str | None = None) -> Run:
    """Read a run: TREC ``qid Q0 docid rank score tag``, or JSONL/CSV/TSV/Parquet
    (``query_id, doc_id, score`` [``rank``]); ``name`` defaults to the file's stem.
    """
    path = Path(path)
    if name is None:
        base = path.name[:-3] if path.name.lower().endswith(".gz") else path.name
        name = Path(base).stem or base
    raw = read_table(path, TREC_RUN, optional=("rank",))
    cols = ("query_id", "doc_id", "score", "rank")
    return _with_reread(raw, lambda t: _run_table(t, cols, name, f"run {name!r} ({path})"))
