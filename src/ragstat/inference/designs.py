"""Sampling designs beyond simple random sampling of documents (the interval guide, §5).

Stratified (fixed strata h, SRS without replacement of K_h of M_h documents):

    weights      w_d = M_h / K_h
    macro        r̄_st = Σ_h (M_h/M) r̄_h,
                 V = Σ_h (M_h/M)² (1 − K_h/M_h) s²_h / K_h        (s²_h: sample var of r_d)
    micro        R̂_c = Σ w_d s_d / Σ w_d n_d   (combined ratio estimator)
                 z_d = (s_d − R̂_c n_d) / X̂,  X̂ = Σ w_d n_d
                 V = Σ_h M_h² (1 − K_h/M_h) s²_{z,h} / K_h       (linearised)
    df           Satterthwaite over strata: ν = (Σ_h a_h)² / Σ_h a_h²/(K_h − 1),
                 a_h = the stratum's term of V (Cochran 1977, 5A.42).

Two-stage (types i sampled by SRS, t of T; then k_i of M_i documents in each):
the target is the mean over types of their mean document rate,
θ = (1/T) Σ_i μ_i, estimated by θ̂ = (1/t) Σ_{i∈s} r̄_i with

    V = (1 − t/T) s²_b / t + (t/T) (1/t²) Σ_i (1 − k_i/M_i) s²_{w,i} / k_i

(s²_b: variance of the r̄_i across sampled types; s²_{w,i}: within type i),
and a t interval with t − 1 df. These equal R survey's svymean/svyratio/svytotal
with strata, ids = ~type + doc and fpc at both stages.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from scipy import stats as sps

from ragstat.errors import DesignError
from ragstat.inference.names import DESIGNS
from ragstat.inference.results import Interval
from ragstat.records.docstats import DocStats

__all__ = [
    "DESIGNS",
    "DesignEstimate",
    "size_strata",
    "stratified_macro",
    "stratified_micro",
    "two_stage_type_mean",
]


@dataclass(frozen=True)
class DesignEstimate:
    """A design-based estimate with its linearised variance and df."""

    method: str
    estimand: str
    estimate: float
    se: float
    df: float

    census: bool = False

    def interval(self, level: float) -> Interval:
        if self.census:
            return Interval(
                self.method,
                self.estimand,
                self.estimate,
                self.estimate,
                self.estimate,
                level,
                "t",
                se=0.0,
                df=self.df,
                reason="census: every population document was observed, no sampling error",
            )
        if not self.se > 0:
            return Interval.unavailable(
                self.method,
                self.estimand,
                self.estimate,
                level,
                "t",
                "zero standard error: no variation between sampled documents",
            )
        half = sps.t.ppf(0.5 + level / 2, self.df) * self.se
        return Interval(
            self.method,
            self.estimand,
            self.estimate,
            self.estimate - half,
            self.estimate + half,
            level,
            "t",
            se=self.se,
            df=self.df,
        )


def size_strata(n: np.ndarray, threshold: float) -> np.ndarray:
    """Strata by document size: ``n>T`` for documents with more than T queries, else ``n<=T``."""
    t = f"{threshold:g}"
    return np.where(n > threshold, f"n>{t}", f"n<={t}").astype(object)


def _strata(stats: DocStats, population: Mapping[str, int], what: str):
    if stats.stratum is None:
        raise DesignError(f"the {what} design needs a stratum/type for every document (--strata)")
    labels, codes = np.unique(stats.stratum.astype(str), return_inverse=True)
    labels = np.array([str(h) for h in labels], dtype=object)
    missing = [h for h in labels if h not in population]
    if missing:
        raise DesignError(
            f"population counts missing for {what} {missing[:5]}; the population file has "
            f"{sorted(population)[:8]}"
        )
    K_h = np.bincount(codes, minlength=labels.size).astype(float)
    M_h = np.array([float(population[h]) for h in labels])
    small = labels[K_h > M_h]
    if small.size:
        h = small[0]
        raise DesignError(
            f"{what} {h!r}: population count {population[h]} is smaller than the "
            f"{int(K_h[labels == h][0])} documents sampled from it"
        )
    if what == "stratum":
        empty = sorted(set(population) - set(labels))
        if empty:
            raise DesignError(
                f"stratum {empty[0]!r} (M = {population[empty[0]]}) has no sampled documents: "
                "a stratified estimate cannot represent it; sample from every stratum"
            )
    lonely = labels[(K_h < 2) & (K_h < M_h)]  # a stratum of one, taken whole, is certain
    if lonely.size:
        raise DesignError(
            f"{what} {lonely[0]!r} has one sampled document: its variance is undefined; "
            "sample at least two per stratum or merge strata"
        )
    return labels, codes, K_h, M_h


def _group_var(x: np.ndarray, codes: np.ndarray, H: int) -> np.ndarray:
    """Sample variance (ddof = 1) of x within each group (0 for a group of one, which only a
    fully enumerated stratum may have: its finite correction is 0)."""
    k = np.bincount(codes, minlength=H)
    mean = np.bincount(codes, weights=x, minlength=H) / k
    dev = x - mean[codes]
    ss = np.bincount(codes, weights=dev * dev, minlength=H)
    return np.divide(ss, k - 1, out=np.zeros(H), where=k > 1)


def _satterthwaite(a: np.ndarray, K_h: np.ndarray) -> float:
    live = K_h > 1
    denom = np.sum(a[live] ** 2 / (K_h[live] - 1))
    return float(a.sum() ** 2 / denom) if denom > 0 else float(np.sum(K_h - 1))


def stratified_macro(stats: DocStats, population: Mapping[str, int]) -> DesignEstimate:
    """Stratified mean of document rates with per-stratum FPC."""
    labels, codes, K_h, M_h = _strata(stats, population, "stratum")
    r = stats.r
    W = M_h / M_h.sum()
    rbar = np.bincount(codes, weights=r, minlength=labels.size) / K_h
    a = W * W * (1 - K_h / M_h) * _group_var(r, codes, labels.size) / K_h
    return DesignEstimate(
        "stratified_mean",
        "macro",
        float(W @ rbar),
        float(np.sqrt(a.sum())),
        _satterthwaite(a, K_h),
        census=bool(np.all(K_h == M_h)),
    )


def stratified_micro(stats: DocStats, population: Mapping[str, int]) -> DesignEstimate:
    """Combined ratio estimator Σ w s / Σ w n with its stratified linearised SE."""
    labels, codes, K_h, M_h = _strata(stats, population, "stratum")
    w = (M_h / K_h)[codes]
    X = np.sum(w * stats.n)
    R = float(np.sum(w * stats.s) / X)
    z = (stats.s - R * stats.n) / X
    a = M_h * M_h * (1 - K_h / M_h) * _group_var(z, codes, labels.size) / K_h
    return DesignEstimate(
        "stratified_ratio",
        "micro",
        R,
        float(np.sqrt(a.sum())),
        _satterthwaite(a, K_h),
        census=bool(np.all(K_h == M_h)),
    )


def two_stage_type_mean(stats: DocStats, population: Mapping[str, int]) -> DesignEstimate:
    """Mean over types of the mean document rate; types then documents, FPC at both stages.

    ``population`` lists every type of the population with its number of documents
    (so T = its length).
    """
    labels, codes, k_i, M_i = _strata(stats, population, "type")
    t, T = labels.size, len(population)
    if t < 2:
        raise DesignError("two-stage design needs at least two sampled types")
    r = stats.r
    rbar = np.bincount(codes, weights=r, minlength=t) / k_i
    between = (1 - t / T) * np.var(rbar, ddof=1) / t
    within = (t / T) * np.sum((1 - k_i / M_i) * _group_var(r, codes, t) / k_i) / t**2
    return DesignEstimate(
        "two_stage_t",
        "type_mean",
        float(rbar.mean()),
        float(np.sqrt(between + within)),
        t - 1.0,
        census=t == T and bool(np.all(k_i == M_i)),
    )
