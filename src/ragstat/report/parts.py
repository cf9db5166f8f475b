"""Report parts computed from inference results and per-document statistics."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import replace
from typing import SupportsFloat

import numpy as np
import scipy.stats as sps

from ragstat.inference.diagnostics import chunk_distribution
from ragstat.inference.results import (
    NAIVE_METHODS,
    DesignInfo,
    Diagnostics,
    EstimandResult,
    Interval,
    IntervalReport,
)
from ragstat.records.docstats import DocStats
from ragstat.report.model import (
    UNRECORDED,
    Autocorrelation,
    DocSummary,
    EstimandBlock,
    RateHistogram,
    StratumRow,
    TwoStage,
    TypeRates,
)

__all__ = [
    "NAIVE_CONTRAST",
    "acf_by_lag",
    "blocks_from_dict",
    "blocks_from_report",
    "design_weights",
    "doc_summary",
    "extreme_shares",
    "finite",
    "histogram",
    "lag1_only",
    "naive_iid",
    "report_interval",
    "stratum_rows",
    "two_stage",
]

#: How a report marks the naive interval it computed itself (design-based analyses have none).
NAIVE_CONTRAST = "naive iid (queries as independent, unweighted) — contrast only"
#: Per-document rates are kept (for the strip of T1) up to this many documents.
STRIP_MAX = 2_000
BINS = 20


def finite(x: SupportsFloat | None) -> float | None:
    """A finite float, else None (NaN/inf/None never reach the JSON)."""
    if x is None:
        return None
    v = float(x)
    return v if math.isfinite(v) else None


def _count(x: int | None) -> int | None:
    return None if x is None else int(x)


def report_interval(iv: Interval) -> Interval:
    """``iv`` as a report keeps it: plain Python numbers, non-finite values as None and
    ``naive`` set for every naive method, so the report round-trips exactly through JSON."""
    return replace(
        iv,
        estimate=float(iv.estimate),
        lower=finite(iv.lower),
        upper=finite(iv.upper),
        level=float(iv.level),
        reference=str(iv.reference),
        se=finite(iv.se),
        df=finite(iv.df),
        naive=bool(iv.naive or iv.method in NAIVE_METHODS),
        available=bool(iv.available),
        fpc=finite(iv.fpc),
        replicates=_count(iv.replicates),
        discarded=_count(iv.discarded),
        outside_range=bool(iv.outside_range),
    )


def blocks_from_report(subject: str, report: IntervalReport) -> tuple[EstimandBlock, ...]:
    """One block per estimand of an `IntervalReport`."""
    bounds = None if report.bounds is None else tuple(map(float, report.bounds))
    return tuple(_block(subject, res, report.K, bounds) for res in report.estimands.values())


def _block(
    subject: str, res: EstimandResult, K: int, bounds: tuple[float, ...] | None
) -> EstimandBlock:
    return EstimandBlock(
        subject=subject,
        estimand=res.estimand,
        estimate=float(res.estimate),
        recommended=res.recommended,
        intervals=tuple(report_interval(iv) for iv in res.intervals),
        K=int(K),
        bounds=bounds,
        note=res.recommendation_note,
    )


def _interval_from_json(iv: Mapping, estimand: str) -> Interval:
    """An interval of ``Interval.to_dict()`` form (``reference`` may be missing)."""
    return report_interval(
        Interval(
            method=iv["method"],
            estimand=iv.get("estimand", estimand),
            estimate=float(iv["estimate"]),
            lower=iv.get("lower"),
            upper=iv.get("upper"),
            level=float(iv["level"]),
            reference=iv.get("reference") or UNRECORDED,
            se=iv.get("se"),
            df=iv.get("df"),
            naive=bool(iv.get("naive")),
            available=bool(iv.get("available", True)),
            reason=iv.get("reason"),
            fpc=iv.get("fpc"),
            replicates=iv.get("replicates"),
            discarded=iv.get("discarded"),
            outside_range=bool(iv.get("outside_range", False)),
        )
    )


def blocks_from_dict(subject: str, data: Mapping) -> tuple[EstimandBlock, ...]:
    """Blocks from the JSON form of an `IntervalReport` (a study's summary.json)."""
    out = []
    K, bounds = data.get("K"), data.get("bounds")
    for estimand, res in data["estimands"].items():
        rows = tuple(_interval_from_json(iv, estimand) for iv in res["intervals"])
        out.append(
            EstimandBlock(
                subject,
                estimand,
                float(res["estimate"]),
                res.get("recommended"),
                rows,
                K=None if K is None else int(K),
                bounds=None if bounds is None else tuple(map(float, bounds)),
                note=res.get("recommendation_note"),
            )
        )
    return tuple(out)


def doc_summary(
    subject: str,
    stats: DocStats,
    d: Diagnostics,
    *,
    scored: int | None = None,
    difference: bool = False,
) -> DocSummary:
    """Chunks per document and shares at 0 and 1 of ``stats``, with the diagnostics ``d``.

    ``scored``: queries actually scored when ``stats`` are expanded from a sample;
    ``difference``: ``stats`` hold paired differences y_A − y_B (the share at −1 is kept too).
    """
    n, r = stats.n, stats.r
    _, cv, _, top10 = chunk_distribution(n)
    return DocSummary(
        subject=subject,
        K=stats.K,
        N=round(stats.N),
        n_min=float(n.min()),
        n_median=float(np.median(n)),
        n_mean=float(n.mean()),
        n_max=float(n.max()),
        n_cv=cv,
        top10_share=top10,
        share0=float(np.mean(r == 0)),
        share1=float(np.mean(r == 1)),
        icc=finite(d.icc),
        deff=finite(d.deff),
        n_eff=finite(d.n_eff),
        lag1=finite(d.lag1_autocorrelation),
        binary=bool(stats.binary),
        scored=scored,
        share_neg1=float(np.mean(r == -1)) if difference else None,
    )


def extreme_shares(r: np.ndarray) -> tuple[float, float, float]:
    """Shares of documents whose (difference) rate is −1, 0 and +1."""
    r = np.asarray(r, dtype=np.float64)
    return float(np.mean(r == -1)), float(np.mean(r == 0)), float(np.mean(r == 1))


def design_weights(stats: DocStats, design: DesignInfo) -> np.ndarray | None:
    """Stratified design weights w_d = M_h / K_h (None for any other design)."""
    if design.name != "stratified" or stats.stratum is None or not design.groups:
        return None
    per = {
        g: m / k
        for g, k, m in zip(design.groups, design.sampled, design.population, strict=True)
        if k > 0
    }
    labels = stats.stratum.astype(str)
    if not all(h in per for h in np.unique(labels)):
        return None
    return np.array([per[h] for h in labels], dtype=np.float64)


def naive_iid(stats: DocStats, level: float) -> dict[str, Interval]:
    """The naive iid Wald interval (queries as independent, unweighted) for micro and macro.

    The same formulas as `wald_iid` under SRS (micro: sqrt(var(y)/N) with the per-query
    variance Σ(y − R)²/N; macro: sqrt(Σ w_d/n_d²)/K), for a design-based report that
    computes no naive interval of its own: a contrast, never an estimate of the design's
    target (it ignores the weights and the clustering).
    """
    from ragstat.inference.analyze import analyze

    res = analyze(stats, level=level, methods=("wald_iid",), seed=0)
    out = {}
    for est, r in res.estimands.items():
        row = report_interval(r.get("wald_iid"))
        why = NAIVE_CONTRAST if row.available else f"{NAIVE_CONTRAST}; {row.reason}"
        out[est] = replace(row, naive=True, reason=why)
    return out


def histogram(
    subject: str,
    stats: DocStats,
    span: tuple[float, float] | None = None,
    *,
    weights: np.ndarray | None = None,
) -> RateHistogram:
    """T1 data: a histogram of r_d over ``span`` (default [0, 1], else the data's range),
    plus the rates themselves when there are few documents (for a strip).

    With design ``weights`` (w_d = M_h / K_h) the micro and macro lines are the design's
    estimates: Σ w s / Σ w n and Σ w r / Σ w (= the stratified mean of rates)."""
    r = stats.r
    if span is None:
        inside = r.min() >= 0 and r.max() <= 1
        span = (0.0, 1.0) if inside else (float(r.min()), float(r.max()))
    lo, hi = span
    edges = np.linspace(lo, hi if hi > lo else lo + 1.0, BINS + 1)
    counts, _ = np.histogram(r, bins=edges)
    keep = stats.K <= STRIP_MAX
    if weights is None:
        micro, macro = float(stats.s.sum() / stats.N), float(r.mean())
    else:
        w = np.asarray(weights, dtype=np.float64)
        micro, macro = float(w @ stats.s / (w @ stats.n)), float(w @ r / w.sum())
    return RateHistogram(
        subject=subject,
        K=stats.K,
        N=round(stats.N),
        micro=micro,
        macro=macro,
        edges=tuple(float(e) for e in edges),
        counts=tuple(int(c) for c in counts),
        rates=tuple(float(x) for x in r) if keep else (),
        sizes=tuple(int(x) for x in stats.n) if keep else (),
        weighted=weights is not None,
    )


def _stratum_interval(rh: np.ndarray, level: float, bounded: bool):
    """(lower, upper) for the mean of one stratum's document rates; (None, None) when k < 2
    or, for a rate strictly inside (0, 1), when the rates do not vary."""
    from ragstat.inference import bounded as b

    k, mean = rh.size, float(rh.mean()) if rh.size else 0.0
    if k < 2:
        return None, None
    se = float(np.std(rh, ddof=1)) / math.sqrt(k)
    if not bounded:
        half = sps.t.ppf(0.5 + level / 2, k - 1) * se
        return mean - half, mean + half
    if mean <= 0 or mean >= 1:
        return b.clopper_pearson_at_bound(mean, k, k - 1, level)
    if se <= 1e-12:
        return None, None
    return b.korn_graubard_bounds(mean, se, k, k - 1, level)


def stratum_rows(subject: str, stats: DocStats, level: float) -> tuple[StratumRow, ...]:
    """T2: micro and macro per stratum, with an interval on the stratum's document rates:
    Korn–Graubard (never outside [0, 1]) for scores in [0, 1], else t with k − 1 df."""
    if stats.stratum is None:
        return ()
    labels, codes = np.unique(stats.stratum.astype(str), return_inverse=True)
    rows = []
    r = stats.r
    bounded = stats.scores_within(0.0, 1.0)
    for i, label in enumerate(labels):
        mask = codes == i
        rh = r[mask]
        lo, hi = _stratum_interval(rh, level, bounded)
        rows.append(
            StratumRow(
                subject=subject,
                stratum=str(label),
                K=int(mask.sum()),
                N=round(float(stats.n[mask].sum())),
                micro=float(stats.s[mask].sum() / stats.n[mask].sum()),
                macro=float(rh.mean()),
                macro_lower=lo,
                macro_upper=hi,
            )
        )
    return tuple(rows)


def two_stage(
    subject: str, stats: DocStats, target: float | None, interval: Interval | None = None
) -> TwoStage | None:
    """T4: every sampled type's mean document rate with the rates of its documents."""
    if stats.stratum is None:
        return None
    labels, codes = np.unique(stats.stratum.astype(str), return_inverse=True)
    r = stats.r
    types = tuple(
        TypeRates(str(label), float(r[codes == i].mean()), tuple(float(x) for x in r[codes == i]))
        for i, label in enumerate(labels)
    )
    return TwoStage(
        subject=subject,
        target=finite(target),
        types=types,
        micro=float(stats.s.sum() / stats.N),
        macro=float(r.mean()),
        interval=interval,
    )


def acf_by_lag(
    subject: str, doc_id: np.ndarray, position: np.ndarray, y: np.ndarray, max_lag: int = 5
) -> Autocorrelation:
    """ACF of within-document residuals e = y − r_d at lags 1..max_lag, pooled over documents.

    Queries are ordered by position inside each document; a lag-L pair is two
    queries L apart in that order within the same document. ρ(L) = (Σ e_i e_{i+L} / P_L)
    / (Σ e² / N), so ρ(1) equals the lag-1 diagnostic of `compute_diagnostics`.
    """
    _, codes = np.unique(np.asarray(doc_id).astype(str), return_inverse=True)
    y = np.asarray(y, dtype=np.float64)
    order = np.lexsort((np.asarray(position), codes))
    codes, y = codes[order], y[order]
    means = np.bincount(codes, weights=y) / np.bincount(codes)
    e = y - means[codes]
    var = float(np.mean(e * e))
    values, pairs = [], []
    for lag in range(1, max_lag + 1):
        same = codes[lag:] == codes[:-lag]
        p = int(same.sum())
        pairs.append(p)
        ok = p > 0 and var > 0
        values.append(float(np.sum(e[lag:][same] * e[:-lag][same]) / p / var) if ok else None)
    return Autocorrelation(
        subject=subject,
        lags=tuple(range(1, max_lag + 1)),
        values=tuple(values),
        pairs=tuple(pairs),
        source="per-query scores ordered by position within each document",
    )


def lag1_only(subject: str, summary: DocSummary, positions: bool) -> Autocorrelation | None:
    """T6 from the lag-1 diagnostic alone (when the per-query rows are not at hand).

    ``positions``: whether the DocStats carried lag sums (else there is nothing to show).
    """
    if not positions:
        return None
    return Autocorrelation(
        subject=subject,
        lags=(1,),
        values=(summary.lag1,),
        pairs=(),
        source="lag-1 diagnostic (per-query positions not kept in this report)",
    )
