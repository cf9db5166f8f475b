"""One function per interval method (names as in DESIGN.md), each returning `Interval`.

A `Sample` carries the per-document sums and the settings shared by all
methods; the formulas live in `variance`, `bootstrap` and `diagnostics`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import special
from scipy import stats as sps

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
    w: np.ndarray = None  # within-document sums of squares, Σ (y − r_d)²
    deff: float | None = None
    query_scores: QueryScores | None = None
    scores_in_unit: bool = True

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
        """Scale-free zero for standard errors: relative to the largest |rate| (0 if all 0)."""
        return 1e-12 * float(np.max(np.abs(self.s / self.n)))

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
    return Interval(
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
    )


def _normal(method, estimand, theta, se, x: Sample, naive: bool) -> Interval:
    if se <= x.tol():
        return Interval.unavailable(method, estimand, theta, x.level, "normal", _ZERO_SE)
    half = sps.norm.ppf(1 - x.alpha / 2) * se
    return Interval(
        method,
        estimand,
        theta,
        theta - half,
        theta + half,
        x.level,
        "normal",
        se=float(se),
        naive=naive,
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


def logit(x: Sample, estimand: str) -> Interval:
    """Delta method on the logit scale around the recommended SE (micro CR2-BM, macro t)."""
    theta = x.estimate(estimand)
    base = cr2_bm(x, estimand) if estimand == "micro" else t_rates(x, estimand)
    if not x.scores_in_unit:
        return Interval.unavailable(
            "logit",
            estimand,
            theta,
            x.level,
            "t",
            "scores are not known to lie in [0, 1]: the logit scale is undefined",
        )
    if theta <= 0 or theta >= 1:
        return Interval.unavailable(
            "logit",
            estimand,
            theta,
            x.level,
            "t",
            f"estimate is exactly {theta:g}: logit undefined at 0 and 1 "
            "(see the shares of documents at rate 0 and 1)",
        )
    if x.census():
        return census_interval("logit", estimand, theta, x, "t")
    if not base.available:
        return Interval.unavailable("logit", estimand, theta, x.level, "t", base.reason or "")
    se_l = base.se / (theta * (1 - theta))
    half = sps.t.ppf(1 - x.alpha / 2, base.df) * se_l
    ell = np.log(theta / (1 - theta))
    lo, hi = special.expit(ell - half), special.expit(ell + half)
    return Interval(
        "logit",
        estimand,
        theta,
        float(lo),
        float(hi),
        x.level,
        "t",
        se=float(se_l),
        df=base.df,
        fpc=base.fpc,
    )
