"""The report of ``ragstat coverage``: the coverage matrix table (one row per cell, empty
cells included) and figure M1, a heat map of documents per cell.

Numbers come from the computed matrix unchanged; nothing is recomputed here.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np

from ragstat.report.build import generator, now
from ragstat.report.figures import OTHER, plain
from ragstat.report.matrix import MATRIX_KIND, MatrixCell
from ragstat.report.model import Report
from ragstat.report.table import Table

__all__ = ["PANELS_MAX", "draw_m1", "matrix_levels", "matrix_table", "report_from_coverage_matrix"]

#: M1 draws at most this many panels (combinations of the third and later dimensions).
PANELS_MAX = 12


def _verdicts(cells: Sequence[MatrixCell], target: float | None) -> tuple[str, ...]:
    empty = [c for c in cells if c.queries == 0]
    thin = [c for c in cells if 0 < c.documents < 2]
    out = [
        f"{len(empty)} of {len(cells)} cells are empty; {len(thin)} filled "
        f"cell{'s have' if len(thin) != 1 else ' has'} fewer than 2 documents."
    ]
    if target is not None:
        short = [c for c in cells if c.documents_needed is not None
                 and c.documents_needed > c.documents]  # fmt: skip
        out.append(
            f"{len(short)} filled cell{'s need' if len(short) != 1 else ' needs'} more "
            f"documents for a half-width of ±{target:g}."
        )
    return tuple(out)


def report_from_coverage_matrix(
    *,
    dims: Sequence[str],
    cells: Sequence[MatrixCell],
    cluster: str,
    score: str | None,
    estimand: str,
    level: float,
    target_half_width: float | None,
    source: str,
    notes: Sequence[str] = (),
    created: str | None = None,
    title: str | None = None,
) -> Report:
    """The report of ``ragstat coverage``: verdict lines, the matrix table, figure M1."""
    empty = [" × ".join(c.values) for c in cells if c.queries == 0]
    listed = (f"empty cells: {'; '.join(empty)}",) if empty else ()
    design = (
        f"coverage matrix over {' × '.join(dims)}: queries (rows) and documents (distinct "
        f"{cluster}) per cell of the cross product"
        + ("" if score is None else f"; half-widths of the {estimand} mean of {score}")
    )
    return Report(
        kind=MATRIX_KIND,
        title=title or f"Coverage matrix — {' × '.join(dims)}",
        source=source,
        created=created or now(),
        level=float(level),
        score=score or "none (counts only)",
        design=design,
        estimands=(estimand,),
        checklist=(),
        notes=(*listed, *notes),
        verdicts=_verdicts(cells, target_half_width),
        dims=tuple(dims),
        matrix=tuple(cells),
        target_half_width=target_half_width,
        generator=generator(),
    )


def _num(x: float | None) -> str:
    return "—" if x is None else f"{x:.4g}".replace("-", "−")


def _cells(c: MatrixCell, scored: bool, target: bool) -> tuple[str, ...]:
    row = (*c.values, str(c.queries), str(c.documents) if c.queries else "empty")
    if scored:
        row += (_num(c.estimate), _num(c.sd), c.sd_source or "—", _num(c.half_width))
    if target:
        needed = c.documents_needed
        more = None if needed is None else max(0, needed - c.documents)
        row += ("—" if needed is None else str(needed), "—" if more is None else str(more))
    return row


def matrix_table(report: Report) -> Table:
    """The coverage matrix, one row per cell (empty cells too)."""
    scored = any(c.estimate is not None for c in report.matrix)
    target = report.target_half_width
    header = (*report.dims, "queries", "documents")
    if scored:
        level = f"{100 * report.level:g} %"
        header += ("estimate", "S", "S from", f"half-width ({level})")
    if target is not None:
        header += (f"documents for ±{target:g}", "more documents")
    rows = tuple(_cells(c, scored, target is not None) for c in report.matrix)
    note = (
        "half-width = t(1 − α/2; K − 1) · S/√K (no finite correction); documents needed = "
        "the smallest K with h(K) ≤ the target, as ragstat plan computes it."
        if scored
        else None
    )
    return Table("matrix", "Coverage matrix", header, rows, note)


def matrix_levels(report: Report) -> tuple[tuple[str, ...], ...]:
    """Each dimension's levels in grid order (the cells are the cross product, in order)."""
    return tuple(
        tuple(dict.fromkeys(c.values[i] for c in report.matrix)) for i in range(len(report.dims))
    )


def _panel(ax, grid: dict[tuple[str, ...], MatrixCell], rows: tuple[str, ...],
           cols: tuple[str, ...], rest: tuple[str, ...], top: float) -> None:  # fmt: skip
    """One heat map: documents per (row level, column level) at the fixed ``rest`` levels."""
    docs = np.full((len(rows), len(cols)), np.nan)
    for (i, r), (j, c) in itertools.product(enumerate(rows), enumerate(cols)):
        cell = grid[(r, c, *rest)]
        if cell.queries:
            docs[i, j] = cell.documents
    ax.imshow(np.ma.masked_invalid(docs), cmap="Blues", vmin=0, vmax=max(top, 1), aspect="auto")
    ax.set_facecolor("#eeeeee")
    for (i, r), (j, c) in itertools.product(enumerate(rows), enumerate(cols)):
        cell = grid[(r, c, *rest)]
        text = f"{cell.documents} docs\n{cell.queries} q" if cell.queries else "empty"
        dark = cell.queries and cell.documents > 0.6 * top
        ax.text(j, i, text, ha="center", va="center", fontsize=7,
                color="white" if dark else ("#8a4b00" if not cell.queries else "#111111"))  # fmt: skip
    ax.set_xticks(range(len(cols)), [plain(c) for c in cols], rotation=30, ha="right")
    ax.set_yticks(range(len(rows)), [plain(r) for r in rows])
    ax.tick_params(length=0)
    for spine in ax.spines.values():
        spine.set_visible(False)


def draw_m1(fig, report: Report) -> None:
    """M1: documents per cell as a heat map (rows: the first dimension, columns: the
    second); beyond two dimensions one panel per combination of the others (small multiples,
    at most PANELS_MAX)."""
    levels = matrix_levels(report)
    grid = {c.values: c for c in report.matrix}
    rows = levels[0]
    cols = levels[1] if len(levels) > 1 else ("all",)
    if len(levels) == 1:
        grid = {(c.values[0], "all"): c for c in report.matrix}
    panels = list(itertools.product(*levels[2:]))[:PANELS_MAX]
    ncols = min(len(panels), 3)
    nrows = -(-len(panels) // ncols)
    fig.set_size_inches(8, min(1.2 + nrows * (0.9 + 0.35 * len(rows)), 16))
    axes = fig.subplots(nrows, ncols, squeeze=False).ravel()
    top = float(max((c.documents for c in report.matrix), default=1))
    for ax, rest in zip(axes, panels, strict=False):
        _panel(ax, grid, rows, cols, rest, top)
        if rest:
            ax.set_title(plain(", ".join(f"{d} = {v}" for d, v in
                                         zip(report.dims[2:], rest, strict=True))))  # fmt: skip
    for ax in axes[len(panels) :]:
        ax.set_visible(False)
    axes[0].set_ylabel(plain(report.dims[0]))
    if len(report.dims) > 1:
        fig.supxlabel(plain(report.dims[1]), fontsize=9, color=OTHER)
