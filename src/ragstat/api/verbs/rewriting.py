"""``ragstat.rewriting``: does a query-rewriting method (expansion, HyDE, multi-query…) earn
its place, slice by slice? Paired per-query differences method − baseline, clustered by
the query's source document.

Input, one per-query table (JSONL, CSV, TSV, Parquet, or a DataFrame): ``query_id``,
``doc_id`` (the query's source document: the cluster) and ``slice`` (e.g. in-domain,
out-of-domain, low-confidence; absent: every query is in slice ``all``), with the score
(e.g. Recall@10) either

* **wide**: one numeric column per method, the baseline's named by ``baseline`` (default
  ``baseline``); the methods are ``methods`` or every other numeric column; or
* **long**: a ``method`` column (the baseline is one of its values) and one score column
  (``score``, or the only numeric column).

For every method × slice, and over all queries, the difference method − baseline per query
goes to :func:`ragstat.compare` (``micro``: the gain for a random query of the slice;
queries scored under only one of the two are dropped and counted). Its recommended interval
[l, u] and the minimum useful gain g = ``min_gain`` (≥ 0, default 0) decide:

1. **default path** when l > g: the gain is real and at least the minimum useful one —
   rewrite every query of this slice;
2. **neither** when u < 0: the method hurts this slice;
3. **fallback** when l ≤ g < u (and u ≥ 0): a useful gain is possible but not shown — use
   the method only as a fallback, when the baseline's retrieval is low-confidence;
4. **neither** otherwise (0 ≤ u ≤ g): even the upper bound is no useful gain.

No interval (e.g. three documents or fewer in the slice) → **undecided**. The difference
and its bounds are rounded to 12 decimals first, so that floating-point noise reads as 0.
Scores whose values all lie in [0, 1] are shown in points (× 100), whatever their name.
One sentence per method reads the slices in order, e.g. "hyde: default path for
out-of-domain queries (+6.2 points, 95 % interval +2.1 to +10.3); neither for in-domain
queries (−0.4, −2.0 to +1.2)".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ragstat.api.data import Data, as_frame, label_of
from ragstat.api.evaluation import draw_seed, json_ready
from ragstat.api.items import check_reps
from ragstat.errors import InputError
from ragstat.inference.paired import ComparisonReport
from ragstat.records.cells import CellCounts
from ragstat.tidy import Tidy

__all__ = ["DECISIONS", "RewriteDecision", "RewritingReport", "decide", "rewriting"]

#: The decisions, in the order of the rule.
DECISIONS = ("default path", "fallback", "neither", "undecided")
ALL = "all"
_KEYS = ("query_id", "doc_id", "slice", "method")


def decide(lower: float | None, upper: float | None, min_gain: float = 0.0) -> tuple[str, str]:
    """(decision, why) from the interval [lower, upper] of method − baseline (module rule)."""
    if lower is None or upper is None:
        return "undecided", "no interval"
    if lower > min_gain:
        return "default path", f"the whole interval is above the minimum gain {min_gain:g}"
    if upper < 0:
        return "neither", "the whole interval is below 0: it hurts"
    if upper > min_gain:
        return "fallback", f"a gain above {min_gain:g} is possible but not shown"
    return "neither", f"even the upper bound is no gain above {min_gain:g}"


@dataclass(frozen=True)
class RewriteDecision:
    """One method × slice: the paired difference method − baseline and the decision."""

    method: str
    slice: str
    queries: int
    documents: int
    difference: float | None
    lower: float | None
    upper: float | None
    interval_method: str | None
    decision: str
    reason: str
    comparison: ComparisonReport | None = None

    def to_dict(self) -> dict[str, Any]:
        out = {k: getattr(self, k) for k in self.__dataclass_fields__ if k != "comparison"}
        out["comparison"] = None if self.comparison is None else self.comparison.to_dict()
        return out


@dataclass(frozen=True, repr=False)
class RewritingReport(Tidy):
    """Every method × slice decision and one plain sentence per method; ``to_dict()`` is
    what ``ragstat rewriting --json`` prints."""

    source: str
    score: str
    baseline: str
    min_gain: float
    decisions: tuple[RewriteDecision, ...]
    #: One plain sentence per method (``sentences()`` gives them as a list).
    method_sentences: tuple[str, ...]
    unit_scale: float = 100.0
    notes: tuple[str, ...] = ()
    level: float = 0.95
    seed: int | None = None

    headline_columns = ("method", "slice", "estimate", "lower", "upper", "decision")

    def to_dict(self) -> dict[str, Any]:
        return json_ready(
            {
                "score": self.score,
                "baseline": self.baseline,
                "min_gain": self.min_gain,
                "unit": "points" if self.unit_scale == 100.0 else "score units",
                "decisions": [d.to_dict() for d in self.decisions],
                "sentences": list(self.method_sentences),
                "clustering": "clustered by 'doc_id'",
                "seed": self.seed,
                "notes": list(self.notes),
            }
        )

    def rows(self) -> list[dict[str, Any]]:
        return [
            {
                "method": d.method, "slice": d.slice, "estimate": d.difference,
                "lower": d.lower, "upper": d.upper, "interval_method": d.interval_method,
                "queries": d.queries, "documents": d.documents, "decision": d.decision,
            }
            for d in self.decisions
        ]  # fmt: skip

    def headline_rows(self) -> list[dict[str, Any]]:
        return self.rows()

    def sentences(self) -> list[str]:
        """One plain sentence per method (its decision on every slice)."""
        return list(self.method_sentences)

    def flags(self) -> list[str]:
        """Every flag of each comparison's intervals, in words: one line per method × slice."""
        from ragstat.api.item_verdicts import report_flags

        out = []
        for d in self.decisions:
            said = (
                None
                if d.comparison is None
                else report_flags(d.comparison.report.to_dict(), "micro")
            )
            if said:
                out.append(f"{d.method} − {self.baseline}, {d.slice}: {said}")
        return out

    def title(self) -> str:
        return (
            f"query rewriting vs {self.baseline} on {self.score}: {self.source}, "
            f"{self.level:.0%} intervals clustered by document"
        )


