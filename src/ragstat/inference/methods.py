"""One function per interval method (names as in DESIGN.md), each returning `Interval`.

A `Sample` carries the per-document sums and the settings shared by all
methods; the formulas live in `variance`, `bootstrap` and `diagnostics`.

Known bounds: for scores known to lie in [lo, hi] (``Sample.bounds``; [0, 1] for a rate,
[a_lo − b_hi, a_hi − b_lo] for a paired difference), the range-respecting methods
(`logit`, `korn_graubard`, `logit_cr2_bm`) work on θ' = (θ − lo)/(hi − lo) with
se' = se/(hi − lo) — the same intervals as on the rescaled scores (y − lo)/(hi − lo) —
and map their limits back, lo + (hi − lo)·b. For [0, 1] the rescaling is the identity to
the last digit. Every interval is flagged (never clipped) when it leaves [lo, hi].
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats as sps

from ragstat.inference import bounded
from ragstat.inference.estimators import macro_mean, micro_mean
from ragstat.inference.results import Interval
from ragstat.inference.variance import (
    df_bell_mccaffrey,
    df_imbens_kolesar,
    residual_sum_of_squares,
    se_cr1,
    se_cr2,
    se_t_rates,
)
from ragstat.records.docstats import QueryScores

__all__ = ["QUERY_RESAMPLE_BUDGET", "Sample", "census_interval"]

#: Largest reps × N for resampling non-binary per-query scores (naive method only).
QUERY_RESAMPLE_BUDGET = 500_000_000
_CENSUS = "census: every population document was observed (K = M), no sampling error"
_NOT_UNIT = (
    "scores are not known to lie in a bounded range (e.g. [0, 1]), which a "
    "range-respecting interval needs"
)
_ZERO_SE = "zero standard error: every document has the same rate, so this sample carries no between-document variation"


@dataclass(frozen=True, eq=False)
class Sample:
    n: np.ndarray
    s: np.ndarray
    q: np.ndarray
    binary: bool
    level: float
    fpc: float
    reps: int
    w: np.ndarray  # within-document sums of squares, Σ (y − r_d)²
    deff: float | None = None
    query_scores: QueryScores | None = None
    #: The range every score is known to lie in; None when nothing is known.
    bounds: tuple[float, float] | None = (0.0, 1.0)

    @property
    def scores_in_unit(self) -> bool:
        """Whether the scores have known bounds (the range-respecting methods need them)."""
        return self.bounds is not None

    @property
    def span(self) -> float:
        """hi − lo of the known range (1 for [0, 1] or unknown)."""
        return 1.0 if self.bounds is None else self.bounds[1] - self.bounds[0]

    def to_unit(self, value: float) -> float:
        """θ' = (θ − lo)/(hi − lo): ``value`` on the unit scale of the known range."""
        return value if self.bounds is None else (value - self.bounds[0]) / self.span

    def from_unit(self, value: float) -> float:
        """lo + (hi − lo)·b: a unit-scale limit back on the scores' scale."""
        return value if self.bounds is None else self.bounds[0] + self.span * value

    @property
    def K(self) -> int:
        return int(self.n.shape[0])

    @property
    def N(self) -> float:
        return float(self.n.sum())

    @property
    def alpha(self) -> float:
        return 1.0 - self.level

    def estimate(self, estimand: str) -> float:
        return micro_mean(self.n, self.s) if estimand == "micro" else macro_mean(self.n, self.s)

    def tol(self) -> float:
        """Scale-free zero for standard errors: relative to the largest |rate|, and never
        below floating-point rounding on the scores' known range (1e-14 of its width: a
        paired difference of equal runs has rates of 1e-17 from rounding alone — zero, not
        a tiny signal — while scores in units of 1e-11 keep their variance)."""
        scale = float(np.max(np.abs(self.s / self.n)))
        return max(1e-12 * scale, 0.0 if self.bounds is None else 1e-14 * self.span)

    def query_variance(self) -> float:
        """Σ_i (y_i − R)² / N, the per-query (population) variance."""
        return residual_sum_of_squares(self.n, self.s, self.w) / self.N

    def census(self) -> bool:
        return self.fpc == 0.0


