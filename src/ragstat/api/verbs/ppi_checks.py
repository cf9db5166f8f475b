"""Checks of ``ragstat.ppi``'s arguments, cells and memory before it computes.

:func:`ppi_arguments` turns a Python caller's wrong types (``level="x"``) into one-line
InputErrors; :func:`cell_notes` says how many judge and human cells had no number
(missing vs not a number, :mod:`ragstat.records.cells`); :func:`check_ppi_memory` checks
the working arrays against ``RAGSTAT_MEMORY_BUDGET`` before they are built.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ragstat.api.arguments import level_value, positive_number
from ragstat.records.cells import CellCounts

__all__ = ["BYTES_PER_ITEM", "cell_notes", "check_ppi_memory", "ppi_arguments"]

#: Peak working memory per row of the table: the item frame, the paired merge, the
#: document codes (a sort of the ids), the masks and copies of the two fits and the
#: per-document jackknife arrays (at most one document per item). Measured ≈ 320 bytes
#: per row with tracemalloc on 200,000 rows in 20,000 documents; rounded up.
BYTES_PER_ITEM = 512


def ppi_arguments(level: Any, target_half_width: Any) -> tuple[float, float | None]:
    """``level`` in (0, 1) and ``target_half_width`` a finite number > 0 (or None)."""
    target = (
        None
        if target_half_width is None
        else positive_number(target_half_width, "target_half_width")
    )
    return level_value(level), target


def cell_notes(cells: Mapping[str, CellCounts], judge: str, human: str) -> list[str]:
    """One note per column with cells that are not numbers (only under
    ``non_numeric="missing"``; otherwise the verb stopped): what became of them."""
    notes = []
    f, y = cells.get("judge", CellCounts()), cells.get("human", CellCounts())
    if f.non_numeric:
        notes.append(f"judge {judge!r}: {f.non_numeric} not a number, {f.missing} missing: "
                     "the items whose judge score is not a number were left out "
                     "(non_numeric = missing)")  # fmt: skip
    if y.non_numeric:
        notes.append(f"human label {human!r}: {y.non_numeric} not a number, {y.missing} "
                     "missing: labels that are not numbers count as unlabelled "
                     "(non_numeric = missing)")  # fmt: skip
    return notes


def check_ppi_memory(rows: int, where: str) -> None:
    """InputError before the work when ``rows`` rows would need more than the budget."""
    from ragstat.resources import check_memory

    check_memory(
        float(BYTES_PER_ITEM) * rows,
        f"{where}: ppi over {rows:,} rows",
        "use fewer rows (e.g. a random sample of the unlabelled items)",
    )
