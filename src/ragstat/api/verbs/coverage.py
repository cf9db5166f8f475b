"""``ragstat.coverage``: the coverage matrix of an evaluation set.

>>> m = coverage("queries.parquet", dims=["intent", "doc_type"], score="hit1",
...              target_half_width=0.05)    # doctest: +SKIP
>>> m.to_frame()        # doctest: +SKIP  one row per cell, empty cells included
>>> m.empty_cells       # doctest: +SKIP
>>> m.to_dict()         # doctest: +SKIP  what ``ragstat coverage --json`` prints

Per cell: queries, documents, and (with a pilot ``score``) the half-width the cell's
documents give and the documents needed for ``target_half_width`` — ``ragstat plan``'s
computation with the cell's between-document SD (rules: :mod:`ragstat.testsets.coverage`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pandas as pd

from ragstat.api.arguments import level_value, real_number
from ragstat.api.columns import resolve_column
from ragstat.api.data import Data, as_frame, label_of
from ragstat.errors import InputError
from ragstat.records.cells import CellCounts, check_non_numeric, numeric_cells, parse_cells
from ragstat.testsets.coverage import SD_SOURCES, Cell, Matrix, coverage_matrix
from ragstat.tidy import Tidy, plain

if TYPE_CHECKING:
    from ragstat.report.matrix import MatrixCell
    from ragstat.report.model import Report

__all__ = ["CoverageMatrix", "coverage"]

#: Column names of a cell row; a dimension may not take one of them.
_ROW_COLUMNS = ("cell", "queries", "documents", "empty", "estimate", "sd", "sd_source",
                "half_width", "half_width_note", "documents_needed", "more_documents")  # fmt: skip


@dataclass(frozen=True, repr=False)
class CoverageMatrix(Tidy):
    """The coverage matrix: one row per cell of the cross product of ``dims``."""

    source: str
    matrix: Matrix
    documents: int
    notes: tuple[str, ...] = field(default_factory=tuple)
    #: The range the pilot score lies in ((0, 1) for rates, else as observed), or None.
    score_bounds: tuple[float, float] | None = None
    #: The pilot score's cells without a number: missing vs not a number (left out).
    score_cells: CellCounts = field(default_factory=CellCounts)

    headline_columns = ("cell", "queries", "documents", "estimate", "half_width",
                        "half_width_note", "documents_needed", "more_documents")  # fmt: skip

    def shown_half_width(self, c: Cell) -> tuple[float | None, str | None]:
        """The cell's half-width, or None with the words why: a half-width h with 2h above
        the score's range is an impossible number (the interval would cover every value)."""
        h = plain(c.half_width)
        if h is None or self.score_bounds is None:
            return h, None
        lo, hi = self.score_bounds
        if hi > lo and 2 * h > hi - lo:
            return None, (
                f"wider than the score's range [{lo:g}, {hi:g}]: the data cannot support a ±h "
                f"interval at this size ({c.documents} documents)"
            )
        return h, None

    @property
    def cells(self) -> tuple[Cell, ...]:
        return self.matrix.cells

    @property
    def empty_cells(self) -> tuple[tuple[str, ...], ...]:
        """The empty cells, each as its level per dimension."""
        return self.matrix.empty_cells

    def _row(self, c: Cell) -> dict[str, Any]:
        m = self.matrix
        row: dict[str, Any] = dict(zip(m.dims, c.values, strict=True))
        row |= {"cell": " × ".join(c.values), "queries": c.queries,
                "documents": c.documents, "empty": c.empty}  # fmt: skip
        if m.score is not None:
            h, why = self.shown_half_width(c)
            row |= {"estimate": plain(c.estimate), "sd": plain(c.sd), "sd_source": c.sd_source,
                    "half_width": h}  # fmt: skip
            if why is not None:
                row["half_width_note"] = why
        if m.target_half_width is not None:
            row |= {"documents_needed": c.documents_needed, "more_documents": c.more_documents}
        return row

    def rows(self) -> list[dict[str, Any]]:
        return [self._row(c) for c in self.cells]

    def title(self) -> str:
        m = self.matrix
        return (
            f"coverage matrix ({' × '.join(m.dims)}: {len(m.cells)} cells, "
            f"{len(m.empty_cells)} empty)"
        )

    def to_dict(self) -> dict[str, Any]:
        m = self.matrix
        return {
            "verb": "coverage",
            "source": self.source,
            "dims": list(m.dims),
            "levels": {d: list(v) for d, v in zip(m.dims, m.levels, strict=True)},
            "columns": {"cluster": m.cluster, "score": m.score},
            "estimand": m.estimand,
            "level": m.level,
            "target_half_width": m.target_half_width,
            "pooled_sd": plain(m.pooled_sd),
            "pooled_sd_cells": m.pooled_cells,
            "counts": {
                "cells": len(m.cells),
                "empty": len(m.empty_cells),
                "queries": sum(c.queries for c in m.cells),
                "documents": self.documents,
                "score_cells": None if m.score is None else self.score_cells.to_dict(),
            },
            "empty_cells": [dict(zip(m.dims, v, strict=True)) for v in m.empty_cells],
            "cells": [{k: v for k, v in r.items() if k != "cell"} for r in self.rows()],
            "notes": list(self.notes),
        }

    def report(self, *, created: str | None = None, title: str | None = None) -> Report:
        """The report (matrix table, heat map M1) that ``--out`` writes."""
        from ragstat.report.coverage_matrix import report_from_coverage_matrix

        m = self.matrix
        cells = tuple(_report_cell(c, self.shown_half_width(c)[0]) for c in m.cells)
        return report_from_coverage_matrix(
            dims=m.dims, cells=cells, cluster=m.cluster, score=m.score, estimand=m.estimand,
            level=m.level, target_half_width=m.target_half_width, source=self.source,
            notes=self.notes, created=created, title=title,
        )  # fmt: skip


