"""The unadjusted p-value of a gate's own test, read off the interval that decided it.

A gate with threshold θ₀ tests one side (``at_least``: H₀ θ < θ₀ against θ ≥ θ₀;
``at_most`` the mirror; ``not_worse_than_baseline``: θ₀ = −margin, lower side;
``better_than_baseline``: θ₀ = ``min_delta``, lower side; ``equivalent``: two one-sided
tests at ∓margin, p = the larger of the two, Schuirmann 1987). Its p-value comes from the
same interval method, inverted on the side that faces θ₀:

    q  = t_{ν, (1 + L)/2}   (the normal quantile when the method has no df ν)
    se = |g(b) − g(θ̂)| / q   b: the interval's bound on θ₀'s side, L its two-sided level
    z  = (g(θ̂) − g(θ₀)) / se  (lower side; the sign flipped for the upper side)
    p  = 1 − F_ν(z)

with g = logit for the logit methods (``logit``, ``logit_cr2_bm``, whose intervals are
symmetric on that scale) and the identity otherwise. For t methods (CR2, CR1, t on rates)
this is exactly the one-sided t test of θ₀; for the others it is the tail area of the
normal/t curve that reproduces their bound. Either way p < (1 − L)/2 exactly when the
bound clears θ₀, so the p-value and the gate's decision at level L agree. It is
unadjusted: the family correction is applied to the levels, not to this number.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from ragstat.decisions.spec import GateSpec

if TYPE_CHECKING:
    from ragstat.inference.results import Interval

__all__ = ["gate_p_value", "one_sided_p"]

_LOGIT = frozenset({"logit", "logit_cr2_bm"})


def _g(method: str, x: float) -> float | None:
    if method not in _LOGIT:
        return x
    if not 0.0 < x < 1.0:
        return None
    return math.log(x / (1.0 - x))


def _cdf(z: float, df: float | None) -> float:
    from scipy.stats import norm, t

    if df is None or not math.isfinite(df):
        return float(norm.cdf(z))
    return float(t.cdf(z, df))


def _quantile(level: float, df: float | None) -> float:
    from scipy.stats import norm, t

    p = (1.0 + level) / 2.0
    if df is None or not math.isfinite(df):
        return float(norm.ppf(p))
    return float(t.ppf(p, df))


def one_sided_p(iv: Interval, threshold: float, side: str) -> float | None:
    """p of H₀ θ < threshold (``side="lower"``) or θ > threshold (``"upper"``) from ``iv``
    (formula in the module docstring); None when the interval gives no spread."""
    bound = iv.lower if side == "lower" else iv.upper
    if bound is None or iv.estimate is None or not math.isfinite(iv.estimate):
        return None
    centre, edge, null = (_g(iv.method, v) for v in (iv.estimate, bound, threshold))
    if centre is None or edge is None:
        return None
    if null is None:  # a threshold at or beyond the logit scale's ends
        return 0.0 if (threshold <= 0) == (side == "lower") else 1.0
    se = abs(edge - centre) / _quantile(iv.level, iv.df)
    if not se > 0:
        return None
    z = (centre - null) / se if side == "lower" else (null - centre) / se
    return 1.0 - _cdf(z, iv.df)


def gate_p_value(spec: GateSpec, iv: Interval | None) -> float | None:
    """The unadjusted p-value of ``spec``'s own test from its interval (None without one)."""
    if iv is None or not iv.available:
        return None
    kind = spec.kind
    if kind == "at_least":
        return one_sided_p(iv, float(spec.threshold), "lower")  # type: ignore[arg-type]
    if kind == "at_most":
        return one_sided_p(iv, float(spec.threshold), "upper")  # type: ignore[arg-type]
    if kind == "not_worse_than_baseline":
        return one_sided_p(iv, -float(spec.margin), "lower")  # type: ignore[arg-type]
    if kind == "better_than_baseline":
        return one_sided_p(iv, float(spec.min_delta), "lower")
    m = float(spec.margin)  # type: ignore[arg-type]
    low, high = one_sided_p(iv, -m, "lower"), one_sided_p(iv, m, "upper")
    return None if low is None or high is None else max(low, high)