def census_interval(method: str, estimand: str, theta: float, x: Sample, ref: str) -> Interval:
    """K = M: the estimate is the population value, with no sampling error."""
    return Interval(
        method, estimand, theta, theta, theta, x.level, ref, se=0.0, fpc=0.0, reason=_CENSUS
    )


def in_range(x: Sample, iv: Interval) -> Interval:
    """Flag (never clip) an interval that leaves the range the scores are known to lie in."""
    return iv if x.bounds is None else iv.flag_range(*x.bounds)


def _t_interval(method, estimand, theta, se, df, x: Sample, *, fpc=True) -> Interval:
    if fpc and x.census():
        return census_interval(method, estimand, theta, x, "t")
    if se <= x.tol():
        return Interval.unavailable(method, estimand, theta, x.level, "t", _ZERO_SE)
    if not np.isfinite(df) or df <= 0:
        return Interval.unavailable(
            method, estimand, theta, x.level, "t", "degrees of freedom undefined"
        )
    f = x.fpc if fpc else 1.0
    se = se * np.sqrt(f)
    half = sps.t.ppf(1 - x.alpha / 2, df) * se
    return in_range(
        x,
        Interval(
            method,
            estimand,
            theta,
            theta - half,
            theta + half,
            x.level,
            "t",
            se=se,
            df=float(df),
            fpc=f if fpc and f < 1 else None,
        ),
    )


def _normal(method, estimand, theta, se, x: Sample, naive: bool) -> Interval:
    if se <= x.tol():
        return Interval.unavailable(method, estimand, theta, x.level, "normal", _ZERO_SE)
    half = sps.norm.ppf(1 - x.alpha / 2) * se
    return in_range(
        x,
        Interval(
            method,
            estimand,
            theta,
            theta - half,
            theta + half,
            x.level,
            "normal",
            se=float(se),
            naive=naive,
        ),
    )


def _residuals(x: Sample) -> np.ndarray:
    """u_d = s_d − R n_d."""
    return x.s - micro_mean(x.n, x.s) * x.n


def cr1(x: Sample, estimand: str = "micro") -> Interval:
    """CR1, t with K − 1 df."""
    u = _residuals(x)
    return _t_interval("cr1", estimand, x.estimate(estimand), se_cr1(u, x.N), x.K - 1, x)


def cr2_bm(x: Sample, estimand: str = "micro") -> Interval:
    """CR2, t with Bell–McCaffrey df (independence working model)."""
    u = _residuals(x)
    return _t_interval(
        "cr2_bm", estimand, x.estimate(estimand), se_cr2(u, x.n), df_bell_mccaffrey(x.n), x
    )


def cr2_ik(x: Sample, estimand: str = "micro") -> Interval:
    """CR2, t with Imbens–Kolesár df (Moulton working model, estimated ρ)."""
    u = _residuals(x)
    return _t_interval(
        "cr2_ik",
        estimand,
        x.estimate(estimand),
        se_cr2(u, x.n),
        df_imbens_kolesar(x.n, x.s, x.q, x.w),
        x,
    )


def t_rates(x: Sample, estimand: str = "macro") -> Interval:
    """Macro: t on the document rates, sd(r)/√K with K − 1 df."""
    return _t_interval("t_rates", estimand, x.estimate(estimand), se_t_rates(x.s / x.n), x.K - 1, x)


def wald_iid(x: Sample, estimand: str) -> Interval:
    """Naive: queries as independent. micro: sqrt(var(y)/N); macro: sqrt(Σ var_d/n_d)/K."""
    theta = x.estimate(estimand)
    if estimand == "micro":
        se = np.sqrt(x.query_variance() / x.N)  # binary: R(1 − R)/N
    else:
        se = np.sqrt(np.sum(x.w / x.n**2)) / x.K  # within-document variance w_d/n_d over n_d
    return _normal("wald_iid", estimand, theta, se, x, naive=True)


