"""System metrics (seed 004 part 4): latency, ECE, ANN recall, caches, cost, MMD drift."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from ragstat.errors import BackendUnavailable, InputError
from ragstat.metrics.system import (
    ann_recall,
    cache_hit_rates,
    calibration,
    cost_per_query,
    exact_search,
    hnsw_search,
    latency_percentiles,
    mmd_drift,
    proportion_margin,
    read_spans,
)


def _spans():
    spans = []
    for t in range(5):
        spans.append({"trace_id": f"t{t}", "stage": "retrieve", "duration_ms": 10.0 * (t + 1)})
        spans.append({"trace_id": f"t{t}", "stage": "generate", "start_ms": 0, "end_ms": 100 + t})
    # a second retrieve span in t0 (iterative retrieval): summed per trace
    spans.append({"trace_id": "t0", "stage": "retrieve", "duration_ms": 5.0})
    return spans


def test_latency_percentiles_linear_rule(tmp_path):
    path = tmp_path / "trace.jsonl"
    path.write_text("\n".join(json.dumps(s) for s in _spans()) + "\n\n", encoding="utf-8")
    lt = latency_percentiles(path)
    assert lt.stages == ("generate", "retrieve")
    assert lt.count.tolist() == [5, 5]
    # retrieve per trace: 15, 20, 30, 40, 50 → linear: h = 4q
    r = lt.table()[1]
    assert r["stage"] == "retrieve" and r["n"] == 5
    assert r["p50"] == pytest.approx(30.0)
    assert r["p95"] == pytest.approx(40 + 0.8 * 10)
    assert r["p99"] == pytest.approx(40 + 0.96 * 10)
    assert lt.records("retrieve")["t0"] == 15.0
    per_span = latency_percentiles(_spans(), per="span")
    assert per_span.count.tolist() == [5, 6]


def test_latency_bad_input():
    with pytest.raises(InputError, match="empty denominator"):
        latency_percentiles([])
    with pytest.raises(InputError, match="duration_ms"):
        latency_percentiles([{"trace_id": "t", "stage": "s"}])
    with pytest.raises(InputError, match=">= 0"):
        latency_percentiles([{"trace_id": "t", "stage": "s", "start_ms": 5, "end_ms": 1}])
    with pytest.raises(InputError, match="line 2"):
        read_spans(['{"a": 1}', "{oops"])
    with pytest.raises(InputError, match="unknown stage"):
        latency_percentiles(_spans()).records("rerank")


def test_ece_hand_checked():
    # M = 2: bin [0, .5): conf .2, .4 → mean .3, acc .5; bin [.5, 1]: conf .6, .8 → .7, acc 1
    c = calibration([0.2, 0.4, 0.6, 0.8], [False, True, True, True], n_bins=2)
    assert c.bin.tolist() == [0, 0, 1, 1]
    assert c.ece == pytest.approx(0.5 * 0.2 + 0.5 * 0.3)
    table = c.reliability()
    assert [r["count"] for r in table] == [2, 2]
    assert table[0]["mean_confidence"] == pytest.approx(0.3)
    assert table[1]["accuracy"] == 1.0


def test_ece_perfect_and_boundaries():
    c = calibration([0.9] * 10, [True] * 9 + [False], n_bins=10)
    assert c.ece == pytest.approx(0.0, abs=1e-12)
    b = calibration([0.0, 0.3, 0.57, 0.7, 1.0], [0, 1, 0, 1, 1], n_bins=10)
    assert b.bin.tolist() == [0, 3, 5, 7, 9]
    b100 = calibration([0.57], [1], n_bins=100)
    assert b100.bin.tolist() == [57]
    # empty bins are reported with NaN and skipped in the sum
    assert math.isnan(b.reliability()[1]["accuracy"])
    assert b.records()["1"] == pytest.approx(0.7)


def test_ece_bad_input():
    with pytest.raises(InputError, match="empty denominator"):
        calibration([], [])
    with pytest.raises(InputError, match=r"\[0, 1\]"):
        calibration([1.2], [True])
    with pytest.raises(InputError):
        calibration([0.5, 0.5], [True])
    with pytest.raises(InputError):
        calibration([0.5], [2])


def test_ann_recall():
    exact = {"q1": [1, 2, 3, 4], "q2": [5, 6], "q3": [7, 8]}
    approx = {"q1": [1, 3, 9, 2], "q2": [6, 5, 1]}
    r = ann_recall(approx, exact, k=3)
    assert r.records() == pytest.approx({"q1": 2 / 3, "q2": 1.0, "q3": 0.0})
    assert r.missing == ("q3",)
    assert r.mean == pytest.approx((2 / 3 + 1) / 3)
    with pytest.raises(InputError):
        ann_recall({}, {}, k=3)
    with pytest.raises(InputError, match="empty exact"):
        ann_recall({}, {"q": []}, k=3)


def test_exact_and_hnsw_search():
    rng = np.random.default_rng(0)
    v, q = rng.normal(size=(200, 8)), rng.normal(size=(10, 8))
    ex = exact_search(v, q, k=5)
    d = ((q[0] - v) ** 2).sum(1)
    assert ex[0] == np.argsort(d)[:5].tolist()
    assert exact_search(v, q, k=1, space="ip")[0] == [int(np.argmax(v @ q[0]))]
    try:
        approx = hnsw_search(v, q, k=5, ef=200)
    except BackendUnavailable:
        pytest.skip("hnswlib not installed")
    ids = [f"q{i}" for i in range(10)]
    r = ann_recall(dict(zip(ids, approx, strict=True)), dict(zip(ids, ex, strict=True)), k=5)
    assert r.mean >= 0.95


def test_cache_and_cost():
    hits = cache_hit_rates(
        [{"layer": "embedding", "hit": True}, {"layer": "embedding", "hit": False}]
        + [{"layer": "retrieval", "hit": h} for h in (1, 1, 1, 0)]
    )
    assert hits.rates() == {"embedding": 0.5, "retrieval": 0.75}
    with pytest.raises(InputError):
        cache_hit_rates([])
    with pytest.raises(InputError):
        cache_hit_rates([{"layer": "x", "hit": "yes"}])
    cost = cost_per_query(
        [
            {"query_id": "a", "cost": 0.01},
            {"query_id": "a", "cost": 0.02},
            {"query_id": "b", "cost": 0},
        ]
    )
    assert cost.records() == pytest.approx({"a": 0.03, "b": 0.0})
    assert cost.mean == pytest.approx(0.015) and cost.total == pytest.approx(0.03)
    with pytest.raises(InputError):
        cost_per_query([])
    with pytest.raises(InputError):
        cost_per_query([{"query_id": "a", "cost": -1}])


def _naive_mmd2(x, y, s):
    k = lambda a, b: math.exp(-(((a - b) ** 2).sum()) / (2 * s * s))  # noqa: E731
    m, n = len(x), len(y)
    xx = sum(k(x[i], x[j]) for i in range(m) for j in range(m) if i != j) / (m * (m - 1))
    yy = sum(k(y[i], y[j]) for i in range(n) for j in range(n) if i != j) / (n * (n - 1))
    xy = sum(k(a, b) for a in x for b in y) / (m * n)
    return xx + yy - 2 * xy


def test_mmd_matches_naive_unbiased_estimator():
    rng = np.random.default_rng(1)
    x, y = rng.normal(size=(6, 3)), rng.normal(size=(5, 3)) + 0.5
    r = mmd_drift(x, y, n_permutations=50, seed=0, bandwidth=1.3)
    assert r.mmd2 == pytest.approx(_naive_mmd2(x, y, 1.3))


def test_mmd_identical_and_shifted_distributions():
    rng = np.random.default_rng(7)
    x = rng.normal(size=(80, 5))
    same = mmd_drift(x, x.copy(), n_permutations=300, seed=3)
    assert abs(same.mmd2) < 0.01 and same.p_value > 0.5
    fresh = mmd_drift(x, rng.normal(size=(80, 5)), n_permutations=300, seed=3)
    assert abs(fresh.mmd2) < 0.02 and fresh.p_value > 0.05
    shifted = mmd_drift(x, rng.normal(size=(80, 5)) + 0.8, n_permutations=300, seed=3)
    assert shifted.mmd2 > 0.05 and shifted.p_value <= 1 / 301 + 1e-12
    again = mmd_drift(x, rng.normal(size=(80, 5)) + 0.8, n_permutations=300, seed=3)
    assert again.bandwidth > 0
    assert mmd_drift(x, x.copy(), n_permutations=300, seed=3) == same


def test_mmd_bad_input():
    with pytest.raises(InputError):
        mmd_drift(np.zeros((1, 2)), np.zeros((3, 2)))
    with pytest.raises(InputError, match="identical"):
        mmd_drift(np.zeros((3, 2)), np.zeros((3, 2)))
    with pytest.raises(InputError):
        mmd_drift(np.zeros((3, 2)), np.zeros((3, 4)))


def test_seed_sample_size_margin():
    half = proportion_margin(0.8, 200)
    assert half == pytest.approx(1.96 * math.sqrt(0.8 * 0.2 / 200))
    assert round(100 * half, 1) == 5.5
    with pytest.raises(InputError):
        proportion_margin(1.2, 200)


def test_hnsw_missing_backend_names_extra(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "hnswlib", None)
    with pytest.raises(BackendUnavailable, match=r"ragstat\[ann\]"):
        hnsw_search(np.eye(3), np.eye(3), k=1)
