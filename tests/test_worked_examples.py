"""Seed 001's worked example: 20 docs × 500 chunks, ten never hit, ten hit 40 %."""

import numpy as np
import pytest

from ragstat import aggregate_arrays, analyze


@pytest.fixture(scope="module")
def report():
    doc = np.repeat([f"d{i:02d}" for i in range(20)], 500)
    y = np.zeros(10_000)
    for d in range(10, 20):
        y[d * 500 : d * 500 + 200] = 1.0
    return analyze(aggregate_arrays(doc, y), seed=1)


def test_both_means_are_0_20(report):
    assert report.estimands["micro"].estimate == pytest.approx(0.20)
    assert report.estimands["macro"].estimate == pytest.approx(0.20)
    assert report.K == 20 and report.N == 10_000


def test_iid_interval_is_the_false_one(report):
    iid = report.estimands["micro"].get("wald_iid")
    assert iid.naive
    assert iid.se == pytest.approx(0.004, abs=5e-7)
    assert round(iid.lower, 3) == 0.192 and round(iid.upper, 3) == 0.208


def test_t_on_rates(report):
    t = report.estimands["macro"].get("t_rates")
    r = np.r_[np.zeros(10), np.full(10, 0.4)]
    assert np.std(r, ddof=1) == pytest.approx(0.2052, abs=5e-5)
    assert t.se == pytest.approx(0.0459, abs=5e-5)
    assert t.df == 19
    assert round(t.lower, 3) == 0.104 and round(t.upper, 3) == 0.296


def test_equal_sizes_micro_methods_agree_with_macro_t(report):
    micro = report.estimands["micro"]
    t = report.estimands["macro"].get("t_rates")
    for name in ("cr1", "cr2_bm", "cr2_ik"):
        iv = micro.get(name)
        assert iv.se == pytest.approx(t.se, rel=1e-12)
        assert iv.df == pytest.approx(19, rel=1e-9)
        assert iv.lower == pytest.approx(t.lower, rel=1e-9)
