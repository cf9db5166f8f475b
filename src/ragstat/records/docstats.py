"""`DocStats`: one row per document, the sufficient statistics of the interval guide, step 1.

For a per-query score y grouped by its sampling unit d (the document):

    n_d = number of queries,  s_d = Σ y,  q_d = Σ y²

and, when the queries carry a ``position`` within their document, the lag-1
sums over neighbouring queries (consecutive positions) of the same document:

    c_d = Σ y_i y_{i+1},  a_d = Σ (y_i + y_{i+1}),  p_d = number of pairs

which give the within-document residual autocorrelation without the raw rows.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ragstat.errors import InputError

__all__ = ["DocStats", "LagSums", "QueryScores", "difference_range", "known_range"]


def known_range(
    observed: tuple[float, float] | None, declared: tuple[float, float] | None = None
) -> tuple[float, float] | None:
    """The range scores are known to lie in: ``declared`` when finite; else [0, 1] when every
    ``observed`` value lies there (a rate); else None (nothing is known).

    An infinite declared range (e.g. ``(−inf, inf)``) says that nothing is known.
    """
    if declared is not None:
        lo, hi = float(declared[0]), float(declared[1])
        return (lo, hi) if np.isfinite(lo) and np.isfinite(hi) and lo < hi else None
    if observed is not None and observed[0] >= 0.0 and observed[1] <= 1.0:
        return (0.0, 1.0)
    return None


def difference_range(
    a: tuple[float, float] | None, b: tuple[float, float] | None
) -> tuple[float, float] | None:
    """The range of A − B for A in [a_lo, a_hi] and B in [b_lo, b_hi]: [a_lo − b_hi, a_hi − b_lo]
    (for two rates [−1, 1]); None when either range is unknown."""
    if a is None or b is None:
        return None
    return (float(a[0]) - float(b[1]), float(a[1]) - float(b[0]))


def _as_float(name: str, values: object, K: int) -> np.ndarray:
    arr = np.asarray(values, dtype=np.float64)
    if arr.shape != (K,):
        raise InputError(f"DocStats.{name} must have one value per document ({K}), got {arr.shape}")
    if not np.isfinite(arr).all():
        bad = int(np.flatnonzero(~np.isfinite(arr))[0])
        raise InputError(f"DocStats.{name} has a non-finite value at document index {bad}")
    return arr


def _ids(values: object) -> np.ndarray:
    raw = np.asarray(values, dtype=object)
    if raw.ndim != 1:
        raise InputError("DocStats.doc_id must be one-dimensional")
    if any(v is None or (isinstance(v, float) and v != v) for v in raw):
        raise InputError("DocStats.doc_id has a missing document id")
    ids = raw.astype(str).astype(object)
    if len(set(ids.tolist())) != ids.shape[0]:
        raise InputError("DocStats.doc_id has duplicate document ids")
    return ids


def _check_counts(doc_id: np.ndarray, n: np.ndarray) -> None:
    if np.any(n <= 0):
        bad = int(np.flatnonzero(n <= 0)[0])
        raise InputError(
            f"document {doc_id[bad]!r} has n = {n[bad]:g}; every document needs n_d > 0"
        )
    if np.any(n != np.round(n)):
        bad = int(np.flatnonzero(n != np.round(n))[0])
        raise InputError(f"document {doc_id[bad]!r} has a non-integer query count n = {n[bad]}")


def _check_sums(doc_id, n, s, q, binary: bool) -> None:
    """q ≥ s²/n (Cauchy–Schwarz); for 0/1 scores s is a whole number in [0, n] and q = s."""
    slack = 1e-9 * np.maximum(q, 1.0)
    bad = q < s * s / n - slack
    if binary:
        bad |= (s < 0) | (s > n) | (s != np.round(s)) | (np.abs(q - s) > slack)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        kind = "0/1 " if binary else ""
        raise InputError(
            f"document {doc_id[i]!r}: n = {n[i]:g}, s = {s[i]:g}, q = {q[i]:g} cannot come from "
            f"{kind}scores (need q ≥ s²/n" + (", s whole in [0, n], q = s)" if binary else ")")
        )


@dataclass(frozen=True, eq=False)
class LagSums:
    """Per-document lag-1 sums over neighbouring queries (see module docstring)."""

    c: np.ndarray
    a: np.ndarray
    p: np.ndarray


@dataclass(frozen=True, eq=False)
class QueryScores:
    """Per-query scores with the index of their document in a `DocStats`.

    Only the naive query bootstrap of non-binary scores needs the rows themselves.
    """

    doc_index: np.ndarray
    y: np.ndarray


@dataclass(frozen=True, eq=False)
class DocStats:
    """Per-document sufficient statistics for one score.

    ``binary`` records whether every per-query score was 0 or 1 (then q = s and
    the naive query-level methods have exact binomial forms); ``score_range`` is
    the (min, max) of the per-query scores when known; ``w`` the centred
    within-document sums of squares Σ_i (y_i − r_d)² when the rows were seen
    (else q − s²/n, which loses precision for scores far from zero). ``m``: for
    sampled queries (:mod:`ragstat.records.weighted`), the number of scored queries
    m_d ≤ n_d of each document, n, s, q being the totals expanded to n_d; None when
    every query was scored. ``bounds``: the range the scores are *known* to lie in (a
    declared range, or [lo − hi, hi − lo] for a difference of two bounded scores) when
    it is not read from the values; ``difference``: the scores are per-query differences
    y_A − y_B of two systems. :meth:`known_bounds` combines them with the values.
    ``non_numeric``: rows left out because their score was not a number (only when the
    user asked to treat such cells as missing, :mod:`ragstat.records.cells`).
    """

    doc_id: np.ndarray
    n: np.ndarray
    s: np.ndarray
    q: np.ndarray
    binary: bool = False
    score_range: tuple[float, float] | None = None
    stratum: np.ndarray | None = None
    lag: LagSums | None = None
    score: str = "score"
    w: np.ndarray | None = None
    m: np.ndarray | None = None
    bounds: tuple[float, float] | None = None
    difference: bool = False
    non_numeric: int = 0

    def __post_init__(self) -> None:
        doc_id = _ids(self.doc_id)
        K = doc_id.shape[0]
        object.__setattr__(self, "doc_id", doc_id)
        for name in ("n", "s", "q"):
            object.__setattr__(self, name, _as_float(name, getattr(self, name), K))
        if self.w is not None:
            object.__setattr__(self, "w", _as_float("w", self.w, K))
        _check_counts(doc_id, self.n)
        if self.m is not None:
            m = _as_float("m", self.m, K)
            _check_counts(doc_id, m)
            if np.any(m > self.n):
                raise InputError("DocStats.m (scored queries) exceeds n for some document")
            object.__setattr__(self, "m", m)
        _check_sums(doc_id, self.n, self.s, self.q, self.binary)
        if self.stratum is not None:
            strata = np.asarray(self.stratum, dtype=object)
            if strata.shape != (K,):
                raise InputError("DocStats.stratum must have one value per document")
            if any(v is None or (isinstance(v, float) and v != v) for v in strata):
                raise InputError("DocStats.stratum has a missing value: every document needs one")
            object.__setattr__(self, "stratum", strata.astype(str).astype(object))
        if self.lag is not None and any(
            x.shape != (K,) for x in (self.lag.c, self.lag.a, self.lag.p)
        ):
            raise InputError("DocStats.lag arrays must have one value per document")

    def scores_within(self, lo: float, hi: float) -> bool:
        """Whether every per-query score is known to lie in [lo, hi]."""
        if self.score_range is not None:
            return lo <= self.score_range[0] and self.score_range[1] <= hi
        return self.binary and lo <= 0 and hi >= 1

    def known_bounds(self) -> tuple[float, float] | None:
        """The range the scores are known to lie in (see :func:`known_range`): ``bounds``
        when set, else [0, 1] when every value lies there, else None."""
        if self.bounds is not None:
            return known_range(None, self.bounds)
        if self.difference:  # a difference's values in [0, 1] do not make it a rate
            return None
        return (0.0, 1.0) if self.scores_within(0.0, 1.0) else None

    @property
    def within_ss(self) -> np.ndarray:
        """Σ_i (y_i − r_d)² per document."""
        return np.maximum(self.q - self.s * self.s / self.n, 0.0) if self.w is None else self.w

    @property
    def K(self) -> int:
        """Number of documents (the sample size)."""
        return int(self.n.shape[0])

    @property
    def N(self) -> float:
        """Number of queries, Σ n_d (a weight, never the sample size)."""
        return float(self.n.sum())

    @property
    def r(self) -> np.ndarray:
        """Per-document rates r_d = s_d / n_d."""
        return self.s / self.n

    def subset(self, index: np.ndarray) -> DocStats:
        """The documents at ``index`` (integer positions or a boolean mask)."""
        lag = self.lag
        if lag is not None:
            lag = LagSums(c=lag.c[index], a=lag.a[index], p=lag.p[index])
        return DocStats(
            doc_id=self.doc_id[index],
            n=self.n[index],
            s=self.s[index],
            q=self.q[index],
            binary=self.binary,
            score_range=self.score_range,
            stratum=None if self.stratum is None else self.stratum[index],
            lag=lag,
            score=self.score,
            w=None if self.w is None else self.w[index],
            m=None if self.m is None else self.m[index],
            bounds=self.bounds,
            difference=self.difference,
            non_numeric=self.non_numeric,
        )

    def to_frame(self):
        """A pandas DataFrame with one row per document."""
        import pandas as pd

        cols = {"doc_id": self.doc_id, "n": self.n, "s": self.s, "q": self.q}
        if self.stratum is not None:
            cols["stratum"] = self.stratum
        return pd.DataFrame(cols)
