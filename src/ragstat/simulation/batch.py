"""Every interval method for R samples at once: arrays of shape (R, K), no loop over samples.

The numbers are those of `ragstat.analyze` sample by sample (same formulas, same
availability rules); only the bootstraps draw their own random numbers. With
n, s, w the per-document query counts, score sums and centred within-document sums
of squares Σ(y − r_d)², r_d = s_d/n_d, N = Σ n_d, R̂ = Σ s_d / N, u_d = s_d − R̂ n_d:

    cr1       se = sqrt(K/(K−1) Σ u_d²) / N,                      t, ν = K − 1
    cr2_bm    se = sqrt(Σ u_d² N/(N − n_d)) / N,                   t, ν = Bell–McCaffrey
    cr2_ik    the same se,                                         t, ν = Imbens–Kolesár
    t_rates   se = sd(r_d)/√K,                                     t, ν = K − 1
    wald_iid  micro sqrt(Σ_i (y_i − R̂)²/N²), macro sqrt(Σ w_d/n_d²)/K,   normal
    wald_effective_n  sqrt(Σ_i (y_i − R̂)²/N · DEFF/N),            normal
    logit     survey's svyciprop "logit": expit(logit θ̂ ± t·se/(θ̂(1−θ̂))), se of cr1 / t_rates
    korn_graubard  survey's svyciprop "beta": Clopper–Pearson on the effective sample size

with Σ_i (y_i − R̂)² = Σ w_d + Σ n_d (r_d − R̂)², ν = tr(Σ)²/tr(Σ²) in the K×K closed
forms of `ragstat.inference.variance` (sums over e ≠ d by prefix and suffix sums
along axis 1), DEFF = 1 + (m̄(1 + CV²) − 1) ρ̂ with the one-way ANOVA ICC. The
clustered t methods multiply se by √fpc; fpc = 0 (a census) gives the point
interval at the estimate. A zero SE (≤ 1e-12 · max|r_d|), an undefined df or DEFF,
a logit at 0 or 1 or scores not known to lie in a bounded range make a sample's interval
unavailable (NaN bounds). Range-respecting methods (logit, korn_graubard, logit_cr2_bm)
use θ' = (θ − lo)/(hi − lo), se' = se/(hi − lo) for scores known in [lo, hi] and map
back, as `ragstat.inference.methods`. Bootstraps: `simulation.batch_boot`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
from scipy import special
from scipy import stats as sps

from ragstat.errors import InputError
from ragstat.inference import APPLICABLE
from ragstat.inference.estimators import ESTIMANDS
from ragstat.inference.names import SMALL_K_METHODS
from ragstat.simulation.batch_boot import Bounds, doc_bootstrap_bounds
from ragstat.simulation.batch_candidates import candidate_bounds, check_inputs
from ragstat.simulation.batch_df import (
    df_bell_mccaffrey,
    df_moulton,
    others,
    t_quantile,
    z_quantile,
)
from ragstat.simulation.batch_query import query_bootstrap_bounds

__all__ = ["BatchIntervals", "BatchResult", "batch_intervals"]

_BOOT = ("doc_bootstrap_t", "doc_bootstrap_percentile")
#: Methods computed when none are named: every method but the small-K candidates.
_DEFAULT = frozenset(m for e in ESTIMANDS for m in APPLICABLE[e])
_NOT_BINARY = (
    "non-binary scores need the per-query values (not available from document sums, "
    "so not kept in a census)"
)
_NOT_UNIT = "scores are not known to lie in a bounded range: the logit scale is undefined"


@dataclass(frozen=True, eq=False)
class BatchIntervals:
    """One method's intervals for R samples; NaN bounds where ``available`` is False.

    ``reason`` explains an interval unavailable on every sample for a structural
    reason; ``discarded`` counts the zero-SE replicates of each sample (bootstrap-t).
    """

    method: str
    estimand: str
    estimate: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    available: np.ndarray
    reason: str | None = None
    discarded: np.ndarray | None = None

    @property
    def unavailable(self) -> int:
        """Number of samples without an interval."""
        return int(self.available.size - np.count_nonzero(self.available))


@dataclass(frozen=True, eq=False)
class BatchResult:
    """Every requested (estimand, method), in `APPLICABLE` order; iterable."""

    intervals: tuple[BatchIntervals, ...]

    def __iter__(self) -> Iterator[BatchIntervals]:
        return iter(self.intervals)

    def __len__(self) -> int:
        return len(self.intervals)

    def get(self, estimand: str, method: str) -> BatchIntervals:
        for b in self.intervals:
            if (b.estimand, b.method) == (estimand, method):
                return b
        raise KeyError(f"{estimand} {method} was not computed")

    @property
    def unavailable(self) -> dict[tuple[str, str], int]:
        """{(estimand, method): samples without an interval}."""
        return {(b.estimand, b.method): b.unavailable for b in self.intervals}


@dataclass(frozen=True, eq=False)
class _Samples:
    """Per-sample arrays and the derived quantities shared by the methods (N, R̂, r, u, …)."""

    n: np.ndarray
    s: np.ndarray
    w: np.ndarray
    binary: bool
    bounds: tuple[float, float] | None
    level: float
    fpc: float
    N: np.ndarray = field(init=False)
    micro: np.ndarray = field(init=False)
    macro: np.ndarray = field(init=False)
    r: np.ndarray = field(init=False)
    u: np.ndarray = field(init=False)
    rss: np.ndarray = field(init=False)  # Σ_i (y_i − R̂)² = Σ w_d + Σ n_d (r_d − R̂)²
    tol: np.ndarray = field(init=False)  # zero SE: 1e-12 · max |r_d|, as `Sample.tol`

    def __post_init__(self) -> None:
        N = self.n.sum(axis=1)
        micro = self.s.sum(axis=1) / N
        r = self.s / self.n
        rss = self.w.sum(axis=1) + np.sum(self.n * (r - micro[:, None]) ** 2, axis=1)
        derived = {"N": N, "micro": micro, "macro": r.mean(axis=1), "r": r, "rss": rss}
        derived |= {"u": self.s - micro[:, None] * self.n, "tol": 1e-12 * np.abs(r).max(axis=1)}
        for key, value in derived.items():
            object.__setattr__(self, key, value)

    @cached_property
    def rest(self) -> np.ndarray:
        """Σ_{e≠d} n_e (N − n_d without cancellation), shared by CR2's SE and df."""
        return others(self.n)

    @property
    def K(self) -> int:
        return self.n.shape[1]

    @property
    def alpha(self) -> float:
        return 1.0 - self.level

    def estimate(self, estimand: str) -> np.ndarray:
        return self.micro if estimand == "micro" else self.macro

    @property
    def span(self) -> float:
        lo, hi = self.bounds or (0.0, 1.0)
        return hi - lo

    def unit(self, v: np.ndarray) -> np.ndarray:
        """(v − lo)/(hi − lo) on the known range; `back` maps unit values back."""
        return (v - (self.bounds or (0.0,))[0]) / self.span

    def back(self, v: np.ndarray) -> np.ndarray:  # lo + (hi − lo) v
        return (self.bounds or (0.0,))[0] + self.span * v


