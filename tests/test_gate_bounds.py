"""A paired gate on 0/1 (or [0, 1]) scores knows that candidate − baseline lies in [−1, 1]:
it never decides on an interval that leaves that range."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import ragstat
from ragstat.inference.paired import compare
from ragstat.records import aggregate_arrays

#: 5 documents of 2 queries: the candidate hits almost everything, the baseline almost nothing;
#: the unbounded t interval of the difference is [−0.21, 1.41] — past the largest possible 1.
DOC = np.repeat(np.arange(5), 2)
CANDIDATE = np.array([1, 1, 1, 1, 1, 1, 1, 1, 1, 0])
BASELINE = np.array([0, 0, 0, 0, 0, 0, 1, 0, 1, 1])


def _gates(tmp_path, kind: str = "better_than_baseline", estimand: str = "micro") -> dict:
    paths = {}
    for name, hits in (("candidate", CANDIDATE), ("baseline", BASELINE)):
        path = tmp_path / f"{name}.csv"
        pd.DataFrame({"query_id": np.arange(DOC.size), "doc_id": DOC, "hit": hits}).to_csv(
            path, index=False
        )
        paths[name] = {"path": str(path)}
    gate = {"name": "g", "kind": kind, "metric": "hit", "estimand": estimand}
    if kind == "not_worse_than_baseline":
        gate["margin"] = 0.05
    return {"seed": 1, "bootstrap_reps": 199, "inputs": paths, "gates": [gate]}


def test_the_unbounded_interval_would_leave_the_range():
    stats = aggregate_arrays(DOC, CANDIDATE - BASELINE)
    report = compare(stats, seed=1, bootstrap_reps=199, permutation_reps=1).report
    micro = report.estimands["micro"]
    assert micro.get(micro.recommended).upper > 1.0  # what a gate without the range saw


def test_a_paired_gate_decides_inside_minus_one_to_one(tmp_path):
    for kind in ("better_than_baseline", "not_worse_than_baseline"):
        for estimand in ("micro", "macro"):
            result = ragstat.gate(_gates(tmp_path, kind, estimand)).gates[0]
            iv = result.decision.interval
            assert iv is not None, result.decision.reason
            assert -1.0 <= iv.lower <= iv.upper <= 1.0 and not iv.outside_range
            assert result.method in ("logit", "korn_graubard", "logit_cr2_bm",
                                     "doc_bootstrap_percentile")  # fmt: skip
            assert result.estimate == pytest.approx(np.mean(CANDIDATE - BASELINE))
