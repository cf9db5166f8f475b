"""The batch beta-binomial interval equals the library's `beta_binomial`, sample by sample."""

from __future__ import annotations

import numpy as np
import pytest

from ragstat.inference.bayes import beta_binomial, posterior_grid
from ragstat.inference.methods import Sample
from ragstat.simulation.batch_bayes import (
    beta_binomial_batch,
    beta_binomial_batch_bounds,
    posterior_grids,
)
from small_k_data import synthetic

#: (K, samples): 32 binary samples with unequal document sizes (2..40 queries).
GROUPS = ((3, 4), (5, 6), (8, 6), (13, 6), (24, 5), (40, 5))
LEVEL = 0.95


def _group(K: int, count: int, reps: int = 999) -> tuple[list[Sample], np.ndarray, np.ndarray]:
    xs = [synthetic(K, seed=100 * K + i, reps=reps) for i in range(count)]
    return xs, np.stack([x.n for x in xs]), np.stack([x.s for x in xs])


def _bounds(b, i: int) -> tuple[float, float]:
    return float(b.lower[i]), float(b.upper[i])


@pytest.mark.parametrize(("K", "count"), GROUPS)
@pytest.mark.parametrize("size", [121, 61])
def test_grid_equals_the_library_grid(K: int, count: int, size: int) -> None:
    """Same cells (bit for bit) and the same probabilities (to rounding) for every sample."""
    xs, n, s = _group(K, count)
    post = posterior_grids(n, s, size=size)
    for i, x in enumerate(xs):
        ref = posterior_grid(x.n, x.s, size=size)
        assert np.array_equal(np.repeat(post.eta[i], post.lam.shape[1]), ref.eta)
        assert np.array_equal(np.tile(post.lam[i], post.eta.shape[1]), ref.lam)
        assert (post.d_eta[i], post.d_lam[i]) == (ref.d_eta, ref.d_lam)
        np.testing.assert_allclose(post.prob[i], ref.prob, rtol=0, atol=1e-10 * ref.prob.max())


@pytest.mark.parametrize(("K", "count"), GROUPS)
def test_document_draws_are_the_libraries_for_the_same_generator(K: int, count: int) -> None:
    """Micro ("documents"): one sample per block, so the batch consumes the generator as
    the library does when called on the samples in turn — equal bounds to 1e-10."""
    xs, n, s = _group(K, count)
    for population, estimand in (("documents", "micro"), ("documents", "macro")):
        got = beta_binomial_batch(
            n, s, (estimand,), level=LEVEL, fpc=1.0, rng=np.random.default_rng(K),
            draws=999, population=population,
        )[estimand]  # fmt: skip
        rng = np.random.default_rng(K)
        for i, x in enumerate(xs):
            ref = beta_binomial(x, estimand, rng, population=population, draws=999)
            assert got.available[i]
            assert _bounds(got, i) == pytest.approx((ref.lower, ref.upper), abs=1e-10)


@pytest.mark.parametrize(("K", "count"), GROUPS)
def test_model_quantiles_invert_the_library_posterior(K: int, count: int) -> None:
    """Macro ("model"): the bounds are the exact α/2, 1 − α/2 quantiles of the library's
    grid posterior of μ (its own `mu_cdf`), and the library's draws agree within MC error."""
    xs, n, s = _group(K, count)
    got = beta_binomial_batch_bounds(
        n, s, "macro", level=LEVEL, fpc=1.0, rng=np.random.default_rng(0), tol=np.zeros(count)
    )
    for i, x in enumerate(xs):
        post = posterior_grid(x.n, x.s)
        lo, hi = _bounds(got, i)
        assert post.mu_cdf(lo) == pytest.approx(0.025, abs=1e-10)
        assert post.mu_cdf(hi) == pytest.approx(0.975, abs=1e-10)
        ref = beta_binomial(x, "macro", np.random.default_rng(i), draws=40_000)
        # 40,000 draws: the 2.5 % quantile's MC SE is ≈ 0.0008 / density ≤ 0.003 here.
        assert (lo, hi) == pytest.approx((ref.lower, ref.upper), abs=0.012)


def test_blocks_of_several_samples_agree_within_monte_carlo_error() -> None:
    """size 61 puts four samples in a block (their draws interleave differently from the
    library's): bounds within MC error of the library's with 20,000 draws."""
    xs, n, s = _group(20, 8)
    got = beta_binomial_batch(
        n, s, ("micro", "macro"), level=LEVEL, fpc=1.0, rng=np.random.default_rng(3),
        draws=4_000, size=61,
    )  # fmt: skip
    for i, x in enumerate(xs):
        for e in ("micro", "macro"):
            ref = beta_binomial(x, e, np.random.default_rng(i), draws=20_000)
            assert _bounds(got[e], i) == pytest.approx((ref.lower, ref.upper), abs=0.015)


def test_finite_population_census_and_estimates() -> None:
    xs, n, s = _group(10, 4)
    kw = {"level": LEVEL, "draws": 999}
    full = beta_binomial_batch(
        n, s, ("micro", "macro"), fpc=1.0, rng=np.random.default_rng(1), **kw
    )
    quarter = beta_binomial_batch(
        n, s, ("micro", "macro"), fpc=0.25, rng=np.random.default_rng(1), **kw
    )
    census = beta_binomial_batch(n, s, ("micro", "macro"), fpc=0.0, rng=None, **kw)  # type: ignore[arg-type]
    for i, x in enumerate(xs):
        for e in ("micro", "macro"):
            theta = x.estimate(e)
            assert quarter[e].upper[i] - theta == pytest.approx(0.5 * (full[e].upper[i] - theta))
            assert quarter[e].lower[i] - theta == pytest.approx(0.5 * (full[e].lower[i] - theta))
            cen = beta_binomial(Sample(**{**x.__dict__, "fpc": 0.0}), e, np.random.default_rng(0))
            assert census[e].available[i]
            assert _bounds(census[e], i) == pytest.approx((cen.lower, cen.upper), abs=1e-15)


def test_scores_that_are_not_zero_one_are_unavailable_as_in_the_library() -> None:
    x = synthetic(8, seed=4, binary=False)
    assert not beta_binomial(x, "micro", np.random.default_rng(0)).available
    n, s = x.n[None, :], x.s[None, :]
    for binary in (True, False):  # continuous totals are not integers: refused either way
        b = beta_binomial_batch_bounds(
            n, s, "micro", level=LEVEL, fpc=1.0, rng=np.random.default_rng(0), binary=binary
        )
        assert not b.available[0] and np.isnan(b.lower[0]) and np.isnan(b.upper[0])
    _, nb, sb = _group(8, 3)
    mixed_n, mixed_s = np.vstack([nb, n]), np.vstack([sb, s])
    b = beta_binomial_batch_bounds(
        mixed_n, mixed_s, "macro", level=LEVEL, fpc=1.0, rng=np.random.default_rng(0)
    )
    assert b.available.tolist() == [True, True, True, False]
    off = beta_binomial_batch_bounds(
        nb, sb, "macro", level=LEVEL, fpc=1.0, rng=np.random.default_rng(0), binary=False
    )
    assert not off.available.any()
