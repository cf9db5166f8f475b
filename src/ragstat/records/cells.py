"""Score cells that are not numbers: an error by default, missing only when the user says so.

A score column's cell is one of three things:

- a number (``0``, ``0.5``, ``" 1e-3 "``; ``true``/``false`` where the column is boolean);
- *missing*: empty (None, NaN, an empty or blank string);
- *not a number*: anything else (``"ERROR"``, ``"n/a"``, ``"timeout"`` …).

A cell that is not a number is never silently dropped: every reader stops with one line
naming the file, the column, how many cells and the first few rows and values
(:func:`not_numbers_message`), unless the user opts in with ``non_numeric="missing"``
(``--non-numeric missing``, a gates file's ``non_numeric = "missing"``). Then those cells
are treated as missing and counted apart from the truly missing ones (:class:`CellCounts`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ragstat.errors import InputError

__all__ = [
    "NON_NUMERIC",
    "CellCounts",
    "check_non_numeric",
    "not_numbers_message",
    "numeric_cells",
    "parse_cells",
]

#: What to do with a score cell that is not a number: stop (default) or treat it as missing.
NON_NUMERIC = ("error", "missing")

#: How a verb's message tells the user to opt in (the command line and the Python keyword).
OPT_IN = 'treat them as missing with --non-numeric missing (Python: non_numeric="missing")'

_SHOWN = 3  # rows named in the message
_WIDTH = 24  # characters of a value shown


def check_non_numeric(value: Any, where: str = "non_numeric") -> str:
    """``value`` if it is one of :data:`NON_NUMERIC`, else an `InputError`."""
    if value not in NON_NUMERIC:
        raise InputError(f"{where} must be one of {', '.join(NON_NUMERIC)}, got {value!r}")
    return str(value)


@dataclass(frozen=True)
class CellCounts:
    """Rows of a score column without a usable number: missing vs not a number."""

    missing: int = 0
    non_numeric: int = 0

    @property
    def unscored(self) -> int:
        """Rows without a score of either kind."""
        return self.missing + self.non_numeric

    def __add__(self, other: CellCounts) -> CellCounts:
        return CellCounts(self.missing + other.missing, self.non_numeric + other.non_numeric)

    def text(self) -> str:
        """``12 missing, 92 not a number`` (the kinds present; empty when none)."""
        parts = []
        if self.missing:
            parts.append(f"{self.missing} missing")
        if self.non_numeric:
            parts.append(f"{self.non_numeric} not a number")
        return ", ".join(parts)

    def to_dict(self) -> dict[str, int]:
        return {"missing": self.missing, "non_numeric": self.non_numeric}


def _shown(value: Any) -> str:
    """A cell's value for a one-line message: repr (control characters escaped), cut short."""
    text = repr(value) if isinstance(value, str) else repr(str(value))
    return text if len(text) <= _WIDTH else text[: _WIDTH - 2] + "…" + text[0]


def not_numbers_message(
    label: str,
    column: str,
    count: int,
    total: int,
    first: Sequence[tuple[int, Any]],
    hint: str = OPT_IN,
) -> str:
    """One line: ``FILE: 92 of 300 cells of score column 'hit1' are not numbers (row 1:
    'ERROR', …); fix them, or HINT`` (how to opt in). Rows are 1-based data rows."""
    rows = ", ".join(f"row {i}: {_shown(v)}" for i, v in first[:_SHOWN])
    more = ", …" if count > len(first[:_SHOWN]) else ""
    return (
        f"{label}: {count} of {total} cells of score column {column!r} are not numbers "
        f"({rows}{more}); fix them, or {hint}"
    )


def _blank(value: Any) -> bool:
    if value is None:
        return True
    if isinstance(value, float) and value != value:
        return True
    if isinstance(value, str) and not value.strip():
        return True
    try:
        import pandas as pd

        return value is pd.NA or value is pd.NaT
    except ImportError:  # pragma: no cover - pandas is a dependency
        return False


def parse_cells(values: Any) -> tuple[np.ndarray, np.ndarray]:
    """A score column as float64 (NaN where there is no number; booleans as 0/1) and the
    mask of its cells that are not numbers (``"ERROR"``; missing cells are not in it)."""
    import pandas as pd

    series = pd.Series(np.asarray(values, dtype=object) if not hasattr(values, "dtype") else values)
    if series.dtype.kind in "biuf":
        numbers = series.to_numpy(dtype=np.float64, copy=True)
        return numbers, np.zeros(numbers.shape, bool)
    raw = series.astype(object).to_numpy()
    blank = np.fromiter((_blank(v) for v in raw), bool, raw.size)
    prepared = [int(v) if isinstance(v, (bool, np.bool_)) else v for v in raw]
    numbers = pd.to_numeric(pd.Series(prepared, dtype=object), errors="coerce").to_numpy(
        dtype=np.float64, na_value=np.nan
    )
    bad = ~blank & np.isnan(numbers) & ~_nan_text(raw)
    return np.where(blank, np.nan, numbers), bad


def numeric_cells(
    values: Any,
    column: str,
    label: str,
    non_numeric: str = "error",
    hint: str = OPT_IN,
) -> tuple[np.ndarray, CellCounts]:
    """A score column as float64 (NaN where there is no number) and its :class:`CellCounts`.

    Booleans count as 0/1. A cell that is not a number is an `InputError` (one line, see
    :func:`not_numbers_message`) unless ``non_numeric == "missing"``; NaN parsed from text
    (``"nan"``) counts as missing.
    """
    check_non_numeric(non_numeric)
    numbers, bad = parse_cells(values)
    count = int(bad.sum())
    if count and non_numeric == "error":
        raw = np.asarray(values, dtype=object)
        first = [(int(i) + 1, raw[i]) for i in np.flatnonzero(bad)[:_SHOWN]]
        raise InputError(not_numbers_message(label, column, count, bad.size, first, hint))
    missing = int(np.isnan(numbers).sum()) - count
    return numbers, CellCounts(missing=missing, non_numeric=count)


def _nan_text(raw: np.ndarray) -> np.ndarray:
    """Cells that are the text ``nan`` (a number that is not one: counted as missing)."""
    return np.fromiter(
        (isinstance(v, str) and v.strip().lower() in ("nan", "+nan", "-nan") for v in raw),
        bool,
        raw.size,
    )
