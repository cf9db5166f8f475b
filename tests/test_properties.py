"""Property tests: invariances that must hold for any design."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragstat import DocStats, analyze
from ragstat.inference import df_bell_mccaffrey, df_imbens_kolesar, macro_mean, micro_mean


@st.composite
def designs(draw, binary=None):
    K = draw(st.integers(2, 25))
    n = np.array(draw(st.lists(st.integers(1, 40), min_size=K, max_size=K)), dtype=float)
    is_binary = draw(st.booleans()) if binary is None else binary
    if is_binary:
        s = np.array([draw(st.integers(0, int(k))) for k in n], dtype=float)
        q = s.copy()
    else:
        r = np.array(draw(st.lists(st.floats(-1, 1), min_size=K, max_size=K)))
        s = r * n
        q = s * s / n + np.array(draw(st.lists(st.floats(0, 1), min_size=K, max_size=K))) * n
    return DocStats(doc_id=[f"d{i}" for i in range(K)], n=n, s=s, q=q, binary=is_binary)


ANALYTIC = ("cr1", "cr2_bm", "cr2_ik", "t_rates")


def _analytic(report):
    """The t intervals asked for (a small-K candidate the default table picks comes too)."""
    return {
        (e, iv.method): (iv.lower, iv.upper, iv.se, iv.df)
        for e, res in report.estimands.items()
        for iv in res.intervals
        if iv.method in ANALYTIC
    }


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 40), st.integers(1, 50), st.data())
def test_equal_sizes_bm_df_is_k_minus_1_and_micro_equals_macro(K, m, data):
    n = np.full(K, float(m))
    s = np.array([data.draw(st.integers(0, m)) for _ in range(K)], dtype=float)
    assert df_bell_mccaffrey(n) == pytest.approx(K - 1, rel=1e-9)
    assert micro_mean(n, s) == pytest.approx(macro_mean(n, s), abs=1e-15)
    if m > 1 and np.ptp(s) > 0:
        assert df_imbens_kolesar(n, s, s) == pytest.approx(K - 1, rel=1e-7)


@settings(max_examples=30, deadline=None)
@given(designs(), st.randoms(use_true_random=False))
def test_permuting_documents_changes_nothing(stats, random):
    perm = np.array(random.sample(range(stats.K), stats.K))
    a = analyze(stats, seed=9, bootstrap_reps=200)
    b = analyze(stats.subset(perm), seed=9, bootstrap_reps=200)
    assert a.to_dict() == b.to_dict()


@settings(max_examples=30, deadline=None)
@given(designs(), st.integers(0, 2**32 - 1))
def test_bootstrap_is_reproducible_for_a_seed(stats, seed):
    methods = ["doc_bootstrap_t", "doc_bootstrap_percentile", "query_bootstrap"]
    a = analyze(stats, methods=methods, seed=seed, bootstrap_reps=150)
    b = analyze(stats, methods=methods, seed=seed, bootstrap_reps=150)
    assert a.to_dict() == b.to_dict()
    assert a.seed == seed


@settings(max_examples=30, deadline=None)
@given(designs(binary=False), st.floats(0.1, 10))
def test_scaling_scores_scales_estimates_and_se(stats, c):
    scaled = DocStats(doc_id=stats.doc_id, n=stats.n, s=c * stats.s, q=c * c * stats.q)
    a = analyze(stats, methods=["cr1", "cr2_bm", "cr2_ik", "t_rates"])
    b = analyze(scaled, methods=["cr1", "cr2_bm", "cr2_ik", "t_rates"])
    for (est, name), (lo, hi, se, df) in _analytic(a).items():
        lo2, hi2, se2, df2 = _analytic(b)[(est, name)]
        if se is None or lo is None:
            continue
        assert se2 == pytest.approx(c * se, rel=1e-7, abs=1e-12)
        assert df2 == pytest.approx(df, rel=1e-6)
        assert lo2 == pytest.approx(c * lo, rel=1e-7, abs=1e-9 * c)
        assert hi2 == pytest.approx(c * hi, rel=1e-7, abs=1e-9 * c)
