"""Resampling intervals: document bootstrap (percentile, t) and the naive query bootstrap."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ragstat.inference.bootstrap import (
    BINOMIAL_BUDGET,
    DocBootstrap,
    binomial_pairs,
    doc_bootstrap,
    query_bootstrap_binary,
    query_bootstrap_values,
)
from ragstat.inference.methods import QUERY_RESAMPLE_BUDGET, Sample, census_interval
from ragstat.inference.results import Interval
from ragstat.inference.variance import se_cr1, se_t_rates

__all__ = [
    "MIN_NAIVE_REPS",
    "doc_bootstrap_intervals",
    "query_bootstrap",
    "query_resampling_affordable",
]

#: Fewest replicates the naive query bootstrap is drawn with.
MIN_NAIVE_REPS = 999


def _quantiles(values: np.ndarray, alpha: float) -> tuple[float, float]:
    lo, hi = np.quantile(values, [alpha / 2, 1 - alpha / 2])
    return float(lo), float(hi)


def _percentile(x: Sample, estimand: str, draws: DocBootstrap) -> Interval:
    theta = x.estimate(estimand)
    if np.ptp(draws.theta) <= x.tol():
        return Interval.unavailable(
            "doc_bootstrap_percentile",
            estimand,
            theta,
            x.level,
            "percentile",
            "every bootstrap replicate has the same estimate (no between-document variation)",
        )
    lo, hi = _quantiles(draws.theta, x.alpha)
    f = np.sqrt(x.fpc)  # shrink deviations from θ̂ by √(1 − K/M)
    return Interval(
        "doc_bootstrap_percentile",
        estimand,
        theta,
        theta + f * (lo - theta),
        theta + f * (hi - theta),
        x.level,
        "percentile",
        se=float(np.std(draws.theta, ddof=1)) * f,
        fpc=x.fpc if x.fpc < 1 else None,
        replicates=x.reps,
        discarded=0,
    )


def _bootstrap_t(x: Sample, estimand: str, draws: DocBootstrap) -> Interval:
    theta = x.estimate(estimand)
    se = se_t_rates(x.s / x.n) if estimand == "macro" else se_cr1(x.s - theta * x.n, x.N)
    ok = draws.se > x.tol()
    discarded = int(x.reps - ok.sum())
    if not ok.any() or se <= x.tol():
        iv = Interval.unavailable(
            "doc_bootstrap_t",
            estimand,
            theta,
            x.level,
            "bootstrap-t",
            f"all {x.reps} bootstrap replicates have zero standard error: interval unavailable",
        )
        return _with_counts(iv, x.reps, discarded)
    t = (draws.theta[ok] - theta) / draws.se[ok]
    if np.ptp(t) <= 1e-12 * max(1.0, float(np.max(np.abs(t)))):
        iv = Interval.unavailable(
            "doc_bootstrap_t",
            estimand,
            theta,
            x.level,
            "bootstrap-t",
            "every usable replicate gives the same pivot (e.g. K = 2): no bootstrap distribution",
        )
        return _with_counts(iv, x.reps, discarded)
    q_lo, q_hi = _quantiles(t, x.alpha)
    se = se * np.sqrt(x.fpc)
    return Interval(
        "doc_bootstrap_t",
        estimand,
        theta,
        theta - q_hi * se,
        theta - q_lo * se,
        x.level,
        "bootstrap-t",
        se=float(se),
        fpc=x.fpc if x.fpc < 1 else None,
        replicates=x.reps,
        discarded=discarded,
    )


def _with_counts(iv: Interval, reps: int, discarded: int) -> Interval:
    return replace(iv, replicates=reps, discarded=discarded)


def doc_bootstrap_intervals(
    x: Sample, estimand: str, rng: np.random.Generator, methods: set[str]
) -> list[Interval]:
    """Percentile and/or bootstrap-t from one set of document resamples."""
    if x.census():
        return [
            census_interval(m, estimand, x.estimate(estimand), x, "percentile")
            for m in ("doc_bootstrap_t", "doc_bootstrap_percentile")
            if m in methods
        ]
    draws = doc_bootstrap(x.n, x.s, estimand, x.reps, rng)
    out = []
    if "doc_bootstrap_percentile" in methods:
        out.append(_percentile(x, estimand, draws))
    if "doc_bootstrap_t" in methods:
        out.append(_bootstrap_t(x, estimand, draws))
    return out


def _affordable_reps(x: Sample, estimand: str) -> tuple[int, str | None]:
    """Replicates the naive query bootstrap can afford (it is shown for contrast only)."""
    if x.binary:
        cost = 1 if estimand == "micro" else max(binomial_pairs(x.n, x.s), 1)
        budget = BINOMIAL_BUDGET
    else:
        cost, budget = int(x.N), QUERY_RESAMPLE_BUDGET
    reps = min(x.reps, budget // cost)
    if reps < min(x.reps, MIN_NAIVE_REPS):
        return 0, (
            f"resampling {int(x.N)} queries {MIN_NAIVE_REPS} times exceeds the budget; "
            "this naive method is shown for contrast only (see wald_iid)"
        )
    if not x.binary and x.query_scores is None:
        return 0, "non-binary scores need the per-query values (not available from document sums)"
    return reps, None


def query_resampling_affordable(N: float, binary: bool) -> bool:
    """Whether the naive query bootstrap of non-binary scores fits the budget (CLI loads rows)."""
    return binary or N * MIN_NAIVE_REPS <= QUERY_RESAMPLE_BUDGET


def query_bootstrap(x: Sample, estimand: str, rng: np.random.Generator) -> Interval:
    """Naive percentile bootstrap over queries (micro: all queries; macro: within documents).

    Its cost grows with replicates × queries, so the replicate count is capped by a
    budget (never below 999); the count actually drawn is reported.
    """
    theta = x.estimate(estimand)
    reps, why = _affordable_reps(x, estimand)
    if why is not None:
        return Interval.unavailable("query_bootstrap", estimand, theta, x.level, "percentile", why)
    if x.binary:
        draws = query_bootstrap_binary(x.n, x.s, estimand, reps, rng)
    else:
        qs = x.query_scores
        if qs is None:  # _affordable_reps says why when the rows are missing
            return Interval.unavailable(
                "query_bootstrap", estimand, theta, x.level, "percentile", "no per-query rows"
            )
        draws = query_bootstrap_values(qs.doc_index, qs.y, x.n, estimand, reps, rng)
    if np.ptp(draws) <= x.tol():
        return Interval.unavailable(
            "query_bootstrap",
            estimand,
            theta,
            x.level,
            "percentile",
            "every replicate has the same estimate",
        )
    lo, hi = _quantiles(draws, x.alpha)
    return Interval(
        "query_bootstrap",
        estimand,
        theta,
        lo,
        hi,
        x.level,
        "percentile",
        se=float(np.std(draws, ddof=1)),
        naive=True,
        replicates=reps,
        discarded=0,
    )
