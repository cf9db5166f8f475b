"""The labels' scale: the categories a judge may give, their order and their numbers.

Labels are one type per column pair — all numbers (grades 1–5, 0/1 pass/fail), all
booleans, or all text — and are coded onto categories ``0 … q−1`` in the scale's order:
the order given (``labels``), else the sorted labels seen. A label outside a given scale,
a column mixing types, text on an interval scale or an ordinal scale of text without its
order are input errors naming the label, its row and the fix.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ragstat.errors import InputError

__all__ = ["LabelScale", "is_missing", "label_kind", "make_scale"]

_KIND_WORDS = {"bool": "true/false", "number": "numbers", "text": "text"}


def is_missing(value: Any) -> bool:
    """No label: None or a float NaN."""
    return value is None or (isinstance(value, float) and math.isnan(value))


def label_kind(value: Any) -> str:
    """``"bool"``, ``"number"`` or ``"text"``; anything else is not a label."""
    if isinstance(value, (bool, np.bool_)):
        return "bool"
    if isinstance(value, (int, float, np.integer, np.floating)):
        return "number"
    if isinstance(value, str):
        return "text"
    raise InputError(f"{value!r} is not a label: use text, a number or true/false")


def _key(value: Any, kind: str) -> Any:
    if kind == "number":
        return float(value)
    if kind == "bool":
        return bool(value)
    return str(value)


def _shown(key: Any) -> Any:
    """A category as shown in output: whole numbers as int."""
    if isinstance(key, float) and key.is_integer():
        return int(key)
    return key


def _column_kind(values: Sequence[Any], column: str) -> str | None:
    """The one kind of a column's labels (None when it has none)."""
    first: dict[str, int] = {}
    for i, v in enumerate(values, 1):
        if not is_missing(v):
            first.setdefault(label_kind(v), i)
    if len(first) > 1:
        (k1, r1), (k2, r2) = sorted(first.items(), key=lambda kv: kv[1])[:2]
        raise InputError(
            f"label column {column!r} mixes types: {_KIND_WORDS[k1]} (row {r1}) and "
            f"{_KIND_WORDS[k2]} (row {r2}); write every label of one column as one type"
        )
    return next(iter(first), None)


def _parse(token: Any, kind: str, what: str) -> Any:
    """A label given by the user (text from the command line, or a value) as a key."""
    if not isinstance(token, str) or kind == "text":
        if kind != "text" and label_kind(token) == "text":
            raise InputError(f"{what} {token!r} is text but the labels are {_KIND_WORDS[kind]}")
        return _key(token, kind)
    if kind == "bool":
        words = {"true": True, "1": True, "false": False, "0": False}
        if token.strip().lower() not in words:
            raise InputError(f"{what} {token!r}: the labels are true/false")
        return words[token.strip().lower()]
    try:
        return float(token)
    except ValueError:
        raise InputError(f"{what} {token!r} is not a number but the labels are numbers") from None


@dataclass(frozen=True)
class LabelScale:
    """Categories in order (as shown), their kind, their numbers (None for text) and the
    positive category's index (None: no precision/recall)."""

    kind: str
    scale: str
    categories: tuple[Any, ...]
    keys: tuple[Any, ...]
    values: np.ndarray | None
    positive: int | None
    declared: bool

    @property
    def q(self) -> int:
        return len(self.keys)

    def code(
        self, labels: Sequence[Any], role: str, rows: Sequence[int] | None = None
    ) -> np.ndarray:
        """Category codes of ``labels`` (no missing ones); a label outside the scale is an
        error naming it and its row (``rows``: the 1-based row of each label)."""
        index = {k: i for i, k in enumerate(self.keys)}
        out = np.empty(len(labels), np.int64)
        for i, v in enumerate(labels):
            c = index.get(_key(v, self.kind))
            if c is None:
                shown = ", ".join(str(c) for c in self.categories)
                raise InputError(
                    f"{role} label {v!r} (row {i + 1 if rows is None else rows[i]}) is outside the judge's scale ({shown}); "
                    "fix the label, or list every label the judge may give in labels (--labels)"
                )
            out[i] = c
        return out


def _categories(
    judge: Sequence[Any], human: Sequence[Any], kind: str, labels: Sequence[Any] | None
) -> tuple[tuple[Any, ...], bool]:
    if labels is None:
        seen = {_key(v, kind) for v in (*judge, *human) if not is_missing(v)}
        return tuple(sorted(seen)), False
    keys = tuple(_parse(t, kind, "label") for t in labels)
    if len(set(keys)) != len(keys):
        raise InputError(f"labels {list(labels)!r} repeat a label")
    return keys, True


def _positive(keys: tuple[Any, ...], kind: str, positive: Any) -> int | None:
    if positive is None:
        auto = {"number": (0.0, 1.0), "bool": (False, True)}.get(kind)
        return 1 if auto is not None and keys == auto else None
    key = _parse(positive, kind, "positive label")
    if key not in keys:
        shown = ", ".join(str(_shown(k)) for k in keys)
        raise InputError(f"positive label {positive!r} is not a label of the scale ({shown})")
    return keys.index(key)


def make_scale(
    judge: Sequence[Any],
    human: Sequence[Any],
    *,
    scale: str = "nominal",
    labels: Sequence[Any] | None = None,
    positive: Any = None,
    names: tuple[str, str] = ("judge", "human"),
) -> LabelScale:
    """The scale of the judge's and the humans' labels (missing ones skipped): one kind for
    both columns; categories ``labels`` in that order, else the sorted labels seen."""
    if scale not in ("nominal", "ordinal", "interval"):
        raise InputError(f"scale must be nominal, ordinal or interval, got {scale!r}")
    kinds = {c: _column_kind(v, c) for c, v in zip(names, (judge, human), strict=True)}
    found = {k for k in kinds.values() if k is not None}
    if len(found) > 1:
        words = " but ".join(f"{c!r} holds {_KIND_WORDS[k]}" for c, k in kinds.items() if k)
        raise InputError(f"the label columns mix types: {words}; write both as one type")
    kind = found.pop() if found else "text"
    if kind == "text" and scale == "interval":
        raise InputError("the interval scale needs numeric labels; these are text")
    if kind == "text" and scale == "ordinal" and labels is None:
        raise InputError(
            "an ordinal scale of text labels needs their order: give labels (--labels) "
            "from the lowest grade to the highest"
        )
    keys, declared = _categories(judge, human, kind, labels)
    values = None if kind == "text" else np.asarray([float(k) for k in keys], np.float64)
    return LabelScale(
        kind=kind,
        scale=scale,
        categories=tuple(_shown(k) for k in keys),
        keys=keys,
        values=values,
        positive=_positive(keys, kind, positive),
        declared=declared,
    )