def wald_effective_n(x: Sample, estimand: str = "micro") -> Interval:
    """Diagnostic: sqrt(var(y) / (N/DEFF)), normal."""
    theta = x.estimate(estimand)
    if x.deff is None or x.deff <= 0:
        return Interval.unavailable(
            "wald_effective_n",
            estimand,
            theta,
            x.level,
            "normal",
            "design effect undefined (needs N > K and a defined ICC)",
        )
    se = np.sqrt(x.query_variance() * x.deff / x.N)
    return _normal("wald_effective_n", estimand, theta, se, x, naive=False)


def _unit_interval_prelude(method: str, estimand: str, x: Sample, ref: str) -> Interval | None:
    """The cases shared by the bounded intervals: scores without known bounds and a census."""
    theta = x.estimate(estimand)
    if not x.scores_in_unit:
        return Interval.unavailable(method, estimand, theta, x.level, ref, _NOT_UNIT)
    if x.census():
        return census_interval(method, estimand, theta, x, ref)
    return None


def _at_bound_reason(theta: float, x: Sample) -> str:
    lo, hi = x.bounds or (0.0, 1.0)
    return (
        f"estimate is exactly {theta:g}: logit undefined at {lo:g} and {hi:g} "
        "(korn_graubard gives its explicit interval; see the shares of documents at rate 0 and 1)"
    )


def _at_bound(x: Sample, theta: float) -> bool:
    """θ' ≤ 0 or θ' ≥ 1 for scores with known bounds."""
    unit = x.to_unit(theta)
    return x.scores_in_unit and (unit <= 0 or unit >= 1)


def _design_se(x: Sample, estimand: str) -> tuple[float, float, float]:
    """(se, ν, n) as survey's svymean on the design, FPC included.

    micro: ``svydesign(ids = ~doc_id)`` ultimate-cluster linearisation = CR1 with
    K/(K − 1); macro: ``svydesign(ids = ~1)`` on the rates = sd(r_d)/√K. ν = K − 1
    and n = nrow(design): N queries (micro) or K documents (macro).
    """
    if estimand == "micro":
        se, n = se_cr1(_residuals(x), x.N), x.N
    else:
        se, n = se_t_rates(x.s / x.n), float(x.K)
    return se * float(np.sqrt(x.fpc)), float(x.K - 1), n


def _bounded(method: str, estimand: str, x: Sample) -> Interval | tuple[float, float, float]:
    """Prelude of `logit` and `korn_graubard`: an early Interval, or (se, ν, n)."""
    ref = "t" if method == "logit" else "beta"
    early = _unit_interval_prelude(method, estimand, x, ref)
    if early is not None:
        return early
    theta = x.estimate(estimand)
    se, df, n = _design_se(x, estimand)
    if not _at_bound(x, theta) and se <= x.tol():
        return Interval.unavailable(method, estimand, theta, x.level, ref, _ZERO_SE)
    return se, df, n


def logit(x: Sample, estimand: str) -> Interval:
    """R survey's ``svyciprop(~y, design, method = "logit", df = degf(design))``.

    expit(logit θ̂ ± t_{1−α/2}(K − 1) · se/(θ̂(1 − θ̂))) with se the design SE of
    `_design_se` (micro CR1 with documents as clusters, macro sd(r_d)/√K, FPC
    included); formula and source in `bounded`. ``se`` is reported on the mean's
    scale. At θ̂ = 0 or 1 the logit is undefined: unavailable with that reason
    (`korn_graubard` has an explicit rule there). Unavailable too when the scores
    have no known bounds. Scores known in [lo, hi]: on θ' and se' (module doc).
    """
    theta = x.estimate(estimand)
    if _at_bound(x, theta):  # before the census check
        return Interval.unavailable(
            "logit", estimand, theta, x.level, "t", _at_bound_reason(theta, x)
        )
    got = _bounded("logit", estimand, x)
    if isinstance(got, Interval):
        return got
    se, df, _ = got
    lo, hi = bounded.logit_bounds(x.to_unit(theta), se / x.span, df, x.level)
    f = x.fpc if x.fpc < 1 else None
    return in_range(
        x,
        Interval(
            "logit", estimand, theta, x.from_unit(lo), x.from_unit(hi), x.level, "t",
            se=se, df=df, fpc=f,
        ),
    )  # fmt: skip


