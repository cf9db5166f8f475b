"""Aggregate a per-query dataset of any size to `DocStats`: DuckDB per file, then a sum.

The sufficient statistics are additive across files: for the parts i of one
document (its rows in different files)

    n = Σ n_i,   s = Σ s_i,   q = Σ q_i,
    w = Σ w_i + Σ n_i (s_i/n_i − s/n)²          (Chan, Golub & LeVeque 1979)

where w_i is the part's centred within-document sum of squares (DuckDB centres it
on the file's mean, so scores offset by 1e7 keep their precision). A document
whose rows all sit in one file keeps that file's numbers exactly. Lag-1 sums are
exact within files; across files the pair joining two parts is added when the
parts' position ranges follow one another, and the lag sums are dropped with a
warning when they interleave (never silently wrong).

Query ids must be unique across the whole dataset, not only within each file
(:mod:`ragstat.records.dataset_ids`).

Files (small ones batched into tasks of at least TASK_BYTES) run on any executor
(``ragstat.engine``): serial, local processes or Dask workers that can read the
same paths.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ragstat.engine import SerialExecutor
from ragstat.errors import InputError
from ragstat.records import duck
from ragstat.records.dataset_ids import check_ids, connect_threads, dataset_label
from ragstat.records.docstats import DocStats, LagSums
from ragstat.records.duck import Columns, ident
from ragstat.records.files import (
    DatasetFile,
    aggregate_file,
    batch_files,
    dataset_files,
    open_dataset_file,
)

if TYPE_CHECKING:  # records/ sits below engine/: it only receives an executor
    from ragstat.engine.local import Executor

__all__ = ["TASK_BYTES", "aggregate_dataset", "aggregate_path"]

#: Smallest task, in bytes of input files: tiny files are batched (far above 10,000 queries).
TASK_BYTES = 8 << 20


@dataclass(frozen=True, eq=False)
class Part:
    """One file's per-document sums (documents sorted by id), as a task returns them.

    ``sums`` columns: n, s, q, w (centred within the document) and sc = Σ (y − center),
    the documents' sums around the file's ``center`` (their means, to full precision).
    """

    path: str
    rows: int
    query_id: str | None
    systems: tuple[str, ...]
    doc: Any = None  # pyarrow string array: compact to send, hashed fast when combined
    sums: np.ndarray | None = None  # (K, 5)
    center: float = 0.0
    stratum: np.ndarray | None = None
    lag: np.ndarray | None = None  # (K, 3): c, a, p
    ends: np.ndarray | None = None  # (K, 4): first position, its score, last position, score
    binary: bool = True
    lo: float = np.inf
    hi: float = -np.inf
    non_numeric: int = 0  # rows left out: score not a number (non_numeric="missing")


@dataclass(frozen=True)
class _FileTask:
    files: tuple[DatasetFile, ...]  # small files batched: each task ≥ TASK_BYTES on disk
    cols: Columns
    system: str | None
    system_column: str | None
    threads: int | None = None  # DuckDB threads (None: every core; 1 beside other tasks)
    non_numeric: str = "error"  # a score cell that is not a number: error | missing


def _aggregate_files(task: _FileTask) -> list[Part]:
    """One part per file of the batch, on one DuckDB connection."""
    con = connect_threads(task.threads)
    try:
        return [_aggregate_part(con, task, file) for file in task.files]
    finally:
        con.close()


def _aggregate_part(con, task: _FileTask, file: DatasetFile) -> Part:
    """One file: validated and aggregated by DuckDB exactly as `aggregate_file` does."""
    path, label = file[0], dataset_label(file[0], task.system)
    available, column = open_dataset_file(con, file, task.system, task.system_column)
    cols = task.cols
    if cols.query_id == "auto":
        cols = replace(cols, query_id="query_id" if "query_id" in available else None)
    missing = [c for c in cols.required() if c not in available]
    if missing:
        raise InputError(f"{label}: column(s) {missing} not found; available: {available}")
    systems = ()
    if task.system is None and column is not None:
        sql = f"SELECT DISTINCT CAST({ident(column)} AS VARCHAR) FROM rows LIMIT 2"
        systems = tuple(r[0] for r in con.execute(sql).fetchall())
    dropped = duck.score_cells(con, label, "rows", cols.score, task.non_numeric)
    (rows,) = con.execute("SELECT count(*) FROM rows").fetchone()
    if rows == 0:
        return Part(path, 0, cols.query_id, systems, non_numeric=dropped)
    # Query ids are checked once over the whole dataset (they may repeat across files).
    center = duck.validate(con, label, "rows", replace(cols, query_id=None))
    part = _sums(con, path, label, int(rows), cols, center, systems)
    return replace(part, non_numeric=dropped)


def _sums(con, path: str, label: str, rows: int, cols: Columns, c: float, systems) -> Part:
    """Per-document sums in one pass (as `duck.aggregate`, plus sc and the end positions)."""
    extra = ""
    if cols.stratum:
        extra += (
            ", min(stratum) AS smin, count(DISTINCT stratum) AS sk,"
            " count(*) FILTER (WHERE stratum IS NULL) AS snull"
        )
    if cols.position:
        extra += ", min(pos) AS p0, arg_min(y, pos) AS y0, max(pos) AS p1, arg_max(y, pos) AS y1"
    table = duck._rows_sql("rows", cols)
    res = duck.run(
        con,
        label,
        f"""SELECT doc, count(*)::DOUBLE AS n, fsum(y) AS s, fsum(y * y) AS q,
                   fsum((y - {c!r}) * (y - {c!r})) AS qc, fsum(y - {c!r}) AS sc,
                   bool_and(y = 0 OR y = 1) AS bin, min(y) AS lo, max(y) AS hi {extra}
            FROM {table} GROUP BY doc ORDER BY doc""",
    ).fetchnumpy()
    doc = np.asarray(res["doc"], dtype=object)
    if cols.stratum:
        for bad, what in (
            (np.asarray(res["snull"]) > 0, f"has rows with no {cols.stratum!r}"),
            (np.asarray(res["sk"]) > 1, f"has more than one {cols.stratum!r} value"),
        ):
            if bad.any():
                raise InputError(f"{label}: document {doc[bad][0]!r} {what}")
    n, sc = np.asarray(res["n"], np.float64), np.asarray(res["sc"], np.float64)
    w = np.maximum(np.asarray(res["qc"], np.float64) - sc**2 / n, 0.0)
    lag: np.ndarray | None = None
    if cols.position:
        sums = duck._lag(con, label, table, doc)
        lag = np.column_stack([sums.c, sums.a, sums.p])
    return Part(
        path,
        rows,
        cols.query_id,
        systems,
        pa.array(doc, type=pa.large_string()),
        np.column_stack([n, res["s"], res["q"], w, sc]).astype(np.float64),
        c,
        np.asarray(res["smin"], dtype=object) if cols.stratum else None,
        lag,
        np.column_stack([res[k] for k in ("p0", "y0", "p1", "y1")]).astype(np.float64)
        if cols.position
        else None,
        bool(np.all(res["bin"])),
        float(np.min(res["lo"])),
        float(np.max(res["hi"])),
    )


def aggregate_dataset(
    path: str | Path,
    *,
    cluster: str = "doc_id",
    score: str,
    system: str | None = None,
    stratum: str | None = None,
    position: str | None = None,
    query_id: str | None = "auto",
    system_column: str | None = None,
    executor: Executor | None = None,
    non_numeric: str = "error",
) -> DocStats:
    """Aggregate a Parquet file, folder (plain or hive-partitioned) or glob to `DocStats`.

    The result equals `aggregate_file` on the concatenated rows (documents sorted by
    id, the same validation). One task per file (small files batched) runs on ``executor`` (default: serial
    in this process; DuckDB uses every core), so memory is bounded by one file plus
    one row per document and file. Hive ``key=value`` folders become columns (e.g.
    ``system=bm25``). ``query_id="auto"`` checks a ``query_id`` column, when present,
    for duplicates across the whole dataset; ``None`` skips the check.
    """
    files = dataset_files(path)
    ex: Executor = SerialExecutor() if executor is None else executor
    cols = Columns(cluster, score, stratum, position, query_id)
    label = dataset_label(str(path), system)
    workers = max(1, int(getattr(ex, "workers", 1)))
    threads = None if workers == 1 else 1  # tasks run side by side: one DuckDB thread each
    tasks = [
        _FileTask(b, cols, system, system_column, threads, non_numeric)
        for b in batch_files(files, TASK_BYTES)
    ]
    parts = [part for batch in ex.map(_aggregate_files, tasks) for part in batch]
    systems = sorted({s for p in parts for s in p.systems})
    if len(systems) > 1:
        raise InputError(
            f"{label}: the dataset holds several systems ({', '.join(systems[:5])}); "
            "choose one with --system (or compare them with `ragstat compare`)"
        )
    names = {p.query_id for p in parts}
    if len(names) > 1:
        raise InputError(
            f"{label}: {query_id!r} resolves differently across files "
            f"({', '.join(sorted(str(n) for n in names))}): every file needs the same columns"
        )
    name = names.pop()
    if name is not None:
        rows = sum(p.rows for p in parts)
        check_ids(ex, label, files, name, system, system_column, rows)
    stats, lag_note = _combine(parts, label, cols)
    if lag_note:
        warnings.warn(lag_note, stacklevel=2)
    return replace(stats, non_numeric=sum(p.non_numeric for p in parts))


def _combine(parts: list[Part], label: str, cols: Columns) -> tuple[DocStats, str | None]:
    """Sum the parts per document (module docstring); the note says why lag sums were dropped."""
    parts = [p for p in parts if p.rows]
    if not parts:
        raise InputError(f"{label}: no rows")
    uniq, inv = _unique(parts)
    K = uniq.size
    x = np.concatenate([p.sums for p in parts])
    n, s, q, w = (np.bincount(inv, weights=x[:, j], minlength=K) for j in range(4))
    multi = (np.bincount(inv, minlength=K) > 1)[inv]
    if multi.any():  # Chan's term, from part means taken around the files' centres
        base = parts[0].center
        shift = np.concatenate([np.full(len(p.doc), p.center - base) for p in parts])
        mean = shift + x[:, 4] / x[:, 0]
        dev = mean - (np.bincount(inv, weights=x[:, 0] * mean, minlength=K) / n)[inv]
        w += np.bincount(inv, weights=np.where(multi, x[:, 0] * dev * dev, 0.0), minlength=K)
    stratum = _strata(parts, inv, uniq, label, cols.stratum) if cols.stratum else None
    lag, note = _lag(parts, inv, uniq, label) if cols.position else (None, None)
    stats = DocStats(
        doc_id=uniq,
        n=n,
        s=s,
        q=q,
        w=w,
        binary=all(p.binary for p in parts),
        score_range=(min(p.lo for p in parts), max(p.hi for p in parts)),
        stratum=stratum,
        lag=lag,
        score=cols.score,
    )
    return stats, note


def _unique(parts: list[Part]) -> tuple[np.ndarray, np.ndarray]:
    """Sorted document ids and each part row's document index (as ``np.unique``; hashed by
    Arrow, then only the distinct ids sorted)."""
    encoded = pa.chunked_array([p.doc for p in parts]).combine_chunks().dictionary_encode()
    order = pc.sort_indices(encoded.dictionary).to_numpy()  # byte order = DuckDB's ORDER BY
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    inv = rank[encoded.indices.to_numpy()]
    return encoded.dictionary.take(pa.array(order)).to_numpy(zero_copy_only=False), inv


def _strata(parts, inv, uniq, label: str, name: str) -> np.ndarray:
    """One stratum per document, across files too."""
    values = np.concatenate([p.stratum for p in parts])
    first = np.unique(inv, return_index=True)[1]
    per_doc = values[first]
    clash = values != per_doc[inv]
    if clash.any():
        bad = uniq[inv[int(np.flatnonzero(clash)[0])]]
        raise InputError(f"{label}: document {bad!r} has more than one {name!r} value")
    return per_doc


def _lag(parts, inv, uniq, label: str) -> tuple[LagSums | None, str | None]:
    """Lag sums within files, plus the pair that joins consecutive parts of a document."""
    K = uniq.size
    x = np.concatenate([p.lag for p in parts])
    c, a, n_pairs = (np.bincount(inv, weights=x[:, j], minlength=K) for j in range(3))
    multi = (np.bincount(inv, minlength=K) > 1)[inv]
    if multi.any():
        ends, doc = np.concatenate([p.ends for p in parts])[multi], inv[multi]
        order = np.lexsort((ends[:, 0], doc))
        ends, doc = ends[order], doc[order]
        join = doc[1:] == doc[:-1]
        last, nxt, d = ends[:-1][join], ends[1:][join], doc[1:][join]
        tie = last[:, 2] == nxt[:, 0]
        if tie.any():
            i = int(np.flatnonzero(tie)[0])
            raise InputError(
                f"{label}: document {uniq[d[i]]!r} has two queries at position {nxt[i, 0]:g}"
            )
        if (last[:, 2] > nxt[:, 0]).any():
            i = int(np.flatnonzero(last[:, 2] > nxt[:, 0])[0])
            return None, (
                f"{label}: lag-1 sums unavailable: the positions of document {uniq[d[i]]!r} "
                "interleave across files; keep each document's rows in one file (or in "
                "position ranges that follow one another) for the autocorrelation diagnostic"
            )
        c += np.bincount(d, weights=last[:, 3] * nxt[:, 1], minlength=K)
        a += np.bincount(d, weights=last[:, 3] + nxt[:, 1], minlength=K)
        n_pairs += np.bincount(d, minlength=K)
    return LagSums(c=c, a=a, p=n_pairs), None


def aggregate_path(path: str | Path, *, executor: Executor | None = None, **options) -> DocStats:
    """`aggregate_file` for one file, `aggregate_dataset` for a folder or a glob (the CLI's
    entry point for ``ragstat interval PATH``); ``options`` are the shared keywords."""
    p = Path(path)
    if p.is_file():
        return aggregate_file(p, **options)
    return aggregate_dataset(path, executor=executor, **options)
