"""The headline: the one interval every output shows first for an estimand, and its sentence.

Every verb, report and the web view read the headline through this module, so the same
data, seed and level give the same method and bounds everywhere:

- the method is the report's ``recommended`` one (chosen once, by
  :func:`ragstat.inference.analyze.recommend`); nothing else is ever substituted;
- with fewer than ``MIN_HEADLINE_DOCUMENTS`` (4) documents there is no headline interval:
  the sentence says the data cannot support one;
- an interval that is unavailable, or that leaves the range the estimand is known to lie in,
  is never a headline: the reason is said instead;
- every flag the JSON carries (range, a bootstrap from fewer than 5 documents, discarded
  replicates, a finite-population correction, a census) is said in words.

Units come from values, not names: a rate known to lie in [0, 1], or a difference of two
such rates in [−1, 1], is shown in points (× 100); anything else in its own units.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ragstat.inference.results import IntervalReport

__all__ = [
    "FEW_BOOTSTRAP_DOCUMENTS",
    "MIN_HEADLINE_DOCUMENTS",
    "QUESTIONS",
    "Headline",
    "describe",
    "flag_words",
    "format_amount",
    "headline",
    "headlines",
    "no_headline_reason",
    "single_headline",
    "unit_scale",
]

#: Fewer documents than this: no headline interval at all.
MIN_HEADLINE_DOCUMENTS = 4
#: A bootstrap interval from fewer documents than this is marked as such.
FEW_BOOTSTRAP_DOCUMENTS = 5
#: The question each estimand answers, as the words that introduce it.
QUESTIONS = {
    "micro": "a random query",
    "macro": "a typical document",
    "type_mean": "a typical document type",
}
_BOOTSTRAPS = ("doc_bootstrap_t", "doc_bootstrap_percentile", "doc_bootstrap_bca")
_MINUS = "\u2212"
_POINT_BOUNDS = ((0.0, 1.0), (-1.0, 1.0))


def no_headline_reason(K: int) -> str:
    """The sentence said instead of an interval when K is too small to support one."""
    docs = "document" if K == 1 else "documents"
    return (
        f"only {K} {docs}: the data cannot support an interval "
        f"(at least {MIN_HEADLINE_DOCUMENTS} documents are needed)"
    )


def unit_scale(bounds: Sequence[float] | None) -> float:
    """100 (points) for a rate in [0, 1] or a difference of rates in [−1, 1], else 1."""
    if bounds is None:
        return 1.0
    lo, hi = float(bounds[0]), float(bounds[1])
    return 100.0 if (lo, hi) in _POINT_BOUNDS else 1.0


def _digits(value: float, points: bool) -> int:
    """One decimal in points (two significant figures below 0.05, at most four decimals),
    else three significant (at most six decimals); below 1e-9, rounding noise, a zero."""
    size = abs(value)
    if size < 1e-9 or (points and size >= 0.05):
        return 1 if points else 0
    lead = math.floor(math.log10(size))
    return min(1 - lead, 4) if points else min(max(0, 2 - lead), 6)


def format_amount(value: float, unit_scale: float, signed: bool = False) -> str:
    """``value`` × ``unit_scale`` rounded for reading; a true minus sign; ``+`` if ``signed``."""
    x = value * unit_scale
    text = f"{abs(x):,.{_digits(x, unit_scale == 100.0)}f}"
    if x < 0 and float(text.replace(",", "")) != 0:
        return _MINUS + text
    return ("+" if signed else "") + text


def _bound_text(bounds: Sequence[float]) -> str:
    return f"[{float(bounds[0]):g}, {float(bounds[1]):g}]"


def flag_words(
    interval: Mapping[str, Any], K: int, bounds: Sequence[float] | None = None
) -> list[str]:
    """Every flag an interval's JSON carries, in words (empty when there is none)."""
    words = []
    if interval.get("available") is False:
        words.append(f"unavailable: {interval.get('reason') or 'no reason given'}")
    if interval.get("outside_range"):
        where = _bound_text(bounds) if bounds is not None else "its known range"
        words.append(f"leaves the score's range {where}: an impossible value, not a headline")
    if interval.get("method") in _BOOTSTRAPS and K < FEW_BOOTSTRAP_DOCUMENTS:
        words.append(f"a bootstrap from only {K} documents: its limits take few distinct values")
    discarded, reps = interval.get("discarded"), interval.get("replicates")
    if discarded:
        words.append(f"{discarded} of {reps} bootstrap replicates had zero SE and were discarded")
    fpc = interval.get("fpc")
    if fpc == 0.0:
        words.append("a census: every population document was observed")
    elif fpc is not None and fpc < 1:
        words.append(f"finite-population correction {fpc:.4f} applied")
    return words


@dataclass(frozen=True)
class Headline:
    """The interval shown first for one estimand (or why there is none), with its flags."""

    estimand: str
    question: str
    estimate: float | None
    method: str | None
    lower: float | None
    upper: float | None
    level: float
    K: int
    unit_scale: float
    flags: tuple[str, ...] = ()
    reason: str | None = None

    @property
    def available(self) -> bool:
        return self.reason is None and self.lower is not None and self.upper is not None

    @property
    def unit(self) -> str:
        return "points" if self.unit_scale == 100.0 else ""

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["flags"] = list(self.flags)
        out["available"] = self.available
        return {
            k: (None if isinstance(v, float) and not math.isfinite(v) else v)
            for k, v in out.items()
        }


