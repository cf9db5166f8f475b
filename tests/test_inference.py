"""Inference: brute-force definitions, degenerate cases, FPC, logit, seeds."""

import numpy as np
import pytest

from conftest import unequal_design
from ragstat import InputError, aggregate_arrays, analyze
from ragstat.inference.bootstrap import doc_bootstrap, query_bootstrap_binary
from ragstat.inference.diagnostics import deff, icc_anova, lag1_autocorrelation
from ragstat.records import DocStats, QueryScores


@pytest.fixture(scope="module")
def sample():
    doc, y, pos = unequal_design(np.random.default_rng(7), 40)
    return doc, y, pos, aggregate_arrays(doc, y, position=pos)


def test_doc_bootstrap_equals_per_replicate_loop(sample):
    *_, st = sample
    K = st.K
    for estimand in ("micro", "macro"):
        draws = doc_bootstrap(st.n, st.s, estimand, 300, np.random.default_rng(3))
        rng = np.random.default_rng(3)
        idx = rng.integers(0, K, size=(300, K))
        for b in range(0, 300, 37):
            n, s = st.n[idx[b]], st.s[idx[b]]
            if estimand == "micro":
                R = s.sum() / n.sum()
                u = s - R * n
                se = np.sqrt(K / (K - 1) * np.sum(u**2)) / n.sum()
                theta = R
            else:
                r = s / n
                theta, se = r.mean(), r.std(ddof=1) / np.sqrt(K)
            assert draws.theta[b] == pytest.approx(theta, rel=1e-12)
            assert draws.se[b] == pytest.approx(se, rel=1e-10)


def test_bootstrap_t_inverts_the_pivot(sample):
    *_, st = sample
    rep = analyze(st, methods=["doc_bootstrap_t", "t_rates"], seed=11, bootstrap_reps=2000)
    iv = rep.estimands["macro"].get("doc_bootstrap_t")
    t = rep.estimands["macro"].get("t_rates")
    # rebuild from the same stream: analyze sorts ids and uses spawn_key (macro, doc_bootstrap_t)
    rng = np.random.default_rng(np.random.SeedSequence(11, spawn_key=(1, 7)))
    draws = doc_bootstrap(st.n, st.s, "macro", 2000, rng)
    piv = (draws.theta - t.estimate) / draws.se
    lo, hi = np.quantile(piv, [0.025, 0.975])
    assert iv.lower == pytest.approx(t.estimate - hi * t.se, rel=1e-12)
    assert iv.upper == pytest.approx(t.estimate - lo * t.se, rel=1e-12)
    assert iv.discarded == 0 and iv.replicates == 2000


def test_same_seed_same_result_other_seed_differs(sample):
    *_, st = sample
    a = analyze(st, seed=5, bootstrap_reps=500).to_dict()
    b = analyze(st, seed=5, bootstrap_reps=500).to_dict()
    c = analyze(st, seed=6, bootstrap_reps=500).to_dict()
    assert a == b
    assert a != c


def test_adding_a_method_does_not_change_another(sample):
    *_, st = sample
    one = analyze(st, methods=["doc_bootstrap_t"], seed=2, bootstrap_reps=400)
    all_ = analyze(st, seed=2, bootstrap_reps=400)
    for est in ("micro", "macro"):
        assert one.estimands[est].get("doc_bootstrap_t") == all_.estimands[est].get(
            "doc_bootstrap_t"
        )


def test_all_degenerate_bootstrap_is_unavailable_not_a_point():
    st = DocStats(doc_id=["a", "b", "c"], n=[10, 20, 5], s=[0, 0, 0], q=[0, 0, 0], binary=True)
    rep = analyze(st, seed=1, bootstrap_reps=200)
    for est in rep.estimands.values():
        for iv in est.intervals:
            if iv.method in ("wald_iid", "query_bootstrap", "wald_effective_n"):
                continue
            if iv.method == "korn_graubard":  # its explicit rule at 0: [0, upper], never a point
                assert iv.lower == 0.0 and iv.upper > 0 and "exactly 0" in iv.reason
                continue
            assert not iv.available, iv.method
            assert iv.lower is None and iv.reason
    bt = rep.estimands["micro"].get("doc_bootstrap_t")
    assert bt.discarded == 200
    assert any("unavailable" in w for w in rep.warnings)


def test_partly_degenerate_replicates_are_discarded_and_counted():
    st = DocStats(doc_id=["a", "b", "c"], n=[10, 10, 10], s=[0, 0, 5], q=[0, 0, 5], binary=True)
    iv = analyze(st, seed=1, bootstrap_reps=3000).estimands["macro"].get("doc_bootstrap_t")
    # a replicate is degenerate iff it draws one document value only: P = (2/3)^3 + (1/3)^3 = 1/3
    assert iv.available
    assert iv.discarded / iv.replicates == pytest.approx(1 / 3, abs=0.03)


def test_finite_population_correction(sample):
    *_, st = sample
    base = analyze(st, seed=1, bootstrap_reps=200)
    fpc = analyze(st, seed=1, bootstrap_reps=200, population=4 * st.K)
    f = np.sqrt(1 - 0.25)
    for est, name in (("micro", "cr2_bm"), ("micro", "cr1"), ("macro", "t_rates")):
        assert fpc.estimands[est].get(name).se == pytest.approx(
            f * base.estimands[est].get(name).se
        )
        assert fpc.estimands[est].get(name).fpc == pytest.approx(0.75)
    naive = fpc.estimands["micro"].get("wald_iid")
    assert naive.se == base.estimands["micro"].get("wald_iid").se
    with pytest.raises(InputError, match="smaller than the sample"):
        analyze(st, population=st.K - 1)


