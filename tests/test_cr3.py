"""CR3 (cluster jackknife) against R clubSandwich and a brute-force leave-one-out.

tests/reference/r_cr3.json is written by tests/reference/reference_cr3.R (clubSandwich
vcovCR type "CR3" and coef_test's Satterthwaite df) on the small-K datasets and the
existing reference datasets, micro (per-query rows) and macro (one row per document).
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from scipy import stats as sps

from ragstat.inference.jackknife import (
    cr3_bm,
    cr3_se,
    df_satterthwaite,
    leave_one_out,
    regression_totals,
)
from ragstat.inference.methods import Sample, cr2_bm, t_rates
from ragstat.inference.variance import df_bell_mccaffrey
from small_k_data import REFERENCE, read_queries, sample_from, synthetic

REF = json.loads((REFERENCE / "r_cr3.json").read_text(encoding="utf-8"))
NAMES = sorted(k for k in REF if k != "package")


def _sample(name: str, **kw) -> Sample:
    folder, stem = name.split("/")
    doc, y = read_queries(stem) if folder == "data_small_k" else _other(stem)
    return sample_from(doc, y, **kw)


def _other(stem: str) -> tuple[np.ndarray, np.ndarray]:
    import csv

    with open(REFERENCE / "data" / f"{stem}.csv", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    return np.array([r["doc"] for r in rows]), np.array([float(r["y"]) for r in rows])


def test_reference_spans_small_and_larger_k() -> None:
    Ks = {_sample(name).K for name in NAMES}
    assert {5, 8, 10}.issubset(Ks) and max(Ks) >= 20


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("estimand", ["micro", "macro"])
def test_se_and_df_equal_clubsandwich(name: str, estimand: str) -> None:
    ref = REF[name][estimand]
    x = _sample(name)
    n, s = regression_totals(x, estimand)
    assert x.estimate(estimand) == pytest.approx(ref["estimate"], rel=1e-12)
    assert cr3_se(n, s) == pytest.approx(ref["se_cr3"], rel=1e-10)
    assert df_satterthwaite(n, 2) == pytest.approx(ref["df_cr3"], rel=1e-10)
    # p = 1 is CR2's Bell–McCaffrey df, as clubSandwich and ragstat's own function
    assert df_satterthwaite(n, 1) == pytest.approx(ref["df_cr2"], rel=1e-10)
    assert df_satterthwaite(n, 1) == pytest.approx(df_bell_mccaffrey(n), rel=1e-12)
    iv = cr3_bm(x, estimand)
    half = sps.t.ppf(0.975, ref["df_cr3"]) * ref["se_cr3"]
    assert (iv.lower, iv.upper) == pytest.approx((ref["estimate"] - half, ref["estimate"] + half))


def _brute(n: np.ndarray, s: np.ndarray) -> np.ndarray:
    """θ̂₋d by deleting document d and recomputing Σ s / Σ n."""
    K = n.shape[0]
    return np.array([np.delete(s, d).sum() / np.delete(n, d).sum() for d in range(K)])


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_variants_equal_brute_force_leave_one_out(seed: int) -> None:
    x = synthetic(12, seed=seed, binary=seed != 2)
    n, s = x.n, x.s
    loo = _brute(n, s)
    theta = s.sum() / n.sum()
    K = len(n)
    np.testing.assert_allclose(leave_one_out(n, s), loo, rtol=1e-13)
    assert cr3_se(n, s) ** 2 == pytest.approx(np.sum((loo - theta) ** 2), rel=1e-12)
    assert cr3_se(n, s, "mnw") ** 2 == pytest.approx((K - 1) / K * np.sum((loo - theta) ** 2))
    jk = (K - 1) / K * np.sum((loo - loo.mean()) ** 2)
    assert cr3_se(n, s, "jackknife") ** 2 == pytest.approx(jk, rel=1e-12)
    assert cr3_se(n, s, "jackknife") <= cr3_se(n, s, "mnw")


def test_macro_identities_with_the_t_on_rates() -> None:
    x = synthetic(9, seed=4)
    K = x.K
    n, s = regression_totals(x, "macro")
    se_t = t_rates(x, "macro").se
    assert cr3_se(n, s, "mnw") == pytest.approx(se_t, rel=1e-12)
    assert cr3_se(n, s, "jackknife") == pytest.approx(se_t, rel=1e-12)
    assert cr3_se(n, s) == pytest.approx(se_t * np.sqrt(K / (K - 1)), rel=1e-12)
    assert df_satterthwaite(n, 2) == pytest.approx(K - 1)


def test_dense_df_definition() -> None:
    """The O(K) df against the dense (tr M)² / tr(M²) with M the N×N quadratic form."""
    n = np.array([2.0, 7.0, 3.0, 11.0, 4.0])
    N = int(n.sum())
    doc = np.repeat(np.arange(5), n.astype(int))
    L = (doc[:, None] == np.arange(5)[None, :]).astype(float)
    IH = np.eye(N) - np.ones((N, N)) / N
    for power in (1, 2):
        a2 = (N / (N - n)) ** power
        ell = IH @ L  # column d: (I − H) 1_d
        M = ell @ np.diag(a2) @ ell.T
        dense = np.trace(M) ** 2 / np.trace(M @ M)
        assert df_satterthwaite(n, power) == pytest.approx(dense, rel=1e-12)


def test_cr3_is_wider_than_cr2_and_df_rule_cr2() -> None:
    x = synthetic(10, seed=6)
    a, b = cr3_bm(x, "micro"), cr2_bm(x, "micro")
    assert a.width > b.width  # type: ignore[operator]
    c = cr3_bm(x, "micro", df_rule="cr2")
    assert c.df == pytest.approx(b.df)


def test_fpc_census_and_zero_variation() -> None:
    x = synthetic(8, seed=7)
    full = cr3_bm(x)
    quarter = cr3_bm(Sample(**{**x.__dict__, "fpc": 0.25}))
    assert quarter.width == pytest.approx(0.5 * full.width)  # type: ignore[operator]
    assert cr3_bm(Sample(**{**x.__dict__, "fpc": 0.0})).width == 0
    n = np.array([3.0, 5.0, 4.0])
    flat = Sample(n=n, s=0.5 * n, q=0.5 * n, binary=True, level=0.95, fpc=1.0, reps=9, w=0 * n)
    assert not cr3_bm(flat).available
    with pytest.raises(ValueError):
        cr3_se(n, 0.5 * n, "cr9")
