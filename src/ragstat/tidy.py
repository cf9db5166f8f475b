"""Tidy views shared by every result type: ``to_frame()``, a short ``repr``, ``_repr_html_``.

A result class inherits :class:`Tidy` and implements :meth:`Tidy.rows` (one mapping per
estimand × method, like pyfixest's ``tidy()``) and :meth:`Tidy.headline_rows` (the few
rows its ``repr`` shows — the recommended intervals); :meth:`Tidy.sentences` gives the plain
verdict sentences (one per estimand: the headline interval, or why there is none) that the
``repr`` and ``_repr_html_`` show first. Values are plain Python scalars,
never numpy ones, so a result prints and serialises the same everywhere.

A leaf module: it imports nothing from ragstat, so every layer may use it (pandas is
imported only when a frame is asked for).
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["Tidy", "plain", "text_table"]

Row = Mapping[str, Any]


def plain(value: Any) -> Any:
    """``value`` as a Python scalar (numpy scalars unwrapped; non-finite floats → None)."""
    item = getattr(value, "item", None)
    if item is not None and callable(item) and getattr(value, "ndim", 1) == 0:
        value = item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _cell(value: Any) -> str:
    value = plain(value)
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def text_table(rows: Sequence[Row], columns: Sequence[str]) -> str:
    """A fixed-width plain-text table of ``columns`` (header, then one line per row)."""
    cells = [[_cell(r.get(c)) for c in columns] for r in rows]
    widths = [max([len(c), *(len(line[i]) for line in cells)]) for i, c in enumerate(columns)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True)).rstrip()]
    lines += [
        "  ".join(v.ljust(w) for v, w in zip(line, widths, strict=True)).rstrip() for line in cells
    ]
    return "\n".join(lines)


def _html_table(rows: Sequence[Row], columns: Sequence[str], caption: str) -> str:
    head = "".join(f"<th>{html.escape(c)}</th>" for c in columns)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(_cell(r.get(c)))}</td>" for c in columns) + "</tr>"
        for r in rows
    )
    return (
        f"<table><caption>{html.escape(caption)}</caption>"
        f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    )


class Tidy:
    """Mixin: tidy rows → DataFrame, a short text repr and an HTML table for notebooks."""

    #: Columns the short ``repr`` and ``_repr_html_`` show, in order.
    headline_columns: tuple[str, ...] = ("estimand", "method", "estimate", "lower", "upper")

    def rows(self) -> list[dict[str, Any]]:
        """One mapping per estimand × method (plain Python values)."""
        raise NotImplementedError

    def headline_rows(self) -> list[dict[str, Any]]:
        """The rows worth a glance (default: all rows)."""
        return self.rows()

    def title(self) -> str:
        """One line naming the result (shown above its table)."""
        return type(self).__name__

    def sentences(self) -> list[str]:
        """The plain verdicts shown before everything else (default: none)."""
        return []

    def to_frame(self) -> pd.DataFrame:
        """The tidy rows as a pandas DataFrame (one row per estimand × method)."""
        import pandas as pd

        rows = [{k: plain(v) for k, v in r.items()} for r in self.rows()]
        return pd.DataFrame.from_records(rows)

    def __repr__(self) -> str:
        cols = [c for c in self.headline_columns if any(c in r for r in self.headline_rows())]
        table = text_table(self.headline_rows(), cols)
        return "\n".join([*self.sentences(), self.title(), table])

    def _repr_html_(self) -> str:
        cols = [c for c in self.headline_columns if any(c in r for r in self.headline_rows())]
        lead = "".join(f"<p><strong>{html.escape(s)}</strong></p>" for s in self.sentences())
        return lead + _html_table(self.headline_rows(), cols, self.title())
