"""`analyze`: every requested interval for the micro and macro estimands of one score."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from ragstat.errors import InputError
from ragstat.inference import methods as m
from ragstat.inference.defaults import (
    GUIDE,
    NEVER_RECOMMENDED,
    Choice,
    choices_note,
    default_choice,
    section_of,
)
from ragstat.inference.diagnostics import compute_diagnostics
from ragstat.inference.estimators import ESTIMANDS, check_documents, fpc_factor
from ragstat.inference.headline import MIN_HEADLINE_DOCUMENTS, no_headline_reason
from ragstat.inference.names import DEFAULT_REPS, SMALL_K_METHODS
from ragstat.inference.resampling import doc_bootstrap_intervals, query_bootstrap
from ragstat.inference.results import METHODS, EstimandResult, Interval, IntervalReport
from ragstat.inference.small_k import small_k_interval, table_candidates
from ragstat.records.docstats import DocStats, QueryScores

__all__ = ["APPLICABLE", "DEFAULT_REPS", "RECOMMENDED", "analyze", "clustering_warnings"]


#: Methods that apply to each estimand, in reporting order.
APPLICABLE = {
    "micro": (
        "cr2_bm",
        "cr2_ik",
        "cr1",
        "doc_bootstrap_t",
        "doc_bootstrap_percentile",
        "logit",
        "korn_graubard",
        "logit_cr2_bm",
        "wald_effective_n",
        "wald_iid",
        "query_bootstrap",
    ),
    "macro": (
        "t_rates",
        "doc_bootstrap_t",
        "doc_bootstrap_percentile",
        "logit",
        "korn_graubard",
        "wald_iid",
        "query_bootstrap",
    ),
}
#: Seed 000's method guide: CR2 (its "IK" df is Bell–McCaffrey) for micro, t on rates for macro.
#: The default now comes from the built-in coverage table (`inference.defaults`); this guide
#: applies at levels the table does not hold and to scores outside [0, 1].
RECOMMENDED = GUIDE

_ANALYTIC = {
    "cr1": m.cr1,
    "cr2_bm": m.cr2_bm,
    "cr2_ik": m.cr2_ik,
    "t_rates": m.t_rates,
    "wald_iid": m.wald_iid,
    "wald_effective_n": m.wald_effective_n,
    "korn_graubard": m.korn_graubard,
    "logit_cr2_bm": m.logit_cr2_bm,
    "logit": m.logit,
}
_BOOT = {"doc_bootstrap_t", "doc_bootstrap_percentile"}
#: Methods computed when none are named (the small-K candidates only when the table picks one).
_LISTED = frozenset(m for e in APPLICABLE for m in APPLICABLE[e])


#: Most bootstrap replicates accepted (memory grows linearly with them).
MAX_REPS = 1_000_000


def _check_args(
    level: float, reps: int, seed: int | None, methods: Iterable[str], estimands: Sequence[str]
) -> None:
    if not 0 < level < 1:
        raise InputError(f"level must be between 0 and 1 (e.g. 0.95), got {level}")
    if (
        isinstance(reps, bool)
        or not isinstance(reps, (int, np.integer))
        or not 1 <= reps <= MAX_REPS
    ):
        raise InputError(
            f"bootstrap replicates must be a whole number in [1, {MAX_REPS:,}], got {reps!r}"
        )
    if seed is not None and (
        isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0
    ):
        raise InputError(f"seed must be a non-negative whole number, got {seed!r}")
    unknown = sorted(set(methods) - set(METHODS))
    if unknown:
        raise InputError(f"unknown method(s) {unknown}; choose from {', '.join(METHODS)}")
    bad = sorted(set(estimands) - set(ESTIMANDS))
    if bad:
        raise InputError(f"unknown estimand(s) {bad}; choose micro and/or macro")


def _rng(seed: int, estimand: str, stream: str) -> np.random.Generator:
    """Independent, stable stream per (estimand, method): adding a method changes no other."""
    key = (ESTIMANDS.index(estimand), METHODS.index(stream))
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=key))


def analyze(
    stats: DocStats,
    *,
    level: float = 0.95,
    methods: Iterable[str] | None = None,
    estimands: Sequence[str] = ESTIMANDS,
    population: int | None = None,
    bootstrap_reps: int = DEFAULT_REPS,
    seed: int | None = None,
    query_scores: QueryScores | None = None,
    recommended: Mapping[str, str] | None = None,
) -> IntervalReport:
    """Document-clustered intervals for the micro and macro means of ``stats``.

    ``population`` (M documents) applies the finite-population correction
    1 − K/M to the clustered variances. With ``seed=None`` a seed is drawn and
    recorded in the report. ``recommended`` (estimand → method, e.g. from the user's own
    coverage simulation) overrides the built-in default (:func:`recommend`).
    """
    wanted = set(_LISTED if methods is None else methods)
    _check_args(level, bootstrap_reps, seed, wanted, estimands)
    check_documents(stats.K)
    stats, query_scores = _canonical_order(stats, query_scores)
    fpc = fpc_factor(stats.K, population)
    if seed is None:
        seed = int(np.random.SeedSequence().generate_state(1)[0])
    diag = compute_diagnostics(stats)
    x = m.Sample(
        n=stats.n,
        s=stats.s,
        q=stats.q,
        binary=stats.binary,
        level=level,
        fpc=fpc,
        reps=bootstrap_reps,
        w=stats.within_ss,
        deff=diag.deff,
        query_scores=query_scores,
        bounds=stats.known_bounds(),
    )
    kind = section_of(stats.binary, stats.difference)
    results, choices = _results(x, stats.K, estimands, wanted, seed, recommended, kind)
    return IntervalReport(
        score=stats.score,
        K=stats.K,
        N=round(stats.N),
        level=level,
        seed=seed,
        population=population,
        bootstrap_reps=bootstrap_reps,
        estimands=results,
        diagnostics=diag,
        warnings=tuple(
            _warnings(stats, results, population, bootstrap_reps) + choices_note(choices)
        ),
        bounds=x.bounds,
    )


def _results(
    x: m.Sample,
    K: int,
    estimands: Sequence[str],
    wanted: set[str],
    seed: int,
    recommended: Mapping[str, str] | None,
    kind: str = "binary",
) -> tuple[dict[str, EstimandResult], dict[str, Choice]]:
    """Every estimand's intervals and recommended method (the caller's, else the default).

    Unless the caller sets the recommendation, the small-K candidates the table would pick
    here are computed too, whatever the requested methods: every verb then shows the same
    default (one answer), also those that ask for a short list of methods."""
    results: dict[str, EstimandResult] = {}
    choices: dict[str, Choice] = {}
    for est in estimands:
        overridden = recommended is not None and est in recommended
        extra = set() if overridden else table_candidates(est, K, x.level, kind)
        ivs = _intervals(x, est, wanted | extra, seed)
        rec: str | None
        if recommended is not None and est in recommended:
            rec, note = recommended[est], "set by the caller"
        else:
            choices[est] = recommend(est, K, x.level, x.bounds, ivs, kind)
            rec, note = choices[est].method, choices[est].note
        results[est] = EstimandResult(est, x.estimate(est), tuple(ivs), rec, note)
    return results, choices


def recommend(
    estimand: str,
    K: int,
    level: float,
    bounds: tuple[float, float] | bool | None,
    intervals: Sequence[Interval],
    kind: str = "binary",
) -> Choice:
    """The built-in default among the computed, available intervals (docs/recommendation.md).

    No method with K ≤ 3 documents. Scores with known ``bounds`` (``True``: [0, 1]): the
    small-K contest's pick on the section of ``kind`` (binary, continuous or paired), Korn–
    Graubard where the pick has no interval on the sample, never one whose interval leaves
    the range.
    Scores without known bounds: the document-level method guide, whose coverage the
    table does not describe.
    """
    if K < MIN_HEADLINE_DOCUMENTS:
        return Choice(None, None, None, (), no_headline_reason(K))
    if bounds is True:
        bounds = (0.0, 1.0)
    known = None if bounds is False or bounds is None else (float(bounds[0]), float(bounds[1]))
    available = {iv.method for iv in intervals if iv.available and not iv.naive}
    computed = {iv.method for iv in intervals if not iv.naive}
    if known is None or not available - NEVER_RECOMMENDED:
        method = RECOMMENDED.get(estimand)
        why = "the built-in coverage tables cover scores with a known range"
        if known is not None:
            why = "none of the computed methods can be recommended"
        return Choice(method, None, None, (), f"the document-level method guide ({why})")
    outside = {iv.method for iv in intervals if iv.outside_range}
    return default_choice(estimand, K, level, True, available, outside, kind, known, computed)


def _canonical_order(
    stats: DocStats, qs: QueryScores | None
) -> tuple[DocStats, QueryScores | None]:
    """Sort documents by id so results never depend on input order (bootstrap included)."""
    perm = np.argsort(stats.doc_id.astype(str), kind="stable")
    if qs is not None:
        counts = np.bincount(qs.doc_index, minlength=stats.K)
        if qs.y.shape != qs.doc_index.shape or not np.array_equal(counts, stats.n):
            raise InputError("query_scores do not match the document counts n_d of stats")
        inverse = np.empty_like(perm)
        inverse[perm] = np.arange(perm.size)
        qs = QueryScores(doc_index=inverse[qs.doc_index], y=qs.y)
    return stats.subset(perm), qs


def _intervals(x: m.Sample, estimand: str, wanted: set[str], seed: int) -> list[Interval]:
    out: dict[str, Interval] = {}
    order = APPLICABLE[estimand] + SMALL_K_METHODS
    for name in order:
        if name not in wanted or name in out:
            continue
        if name in SMALL_K_METHODS:
            out[name] = small_k_interval(name, x, estimand, _rng(seed, estimand, name))
        elif name in _ANALYTIC:
            out[name] = _ANALYTIC[name](x, estimand)
        elif name in _BOOT:
            rng = _rng(seed, estimand, "doc_bootstrap_t")
            for iv in doc_bootstrap_intervals(x, estimand, rng, wanted & _BOOT):
                out[iv.method] = iv
        else:
            out[name] = query_bootstrap(x, estimand, _rng(seed, estimand, "query_bootstrap"))
    # Every method flagged alike: a bootstrap-t interval can leave [0, 1] as a t one can.
    return [m.in_range(x, out[k]) for k in order if k in out]


#: Fewer documents than this: intervals rest on very few degrees of freedom.
FEW_DOCUMENTS = 10
#: Fewer documents than this: no method is guaranteed nominal coverage.
SMALL_SAMPLE = 20


def clustering_warnings(stats: DocStats) -> list[str]:
    """Warnings about the clustering itself, for every design: no clustering at all (K = N),
    few documents (K < 10, else K < 20), and most documents holding a single query."""
    K, single = stats.K, int(np.sum(stats.n == 1))
    w = []
    if single == K:
        w.append(
            f"every document holds exactly one query (K = N = {K}): there is no clustering, so "
            "the clustered intervals are the iid ones; if the cluster column names the query "
            "itself (e.g. --cluster query_id), cluster by the document each query came from"
        )
    elif single > K / 2:
        w.append(
            f"{single} of {K} documents ({single / K:.0%}) hold a single query: their "
            "within-document spread is unobserved and the clustered SE leans on the few larger "
            "documents; generate more queries per document or check the cluster column"
        )
    if K < FEW_DOCUMENTS:
        w.append(
            f"only K = {K} documents: every interval rests on at most {K - 1} degrees of freedom "
            "and none is guaranteed nominal coverage (with 5 documents CR2 covered 86.6 % at "
            "95 %); sample more documents (20 or more) or check with a coverage simulation"
        )
    elif K < SMALL_SAMPLE:
        w.append(
            f"only K = {K} documents: no interval method is guaranteed nominal coverage (with 5 "
            "documents CR2 covered 86.6 % at 95 %); check with a coverage simulation"
        )
    return w


def _warnings(
    stats: DocStats, results: dict[str, EstimandResult], M: int | None, reps: int
) -> list[str]:
    w = []
    if reps < 999 and any(iv.replicates for est in results.values() for iv in est.intervals):
        w.append(
            f"only {reps} bootstrap replicates: percentile and bootstrap-t limits are noisy (use ≥ 999)"
        )
    for est in results.values():
        if not est.intervals:
            w.append(f"none of the requested methods applies to the {est.estimand} estimand")
    w += clustering_warnings(stats)
    if M is not None:
        w.append(f"finite-population correction 1 − K/M = {1 - stats.K / M:.4f} applied (M = {M})")
    for est in results.values():
        for iv in est.intervals:
            if iv.naive and iv.replicates and iv.replicates < reps:
                w.append(f"{est.estimand} {iv.method}: {iv.replicates} replicates (budget-capped)")
            if iv.naive:
                continue
            if not iv.available:
                w.append(f"{est.estimand} {iv.method}: unavailable — {iv.reason}")
            elif iv.discarded:
                w.append(
                    f"{est.estimand} {iv.method}: {iv.discarded} of {iv.replicates} replicates "
                    f"({iv.discarded / (iv.replicates or 1):.1%}) had zero SE and were discarded"
                )
    if any(iv.naive for est in results.values() for iv in est.intervals):
        w.append(
            "wald_iid and query_bootstrap treat queries as independent: shown for contrast only"
        )
    return w
