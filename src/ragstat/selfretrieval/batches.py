"""The study at scale: batches of queries on an executor, each worker opening the saved index.

1. The client fits each retriever once and saves it (:mod:`ragstat.selfretrieval.index`;
   reused when the folder already holds a matching index).
2. The queries are cut into T = max(1, ⌊Q / batch_size⌋) contiguous batches of
   nearly equal size, so every batch has at least ``batch_size`` queries (10,000 by
   default) unless the whole study has fewer. A task carries the index *path*
   and key, the batch's query texts and their own chunks' index positions,
   never the index itself.
3. A worker (:func:`search_batch`) opens the index (once per process), searches
   every retriever, fuses RRF (per query, so batches are independent), computes
   the numeric record and candidate columns and writes them as Parquet parts
   ``records/part-00000.parquet`` and ``candidates/part-00000.parquet`` (atomically)
   under the run's parts folder; it returns only counts.
4. The client reads the parts in batch order and labels them (chunk and
   document ids) exactly as the in-process study does; the parts folder is then
   removed — ``records.parquet`` stays the one file other verbs read.

Searching involves no randomness (the query sample is drawn before batching), so
the tables are identical whatever the engine or the number of workers.
"""

from __future__ import annotations

import contextlib
import itertools
import shutil
import tempfile
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ragstat.atomic import atomic_write
from ragstat.errors import InputError
from ragstat.selfretrieval.config import StudyConfig
from ragstat.selfretrieval.index import ensure_index, forget_index, open_index
from ragstat.selfretrieval.run import Prepared
from ragstat.selfretrieval.search import search_all, searched
from ragstat.selfretrieval.tables import (
    CANDIDATE_COLUMNS,
    RECORD_COLUMNS,
    candidate_columns,
    outcome_columns,
)

__all__ = ["BatchDone", "BatchTask", "batch_bounds", "run_batches", "search_batch"]

Columns = dict[str, np.ndarray]


@dataclass(frozen=True, eq=False)
class BatchTask:
    """One batch of queries: where the index and the parts are, and the queries themselves."""

    index_dir: str
    index_key: str
    parts_dir: str
    part: int
    config: StudyConfig
    queries: list[str]
    query: np.ndarray  # each query's own chunk (index position), excluded from its results


@dataclass(frozen=True)
class BatchDone:
    part: int
    queries: int
    records: int
    candidates: int


def batch_bounds(n_queries: int, batch_size: int) -> list[tuple[int, int]]:
    """(start, stop) of T = max(1, ⌊Q / batch_size⌋) nearly equal contiguous batches."""
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
        raise InputError(f"batch_size must be a positive whole number, got {batch_size!r}")
    t = max(1, n_queries // batch_size)
    edges = [i * n_queries // t for i in range(t + 1)]
    return list(itertools.pairwise(edges))


def _part(parts_dir: str, kind: str, part: int) -> Path:
    return Path(parts_dir) / kind / f"part-{part:05d}.parquet"


def _write_part(path: Path, tables: list[tuple[str, Columns]], names: tuple[str, ...]) -> int:
    import pyarrow as pa
    import pyarrow.parquet as pq

    data = {"retriever": np.concatenate([np.full(len(c[names[0]]), n) for n, c in tables])}
    for col in names:
        data[col] = np.concatenate([c[col] for _, c in tables])
    table = pa.table(data)
    atomic_write(path, lambda tmp: pq.write_table(table, tmp))
    return table.num_rows


def search_batch(task: BatchTask) -> BatchDone:
    """Worker: search one batch against the saved index and write its record/candidate parts."""
    config = task.config
    opened = open_index(task.index_dir, task.index_key, searched(config), config)
    lists = search_all(config, opened.retrievers, task.queries, task.query)
    recs, cands = [], []
    for name, res in lists.items():
        recs.append((name, outcome_columns(res, task.query, opened.chunk_doc)))
        cands.append((name, candidate_columns(res, task.query, config.k)))
    n_rec = _write_part(_part(task.parts_dir, "records", task.part), recs, RECORD_COLUMNS)
    n_cand = _write_part(_part(task.parts_dir, "candidates", task.part), cands, CANDIDATE_COLUMNS)
    return BatchDone(task.part, len(task.queries), n_rec, n_cand)


def _read_parts(parts_dir: str, kind: str, done: list[BatchDone], names, retrievers) -> dict:
    """Per retriever, each column concatenated over the parts in batch order."""
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    pieces: dict[str, dict[str, list[np.ndarray]]] = {r: {c: [] for c in names} for r in retrievers}
    for d in done:
        path = _part(parts_dir, kind, d.part)
        table = pq.read_table(path)
        expected = d.records if kind == "records" else d.candidates
        if table.num_rows != expected:
            raise InputError(f"{path}: {table.num_rows} rows, the worker wrote {expected}")
        for r in retrievers:
            sub = table.filter(pc.equal(table["retriever"], r))
            for c in names:
                pieces[r][c].append(sub[c].to_numpy())
    return {r: {c: np.concatenate(v) for c, v in cols.items()} for r, cols in pieces.items()}


def run_batches(
    prep: Prepared,
    config: StudyConfig,
    fingerprint: str,
    *,
    executor=None,
    index_dir: str | Path | None = None,
    parts_dir: str | Path | None = None,
    batch_size: int = 10_000,
    replace_index: bool = False,
    say: Callable[[str], None] = lambda _msg: None,
) -> dict[str, tuple[Columns, Columns]]:
    """Index, batches on ``executor`` (None: serial, in this process), parts read back.

    Returns, per configured retriever, the numeric record and candidate columns
    (as :func:`ragstat.selfretrieval.tables.outcome_columns` gives them for all queries).
    """
    from ragstat.engine import SerialExecutor

    bounds = batch_bounds(len(prep.queries), batch_size)
    scratch = None if index_dir is not None else tempfile.mkdtemp(prefix="ragstat-index-")
    # absolute: workers of a remote cluster open these paths from their own working folder
    index = Path(index_dir if index_dir is not None else str(scratch)).resolve()
    parts_root = Path(parts_dir).resolve() if parts_dir is not None else index / "parts"
    run_dir = parts_root / f"run-{uuid.uuid4().hex[:12]}"
    try:
        key = ensure_index(
            index,
            config,
            fingerprint,
            prep.texts,
            prep.labels.chunk_id,
            prep.chunk_doc,
            searched(config),
            replace=replace_index,
            say=say,
        )
        tasks = [
            BatchTask(str(index), key, str(run_dir), i, config, prep.queries[a:b], prep.query[a:b])
            for i, (a, b) in enumerate(bounds)
        ]
        executor = executor if executor is not None else SerialExecutor()
        say(f"{len(prep.queries)} queries in {len(tasks)} batches on {executor.workers} worker(s)")
        finished = [0]

        def tick() -> None:
            finished[0] += 1
            say(f"batch {finished[0]}/{len(tasks)} searched")

        done = executor.map(search_batch, tasks, on_done=tick)
        recs = _read_parts(str(run_dir), "records", done, RECORD_COLUMNS, config.retrievers)
        cands = _read_parts(str(run_dir), "candidates", done, CANDIDATE_COLUMNS, config.retrievers)
        return {r: (recs[r], cands[r]) for r in config.retrievers}
    finally:
        shutil.rmtree(run_dir, ignore_errors=True)
        _rmdir_if_empty(parts_root)
        forget_index(index)
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)


def _rmdir_if_empty(path: Path) -> None:
    with contextlib.suppress(OSError):
        path.rmdir()
