"""The observed range of each system's score in a paired comparison.

A paired difference A − B of scores known in [a_lo, a_hi] and [b_lo, b_hi] lies in
[a_lo − b_hi, a_hi − b_lo] (:func:`ragstat.records.docstats.difference_range`); this module
reads the (min, max) of each side's score from the same tables `pair_files` reads, so the
comparison can say what is known: every value in [0, 1] makes a side a rate.
"""

from __future__ import annotations

from pathlib import Path

from ragstat.records import duck
from ragstat.records.duck import ident

__all__ = ["side_ranges"]


def _minmax(con, label: str, view: str, score: str) -> tuple[float, float] | None:
    y = f"TRY_CAST({ident(score)} AS DOUBLE)"
    lo, hi = duck.run(con, label, f"SELECT min({y}), max({y}) FROM {ident(view)}").fetchone()
    return None if lo is None or hi is None else (float(lo), float(hi))


def side_ranges(
    a: str | Path,
    b: str | Path | None = None,
    *,
    score: str,
    systems: tuple[str, str] | None = None,
    system_column: str | None = None,
) -> tuple[tuple[float, float] | None, tuple[float, float] | None]:
    """(min, max) of ``score`` for A and for B: two tables, or one table with a system
    column and ``systems=(A, B)``; None for a side without values."""
    con = duck.connect()
    try:
        if b is None:
            duck.attach(con, a, "src")
            column = duck.system_column_of(duck.columns_of(con, "src"), system_column)
            for view, name in zip(("A", "B"), systems or ("", ""), strict=True):
                duck.select_system(con, str(a), "src", column, name, view, require=False)
        else:
            duck.attach(con, a, "A")
            duck.attach(con, b, "B")
        return _minmax(con, str(a), "A", score), _minmax(con, str(b or a), "B", score)
    finally:
        con.close()