def _report_cell(c: Cell, half_width: float | None) -> MatrixCell:
    from ragstat.report.matrix import MatrixCell

    source = None if c.sd_source is None else SD_SOURCES[c.sd_source]
    return MatrixCell(c.values, c.queries, c.documents, plain(c.estimate), plain(c.sd), source,
                      half_width, c.documents_needed)  # fmt: skip


def _score_bounds(frame: pd.DataFrame, score: str | None) -> tuple[float, float] | None:
    """(0, 1) for a pilot score in [0, 1], else its observed range; None without one
    (the score column is already numbers: :func:`_scored`)."""
    if score is None:
        return None
    values = frame[score].dropna()
    if values.empty:
        return None
    lo, hi = float(values.min()), float(values.max())
    return (0.0, 1.0) if lo >= 0 and hi <= 1 else (lo, hi)


def _scored(
    frame: pd.DataFrame, score: str | None, where: str, non_numeric: str
) -> tuple[pd.DataFrame, CellCounts]:
    """The table with its pilot score as numbers (:mod:`ragstat.records.cells`): a cell
    that is not a number stops here (one line) unless ``non_numeric="missing"``, and then
    its row is left out of the matrix. Missing cells stay (the matrix refuses them)."""
    if score is None:
        return frame, CellCounts()
    values, cells = numeric_cells(frame[score], score, where, non_numeric)
    numbers = frame.assign(**{score: values})
    if cells.non_numeric:
        numbers = numbers[~parse_cells(frame[score])[1]]
    return numbers, cells


def _cell_note(score: str | None, cells: CellCounts) -> list[str]:
    if not cells.non_numeric:
        return []
    return [f"{score}: {cells.non_numeric} not a number, {cells.missing} missing: the rows whose "
            "score is not a number were left out of the matrix, counts included "
            "(non_numeric = missing)"]  # fmt: skip


def _frame(data: Data) -> pd.DataFrame:
    return as_frame(data)


