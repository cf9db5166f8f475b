"""Wild cluster bootstrap-t with the null imposed (WCR), the interval by test inversion.

The mean is the intercept of an intercept-only regression clustered by document. With
cluster totals (n_d, s_d) — micro: queries and score sums; macro: n_d = 1 and s_d the
document rate r_d, one observation per cluster — and a hypothesised value θ₀:

    θ̂ = Σ s_d / Σ n_d,   u_d = s_d − θ̂ n_d,   t̂(θ₀) = (θ̂ − θ₀) / se_CR1,
    se_CR1 = sqrt(K/(K−1) · Σ u_d²) / N

(the CR1 statistic, small-sample factor K/(K−1)·(N−1)/(N−k) with k = 1 regressor, as
the ``wildboottest`` package's type "11"). The bootstrap imposes θ = θ₀: restricted
scores w_d = s_d − θ₀ n_d, bootstrap totals v_d·w_d for weights v (one per document),

    θ* − θ₀ = Σ v_d w_d / N,   e*_d = v_d w_d − n_d (θ* − θ₀),
    t* = (θ* − θ₀) / (sqrt(K/(K−1) · Σ e*_d²) / N),

and the symmetric p-value is p(θ₀) = (1/B) Σ_b 1{|t*_b| > |t̂|}, ties (the constant
weight vectors, whose |t*| equals |t̂| exactly) not counted — ``wildboottest``'s definition
(its floating-point comparison counts some of those ties and not others: the test
accounts for them). ``count_ties=True`` counts them, p = (1/B) Σ 1{|t*_b| ≥ |t̂|}: the
randomisation-test form, never smaller, so its interval is never narrower. |t*| within a
relative 1e-9 (on the squares) of |t̂| is a tie. Writing δ = θ̂ − θ₀, each
replicate's comparison is a quartic in δ,

    t*² > t̂²  ⇔  (a + δ c)² Σ u_d²  >  δ² N² (A + 2 B δ + C δ²),

with a = Σ v u, c = Σ v n, α_d = v_d u_d − n_d a/N, β_d = v_d n_d − n_d c/N,
A = Σ α², B = Σ αβ, C = Σ β²; the five numbers per replicate are computed once
(`WildFit`) and p(θ₀) then costs O(B) for any θ₀.

Weights: Rademacher (±1) or Webb's six-point (±√(1/2), ±1, ±√(3/2)). When the support
size to the power K is at most the replicate budget, every weight vector is enumerated
(deterministic; Rademacher in the order of ``itertools.product([-1, 1], repeat=K)``, the
order ``wildboottest`` uses); otherwise ``reps`` vectors are drawn. The default ("auto")
takes Webb's weights for K < 12 (Rademacher enumeration has only 2^(K−1) distinct |t*|
there) and Rademacher from K = 12 on.

Interval: {θ₀ : p(θ₀) > α}. Each limit is found stepping outward from θ̂ in steps of
se/2 (to 20 se, then doubling, to 20 · 2²⁰ se) until p ≤ α, then bisecting the last step
until the bracket is narrower than 1e-10 · se; the limit reported is the outer end of
that bracket (the last θ₀ not yet rejected is within 1e-10 · se of it). A finite
population correction shrinks both limits toward θ̂ by √(1 − K/M), as the other
bootstrap intervals do.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from ragstat.inference.bootstrap import BLOCK_ELEMENTS
from ragstat.inference.methods import Sample, census_interval, in_range
from ragstat.inference.results import Interval
from ragstat.inference.variance import se_cr1

__all__ = [
    "WEBB",
    "WildFit",
    "enumerated_weights",
    "sample_totals",
    "wcr",
    "wcr_bounds",
    "wild_t_statistics",
    "wild_weights",
]

#: Webb's (2014) six-point distribution: mean 0, variance 1, each value with probability 1/6.
WEBB = np.array([-np.sqrt(1.5), -1.0, -np.sqrt(0.5), np.sqrt(0.5), 1.0, np.sqrt(1.5)])
_SUPPORT = {"rademacher": np.array([-1.0, 1.0]), "webb": WEBB}
#: K below which "auto" weights are Webb's (MacKinnon & Webb's advice for few clusters).
WEBB_BELOW = 12
_REL_TOL = 1e-10  # bisection stops when the bracket is narrower than this × se
_TIE = 1e-9  # |t*| within this relative distance of |t̂| counts as a tie (not exceeding)


@dataclass(frozen=True, eq=False)
class WildWeights:
    """Bootstrap weight vectors, one row per replicate."""

    v: np.ndarray  # (B, K)
    kind: str  # "rademacher" or "webb"
    enumerated: bool


def enumerated_weights(K: int, kind: str = "rademacher") -> np.ndarray:
    """Every weight vector, rows in ``itertools.product(support, repeat=K)`` order."""
    support = _SUPPORT[kind]
    return np.array(list(itertools.product(support, repeat=K)), dtype=np.float64)


def wild_weights(
    K: int, reps: int, rng: np.random.Generator | None, kind: str = "auto"
) -> WildWeights:
    """Weights for K documents: enumerated when |support|^K ≤ reps, else ``reps`` draws."""
    if kind == "auto":
        kind = "webb" if K < WEBB_BELOW else "rademacher"
    if kind not in _SUPPORT:
        raise ValueError(f"unknown wild bootstrap weights {kind!r}")
    support = _SUPPORT[kind]
    if len(support) ** K <= reps:
        return WildWeights(enumerated_weights(K, kind), kind, True)
    if rng is None:
        raise ValueError("random wild bootstrap weights need a random generator")
    return WildWeights(rng.choice(support, size=(reps, K)), kind, False)


def sample_totals(x: Sample, estimand: str) -> tuple[np.ndarray, np.ndarray]:
    """(n, s) of the regression: micro the documents' totals, macro (1, r_d)."""
    if estimand == "micro":
        return x.n, x.s
    return np.ones_like(x.n), x.s / x.n


