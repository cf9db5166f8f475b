"""Known bounds for paired differences: the range-respecting intervals on [lo, hi], the
simulator equal to `analyze` there, and no recommended interval outside the range."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ragstat
from ragstat.api.sources import read_source
from ragstat.inference import analyze, bounded
from ragstat.inference import methods as m
from ragstat.inference.design_analysis import analyze_design
from ragstat.inference.paired import compare as compare_differences
from ragstat.inference.variance import se_cr1
from ragstat.records import DocStats, aggregate_arrays
from ragstat.records.docstats import difference_range, known_range
from ragstat.simulation.batch import batch_intervals

ROOT = Path(__file__).resolve().parents[1]
PROMPTFOO = ROOT / "tests" / "fixtures" / "adapters" / "promptfoo" / "results.json"
BOUNDED = ("logit", "korn_graubard", "logit_cr2_bm")


def _paired(rng: np.random.Generator, K: int, p_a: float = 0.4, p_b: float = 0.3):
    """(doc ids, per-query hits of A, of B) for K documents of unequal size."""
    n = rng.integers(1, 12, K)
    doc = np.repeat([f"d{i:03d}" for i in range(K)], n)
    lift = np.repeat(rng.normal(0, 0.15, K), n)
    a = (rng.random(n.sum()) < np.clip(p_a + lift, 0, 1)).astype(float)
    b = (rng.random(n.sum()) < np.clip(p_b + lift, 0, 1)).astype(float)
    return doc, a, b


def _sample(stats: DocStats, level: float = 0.95, M: int | None = None) -> m.Sample:
    fpc = 1.0 if M is None else 1.0 - stats.K / M
    return m.Sample(
        n=stats.n, s=stats.s, q=stats.q, binary=stats.binary, level=level, fpc=fpc, reps=1,
        w=stats.within_ss, bounds=stats.known_bounds(),
    )  # fmt: skip


def test_ranges_of_a_difference():
    assert difference_range((0.0, 1.0), (0.0, 1.0)) == (-1.0, 1.0)
    assert difference_range((1.0, 5.0), (0.0, 2.0)) == (-1.0, 5.0)
    assert difference_range(None, (0.0, 1.0)) is None
    assert known_range((0.0, 0.5)) == (0.0, 1.0)
    assert known_range((0.0, 3.0)) is None
    assert known_range((0.0, 3.0), (0.0, 5.0)) == (0.0, 5.0)
    assert known_range((0.0, 1.0), (-np.inf, np.inf)) is None


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("M", [None, 400])
@pytest.mark.parametrize("bounds", [(-1.0, 1.0), (2.0, 7.0)])
def test_rescaled_intervals_equal_unit_intervals_of_transformed_scores(seed, M, bounds):
    """logit / Korn–Graubard on [lo, hi] = the [0, 1] functions on (y − lo)/(hi − lo), mapped back."""
    rng = np.random.default_rng(seed)
    K = 4 + 3 * seed
    doc, a, b = _paired(rng, K)
    lo, hi = bounds
    y = a - b if bounds == (-1.0, 1.0) else lo + (hi - lo) * (a + b) / 2  # y in [lo, hi]
    on_range = replace(aggregate_arrays(doc, y), bounds=bounds, difference=True)
    on_unit = aggregate_arrays(doc, (y - lo) / (hi - lo))
    assert on_unit.known_bounds() == (0.0, 1.0)
    x, u = _sample(on_range, M=M), _sample(on_unit, M=M)
    checked = 0
    for fn in (m.logit, m.korn_graubard, m.logit_cr2_bm):
        for est in ("micro", "macro"):
            got, ref = fn(x, est), fn(u, est)
            assert got.available == ref.available, (fn.__name__, est, got.reason)
            assert got.estimate == pytest.approx(lo + (hi - lo) * ref.estimate, abs=1e-12)
            if not ref.available:
                continue
            assert got.lower == pytest.approx(lo + (hi - lo) * ref.lower, rel=1e-10, abs=1e-12)
            assert got.upper == pytest.approx(lo + (hi - lo) * ref.upper, rel=1e-10, abs=1e-12)
            assert lo <= got.lower <= got.upper <= hi and not got.outside_range
            checked += 1
    assert checked >= 4


def test_unit_range_is_the_identity_to_the_last_digit():
    """bounds (0, 1): exactly the numbers of the unit-interval formulas (no rescaling error)."""
    rng = np.random.default_rng(11)
    doc, a, _ = _paired(rng, 9)
    stats = aggregate_arrays(doc, a)
    x = _sample(stats)
    theta = float(stats.s.sum() / stats.n.sum())
    se = se_cr1(stats.s - theta * stats.n, stats.N)
    lo, hi = bounded.logit_bounds(theta, se, stats.K - 1, 0.95)
    iv = m.logit(x, "micro")
    assert (iv.lower, iv.upper) == (lo, hi)
    lo, hi = bounded.korn_graubard_bounds(theta, se, stats.N, stats.K - 1, 0.95)
    iv = m.korn_graubard(x, "micro")
    assert (iv.lower, iv.upper) == (lo, hi)


ANALYTIC = ("cr1", "cr2_bm", "cr2_ik", "t_rates", "wald_iid", "logit", "korn_graubard")


@pytest.mark.parametrize("K", [3, 5, 12, 30])
@pytest.mark.parametrize("M", [None, 200])
def test_simulator_equals_analyze_on_the_difference_range(K, M):
    """`batch_intervals` with bounds (−1, 1) equals `analyze` of the same differences."""
    rng = np.random.default_rng(K)
    rows = []
    for i in range(15):
        doc, a, b = _paired(rng, K, 0.5 + 0.03 * i, 0.5)
        if i % 5 == 4:
            b = a.copy()  # every difference 0: zero SE, unavailable everywhere
        rows.append(aggregate_arrays(doc, a - b))
    n, s, w = (np.array([getattr(r, f) for r in rows]) for f in ("n", "s", "within_ss"))
    fpc = 1.0 if M is None else 1.0 - K / M
    methods = (*ANALYTIC, "logit_cr2_bm")
    out = batch_intervals(n, s, w, binary=False, fpc=fpc, methods=methods, bounds=(-1.0, 1.0))
    checked = 0
    for i, stats in enumerate(rows):
        stats = replace(stats, bounds=(-1.0, 1.0), difference=True)
        rep = analyze(stats, methods=methods, population=M, seed=1)
        assert rep.bounds == (-1.0, 1.0)
        for b in out:
            iv = rep.estimands[b.estimand].get(b.method)
            assert bool(b.available[i]) == iv.available, (i, b.estimand, b.method, iv.reason)
            if iv.available:
                assert iv.lower == pytest.approx(b.lower[i], rel=1e-9, abs=1e-13)
                assert iv.upper == pytest.approx(b.upper[i], rel=1e-9, abs=1e-13)
                checked += b.method in BOUNDED
    assert checked > 0


def _recommended(report) -> list:
    out = []
    for est in report.estimands.values():
        if est.recommended is not None:
            out.append(est.get(est.recommended))
    return out


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    K=st.integers(4, 6),
    seed=st.integers(0, 2**31 - 1),
    p_a=st.sampled_from([0.02, 0.1, 0.5, 0.9, 0.98]),
    p_b=st.sampled_from([0.02, 0.5, 0.98]),
)
def test_no_recommended_interval_leaves_its_bounds(K, seed, p_a, p_b):
    """Rates and differences of rates, K = 4..6: the recommended interval lies in the range."""
    rng = np.random.default_rng(seed)
    doc, a, b = _paired(rng, K, p_a, p_b)
    rate = analyze(aggregate_arrays(doc, a), seed=1, bootstrap_reps=99)
    diff = compare_differences(
        aggregate_arrays(doc, a - b), seed=1, bootstrap_reps=99, permutation_reps=99,
        bounds=(-1.0, 1.0),
    ).report  # fmt: skip
    assert rate.bounds == (0.0, 1.0) and diff.bounds == (-1.0, 1.0)
    for report in (rate, diff):
        lo, hi = report.bounds
        for iv in _recommended(report):
            assert not iv.outside_range
            if iv.available:
                assert lo <= iv.lower <= iv.upper <= hi, (report.bounds, iv)


def test_differences_are_recommended_from_the_paired_table():
    rng = np.random.default_rng(5)
    doc, a, b = _paired(rng, 25)
    rep = compare_differences(
        aggregate_arrays(doc, a - b), seed=1, bootstrap_reps=199, permutation_reps=99,
        bounds=(-1.0, 1.0),
    ).report  # fmt: skip
    for est in rep.estimands.values():
        assert est.recommended is not None
        assert "similar differences" in est.recommendation_note
        assert {iv.method for iv in est.intervals} >= {"logit", "korn_graubard"}
    unknown = compare_differences(
        aggregate_arrays(doc, a - b), seed=1, bootstrap_reps=199, permutation_reps=99
    ).report
    assert unknown.bounds is None
    assert "logit" not in {iv.method for iv in unknown.estimands["micro"].intervals}


def test_stratified_difference_carries_and_checks_its_bounds():
    rng = np.random.default_rng(2)
    doc, a, b = _paired(rng, 12)
    stats = aggregate_arrays(doc, a - b)
    strata = np.array(["x" if i % 2 else "y" for i in range(stats.K)], dtype=object)
    stats = replace(stats, stratum=strata, bounds=(-1.0, 1.0), difference=True)
    rep = analyze_design(stats, design="stratified", population_counts={"x": 60, "y": 60})
    assert rep.bounds == (-1.0, 1.0)
    for est in rep.estimands.values():
        (iv,) = est.intervals
        assert iv.outside_range == (iv.lower < -1 or iv.upper > 1)
        assert (est.recommended is None) == iv.outside_range


def test_promptfoo_comparison_has_no_recommended_interval_outside_its_range():
    src = read_source(PROMPTFOO, "promptfoo", cluster_by="vars.source_doc")
    result = ragstat.compare(src, score="pass", seed=3, bootstrap_reps=199)
    data = result.to_dict()
    assert data["bounds"] == [-1.0, 1.0]
    for est in data["estimands"].values():
        for iv in est["intervals"]:
            if iv["lower"] is not None and (iv["lower"] < -1 or iv["upper"] > 1):
                assert iv["outside_range"] is True, iv
            if iv["method"] == est["recommended"]:
                assert not iv["outside_range"] and -1 <= iv["lower"] <= iv["upper"] <= 1


def test_declared_score_range_gives_the_difference_its_range():
    rng = np.random.default_rng(8)
    doc, a, b = _paired(rng, 20)
    qid = [f"q{i}" for i in range(doc.size)]
    fa = pd.DataFrame({"query_id": qid, "doc_id": doc, "score": 1 + 4 * a})
    fb = pd.DataFrame({"query_id": qid, "doc_id": doc, "score": 1 + 4 * b})
    kw = {"seed": 1, "bootstrap_reps": 99, "permutation_reps": 99}
    unknown = ragstat.compare(fa, fb, **kw)
    assert unknown.report.bounds is None  # values 1..5: nothing known without a declared range
    declared = ragstat.compare(fa, fb, score_range="1,5", **kw)
    assert declared.report.bounds == (-4.0, 4.0)
    logit = declared.report.estimands["micro"].get("logit")
    assert logit.available and -4 <= logit.lower <= logit.upper <= 4
    with pytest.raises(ragstat.InputError, match="outside the declared range"):
        ragstat.compare(fa, fb, score_range="0,4", **kw)


def test_demo_verdict_is_in_points(demo_workdir):
    demo = demo_workdir / "ragstat-demo" / "records.parquet"
    result = ragstat.compare(demo, systems=("bm25", "tfidf"), seed=1)
    sentence = result.to_dict()["verdicts"][0]["sentence"]
    assert "by 2.2 points" in sentence, sentence


def test_a_difference_of_rounding_noise_is_zero_not_a_signal():
    """Two runs equal up to floating-point rounding (0.1 + 0.2 against 0.3): the paired
    differences are ~5e-17 each; that is a zero standard error (no interval) and a
    difference of +0.0 points, never '+0.0000000000000055 points' with a 1e-17-wide
    interval."""
    rows = [
        {"system": system, "query_id": f"q{i}", "doc_id": f"d{i % 6}", "score": value}
        for i in range(24)
        for system, value in (("a", 0.1 + 0.2 + (i % 3) / 10), ("b", 0.3 + (i % 3) / 10))
    ]
    result = ragstat.compare(pd.DataFrame(rows), systems=("a", "b"), score_range="0,1", seed=1)
    verdicts = result.to_dict()["verdicts"]
    assert verdicts, result
    for verdict in verdicts:
        sentence = verdict["sentence"]
        assert "+0.0 points" in sentence and "0.0000" not in sentence, sentence
        assert "zero standard error" in sentence, sentence
