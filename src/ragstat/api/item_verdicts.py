"""The plain sentences of the item-level metric verbs: one per score, said first.

Each score's sentence reads its headline (:mod:`ragstat.inference.headline`): the
recommended interval of the micro mean, or why there is none (fewer than four clusters,
an interval leaving the score's range…). F1 is not a mean: its corpus value and
document-bootstrap percentile interval follow the same rule (no interval from three
clusters or fewer; a bootstrap from fewer than five is marked). Every flag an interval's
JSON carries is said in words by :func:`flag_lines`. Units come from values: a score whose
values lie in [0, 1] is in points.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from ragstat.inference.headline import (
    MIN_HEADLINE_DOCUMENTS,
    Headline,
    describe,
    flag_words,
    headline,
    no_headline_reason,
    unit_scale,
)

if TYPE_CHECKING:
    from ragstat.api.items import ItemScore

__all__ = [
    "F1_QUESTION",
    "cluster_noun",
    "f1_marks",
    "f1_sentence",
    "flag_lines",
    "report_flags",
    "score_headline",
    "score_sentence",
]

#: What a corpus F1 answers (it is not a mean over items).
F1_QUESTION = "the whole corpus"
_UNIT = (0.0, 1.0)


def cluster_noun(clustering: str) -> str:
    """What K counts under a clustering note: "documents", "clusters" or "items"."""
    if "independent" in clustering:
        return "items"
    return "documents" if "doc" in clustering else "clusters"


def score_headline(s: ItemScore) -> Headline | None:
    """The headline of a score's micro mean (its question the score's own), or None when
    the score has no interval report."""
    if s.report is None:
        return None
    return dataclasses.replace(headline(s.report, "micro"), question=s.question)


def score_sentence(s: ItemScore, noun: str) -> str:
    """One sentence for a score: its mean and headline interval, or why there is none."""
    h = score_headline(s)
    if h is not None:
        return describe(h, s.name, noun=noun)
    if s.mean is None:
        return f"{s.name}: no item was scored ({s.not_scored} not scored)"
    K = s.clusters or 0
    h = Headline(
        "micro", s.question, s.mean, None, None, None, 0.95, K, unit_scale(s.bounds),
        reason=no_headline_reason(K),
    )  # fmt: skip
    return describe(h, s.name, noun=noun)


def f1_marks(entry: Mapping[str, Any]) -> dict[str, Any]:
    """An F1 entry ({estimate, lower, upper, clusters, method, …}) with ``reason`` (why no
    interval is shown, or None) and ``flags`` (its flags in words)."""
    out = dict(entry)
    K = int(out.get("clusters") or 0)
    reason = None
    if K < MIN_HEADLINE_DOCUMENTS:
        reason = no_headline_reason(K)
    elif out.get("lower") is None or out.get("upper") is None:
        reason = "the document bootstrap gave no interval"
    out["reason"] = reason
    out["flags"] = flag_words(out, K, _UNIT) if out.get("lower") is not None else []
    return out


def f1_sentence(name: str, entry: Mapping[str, Any], level: float, noun: str) -> str:
    """One sentence for a corpus F1 and its bootstrap interval (or why none is shown)."""
    e = f1_marks(entry)
    usable = e["reason"] is None
    h = Headline(
        name, F1_QUESTION, e.get("estimate"), e.get("method"),
        e.get("lower") if usable else None, e.get("upper") if usable else None,
        level, int(e.get("clusters") or 0), 100.0, tuple(e["flags"]) if usable else (),
        e["reason"],
    )  # fmt: skip
    said = describe(h, name, noun=noun)
    return f"{said}; corpus F1, document bootstrap percentile" if usable else said


def report_flags(data: Mapping[str, Any], estimand: str) -> str | None:
    """Every flag of one estimand's intervals in a report's ``to_dict()``, in words, each
    followed by the methods that carry it; None when there is none."""
    K, bounds = int(data["K"]), data.get("bounds")
    found: dict[str, list[str]] = {}
    for iv in data["estimands"][estimand]["intervals"]:
        for words in flag_words(iv, K, bounds):
            found.setdefault(words, []).append(str(iv["method"]))
    if not found:
        return None
    return "; ".join(f"{words} ({', '.join(m)})" for words, m in found.items())


def flag_lines(scores: Iterable[ItemScore]) -> list[str]:
    """Every flag the scores' intervals carry in JSON, in words: one line per score."""
    out = []
    for s in scores:
        said = None if s.report is None else report_flags(s.report.to_dict(), "micro")
        if said:
            out.append(f"{s.name}: {said}")
    return out
