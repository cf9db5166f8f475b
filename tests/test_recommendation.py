"""The simulation's recommendation rule: narrowest at or above nominal − 2 MC SE, else the
highest coverage with its shortfall; never a naive method or the effective-n diagnostic."""

from __future__ import annotations

import json
import math
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ragstat.simulation.recommend import NEVER_RECOMMENDED, recommend
from ragstat.simulation.results import CensusSummary, CoverageReport, MethodCoverage

R = 400
LEVEL = 0.95


def _row(method: str, coverage: float, width: float | None, k: int = 5, est: str = "micro"):
    se = math.sqrt(coverage * (1 - coverage) / R)
    return MethodCoverage(
        k=k,
        estimand=est,
        method=method,
        reps=R,
        coverage=coverage,
        coverage_se=se,
        coverage_available=coverage,
        mean_width=width,
        median_width=width,
        bias=0.0,
        rmse=0.01,
        unavailable=0.0,
    )


def _pick(*rows: MethodCoverage, design: str = "srs") -> dict:
    rep = CoverageReport(
        census=CensusSummary(K=300, N=3000, micro=0.4, macro=0.35),
        design=design,
        level=LEVEL,
        seed=1,
        reps=R,
        bootstrap_reps=99,
        results=tuple(rows),
    )
    out = recommend(rep).recommendation
    assert "not guaranteed" in out["caveat"]
    (choice,) = out["by_k_estimand"].values()
    return choice


def test_all_above_nominal_the_narrowest_wins_and_is_called_conservative():
    c = _pick(
        _row("cr2_bm", 0.985, 0.30),
        _row("cr1", 0.972, 0.20),
        _row("doc_bootstrap_t", 0.990, 0.40),
        _row("wald_iid", 0.990, 0.10),  # naive, narrowest: never picked
    )
    assert c["methods"] == ["cr1"]
    assert c["verdict"] == "conservative"
    assert c["coverage"] == 0.972 and c["nominal"] == LEVEL and c["shortfall"] is None
    assert c["text"] == "covers 97.2 %, above the nominal 95 %: conservative"
    assert c["basis"].startswith(c["text"])
    assert c["eligible"] == 3


def test_all_under_the_highest_coverage_wins_with_its_shortfall():
    c = _pick(
        _row("cr2_bm", 0.910, 0.30),
        _row("cr1", 0.880, 0.20),
        _row("t_rates", 0.850, 0.10),
        _row("query_bootstrap", 0.930, 0.40),  # naive and highest: never picked
    )
    assert c["methods"] == ["cr2_bm"]
    assert c["verdict"] == "short"
    assert c["shortfall"] == pytest.approx(0.04)
    assert c["text"] == (
        "covers 91.0 %, 4.0 points short of 95 %: no method reached the nominal level at K = 5"
    )
    assert c["eligible"] == 0


def test_within_monte_carlo_error_is_said_so():
    c = _pick(_row("cr2_bm", 0.946, 0.30), _row("cr1", 0.90, 0.20))
    assert c["methods"] == ["cr2_bm"]
    assert c["verdict"] == "within"
    assert c["text"] == "covers 94.6 %, within Monte-Carlo error of 95 %"


def test_ties_in_width_go_to_the_higher_coverage_then_a_stable_order():
    c = _pick(_row("cr2_ik", 0.950, 0.25), _row("cr2_bm", 0.960, 0.25), _row("cr1", 0.5, 0.1))
    assert c["methods"] == ["cr2_bm"]
    same = [_row("doc_bootstrap_t", 0.955, 0.25), _row("cr2_ik", 0.955, 0.25)]
    assert _pick(*same)["methods"] == _pick(*same[::-1])["methods"] == ["cr2_ik"]


def test_a_naive_method_narrowest_and_within_is_not_picked():
    c = _pick(_row("wald_iid", 0.951, 0.05), _row("cr2_bm", 0.948, 0.30))
    assert c["methods"] == ["cr2_bm"]


def test_wald_effective_n_is_never_picked():
    c = _pick(_row("wald_effective_n", 0.96, 0.05), _row("cr2_bm", 0.80, 0.30))
    assert c["methods"] == ["cr2_bm"] and c["verdict"] == "short"
    c = _pick(_row("wald_effective_n", 0.96, 0.05), _row("cr1", 0.97, 0.30))
    assert c["methods"] == ["cr1"]


def test_only_contrast_methods_give_no_recommendation():
    rep = CoverageReport(
        census=CensusSummary(K=10, N=100, micro=0.4, macro=0.35),
        design="srs",
        level=LEVEL,
        seed=1,
        reps=R,
        bootstrap_reps=99,
        results=(_row("wald_iid", 0.95, 0.1), _row("wald_effective_n", 0.95, 0.1)),
    )
    assert recommend(rep).recommendation["by_k_estimand"] == {}


def test_an_unavailable_width_never_wins_on_width():
    c = _pick(_row("doc_bootstrap_t", 0.97, None), _row("cr2_bm", 0.96, 0.3))
    assert c["methods"] == ["cr2_bm"]


def test_two_stage_wording_names_k_per_type():
    c = _pick(_row("two_stage_t", 0.90, 0.3, est="type_mean"), design="two-stage")
    assert c["text"].endswith("at k = 5 per type")


def _ragstat(*args: str) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "ragstat", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=900)


@pytest.mark.slow
def test_planalto_bm25_census_recommends_a_method_that_reaches_nominal(shared, tmp_path):
    data = shared / "data" / "planalto-leis.jsonl"
    if not data.is_file():
        pytest.skip(f"{data} is absent")
    study = tmp_path / "study"
    done = _ragstat("study", str(data), "--retrievers", "bm25", "--out", str(study))
    assert done.returncode == 0, done.stderr
    records = Path(study) / "records.parquet"
    t0 = time.perf_counter()
    args = ("--score", "hit1", "--system", "bm25", "--k", "5,20,80", "--reps", "400", "--json")
    sim = _ragstat("simulate", str(records), *args)
    assert sim.returncode == 0, sim.stderr
    assert time.perf_counter() - t0 < 900
    out = json.loads(sim.stdout)
    picks = out["recommendation"]["by_k_estimand"]
    assert picks
    for key, choice in picks.items():
        k, est = key.removeprefix("k=").split(" ")
        rows = [r for r in out["results"] if r["k"] == int(k) and r["estimand"] == est]
        ok = [
            r
            for r in rows
            if r["method"] not in NEVER_RECOMMENDED
            and r["coverage"] >= out["level"] - 2 * r["coverage_se"]
        ]
        (method,) = choice["methods"]
        assert method not in NEVER_RECOMMENDED
        chosen = next(r for r in rows if r["method"] == method)
        if ok:
            assert chosen in ok, (key, choice)
            assert choice["verdict"] in ("within", "conservative")
        else:
            assert choice["verdict"] == "short"
            best = max(r["coverage"] for r in rows if r["method"] not in NEVER_RECOMMENDED)
            assert chosen["coverage"] == best