def _finite(value: Any) -> float | None:
    if value is None or isinstance(value, bool):
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def _pick(est: Mapping[str, Any], K: int, bounds: Sequence[float] | None) -> tuple[Any, str | None]:
    """The recommended interval of one estimand's dict, or why there is none."""
    if K < MIN_HEADLINE_DOCUMENTS:
        return None, no_headline_reason(K)
    method = est.get("recommended")
    if method is None:
        note = est.get("recommendation_note")
        return None, note or "no method can be recommended on this sample"
    iv = next((i for i in est.get("intervals", []) if i.get("method") == method), None)
    if iv is None:
        return None, f"the recommended method {method} was not computed"
    if not iv.get("available", True) or iv.get("lower") is None or iv.get("upper") is None:
        return iv, f"{method} is unavailable ({iv.get('reason') or 'no reason given'})"
    if iv.get("outside_range"):
        where = _bound_text(bounds) if bounds is not None else "its known range"
        return iv, f"{method}'s interval leaves the score's range {where}"
    return iv, None


def _report_dict(report: IntervalReport | Mapping[str, Any]) -> Mapping[str, Any]:
    inner = getattr(report, "report", report)  # a ComparisonReport wraps an IntervalReport
    return inner if isinstance(inner, Mapping) else inner.to_dict()


def headline(report: IntervalReport | Mapping[str, Any], estimand: str) -> Headline:
    """The headline of ``estimand`` in ``report`` (an `IntervalReport`, a comparison, or
    either one's ``to_dict()``)."""
    data = _report_dict(report)
    K, bounds = int(data["K"]), data.get("bounds")
    est = data["estimands"][estimand]
    iv, reason = _pick(est, K, bounds)
    estimate = _finite(est.get("estimate"))
    if estimate is None and reason is None:
        reason = "the estimate is undefined"
    usable = reason is None and iv is not None
    return Headline(
        estimand=estimand,
        question=QUESTIONS.get(estimand, estimand),
        estimate=estimate,
        method=None if iv is None else iv.get("method"),
        lower=_finite(iv["lower"]) if usable else None,
        upper=_finite(iv["upper"]) if usable else None,
        level=float(data["level"]),
        K=K,
        unit_scale=unit_scale(bounds),
        flags=tuple(flag_words(iv, K, bounds)) if iv is not None else (),
        reason=reason,
    )


def headlines(report: IntervalReport | Mapping[str, Any]) -> dict[str, Headline]:
    """Every estimand's headline, in the report's order."""
    data = _report_dict(report)
    return {est: headline(data, est) for est in data["estimands"]}


def _with_unit(text: str, scale: float) -> str:
    return f"{text} points" if scale == 100.0 else text


def describe(h: Headline, score: str, subject: str | None = None, noun: str = "documents") -> str:
    """One plain sentence for a single score: "For a random query, hit1 of bm25 is 13.1 points
    (95 % interval 11.8 to 14.5, 249 documents)"; or why there is no interval."""
    what = score if subject is None else f"{score} of {subject}"
    lead = f"For {h.question}, {what}"
    K = f"{h.K:,} {noun[:-1] if h.K == 1 and noun.endswith('s') else noun}"
    # the K ≤ 3 reason already names the count: say it once
    tail = "" if h.K < MIN_HEADLINE_DOCUMENTS else f" ({K})"
    if h.estimate is None:
        return f"{lead} is undefined: {h.reason}{tail}"
    value = _with_unit(format_amount(h.estimate, h.unit_scale), h.unit_scale)
    if not h.available:
        return f"{lead} is {value}, but no interval is shown: {h.reason}{tail}"
    span = f"{format_amount(h.lower, h.unit_scale)} to {format_amount(h.upper, h.unit_scale)}"  # type: ignore[arg-type]
    flags = "".join(f"; {f}" for f in h.flags)
    return f"{lead} is {value} ({h.level * 100:g} % interval {span}, {K}{flags})"


def single_headline(
    estimate: float | None,
    method: str | None,
    lower: float | None,
    upper: float | None,
    *,
    K: int,
    level: float,
    bounds: Sequence[float] | None = None,
    reason: str | None = None,
    question: str | None = None,
) -> Headline:
    """The headline of one number with one interval (a PPI mean, an agreement statistic, a
    bias share): the same rules as :func:`headline` (no interval below
    ``MIN_HEADLINE_DOCUMENTS``, none when unavailable or outside ``bounds``, flags in
    words), for verbs whose estimate is not an `IntervalReport`'s."""
    available = reason is None and lower is not None and upper is not None
    outside = bool(
        available and bounds is not None and (lower < bounds[0] or upper > bounds[1])  # type: ignore[operator]
    )
    iv = {"method": method, "lower": lower, "upper": upper, "available": available,
          "reason": reason, "outside_range": outside}  # fmt: skip
    est = {"estimate": estimate, "recommended": method, "intervals": [iv],
           "recommendation_note": reason}  # fmt: skip
    data = {"K": K, "level": level, "bounds": None if bounds is None else list(bounds),
            "estimands": {"micro": est}}  # fmt: skip
    h = headline(data, "micro")
    return h if question is None else replace(h, question=question)
