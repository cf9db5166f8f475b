"""Calibrated document bootstrap (double bootstrap) against a plain-Python double loop.

The reference walks every outer resample and every inner resample of it with the same
injected indices, computes each estimate as a ratio of plain sums, compares it with the
original estimate on the estimate's own scale (a tie within the documented tolerance
counts half) and takes quantiles with numpy's linear rule written out by hand. The
library function and the batch function must give its limits to 1e-12.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from ragstat.inference.calibrated import (
    CalibrationDraws,
    centred_values,
    doc_bootstrap_calibrated,
    draw_indices,
    inner_documents,
    tie_shares,
)
from ragstat.inference.methods import Sample
from ragstat.inference.resampling import doc_bootstrap_intervals
from ragstat.simulation.batch_calibrated import calibrated_batch_bounds
from small_k_data import sample_from

B1, B2 = 30, 20


def _sample(K: int, seed: int, binary: bool, level: float = 0.95, fpc: float = 1.0) -> Sample:
    """K documents of 1..30 queries (unequal sizes), 0/1 or continuous scores."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 31, size=K)
    doc = np.repeat(np.arange(K), sizes)
    p = rng.beta(2.0, 3.0, size=K)
    y = rng.binomial(1, p[doc]).astype(float) if binary else rng.beta(2, 2, size=doc.size) * p[doc]
    return sample_from(doc, y, level=level, fpc=fpc)


def _tied(K: int, seed: int) -> Sample:
    """Four queries per document, 0..4 correct: many inner resamples tie with θ̂."""
    s = np.random.default_rng(seed).integers(0, 5, size=K).astype(float)
    n = np.full(K, 4.0)
    return Sample(n=n, s=s, q=s, binary=True, level=0.95, fpc=1.0, reps=99, w=s - s * s / n)


def _linear_quantile(values: list[float], p: float) -> float:
    """numpy's default (linear) quantile, by hand."""
    xs = sorted(values)
    h = (len(xs) - 1) * p
    j = math.floor(h)
    if j + 1 >= len(xs):
        return xs[-1]
    return xs[j] + (h - j) * (xs[j + 1] - xs[j])


def _estimate(x: Sample, docs: list[int], estimand: str) -> tuple[float, float]:
    """(estimate, weight): micro Σ s / Σ n with weight Σ n; macro mean rate with weight K."""
    if estimand == "micro":
        S, N = sum(float(x.s[d]) for d in docs), sum(float(x.n[d]) for d in docs)
        return S / N, N
    return sum(float(x.s[d] / x.n[d]) for d in docs) / len(docs), float(len(docs))


def _tie(x: Sample, estimand: str) -> float:
    """The documented tie tolerance on the centred sums c·v."""
    K, theta = x.K, x.estimate(estimand)
    if estimand == "micro":
        big = max(abs(float(s)) + abs(theta) * float(n) for n, s in zip(x.n, x.s, strict=True))
    else:
        big = max(abs(float(s / n)) + abs(theta) for n, s in zip(x.n, x.s, strict=True))
    return 1e-12 * K * big


def _brute(x: Sample, estimand: str, d: CalibrationDraws) -> tuple[float, float, list[float]]:
    """(lower, upper, shares u_b) by the double loop; fpc as the percentile interval."""
    theta, tie = x.estimate(estimand), _tie(x, estimand)
    outer_est, shares = [], []
    for b in range(d.outer.shape[0]):
        docs = [int(i) for i in d.outer[b]]
        outer_est.append(_estimate(x, docs, estimand)[0])
        halves = 0
        for j in range(d.inner.shape[1]):
            t, weight = _estimate(x, [docs[int(p)] for p in d.inner[b, j]], estimand)
            if abs(t - theta) * weight <= tie:  # |c·v| ≤ tie
                halves += 1
            elif t < theta:
                halves += 2
        shares.append(halves / (2 * d.inner.shape[1]))
    q_lo = _linear_quantile(shares, x.alpha / 2)
    q_hi = _linear_quantile(shares, 1 - x.alpha / 2)
    f = math.sqrt(x.fpc)
    lo, hi = _linear_quantile(outer_est, q_lo), _linear_quantile(outer_est, q_hi)
    return theta + f * (lo - theta), theta + f * (hi - theta), shares


CASES = [
    (K, seed, binary, level, fpc)
    for i, K in enumerate((3, 4, 5, 7, 10, 13, 20, 28, 40))
    for binary in (True, False)
    for seed, level, fpc in ((i, 0.95, 1.0), (100 + i, 0.90, 0.6))
]  # 36 samples
SAMPLES = [_sample(*case) for case in CASES] + [_tied(K, K) for K in (3, 4, 5, 6, 8)]


@pytest.mark.parametrize("estimand", ["micro", "macro"])
def test_library_equals_the_double_loop(estimand: str) -> None:
    for i, x in enumerate(SAMPLES):
        d = draw_indices(np.random.default_rng(i + 7), x.K, B1, B2)
        lo, hi, _ = _brute(x, estimand, d)
        iv = doc_bootstrap_calibrated(x, estimand, np.random.default_rng(0), draws=d)
        assert iv.available and iv.method == "doc_bootstrap_calibrated"
        assert iv.lower == pytest.approx(lo, abs=1e-12, rel=0), i
        assert iv.upper == pytest.approx(hi, abs=1e-12, rel=0), i
        assert iv.replicates == B1 and iv.level == x.level


