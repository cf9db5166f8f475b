"""Read one per-query table (Parquet, CSV/TSV, JSONL) and aggregate it with DuckDB."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from ragstat.records import duck
from ragstat.records.docstats import DocStats, QueryScores
from ragstat.records.duck import Columns

__all__ = ["aggregate_file", "load_query_scores", "table_columns"]


def table_columns(path: str | Path) -> list[str]:
    """Column names of a per-query table."""
    con = duck.connect()
    try:
        duck.attach(con, path, "src")
        return duck.columns_of(con, "src")
    finally:
        con.close()


def _open(path: Path, cols: Columns, system: str | None, system_column: str):
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
) -> DocStats:
    """Aggregate a per-query file to `DocStats` (documents sorted by id) with DuckDB.

    ``query_id="auto"`` checks ids for duplicates when a ``query_id`` column
    exists; a ``system`` column with several systems requires ``system=``.
    """
    path = Path(path)
    cols = Columns(cluster, score, stratum, position, query_id)
    con, cols = _open(path, cols, system, system_column)
    label = str(path) + (f" (system {system!r})" if system else "")
    try:
        center = duck.validate(con, label, "rows", cols)
        return duck.aggregate(con, label, "rows", cols, center)
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
) -> QueryScores:
    """Per-query scores aligned with ``stats`` (needed only by naive query resampling)."""
    path = Path(path)
    con, cols = _open(path, Columns(cluster, score), system, system_column)
    try:
        return duck.fetch_scores(con, str(path), "rows", cols, stats)
    finally:
        con.close()
