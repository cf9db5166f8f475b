"""The coverage matrix: queries and documents per cell of chosen dimensions, the empty cells,
and what each cell's documents can decide.

Cells are the full cross product of the dimensions' levels: each dimension's observed values
(as text, sorted) or its declared levels (in the order given; a value outside them is an
error). Per cell: queries (rows) and documents (distinct cluster values; a document with
queries in two cells counts in both). Given a score column (a pilot), per filled cell with
K documents and per-document sums s_d over n_d queries (r_d = s_d / n_d):

    S_c = sd(r_d)                                   (macro)
    S_c = sd(u_d) / m̄,  u_d = s_d − R_c n_d          (micro; R_c = Σ s / Σ n in the cell)

exactly what ``ragstat plan --pilot`` computes on the cell's rows. The half-width the
cell's documents give is ``half_width(K, S, level)`` (no finite correction) and the
documents needed for a target h are ``plan_documents(h, S, level, estimand).K`` — what
``ragstat plan --half-width h --sd S`` answers. S is the cell's own S_c when K ≥ 2 and
S_c > 0; otherwise the pooled S = √(Σ (K_c − 1) S_c² / Σ (K_c − 1)) over the cells with
K_c ≥ 2 (each cell states which it used). A cell with one document has no half-width.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from ragstat.errors import InputError
from ragstat.inference.planning import half_width, plan_documents

__all__ = ["SD_SOURCES", "Cell", "Matrix", "coverage_matrix"]

#: How a cell's S was obtained (the ``sd_source`` of a filled cell with a score).
SD_SOURCES = {
    "cell": "cell",
    "pooled_few": "pooled (< 2 documents)",
    "pooled_zero": "pooled (cell SD 0)",
}
_ROW_NAMES = 5  # rows named in a message about nulls


@dataclass(frozen=True)
class Cell:
    """One cell: its level per dimension, queries, documents and (with a score) its plan."""

    values: tuple[str, ...]
    queries: int
    documents: int
    estimate: float | None = None
    sd: float | None = None
    sd_source: str | None = None
    half_width: float | None = None
    documents_needed: int | None = None

    @property
    def empty(self) -> bool:
        return self.queries == 0

    @property
    def more_documents(self) -> int | None:
        """Documents to add to reach the target (0 when the cell already has enough)."""
        if self.documents_needed is None:
            return None
        return max(0, self.documents_needed - self.documents)


@dataclass(frozen=True)
class Matrix:
    """The coverage matrix: every cell of the cross product, in grid order."""

    dims: tuple[str, ...]
    levels: tuple[tuple[str, ...], ...]
    cells: tuple[Cell, ...]
    cluster: str
    score: str | None
    estimand: str
    level: float
    target_half_width: float | None
    pooled_sd: float | None
    pooled_cells: int

    @property
    def empty_cells(self) -> tuple[tuple[str, ...], ...]:
        return tuple(c.values for c in self.cells if c.empty)


def _nulls(frame: pd.DataFrame, column: str, what: str) -> None:
    bad = np.flatnonzero(frame[column].isna().to_numpy())
    if bad.size:
        rows = ", ".join(str(int(i)) for i in bad[:_ROW_NAMES])
        more = " …" if bad.size > _ROW_NAMES else ""
        raise InputError(
            f"{what} column {column!r} has {bad.size} null value{'s' if bad.size > 1 else ''} "
            f"(rows {rows}{more}, counting from 0): fill or drop them"
        )


def _check_columns(frame: pd.DataFrame, dims: Sequence[str], cluster: str, score: str | None):
    if frame.shape[0] == 0:
        raise InputError("the table has no rows")
    if not dims:
        raise InputError("give at least one dimension (--dims intent,doc_type)")
    if len(set(dims)) != len(dims):
        raise InputError(f"--dims names a column twice: {', '.join(dims)}")
    names = [str(c) for c in frame.columns]
    for col, what in [*((d, "--dims") for d in dims), (cluster, "--cluster"), (score, "--score")]:
        if col is not None and col not in names:
            raise InputError(f"{what} {col!r} is not a column (columns: {', '.join(names)})")
    for d in dims:
        _nulls(frame, d, "dimension")
    _nulls(frame, cluster, "cluster")


def _check_options(estimand: str, level: float, target: float | None, score: str | None):
    if estimand not in ("micro", "macro"):
        raise InputError(f"estimand must be micro or macro, got {estimand!r}")
    if not 0 < level < 1:
        raise InputError(f"level must be between 0 and 1, got {level}")
    if target is not None:
        if not (math.isfinite(target) and target > 0):
            raise InputError(f"the target half-width must be positive, got {target}")
        if score is None:
            raise InputError("a target half-width needs a score column (--score) from a pilot")


def _scores(frame: pd.DataFrame, score: str) -> np.ndarray:
    column = frame[score]
    _nulls(frame, score, "score")
    if column.dtype == bool or pd.api.types.is_bool_dtype(column):
        return column.to_numpy(dtype=float)
    if not pd.api.types.is_numeric_dtype(column):
        raise InputError(f"score column {score!r} is not numeric (type {column.dtype})")
    y = column.to_numpy(dtype=float)
    if not np.isfinite(y).all():
        raise InputError(f"score column {score!r} has non-finite values (inf)")
    return y


def _levels(
    keys: pd.DataFrame, dims: Sequence[str], levels: Mapping[str, Sequence[str]] | None
) -> tuple[tuple[str, ...], ...]:
    """Each dimension's levels: declared (checked against the data) or observed, sorted."""
    declared = {str(k): tuple(str(v) for v in vals) for k, vals in (levels or {}).items()}
    unknown = sorted(set(declared) - set(dims))
    if unknown:
        raise InputError(f"levels given for {', '.join(unknown)}, which is not in --dims")
    out = []
    for i, d in enumerate(dims):
        seen = sorted(set(keys[i]))
        if d not in declared:
            out.append(tuple(seen))
            continue
        mine = declared[d]
        if not mine or len(set(mine)) != len(mine):
            raise InputError(f"the declared levels of {d!r} must be distinct and non-empty")
        extra = [v for v in seen if v not in set(mine)]
        if extra:
            raise InputError(f"{d!r} has values outside its declared levels: {', '.join(extra)}")
        out.append(mine)
    return tuple(out)


