"""Plain verdicts of a paired comparison: one sentence per estimand, said first.

The estimate of a paired comparison is the mean of y_A − y_B (per query for micro, of the
per-document differences for macro). The verdict reads the interval of the method the
report recommends for that estimand:

- it excludes 0 → "A beats B on <score> by x points (95 % interval l to u, K documents):
  a real difference", with the side of the interval deciding who beats whom (B − A when B
  is better, so every number in the sentence is positive);
- it includes 0 → "A and B cannot be told apart on <score>: the 95 % interval −l to +u
  points includes 0 (K documents)";
- no interval → the estimate and "no interval could be computed: <reason>".

Each sentence opens with the question its estimand answers: micro "a random query", macro
"a typical document". Scores in [0, 1] are shown in points (× 100, one decimal); other
scores in their own units.

:func:`two_sample_sentence` says the same of two independent arms (``compare --design
two-sample``): who beats whom, by how much, and whether the interval excludes 0.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from ragstat.inference.headline import QUESTIONS, format_amount, headline
from ragstat.inference.headline import unit_scale as headline_unit_scale

if TYPE_CHECKING:
    from ragstat.inference.paired import ComparisonReport
    from ragstat.inference.results import IntervalReport

__all__ = [
    "QUESTIONS",
    "Verdict",
    "cluster_noun",
    "format_amount",
    "two_sample_sentence",
    "unit_scale_for",
    "verdicts",
]

#: What K counts, by `ragstat evaluate`'s clustering rule (a mapping file's are "clusters").
_CLUSTER_NOUNS = {"query": "queries as clusters", "qrels-doc": "documents"}

#: Score names known to lie in [0, 1]: the IR metrics (with or without @k) and common rates.
_UNIT_SCORE = re.compile(
    r"^(ndcg|recall|p|precision|mrr|rr|map|ap|hit|success|rprec|accuracy|correct|pass|passed"
    r"|rate|hit_rate|exact_match|em|f1)(@\d+)?$"
)


@dataclass(frozen=True)
class Verdict:
    """One estimand's plain verdict on A − B (difference, lower, upper in the score's units)."""

    estimand: str
    a_name: str
    b_name: str
    score: str
    difference: float | None
    lower: float | None
    upper: float | None
    level: float
    documents: int
    real: bool | None
    sentence: str
    question: str
    method: str | None = None
    unit: str = "points"

    def to_dict(self) -> dict:
        return {
            k: (None if isinstance(v, float) and not math.isfinite(v) else v)
            for k, v in asdict(self).items()
        }


def unit_scale_for(score: str) -> float:
    """Fallback only: 100 (points) for a score *named* like one in [0, 1] (hit@k, ndcg@k,
    mrr, a rate…), else 1. Units come from values (a report's ``bounds``,
    :func:`ragstat.inference.headline.unit_scale`); this reads old JSON written before
    ``bounds`` existed, and is kept for callers not yet moved (``api/verbs/rewriting.py``)."""
    return 100.0 if _UNIT_SCORE.match(score.strip().lower()) else 1.0


def cluster_noun(by: str | None) -> str:
    """The words for K under a clustering rule: "documents", "queries as clusters", "clusters"."""
    return _CLUSTER_NOUNS.get(by or "", "clusters")


def _unit(unit_scale: float) -> str:
    return "points" if unit_scale == 100.0 else ""


def _with_unit(text: str, unit_scale: float) -> str:
    unit = _unit(unit_scale)
    return f"{text} {unit}" if unit else text


def _sentence(v: dict[str, Any], unit_scale: float, reason: str | None, noun: str) -> str:
    a, b, score = v["a_name"], v["b_name"], v["score"]
    K = f"{v['documents']:,} {noun}"
    lead = f"For {v['question']}, "
    level = f"{v['level'] * 100:g} %"
    lo, hi, d = v["lower"], v["upper"], v["difference"]
    if reason is not None:
        shown = (
            "" if d is None else f" {_with_unit(format_amount(d, unit_scale, True), unit_scale)}"
        )
        return (
            f"{lead}{a} − {b} on {score}:{shown}, but no interval could be computed: {reason} ({K})"
        )
    if not v["real"]:
        span = f"{format_amount(lo, unit_scale, True)} to {format_amount(hi, unit_scale, True)}"
        return (
            f"{lead}{a} and {b} cannot be told apart on {score}: the {level} interval "
            f"{_with_unit(span, unit_scale)} includes 0 ({K})"
        )
    win, lose, d, lo, hi = (a, b, d, lo, hi) if lo > 0 else (b, a, -d, -hi, -lo)
    return (
        f"{lead}{win} beats {lose} on {score} by "
        f"{_with_unit(format_amount(d, unit_scale), unit_scale)} ({level} interval "
        f"{format_amount(lo, unit_scale)} to {format_amount(hi, unit_scale)}, {K}): "
        "a real difference"
    )


def _one(
    estimand: str, data: Mapping[str, Any], base: dict[str, Any], unit_scale: float, noun: str
) -> Verdict:
    h = headline(data, estimand)
    reason = h.reason
    d, lo, hi = h.estimate, h.lower, h.upper
    real: bool | None = None
    if h.available and lo is not None and hi is not None:
        real = lo > 0 or hi < 0
    v = dict(base, estimand=estimand, difference=d, lower=lo, upper=hi, real=real)
    v["question"] = h.question
    v["method"] = h.method
    v["unit"] = _unit(unit_scale) or "score units"
    return Verdict(**v, sentence=_sentence(v, unit_scale, reason, noun))


def verdicts(
    report: IntervalReport | ComparisonReport | Mapping[str, Any],
    a: str,
    b: str,
    score: str,
    unit_scale: float | None = None,
    *,
    clusters: str = "documents",
) -> tuple[Verdict, ...]:
    """One `Verdict` per estimand of a paired comparison's report (A − B).

    ``report`` is a `ComparisonReport`, its `IntervalReport`, or either one's ``to_dict()``;
    ``unit_scale`` is 100 for points (scores in [0, 1]) or 1 for the score's own units
    (default: from the report's ``bounds`` — points for rates and differences of rates); ``clusters`` names what the report's K counts.
    """
    inner = getattr(report, "report", report)  # a ComparisonReport wraps an IntervalReport
    data: Mapping[str, Any] = inner if isinstance(inner, Mapping) else inner.to_dict()
    scale = _scale(data) if unit_scale is None else float(unit_scale)
    base: dict[str, Any] = {"a_name": a, "b_name": b, "score": score}
    base |= {"level": float(data["level"]), "documents": int(data["K"])}
    return tuple(_one(est, data, base, scale, clusters) for est in data["estimands"])


def _scale(data: Mapping[str, Any]) -> float:
    """Points when the report knows its values lie in [0, 1] or [−1, 1] (a difference of
    rates); reports without ``bounds`` (written before it existed) fall back to the name."""
    if "bounds" in data:
        return headline_unit_scale(data["bounds"])
    return unit_scale_for(str(data.get("score", "")))


def two_sample_sentence(d: dict, score: str | None = None) -> str:
    """The verdict of a two-sample comparison (A − B, independent arms), one sentence."""
    a, b = (str(x) for x in d["arms"])
    what = f"on {score}" if score else "on the score"
    scale = headline_unit_scale(d.get("bounds"))
    unit = " points" if scale == 100.0 else ""
    units = f"{d['units'][0]:,} vs {d['units'][1]:,} units"
    level = f"{d['level'] * 100:g} %"
    lo, hi, est = d["lower"], d["upper"], d["estimate"]
    if lo is None or hi is None or est is None:
        return f"{a} − {b} {what}: no interval could be computed ({units})"
    if lo <= 0 <= hi:
        span = f"{format_amount(lo, scale, True)} to {format_amount(hi, scale, True)}{unit}"
        return f"{a} and {b} cannot be told apart {what}: the {level} interval {span} includes 0 ({units})"
    win, lose, est, lo, hi = (a, b, est, lo, hi) if lo > 0 else (b, a, -est, -hi, -lo)
    return (
        f"{win} beats {lose} {what} by {format_amount(est, scale)}{unit} ({level} interval "
        f"{format_amount(lo, scale)} to {format_amount(hi, scale)}, {units}): a real difference"
    )