def _dims(dims: str | Sequence[str], names: list[str], where: str) -> tuple[str, ...]:
    wanted = [d.strip() for d in dims.split(",")] if isinstance(dims, str) else list(dims)
    wanted = [d for d in wanted if d]
    if not wanted:
        raise InputError("give at least one dimension (--dims intent,doc_type)")
    out = tuple(resolve_column(names, d, "--dims", where) for d in wanted)
    clash = [d for d in out if d in _ROW_COLUMNS]
    if clash:
        raise InputError(f"a dimension may not be named {', '.join(clash)} (rename the column)")
    return out


def _check_cells(
    frame: pd.DataFrame, dims: tuple[str, ...], levels: Mapping[str, Sequence[str]], where: str
) -> None:
    """Stop before the cross product is built when it has more cells than
    ``RAGSTAT_MAX_CELLS`` (3 dimensions of 100 values: 1,000,000 cells)."""
    from ragstat.resources.caps import CELLS_ENV, check_cap, check_list

    check_list(dims, "--dims")
    sizes = [
        len(levels[d]) if d in levels else int(frame[d].astype(str).nunique(dropna=False))
        for d in dims
    ]
    cells = math.prod(sizes)
    check_cap(cells, CELLS_ENV,
              f"{where}: cells of the coverage matrix ({' × '.join(f'{n:,}' for n in sizes)})",
              "use fewer dimensions or group their values")  # fmt: skip


def _notes(m: Matrix) -> list[str]:
    if m.score is None:
        return ["no --score: counts only (give a pilot score for half-widths and documents "
                "needed)"]  # fmt: skip
    S = "sd(r_d), r_d = s_d / n_d" if m.estimand == "macro" else "sd(s_d − R n_d) / m̄"
    pooled = (
        f"the pooled S = {m.pooled_sd:.4g} (from {m.pooled_cells} cells with ≥ 2 documents)"
        if m.pooled_sd is not None
        else "no pooled S (no cell has 2 documents)"
    )
    return [
        f"S per cell = {S} over the cell's documents ({m.estimand} estimand); cells with "
        f"fewer than 2 documents or an SD of 0 use {pooled}",
        "half-width = t(1 − α/2; K − 1) · S/√K with no finite correction; documents needed: "
        "the smallest K with h(K) ≤ the target, as ragstat plan --half-width h --sd S computes",
        "a document with queries in several cells counts in each; cells are not independent "
        "samples of documents",
    ]


def coverage(
    data: Data,
    *,
    dims: str | Sequence[str],
    score: str | None = None,
    cluster: str = "doc_id",
    target_half_width: float | None = None,
    estimand: str = "macro",
    level: float = 0.95,
    levels: Mapping[str, Sequence[str]] | None = None,
    non_numeric: str = "error",
) -> CoverageMatrix:
    """The coverage matrix of a query table over ``dims`` (any columns): queries and
    documents per cell, the empty cells of the full cross product (of the observed values,
    or of ``levels`` declared per dimension), and with a pilot ``score`` the half-width
    each cell's documents give and the documents needed for ``target_half_width``. A
    score cell that is not a number is an error unless ``non_numeric="missing"`` (then its
    row is left out, counted in the notes)."""
    level = level_value(level)
    if target_half_width is not None:
        target_half_width = real_number(target_half_width, "target_half_width")
    frame = _frame(data)
    where = label_of(data)
    names = [str(c) for c in frame.columns]
    dim_cols = _dims(dims, names, where)
    cluster = resolve_column(names, cluster, "--cluster", where)
    if score is not None:
        score = resolve_column(names, score, "--score", where)
    renamed = {resolve_column(names, d, "levels", where): v for d, v in (levels or {}).items()}
    _check_cells(frame, dim_cols, renamed, where)
    frame, cells = _scored(frame, score, where, check_non_numeric(non_numeric))
    m = coverage_matrix(
        frame, dim_cols, cluster=cluster, score=score, target_half_width=target_half_width,
        estimand=estimand, level=level, levels=renamed or None,
    )  # fmt: skip
    documents = int(frame[cluster].astype(str).nunique())
    notes = (*_cell_note(score, cells), *_notes(m))
    return CoverageMatrix(where, m, documents, notes, _score_bounds(frame, score), cells)