def _moulton(x: _Samples) -> tuple[np.ndarray, np.ndarray]:
    """(σ̂², ρ̂): ρ̂ = (Σ u_d² − Σ e²)/Σ n_d(n_d − 1), σ̂² = max(Σ e²/N − ρ̂, 0)."""
    denom = np.sum(x.n * (x.n - 1), axis=1)
    num = np.sum(x.u * x.u, axis=1) - x.rss
    rho = np.where(denom > 0, num / np.where(denom > 0, denom, 1.0), 0.0)
    return np.maximum(x.rss / x.N - rho, 0.0), rho


def _deff(x: _Samples) -> np.ndarray:
    """DEFF = 1 + (m̄(1 + CV²) − 1) ρ̂ (ANOVA ICC; 1 when n ≡ 1; NaN when ρ̂ undefined)."""
    K, N, n = x.K, x.N, x.n
    with np.errstate(divide="ignore", invalid="ignore"):
        msb = np.sum(n * (x.r - x.micro[:, None]) ** 2, axis=1) / (K - 1)
        msw = x.w.sum(axis=1) / (N - K)
        n0 = (N - np.sum(n * n, axis=1) / N) / (K - 1)
        denom = msb + (n0 - 1.0) * msw
        icc = np.where((N > K) & (denom > 0), (msb - msw) / denom, np.nan)
    m = n.mean(axis=1)
    cv2 = n.var(axis=1) / (m * m)
    out = 1.0 + (m * (1.0 + cv2) - 1.0) * icc
    return np.where(np.all(n == 1, axis=1), 1.0, out)


