"""Read one per-query table (Parquet, CSV/TSV, JSONL) and aggregate it with DuckDB;
list the files of a dataset (folder, hive-partitioned folder or glob)."""

from __future__ import annotations

import glob
from dataclasses import replace
from pathlib import Path
from urllib.parse import unquote

from ragstat.errors import InputError
from ragstat.records import duck
from ragstat.records.docstats import DocStats, QueryScores
from ragstat.records.duck import Columns
from ragstat.resources.inputs import regular_file

__all__ = [
    "DatasetFile",
    "aggregate_file",
    "batch_files",
    "dataset_files",
    "load_query_scores",
    "open_dataset_file",
    "table_columns",
    "table_schema",
]

#: Suffixes of the files a dataset folder is made of.
DATASET_SUFFIXES = (".parquet", ".pq")

#: A file of a dataset and its hive partition values ((column, value), …) from its folders.
DatasetFile = tuple[str, tuple[tuple[str, str], ...]]


def dataset_files(path: str | Path) -> list[DatasetFile]:
    """The files of a dataset, sorted, each with its hive partition values.

    ``path`` is one file (no partition values), a folder (every ``*.parquet`` / ``*.pq``
    below it, hidden and ``_``-prefixed names skipped, ``key=value`` folders read as
    partition columns) or a glob (``**`` allowed; partition folders below its fixed
    prefix).
    """
    text = str(path)
    p = Path(text)
    if p.is_file():
        return [(str(p.resolve()), ())]  # absolute: a remote worker has its own working folder
    if p.is_dir():
        root = p
        found = [
            f
            for f in p.rglob("*")
            if f.suffix.lower() in DATASET_SUFFIXES and f.is_file() and not _hidden(f, p)
        ]
        if not found:
            raise InputError(f"{p}: the folder holds no .parquet files")
    elif glob.has_magic(text):
        root = _fixed_prefix(text)
        found = [Path(f) for f in glob.glob(text, recursive=True) if Path(f).is_file()]
        if not found:
            raise InputError(f"{text}: no file matches this pattern")
    elif p.exists():  # a FIFO, a socket, a device: refused with what it is
        regular_file(p, "table")
        raise InputError(f"{text}: not a regular file")  # pragma: no cover - raised above
    else:
        raise InputError(f"{text}: no such file, folder or pattern")
    return [(str(f.resolve()), _partition(f, root)) for f in sorted(found)]


def open_dataset_file(con, file: DatasetFile, system: str | None, system_column: str | None):
    """On ``con``, views ``src`` (one dataset file plus its partition columns; a column in
    the file wins over a folder name) and ``rows`` (the chosen system's rows).

    Returns the columns of ``src`` and the system column (or None)."""
    path, partition = file
    for view in ("rows", "src", "raw"):
        con.execute(f"DROP VIEW IF EXISTS {duck.ident(view)}")
    duck.attach(con, path, "raw")
    available = duck.columns_of(con, "raw")
    extra = "".join(
        f", {duck.sql_str(v)} AS {duck.ident(k)}" for k, v in partition if k not in available
    )
    con.execute(f"CREATE TEMP VIEW src AS SELECT *{extra} FROM raw")
    available = duck.columns_of(con, "src")
    column = duck.system_column_of(available, system_column)
    duck.select_system(
        con,
        path + (f" (system {system!r})" if system else ""),
        "src",
        column,
        system,
        "rows",
        require=False,  # one file of a dataset may hold other systems only
    )
    return available, column


def batch_files(files: list[DatasetFile], min_bytes: int) -> list[tuple[DatasetFile, ...]]:
    """Consecutive files grouped until each group holds ≥ ``min_bytes`` (a large file alone)."""
    out, group, size = [], [], 0
    for file in files:
        group.append(file)
        size += Path(file[0]).stat().st_size
        if size >= min_bytes:
            out.append(tuple(group))
            group, size = [], 0
    if group:
        out.append(tuple(group))
    return out


