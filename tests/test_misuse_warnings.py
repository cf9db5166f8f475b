"""Warnings that catch misuse: no clustering (K = N), few documents, mostly single-query
documents, and micro and macro comparisons that disagree — in the result, the JSON, the
terminal and the report, for every design."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from cli_run import cli
from ragstat import DocStats
from ragstat.inference.analyze import analyze
from ragstat.inference.design_analysis import analyze_design
from ragstat.inference.paired import compare, estimand_disagreement
from ragstat.inference.results import EstimandResult, Interval, IntervalReport
from ragstat.report.build import report_from_comparison, report_from_interval
from ragstat.report.markdown import render_markdown

NO_CLUSTERING = "there is no clustering"
FEW_DF = "degrees of freedom"
SINGLES = "hold a single query"
SMALL = "no interval method is guaranteed"
DISAGREE = "micro and macro disagree"


def _stats(n, seed: int = 0, strata=None) -> DocStats:
    n = np.asarray(n, dtype=float)
    s = np.random.default_rng(seed).binomial(n.astype(int), 0.4).astype(float)
    s[:2] = [0.0, 1.0]  # never all equal rates
    return DocStats(
        doc_id=[f"d{i:03d}" for i in range(n.size)], n=n, s=s, q=s, binary=True, stratum=strata
    )


def _warnings(stats: DocStats) -> tuple[str, ...]:
    return analyze(stats, seed=1, bootstrap_reps=99).warnings


def _has(warnings, text: str) -> int:
    return sum(text in w for w in warnings)


def test_every_cluster_one_query_says_there_is_no_clustering():
    w = _warnings(_stats(np.ones(40)))
    assert _has(w, NO_CLUSTERING) == 1
    assert _has(w, "--cluster query_id") == 1
    assert _has(w, SINGLES) == 0  # said once, by the stronger line
    assert _has(_warnings(_stats(np.full(40, 3))), NO_CLUSTERING) == 0


def test_fewer_than_ten_documents_warn_of_few_df():
    w = _warnings(_stats([4, 5, 6, 3, 8, 2]))
    assert _has(w, "only K = 6 documents") == 1
    assert _has(w, "at most 5 degrees of freedom") == 1
    assert _has(w, "sample more documents") == 1
    w15 = _warnings(_stats(np.full(15, 4)))
    assert _has(w15, FEW_DF) == 0 and _has(w15, SMALL) == 1
    w40 = _warnings(_stats(np.full(40, 4)))
    assert _has(w40, FEW_DF) == 0 and _has(w40, SMALL) == 0 and _has(w40, "only K") == 0


def test_more_than_half_single_query_documents():
    w = _warnings(_stats([1] * 21 + [6] * 19))
    assert _has(w, "21 of 40 documents (52%) hold a single query") == 1
    assert _has(w, "more queries per document") == 1
    assert _has(_warnings(_stats([1] * 20 + [6] * 20)), SINGLES) == 0  # half is not more


def _strata(K: int) -> np.ndarray:
    return np.array(["a", "b"] * (K // 2))


@pytest.mark.parametrize("design", ["stratified", "two-stage"])
def test_every_design_gets_the_k_warnings(design):
    K = 8
    st = _stats(np.ones(K), strata=_strata(K))
    counts = {"a": 50, "b": 60} if design == "stratified" else {"a": 50, "b": 60, "c": 40}
    rep = analyze_design(st, design=design, population_counts=counts)
    assert _has(rep.warnings, NO_CLUSTERING) == 1
    assert _has(rep.warnings, "only K = 8 documents") == 1
    mixed = _stats([1] * 14 + [5] * 10, strata=_strata(24))
    rep = analyze_design(mixed, design=design, population_counts=counts)
    assert _has(rep.warnings, "14 of 24 documents") == 1 and _has(rep.warnings, "only K") == 0


def _disagreeing_diff() -> DocStats:
    """Ten large documents where A is ahead (+0.3), thirty two-query documents where it is
    behind on average (−0.1): the pooled query difference is clearly positive, the mean
    document difference is about zero."""
    big_s = np.array([14, 15, 16, 15, 14, 16, 15, 15, 14, 16], dtype=float)
    small_s = np.array([2.0] * 9 + [-2.0] * 12 + [0.0] * 9)
    n = np.r_[np.full(10, 50.0), np.full(30, 2.0)]
    s = np.r_[big_s, small_s]
    q = np.r_[np.full(10, 26.0), np.full(30, 2.0)]
    return DocStats(doc_id=[f"d{i:02d}" for i in range(40)], n=n, s=s, q=q)


def test_compare_warns_when_micro_and_macro_disagree_on_zero():
    res = compare(_disagreeing_diff(), seed=3, bootstrap_reps=199)
    micro = res.report.estimands["micro"].get("cr2_bm")
    macro = res.report.estimands["macro"].get("t_rates")
    assert micro.lower > 0 and macro.lower < 0 < macro.upper
    (line,) = [w for w in res.report.warnings if DISAGREE in w]
    assert "micro interval (cr2_bm) excludes 0" in line
    assert "macro interval (t_rates) includes it" in line
    assert "a random query" in line and "a typical document" in line
    assert "\n" not in line
    assert DISAGREE in " ".join(res.to_dict()["warnings"])
    md = render_markdown(report_from_comparison(res, _disagreeing_diff(), source="x"))
    assert DISAGREE in md


def test_compare_says_nothing_when_both_agree():
    st = _disagreeing_diff()
    agree = DocStats(doc_id=st.doc_id, n=st.n, s=np.abs(st.s), q=st.q)
    res = compare(agree, seed=3, bootstrap_reps=199)
    assert _has(res.report.warnings, DISAGREE) == 0
    one = compare(st, seed=3, bootstrap_reps=199, estimands=("micro",))
    assert _has(one.report.warnings, DISAGREE) == 0


def _iv(method: str, est: str, lo: float, hi: float, naive: bool = False) -> Interval:
    return Interval(method, est, (lo + hi) / 2, lo, hi, 0.95, "ref", naive=naive)


def test_disagreement_uses_the_recommended_interval_not_a_naive_one():
    base = analyze(_stats(np.full(30, 4)), seed=1, bootstrap_reps=99)
    ests = {
        "micro": EstimandResult(
            "micro",
            0.1,
            (_iv("wald_iid", "micro", 0.05, 0.2, True), _iv("cr2_bm", "micro", -0.01, 0.2)),
            "cr2_bm",
        ),
        "macro": EstimandResult("macro", 0.1, (_iv("t_rates", "macro", -0.02, 0.3),), "t_rates"),
    }
    rep = IntervalReport(**{**base.__dict__, "estimands": ests})
    assert estimand_disagreement(rep) is None
    ests["macro"] = EstimandResult("macro", 0.2, (_iv("t_rates", "macro", 0.01, 0.3),), "t_rates")
    line = estimand_disagreement(IntervalReport(**{**base.__dict__, "estimands": ests}))
    assert line is not None and "micro interval (cr2_bm) includes 0" in line


def test_warnings_reach_the_report():
    st = _stats(np.ones(8))
    res = analyze(st, seed=1, bootstrap_reps=99)
    md = render_markdown(report_from_interval(res, st, source="x"))
    assert NO_CLUSTERING in md and "only K = 8 documents" in md


def test_cli_cluster_by_query_id_warns_in_json_and_terminal(tmp_path, capsys):
    rng = np.random.default_rng(2)
    doc = np.repeat([f"d{i}" for i in range(12)], 5)
    table = pd.DataFrame(
        {"query_id": np.arange(doc.size), "doc_id": doc, "hit": rng.integers(0, 2, doc.size)}
    )
    path = tmp_path / "table.csv"
    table.to_csv(path, index=False)
    args = ["interval", path, "--bootstrap-reps", "199", "--cluster", "query_id"]
    rc, printed, err = cli(capsys, *args, "--json")
    assert rc == 0, err
    out = json.loads(printed)
    assert out["K"] == out["N"] == 60
    assert _has(out["warnings"], NO_CLUSTERING) == 1
    rc, printed, err = cli(capsys, *args[:-1], "doc_id", "--json")
    assert rc == 0, err
    assert _has(json.loads(printed)["warnings"], NO_CLUSTERING) == 0
    rc, shown, err = cli(capsys, *args)
    assert rc == 0, err
    assert NO_CLUSTERING in " ".join(shown.split())