def korn_graubard(x: Sample, estimand: str) -> Interval:
    """R survey's ``svyciprop(~y, design, method = "beta")`` (Korn & Graubard 1998).

    Clopper–Pearson on n_eff = θ̂(1 − θ̂)/se² · (t_{α/2}(n − 1)/t_{α/2}(K − 1))²,
    se and n as in `_design_se`; formula and source in `bounded`. At θ̂ = 0 or 1
    (where survey gives NaN) ragstat takes the design effect as 1: n_eff = n times
    the same df factor (n = N queries for micro, K documents for macro), so
    θ̂ = 0 gives [0, 1 − (α/2)^(1/n_eff)] — see `bounded.clopper_pearson_at_bound`;
    the interval says so in ``reason``. Scores known in [lo, hi]: on θ' and se'.
    """
    got = _bounded("korn_graubard", estimand, x)
    if isinstance(got, Interval):
        return got
    se, df, n = got
    theta = x.estimate(estimand)
    unit = x.to_unit(theta)
    f = x.fpc if x.fpc < 1 else None
    if unit <= 0 or unit >= 1:
        lo, hi = bounded.clopper_pearson_at_bound(unit, n, df, x.level)
        n_eff = n * bounded.df_factor(n, df, x.level) if n > 1 else float(n)  # as that rule
        why = (
            f"estimate is exactly {theta:g}: Clopper–Pearson with design effect 1 "
            f"(n = {n:g} observations, n_eff = {n_eff:.4g} after the t-df factor)"
        )
        iv = Interval(
            "korn_graubard", estimand, theta, x.from_unit(lo), x.from_unit(hi), x.level, "beta",
            se=0.0, df=df, reason=why,
        )  # fmt: skip
        return in_range(x, iv)
    lo, hi = bounded.korn_graubard_bounds(unit, se / x.span, n, df, x.level)
    iv = Interval(
        "korn_graubard", estimand, theta, x.from_unit(lo), x.from_unit(hi), x.level, "beta",
        se=se, df=df, fpc=f,
    )  # fmt: skip
    return in_range(x, iv)


def logit_cr2_bm(x: Sample, estimand: str) -> Interval:
    """Delta method on the logit scale around the recommended SE (micro CR2-BM, macro t).

    expit(logit θ̂ ± t_{1−α/2}(ν) · se/(θ̂(1 − θ̂))) with se, ν those of `cr2_bm`
    (micro) or `t_rates` (macro, where it equals `logit`). This was ragstat's
    ``logit`` before that name came to mean survey's svyciprop; ``se`` is on
    the logit scale. Unavailable at θ̂ = 0 or 1. Scores known in [lo, hi]: on θ' and se'.
    """
    name = "logit_cr2_bm"
    theta = x.estimate(estimand)
    if _at_bound(x, theta):  # before the census check, as `logit`
        return Interval.unavailable(name, estimand, theta, x.level, "t", _at_bound_reason(theta, x))
    early = _unit_interval_prelude(name, estimand, x, "t")
    if early is not None:
        return early
    base = cr2_bm(x, estimand) if estimand == "micro" else t_rates(x, estimand)
    if not base.available or base.se is None or base.df is None:
        return Interval.unavailable(name, estimand, theta, x.level, "t", base.reason or "")
    unit, se = x.to_unit(theta), base.se / x.span
    lo, hi = bounded.logit_bounds(unit, se, base.df, x.level)
    se_l = se / (unit * (1 - unit))
    iv = Interval(
        name, estimand, theta, x.from_unit(lo), x.from_unit(hi), x.level, "t",
        se=float(se_l), df=base.df, fpc=base.fpc,
    )  # fmt: skip
    return in_range(x, iv)
