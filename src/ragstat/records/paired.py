"""Align two systems' per-query tables on ``query_id`` and aggregate y = y_A − y_B per document.

The queries must be the same: a query present for one system only is an error
that lists the first offending ids, unless ``on_missing="drop"``, in which case
the unmatched queries are dropped and counted in the `Pairing`. A query must
come from the same document in both tables.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from pathlib import Path

from ragstat.errors import InputError
from ragstat.records import duck
from ragstat.records.docstats import DocStats, QueryScores
from ragstat.records.duck import Columns, ident
from ragstat.records.weighted import WEIGHT, expand_pairs

__all__ = ["ON_MISSING", "PairedTable", "Pairing", "pair_files"]

ON_MISSING = ("error", "drop")


@dataclass(frozen=True)
class Pairing:
    """How the two systems' queries were matched."""

    systems: tuple[str, str]
    matched: int
    only_a: int
    only_b: int
    on_missing: str
    documents_lost: int = 0  # documents none of whose queries matched (dropped whole)
    #: Rows of A and of B left out because their score was not a number (only with
    #: ``non_numeric="missing"``; their queries then have no partner).
    non_numeric: tuple[int, int] = (0, 0)

    def to_dict(self) -> dict:
        out = asdict(self)
        out["systems"] = list(self.systems)
        out["non_numeric"] = list(self.non_numeric)
        return out


@dataclass(frozen=True, eq=False)
class PairedTable:
    """Per-document sums of the differences, the pairing counts and optionally the rows."""

    stats: DocStats
    pairing: Pairing
    query_scores: QueryScores | None = None
    weighted: bool = False  # stats expanded by the shared weight column (sampled queries)


def _sides(
    con, a: Path, b: Path | None, systems: tuple[str, str] | None, system_column: str | None
):
    """Create views A and B; return their labels."""
    if b is None:
        if systems is None:
            raise InputError("one table given: name the two systems to compare (--systems A,B)")
        duck.attach(con, a, "src")
        column = duck.system_column_of(duck.columns_of(con, "src"), system_column)
        if column is None:
            raise InputError(
                f"{a}: no system column ({system_column or ' or '.join(duck.SYSTEM_COLUMNS)}) "
                f"to pick systems {list(systems)} from"
            )
        for view, name in zip(("A", "B"), systems, strict=True):
            duck.select_system(con, str(a), "src", column, name, view)
        return f"{a} (system {systems[0]!r})", f"{a} (system {systems[1]!r})"
    if systems is not None:
        raise InputError(
            "--systems applies to a single table with a system column, not to two files"
        )
    duck.attach(con, a, "A")
    duck.attach(con, b, "B")
    return str(a), str(b)


def _keyed(con, label: str, cols: Columns) -> None:
    """Views KA/KB with a text join key, so int 1 and text '1' match but '01' does not."""
    q = ident(cols.query_id or "query_id")
    for side in ("A", "B"):
        duck.run(
            con,
            label,
            f"CREATE TEMP VIEW K{side} AS SELECT *, CAST({q} AS VARCHAR) AS __qid FROM {side}",
        )


def _match(
    con, labels: tuple[str, str], cols: Columns, on_missing: str
) -> tuple[int, int, int, int]:
    label = f"{labels[0]} vs {labels[1]}"
    _keyed(con, label, cols)
    counts = []
    for left, right, side in (("KA", "KB", labels[0]), ("KB", "KA", labels[1])):
        anti = f"FROM {left} ANTI JOIN {right} USING (__qid)"
        (count,) = duck.run(con, label, f"SELECT count(*) {anti}").fetchone()
        counts.append(int(count))
        if count and on_missing == "error":
            ids = duck.run(con, label, f"SELECT __qid {anti} ORDER BY 1 LIMIT 5").fetchall()
            raise InputError(
                f"{count} query id(s) in {side} have no match in the other system "
                f"(first: {', '.join(repr(r[0]) for r in ids)}); the same queries are needed, "
                "or pass --on-missing drop"
            )
    d = ident(cols.cluster)
    moved = duck.run(
        con,
        label,
        f"SELECT KA.__qid, KA.{d}, KB.{d} FROM KA JOIN KB USING (__qid) "
        f"WHERE CAST(KA.{d} AS VARCHAR) <> CAST(KB.{d} AS VARCHAR) LIMIT 3",
    ).fetchall()
    if moved:
        shown = "; ".join(f"{r[0]!r}: {r[1]!r} vs {r[2]!r}" for r in moved)
        raise InputError(f"queries come from different documents in the two systems ({shown})")
    (matched,) = duck.run(con, label, "SELECT count(*) FROM KA JOIN KB USING (__qid)").fetchone()
    if matched == 0:
        raise InputError("the two systems share no query ids")
    lost = 0
    if any(counts):
        (lost,) = duck.run(
            con,
            label,
            f"SELECT count(*) FROM (SELECT CAST({d} AS VARCHAR) AS d FROM KA UNION "
            f"SELECT CAST({d} AS VARCHAR) FROM KB) AS alld WHERE d NOT IN "
            f"(SELECT CAST(KA.{d} AS VARCHAR) FROM KA JOIN KB USING (__qid))",
        ).fetchone()
    return matched, counts[0], counts[1], int(lost)


