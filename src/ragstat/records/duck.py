"""DuckDB plumbing shared by the file readers: open, validate and aggregate a relation.

A *relation* is a view holding the per-query rows of one table (one system).
Validation and aggregation run inside DuckDB, so large files are reduced to one
row per document without being loaded into pandas.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ragstat.errors import InputError
from ragstat.records.cells import OPT_IN, check_non_numeric, not_numbers_message
from ragstat.records.docstats import DocStats, LagSums, QueryScores

__all__ = ["Columns"]

_READERS = {
    ".parquet": "read_parquet({path})",
    ".pq": "read_parquet({path})",
    ".csv": "read_csv({path}, header = true, auto_detect = true)",
    ".tsv": "read_csv({path}, header = true, delim = '\t', auto_detect = true)",
    ".jsonl": "read_json({path}, format = 'newline_delimited')",
    ".ndjson": "read_json({path}, format = 'newline_delimited')",
    ".json": "read_json({path}, format = 'auto')",
}


@dataclass(frozen=True)
class Columns:
    """Which columns of a per-query table play which role."""

    cluster: str = "doc_id"
    score: str = "hit"
    stratum: str | None = None
    position: str | None = None
    query_id: str | None = None
    system: str | None = None

    def required(self) -> list[str]:
        return [
            c for c in (self.cluster, self.score, self.stratum, self.position, self.query_id) if c
        ]


def sql_str(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def explain(exc: Exception) -> str:
    """The informative part of a DuckDB error, on one line."""
    lines = [ln.strip() for ln in str(exc).strip().splitlines() if ln.strip()]
    if any("not utf-8" in ln.lower() for ln in lines):
        where = lines[0].split(":", 1)[-1].strip()
        return f"{where}: the file is not UTF-8 encoded; convert it, e.g. iconv -f latin1 -t utf-8"
    return lines[0] if lines else type(exc).__name__


def interrupted(exc: BaseException) -> None:
    """Re-raise a DuckDB query stopped by a signal as that signal (``KeyboardInterrupt`` or
    `Terminated`: exit 130/143), never as a bad-input error."""
    if type(exc).__name__ == "InterruptException" or "query interrupted" in str(exc).lower():
        from ragstat.signals import received

        raise (received[-1] if received else KeyboardInterrupt()) from None


def run(con, label: str, sql: str):
    """Execute ``sql``; a DuckDB error becomes an `InputError` naming ``label``."""
    import duckdb

    try:
        return con.execute(sql)
    except duckdb.Error as exc:
        interrupted(exc)
        raise InputError(f"{label}: {explain(exc)}") from None


def connect():
    import duckdb

    return duckdb.connect()


def attach(con, path: str | Path, view: str) -> None:
    """Create ``view`` over the file at ``path`` (checks existence, emptiness, format)."""
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
    try:
        con.execute(
            f"CREATE TEMP VIEW {ident(view)} AS SELECT * FROM {reader.format(path=sql_str(str(path)))}"
        )
        con.execute(f"SELECT * FROM {ident(view)} LIMIT 0")
    except duckdb.Error as exc:
        interrupted(exc)
        raise InputError(f"{path}: cannot be read as {path.suffix} ({explain(exc)})") from None


def columns_of(con, view: str) -> list[str]:
    return [row[0] for row in con.execute(f"DESCRIBE {ident(view)}").fetchall()]


#: Column names that identify the system (retriever) of a row, in order of preference.
SYSTEM_COLUMNS = ("system", "retriever")


def system_column_of(available: list[str], preferred: str | None = None) -> str | None:
    """The system column: ``preferred`` if given and present, else the first of SYSTEM_COLUMNS."""
    for name in (preferred,) if preferred else SYSTEM_COLUMNS:
        if name in available:
            return name
    return None


def select_system(
    con,
    label: str,
    view: str,
    column: str | None,
    system: str | None,
    out: str,
    require: bool = True,
) -> None:
    """``out`` = rows of ``view`` for one system; several systems without a choice is an error,
    and so (``require``) is a system with no rows, naming the systems present."""
    if system is None:
        if column is not None:
            systems = [
                r[0]
                for r in con.execute(
                    f"SELECT DISTINCT CAST({ident(column)} AS VARCHAR) FROM {ident(view)} ORDER BY 1 LIMIT 6"
                ).fetchall()
            ]
            if len(systems) > 1:
                raise InputError(
                    f"{label}: the table holds several systems ({', '.join(map(str, systems[:5]))}…); "
                    "choose one with --system (or compare them with `ragstat compare`)"
                )
        con.execute(f"CREATE TEMP VIEW {ident(out)} AS SELECT * FROM {ident(view)}")
        return
    if column is None:
        raise InputError(f"{label}: a system was chosen but the table has no system column")
    con.execute(
        f"CREATE TEMP VIEW {ident(out)} AS SELECT * FROM {ident(view)} "
        f"WHERE CAST({ident(column)} AS VARCHAR) = {sql_str(system)}"
    )
    if require and con.execute(f"SELECT 1 FROM {ident(out)} LIMIT 1").fetchone() is None:
        present = [
            str(r[0])
            for r in con.execute(
                f"SELECT DISTINCT CAST({ident(column)} AS VARCHAR) FROM {ident(view)} ORDER BY 1 LIMIT 21"
            ).fetchall()
        ]
        more = "…" if len(present) > 20 else ""
        raise InputError(
            f"{label}: no rows of system {system!r}; the {column} column holds "
            f"{', '.join(present[:20])}{more}"
        )


def validate(con, label: str, view: str, cols: Columns) -> float:
    """Missing columns, empty tables, NULL/non-numeric/NaN/inf scores, duplicate query ids.

    Returns the mean score, the centre `aggregate` uses for stable sums of squares.
    """
    available = columns_of(con, view)
    missing = [c for c in cols.required() if c not in available]
    if missing:
        raise InputError(f"{label}: column(s) {missing} not found; available: {available}")
    d, y = ident(cols.cluster), ident(cols.score)
    rows, null_doc, null_y, non_numeric, non_finite, total = run(
        con,
        label,
        f"""SELECT count(*),
               count(*) FILTER (WHERE {d} IS NULL),
               count(*) FILTER (WHERE {y} IS NULL OR trim(CAST({y} AS VARCHAR)) = ''),
               count(*) FILTER (WHERE {y} IS NOT NULL AND trim(CAST({y} AS VARCHAR)) <> ''
                                AND TRY_CAST({y} AS DOUBLE) IS NULL),
               count(*) FILTER (WHERE NOT isfinite(TRY_CAST({y} AS DOUBLE))),
               fsum(TRY_CAST({y} AS DOUBLE)) FILTER (WHERE isfinite(TRY_CAST({y} AS DOUBLE)))
            FROM {ident(view)}""",
    ).fetchone()
    score = cols.score
    if rows == 0:
        raise InputError(f"{label}: no rows")
    if null_doc:
        raise InputError(f"{label}: {null_doc} row(s) have no {cols.cluster!r}")
    if null_y:
        raise InputError(f"{label}: score {score!r} is missing in {null_y} row(s)")
    if non_numeric:
        raise InputError(_not_numbers(con, label, view, score, non_numeric, rows, OPT_IN))
    if non_finite:
        raise InputError(f"{label}: score {score!r} is NaN or infinite in {non_finite} row(s)")
    if cols.position is not None:
        _validate_positions(con, label, view, cols)
    if cols.query_id is not None:
        qid = ident(cols.query_id)
        (null_q,) = run(
            con, label, f"SELECT count(*) FROM {ident(view)} WHERE {qid} IS NULL"
        ).fetchone()
        if null_q:
            raise InputError(f"{label}: {cols.query_id!r} is missing in {null_q} row(s)")
        dup = run(
            con,
            label,
            f"SELECT {qid}, count(*) FROM {ident(view)} GROUP BY 1 HAVING count(*) > 1 LIMIT 3",
        ).fetchall()
        if dup:
            shown = ", ".join(f"{r[0]!r} ({r[1]}×)" for r in dup)
            raise InputError(f"{label}: duplicate {cols.query_id!r} values: {shown}")
    return float(total) / rows


def _not_numbers(con, label: str, view: str, score: str, count: int, total: int, hint: str):
    """The one-line message for ``count`` cells of ``score`` that are not numbers."""
    y = ident(score)
    first = run(
        con,
        label,
        f"SELECT rn, CAST(v AS VARCHAR) FROM (SELECT row_number() OVER () AS rn, {y} AS v "
        f"FROM {ident(view)}) WHERE v IS NOT NULL AND trim(CAST(v AS VARCHAR)) <> '' "
        "AND TRY_CAST(v AS DOUBLE) IS NULL ORDER BY rn LIMIT 3",
    ).fetchall()
    return not_numbers_message(label, score, count, total, [(int(i), v) for i, v in first], hint)


def score_cells(
    con, label: str, view: str, score: str, non_numeric: str = "error", hint: str = OPT_IN
) -> int:
    """Cells of ``score`` in ``view`` that are not numbers (blank text counts as missing):
    one-line `InputError` when ``non_numeric == "error"``; with ``"missing"`` the view is
    replaced by its rows whose score is a number or missing, and the count returned."""
    check_non_numeric(non_numeric)
    if score not in columns_of(con, view):
        return 0  # `validate` names the missing column
    y = ident(score)
    bad_sql = (
        f"{y} IS NOT NULL AND trim(CAST({y} AS VARCHAR)) <> '' AND TRY_CAST({y} AS DOUBLE) IS NULL"
    )
    count, total = run(
        con, label, f"SELECT count(*) FILTER (WHERE {bad_sql}), count(*) FROM {ident(view)}"
    ).fetchone()
    if not count:
        return 0
    if non_numeric == "error":
        raise InputError(_not_numbers(con, label, view, score, count, total, hint))
    kept = f"{view}__all_rows"
    con.execute(f"ALTER VIEW {ident(view)} RENAME TO {ident(kept)}")
    con.execute(
        f"CREATE TEMP VIEW {ident(view)} AS SELECT * FROM {ident(kept)} WHERE NOT ({bad_sql})"
    )
    return int(count)


def _validate_positions(con, label: str, view: str, cols: Columns) -> None:
    """Positions must be numeric, present and unique within a document."""
    p, d = ident(cols.position or ""), ident(cols.cluster)
    (bad,) = run(
        con,
        label,
        f"SELECT count(*) FILTER (WHERE {p} IS NULL OR NOT isfinite(TRY_CAST({p} AS DOUBLE))) "
        f"FROM {ident(view)}",
    ).fetchone()
    if bad:
        raise InputError(
            f"{label}: position {cols.position!r} is missing or not numeric in {bad} row(s)"
        )
    tie = run(
        con,
        label,
        f"SELECT {d}, {p} FROM {ident(view)} GROUP BY 1, 2 HAVING count(*) > 1 LIMIT 1",
    ).fetchall()
    if tie:
        raise InputError(f"{label}: document {tie[0][0]!r} has two queries at position {tie[0][1]}")


def _rows_sql(view: str, cols: Columns) -> str:
    """The per-query rows as (doc, y[, stratum][, pos]) — a subquery, never materialised."""
    parts = [
        f"CAST({ident(cols.cluster)} AS VARCHAR) AS doc",
        f"CAST({ident(cols.score)} AS DOUBLE) AS y",
    ]
    if cols.stratum:
        parts.append(f"CAST({ident(cols.stratum)} AS VARCHAR) AS stratum")
    if cols.position:
        parts.append(f"TRY_CAST({ident(cols.position)} AS DOUBLE) AS pos")
    return f"(SELECT {', '.join(parts)} FROM {ident(view)})"


def aggregate(con, label: str, view: str, cols: Columns, center: float = 0.0) -> DocStats:
    """One row per document (sorted by id): n, s, q, binary flag, score range, strata, lag sums.

    Sums use DuckDB's compensated ``fsum`` (reproducible across runs and threads);
    the within-document sum of squares is taken around ``center`` (the mean score)
    so that a large common offset does not cancel it away.
    """
    rows = _rows_sql(view, cols)
    c = float(center)
    strata = (
        ", min(stratum) AS smin, count(DISTINCT stratum) AS sk,"
        " count(*) FILTER (WHERE stratum IS NULL) AS snull"
        if cols.stratum
        else ""
    )
    res = run(
        con,
        label,
        f"""SELECT doc, count(*)::DOUBLE AS n, fsum(y) AS s, fsum(y * y) AS q,
                   fsum((y - {c!r}) * (y - {c!r})) AS qc, fsum(y - {c!r}) AS sc,
                   bool_and(y = 0 OR y = 1) AS bin, min(y) AS lo, max(y) AS hi {strata}
            FROM {rows} GROUP BY doc ORDER BY doc""",
    ).fetchnumpy()
    doc_id = np.asarray(res["doc"], dtype=object)
    if cols.stratum and np.any(np.asarray(res["snull"]) > 0):
        bad = doc_id[int(np.flatnonzero(np.asarray(res["snull"]) > 0)[0])]
        raise InputError(f"{label}: document {bad!r} has rows with no {cols.stratum!r}")
    if cols.stratum and np.any(np.asarray(res["sk"]) > 1):
        bad = doc_id[int(np.flatnonzero(np.asarray(res["sk"]) > 1)[0])]
        raise InputError(f"{label}: document {bad!r} has more than one {cols.stratum!r} value")
    return DocStats(
        doc_id=doc_id,
        n=np.asarray(res["n"], dtype=np.float64),
        s=np.asarray(res["s"], dtype=np.float64),
        q=np.asarray(res["q"], dtype=np.float64),
        w=np.maximum(
            np.asarray(res["qc"]) - np.asarray(res["sc"]) ** 2 / np.asarray(res["n"]), 0.0
        ),
        binary=bool(np.all(res["bin"])),
        score_range=(float(np.min(res["lo"])), float(np.max(res["hi"]))),
        stratum=np.asarray(res["smin"], dtype=object) if cols.stratum else None,
        lag=_lag(con, label, rows, doc_id) if cols.position else None,
        score=cols.score,
    )


def _lag(con, label: str, rows: str, doc_id: np.ndarray) -> LagSums:
    res = run(
        con,
        label,
        f"""SELECT doc, fsum(y * prev) AS c, fsum(y + prev) AS a, count(*)::DOUBLE AS p
            FROM (SELECT doc, y, lag(y) OVER (PARTITION BY doc ORDER BY pos) AS prev FROM {rows})
            WHERE prev IS NOT NULL GROUP BY doc""",
    ).fetchnumpy()
    K = doc_id.shape[0]
    idx = np.searchsorted(doc_id.astype(str), np.asarray(res["doc"], dtype=str))
    out = {k: np.zeros(K) for k in ("c", "a", "p")}
    for k in out:
        out[k][idx] = np.asarray(res[k], dtype=np.float64)
    return LagSums(**out)


def fetch_scores(con, label: str, view: str, cols: Columns, stats: DocStats) -> QueryScores:
    """Per-query scores aligned with ``stats`` (only the naive query resampling needs them).

    Rows come in a canonical order (document, then query id when there is one), so
    resampling draws do not depend on the file's row order.
    """
    order = "doc" + (f", CAST({ident(cols.query_id)} AS VARCHAR)" if cols.query_id else ", y")
    res = run(
        con,
        label,
        f"SELECT CAST({ident(cols.cluster)} AS VARCHAR) AS doc, "
        f"CAST({ident(cols.score)} AS DOUBLE) AS y FROM {ident(view)} ORDER BY {order}",
    ).fetchnumpy()
    idx = np.searchsorted(stats.doc_id.astype(str), np.asarray(res["doc"], dtype=str))
    return QueryScores(doc_index=idx.astype(np.int64), y=np.asarray(res["y"], dtype=np.float64))
