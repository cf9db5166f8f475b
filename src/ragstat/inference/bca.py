"""BCa (bias-corrected and accelerated) document bootstrap for the micro and macro mean.

Documents are resampled with replacement (`bootstrap.doc_bootstrap`, the same replicates
the percentile and bootstrap-t intervals use for one generator state). With replicate
estimates θ*_b, b = 1..B, and the leave-one-document-out estimates θ̂₋d (micro
(S − s_d)/(N − n_d), macro the mean of the other rates), as Efron & Tibshirani (1993,
§14.3, eq. 14.15) and ``scipy.stats.bootstrap(method="BCa")``:

    z₀ = Φ⁻¹( (#{θ* < θ̂} + #{θ* ≤ θ̂}) / (2B) )          (ties count half)
    U_d = (K − 1)(θ̄₋ − θ̂₋d),  a = Σ U_d³ / (6 (Σ U_d²)^{3/2})   (θ̄₋ the mean of θ̂₋d)
    α₁ = Φ(z₀ + (z₀ + z_{α/2}) / (1 − a (z₀ + z_{α/2}))),  α₂ likewise with z_{1−α/2}

and the limits are the α₁ and α₂ quantiles of the θ* (linear interpolation, numpy's
default). ((K − 1) cancels in a; it is kept to follow scipy's arithmetic.) A finite
population correction shrinks both limits toward θ̂ by √(1 − K/M), as the percentile
interval does. Unavailable when z₀ is infinite (every replicate on one side of θ̂) or a
is undefined (every leave-one-out estimate equal).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import ndtr, ndtri

from ragstat.inference.bootstrap import DocBootstrap, doc_bootstrap
from ragstat.inference.jackknife import leave_one_out
from ragstat.inference.methods import Sample, census_interval, in_range
from ragstat.inference.results import Interval

__all__ = ["BcaLimits", "bca_limits", "doc_bootstrap_bca", "jackknife_estimates"]

_NAME = "doc_bootstrap_bca"
_REF = "BCa"


@dataclass(frozen=True)
class BcaLimits:
    """The BCa limits and the quantities behind them."""

    lower: float
    upper: float
    z0: float
    a: float
    alpha_1: float
    alpha_2: float


def jackknife_estimates(n: np.ndarray, s: np.ndarray, estimand: str) -> np.ndarray:
    """θ̂₋d for every document: micro (S − s_d)/(N − n_d), macro the other rates' mean."""
    if estimand == "micro":
        return leave_one_out(n, s)
    return leave_one_out(np.ones_like(n), s / n)


def bca_limits(theta: float, replicates: np.ndarray, jack: np.ndarray, level: float) -> BcaLimits:
    """BCa limits from the replicate estimates and the jackknife estimates (module formulas)."""
    B = replicates.shape[0]
    share = (np.count_nonzero(replicates < theta) + np.count_nonzero(replicates <= theta)) / (2 * B)
    z0 = float(ndtri(share))
    K = float(jack.shape[0])
    U = (K - 1) * (jack.mean() - jack)
    with np.errstate(divide="ignore", invalid="ignore"):
        a = float((np.sum(U**3) / K**3) / 6 / (np.sum(U**2) / K**2) ** 1.5)
    z = float(ndtri((1 - level) / 2))
    num1, num2 = z0 + z, z0 - z
    alpha_1 = float(ndtr(z0 + num1 / (1 - a * num1)))
    alpha_2 = float(ndtr(z0 + num2 / (1 - a * num2)))
    if not (np.isfinite(alpha_1) and np.isfinite(alpha_2)):
        return BcaLimits(float("nan"), float("nan"), z0, a, alpha_1, alpha_2)
    lo, hi = np.quantile(replicates, [alpha_1, alpha_2])
    return BcaLimits(float(lo), float(hi), z0, a, alpha_1, alpha_2)


def doc_bootstrap_bca(
    x: Sample,
    estimand: str,
    rng: np.random.Generator,
    draws: DocBootstrap | None = None,
) -> Interval:
    """BCa document bootstrap ("doc_bootstrap_bca"); pass ``draws`` to reuse replicates."""
    theta = x.estimate(estimand)
    if x.census():
        return census_interval(_NAME, estimand, theta, x, _REF)
    if draws is None:
        draws = doc_bootstrap(x.n, x.s, estimand, x.reps, rng)
    reps = int(draws.theta.shape[0])
    got = bca_limits(theta, draws.theta, jackknife_estimates(x.n, x.s, estimand), x.level)
    if not (np.isfinite(got.lower) and np.isfinite(got.upper)):
        why = (
            "bias correction or acceleration undefined: every replicate lies on one side of the "
            "estimate, or every leave-one-document-out estimate is the same"
        )
        iv = Interval.unavailable(_NAME, estimand, theta, x.level, _REF, why)
        return Interval(**{**iv.__dict__, "replicates": reps, "discarded": 0})
    f = float(np.sqrt(x.fpc))
    iv = Interval(
        _NAME, estimand, theta, theta + f * (got.lower - theta), theta + f * (got.upper - theta),
        x.level, _REF, se=float(np.std(draws.theta, ddof=1)) * f,
        fpc=x.fpc if x.fpc < 1 else None, replicates=reps, discarded=0,
    )  # fmt: skip
    return in_range(x, iv)
