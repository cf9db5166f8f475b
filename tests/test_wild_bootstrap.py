"""WCR (wild cluster bootstrap-t, null imposed) against the ``wildboottest`` package.

The reference (tests/reference/wild_reference.json, written by
tests/reference/make_wild_reference.py with wildboottest 0.3.2) holds the package's
t-statistics, p-values and bootstrap t* under full enumeration of the 2^K Rademacher
sign vectors on the small-K datasets, for the micro mean (per-query regression clustered
by document) and the macro mean (one row per document, its rate).
"""

from __future__ import annotations

import json
import time

import numpy as np
import pytest

from ragstat.inference.methods import Sample, cr1
from ragstat.inference.wild import (
    WEBB,
    WildFit,
    enumerated_weights,
    sample_totals,
    wcr,
    wild_t_statistics,
    wild_weights,
)
from small_k_data import REFERENCE, load, synthetic

REF = json.loads((REFERENCE / "wild_reference.json").read_text(encoding="utf-8"))
CASES = REF["cases"]


def _totals(case: dict) -> tuple[np.ndarray, np.ndarray]:
    return sample_totals(load(case["dataset"]), case["estimand"])


def _id(case: dict) -> str:
    return f"{case['dataset']}-{case['estimand']}-{case['multiple']}"


def test_reference_covers_the_brief() -> None:
    sizes = {len(_totals(c)[0]) for c in CASES}
    assert sizes == {5, 8, 10}
    assert {c["estimand"] for c in CASES} == {"micro", "macro"}
    assert {c["dataset"].split("_")[1] for c in CASES} == {"binary", "continuous"}
    # the public function and the class agree: the package's own number
    assert all(c["p_value"] == c["class_p_value"] for c in CASES)


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_statistic_and_p_value_equal_wildboottest(case: dict) -> None:
    n, s = _totals(case)
    K = len(n)
    v = enumerated_weights(K)
    t_hat, _ = wild_t_statistics(n, s, case["theta0"], v)
    assert t_hat == pytest.approx(case["statistic"], abs=1e-10, rel=0)
    ties = case.get("ties_counted")
    p = WildFit.build(n, s, v).p_value(case["theta0"])
    p_with_ties = WildFit.build(n, s, v, count_ties=True).p_value(case["theta0"])
    # The two constant sign vectors tie exactly (|t*| = |t̂|); the package's floating
    # point counts 0, 1 or 2 of them. Ours excludes them exactly, or counts both.
    B = 2**K
    assert ties in (0, 1, 2)
    assert p == pytest.approx(case["p_value"] - ties / B, abs=1e-10)
    assert p_with_ties == pytest.approx(case["p_value"] + (2 - ties) / B, abs=1e-10)


@pytest.mark.parametrize("case", [c for c in CASES if "t_boot" in c], ids=_id)
def test_every_bootstrap_t_equals_wildboottest(case: dict) -> None:
    n, s = _totals(case)
    _, t_boot = wild_t_statistics(n, s, case["theta0"], enumerated_weights(len(n)))
    ref = np.array(case["t_boot"])
    assert t_boot.shape == ref.shape == (2 ** len(n),)
    np.testing.assert_allclose(t_boot, ref, rtol=0, atol=1e-10)


def test_some_reference_ties_were_counted_and_some_not() -> None:
    """The fixture exercises both outcomes of the package's tie comparison."""
    counted = {c["ties_counted"] for c in CASES}
    assert 0 in counted and 2 in counted


def _direct_p(n, s, theta0, v, count_ties=False) -> float:
    t_hat, t = wild_t_statistics(n, s, theta0, v)
    a, b = np.abs(t), abs(t_hat)
    tie = np.isclose(a, b, rtol=1e-9, atol=0)
    return float(np.mean((a >= b) | tie)) if count_ties else float(np.mean((a > b) & ~tie))


@pytest.mark.parametrize("name", ["k5_binary", "k8_continuous", "k10_binary"])
@pytest.mark.parametrize("estimand", ["micro", "macro"])
def test_interval_inverts_the_direct_test(name: str, estimand: str) -> None:
    """Each limit: p ≤ α there, p > α a hair inside, by the direct t* (not the quartic)."""
    x = load(name, reps=2**10)
    iv = wcr(x, estimand, None, weights="rademacher")
    assert iv.available and iv.replicates == 2**x.K and "enumerated" in iv.reference
    n, s = sample_totals(x, estimand)
    v = enumerated_weights(x.K)
    assert iv.lower is not None and iv.upper is not None and iv.se is not None
    eps = 1e-7 * iv.se
    for limit, inward in ((iv.lower, 1.0), (iv.upper, -1.0)):
        assert _direct_p(n, s, limit, v) <= 0.05
        assert _direct_p(n, s, limit + inward * eps, v) > 0.05
    # every θ₀ on a grid is rejected exactly when it lies outside [lower, upper]
    grid = np.linspace(iv.lower - 3 * iv.se, iv.upper + 3 * iv.se, 241)
    far = np.abs(grid - iv.lower) > eps
    far &= np.abs(grid - iv.upper) > eps
    inside = (grid > iv.lower) & (grid < iv.upper)
    p = np.array([_direct_p(n, s, g, v) for g in grid])
    assert np.array_equal((p > 0.05)[far], inside[far])