def _t_bounds(x: _Samples, theta, se, df) -> tuple[Bounds, np.ndarray, np.ndarray]:
    """t interval θ̂ ± t_{1−α/2, ν} · se·√fpc; also returns (se·√fpc, ν) for the logit."""
    if x.fpc == 0.0:
        return Bounds(theta.copy(), theta.copy(), np.ones(theta.shape, bool)), se * 0.0, df
    ok = (se > x.tol) & np.isfinite(df) & (df > 0)
    se_f = se * np.sqrt(x.fpc)
    half = t_quantile(1 - x.alpha / 2, df, ok) * se_f
    lower, upper = np.where(ok, theta - half, np.nan), np.where(ok, theta + half, np.nan)
    return Bounds(lower, upper, ok), se_f, df


def _normal_bounds(x: _Samples, theta, se) -> Bounds:
    """θ̂ ± z_{1−α/2} · se (no finite-population correction: naive/diagnostic methods)."""
    ok = se > x.tol
    half = z_quantile(1 - x.alpha / 2) * se
    return Bounds(np.where(ok, theta - half, np.nan), np.where(ok, theta + half, np.nan), ok)


def _se_cr2(x: _Samples) -> np.ndarray:
    return np.sqrt(np.sum(x.u * x.u * x.N[:, None] / x.rest, axis=1)) / x.N


def _se_cr1(x: _Samples) -> np.ndarray:
    return np.sqrt(x.K / (x.K - 1) * np.sum(x.u * x.u, axis=1)) / x.N


def _se_rates(x: _Samples) -> np.ndarray:
    return np.std(x.r, axis=1, ddof=1) / np.sqrt(x.K)


def _clustered(x: _Samples, method: str) -> tuple[Bounds, np.ndarray, np.ndarray]:
    """cr1, cr2_bm, cr2_ik (micro) and t_rates (macro)."""
    ones = np.ones(x.n.shape[0])
    if method == "cr1":
        return _t_bounds(x, x.micro, _se_cr1(x), ones * (x.K - 1))
    if method == "t_rates":
        return _t_bounds(x, x.macro, _se_rates(x), ones * (x.K - 1))
    if method == "cr2_bm":
        return _t_bounds(x, x.micro, _se_cr2(x), df_bell_mccaffrey(x.n, x.rest))
    sigma2, rho = _moulton(x)
    return _t_bounds(x, x.micro, _se_cr2(x), df_moulton(x.n, sigma2, rho))


def _logit(x: _Samples, estimand: str, micro_se: str = "cr1") -> Bounds:
    """expit(logit θ̂ ± t_{1−α/2, ν} · se/(θ̂(1 − θ̂))) around cr1 (survey's ``logit``) or
    cr2_bm (``logit_cr2_bm``) for micro, t_rates for macro."""
    theta = x.estimate(estimand)
    unit = x.unit(theta)
    inside = (unit > 0) & (unit < 1) & (x.bounds is not None)
    if x.fpc == 0.0:
        return Bounds(np.where(inside, theta, np.nan), np.where(inside, theta, np.nan), inside)
    base, se, df = _clustered(x, micro_se if estimand == "micro" else "t_rates")
    ok = inside & base.available
    th = np.where(ok, unit, 0.5)
    se_l = se / x.span / (th * (1 - th))
    half = t_quantile(1 - x.alpha / 2, df, ok) * se_l
    ell = np.log(th / (1 - th))
    lower, upper = x.back(special.expit(ell - half)), x.back(special.expit(ell + half))
    return Bounds(np.where(ok, lower, np.nan), np.where(ok, upper, np.nan), ok)


