"""The batch WCR and BCa intervals equal the per-sample library functions, sample by sample.

WCR (`simulation.batch_wild`) against `inference.wild.wcr` with the same weight matrix
(enumerated, or drawn from the same seed); BCa (`simulation.batch_bca`) against
`inference.bca.doc_bootstrap_bca` on the same resamples (the library draws its document
indices from a seeded generator; the batch gets those indices as counts). The BCa
samples live on a dyadic grid (sizes powers of two, scores multiples of 1/256), where
every sum is exact: a replicate equal to θ̂ (a tie, counted half in z₀) is then equal in
both, whatever the order of the additions.
"""

from __future__ import annotations

import numpy as np
import pytest

from ragstat.inference.bca import doc_bootstrap_bca
from ragstat.inference.bootstrap import DocBootstrap, doc_bootstrap
from ragstat.inference.methods import Sample
from ragstat.inference.wild import WildFit, wcr, wild_weights
from ragstat.simulation.batch_bca import bca_batch_bounds
from ragstat.simulation.batch_boot import count_matrix
from ragstat.simulation.batch_wild import WildBlock, wcr_batch_bounds
from small_k_data import sample_from, synthetic

REPS = 999


def _stack(xs: list[Sample]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    n = np.stack([x.n for x in xs])
    s = np.stack([x.s for x in xs])
    return n, s, np.array([x.tol() for x in xs])


def _assert_same(iv, lower: float, upper: float, available: bool) -> None:
    """Library interval vs one batch row: both unavailable, or equal bounds to 1e-10."""
    assert iv.available == available
    if available:
        assert lower == pytest.approx(iv.lower, abs=1e-10, rel=0)
        assert upper == pytest.approx(iv.upper, abs=1e-10, rel=0)
    else:
        assert np.isnan(lower) and np.isnan(upper)


def _samples(K: int, seed: int, count: int = 3, *, reps: int = REPS, **kw) -> list[Sample]:
    """Binary and continuous samples (unequal sizes 2..40), alternating."""
    xs = [synthetic(K, seed + i, binary=i % 2 == 0, reps=reps) for i in range(count)]
    return [Sample(**{**x.__dict__, **kw}) for x in xs]


# --------------------------------------------------------------------------- WCR


def test_coefficients_equal_the_direct_sums() -> None:
    """A, B, C from the centred matrix products equal `WildFit`'s direct sums over d."""
    xs = _samples(9, 1, 4)
    n, s, _ = _stack(xs)
    v = wild_weights(9, REPS, np.random.default_rng(0), "webb").v
    block = WildBlock.build(n, s, v)
    for i, x in enumerate(xs):
        fit = WildFit.build(x.n, x.s, v)
        assert block.theta[i] == pytest.approx(fit.theta, rel=1e-15)
        assert block.se[i] == pytest.approx(fit.se, rel=1e-14)
        for name in "acABC":
            got, ref = getattr(block, name)[i], getattr(fit, name)
            scale = np.max(np.abs(ref))
            np.testing.assert_allclose(got, ref, rtol=0, atol=1e-12 * scale)


@pytest.mark.parametrize(
    ("K", "weights"), [(3, "auto"), (5, "rademacher"), (7, "rademacher"), (9, "rademacher")]
)
@pytest.mark.parametrize("estimand", ["micro", "macro"])
def test_wcr_enumerated_equals_library(K: int, weights: str, estimand: str) -> None:
    xs = _samples(K, 10 * K, 4)
    n, s, tol = _stack(xs)
    b = wcr_batch_bounds(
        n, s, estimand, level=0.95, fpc=1.0, rng=None, tol=tol, reps=REPS, weights=weights
    )
    for i, x in enumerate(xs):
        _assert_same(wcr(x, estimand, None, weights), b.lower[i], b.upper[i], b.available[i])


@pytest.mark.parametrize("K", [4, 8, 11, 12, 20, 40])
@pytest.mark.parametrize("estimand", ["micro", "macro"])
def test_wcr_drawn_weights_equal_library(K: int, estimand: str) -> None:
    """Drawn Webb (K < 12) or Rademacher weights, injected: the library draws the same."""
    level, fpc, ties = (0.9, 0.5, True) if K % 2 == 0 else (0.95, 1.0, False)
    xs = _samples(K, 7 * K, 3, level=level, fpc=fpc)
    n, s, tol = _stack(xs)
    v = wild_weights(K, REPS, np.random.default_rng(K), "auto").v
    b = wcr_batch_bounds(
        n, s, estimand, level=level, fpc=fpc, rng=None, tol=tol, v=v, count_ties=ties
    )
    for i, x in enumerate(xs):
        iv = wcr(x, estimand, np.random.default_rng(K), count_ties=ties)
        _assert_same(iv, b.lower[i], b.upper[i], b.available[i])


def test_wcr_draws_its_own_weights_from_the_generator() -> None:
    xs = _samples(15, 3, 3)
    n, s, tol = _stack(xs)
    b = wcr_batch_bounds(
        n, s, "micro", level=0.95, fpc=1.0, rng=np.random.default_rng(4), tol=tol, reps=REPS
    )
    for i, x in enumerate(xs):
        iv = wcr(x, "micro", np.random.default_rng(4))
        _assert_same(iv, b.lower[i], b.upper[i], b.available[i])


def test_wcr_zero_se_census_and_unbounded() -> None:
    """Equal rates: no SE (unavailable); no θ₀ rejected: unbounded (unavailable);
    a census: the point interval at θ̂, available."""
    n = np.array([[4.0, 8.0, 2.0], [3.0, 5.0, 9.0]])
    s = np.array([[2.0, 4.0, 1.0], [1.0, 4.0, 2.0]])
    x = Sample(n=n[0], s=s[0], q=s[0], binary=True, level=0.95, fpc=1.0, reps=REPS, w=0 * s[0])
    tol = np.array([x.tol(), x.tol()])
    b = wcr_batch_bounds(n, s, "micro", level=0.95, fpc=1.0, rng=None, tol=tol)
    assert not b.available[0] and not wcr(x, "micro", None).available
    # 2 documents, the 4 sign vectors, ties counted: p ≥ 2/4 everywhere, nothing rejected
    pair = synthetic(2, 5, binary=False, reps=4)
    nb, sb, tb = _stack([pair])
    two = wcr_batch_bounds(
        nb, sb, "macro", level=0.95, fpc=1.0, rng=None, tol=tb, reps=4,
        weights="rademacher", count_ties=True,
    )  # fmt: skip
    assert not wcr(pair, "macro", None, "rademacher", count_ties=True).available
    assert not two.available[0] and np.isnan(two.lower[0])
    census = wcr_batch_bounds(n, s, "macro", level=0.95, fpc=0.0, rng=None, tol=tol)
    np.testing.assert_array_equal(census.lower, (s / n).mean(axis=1))
    np.testing.assert_array_equal(census.upper, census.lower)
    assert census.available.all()


# --------------------------------------------------------------------------- BCa


def _dyadic(K: int, seed: int, binary: bool, **kw) -> Sample:
    """Unequal sizes 1..32 (powers of two); 0/1 scores or multiples of 1/256."""
    rng = np.random.default_rng(seed)
    sizes = 2 ** rng.integers(0, 6, size=K)
    p = rng.beta(2.0, 3.0, size=K)
    doc = np.repeat(np.arange(K), sizes)
    if binary:
        y = rng.binomial(1, p[doc]).astype(float)
    else:
        y = np.round(np.clip(rng.normal(p[doc], 0.2), 0.0, 1.0) * 256) / 256
    x = sample_from(doc, y, reps=REPS)
    return Sample(**{**x.__dict__, **kw})


def _library_counts(seeds: list[int], K: int) -> np.ndarray:
    """The counts of the document indices `bootstrap.doc_bootstrap` draws from each seed."""
    out = np.empty((len(seeds), REPS, K))
    for i, seed in enumerate(seeds):
        idx = np.random.default_rng(seed).integers(0, K, size=(REPS, K))
        out[i] = (idx[:, :, None] == np.arange(K)).sum(axis=1)
    return out


@pytest.mark.parametrize("K", [3, 4, 6, 10, 25, 40])
@pytest.mark.parametrize("estimand", ["micro", "macro"])
def test_bca_equals_library_on_the_same_resamples(K: int, estimand: str) -> None:
    level, fpc = (0.9, 0.25) if K in (4, 25) else (0.95, 1.0)
    xs = [_dyadic(K, 11 * K + i, i % 2 == 0, level=level, fpc=fpc) for i in range(4)]
    n, s, tol = _stack(xs)
    seeds = [500 + K + i for i in range(len(xs))]
    counts = _library_counts(seeds, K)
    b = bca_batch_bounds(n, s, estimand, level=level, fpc=fpc, rng=None, tol=tol, counts=counts)
    for i, x in enumerate(xs):
        iv = doc_bootstrap_bca(x, estimand, np.random.default_rng(seeds[i]))
        _assert_same(iv, b.lower[i], b.upper[i], b.available[i])


def test_bca_on_general_scores_equal_wherever_no_replicate_ties() -> None:
    """Non-dyadic scores: the sums' order moves θ* by an ulp, which decides a tie with θ̂
    either way; every sample with no replicate within 1e-12 of θ̂ is equal to 1e-10."""
    checked = 0
    for K in (5, 12, 20, 30):
        xs = _samples(K, 40 + K, 4)
        n, s, tol = _stack(xs)
        seeds = [900 + K + i for i in range(len(xs))]
        counts = _library_counts(seeds, K)
        for estimand in ("micro", "macro"):
            b = bca_batch_bounds(n, s, estimand, level=0.95, fpc=1.0, rng=None, tol=tol, counts=counts)  # fmt: skip
            for i, x in enumerate(xs):
                draws = doc_bootstrap(x.n, x.s, estimand, REPS, np.random.default_rng(seeds[i]))
                theta = x.estimate(estimand)
                if np.any(np.abs(draws.theta - theta) <= 1e-12 * abs(theta)):
                    continue
                iv = doc_bootstrap_bca(x, estimand, np.random.default_rng(0), draws=draws)
                _assert_same(iv, b.lower[i], b.upper[i], b.available[i])
                checked += 1
    assert checked >= 18


def test_bca_draws_one_count_matrix_per_group_from_the_generator() -> None:
    """Drawn internally: the first group's counts are `count_matrix` from the generator."""
    K = 10
    xs = [_dyadic(K, 70 + i, i % 2 == 1) for i in range(5)]
    n, s, tol = _stack(xs)
    b = bca_batch_bounds(n, s, "micro", level=0.95, fpc=1.0, rng=np.random.default_rng(8), tol=tol)
    counts = count_matrix(np.random.default_rng(8), 1, REPS, K)[0].astype(int)
    for i, x in enumerate(xs):
        idx = [np.repeat(np.arange(K), c) for c in counts]
        theta = np.array([x.s[j].sum() / x.n[j].sum() for j in idx])
        draws = DocBootstrap(theta=theta, se=np.ones(REPS))
        iv = doc_bootstrap_bca(x, "micro", np.random.default_rng(0), draws=draws)
        _assert_same(iv, b.lower[i], b.upper[i], b.available[i])


def test_bca_unavailable_and_census() -> None:
    """Equal rates: every leave-one-out estimate equal, a undefined (unavailable in both);
    a census: the point interval at θ̂."""
    n = np.array([[4.0, 8.0, 2.0, 6.0], [3.0, 5.0, 9.0, 1.0]])
    s = np.array([[2.0, 4.0, 1.0, 3.0], [1.0, 4.0, 2.0, 1.0]])
    x = Sample(n=n[0], s=s[0], q=s[0], binary=True, level=0.95, fpc=1.0, reps=REPS, w=0 * s[0])
    tol = np.zeros(2)
    b = bca_batch_bounds(n, s, "micro", level=0.95, fpc=1.0, rng=np.random.default_rng(1), tol=tol)
    assert not doc_bootstrap_bca(x, "micro", np.random.default_rng(1)).available
    assert not b.available[0] and b.available[1] and np.isnan(b.lower[0])
    c = bca_batch_bounds(n, s, "micro", level=0.95, fpc=0.0, rng=None, tol=tol)
    np.testing.assert_array_equal(c.lower, s.sum(axis=1) / n.sum(axis=1))
    np.testing.assert_array_equal(c.upper, c.lower)
    assert c.available.all()