def _cell_stats(keys: pd.DataFrame, doc: np.ndarray, y: np.ndarray | None) -> pd.DataFrame:
    """One row per filled cell: queries N, documents K and, with scores, estimate and S_c."""
    dims = list(keys.columns)
    work = keys.assign(doc=doc, y=np.zeros(len(doc)) if y is None else y)
    docs = work.groupby([*dims, "doc"], sort=False).agg(n=("y", "size"), s=("y", "sum"))
    docs = docs.reset_index()
    docs["r"] = docs["s"] / docs["n"]
    by = docs.groupby(dims, sort=False)
    ratio = by["s"].transform("sum") / by["n"].transform("sum")
    docs["u"] = docs["s"] - ratio * docs["n"]
    per = docs.groupby(dims, sort=False).agg(
        K=("n", "size"), N=("n", "sum"), total=("s", "sum"), macro=("r", "mean"),
        sd_macro=("r", "std"), sd_u=("u", "std"), mbar=("n", "mean"),
    )  # fmt: skip
    per["micro"] = per["total"] / per["N"]
    per["sd_micro"] = per["sd_u"] / per["mbar"]
    return per.reset_index()


def _pooled(per: pd.DataFrame, estimand: str) -> tuple[float | None, int]:
    """√(Σ (K_c − 1) S_c² / Σ (K_c − 1)) over cells with K_c ≥ 2; None if there are none."""
    use = per[per["K"] >= 2]
    df = (use["K"] - 1).to_numpy(dtype=float)
    if not df.sum():
        return None, 0
    sd = use[f"sd_{estimand}"].to_numpy(dtype=float)
    return float(np.sqrt((df * sd**2).sum() / df.sum())), len(use)


def _choose_sd(K: int, sd_cell: float, pooled: float | None) -> tuple[float | None, str | None]:
    if K >= 2 and sd_cell > 0:
        return sd_cell, "cell"
    if pooled is None or not pooled > 0:
        return None, None
    return pooled, "pooled_few" if K < 2 else "pooled_zero"


def _filled(values: tuple[str, ...], row: Mapping[str, float], m: Matrix, scored: bool) -> Cell:
    K, N = int(row["K"]), int(row["N"])
    if not scored:
        return Cell(values, N, K)
    sd_cell = float(row[f"sd_{m.estimand}"]) if K >= 2 else math.nan
    S, source = _choose_sd(K, sd_cell, m.pooled_sd)
    h = half_width(K, S, m.level) if S is not None and K >= 2 else None
    needed = None
    if S is not None and m.target_half_width is not None:
        needed = plan_documents(m.target_half_width, S, level=m.level, estimand=m.estimand).K
    return Cell(values, N, K, float(row[m.estimand]), S, source, h, needed)


def coverage_matrix(
    frame: pd.DataFrame,
    dims: Sequence[str],
    *,
    cluster: str = "doc_id",
    score: str | None = None,
    target_half_width: float | None = None,
    estimand: str = "macro",
    level: float = 0.95,
    levels: Mapping[str, Sequence[str]] | None = None,
) -> Matrix:
    """The coverage matrix of ``frame`` over ``dims`` (see the module docstring)."""
    dims = tuple(str(d) for d in dims)
    _check_options(estimand, level, target_half_width, score)
    _check_columns(frame, dims, cluster, score)
    y = None if score is None else _scores(frame, score)
    keys = pd.DataFrame({i: frame[d].astype(str).to_numpy() for i, d in enumerate(dims)})
    grid = _levels(keys, dims, levels)
    per = _cell_stats(keys, frame[cluster].astype(str).to_numpy(), y)
    pooled, pooled_cells = _pooled(per, estimand) if y is not None else (None, 0)
    m = Matrix(dims, grid, (), cluster, score, estimand, level, target_half_width,
               pooled, pooled_cells)  # fmt: skip
    found = {
        tuple(str(row[i]) for i in range(len(dims))): row
        for row in per.to_dict("records")  # one per filled cell, not per query
    }
    cells = tuple(
        _filled(values, found[values], m, y is not None) if values in found else Cell(values, 0, 0)
        for values in itertools.product(*grid)
    )
    return replace(m, cells=cells)