def _korn_graubard(x: _Samples, estimand: str) -> Bounds:
    """Clopper–Pearson on n_eff = θ̂(1 − θ̂)/se² · (t_{α/2}(n − 1)/t_{α/2}(ν))² (se of cr1 /
    t_rates, n = N or K); at θ̂ ∈ {0, 1} n_eff = n · the same factor (`inference.bounded`)."""
    theta = x.estimate(estimand)
    unit = np.full(theta.shape, x.bounds is not None)
    if x.fpc == 0.0:
        return Bounds(np.where(unit, theta, np.nan), np.where(unit, theta, np.nan), unit)
    base, se, df = _clustered(x, "cr1" if estimand == "micro" else "t_rates")
    n = x.N.astype(float) if estimand == "micro" else np.full(theta.shape, float(x.K))
    th = x.unit(theta)
    edge = (th <= 0) | (th >= 1)
    ok = unit & (edge | base.available)
    a = x.alpha / 2
    factor = np.where(n > 1, (sps.t.ppf(a, np.maximum(n - 1, 1)) / sps.t.ppf(a, df)) ** 2, 1.0)
    se_u = np.where(ok & ~edge, se / x.span, 1.0)
    spread = np.where(edge | ~ok, 1.0, th * (1 - th) / se_u**2)
    n_eff = np.where(edge, n, spread) * factor
    succ = n_eff * th
    with np.errstate(invalid="ignore", divide="ignore"):
        lower = np.where(succ <= 0, 0.0, sps.beta.ppf(a, succ, n_eff - succ + 1))
        upper = np.where(succ >= n_eff, 1.0, sps.beta.ppf(1 - a, succ + 1, n_eff - succ))
    lower, upper = x.back(lower), x.back(upper)
    return Bounds(np.where(ok, lower, np.nan), np.where(ok, upper, np.nan), ok)


def _wald(x: _Samples, estimand: str, method: str) -> Bounds:
    """wald_iid (micro / macro) and wald_effective_n (micro)."""
    theta = x.estimate(estimand)
    if method == "wald_effective_n":
        d = _deff(x)
        good = d > 0
        se = np.sqrt(x.rss / x.N * np.where(good, d, 1.0) / x.N)
        b = _normal_bounds(x, theta, se)
        return Bounds(
            np.where(good, b.lower, np.nan), np.where(good, b.upper, np.nan), good & b.available
        )
    if estimand == "micro":
        return _normal_bounds(x, theta, np.sqrt(x.rss / x.N / x.N))
    return _normal_bounds(x, theta, np.sqrt(np.sum(x.w / x.n**2, axis=1)) / x.K)


def _analytic(x: _Samples, estimand: str, method: str) -> Bounds:
    if method in ("cr1", "cr2_bm", "cr2_ik", "t_rates"):
        return _clustered(x, method)[0]
    if method == "logit":
        return _logit(x, estimand)
    if method == "logit_cr2_bm":
        return _logit(x, estimand, "cr2_bm")
    if method == "korn_graubard":
        return _korn_graubard(x, estimand)
    return _wald(x, estimand, method)


