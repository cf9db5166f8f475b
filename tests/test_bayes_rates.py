"""The beta-binomial posterior: grid against exact answers and an independent integration."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as sps
from scipy.special import betaln

from ragstat.inference.bayes import (
    beta_binomial,
    log_prior,
    posterior_draws,
    posterior_grid,
    rate_draws,
)
from ragstat.inference.methods import Sample
from small_k_data import load, synthetic

QUANTILES = (0.025, 0.16, 0.5, 0.84, 0.975)
#: The default grid's error in posterior probability (measured ≤ 5e-4 on these cases):
#: below the Monte Carlo error of the 2.5 % quantile of 9,999 draws (±0.0016).
GRID_TOL = 1e-3


def test_single_query_documents_give_the_conjugate_beta() -> None:
    """n_d = 1: each s_d is Bernoulli(μ) whatever φ, so μ | data ~ Beta(1 + S, 1 + K − S)."""
    s = np.array([1, 0, 0, 1, 1, 0, 1, 1, 1, 0, 1, 1], dtype=float)
    n = np.ones_like(s)
    post = posterior_grid(n, s)
    exact = sps.beta(1 + s.sum(), 1 + len(s) - s.sum())
    for q in QUANTILES:
        assert post.mu_cdf(exact.ppf(q)) == pytest.approx(q, abs=GRID_TOL)
    fine = posterior_grid(n, s, size=301)  # the error shrinks with the grid
    for q in QUANTILES:
        assert fine.mu_cdf(exact.ppf(q)) == pytest.approx(q, abs=1e-4)


def test_phi_known_and_huge_is_the_binomial_conjugate() -> None:
    """φ → ∞ (no document effect): μ | data ~ Beta(1 + S, 1 + N − S)."""
    x = load("k8_binary")
    post = posterior_grid(x.n, x.s, phi=1e9)
    exact = sps.beta(1 + x.s.sum(), 1 + x.N - x.s.sum())
    for q in QUANTILES:
        assert post.mu_cdf(exact.ppf(q)) == pytest.approx(q, abs=GRID_TOL)


def _brute_cdf(n: np.ndarray, s: np.ndarray, cuts: np.ndarray, m: int = 700) -> np.ndarray:
    """P(μ ≤ c | data) by the midpoint rule on (μ, ρ) ∈ (0, 1)², where the prior is flat."""
    mu = (np.arange(m) + 0.5) / m
    rho = (np.arange(m) + 0.5) / m
    M, P = np.meshgrid(mu, rho, indexing="ij")
    phi = (1 - P) / P
    a, b = M * phi, (1 - M) * phi
    logl = sum(betaln(sd + a, nd - sd + b) - betaln(a, b) for nd, sd in zip(n, s, strict=True))
    w = np.exp(logl - logl.max()).sum(axis=1)  # marginal over ρ
    w /= w.sum()
    edges = np.arange(m + 1) / m
    return np.array([np.sum(w * np.clip((c - edges[:-1]) * m, 0, 1)) for c in cuts])


@pytest.mark.parametrize("name", ["k5_binary", "k10_binary"])
def test_grid_equals_an_independent_integration(name: str) -> None:
    x = load(name)
    post = posterior_grid(x.n, x.s)
    grid_median = _bisect(post.mu_cdf, 0.5)
    cuts = np.array([grid_median - 0.15, grid_median - 0.05, grid_median, grid_median + 0.1])
    brute = _brute_cdf(x.n, x.s, cuts)
    mine = np.array([post.mu_cdf(c) for c in cuts])
    np.testing.assert_allclose(mine, brute, atol=2e-3)


def _bisect(cdf, q: float) -> float:
    lo, hi = 1e-9, 1 - 1e-9
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if cdf(mid) < q else (lo, mid)
    return 0.5 * (lo + hi)


def test_prior_is_uniform_in_mu_and_icc() -> None:
    """The density on (logit μ, log φ) maps back to 1 on (μ, ρ) (Jacobian by hand)."""
    mu, rho = np.array([0.1, 0.5, 0.83]), np.array([0.02, 0.4, 0.9])
    phi = (1 - rho) / rho
    eta, lam = np.log(mu / (1 - mu)), np.log(phi)
    jacobian = mu * (1 - mu) * phi / (1 + phi) ** 2  # |d(μ, ρ)/d(η, λ)|
    np.testing.assert_allclose(np.exp(log_prior(eta, lam)), jacobian, rtol=1e-12)


def test_document_draws_have_the_conjugate_mean() -> None:
    """Fixed (μ, φ): E[Σ g_d p_d] = mean_d (μφ + s_d)/(φ + n_d) (g Dirichlet, p conjugate)."""
    x = synthetic(6, seed=2)
    D = 200_000
    mu, phi = np.full(D, 0.3), np.full(D, 4.0)
    got = rate_draws(mu, phi, x.n, x.s, "macro", np.random.default_rng(0))
    expected = np.mean((0.3 * 4.0 + x.s) / (4.0 + x.n))
    assert got.mean() == pytest.approx(expected, abs=4 * got.std() / np.sqrt(D))
    micro = rate_draws(mu, phi, x.n, x.s, "micro", np.random.default_rng(0))
    assert np.all((micro > 0) & (micro < 1))


def test_draws_follow_the_grid() -> None:
    x = load("k8_binary")
    post = posterior_grid(x.n, x.s)
    mu, _ = posterior_draws(post, 40_000, np.random.default_rng(1))
    for q in (0.1, 0.5, 0.9):
        c = np.quantile(mu, q)
        assert post.mu_cdf(c) == pytest.approx(q, abs=0.01)


def test_interval_contract() -> None:
    x = load("k10_binary", reps=2_000)
    a = beta_binomial(x, "macro", np.random.default_rng(3))
    b = beta_binomial(x, "macro", np.random.default_rng(3))
    assert a == b and a.method == "beta_binomial" and a.replicates == 2_000
    assert a.lower < a.estimate < a.upper and "model" in a.reference  # type: ignore[operator]
    m = beta_binomial(x, "micro", np.random.default_rng(3))
    assert "documents" in m.reference and m.lower < m.estimate < m.upper  # type: ignore[operator]
    q = beta_binomial(Sample(**{**x.__dict__, "fpc": 0.25}), "macro", np.random.default_rng(3))
    assert q.upper - q.estimate == pytest.approx(0.5 * (a.upper - a.estimate))  # type: ignore[operator]
    assert beta_binomial(Sample(**{**x.__dict__, "fpc": 0.0}), "macro", None).width == 0  # type: ignore[arg-type]
    cont = load("k10_continuous")
    assert not beta_binomial(cont, "micro", np.random.default_rng(0)).available
    with pytest.raises(ValueError):
        beta_binomial(x, "macro", np.random.default_rng(0), population="sample")


def test_all_zero_scores_stay_near_zero() -> None:
    n = np.array([12.0, 30.0, 7.0, 20.0])
    x = Sample(n=n, s=0 * n, q=0 * n, binary=True, level=0.95, fpc=1.0, reps=2000, w=0 * n)
    iv = beta_binomial(x, "macro", np.random.default_rng(0))
    assert iv.available and 0 < iv.lower < iv.upper < 0.5  # type: ignore[operator]


@pytest.mark.slow
def test_coverage_sanity_on_beta_binomial_data() -> None:
    """On data from the model itself, the μ interval covers about 95 % (K = 15)."""
    rng = np.random.default_rng(2026)
    mu, phi, K, hits, R = 0.3, 6.0, 15, 0, 300
    for _ in range(R):
        n = rng.integers(3, 40, size=K).astype(float)
        p = rng.beta(mu * phi, (1 - mu) * phi, size=K)
        s = rng.binomial(n.astype(int), p).astype(float)
        x = Sample(n=n, s=s, q=s, binary=True, level=0.95, fpc=1.0, reps=2000, w=s - s * s / n)
        iv = beta_binomial(x, "macro", rng)
        hits += bool(iv.covers(mu))
    se = np.sqrt(0.95 * 0.05 / R)
    assert abs(hits / R - 0.95) < 3.5 * se