def test_counting_ties_never_narrows() -> None:
    x = load("k8_binary", reps=2**8)
    plain = wcr(x, "micro", None, weights="rademacher")
    ties = wcr(x, "micro", None, weights="rademacher", count_ties=True)
    assert plain.width is not None and ties.width is not None
    assert ties.lower <= plain.lower and ties.upper >= plain.upper  # type: ignore[operator]


def test_macro_is_the_micro_formula_on_document_rates() -> None:
    x = load("k10_continuous", reps=2**10)
    r = x.s / x.n
    ones = np.ones_like(r)
    rates = Sample(n=ones, s=r, q=r * r, binary=False, level=0.95, fpc=1.0, reps=2**10, w=0 * r)
    a = wcr(x, "macro", None, weights="rademacher")
    b = wcr(rates, "micro", None, weights="rademacher")
    assert a.estimate == pytest.approx(float(np.mean(r)))
    assert (a.lower, a.upper) == pytest.approx((b.lower, b.upper), rel=1e-12)


def test_se_is_cr1() -> None:
    x = load("k8_continuous", reps=2**8)
    assert wcr(x, "micro", None, "rademacher").se == pytest.approx(cr1(x, "micro").se, rel=1e-12)


def test_weights_rule() -> None:
    rng = np.random.default_rng(0)
    assert wild_weights(5, 9_999, rng).kind == "webb"  # auto: Webb below K = 12
    assert wild_weights(5, 9_999, rng).enumerated  # 6^5 = 7,776 ≤ 9,999
    assert not wild_weights(6, 9_999, rng).enumerated
    w12 = wild_weights(12, 9_999, rng)
    assert (w12.kind, w12.enumerated, w12.v.shape) == ("rademacher", True, (4096, 12))
    w14 = wild_weights(14, 999, rng)
    assert (w14.kind, w14.enumerated, w14.v.shape) == ("rademacher", False, (999, 14))
    assert set(np.unique(w14.v)) == {-1.0, 1.0}
    webb = wild_weights(8, 999, rng)
    assert np.allclose(np.sort(np.unique(webb.v)), WEBB)
    assert WEBB.mean() == pytest.approx(0) and np.mean(WEBB**2) == pytest.approx(1)
    # the enumeration order is itertools.product's: first document the slowest
    e = enumerated_weights(3)
    assert e[0].tolist() == [-1, -1, -1] and e[1].tolist() == [-1, -1, 1]
    assert e[-1].tolist() == [1, 1, 1]


def test_random_weights_are_reproducible_and_cover_the_estimate() -> None:
    x = synthetic(20, seed=3, reps=1999)
    a = wcr(x, "micro", np.random.default_rng(7))
    b = wcr(x, "micro", np.random.default_rng(7))
    assert a == b and a.replicates == 1999 and "rademacher" in a.reference
    assert a.lower < a.estimate < a.upper  # type: ignore[operator]


def test_fpc_shrinks_and_census_is_a_point() -> None:
    x = load("k8_binary", reps=2**8)
    full = wcr(x, "micro", None, "rademacher")
    half = wcr(Sample(**{**x.__dict__, "fpc": 0.25}), "micro", None, "rademacher")
    assert half.lower - half.estimate == pytest.approx(0.5 * (full.lower - full.estimate))  # type: ignore[operator]
    census = wcr(Sample(**{**x.__dict__, "fpc": 0.0}), "micro", None, "rademacher")
    assert census.lower == census.upper == census.estimate


def test_no_variation_is_unavailable() -> None:
    n = np.array([3.0, 5.0, 4.0, 6.0])
    x = Sample(n=n, s=0.5 * n, q=0.5 * n, binary=True, level=0.95, fpc=1.0, reps=99, w=0 * n)
    iv = wcr(x, "micro", None)
    assert not iv.available and "same rate" in (iv.reason or "")


def test_fast_enough_for_the_simulator() -> None:
    x = synthetic(40, seed=5, reps=9_999)
    start = time.perf_counter()
    iv = wcr(x, "micro", np.random.default_rng(1))
    assert iv.available
    assert time.perf_counter() - start < 2.0


@pytest.mark.parametrize("kind", ["webb", "rademacher"])
def test_quartic_p_value_equals_the_direct_one_for_drawn_weights(kind: str) -> None:
    """Webb weights have v² ≠ 1: the per-replicate coefficients still give the direct p."""
    x = synthetic(13, seed=8, binary=False)
    w = wild_weights(x.K, 3000, np.random.default_rng(2), kind)
    assert not w.enumerated and w.kind == kind
    fit = WildFit.build(x.n, x.s, w.v)
    for m in (-2.7, -1.1, -0.2, 0.9, 2.3):
        theta0 = fit.theta + m * fit.se
        assert fit.p_value(theta0) == pytest.approx(_direct_p(x.n, x.s, theta0, w.v), abs=1e-12)