def _pairs_view(con, label: str, cols: Columns) -> None:
    """View ``pairs``: per matched query, A's cluster/stratum/position and y_A − y_B."""
    q, y = ident(cols.query_id or "query_id"), ident(cols.score)
    extra = "".join(f", KA.{ident(c)}" for c in (cols.cluster, cols.stratum, cols.position) if c)
    duck.run(
        con,
        label,
        f"CREATE TEMP VIEW pairs AS SELECT KA.__qid AS {q}{extra}, "
        f"CAST(KA.{y} AS DOUBLE) - CAST(KB.{y} AS DOUBLE) AS {y} FROM KA JOIN KB USING (__qid)",
    )


def pair_files(
    a: str | Path,
    b: str | Path | None = None,
    *,
    systems: tuple[str, str] | None = None,
    cluster: str = "doc_id",
    score: str,
    query_id: str = "query_id",
    stratum: str | None = None,
    position: str | None = None,
    on_missing: str = "error",
    system_column: str | None = None,
    with_rows: bool = False,
    non_numeric: str = "error",
) -> PairedTable:
    """Differences y_A − y_B per query, aggregated per document with DuckDB.

    Either two files (``a``, ``b``) or one file with a system column and
    ``systems=(A, B)``. Stratum and position are taken from system A. Tables with a
    ``weight`` column (sampled queries) must agree on it per query; the sums are then
    expanded by it (:func:`ragstat.records.weighted.expand_pairs`). A score cell that is
    not a number is an error unless ``non_numeric="missing"`` (its row is then left out,
    counted in ``Pairing.non_numeric``, and its query has no partner: see ``on_missing``).
    """
    if on_missing not in ON_MISSING:
        raise InputError(f"on_missing must be one of {ON_MISSING}, got {on_missing!r}")
    cols = Columns(cluster, score, stratum, position, query_id)
    con = duck.connect()
    try:
        labels = _sides(con, Path(a), None if b is None else Path(b), systems, system_column)
        dropped = [duck.score_cells(con, labels[i], "AB"[i], score, non_numeric) for i in (0, 1)]
        center_a, center_b = (
            duck.validate(con, label, view, cols)
            for view, label in zip(("A", "B"), labels, strict=True)
        )
        matched, only_a, only_b, lost = _match(con, labels, cols, on_missing)
        _pairs_view(con, f"{labels[0]} vs {labels[1]}", cols)
        names = systems if systems is not None else (Path(a).stem, Path(b or a).stem)
        label = f"{labels[0]} − {labels[1]}"
        stats = replace(
            duck.aggregate(con, label, "pairs", cols, center_a - center_b), binary=False
        )
        sides = tuple(WEIGHT in duck.columns_of(con, v) for v in ("A", "B"))
        weighted = any(sides)
        rows = None
        if weighted:  # the naive query bootstrap is not run on weighted records: no rows
            stats = expand_pairs(con, label, cols, stats, sides)  # type: ignore[arg-type]
        elif with_rows:
            rows = duck.fetch_scores(con, label, "pairs", cols, stats)
    finally:
        con.close()
    pairing = Pairing(
        (str(names[0]), str(names[1])), int(matched), only_a, only_b, on_missing, lost,
        (int(dropped[0]), int(dropped[1])),
    )  # fmt: skip
    return PairedTable(stats=stats, pairing=pairing, query_scores=rows, weighted=weighted)