def _numeric(frame: Any, skip: Sequence[str]) -> list[str]:
    """Score columns: numeric, or text columns whose cells are mostly numbers (a column with
    some ``"ERROR"`` cells is still a score column; its cells are checked by the one rule)."""
    import pandas as pd

    from ragstat.records.cells import parse_cells

    out = []
    for c in frame.columns:
        if c in skip or pd.api.types.is_bool_dtype(frame[c]):
            continue
        if pd.api.types.is_numeric_dtype(frame[c]):
            out.append(str(c))
            continue
        numbers, bad = parse_cells(frame[c])
        found = int((~np.isnan(numbers)).sum())
        if found and found >= int(bad.sum()):  # mostly numbers: a score column
            out.append(str(c))
    return out


def _cells(frame: Any, columns: Sequence[str], label: str, non_numeric: str) -> CellCounts:
    """Each score column as float64 by :func:`ragstat.records.cells.numeric_cells` (not a
    number: one-line InputError unless ``non_numeric="missing"``), in place; the counts."""
    from ragstat.records.cells import numeric_cells

    counts = CellCounts()
    for c in dict.fromkeys(columns):
        frame[c], found = numeric_cells(frame[c].to_numpy(dtype=object), c, label, non_numeric)
        counts = counts + found
    return counts


def _long(
    frame: Any,
    label: str,
    score: str | None,
    baseline: str,
    methods: Sequence[str] | None,
    non_numeric: str = "error",
) -> tuple[Any, str, CellCounts]:
    """The table as long rows (query_id, doc_id, slice, method, value), the score name and
    the score cells without a number."""
    for key in ("query_id", "doc_id"):
        if key not in frame.columns:
            raise InputError(f"{label}: no {key!r} column")
    frame = frame.copy()
    if "slice" not in frame.columns:
        frame["slice"] = ALL
    if "method" in frame.columns:
        found = _numeric(frame, _KEYS)
        name = score or (found[0] if len(found) == 1 else None)
        if name is None or name not in frame.columns:
            raise InputError(f"{label}: name the score column with --score (found {found})")
        counts = _cells(frame, [name], label, non_numeric)
        long = frame[["query_id", "doc_id", "slice", "method", name]].rename(
            columns={name: "value"}
        )
    else:
        if baseline not in frame.columns:
            raise InputError(f"{label}: no {baseline!r} column and no 'method' column")
        cols = list(methods) if methods else [c for c in _numeric(frame, _KEYS) if c != baseline]
        missing = [c for c in cols if c not in frame.columns]
        if missing or not cols:
            raise InputError(f"{label}: no method column{'s' if missing else ''} {missing or ''}")
        counts = _cells(frame, [baseline, *cols], label, non_numeric)
        long = frame.melt(
            id_vars=["query_id", "doc_id", "slice"], value_vars=[baseline, *cols],
            var_name="method", value_name="value",
        )  # fmt: skip
        name = score or "score"
    long = long.dropna(subset=["value"])
    for key in ("query_id", "doc_id", "slice", "method"):
        long[key] = long[key].astype(str)
    return long, name, counts


def _check(long: Any, label: str, baseline: str) -> None:
    """One value per query and method; a query keeps its document and slice."""
    dup = long.duplicated(subset=["query_id", "method"])
    if dup.any():
        row = long[dup].iloc[0]
        raise InputError(f"{label}: query {row['query_id']!r} has two {row['method']!r} scores")
    per_query = long.groupby("query_id")[["doc_id", "slice"]].nunique()
    bad = per_query[(per_query > 1).any(axis=1)]
    if len(bad):
        raise InputError(f"{label}: query {bad.index[0]!r} has several doc_id or slice values")
    if baseline not in set(long["method"]):
        raise InputError(f"{label}: no score for the baseline {baseline!r}")


