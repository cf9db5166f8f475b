"""Read per-query tables from Parquet, CSV or JSONL and aggregate them with DuckDB.

The aggregation runs inside DuckDB, so a file of tens of millions of rows is
reduced to one row per document without ever being loaded into pandas.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ragstat.errors import InputError
from ragstat.records.docstats import DocStats, LagSums

__all__ = ["QueryScores", "aggregate_file", "load_query_scores", "table_columns"]

_READERS = {
    ".parquet": "read_parquet({path})",
    ".pq": "read_parquet({path})",
    ".csv": "read_csv({path}, header = true, auto_detect = true)",
    ".tsv": "read_csv({path}, header = true, delim = '\t', auto_detect = true)",
    ".jsonl": "read_json({path}, format = 'newline_delimited')",
    ".ndjson": "read_json({path}, format = 'newline_delimited')",
    ".json": "read_json({path}, format = 'auto')",
}


@dataclass(frozen=True, eq=False)
class QueryScores:
    """Per-query scores with the index of their document in a `DocStats` (sorted ids)."""

    doc_index: np.ndarray
    y: np.ndarray


def _sql_str(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _connect(path: str | Path):
    import duckdb

    path = Path(path)
    if not path.is_file():
        raise InputError(f"{path}: no such file")
    if path.stat().st_size == 0:
        raise InputError(f"{path}: the file is empty")
    reader = _READERS.get(path.suffix.lower())
    if reader is None:
        raise InputError(
            f"{path}: unknown format {path.suffix!r}; use .parquet, .csv, .tsv or .jsonl"
        )
    con = duckdb.connect()
    try:
        con.execute(
            f"CREATE TEMP VIEW src AS SELECT * FROM {reader.format(path=_sql_str(str(path)))}"
        )
        con.execute("SELECT * FROM src LIMIT 0")
    except duckdb.Error as exc:
        con.close()
        raise InputError(f"{path}: cannot be read as {path.suffix} ({_explain(exc)})") from None
    return con


def _explain(exc: Exception) -> str:
    """The informative part of a DuckDB error, on one line."""
    lines = [ln.strip() for ln in str(exc).strip().splitlines() if ln.strip()]
    if any("not utf-8" in ln.lower() for ln in lines):
        where = lines[0].split(":", 1)[-1].strip()
        return f"{where}: the file is not UTF-8 encoded; convert it, e.g. iconv -f latin1 -t utf-8"
    return lines[0] if lines else type(exc).__name__


def table_columns(path: str | Path) -> list[str]:
    """Column names of a per-query table."""
    con = _connect(path)
    try:
        return [row[0] for row in con.execute("DESCRIBE src").fetchall()]
    finally:
        con.close()


def _run(con, path: Path, sql: str):
    import duckdb

    try:
        return con.execute(sql)
    except duckdb.Error as exc:
        raise InputError(f"{path}: {_explain(exc)}") from None


def _validate(con, path: Path, cols: dict[str, str | None], system: str | None) -> None:
    available = [row[0] for row in con.execute("DESCRIBE src").fetchall()]
    missing = [c for c in cols.values() if c is not None and c not in available]
    if missing:
        raise InputError(f"{path}: column(s) {missing} not found; available: {available}")
    d, y = _ident(cols["cluster"]), _ident(cols["score"])
    where = _system_filter(cols, system)
    counts = _run(
        con,
        path,
        f"""SELECT count(*),
               count(*) FILTER (WHERE {d} IS NULL),
               count(*) FILTER (WHERE {y} IS NULL),
               count(*) FILTER (WHERE {y} IS NOT NULL AND TRY_CAST({y} AS DOUBLE) IS NULL),
               count(*) FILTER (WHERE NOT isfinite(TRY_CAST({y} AS DOUBLE)))
            FROM src {where}""",
    ).fetchone()
    rows, null_doc, null_y, non_numeric, non_finite = counts
    score = cols["score"]
    if rows == 0:
        raise InputError(f"{path}: no rows" + (f" for system {system!r}" if system else ""))
    if null_doc:
        raise InputError(f"{path}: {null_doc} row(s) have no {cols['cluster']!r}")
    if null_y:
        raise InputError(f"{path}: score {score!r} is missing in {null_y} row(s)")
    if non_numeric:
        raise InputError(f"{path}: score {score!r} is not numeric in {non_numeric} row(s)")
    if non_finite:
        raise InputError(f"{path}: score {score!r} is NaN or infinite in {non_finite} row(s)")
    _check_duplicates(con, path, cols, where)


def _system_filter(cols: dict[str, str | None], system: str | None) -> str:
    if system is None or cols.get("system") is None:
        return ""
    return f"WHERE CAST({_ident(cols['system'])} AS VARCHAR) = {_sql_str(system)}"


def _check_duplicates(con, path: Path, cols: dict[str, str | None], where: str) -> None:
    if cols.get("system") is not None and not where:
        systems = [
            r[0]
            for r in con.execute(
                f"SELECT DISTINCT CAST({_ident(cols['system'])} AS VARCHAR) FROM src ORDER BY 1 LIMIT 6"
            ).fetchall()
        ]
        if len(systems) > 1:
            raise InputError(
                f"{path}: the table holds several systems ({', '.join(map(str, systems[:5]))}…); "
                "choose one with --system (or compare them with `ragstat compare`)"
            )
    if cols.get("query_id") is None:
        return
    qid = _ident(cols["query_id"])
    dup = con.execute(
        f"SELECT {qid}, count(*) FROM src {where} GROUP BY 1 HAVING count(*) > 1 LIMIT 3"
    ).fetchall()
    if dup:
        shown = ", ".join(f"{r[0]!r} ({r[1]}×)" for r in dup)
        raise InputError(f"{path}: duplicate {cols['query_id']!r} values: {shown}")


def aggregate_file(
    path: str | Path,
    *,
    cluster: str = "doc_id",
    score: str,
    stratum: str | None = None,
    position: str | None = None,
    query_id: str | None = "auto",
    system: str | None = None,
    system_column: str = "system",
) -> DocStats:
    """Aggregate a per-query file to `DocStats` (documents sorted by id) with DuckDB.

    ``query_id="auto"`` checks ids for duplicates when a ``query_id`` column
    exists; a ``system`` column with several systems requires ``system=``.
    """
    path = Path(path)
    con = _connect(path)
    try:
        available = [row[0] for row in con.execute("DESCRIBE src").fetchall()]
        if query_id == "auto":
            query_id = "query_id" if "query_id" in available else None
        cols = {
            "cluster": cluster,
            "score": score,
            "stratum": stratum,
            "position": position,
            "query_id": query_id,
            "system": system_column if system_column in available else None,
        }
        if system is not None and cols["system"] is None:
            raise InputError(
                f"{path}: --system given but the table has no {system_column!r} column"
            )
        _validate(con, path, cols, system)
        return _aggregate(con, path, cols, system)
    finally:
        con.close()


def _rows_sql(cols: dict[str, str | None], system: str | None) -> str:
    """The per-query rows as (doc, y[, stratum][, pos]) — a subquery, never materialised."""
    parts = [
        f"CAST({_ident(cols['cluster'])} AS VARCHAR) AS doc",
        f"CAST({_ident(cols['score'])} AS DOUBLE) AS y",
    ]
    if cols["stratum"]:
        parts.append(f"CAST({_ident(cols['stratum'])} AS VARCHAR) AS stratum")
    if cols["position"]:
        parts.append(f"{_ident(cols['position'])} AS pos")
    return f"(SELECT {', '.join(parts)} FROM src {_system_filter(cols, system)})"


def _aggregate(con, path: Path, cols: dict[str, str | None], system: str | None) -> DocStats:
    rows = _rows_sql(cols, system)
    strata = ", min(stratum) AS smin, count(DISTINCT stratum) AS sk" if cols["stratum"] else ""
    res = _run(
        con,
        path,
        f"""SELECT doc, count(*)::DOUBLE AS n, sum(y) AS s, sum(y * y) AS q,
                   bool_and(y = 0 OR y = 1) AS bin, min(y) AS lo, max(y) AS hi {strata}
            FROM {rows} GROUP BY doc ORDER BY doc""",
    ).fetchnumpy()
    doc_id = np.asarray(res["doc"], dtype=object)
    if cols["stratum"] and np.any(np.asarray(res["sk"]) > 1):
        bad = doc_id[int(np.flatnonzero(np.asarray(res["sk"]) > 1)[0])]
        raise InputError(f"{path}: document {bad!r} has more than one {cols['stratum']!r} value")
    return DocStats(
        doc_id=doc_id,
        n=np.asarray(res["n"], dtype=np.float64),
        s=np.asarray(res["s"], dtype=np.float64),
        q=np.asarray(res["q"], dtype=np.float64),
        binary=bool(np.all(res["bin"])),
        score_range=(float(np.min(res["lo"])), float(np.max(res["hi"]))),
        stratum=np.asarray(res["smin"], dtype=object) if cols["stratum"] else None,
        lag=_lag(con, path, rows, doc_id) if cols["position"] else None,
        score=cols["score"],
    )


def _lag(con, path: Path, rows: str, doc_id: np.ndarray) -> LagSums:
    res = _run(
        con,
        path,
        f"""SELECT doc, sum(y * prev) AS c, sum(y + prev) AS a, count(*)::DOUBLE AS p
            FROM (SELECT doc, y, lag(y) OVER (PARTITION BY doc ORDER BY pos) AS prev FROM {rows})
            WHERE prev IS NOT NULL GROUP BY doc""",
    ).fetchnumpy()
    K = doc_id.shape[0]
    idx = np.searchsorted(doc_id.astype(str), np.asarray(res["doc"], dtype=str))
    out = {k: np.zeros(K) for k in ("c", "a", "p")}
    for k in out:
        out[k][idx] = np.asarray(res[k], dtype=np.float64)
    return LagSums(**out)


def load_query_scores(
    path: str | Path,
    stats: DocStats,
    *,
    cluster: str = "doc_id",
    score: str,
    system: str | None = None,
    system_column: str = "system",
) -> QueryScores:
    """Per-query scores aligned with ``stats`` (needed only by naive query resampling)."""
    path = Path(path)
    con = _connect(path)
    try:
        available = [row[0] for row in con.execute("DESCRIBE src").fetchall()]
        cols = {"system": system_column if system_column in available else None}
        where = _system_filter(cols, system)
        res = con.execute(
            f"SELECT CAST({_ident(cluster)} AS VARCHAR) AS doc, CAST({_ident(score)} AS DOUBLE) AS y"
            f" FROM src {where}"
        ).fetchnumpy()
    finally:
        con.close()
    idx = np.searchsorted(stats.doc_id.astype(str), np.asarray(res["doc"], dtype=str))
    return QueryScores(doc_index=idx.astype(np.int64), y=np.asarray(res["y"], dtype=np.float64))
