"""Golden-set sizing by documents and A/B power by the randomisation unit (issue 16).

Design effect of clustering (Kish 1965; Eldridge, Ashby & Kerry 2006 for unequal
cluster sizes, mean m̄ and coefficient of variation CV):

    DEFF = 1 + ((1 + CV²) m̄ − 1) ρ          (CV = 0: 1 + (m − 1) ρ)

Golden-set sizing: n queries from n/m documents, query-level SD σ (a proportion:
σ² = p(1 − p)), normal quantile z = z(1 − α/2) (not t: the reference figure
1.96 · √(0.8 · 0.2/200) = 0.0554 is a z interval):

    h = z · √(σ²/n · DEFF)                  (ρ = 0 or m = 1: the independence answer)

and the inverse, documents K = ⌈z² σ² DEFF / (h² m)⌉ and queries K·m.

A/B power, two arms of n units each with m̄ events per unit, event-level SD σ
(a rate: σ² = [p₀(1 − p₀) + p₁(1 − p₁)]/2, p₁ = p₀ + δ):

    events per arm = (z(1 − α/2) + z(power))² · 2σ² · DEFF / δ²,  units = events / m̄

(α/2 becomes α one-sided). The reported n is the smallest integer whose exact
power reaches the target: normal power with both rejection tails (as statsmodels'
``NormalIndPower``), or the noncentral t with 2n − 2 df (``tt_ind_solve_power``);
the closed form above is reported beside it.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
from scipy import optimize
from scipy import stats as sps

from ragstat.errors import InputError
from ragstat.tidy import Tidy

__all__ = [
    "MAX_UNITS",
    "ABDesign",
    "ABPlan",
    "PowerResult",
    "Sizing",
    "ab_assumptions",
    "ab_sentence",
    "ab_units",
    "design_effect",
    "exact_units",
    "golden_set",
    "pilot_icc",
    "rate_sd",
    "sizing_assumptions",
]


#: Largest number of units per arm (or queries) a plan reports: beyond it the effect or the
#: half-width asked for is too small to plan for.
MAX_UNITS = 10**12


def _too_many(n: float, what: str, fix: str) -> None:
    if not (math.isfinite(n) and n <= MAX_UNITS):
        raise InputError(f"more than {MAX_UNITS:,} {what} would be needed; {fix}")


def _check_icc(icc: float) -> None:
    if not (math.isfinite(icc) and 0 <= icc < 1):
        raise InputError(f"--icc must be in [0, 1), got {icc}")


def design_effect(m: float, icc: float, cv: float = 0.0) -> float:
    """DEFF = 1 + ((1 + CV²) m̄ − 1) ρ (Eldridge et al. 2006; CV = 0 gives 1 + (m − 1) ρ)."""
    _check_icc(icc)
    if not (math.isfinite(m) and 1 <= m <= MAX_UNITS):
        raise InputError(
            f"queries (events) per document (unit) must be from 1 to {MAX_UNITS:,}, got {m}"
        )
    if not (math.isfinite(cv) and cv >= 0):
        raise InputError(f"the CV of cluster sizes must be non-negative, got {cv}")
    return 1.0 + ((1.0 + cv * cv) * m - 1.0) * icc


def pilot_icc(n: np.ndarray, s: np.ndarray, q: np.ndarray) -> tuple[float, float]:
    """(σ̂, ρ̂) from per-cluster counts n, sums s and sums of squares q: σ̂ the SD of all
    observations, ρ̂ the one-way ANOVA estimator (MSB − MSW)/(MSB + (m₀ − 1) MSW) with
    m₀ = (N − Σn²/N)/(K − 1), truncated to [0, 1)."""
    K, N = n.size, float(n.sum())
    if K < 2 or N <= K:
        raise InputError(
            f"a pilot needs at least two clusters and more rows than clusters (K = {K})"
        )
    grand = s.sum() / N
    ssw = float(np.sum(np.maximum(q - s * s / n, 0.0)))
    ssb = float(np.sum(n * (s / n - grand) ** 2))
    sd = math.sqrt((ssw + ssb) / (N - 1))
    msb, msw = ssb / (K - 1), ssw / (N - K)
    m0 = (N - float(np.sum(n * n)) / N) / (K - 1)
    denom = msb + (m0 - 1) * msw
    rho = (msb - msw) / denom if denom > 0 else 0.0
    return sd, float(min(max(rho, 0.0), 1 - 1e-9))


def _z(level: float) -> float:
    if not 0 < level < 1:
        raise InputError(f"level must be between 0 and 1, got {level}")
    return float(sps.norm.ppf(0.5 + level / 2))


@dataclass(frozen=True)
class Sizing:
    """Queries from documents: the half-width with and without the design effect."""

    sd: float
    rate: float | None
    queries_per_doc: float
    icc: float
    deff: float
    level: float
    z: float
    queries: int
    documents: int
    half_width_independent: float
    half_width: float
    target: float | None = None
    queries_independent: int | None = None

    def to_dict(self) -> dict:
        return asdict(self)

    def sentence(self) -> str:
        """ "±5.5 points assuming independence; ±6.6 with 3 queries per document at ICC 0.2"."""
        return (
            f"±{100 * self.half_width_independent:.1f} points assuming independence; "
            f"±{100 * self.half_width:.1f} with {self.queries_per_doc:g} queries per document "
            f"at ICC {self.icc:g}"
        )


def golden_set(
    sd: float,
    *,
    queries_per_doc: float = 1.0,
    icc: float = 0.0,
    level: float = 0.95,
    queries: int | None = None,
    target: float | None = None,
    rate: float | None = None,
) -> Sizing:
    """The half-width ``queries`` give, or the queries (and documents) for ``target``."""
    if not (math.isfinite(sd) and sd > 0):
        raise InputError(f"the query-level SD must be positive, got {sd}")
    if (queries is None) == (target is None):
        raise InputError("give exactly one of a number of queries or a target half-width")
    z, deff, m = _z(level), design_effect(queries_per_doc, icc), queries_per_doc
    n_ind = None
    if target is not None:
        if not (math.isfinite(target) and target > 0):
            raise InputError(f"the target half-width must be positive, got {target}")
        with np.errstate(over="ignore"):
            needed = float(np.float64(z * sd / target) ** 2 * max(deff, 1.0))
        _too_many(needed, "queries", "raise the half-width")
        n_ind = math.ceil((z * sd / target) ** 2 - 1e-9)
        docs = math.ceil((z * sd / target) ** 2 * deff / m - 1e-9)
        queries = math.ceil(docs * m - 1e-9)
    if queries is None or not 1 <= queries <= MAX_UNITS:
        raise InputError(f"the number of queries must be from 1 to {MAX_UNITS:,}, got {queries}")
    docs = math.ceil(queries / m - 1e-9)
    h0 = z * sd / math.sqrt(queries)
    return Sizing(
        sd, rate, m, icc, deff, level, z, queries, docs, h0, h0 * math.sqrt(deff), target, n_ind
    )


@dataclass(frozen=True)
class ABPlan:
    """Units per arm for an A/B test randomised by ``unit``."""

    unit: str
    sd: float
    delta: float
    events_per_unit: float
    cv: float
    icc: float
    deff: float
    level: float
    power: float
    sided: int
    test: str
    units_formula: float
    units_per_arm: int
    achieved_power: float
    events_per_arm: float
    units_per_day: float | None = None
    days: int | None = None

    def to_dict(self) -> dict:
        return asdict(self)


def _power(n: float, lam1: float, alpha: float, sided: int, test: str) -> float:
    """Exact power with n units per arm; lam1 = δ / √(2σ² DEFF / m̄) (λ = lam1 · √n)."""
    lam = lam1 * math.sqrt(n)
    if test == "z":
        c = float(sps.norm.ppf(1 - alpha / sided))
        far = float(sps.norm.cdf(-c - lam)) if sided == 2 else 0.0
        return float(sps.norm.sf(c - lam)) + far
    df = 2 * n - 2
    c = float(sps.t.ppf(1 - alpha / sided, df))
    far = float(sps.nct.cdf(-c, df, lam)) if sided == 2 else 0.0
    return float(sps.nct.sf(c, df, lam)) + far


def ab_units(
    delta: float,
    sd: float,
    *,
    events_per_unit: float = 1.0,
    cv: float = 0.0,
    icc: float = 0.0,
    power: float = 0.8,
    level: float = 0.95,
    sided: int = 2,
    test: str = "z",
    unit: str = "user",
    units_per_day: float | None = None,
) -> ABPlan:
    """Units per arm to detect ``delta`` (see module docstring)."""
    _z(level)
    alpha = 1 - level
    if not (math.isfinite(delta) and delta != 0):
        raise InputError(f"the minimum detectable effect must be non-zero, got {delta}")
    if not (math.isfinite(sd) and sd > 0):
        raise InputError(f"the SD must be positive, got {sd}")
    if not (alpha < power < 1):
        raise InputError(f"power must be above α = {alpha:g} and below 1, got {power}")
    if sided not in (1, 2) or test not in ("z", "t"):
        raise InputError("sides must be 1 or 2 and the test z or t")
    deff = design_effect(events_per_unit, icc, cv)
    var1 = 2 * sd * sd * deff / events_per_unit  # variance of the difference × n
    if not (math.isfinite(var1) and var1 > 0):
        raise InputError(f"the SD {sd:g} is out of the range a plan can use (σ² = {sd * sd:g})")
    za, zb = sps.norm.ppf(1 - alpha / sided), sps.norm.ppf(power)
    with np.errstate(over="ignore", divide="ignore"):
        formula = float((za + zb) ** 2 * var1 / np.float64(delta) ** 2)
    _too_many(formula, f"{unit}s per arm", "raise --mde")
    lam1 = abs(delta) / math.sqrt(var1)
    exact = _solve(lam1, alpha, sided, test, power, formula)
    n = max(math.ceil(exact - 1e-9), 2 if test == "t" else 1)
    if units_per_day is not None and not (math.isfinite(units_per_day) and units_per_day > 0):
        raise InputError(f"--traffic must be positive, got {units_per_day}")
    days = None if units_per_day is None else math.ceil(2 * n / units_per_day - 1e-9)
    return ABPlan(
        unit, sd, delta, events_per_unit, cv, icc, deff, level, power, sided, test, formula, n,
        _power(n, lam1, alpha, sided, test), n * events_per_unit, units_per_day, days,
    )  # fmt: skip


def _solve(lam1: float, alpha: float, sided: int, test: str, power: float, formula: float) -> float:
    """The continuous n with power(n) = target (bisection by Brent's method)."""
    lo = 2.0 if test == "t" else 1e-9
    if _power(lo, lam1, alpha, sided, test) >= power:
        return lo
    hi = max(4 * formula, 8.0)
    try:
        return float(
            optimize.brentq(
                lambda n: _power(n, lam1, alpha, sided, test) - power, lo, hi, xtol=1e-12
            )
        )
    except (ValueError, RuntimeError) as exc:  # the noncentral t's power is NaN out there
        raise InputError(
            f"the exact {test} power cannot be computed near {hi / 4:,.0f} units per arm "
            f"({exc}); use --test z or a lower --power"
        ) from None


def exact_units(plan: ABPlan) -> float:
    """The continuous n solving power(n) = target (what statsmodels' solvers return)."""
    var1 = 2 * plan.sd**2 * plan.deff / plan.events_per_unit
    lam1 = abs(plan.delta) / math.sqrt(var1)
    return _solve(lam1, 1 - plan.level, plan.sided, plan.test, plan.power, plan.units_formula)


@dataclass(frozen=True)
class ABDesign:
    """An A/B test randomised by ``unit``: a baseline ``rate`` (σ² averaged over the arms)
    or an event-level ``sd``; ``events_per_unit`` m̄ and its ``cv``; ``icc`` ρ; the minimum
    detectable effect ``mde`` δ; one- or two-sided; a z or t test; ``traffic`` units/day.
    m̄, CV, ρ and σ come from a pilot event table when not given."""

    mde: float
    unit: str = "user"
    rate: float | None = None
    sd: float | None = None
    events_per_unit: float | None = None
    cv: float | None = None
    icc: float | None = None
    power: float = 0.8
    level: float = 0.95
    sided: int = 2
    test: str = "z"
    traffic: float | None = None


@dataclass(frozen=True, repr=False)
class PowerResult(Tidy):
    """Units per arm for an A/B test, with where σ, m̄, CV and ρ came from."""

    ab: ABPlan
    source: str
    assumptions: tuple[str, ...] = field(default_factory=tuple)

    headline_columns = ("unit", "units_per_arm", "deff", "days")

    def to_dict(self) -> dict[str, Any]:
        return self.ab.to_dict() | {"source": self.source, "assumptions": list(self.assumptions)}

    def rows(self) -> list[dict[str, Any]]:
        return [self.ab.to_dict()]

    def title(self) -> str:
        return f"A/B power by {self.ab.unit} (δ = {self.ab.delta:g}, power {self.ab.power:g})"

    def sentences(self) -> list[str]:
        """What the test needs, in one plain sentence (said first)."""
        return [ab_sentence(self.ab.to_dict())]


def ab_sentence(out: dict) -> str:
    """ "8,391 users per arm detect a difference of 0.02 with power 80.0 % (two-sided z test,
    level 95 %)" from an `ABPlan`'s ``to_dict()``."""
    sided = "two-sided" if out["sided"] == 2 else "one-sided"
    days = "" if out.get("days") is None else f", about {out['days']:,} days of traffic"
    return (
        f"{out['units_per_arm']:,} {out['unit']}s per arm detect a difference of "
        f"{out['delta']:g} with power {out['achieved_power'] * 100:.1f} % ({sided} "
        f"{out['test']} test, level {out['level'] * 100:g} %{days})"
    )


def rate_sd(p: float, delta: float = 0.0) -> float:
    for v in (p, p + delta):
        if not 0 < v < 1:
            raise InputError(f"rates must lie strictly between 0 and 1, got {v:g}")
    return math.sqrt((p * (1 - p) + (p + delta) * (1 - p - delta)) / 2)


def sizing_assumptions(z: Sizing) -> tuple[str, ...]:
    return (
        "h = z(1 − α/2) · √(σ²/n · DEFF), a normal (z) interval, not t",
        f"DEFF = 1 + (m − 1) ρ = {z.deff:.4g} (m = {z.queries_per_doc:g}, ρ = {z.icc:g})",
        "documents drawn at random from a large population; m queries each",
        "σ = √(p(1 − p)) for a proportion" if z.rate is not None else "σ: query-level SD",
        "the detectable difference is (z(1 − α/2) + z(power)) · σ √(DEFF/n)",
    )


def ab_assumptions(p: ABPlan) -> tuple[str, ...]:
    test = "normal (z)" if p.test == "z" else "noncentral t with 2n − 2 df"
    return (
        f"randomised by {p.unit}: units, not events, are the independent replicates",
        "events per arm = (z(1 − α/s) + z(power))² · 2σ² · DEFF / δ²; units = events / m̄",
        f"DEFF = 1 + ((1 + CV²) m̄ − 1) ρ = {p.deff:.4g} (Eldridge, Ashby & Kerry 2006)",
        f"n is the smallest integer with exact {test} power ≥ target; equal arms",
        "a rate's σ² = [p₀(1 − p₀) + p₁(1 − p₁)]/2 with p₁ = p₀ + δ",
        "duration = ⌈2n / traffic⌉ days, traffic = eligible units per day split 50/50",
    )