def test_logit_inside_bounds_and_explicit_at_zero(sample):
    *_, st = sample
    iv = analyze(st, methods=["logit"], seed=1).estimands["micro"].get("logit")
    assert 0 < iv.lower < iv.estimate < iv.upper < 1
    zero = DocStats(doc_id=["a", "b"], n=[3, 4], s=[0, 0], q=[0, 0], binary=True)
    z = analyze(zero, methods=["logit"], seed=1).estimands["macro"].get("logit")
    assert not z.available and "exactly 0" in z.reason
    neg = DocStats(doc_id=["a", "b"], n=[3, 4], s=[-1, 2], q=[1, 2])
    assert not analyze(neg, methods=["logit"]).estimands["micro"].get("logit").available


def test_query_bootstrap_binary_identity_matches_explicit_resampling(sample):
    doc, y, _, st = sample
    rng = np.random.default_rng(0)
    exact = query_bootstrap_binary(st.n, st.s, "micro", 4000, rng)
    codes = np.searchsorted(st.doc_id.astype(str), doc)
    qs = QueryScores(doc_index=codes, y=y)
    nonbin = DocStats(doc_id=st.doc_id, n=st.n, s=st.s, q=st.q, binary=False)
    rep = analyze(nonbin, methods=["query_bootstrap"], seed=0, bootstrap_reps=4000, query_scores=qs)
    explicit = rep.estimands["micro"].get("query_bootstrap")
    assert explicit.se == pytest.approx(np.std(exact, ddof=1), rel=0.06)
    macro = rep.estimands["macro"].get("query_bootstrap")
    exact_macro = query_bootstrap_binary(st.n, st.s, "macro", 4000, rng)
    assert macro.se == pytest.approx(np.std(exact_macro, ddof=1), rel=0.06)


def test_nonbinary_query_bootstrap_without_values_is_unavailable(sample):
    *_, st = sample
    nonbin = DocStats(doc_id=st.doc_id, n=st.n, s=st.s, q=st.q, binary=False)
    iv = analyze(nonbin, methods=["query_bootstrap"]).estimands["micro"].get("query_bootstrap")
    assert not iv.available and "per-query" in iv.reason


def test_icc_deff_and_autocorrelation_by_definition(sample):
    doc, y, _, st = sample
    codes = np.searchsorted(st.doc_id.astype(str), doc)
    K, N = st.K, y.size
    rd = st.r[codes]
    msb = np.sum((rd - y.mean()) ** 2) / (K - 1)
    msw = np.sum((y - rd) ** 2) / (N - K)
    n0 = (N - np.sum(st.n**2) / N) / (K - 1)
    icc = (msb - msw) / (msb + (n0 - 1) * msw)
    assert icc_anova(st.n, st.s, st.q) == pytest.approx(icc, rel=1e-10)
    cv = np.std(st.n) / np.mean(st.n)
    assert deff(st.n, icc) == pytest.approx(1 + (np.mean(st.n) * (1 + cv**2) - 1) * icc)
    e = y - rd  # rows are already in (doc, position) order
    same = codes[1:] == codes[:-1]
    lagged = np.mean((e[1:] * e[:-1])[same]) / np.mean(e**2)
    assert lag1_autocorrelation(st) == pytest.approx(lagged, rel=1e-10)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"level": 1.5}, "level"),
        ({"methods": ["nope"]}, "unknown method"),
        ({"bootstrap_reps": 0}, "replicates"),
        ({"estimands": ["median"]}, "estimand"),
    ],
)
def test_bad_arguments(sample, kwargs, match):
    *_, st = sample
    with pytest.raises(InputError, match=match):
        analyze(st, **kwargs)


def test_fewer_than_two_documents():
    with pytest.raises(InputError, match="at least two documents"):
        analyze(aggregate_arrays(["a", "a"], [1.0, 0.0]))


def test_macro_query_bootstrap_binary_matches_its_exact_moments(sample):
    *_, st = sample
    draws = query_bootstrap_binary(st.n, st.s, "macro", 20_000, np.random.default_rng(1))
    r = st.r
    assert draws.mean() == pytest.approx(r.mean(), abs=4 * np.sqrt(draws.var() / 20_000))
    exact_sd = np.sqrt(np.sum(r * (1 - r) / st.n)) / st.K
    assert np.std(draws) == pytest.approx(exact_sd, rel=0.03)


def test_naive_query_bootstrap_replicates_are_budget_capped(sample, monkeypatch):
    from ragstat.inference import resampling

    *_, st = sample
    monkeypatch.setattr(resampling, "BINOMIAL_BUDGET", 1000 * st.K)
    rep = analyze(st, methods=["query_bootstrap"], seed=1, bootstrap_reps=9999)
    iv = rep.estimands["macro"].get("query_bootstrap")
    assert 999 <= iv.replicates < 9999
    assert rep.estimands["micro"].get("query_bootstrap").replicates == 9999
    assert any("budget-capped" in w for w in rep.warnings)
    monkeypatch.setattr(resampling, "BINOMIAL_BUDGET", 10)
    iv = analyze(st, methods=["query_bootstrap"]).estimands["macro"].get("query_bootstrap")
    assert not iv.available and "budget" in iv.reason


def test_logit_uses_the_observed_score_range(sample):
    doc, y, _, _ = sample
    rr = y * np.random.default_rng(5).random(y.size)  # non-binary, inside [0, 1]
    inside = analyze(aggregate_arrays(doc, rr), methods=["logit"]).estimands["micro"].get("logit")
    assert inside.available and 0 < inside.lower < inside.upper < 1
    diff = analyze(aggregate_arrays(doc, rr - 0.05), methods=["logit"]).estimands["micro"]
    assert not diff.get("logit").available and "[0, 1]" in diff.get("logit").reason
