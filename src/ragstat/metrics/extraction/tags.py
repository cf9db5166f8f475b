"""Entity mentions from BIO / IOB tag sequences, read as seqeval reads them.

Tags are one list per sentence (or one flat list: one sentence). Two readings:

* ``default`` — seqeval's default (conlleval-style) chunking: prefixes B, I, E, S
  (``I-PER`` after ``O`` starts a mention); the same as
  ``seqeval.metrics.precision_score(y_true, y_pred)``;
* ``strict`` — seqeval's strict mode with a ``scheme`` (IOB1, IOB2, IOE1, IOE2, IOBES,
  BILOU): only well-formed chunks are mentions; the same as
  ``precision_score(..., mode="strict", scheme=IOB2)``.

A mention is (sentence, type, start, end); precision = mentions found in both /
predicted mentions, recall = the same / reference mentions. A tag whose prefix the
reading does not allow (e.g. ``X-PER``, or ``E-PER`` under IOB2), an unknown scheme, or
sentences of different lengths are input errors naming the item.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ragstat.errors import BackendUnavailable, InputError
from ragstat.metrics.extraction.matching import Matching, units

__all__ = ["SCHEMES", "TAG_MODES", "tag_matches"]

#: Strict-mode schemes → the prefixes a tag may have (besides "O").
SCHEMES = {
    "IOB1": "IB", "IOB2": "IB", "IOE1": "IE", "IOE2": "IE", "IOBES": "IBES", "BILOU": "IBLU",
}  # fmt: skip
TAG_MODES = ("default", "strict")


def _sentences(value: Any, item: str, field: str) -> list[list[str]]:
    if not isinstance(value, list):
        raise InputError(f"item {item!r}: {field} must be a list of tags or of sentences")
    sents = value if value and all(isinstance(s, list) for s in value) else [value]
    for s in sents:
        if not all(isinstance(t, str) for t in s):
            raise InputError(f"item {item!r}: {field} must hold tags (text)")
    return sents


def _check(sents: list[list[str]], prefixes: str, item: str, field: str, how: str) -> None:
    for s in sents:
        for tag in s:
            head, sep, kind = tag.partition("-")
            ok = tag == "O" or (head in prefixes and len(head) == 1 and (not sep or kind))
            if not ok:
                raise InputError(f"item {item!r}: {field} has tag {tag!r}, not valid {how}")


def _mentions(sents: list[list[str]], mode: str, scheme: str) -> list[tuple[Any, ...]]:
    try:
        from seqeval import scheme as schemes
        from seqeval.metrics.sequence_labeling import get_entities
    except ImportError as exc:
        raise BackendUnavailable(
            "BIO tag scoring needs seqeval: pip install 'ragstat[extraction]'"
        ) from exc
    if mode == "default":
        return [tuple(e) for e in get_entities(sents)]
    found = schemes.Entities(sents, getattr(schemes, scheme))
    return [e.to_tuple() for sent in found.entities for e in sent]


def _item(p: Any, r: Any, item: str, mode: str, scheme: str) -> tuple[list[Any], list[Any]]:
    ps, rs = _sentences(p, item, "tags_pred"), _sentences(r, item, "tags_ref")
    if [len(s) for s in ps] != [len(s) for s in rs]:
        raise InputError(f"item {item!r}: tags_pred and tags_ref differ in sentence lengths")
    prefixes = "BIES" if mode == "default" else SCHEMES[scheme]
    how = "in seqeval's default mode" if mode == "default" else f"under {scheme}"
    _check(ps, prefixes, item, "tags_pred", how)
    _check(rs, prefixes, item, "tags_ref", how)
    return _mentions(ps, mode, scheme), _mentions(rs, mode, scheme)


def tag_matches(
    pred: Mapping[str, Any],
    ref: Mapping[str, Any],
    *,
    mode: str = "default",
    scheme: str = "IOB2",
) -> Matching:
    """Predicted and reference mentions of every item of ``ref`` read from their tags; the
    unit's type is the entity type."""
    if mode not in TAG_MODES:
        raise InputError(f"mode must be one of {', '.join(TAG_MODES)}; got {mode!r}")
    if scheme not in SCHEMES:
        raise InputError(f"unknown tag scheme {scheme!r}; one of {', '.join(SCHEMES)}")
    p_rows, r_rows = [], []
    for item in ref:
        if item not in pred:
            raise InputError(f"item {item!r}: tags_ref without tags_pred")
        ps, rs = _item(pred[item], ref[item], item, mode, scheme)
        kind = 0 if mode == "default" else 1
        pset, rset = set(ps), set(rs)
        p_rows += [(item, str(m[kind]), m in rset) for m in ps]
        r_rows += [(item, str(m[kind]), m in pset) for m in rs]
    return Matching(units(p_rows), units(r_rows))
