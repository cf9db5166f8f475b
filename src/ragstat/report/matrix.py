"""The coverage matrix as a report holds it (kind ``coverage-matrix``): one `MatrixCell` per
cell of the cross product of the chosen dimensions, empty cells included."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["MATRIX_KIND", "MatrixCell"]

#: The report kind of ``ragstat coverage``.
MATRIX_KIND = "coverage-matrix"


@dataclass(frozen=True)
class MatrixCell:
    """One cell: its level per dimension, queries, documents and, with a pilot score, the
    cell's estimate, the S used (``sd_source``: cell or pooled, and why), the half-width its
    documents give and the documents needed for the report's target half-width."""

    values: tuple[str, ...]
    queries: int
    documents: int
    estimate: float | None = None
    sd: float | None = None
    sd_source: str | None = None
    half_width: float | None = None
    documents_needed: int | None = None
