"""`analyze_design`: the intervals a sampling design supports, in an `IntervalReport`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from ragstat.errors import DesignError
from ragstat.inference.analyze import analyze, clustering_warnings
from ragstat.inference.designs import (
    DESIGNS,
    stratified_macro,
    stratified_micro,
    two_stage_type_mean,
)
from ragstat.inference.diagnostics import compute_diagnostics
from ragstat.inference.estimators import ESTIMANDS, check_documents
from ragstat.inference.headline import MIN_HEADLINE_DOCUMENTS, no_headline_reason
from ragstat.inference.results import DesignInfo, EstimandResult, Interval, IntervalReport
from ragstat.inference.weighted import analyze_weighted
from ragstat.records.docstats import DocStats

__all__ = ["analyze_design"]

_DF_RULES = {
    "stratified": "Satterthwaite over strata (Cochran 5A.42)",
    "two-stage": "t − 1 (sampled types)",
}


def _design_warnings(
    design: str, stats: DocStats, results: Mapping[str, EstimandResult]
) -> list[str]:
    """What a design-based report says about itself, then the data's clustering warnings."""
    warnings = [
        f"{design} design: design-based linearised intervals only; "
        "the document bootstraps and CR2 assume simple random sampling of documents"
    ]
    if design == "two-stage":
        warnings.append("two-stage estimand: the mean over types of their mean document rate")
    warnings += clustering_warnings(stats)
    warnings += [
        f"{r.estimand} {iv.method}: unavailable — {iv.reason}"
        for r in results.values()
        for iv in r.intervals
        if not iv.available
    ]
    return warnings


def _info(stats: DocStats, design: str, counts: Mapping[str, int]) -> DesignInfo:
    if stats.stratum is None:
        raise DesignError(f"--design {design} needs strata")
    labels, k = np.unique(stats.stratum.astype(str), return_counts=True)
    groups = tuple(sorted(set(counts))) if design == "two-stage" else tuple(labels)
    sampled = dict(zip(labels, k.tolist(), strict=True))
    return DesignInfo(
        name=design,
        groups=groups,
        sampled=tuple(int(sampled.get(g, 0)) for g in groups),
        population=tuple(int(counts[g]) for g in groups),
        df_rule=_DF_RULES[design],
    )


def analyze_design(
    stats: DocStats,
    *,
    design: str = "srs",
    population_counts: Mapping[str, int] | None = None,
    level: float = 0.95,
    estimands: Sequence[str] = ESTIMANDS,
    **srs_options,
) -> IntervalReport:
    """Intervals under ``design``: ``srs`` (every core method), ``stratified``
    (combined ratio for micro, stratified mean for macro) or ``two-stage``
    (mean over types). Non-SRS designs need ``population_counts`` per stratum/type
    and a stratum on every document of ``stats``. When ``stats.m`` is set (the
    expanded totals of sampled queries, :mod:`ragstat.records.weighted`) the SRS
    analysis reports only the methods valid under weights
    (:mod:`ragstat.inference.weighted`), the others unavailable with the reason.
    """
    if design not in DESIGNS:
        raise DesignError(f"unknown design {design!r}; choose from {', '.join(DESIGNS)}")
    if design == "srs" and stats.m is not None:
        return analyze_weighted(stats, level=level, estimands=estimands, **srs_options)
    if design == "srs":
        return analyze(stats, level=level, estimands=estimands, **srs_options)
    if not 0 < level < 1:
        raise DesignError(f"level must be between 0 and 1, got {level}")
    if population_counts is None:
        raise DesignError(
            f"the {design} design needs population counts per group (--population-file)"
        )
    check_documents(stats.K)
    if design == "stratified":
        fns = {"micro": stratified_micro, "macro": stratified_macro}
        ests = [fns[e](stats, population_counts) for e in estimands]
    else:
        ests = [two_stage_type_mean(stats, population_counts)]
    bounds = stats.known_bounds()
    results = {
        e.estimand: _result(e.estimand, e.estimate, e.interval(level), bounds, stats.K)
        for e in ests
    }
    warnings = _design_warnings(design, stats, results)
    return IntervalReport(
        score=stats.score,
        K=stats.K,
        N=round(stats.N),
        level=level,
        seed=srs_options.get("seed"),
        population=None,
        bootstrap_reps=0,
        estimands=results,
        diagnostics=compute_diagnostics(stats),
        warnings=tuple(warnings),
        design=_info(stats, design, population_counts),
        bounds=bounds,
    )


def _result(
    estimand: str,
    estimate: float,
    iv: Interval,
    bounds: tuple[float, float] | None,
    K: int,
) -> EstimandResult:
    """The design's one interval, flagged against the known range, and recommended unless
    K ≤ 3 or it leaves the range (then no method, and the reason)."""
    if bounds is not None:
        iv = iv.flag_range(*bounds)
    if K < MIN_HEADLINE_DOCUMENTS:
        return EstimandResult(estimand, estimate, (iv,), None, no_headline_reason(K))
    if iv.outside_range and bounds is not None:
        why = (
            f"the design-based interval leaves the known range [{bounds[0]:g}, {bounds[1]:g}] "
            "and this design has no range-respecting interval"
        )
        return EstimandResult(estimand, estimate, (iv,), None, why)
    return EstimandResult(estimand, estimate, (iv,), iv.method)
