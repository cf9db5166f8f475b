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
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["Tidy", "json_text", "plain", "strict", "text_table", "visible"]

Row = Mapping[str, Any]


#: C0 controls (newline and tab included), DEL, C1 controls (U+0085 among them), lone
#: surrogates (undecodable bytes of a file name), the Arabic letter mark, LRM/RLM, the
#: line and paragraph separators, and the bidi embeddings, overrides and isolates.
_UNSAFE = re.compile(
    "[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)
_SHORT = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}


def _escape(match: re.Match[str]) -> str:
    ch = match.group()
    if ch in _SHORT:
        return _SHORT[ch]
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: object) -> str:
    """``str(text)`` with every control, separator and bidi character as a visible escape
    (``\\x1b``, ``\\n``, ``\\u202e``): what a terminal, a Markdown file or an HTML page shows
    of user text (file, system and gate names, metadata), never obeys.

    >>> visible("a\\x1b[31mred\\u202e.csv")
    'a\\\\x1b[31mred\\\\u202e.csv'
    """
    s = text if isinstance(text, str) else str(text)
    return _UNSAFE.sub(_escape, s) if _UNSAFE.search(s) else s


def plain(value: Any) -> Any:
    """``value`` as a Python scalar (numpy scalars unwrapped; non-finite floats → None)."""
    item = getattr(value, "item", None)
    if item is not None and callable(item) and getattr(value, "ndim", 1) == 0:
        value = item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _kind(value: float) -> str:
    if math.isnan(value):
        return "not a number"
    return "infinite" if value > 0 else "minus infinity"


def _reason(d: Mapping[str, Any], key: str, value: float) -> str:
    """Why ``d[key]`` is undefined: a statistic over a zero standard error, else its kind."""
    se = [plain(d.get("se")), *(plain(v) for v in d.get("se_arms") or ())]
    if key in ("t", "p", "z", "statistic", "p_value") and any(v == 0 for v in se):
        return f"{_kind(value)}: the standard error is 0 (the scores do not vary)"
    return _kind(value)


def strict(value: Any) -> Any:
    """``value`` fit for strict JSON: every non-finite float becomes None (numpy scalars
    unwrapped, tuples as lists); a mapping that held one gains ``"<key>_undefined"``: why
    (kept when the mapping gives its own reason)."""
    value = plain(value) if not isinstance(value, float) else value
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, Mapping):
        out: dict[Any, Any] = {}
        for k, v in value.items():
            v = plain(v) if not isinstance(v, float) else v
            if isinstance(v, float) and not math.isfinite(v):
                out[k] = None
                out.setdefault(
                    f"{k}_undefined", value.get(f"{k}_undefined") or _reason(value, k, v)
                )
            else:
                out[k] = strict(v)
        return out
    if isinstance(value, (list, tuple)):
        return [strict(v) for v in value]
    return value


def json_text(value: Any, *, indent: int | None = None, default: Any = None) -> str:
    """``value`` as strict JSON text (RFC 8259: no NaN or Infinity, see :func:`strict`),
    UTF-8 characters kept; what every ``--json`` and JSON file of ragstat is written with."""
    import json

    return json.dumps(
        strict(value), indent=indent, ensure_ascii=False, allow_nan=False, default=default
    )


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
