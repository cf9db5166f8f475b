"""PII removal and boilerplate removal (the RAG reference, cleaning): labelled spans of a
record's ``text`` against the spans a remover found, as precision and recall over units.

Spans are ``{"start", "end", "type"}`` objects or ``[start, end, type]`` lists of character
offsets into the record's text, ``end`` exclusive, ``0 ≤ start < end ≤ len(text)``.
Labelled spans of one type must not overlap within a record (different types may nest, e.g.
a name inside an address); detected spans may overlap, but one listed twice is an error.

A ratio over a corpus is a mean over units: precision = Σ matched predicted units /
Σ predicted units, recall = Σ matched reference units / Σ reference units. :class:`UnitCounts`
keeps, per record and type, the matched and total units of each side, so the pooled ratio
is exact and the units can be expanded to one 0/1 row each for clustered intervals.

PII (:func:`pii_removal`), per entity type and overall, three unit kinds:

* ``overlap`` (the default, the compliance view): a labelled span is caught when a detected
  span of its type overlaps it by at least one character; a detected span is correct when
  it overlaps a labelled span of its type. A partly masked email counts as caught here, so
  read it with the character level;
* ``strict``: same start, end and type;
* ``character``: a labelled character is caught when any detected span covers it (a masked
  character is masked whatever type the remover gave it); a detected character is correct
  when any labelled span covers it. Per type: the labelled (detected) characters of the type.

Boilerplate (:func:`boilerplate_removal`): the same ratios at character level and at token
level (whitespace-separated tokens; a token is labelled / removed when it overlaps a
labelled / removed span). Span types are ignored.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

import numpy as np

from ragstat.arrays import frozen_array
from ragstat.errors import InputError
from ragstat.metrics.extraction.matching import f1_of

__all__ = [
    "ALL",
    "BoilerplateRemoval",
    "PiiRemoval",
    "Span",
    "UnitCounts",
    "boilerplate_removal",
    "f1_bootstrap_counts",
    "pii_removal",
    "read_spans",
]

#: The type of a record's overall row in :class:`UnitCounts`.
ALL = ""
TOKEN = re.compile(r"\S+")
#: One row of counts: (item, type, matched predicted, predicted, matched reference, reference).
Row = tuple[str, str, int, int, int, int]


@dataclass(frozen=True, order=True)
class Span:
    """[start, end) of the text and its type ("" when the input has no types)."""

    start: int
    end: int
    type: str


def _whole(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _span(value: Any, item: str, field: str, typed: bool) -> Span:
    if isinstance(value, Mapping):
        if "start" not in value or "end" not in value:
            raise InputError(f"item {item!r}: {field} span {value!r} lacks start or end")
        start, end, kind = value["start"], value["end"], value.get("type")
    elif isinstance(value, (list, tuple)) and len(value) in (2, 3):
        start, end, kind = value[0], value[1], value[2] if len(value) == 3 else None
    else:
        raise InputError(f"item {item!r}: {field} holds {value!r}; expected {{start, end, type}}")
    if not (_whole(start) and _whole(end)):
        raise InputError(f"item {item!r}: {field} span {value!r} needs whole-number offsets")
    if typed and (not isinstance(kind, str) or not kind):
        raise InputError(f"item {item!r}: {field} span {value!r} needs a type (text)")
    if start < 0 or start >= end:
        raise InputError(f"item {item!r}: {field} span {value!r} needs 0 ≤ start < end")
    return Span(start, end, str(kind) if typed else ALL)


def read_spans(
    values: Any, item: str, field: str, length: int, *, typed: bool, labelled: bool
) -> list[Span]:
    """The spans of one field of a record, checked: offsets within the text of ``length``
    characters, no span twice, and (``labelled``) no overlap between spans of one type."""
    if not isinstance(values, (list, tuple)):
        raise InputError(f"item {item!r}: {field} must be a list of spans")
    spans = sorted(_span(v, item, field, typed) for v in values)
    for s in spans:
        if s.end > length:
            raise InputError(
                f"item {item!r}: {field} span [{s.start}, {s.end}) ends past the text "
                f"({length} characters)"
            )
    for kind in sorted({s.type for s in spans}):
        for a, b in pairwise(s for s in spans if s.type == kind):
            if a == b or (labelled and a.end > b.start):
                what = "is listed twice" if a == b else f"overlaps [{b.start}, {b.end})"
                raise InputError(f"item {item!r}: {field} span [{a.start}, {a.end}) {what}")
    return spans


@dataclass(frozen=True)
class UnitCounts:
    """Per row (a record and a type; type :data:`ALL` = the record's overall row): matched
    and total predicted units (precision) and reference units (recall), of ``unit``."""

    unit: str
    item_ids: tuple[str, ...]
    types: tuple[str, ...]
    pred_matched: np.ndarray
    pred_total: np.ndarray
    ref_matched: np.ndarray
    ref_total: np.ndarray

    @property
    def kinds(self) -> tuple[str, ...]:
        """The types with a row, sorted (without :data:`ALL`)."""
        return tuple(sorted(set(self.types) - {ALL}))

    def of_type(self, kind: str) -> UnitCounts:
        """The rows of one type (``ALL``: the overall rows)."""
        keep = np.asarray(self.types, dtype=object) == kind
        ids = tuple(i for i, k in zip(self.item_ids, keep, strict=True) if k)
        arrays = (self.pred_matched, self.pred_total, self.ref_matched, self.ref_total)
        return UnitCounts(self.unit, ids, (kind,) * len(ids), *(a[keep] for a in arrays))

    @property
    def precision(self) -> float:
        """Σ matched predicted units / Σ predicted units (NaN: nothing predicted)."""
        den = int(self.pred_total.sum())
        return float(self.pred_matched.sum()) / den if den else float("nan")

    @property
    def recall(self) -> float:
        """Σ matched reference units / Σ reference units (NaN: nothing labelled)."""
        den = int(self.ref_total.sum())
        return float(self.ref_matched.sum()) / den if den else float("nan")

    @property
    def f1(self) -> float:
        """2PR / (P + R); 0 when P + R = 0 or either is undefined (scikit-learn's value)."""
        return float(f1_of(self.precision, self.recall))

    def records(self, which: str = "precision") -> dict[str, float]:
        """Per row's item its own ratio (``precision`` or ``recall``; NaN when undefined)."""
        num, den = (
            (self.pred_matched, self.pred_total)
            if which == "precision"
            else (self.ref_matched, self.ref_total)
        )
        with np.errstate(invalid="ignore", divide="ignore"):
            ratio = np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)
        return dict(zip(self.item_ids, ratio.tolist(), strict=True))


def _counts(unit: str, rows: list[Row]) -> UnitCounts:
    cols = list(zip(*rows, strict=True)) if rows else [(), (), (), (), (), ()]
    ints = [frozen_array(list(c), np.int64) for c in cols[2:]]
    return UnitCounts(unit, tuple(cols[0]), tuple(cols[1]), *ints)


def _mask(spans: list[Span], length: int) -> np.ndarray:
    """True on the characters any of ``spans`` covers."""
    diff = np.zeros(length + 1, dtype=np.int64)
    np.add.at(diff, [s.start for s in spans], 1)
    np.add.at(diff, [s.end for s in spans], -1)
    return np.cumsum(diff[:-1]) > 0


def _overlap_any(s: Span, others: list[Span]) -> bool:
    return any(s.type == o.type and s.start < o.end and o.start < s.end for o in others)


def _span_rows(item: str, ref: list[Span], det: list[Span], strict: bool) -> list[Row]:
    """Per type and overall: (item, type, matched detected, detected, caught, labelled)."""
    out: list[Row] = []
    for kind in sorted({s.type for s in ref} | {s.type for s in det}):
        r, d = [s for s in ref if s.type == kind], [s for s in det if s.type == kind]
        if strict:
            rs, ds = set(r), set(d)
            d_ok, r_ok = sum(s in rs for s in d), sum(s in ds for s in r)
        else:
            d_ok, r_ok = sum(_overlap_any(s, r) for s in d), sum(_overlap_any(s, d) for s in r)
        out.append((item, kind, d_ok, len(d), r_ok, len(r)))
    a = sum(row[2] for row in out)
    b = sum(row[3] for row in out)
    c = sum(row[4] for row in out)
    e = sum(row[5] for row in out)
    return [(item, ALL, a, b, c, e), *out]


def _char_rows(item: str, ref: list[Span], det: list[Span], length: int) -> list[Row]:
    """Characters per type and overall (any-type coverage; see the module docstring)."""
    labelled, masked = _mask(ref, length), _mask(det, length)
    rows: list[Row] = [(item, ALL, int((masked & labelled).sum()), int(masked.sum()),
             int((labelled & masked).sum()), int(labelled.sum()))]  # fmt: skip
    for kind in sorted({s.type for s in ref} | {s.type for s in det}):
        r = _mask([s for s in ref if s.type == kind], length)
        d = _mask([s for s in det if s.type == kind], length)
        rows.append((item, kind, int((d & labelled).sum()), int(d.sum()),
                     int((r & masked).sum()), int(r.sum())))  # fmt: skip
    return rows


@dataclass(frozen=True)
class PiiRemoval:
    """PII spans caught, by unit kind: ``overlap`` (default), ``strict`` and ``characters``."""

    item_ids: tuple[str, ...]
    overlap: UnitCounts
    strict: UnitCounts
    characters: UnitCounts


def _pairs(
    texts: Mapping[str, Any],
    reference: Mapping[str, Any],
    found: Mapping[str, Any],
    what: tuple[str, str],
) -> list[tuple[str, str, Any, Any]]:
    """(item, text, labelled, found) for every item of ``reference``."""
    out = []
    for item, ref in reference.items():
        key = str(item)
        if item not in found:
            raise InputError(f"item {key!r}: {what[0]} without {what[1]}")
        text = texts.get(item)
        if not isinstance(text, str):
            raise InputError(f"item {key!r}: {what[0]} needs the record's text (a string)")
        out.append((key, text, ref, found[item]))
    return out


def pii_removal(
    texts: Mapping[str, Any], reference: Mapping[str, Any], detected: Mapping[str, Any]
) -> PiiRemoval:
    """Labelled PII spans (``pii_ref``) against the detected ones (``pii_detected``) of every
    item of ``reference``, over the item's text (see the module docstring)."""
    overlap: list[Row] = []
    strict: list[Row] = []
    chars: list[Row] = []
    ids: list[str] = []
    for item, text, ref, det in _pairs(texts, reference, detected, ("pii_ref", "pii_detected")):
        r = read_spans(ref, item, "pii_ref", len(text), typed=True, labelled=True)
        d = read_spans(det, item, "pii_detected", len(text), typed=True, labelled=False)
        overlap += _span_rows(item, r, d, strict=False)
        strict += _span_rows(item, r, d, strict=True)
        chars += _char_rows(item, r, d, len(text))
        ids.append(item)
    return PiiRemoval(
        tuple(ids),
        _counts("span", overlap),
        _counts("span", strict),
        _counts("character", chars),
    )


@dataclass(frozen=True)
class BoilerplateRemoval:
    """Boilerplate removed against labelled, at character and token level."""

    item_ids: tuple[str, ...]
    characters: UnitCounts
    tokens: UnitCounts


def _token_rows(item: str, text: str, labelled: np.ndarray, removed: np.ndarray) -> Row:
    """(item, ALL, removed ∧ labelled, removed, labelled ∧ removed, labelled) tokens."""
    lab, rem = [], []
    for m in TOKEN.finditer(text):
        lab.append(bool(labelled[m.start() : m.end()].any()))
        rem.append(bool(removed[m.start() : m.end()].any()))
    a, b = np.array(lab, bool), np.array(rem, bool)
    both = int((a & b).sum())
    return (item, ALL, both, int(b.sum()), both, int(a.sum()))


def boilerplate_removal(
    texts: Mapping[str, Any], reference: Mapping[str, Any], removed: Mapping[str, Any]
) -> BoilerplateRemoval:
    """Labelled boilerplate spans (``boilerplate_ref``) against the removed ones
    (``boilerplate_removed``) of every item of ``reference`` (see the module docstring)."""
    chars: list[Row] = []
    tokens: list[Row] = []
    ids: list[str] = []
    what = ("boilerplate_ref", "boilerplate_removed")
    for item, text, ref, rem in _pairs(texts, reference, removed, what):
        n = len(text)
        labelled = _mask(read_spans(ref, item, what[0], n, typed=False, labelled=True), n)
        cut = _mask(read_spans(rem, item, what[1], n, typed=False, labelled=False), n)
        both = int((labelled & cut).sum())
        chars.append((item, ALL, both, int(cut.sum()), both, int(labelled.sum())))
        tokens.append(_token_rows(item, text, labelled, cut))
        ids.append(item)
    return BoilerplateRemoval(tuple(ids), _counts("character", chars), _counts("token", tokens))


def f1_bootstrap_counts(
    totals: np.ndarray, *, level: float, reps: int, seed: int
) -> tuple[float, float]:
    """Percentile interval of F1 from K × 4 per-cluster totals (matched predicted,
    predicted, matched reference, reference), resampling the K clusters with replacement:
    replicate r draws multinomial cluster weights w_r (Σ w = K) and computes F1 from
    ``w_r @ totals`` (0 where undefined, as the point value)."""
    k = totals.shape[0]
    if k < 2 or reps < 1 or not 0 < level < 1:
        raise InputError(f"F1 bootstrap needs ≥ 2 clusters, reps ≥ 1, 0 < level < 1 (K = {k})")
    rng = np.random.default_rng(seed)
    block = max(1, min(reps, 4_000_000 // k))
    out = []
    for start in range(0, reps, block):
        w = rng.multinomial(k, np.full(k, 1.0 / k), size=min(block, reps - start))
        s = w.astype(float) @ totals
        with np.errstate(invalid="ignore", divide="ignore"):
            out.append(f1_of(s[:, 0] / s[:, 1], s[:, 2] / s[:, 3]))
    lo, hi = np.quantile(np.concatenate(out), [(1 - level) / 2, (1 + level) / 2])
    return float(lo), float(hi)
