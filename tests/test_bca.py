"""BCa document bootstrap against scipy.stats.bootstrap(method="BCa") on the same resamples.

scipy resamples observations: documents are the observations. macro: scipy resamples
the document rates with the statistic ``mean``; micro: it resamples document indices
with the statistic Σ s / Σ n over them. Both draw ``rng.integers(0, K, (B, K))`` as
ragstat's document bootstrap does, so one seed gives one replicate set.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as sps

from ragstat.inference.bca import bca_limits, doc_bootstrap_bca, jackknife_estimates
from ragstat.inference.bootstrap import doc_bootstrap
from ragstat.inference.methods import Sample
from small_k_data import load, synthetic

REPS = 1999


def _scipy(x: Sample, estimand: str, seed: int, level: float = 0.95):
    if estimand == "macro":
        data, stat = (x.s / x.n,), np.mean
    else:
        n, s = x.n, x.s

        def stat(idx, axis=-1):
            i = np.asarray(idx, dtype=np.int64)
            return s[i].sum(axis=axis) / n[i].sum(axis=axis)

        data = (np.arange(x.K),)
    return sps.bootstrap(
        data, stat, n_resamples=REPS, confidence_level=level, method="BCa",
        rng=np.random.default_rng(seed), vectorized=True,
    )  # fmt: skip


@pytest.mark.parametrize("name", ["k5_continuous", "k8_binary", "k10_continuous"])
@pytest.mark.parametrize("estimand", ["micro", "macro"])
def test_equal_to_scipy_on_the_same_resamples(name: str, estimand: str) -> None:
    x = load(name, reps=REPS)
    ref = _scipy(x, estimand, seed=11)
    iv = doc_bootstrap_bca(x, estimand, np.random.default_rng(11))
    draws = doc_bootstrap(x.n, x.s, estimand, REPS, np.random.default_rng(11))
    np.testing.assert_allclose(draws.theta, ref.bootstrap_distribution, rtol=1e-14)
    lo, hi = ref.confidence_interval
    assert iv.lower == pytest.approx(lo, abs=1e-12, rel=0)
    assert iv.upper == pytest.approx(hi, abs=1e-12, rel=0)
    assert iv.replicates == REPS and iv.method == "doc_bootstrap_bca"


def test_level_90_equal_to_scipy() -> None:
    x = synthetic(15, seed=2, reps=REPS)
    x = Sample(**{**x.__dict__, "level": 0.90})
    ref = _scipy(x, "micro", seed=3, level=0.90)
    iv = doc_bootstrap_bca(x, "micro", np.random.default_rng(3))
    assert (iv.lower, iv.upper) == pytest.approx(tuple(ref.confidence_interval), abs=1e-12)


def _brute_jackknife(n: np.ndarray, s: np.ndarray, estimand: str) -> np.ndarray:
    K = len(n)
    if estimand == "macro":
        return np.array([np.mean(np.delete(s / n, d)) for d in range(K)])
    return np.array([np.delete(s, d).sum() / np.delete(n, d).sum() for d in range(K)])


@pytest.mark.parametrize("estimand", ["micro", "macro"])
def test_z0_and_acceleration_by_hand(estimand: str) -> None:
    x = synthetic(12, seed=9, reps=REPS)
    draws = doc_bootstrap(x.n, x.s, estimand, REPS, np.random.default_rng(4))
    theta = x.estimate(estimand)
    jack = _brute_jackknife(x.n, x.s, estimand)
    np.testing.assert_allclose(jackknife_estimates(x.n, x.s, estimand), jack, rtol=1e-13)
    got = bca_limits(theta, draws.theta, jack, 0.95)
    below = np.mean(draws.theta < theta) + 0.5 * np.mean(draws.theta == theta)
    assert got.z0 == pytest.approx(sps.norm.ppf(below), rel=1e-12)
    d = jack.mean() - jack  # Efron & Tibshirani (14.15)
    a = np.sum(d**3) / (6 * np.sum(d**2) ** 1.5)
    assert got.a == pytest.approx(a, rel=1e-10)
    z = sps.norm.ppf(0.025)
    a1 = sps.norm.cdf(got.z0 + (got.z0 + z) / (1 - a * (got.z0 + z)))
    assert got.alpha_1 == pytest.approx(a1, rel=1e-10)
    assert got.lower == pytest.approx(np.quantile(draws.theta, a1), rel=1e-12)


def test_symmetric_case_is_the_percentile_interval() -> None:
    """z₀ = 0 and a = 0 give α₁ = α/2: BCa reduces to the percentile interval."""
    reps = np.linspace(-1.0, 1.0, 2001)
    jack = np.array([-1.0, 0.0, 1.0])
    got = bca_limits(0.0, reps, jack, 0.95)
    assert got.z0 == 0 and got.a == 0
    assert (got.lower, got.upper) == pytest.approx(tuple(np.quantile(reps, [0.025, 0.975])))


def test_reuses_given_draws_fpc_and_degenerate() -> None:
    x = synthetic(10, seed=1, reps=999)
    draws = doc_bootstrap(x.n, x.s, "micro", 999, np.random.default_rng(5))
    a = doc_bootstrap_bca(x, "micro", np.random.default_rng(99), draws=draws)
    b = doc_bootstrap_bca(x, "micro", np.random.default_rng(5))
    assert a == b
    q = doc_bootstrap_bca(Sample(**{**x.__dict__, "fpc": 0.25}), "micro", np.random.default_rng(5))
    assert q.upper - q.estimate == pytest.approx(0.5 * (b.upper - b.estimate))  # type: ignore[operator]
    n = np.array([3.0, 5.0, 4.0])
    flat = Sample(n=n, s=0.5 * n, q=0.5 * n, binary=True, level=0.95, fpc=1.0, reps=99, w=0 * n)
    iv = doc_bootstrap_bca(flat, "micro", np.random.default_rng(0))
    assert not iv.available and iv.replicates == 99
