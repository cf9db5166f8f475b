"""The small-K candidates as `analyze` computes them: by name, and when the table picks one.

The candidates (`names.SMALL_K_METHODS`; formulas in docs/guide/small-k-methods.md) are not
in every listing: `analyze` computes one when it is asked for by name, or when the built-in
coverage table (`inference.defaults`) would recommend it for this estimand, number of
documents and kind of score — the table's pick among all methods, and its pick among the
range-respecting ones (the fallback when the first leaves the range on the sample).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from ragstat.inference.bayes import beta_binomial
from ragstat.inference.bca import doc_bootstrap_bca
from ragstat.inference.calibrated import doc_bootstrap_calibrated
from ragstat.inference.defaults import (
    BOUNDED_METHODS,
    NEVER_RECOMMENDED,
    TABLE_LEVEL,
    family_rows,
    nearest_k,
    pick_row,
    table_section,
)
from ragstat.inference.jackknife import cr3_bm
from ragstat.inference.methods import Sample
from ragstat.inference.names import SMALL_K_METHODS
from ragstat.inference.results import Interval
from ragstat.inference.wild import wcr

__all__ = ["CANDIDATES", "MAX_CANDIDATE_K", "small_k_interval", "table_candidates"]

#: Most documents for which the table's candidate picks are computed unasked: the contest
#: measured K ≤ 80, and some candidates cost B × K (WCR) or B₁ × B₂ × K (the double
#: bootstrap); beyond, the pick is the table's among the usual methods.
MAX_CANDIDATE_K = 200

_NOT_BINARY = "the beta-binomial model is for 0/1 scores"

Compute = Callable[[Sample, str, np.random.Generator], Interval]


def _beta_binomial(x: Sample, estimand: str, rng: np.random.Generator) -> Interval:
    if not x.binary:
        theta = x.estimate(estimand)
        return Interval.unavailable("beta_binomial", estimand, theta, x.level, "posterior",
                                    _NOT_BINARY)  # fmt: skip
    return beta_binomial(x, estimand, rng)


#: The candidates' functions, in `SMALL_K_METHODS` order.
CANDIDATES: dict[str, Compute] = {
    "cr3_bm": lambda x, e, _rng: cr3_bm(x, e),
    "wcr": wcr,
    "doc_bootstrap_bca": doc_bootstrap_bca,
    "beta_binomial": _beta_binomial,
    "doc_bootstrap_calibrated": lambda x, e, rng: doc_bootstrap_calibrated(x, e, rng),
}


def small_k_interval(name: str, x: Sample, estimand: str, rng: np.random.Generator) -> Interval:
    """One candidate's interval for the micro or macro mean of ``x``."""
    return CANDIDATES[name](x, estimand, rng)


def table_candidates(estimand: str, K: int, level: float, kind: str) -> set[str]:
    """The candidates the built-in table would recommend here (none off its level): those
    ranked above the first built-in method, among all methods and among the
    range-respecting ones."""
    if table_section(kind) is None or not math.isclose(level, TABLE_LEVEL):
        return set()
    if K > MAX_CANDIDATE_K:
        return set()
    k = nearest_k(K, _ks(kind))
    rows = [r for r in family_rows(estimand, k, kind) if r.method not in NEVER_RECOMMENDED]
    picks: set[str] = set()
    for pool in (rows, [r for r in rows if r.method in BOUNDED_METHODS]):
        # every candidate ranked above the first built-in method: if the sample leaves one
        # without an interval, the next in the table's order is computed too
        while (found := pick_row(pool, level)) is not None and found[0].method in CANDIDATES:
            picks.add(found[0].method)
            pool = [r for r in pool if r.method != found[0].method]
    return picks & set(SMALL_K_METHODS) & set(CANDIDATES)


def _ks(kind: str) -> list[int]:
    section = table_section(kind)
    return [] if section is None else list(section["settings"]["ks"])
