"""Intervals on the expanded totals of a within-document sample (sampled queries).

Sampled queries (weight w_d = n_d / m_d, see :mod:`ragstat.records.weighted`) are
analysed on per-document totals expanded to n_d (``DocStats.m`` holds the m_d
scored). Valid there:

- ``cr1`` with t(K − 1): R ``survey``'s ``svymean(~y, svydesign(ids = ~doc_id,
  weights = ~weight))`` (same SE; ``confint(..., df = degf(d))``);
- ``cr2_bm``: CR2 of the weighted fit ``lm(y ~ 1, weights = w)`` clustered by document
  with the Bell–McCaffrey (Satterthwaite) df, as clubSandwich's ``vcovCR(type = "CR2")``
  and ``coef_test(test = "Satterthwaite")`` (working model Φ = I, the weights not taken
  as inverse variances) — :func:`cr2_weighted`, which reduces to the unweighted CR2-BM
  when m_d = n_d;
- ``t_rates`` (macro: the document means of the scored queries) and the document
  bootstraps (``doc_bootstrap_t``, ``doc_bootstrap_percentile``).

Not valid, reported unavailable with the reason: ``cr2_ik`` (Imbens–Kolesár's df is not
derived under weights) and ``logit_cr2_bm``; the naive query-level methods
(``wald_iid``, ``query_bootstrap``, ``logit``, ``korn_graubard``) and
``wald_effective_n``, which treat the Σ n_d expanded queries as scored.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

import numpy as np
import scipy.stats as sps

from ragstat.errors import InputError
from ragstat.inference.analyze import APPLICABLE, analyze
from ragstat.inference.headline import MIN_HEADLINE_DOCUMENTS, no_headline_reason
from ragstat.inference.results import EstimandResult, Interval, IntervalReport
from ragstat.records.docstats import DocStats

__all__ = [
    "WEIGHTED_DEFAULT",
    "WEIGHTED_METHODS",
    "WEIGHTED_NOTE",
    "WEIGHTED_RECOMMENDED",
    "WEIGHTED_SUMMARY_METHODS",
    "analyze_weighted",
    "cr2_weighted",
    "restrict",
    "se_df_cr2_weighted",
    "split_methods",
    "why_not",
]

#: Methods that are valid on the expanded totals of a within-document sample.
WEIGHTED_METHODS = ("cr2_bm", "cr1", "t_rates", "doc_bootstrap_t", "doc_bootstrap_percentile")
#: What a sampled study's summary computes (a subset of WEIGHTED_METHODS).
WEIGHTED_SUMMARY_METHODS = ("cr2_bm", "cr1", "t_rates", "doc_bootstrap_t")
#: Asked for by default: the summary's methods and, unavailable with the reason, CR2-IK.
WEIGHTED_DEFAULT = (*WEIGHTED_SUMMARY_METHODS, "cr2_ik")
#: The recommended interval per estimand under weights.
WEIGHTED_RECOMMENDED = {"micro": "cr2_bm", "macro": "t_rates"}

WEIGHTED_NOTE = (
    "sampled queries (weight = n_d/m_d): micro is the weighted mean Σ w y / Σ w with the "
    "document (ultimate-cluster) variance, macro the mean of the document means; N counts "
    "the expanded queries Σ n_d, not the scored ones"
)
_NAIVE = (
    "sampled queries (weight column): treats the Σ n_d expanded queries as scored; "
    "use the document-clustered cr2_bm / cr1 or the document bootstrap"
)


def why_not(method: str) -> str | None:
    """Why ``method`` is not reported on weighted records, or None if it is valid."""
    if method in WEIGHTED_METHODS:
        return None
    if method == "cr2_ik":
        return (
            "sampled queries (weight column): the Imbens–Kolesár df is not derived under "
            "weights; cr2_bm gives the weighted Bell–McCaffrey df"
        )
    if method == "logit_cr2_bm":
        return "sampled queries (weight column): not derived under weights; use cr2_bm"
    return _NAIVE


def split_methods(wanted: Iterable[str] | None) -> tuple[list[str], list[str]]:
    """(valid, invalid) among ``wanted``; None means `WEIGHTED_DEFAULT`."""
    wanted = list(WEIGHTED_DEFAULT if wanted is None else wanted)
    return [m for m in wanted if why_not(m) is None], [m for m in wanted if why_not(m)]


def se_df_cr2_weighted(n: np.ndarray, m: np.ndarray, u: np.ndarray) -> tuple[float, float]:
    """CR2 SE and Bell–McCaffrey df of the weighted mean, clustered by document.

    With n_d expanded and m_d scored queries (w_d = n_d/m_d), N = Σ n_d,
    S₂ = Σ n_d²/m_d and u_d = s_d − R̂ n_d (the expanded residual totals):

        λ_d = 1 − 2 n_d/N + m_d S₂/N²,   SE² = Σ u_d²/λ_d / N²
        a_d = n_d/√λ_d,   G_de = a_d a_e (δ_de/m_d − (w_d + w_e)/N + S₂/N²)
        ν = (tr G)² / Σ_de G_de²          (evaluated in O(K))

    (Pustejovsky & Tipton 2018, working model Φ = I; equal to clubSandwich to 1e-14 on
    tests/reference/r_weighted.json). With m_d = n_d: λ_d = 1 − n_d/N, the usual CR2-BM.
    """
    N = float(n.sum())
    w = n / m
    S2 = float(np.sum(n * n / m))
    lam = 1.0 - 2.0 * n / N + m * S2 / N**2
    se = float(np.sqrt(np.sum(u * u / lam)) / N)
    a2 = n * n / lam
    alpha, beta = S2 / N**2, -w / N
    diag = 1.0 / m + alpha + 2.0 * beta
    P0, P1, P2 = a2.sum(), np.sum(a2 * beta), np.sum(a2 * beta * beta)
    full = alpha**2 * P0**2 + 2 * P0 * P2 + 4 * alpha * P0 * P1 + 2 * P1**2
    full += np.sum(a2 * a2 * (diag**2 - (alpha + 2.0 * beta) ** 2))
    return se, float(np.sum(a2 * diag) ** 2 / full)


def cr2_weighted(stats: DocStats, level: float, fpc: float = 1.0) -> Interval:
    """The micro ``cr2_bm`` interval of expanded totals (``stats.m`` set), t(ν)."""
    if stats.m is None:
        raise InputError("cr2_weighted needs expanded totals (DocStats.m, the queries scored)")
    theta = float(stats.s.sum() / stats.n.sum())
    se, df = se_df_cr2_weighted(stats.n, stats.m, stats.s - theta * stats.n)
    se *= np.sqrt(fpc)
    if se <= 1e-12 * max(abs(theta), 1.0) or not np.isfinite(df):
        reason = "the standard error is zero" if np.isfinite(df) else "df undefined"
        return Interval.unavailable("cr2_bm", "micro", theta, level, "t", reason)
    half = float(sps.t.ppf(0.5 + level / 2, df)) * se
    iv = Interval(
        "cr2_bm", "micro", theta, theta - half, theta + half, level, "t", se=se, df=df,
        fpc=fpc if fpc < 1 else None,
    )  # fmt: skip
    bounds = stats.known_bounds()
    return iv if bounds is None else iv.flag_range(*bounds)


def restrict(
    report: IntervalReport, wanted: Iterable[str] | None, stats: DocStats
) -> IntervalReport:
    """``report`` (computed on expanded totals) with only the valid intervals among ``wanted``
    (``cr2_bm`` replaced by :func:`cr2_weighted`), the invalid ones as unavailable with the
    reason, and the weighted recommendations."""
    valid, invalid = split_methods(wanted)
    fpc = 1.0 if report.population is None else 1.0 - report.K / report.population
    results = {}
    for est, res in report.estimands.items():
        kept = [iv for iv in res.intervals if iv.method in valid and iv.method != "cr2_bm"]
        if est == "micro" and "cr2_bm" in valid:
            kept.insert(0, cr2_weighted(stats, report.level, fpc))
        gone = [
            Interval.unavailable(m, est, res.estimate, report.level, "—", why_not(m) or "")
            for m in APPLICABLE[est]
            if m in invalid
        ]
        rec, note = _weighted_choice(est, kept, report.K, report.bounds)
        results[est] = EstimandResult(est, res.estimate, (*kept, *gone), rec, note)
    warnings = [w for w in report.warnings if not w.startswith("wald_iid and query_bootstrap")]
    if invalid:
        warnings.append(f"not reported under weights: {', '.join(invalid)} (see their reasons)")
    return replace(report, estimands=results, warnings=(WEIGHTED_NOTE, *warnings))


def _weighted_choice(
    estimand: str, kept: list[Interval], K: int, bounds: tuple[float, float] | None
) -> tuple[str | None, str | None]:
    """The weighted recommendation (cr2_bm micro, t_rates macro) unless K ≤ 3; when its
    interval leaves the known range, the percentile bootstrap (which cannot leave it) if
    it was computed, else none, with the reason."""
    if K < MIN_HEADLINE_DOCUMENTS:
        return None, no_headline_reason(K)
    rec = WEIGHTED_RECOMMENDED.get(estimand)
    usable = {iv.method: iv for iv in kept if iv.available and not iv.naive}
    if rec not in usable:
        return None, None
    if not usable[rec].outside_range:
        return rec, None
    where = "its known range" if bounds is None else f"[{bounds[0]:g}, {bounds[1]:g}]"
    pct = usable.get("doc_bootstrap_percentile")
    if pct is not None and not pct.outside_range:
        return pct.method, f"{rec}'s interval leaves {where}, so the percentile bootstrap"
    return None, (
        f"{rec}'s interval leaves {where} and no range-respecting interval was computed "
        "(ask for doc_bootstrap_percentile)"
    )


def analyze_weighted(stats: DocStats, **options) -> IntervalReport:
    """`analyze` of expanded totals (``stats.m`` set) restricted to the methods valid under
    weights; ``options`` as `analyze` (the naive query rows are not used)."""
    wanted = options.pop("methods", None)
    options.pop("query_scores", None)  # the naive query bootstrap is not run
    valid, _ = split_methods(wanted)
    report = analyze(stats, methods=valid or WEIGHTED_SUMMARY_METHODS, **options)
    return restrict(report, wanted, stats)