@pytest.mark.parametrize("estimand", ["micro", "macro"])
def test_shares_count_ties_half(estimand: str) -> None:
    """Every u_b of the library's building blocks equals the double loop's exactly."""
    ties = 0
    for i, x in enumerate(SAMPLES):
        d = draw_indices(np.random.default_rng(i + 7), x.K, B1, B2)
        v, tie = centred_values(x.n, x.s, estimand)
        sums = v[inner_documents(d, slice(None))].sum(axis=2)
        assert tie_shares(sums, tie).tolist() == _brute(x, estimand, d)[2], i
        ties += int(np.count_nonzero(np.abs(sums) <= tie))
    assert ties > 200  # exact ties (each document once; equal rates in `_tied`) do occur


@pytest.mark.parametrize("estimand", ["micro", "macro"])
@pytest.mark.parametrize("K", [3, 5, 10, 17, 40])
def test_batch_equals_library_and_double_loop(estimand: str, K: int) -> None:
    xs = [_sample(K, 10 * K + i, binary=i % 2 == 0, level=0.9, fpc=0.8) for i in range(6)]
    xs.append(Sample(**{**_tied(K, K).__dict__, "level": 0.9, "fpc": 0.8}))
    d = draw_indices(np.random.default_rng(K), K, B1, B2)
    n, s = np.stack([x.n for x in xs]), np.stack([x.s for x in xs])
    tol = np.array([x.tol() for x in xs])
    got = calibrated_batch_bounds(
        n, s, estimand, level=0.9, fpc=0.8, rng=np.random.default_rng(1), tol=tol,
        draws=d,
    )  # fmt: skip
    assert got.available.all()
    for i, x in enumerate(xs):
        iv = doc_bootstrap_calibrated(x, estimand, np.random.default_rng(0), draws=d)
        lo, hi, _ = _brute(x, estimand, d)
        assert got.lower[i] == pytest.approx(iv.lower, abs=1e-12, rel=0)
        assert got.upper[i] == pytest.approx(iv.upper, abs=1e-12, rel=0)
        assert (got.lower[i], got.upper[i]) == pytest.approx((lo, hi), abs=1e-12, rel=0)


def test_drawn_indices_are_those_of_the_injected_path() -> None:
    """Without ``draws`` the library draws `draw_indices(rng, K, outer, inner)`, and the
    batch draws one such set per group of samples, the first group first."""
    x = _sample(12, 3, binary=True)
    d = draw_indices(np.random.default_rng(5), 12, 50, 40)
    a = doc_bootstrap_calibrated(x, "micro", np.random.default_rng(5), outer=50, inner=40)
    b = doc_bootstrap_calibrated(x, "micro", np.random.default_rng(0), draws=d)
    assert (a.lower, a.upper) == (b.lower, b.upper)
    got = calibrated_batch_bounds(
        x.n[None], x.s[None], "micro", level=0.95, fpc=1.0, rng=np.random.default_rng(5),
        tol=np.array([x.tol()]), outer=50, inner=40,
    )  # fmt: skip
    assert (got.lower[0], got.upper[0]) == pytest.approx((a.lower, a.upper), abs=1e-12, rel=0)


def _equal_rates(K: int) -> Sample:
    n = np.arange(2.0, 2.0 + 2 * K, 2.0)  # unequal sizes, every rate 1/2
    return Sample(n=n, s=n / 2, q=n / 2, binary=True, level=0.95, fpc=1.0, reps=99, w=n / 4)


@pytest.mark.parametrize("estimand", ["micro", "macro"])
def test_unavailable_without_between_document_variation(estimand: str) -> None:
    x = _equal_rates(8)
    iv = doc_bootstrap_calibrated(x, estimand, np.random.default_rng(1), outer=50, inner=20)
    assert not iv.available and iv.lower is None and "same estimate" in (iv.reason or "")
    pct = doc_bootstrap_intervals(
        x, estimand, np.random.default_rng(1), {"doc_bootstrap_percentile"}
    )
    assert not pct[0].available  # the percentile interval's rule
    y = _sample(8, 4, binary=True)
    n, s = np.stack([x.n, y.n]), np.stack([x.s, y.s])
    got = calibrated_batch_bounds(
        n, s, estimand, level=0.95, fpc=1.0, rng=np.random.default_rng(2),
        tol=np.array([x.tol(), y.tol()]), outer=50, inner=20,
    )  # fmt: skip
    assert got.available.tolist() == [False, True]
    assert np.isnan(got.lower[0]) and np.isnan(got.upper[0])
    assert got.lower[1] < y.estimate(estimand) < got.upper[1]


@pytest.mark.parametrize("estimand", ["micro", "macro"])
def test_census_is_the_point_interval(estimand: str) -> None:
    x = _sample(10, 6, binary=False, fpc=0.0)
    theta = x.estimate(estimand)
    iv = doc_bootstrap_calibrated(x, estimand, np.random.default_rng(1))
    assert iv.available and iv.lower == iv.upper == theta and iv.fpc == 0.0
    z = _equal_rates(10)  # a census is a point even without variation
    n, s = np.stack([x.n, z.n]), np.stack([x.s, z.s])
    got = calibrated_batch_bounds(
        n, s, estimand, level=0.95, fpc=0.0, rng=np.random.default_rng(1),
        tol=np.array([x.tol(), z.tol()]),
    )  # fmt: skip
    assert got.available.all()
    assert got.lower.tolist() == got.upper.tolist()
    assert got.lower == pytest.approx([theta, z.estimate(estimand)], abs=1e-15, rel=0)
