"""How often a ``not_worse_than_baseline`` gate wrongly passes a truly worse system.

A census of documents with unequal sizes and a strong document effect on the paired
difference (queries of a document share their rates under both systems) holds a
candidate whose true micro difference from the baseline is exactly −2·margin: the gate
must fail it. Simple random samples of K documents are drawn from the census and the
gate is decided at 95 % on each; the document-clustered interval ``ragstat gate`` uses
(``compare``'s recommendation for a difference of two 0/1 scores, known in [−1, 1]: at
K = 30 documents — nearest tabulated K = 40 — the contest's paired section picks CR3) must
wrongly pass in at most 5 % + 3 MC SE of the samples, while the naive query-level interval
(queries taken as independent) wrongly passes clearly more often.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

import ragstat
from ragstat.decisions.gates import GateSpec, outcome
from ragstat.inference.analyze import analyze
from ragstat.records import aggregate_arrays

D = 2000  # documents in the census
K = 30  # documents per sample
R = 1000  # samples
LEVEL = 0.95
PAIRED_RANGE = (-1.0, 1.0)  # y_candidate − y_baseline of two 0/1 scores
GATE_METHOD = "cr3_bm"  # what the gate decides on at K = 30 (checked below)


def census(seed: int = 2024) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per-query rows (doc, y_candidate, y_baseline) and the document sizes."""
    rng = np.random.default_rng(seed)
    n = np.minimum(1 + rng.geometric(1 / 25, D), 150)  # 2 … 150 queries, mean ≈ 25
    doc = np.repeat(np.arange(D), n)
    base = np.repeat(rng.beta(2, 3, D), n)  # the baseline's rate per document
    shift = np.repeat(rng.normal(-0.08, 0.30, D), n)  # the document effect on the difference
    cand = np.clip(base + shift, 0.0, 1.0)
    u = rng.random(doc.size)  # one draw per query: the two systems' hits are paired
    return doc, (u < cand).astype(float), (u < base).astype(float), n


@pytest.fixture(scope="module")
def population():
    doc, ya, yb, n = census()
    diff = ya - yb
    truth = float(diff.mean())  # the census micro difference, candidate − baseline
    assert truth < -0.02  # the candidate is truly worse
    margin = -truth / 2  # so the truth is exactly −2·margin: the gate must fail
    return doc, ya, yb, n, diff, truth, margin


def _sample(rng: np.random.Generator, n: np.ndarray) -> np.ndarray:
    """The row indices of an SRS of K documents (without replacement)."""
    starts = np.concatenate([[0], np.cumsum(n)])
    pick = np.sort(rng.choice(D, K, replace=False))
    return np.concatenate([np.arange(starts[k], starts[k + 1]) for k in pick])


def _intervals(doc: np.ndarray, diff: np.ndarray, seed: int) -> dict:
    stats = replace(
        aggregate_arrays(doc, diff, score="diff"), binary=False, difference=True,
        bounds=PAIRED_RANGE,
    )  # fmt: skip
    report = analyze(
        stats,
        level=LEVEL,
        methods=[GATE_METHOD, "wald_iid"],
        estimands=["micro"],
        seed=seed,
        bootstrap_reps=99,
    )
    return {m: report.estimands["micro"].get(m) for m in (GATE_METHOD, "wald_iid")}


def test_the_simulated_decision_is_the_gate_decision(population, tmp_path):
    """On one sample, ``ragstat gate`` (no family correction) decides on the same interval."""
    doc, ya, yb, n, diff, _, margin = population
    idx = _sample(np.random.default_rng(7), n)
    rows = [
        pd.DataFrame({"query_id": idx, "doc_id": doc[idx], "system": name, "hit1": y[idx]})
        for name, y in (("candidate", ya), ("baseline", yb))
    ]
    pd.concat(rows).to_parquet(tmp_path / "records.parquet")
    spec = {
        "level": LEVEL, "correction": "none", "bootstrap_reps": 99,
        "inputs": {
            "candidate": {"path": "records.parquet", "system": "candidate"},
            "baseline": {"path": "records.parquet", "system": "baseline"},
        },
        "gates": [{"name": "ni", "kind": "not_worse_than_baseline", "metric": "hit1",
                   "margin": margin}],
    }  # fmt: skip
    got = ragstat.gate(spec, base=tmp_path).gates[0]
    assert got.K == K and idx.size == got.N
    assert got.method == GATE_METHOD, got.method
    want = _intervals(doc[idx], diff[idx], seed=0)[GATE_METHOD]
    iv = got.decision.interval
    assert -1.0 <= iv.lower <= iv.upper <= 1.0 and not iv.outside_range
    assert iv.lower == pytest.approx(want.lower, abs=1e-12)
    assert iv.upper == pytest.approx(want.upper, abs=1e-12)
    assert got.decision.outcome == outcome(got.spec, want.lower, want.upper)


@pytest.mark.slow
def test_clustered_gate_rarely_passes_a_worse_system_naive_often(population):
    doc, _, _, n, diff, truth, margin = population
    gate = GateSpec(name="ni", kind="not_worse_than_baseline", metric="hit1", margin=margin)
    rng = np.random.default_rng(20240615)
    wrong = {GATE_METHOD: 0, "wald_iid": 0}
    for r in range(R):
        idx = _sample(rng, n)
        for method, iv in _intervals(doc[idx], diff[idx], seed=r).items():
            assert iv is not None and iv.available, method
            wrong[method] += outcome(gate, iv.lower, iv.upper) == "pass"
    clustered, naive = wrong[GATE_METHOD] / R, wrong["wald_iid"] / R
    limit = 0.05 + 3 * np.sqrt(0.05 * 0.95 / R)
    se_naive = np.sqrt(naive * (1 - naive) / R)
    text = (
        f"truth {truth:+.4f} = −2 × margin {margin:.4f}; wrong passes over {R} samples of "
        f"K = {K} documents: clustered ({GATE_METHOD}) {clustered:.2%}, naive (wald_iid) {naive:.2%}"
    )
    print(text)
    assert clustered <= limit, text
    # the naive gate: far more wrong passes, beyond its own MC noise, and above 5 % itself
    assert naive > 0.05 + 3 * se_naive and naive >= 3 * clustered + 3 * se_naive, text