def wild_t_statistics(
    n: np.ndarray, s: np.ndarray, theta0: float, v: np.ndarray
) -> tuple[float, np.ndarray]:
    """(t̂, t*) at θ₀ computed directly from the restricted scores (the module formulas)."""
    K, N = n.shape[0], float(n.sum())
    theta = float(s.sum()) / N
    ssc = K / (K - 1)
    t_hat = (theta - theta0) / se_cr1(s - theta * n, N)
    w = s - theta0 * n
    vw = v * w  # (B, K)
    num = vw.sum(axis=1) / N
    e = vw - np.outer(num, n)
    return t_hat, num / (np.sqrt(ssc * np.einsum("ij,ij->i", e, e)) / N)


@dataclass(frozen=True, eq=False)
class WildFit:
    """Per-replicate coefficients of the quartic comparison (module docstring)."""

    theta: float
    se: float  # CR1 standard error of θ̂
    N: float
    U: float  # Σ u_d²
    a: np.ndarray
    c: np.ndarray
    A: np.ndarray
    B: np.ndarray
    C: np.ndarray
    count_ties: bool = False

    @classmethod
    def build(
        cls, n: np.ndarray, s: np.ndarray, v: np.ndarray, count_ties: bool = False
    ) -> WildFit:
        N = float(n.sum())
        theta = float(s.sum()) / N
        u = s - theta * n
        B = v.shape[0]
        coef = np.empty((5, B))
        step = max(1, BLOCK_ELEMENTS // max(n.shape[0], 1))
        for start in range(0, B, step):
            vb = v[start : start + step]
            a, c = vb @ u, vb @ n
            alpha = vb * u - np.outer(a / N, n)
            beta = vb * n - np.outer(c / N, n)
            coef[:, start : start + vb.shape[0]] = (
                a,
                c,
                np.einsum("ij,ij->i", alpha, alpha),
                np.einsum("ij,ij->i", alpha, beta),
                np.einsum("ij,ij->i", beta, beta),
            )
        U = float(u @ u)
        a, c, A, B_, C = coef
        return cls(theta, se_cr1(u, N), N, U, a, c, A, B_, C, count_ties)

    def p_value(self, theta0: float) -> float:
        """p(θ₀) = share of replicates with |t*| > |t̂| (≥ when ties are counted)."""
        d = self.theta - theta0
        lhs = (self.a + d * self.c) ** 2 * self.U  # ∝ t*² · Q
        rhs = d * d * self.N**2 * (self.A + 2 * self.B * d + self.C * d * d)  # ∝ t̂² · Q
        if self.count_ties:
            return float(np.mean(lhs >= rhs * (1 - _TIE)))
        return float(np.mean(lhs > rhs * (1 + _TIE)))


def _limit(fit: WildFit, alpha: float, direction: float) -> float | None:
    """The limit on one side of θ̂ (direction −1 lower, +1 upper); None if unbounded."""
    inside = 0.0  # distance from θ̂, in units of se, last seen with p > α
    outside = None
    for j in range(1, 61):
        dist = j / 2 if j <= 40 else 20.0 * 2.0 ** (j - 40)
        if fit.p_value(fit.theta + direction * dist * fit.se) <= alpha:
            outside = dist
            break
        inside = dist
    if outside is None:
        return None
    while outside - inside > _REL_TOL:
        mid = 0.5 * (inside + outside)
        if fit.p_value(fit.theta + direction * mid * fit.se) <= alpha:
            outside = mid
        else:
            inside = mid
    return fit.theta + direction * outside * fit.se


def wcr_bounds(fit: WildFit, level: float) -> tuple[float | None, float | None]:
    """The test-inversion interval's limits (None where no θ₀ on that side is rejected)."""
    alpha = 1.0 - level
    return _limit(fit, alpha, -1.0), _limit(fit, alpha, 1.0)


def wcr(
    x: Sample,
    estimand: str,
    rng: np.random.Generator | None,
    weights: str = "auto",
    count_ties: bool = False,
) -> Interval:
    """WCR interval ("wcr") for the micro or macro mean of a `Sample` (``x.reps`` budget)."""
    theta = x.estimate(estimand)
    if x.census():
        return census_interval("wcr", estimand, theta, x, "wild bootstrap-t")
    n, s = sample_totals(x, estimand)
    if se_cr1(s - theta * n, float(n.sum())) <= x.tol():
        why = "zero standard error: every document has the same rate"
        return Interval.unavailable("wcr", estimand, theta, x.level, "wild bootstrap-t", why)
    w = wild_weights(x.K, x.reps, rng, weights)
    fit = WildFit.build(n, s, w.v, count_ties)
    ref = f"wild bootstrap-t ({w.kind}{', enumerated' if w.enumerated else ''})"
    lo, hi = wcr_bounds(fit, x.level)
    if lo is None or hi is None:
        why = (
            f"with K = {x.K} documents the wild bootstrap test rejects no value within 20 million "
            "standard errors of the estimate: the interval is unbounded"
        )
        return Interval.unavailable("wcr", estimand, theta, x.level, ref, why)
    f = float(np.sqrt(x.fpc))
    iv = Interval(
        "wcr", estimand, theta, theta + f * (lo - theta), theta + f * (hi - theta), x.level, ref,
        se=fit.se * f, fpc=x.fpc if x.fpc < 1 else None, replicates=int(w.v.shape[0]), discarded=0,
    )  # fmt: skip
    return in_range(x, iv)
