"""Sample-size planning in documents (the interval guide, "Planejar").

Half-width of a t interval from K of M documents with between-document SD S:

    h(K) = t(1 − α/2; K − 1) · S/√K · √(1 − K/M)

macro: S = sd(r_d); micro: S = sd(u_d)/m̄ with u_d = s_d − R n_d and m̄ the mean
queries per document (the ratio estimator's linearisation). K₀ is the smallest
K with h(K) ≤ h without the finite correction (t solved iteratively by a
monotone search); the textbook correction gives K₀/(1 + K₀/M), and the planned
K is the smallest K with the corrected h(K) ≤ h (so h(K) ≤ h < h(K − 1)).
The df is K − 1 for both estimands: the plan does not use CR2-specific df and
does not guarantee coverage (the interval guide).

Minimum detectable difference of a paired comparison (two-sided α, power 1 − β):
    MDD = (t(1 − α/2; K − 1) + t(1 − β; K − 1)) · S_d/√K · √(1 − K/M).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from dataclasses import asdict, dataclass

import numpy as np
from scipy import stats as sps

from ragstat.errors import InputError
from ragstat.records.docstats import DocStats

__all__ = [
    "ALLOCATIONS",
    "MAX_DOCUMENTS",
    "MAX_POPULATION",
    "Plan",
    "allocate",
    "check_count",
    "half_width",
    "minimum_detectable_difference",
    "pilot_sd",
    "plan_documents",
    "stratum_sd",
]

ALLOCATIONS = ("proportional", "neyman")


@dataclass(frozen=True)
class Plan:
    """Documents needed for a target half-width, with the numbers that produced it."""

    estimand: str
    half_width: float
    level: float
    sd: float
    population: int | None
    K0: int | None
    K_formula: int | None
    K: int
    achieved: float
    achieved_previous: float | None

    def to_dict(self) -> dict:
        return asdict(self)


#: Largest K the planner searches (beyond it, h is too small for S to be meaningful).
MAX_DOCUMENTS = 10**12

#: Largest between-document SD a plan takes (beyond it half-widths overflow a float).
MAX_SD = 1e150

#: Largest population (documents, or a stratum's documents) a plan accepts.
MAX_POPULATION = 10**12


def check_count(value: object, what: str, low: int = 2, high: int = MAX_POPULATION) -> int:
    """``value`` as a whole number in [low, high], or an `InputError` naming the limit."""
    whole = isinstance(value, numbers.Integral) and not isinstance(value, bool)
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        whole, value = True, int(value)
    if not whole or not low <= value <= high:  # type: ignore[operator]
        shown = (
            str(value) if len(str(value)) <= 20 else f"{str(value)[:8]}… ({len(str(value))} digits)"
        )
        raise InputError(f"{what} must be a whole number from {low:,} to {high:,}, got {shown}")
    return int(value)  # type: ignore[call-overload]


def _check(level: float, S: float, M: int | None) -> None:
    if not 0 < level < 1:
        raise InputError(f"level must be between 0 and 1, got {level}")
    if not (math.isfinite(S) and 0 < S <= MAX_SD):
        raise InputError(
            f"the between-document SD must be positive and at most {MAX_SD:g}, got {S}"
        )
    if M is not None:
        check_count(M, "the population size M")


def half_width(K: int, S: float, level: float = 0.95, M: int | None = None) -> float:
    """h(K) = t(1 − α/2; K − 1) · S/√K · √(1 − K/M)."""
    if isinstance(K, numbers.Integral) and K < 2:
        raise InputError(f"need at least two documents, got K = {K}")
    K = check_count(K, "the number of documents K", high=MAX_DOCUMENTS)
    if M is not None and K > M:
        raise InputError(f"the sample (K = {K}) cannot exceed the population (M = {M})")
    fpc = 1.0 if M is None else 1.0 - K / M
    return float(
        sps.t.ppf(0.5 + level / 2, float(K - 1)) * S / math.sqrt(float(K)) * math.sqrt(fpc)
    )


def _smallest(ok, hi: int | None) -> int:
    """Smallest integer K ≥ 2 with ok(K), for a monotone predicate (doubling, then bisection)."""
    lo, step = 2, 2
    if ok(lo):
        return lo
    for _ in range(64):  # doubling from 2 reaches MAX_DOCUMENTS within 40 steps
        upper = min(step * 2, MAX_DOCUMENTS if hi is None else hi)
        if ok(upper):
            break
        if hi is not None and upper == hi:
            return hi
        if upper >= MAX_DOCUMENTS:
            raise InputError(
                f"more than {MAX_DOCUMENTS:.0e} documents would be needed: the half-width is "
                "too small for this SD"
            )
        lo, step = upper, upper
    while upper - lo > 1:
        mid = (lo + upper) // 2
        lo, upper = (lo, mid) if ok(mid) else (mid, upper)
    return upper


def plan_documents(
    h: float, S: float, *, level: float = 0.95, M: int | None = None, estimand: str = "macro"
) -> Plan:
    """Documents needed for half-width ``h`` (see module docstring)."""
    if not (math.isfinite(h) and h > 0):
        raise InputError(f"the target half-width must be positive, got {h}")
    _check(level, S, M)
    K0: int | None
    formula: int | None = None
    if M is None:
        K = _smallest(lambda k: half_width(k, S, level) <= h, None)
        K0 = K
    else:
        K = _smallest(lambda k: half_width(k, S, level, M) <= h, M)
        try:
            K0 = _smallest(lambda k: half_width(k, S, level) <= h, None)
            formula = math.ceil(K0 / (1 + K0 / M) - 1e-9)
        except InputError:  # a census can reach any h; without the correction nothing can
            K0 = None
    prev = half_width(K - 1, S, level, M) if K > 2 else None
    return Plan(estimand, h, level, float(S), M, K0, formula, K, half_width(K, S, level, M), prev)


def minimum_detectable_difference(
    K: int, S_d: float, *, level: float = 0.95, power: float = 0.8, M: int | None = None
) -> float:
    """Smallest true paired difference detected with the given power (two-sided test)."""
    _check(level, S_d, M)
    K = check_count(K, "the number of documents K", high=MAX_DOCUMENTS)
    if not 0 < power < 1:
        raise InputError(f"power must be between 0 and 1, got {power}")
    t_beta = sps.t.ppf(power, K - 1)
    return float(half_width(K, S_d, level, M) * (1 + t_beta / sps.t.ppf(0.5 + level / 2, K - 1)))


def stratum_sd(stats: DocStats, estimand: str) -> dict[str, float]:
    """Per-stratum SDs for Neyman allocation: macro sd(r_d); micro sd(u_d), u_d = s_d − R̂ n_d
    with R̂ the combined pilot ratio (the combined ratio estimator's variance is
    Σ_h M_h² (1 − f_h) S²_{u,h} / K_h / X², so K_h ∝ M_h S_{u,h})."""
    if stats.stratum is None:
        raise InputError("Neyman allocation needs a pilot with a stratum column (--strata)")
    value = stats.r if estimand == "macro" else stats.s - stats.s.sum() / stats.N * stats.n
    out = {}
    for h in sorted(set(stats.stratum)):
        x = value[stats.stratum == h]
        if x.size < 2:
            raise InputError(f"stratum {h!r} has one pilot document: its SD is undefined")
        out[str(h)] = float(np.std(x, ddof=1))
    return out


def pilot_sd(stats: DocStats, estimand: str) -> float:
    """Between-document SD from a pilot: sd(r_d) (macro) or sd(u_d)/m̄ (micro)."""
    if stats.K < 2:
        raise InputError(f"a pilot needs at least two documents, got K = {stats.K}")
    if estimand == "macro":
        return float(np.std(stats.r, ddof=1))
    R = stats.s.sum() / stats.N
    return float(np.std(stats.s - R * stats.n, ddof=1) / stats.n.mean())


def allocate(
    K: int,
    population: Mapping[str, int],
    method: str = "proportional",
    sd: Mapping[str, float] | None = None,
) -> dict[str, int]:
    """Split K documents across strata: K_h ∝ M_h (proportional) or M_h S_h (Neyman).

    Largest-remainder rounding; every stratum gets at least min(2, M_h) (a variance
    needs two, a stratum of one is taken whole) and at most M_h.
    """
    if method not in ALLOCATIONS:
        raise InputError(f"allocation must be one of {ALLOCATIONS}, got {method!r}")
    labels = sorted(population)
    sizes = [check_count(population[h], f"the size M of stratum {h!r}", low=1) for h in labels]
    check_count(sum(sizes), "the population size M (all strata)", low=1)
    M_h = np.array(sizes, dtype=float)
    weight = M_h.copy()
    if method == "neyman":
        if sd is None or any(h not in sd for h in labels):
            raise InputError("Neyman allocation needs a pilot SD for every stratum")
        weight = M_h * np.array([sd[h] for h in labels])
        if not weight.sum() > 0:
            raise InputError("every stratum's pilot SD is zero: use --allocation proportional")
    floor = np.minimum(2, M_h)
    lowest, highest = int(floor.sum()), int(M_h.sum())
    if not lowest <= K <= highest:
        raise InputError(f"cannot allocate K = {K}: need between {lowest} and {highest}")
    k = np.minimum(np.maximum(floor, np.floor(K * weight / weight.sum())), M_h)
    for _ in range(3 * len(labels) + 2):  # off by at most 2 per stratum (floors) + rounding
        if k.sum() == K:
            break
        share = K * weight / weight.sum() - k
        room = (k < M_h) if k.sum() < K else (k > floor)
        pick = np.flatnonzero(room)[np.argmax(share[room] if k.sum() < K else -share[room])]
        k[pick] += 1 if k.sum() < K else -1
    if k.sum() != K:
        raise RuntimeError(f"allocation did not converge: {k.sum()} of K = {K} allocated")
    return {h: int(v) for h, v in zip(labels, k, strict=True)}
