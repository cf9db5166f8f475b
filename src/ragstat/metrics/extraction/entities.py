"""Entity mentions and relation triples as span and triple sets (CoNLL / MUC style).

Spans are ``{"start", "end", "type"}`` objects or ``[start, end, type]`` lists with
character or token offsets, ``end`` exclusive (0 ≤ start < end; within the item's ``text``
when its length is given). The spans of one side of an item must not overlap (flat
mentions). Matching:

* ``strict``: a predicted mention is correct when the reference has the same span and
  type (precision = correct / predicted, recall = found / reference — CoNLL);
* ``partial``: a predicted mention is correct when it overlaps a reference mention of the
  same type; a reference mention is found when a predicted mention of its type overlaps
  it. Each side is counted whole (no half credit, unlike SemEval 2013's partial scheme).

Relation triples ``[head, type, tail]`` match exactly (head, type and tail); a triple listed
twice on one side is an input error.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from itertools import pairwise
from typing import Any, TypeGuard

from ragstat.errors import InputError
from ragstat.metrics.extraction.matching import Matching, units

__all__ = ["MODES", "Span", "parse_spans", "relation_matches", "span_matches"]

MODES = ("strict", "partial")


@dataclass(frozen=True, order=True)
class Span:
    """A mention: [start, end) and its type."""

    start: int
    end: int
    type: str

    def overlaps(self, other: Span) -> bool:
        return self.start < other.end and other.start < self.end


def _whole(x: Any) -> TypeGuard[int]:
    return isinstance(x, int) and not isinstance(x, bool)


def _span(value: Any, item: str, field: str) -> Span:
    if isinstance(value, Mapping):
        parts = [value.get("start"), value.get("end"), value.get("type")]
    elif isinstance(value, (list, tuple)) and len(value) == 3:
        parts = list(value)
    else:
        raise InputError(f"item {item!r}: {field} holds {value!r}; expected [start, end, type]")
    start, end, kind = parts
    if not (_whole(start) and _whole(end)):
        raise InputError(f"item {item!r}: {field} span {value!r} needs whole-number offsets")
    if not isinstance(kind, str) or not kind:
        raise InputError(f"item {item!r}: {field} span {value!r} needs a type (text)")
    if start < 0 or start >= end:
        raise InputError(f"item {item!r}: {field} span {value!r} needs 0 ≤ start < end")
    return Span(start, end, kind)


def parse_spans(values: Any, item: str, field: str, length: int | None = None) -> list[Span]:
    """The spans of one side of an item, checked: offsets, range and no overlap."""
    if not isinstance(values, (list, tuple)):
        raise InputError(f"item {item!r}: {field} must be a list of spans")
    spans = sorted(_span(v, item, field) for v in values)
    for a, b in pairwise(spans):
        if a.overlaps(b):
            raise InputError(f"item {item!r}: {field} spans {a} and {b} overlap")
    if length is not None and spans and spans[-1].end > length:
        raise InputError(
            f"item {item!r}: {field} span {spans[-1]} ends past the text ({length} characters)"
        )
    return spans


def span_matches(
    pred: Mapping[str, Any],
    ref: Mapping[str, Any],
    *,
    mode: str = "strict",
    lengths: Mapping[str, int] | None = None,
) -> Matching:
    """Predicted and reference mentions of every item of ``ref``, matched by ``mode``."""
    if mode not in MODES:
        raise InputError(f"mode must be one of {', '.join(MODES)}; got {mode!r}")
    p_rows, r_rows = [], []
    for item in ref:
        if item not in pred:
            raise InputError(f"item {item!r}: entities_ref without entities_pred")
        n = None if lengths is None else lengths.get(item)
        ps = parse_spans(pred[item], item, "entities_pred", n)
        rs = parse_spans(ref[item], item, "entities_ref", n)
        if mode == "strict":
            pset, rset = set(ps), set(rs)
            p_rows += [(item, s.type, s in rset) for s in ps]
            r_rows += [(item, s.type, s in pset) for s in rs]
        else:
            p_rows += [(item, s.type, any(_same(s, t) for t in rs)) for s in ps]
            r_rows += [(item, s.type, any(_same(s, t) for t in ps)) for s in rs]
    return Matching(units(p_rows), units(r_rows))


def _same(a: Span, b: Span) -> bool:
    return a.type == b.type and a.overlaps(b)


def _triples(values: Any, item: str, field: str) -> list[tuple[str, str, str]]:
    if not isinstance(values, (list, tuple)):
        raise InputError(f"item {item!r}: {field} must be a list of [head, type, tail]")
    out = []
    for v in values:
        if not isinstance(v, (list, tuple)) or len(v) != 3 or not isinstance(v[1], str):
            raise InputError(f"item {item!r}: {field} holds {v!r}; expected [head, type, tail]")
        key = (json.dumps(v[0], sort_keys=True), v[1], json.dumps(v[2], sort_keys=True))
        if key in out:
            raise InputError(f"item {item!r}: {field} lists {list(v)!r} twice")
        out.append(key)
    return out


def relation_matches(pred: Mapping[str, Any], ref: Mapping[str, Any]) -> Matching:
    """Predicted and reference relation triples of every item of ``ref``, matched
    exactly; the unit's type is the relation type."""
    p_rows, r_rows = [], []
    for item in ref:
        if item not in pred:
            raise InputError(f"item {item!r}: relations_ref without relations_pred")
        ps = _triples(pred[item], item, "relations_pred")
        rs = _triples(ref[item], item, "relations_ref")
        pset, rset = set(ps), set(rs)
        p_rows += [(item, t[1], t in rset) for t in ps]
        r_rows += [(item, t[1], t in pset) for t in rs]
    return Matching(units(p_rows), units(r_rows))