def _bootstraps(x: _Samples, pairs, reps, rng) -> dict[tuple[str, str], Bounds]:
    """Document bootstraps (one shared set of count matrices) and the 0/1 query bootstrap."""
    out: dict[tuple[str, str], Bounds] = {}
    doc = [(e, m) for e, m in pairs if m in _BOOT]
    if doc and x.fpc == 0.0:  # census: no sampling error, point interval
        for e, m in doc:
            t = x.estimate(e)
            out[(e, m)] = Bounds(t.copy(), t.copy(), np.ones(t.shape, bool), np.zeros(t.shape, int))
    elif doc:
        ests = {
            e: (x.estimate(e), _se_cr1(x) if e == "micro" else _se_rates(x))
            for e in dict.fromkeys(e for e, _ in doc)
        }
        methods = {m for _, m in doc}
        got = doc_bootstrap_bounds(x.n, x.s, ests, x.tol, methods, reps, rng, x.alpha, x.fpc)
        out |= {p: got[p] for p in doc}
    for e, m in pairs:
        if m == "query_bootstrap" and x.binary:
            out[(e, m)] = query_bootstrap_bounds(x.n, x.s, e, x.tol, reps, rng, x.alpha)
    return out


def batch_intervals(
    n: np.ndarray,
    s: np.ndarray,
    w: np.ndarray,
    *,
    binary: bool,
    level: float = 0.95,
    fpc: float = 1.0,
    methods: Iterable[str] | None = None,
    estimands: Sequence[str] = ESTIMANDS,
    bootstrap_reps: int = 999,
    rng: np.random.Generator | None = None,
    scores_in_unit: bool | None = None,
    bounds: tuple[float, float] | None = None,
) -> BatchResult:
    """Intervals of every requested (estimand, method) for each of R samples (rows of n, s, w).

    ``fpc`` is 1 − K/M (1 for none); ``bounds`` is the range (lo, hi) every score is known
    to lie in, which the range-respecting methods need; without it ``scores_in_unit`` says
    whether every score lies in [0, 1] (default: only when ``binary``). Non-binary query
    bootstraps are unavailable: the per-query values are not kept.
    """
    n, s, w = (np.asarray(a, dtype=np.float64) for a in (n, s, w))
    wanted = set(_DEFAULT if methods is None else methods)
    check_inputs(n, s, w, level, fpc, wanted, estimands, bootstrap_reps)
    unit = binary if scores_in_unit is None else bool(scores_in_unit)
    lo, hi = (0.0, 1.0) if bounds is None else bounds
    known = (float(lo), float(hi)) if bounds is not None or unit else None
    if known is not None and not known[0] < known[1]:
        raise InputError(f"bounds must be (lo, hi) with lo < hi, got {bounds!r}")
    x = _Samples(n, s, w, bool(binary), known, float(level), float(fpc))
    listed = {e: APPLICABLE[e] + SMALL_K_METHODS for e in ESTIMANDS}
    pairs = [(e, m) for e in dict.fromkeys(estimands) for m in listed[e] if m in wanted]
    rng = np.random.default_rng() if rng is None else rng
    boot = _bootstraps(x, pairs, int(bootstrap_reps), rng)
    children = rng.spawn(len(SMALL_K_METHODS)) if wanted & set(SMALL_K_METHODS) else []
    shared: dict = {}
    out = []
    for e, m in pairs:
        reason = None
        if (e, m) in boot:
            b = boot[(e, m)]
        elif m in SMALL_K_METHODS:
            b, reason = candidate_bounds(
                m, n, s, e, binary=x.binary, level=x.level, fpc=x.fpc, tol=x.tol,
                reps=int(bootstrap_reps), children=children, shared=shared,
                estimands=[e2 for e2, m2 in pairs if m2 == m],
            )  # fmt: skip
        elif m == "query_bootstrap":
            b, reason = _nowhere(x), _NOT_BINARY
        else:
            b = _analytic(x, e, m)
            bounded = m in ("logit", "logit_cr2_bm", "korn_graubard")
            reason = _NOT_UNIT if bounded and known is None else None
        out.append(
            BatchIntervals(m, e, x.estimate(e), b.lower, b.upper, b.available, reason, b.discarded)
        )
    return BatchResult(tuple(out))


def _nowhere(x: _Samples) -> Bounds:
    nan = np.full(x.n.shape[0], np.nan)
    return Bounds(nan, nan.copy(), np.zeros(x.n.shape[0], bool))