def _hidden(f: Path, root: Path) -> bool:
    return any(part.startswith((".", "_")) for part in f.relative_to(root).parts)


def _fixed_prefix(pattern: str) -> Path:
    """The folders of ``pattern`` before its first wildcard."""
    parts = Path(pattern).parts
    fixed = parts[: next(i for i, x in enumerate(parts) if glob.has_magic(x))]
    return Path(*fixed) if fixed else Path(".")


def _partition(f: Path, root: Path) -> tuple[tuple[str, str], ...]:
    """``key=value`` folders between ``root`` and ``f`` (values URL-decoded, as Hive/Spark write)."""
    try:
        folders = f.parent.relative_to(root).parts
    except ValueError:
        return ()
    pairs = [part.split("=", 1) for part in folders if "=" in part]
    return tuple((unquote(k), unquote(v)) for k, v in pairs if k)


def table_schema(path: str | Path) -> list[tuple[str, str]]:
    """(name, DuckDB type) of each column of a per-query table, or of a dataset's first file
    plus its partition columns (VARCHAR)."""
    files = dataset_files(path)
    first, partitions = files[0]
    con = duck.connect()
    try:
        duck.attach(con, first, "src")
        rows = con.execute("DESCRIBE src").fetchall()
    finally:
        con.close()
    return [(str(r[0]), str(r[1])) for r in rows] + [(k, "VARCHAR") for k, _ in partitions]


def table_columns(path: str | Path) -> list[str]:
    """Column names of a per-query table."""
    con = duck.connect()
    try:
        duck.attach(con, path, "src")
        return duck.columns_of(con, "src")
    finally:
        con.close()


def _open(path: Path, cols: Columns, system: str | None, system_column: str | None):
    """A connection with view ``rows`` = the chosen system's rows of ``path``."""
    con = duck.connect()
    try:
        duck.attach(con, path, "src")
        available = duck.columns_of(con, "src")
        if cols.query_id == "auto":
            cols = replace(cols, query_id="query_id" if "query_id" in available else None)
        column = duck.system_column_of(available, system_column)
        duck.select_system(con, str(path), "src", column, system, "rows")
    except BaseException:
        con.close()
        raise
    return con, cols


def aggregate_file(
    path: str | Path,
    *,
    cluster: str = "doc_id",
    score: str,
    stratum: str | None = None,
    position: str | None = None,
    query_id: str | None = "auto",
    system: str | None = None,
    system_column: str | None = None,
    non_numeric: str = "error",
) -> DocStats:
    """Aggregate a per-query file to `DocStats` (documents sorted by id) with DuckDB.

    ``query_id="auto"`` checks ids for duplicates when a ``query_id`` column
    exists; a ``system`` column with several systems requires ``system=``. A score cell
    that is not a number is an error unless ``non_numeric="missing"``: then its row is
    left out and counted in ``DocStats.non_numeric``.
    """
    path = Path(path)
    cols = Columns(cluster, score, stratum, position, query_id)
    con, cols = _open(path, cols, system, system_column)
    label = str(path) + (f" (system {system!r})" if system else "")
    try:
        dropped = duck.score_cells(con, label, "rows", score, non_numeric)
        center = duck.validate(con, label, "rows", cols)
        return replace(duck.aggregate(con, label, "rows", cols, center), non_numeric=dropped)
    finally:
        con.close()


def load_query_scores(
    path: str | Path,
    stats: DocStats,
    *,
    cluster: str = "doc_id",
    score: str,
    system: str | None = None,
    system_column: str | None = None,
    non_numeric: str = "error",
) -> QueryScores:
    """Per-query scores aligned with ``stats`` (needed only by naive query resampling)."""
    path = Path(path)
    con, cols = _open(path, Columns(cluster, score), system, system_column)
    try:
        duck.score_cells(con, str(path), "rows", score, non_numeric)
        return duck.fetch_scores(con, str(path), "rows", cols, stats)
    finally:
        con.close()