def _one(long: Any, method: str, part: str, baseline: str, score: str, unit: float, opts: dict):
    """The comparison of ``method`` and the baseline on one slice, and its decision."""
    from ragstat.api.verbs.compare import compare
    from ragstat.inference.verdict import verdicts

    rows = long[long["method"].isin([method, baseline]) & ((long["slice"] == part) | (part == ALL))]
    pair = rows.pivot(index="query_id", columns="method", values="value").dropna()
    sub = rows[rows["query_id"].isin(pair.index)].rename(columns={"method": "system"})
    docs = int(sub["doc_id"].nunique())
    if docs < 2:
        why = f"{docs} document(s) in this slice: no clustered interval"
        return RewriteDecision(
            method, part, len(pair), docs, None, None, None, None, "undecided", why
        )
    comp = compare(
        sub, systems=(method, baseline), score="value", estimands=("micro",),
        level=opts["level"], bootstrap_reps=opts["bootstrap_reps"], seed=opts["seed"],
    )  # fmt: skip
    if not isinstance(comp, ComparisonReport):  # pragma: no cover - srs design only
        raise InputError("rewriting: the comparison did not return a paired report")
    v = verdicts(comp, method, baseline, score, unit)[0]
    d, lo, hi = (
        None if x is None else round(x, 12) + 0.0 for x in (v.difference, v.lower, v.upper)
    )
    decision, why = decide(lo, hi, opts["min_gain"])
    if lo is None:
        why = v.sentence.split("no interval could be computed: ")[-1]
    return RewriteDecision(method, part, len(pair), docs, d, lo, hi, v.method, decision, why, comp)


def _clause(d: RewriteDecision, unit: float, level: float, first: bool) -> str:
    from ragstat.inference.verdict import format_amount

    where = "all queries" if d.slice == ALL else f"{d.slice} queries"
    if d.difference is None or d.lower is None or d.upper is None:
        return f"{d.decision} for {where} ({d.reason})"
    amount = format_amount(d.difference, unit, True)
    span = f"{format_amount(d.lower, unit, True)} to {format_amount(d.upper, unit, True)}"
    if first:
        points = " points" if unit == 100.0 else ""
        return f"{d.decision} for {where} ({amount}{points}, {level * 100:g} % interval {span})"
    return f"{d.decision} for {where} ({amount}, {span})"


def sentence(method: str, decisions: Sequence[RewriteDecision], unit: float, level: float) -> str:
    """One plain sentence for a method: its decision on every slice, in order."""
    parts = [_clause(d, unit, level, i == 0) for i, d in enumerate(decisions)]
    return f"{method}: " + "; ".join(parts)


def rewriting(
    data: Data,
    *,
    score: str | None = None,
    baseline: str = "baseline",
    methods: Sequence[str] | None = None,
    min_gain: float = 0.0,
    level: float = 0.95,
    bootstrap_reps: int = 1999,
    seed: int | None = None,
    non_numeric: str = "error",
) -> RewritingReport:
    """Per method × slice: method − baseline with intervals clustered by ``doc_id``, and the
    decision of the module docstring. ``seed=None`` draws a seed (``result.seed``). A score
    cell that is not a number stops with one line unless ``non_numeric="missing"``
    (:mod:`ragstat.records.cells`)."""
    if not min_gain >= 0:
        raise InputError(f"min_gain must be ≥ 0, got {min_gain!r}")
    check_reps(bootstrap_reps)
    label = label_of(data)
    long, name, counts = _long(as_frame(data), label, score, baseline, methods, non_numeric)
    _check(long, label, baseline)
    values = long["value"].astype(float)
    unit = 100.0 if values.between(0, 1).all() else 1.0  # units from values, not the name
    seed = draw_seed(seed)
    opts = {"level": level, "bootstrap_reps": bootstrap_reps, "seed": seed, "min_gain": min_gain}
    slices = sorted(set(long["slice"]) - {ALL})
    decisions, sentences = [], []
    for method in sorted(set(long["method"]) - {baseline}):
        found = [_one(long, method, part, baseline, name, unit, opts) for part in [*slices, ALL]]
        decisions += found
        sentences.append(sentence(method, found, unit, level))
    notes = [f"{len(set(long['query_id']))} queries, {long['doc_id'].nunique()} documents"]
    if counts.non_numeric:
        notes.append(f"score cells without a number left out: {counts.text()}")
    return RewritingReport(
        label, name, baseline, float(min_gain), tuple(decisions), tuple(sentences), unit,
        tuple(notes), level, seed,
    )  # fmt: skip
