"""IR metrics: conformance with trec_eval (pytrec_eval oracle), seed-004 example, contracts.

The oracle values in ``tests/reference/ir/oracle.json`` come from
``tests/reference/ir/make_fixture.py`` (pytrec_eval reading the TREC files with
its own parser); nothing here needs the oracle installed.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from ragstat.errors import InputError
from ragstat.metrics import (
    METRIC_NAMES,
    Metric,
    Qrels,
    Run,
    evaluate,
    parse_metric,
    qrels_from_dict,
    read_qrels,
    read_run,
    run_from_dict,
    run_from_frame,
)

REF = Path(__file__).resolve().parent / "reference" / "ir"
ORACLE = json.loads((REF / "oracle.json").read_text(encoding="utf-8"))
RUNS = sorted(ORACLE["runs"])
ALL_METRICS = sorted(next(iter(ORACLE["runs"][RUNS[0]]["values"].values())))


@pytest.fixture(scope="module")
def fixture_table():
    qrels = read_qrels(REF / "qrels.trec")
    runs = [read_run(REF / f"{name}.trec") for name in RUNS]
    return qrels, runs, evaluate(qrels, runs, ALL_METRICS)


# --------------------------------------------------------------------------- conformance


def test_fixture_is_big_enough_and_covers_the_edge_cases():
    assert len(ORACLE["qrels_queries"]) >= 60
    assert ORACLE["no_relevant"]
    for r in ORACLE["runs"].values():
        assert r["missing"] and r["unjudged"]
    assert len(ALL_METRICS) >= 20


@pytest.mark.parametrize("run_name", RUNS)
def test_every_metric_equals_trec_eval(fixture_table, run_name):
    _, _, table = fixture_table
    oracle = ORACLE["runs"][run_name]["values"]
    no_rel = set(ORACLE["no_relevant"])
    rec = table.records[table.records["system"] == run_name]
    assert set(rec["metric"]) == set(ALL_METRICS)
    assert set(rec["query_id"]) == set(ORACLE["qrels_queries"])
    compared = 0
    for q, metric, value, flag in rec[["query_id", "metric", "value", "no_relevant"]].itertuples(
        index=False
    ):
        expected = oracle[q][metric]
        if q in no_rel:
            # trec_eval scores a query without relevant documents 0; ragstat: NaN + flag
            assert flag and math.isnan(value) and expected == 0.0
            continue
        assert not flag
        assert value == pytest.approx(expected, abs=1e-9), (run_name, q, metric)
        compared += 1
    assert compared == len(ALL_METRICS) * (len(oracle) - len(no_rel))


@pytest.mark.parametrize("run_name", RUNS)
def test_ranking_order_equals_trec_eval(fixture_table, run_name):
    """Ranks of the relevant documents, recovered from trec_eval's P_1 … P_depth."""
    qrels, runs, _ = fixture_table
    run = runs[RUNS.index(run_name)]
    for q, ranks in ORACLE["runs"][run_name]["relevant_ranks"].items():
        ours = [
            i + 1 for i, (d, _) in enumerate(run.rankings.get(q, [])) if qrels[q].get(d, 0) >= 1
        ]
        assert ours == ranks, q


@pytest.mark.parametrize("run_name", RUNS)
def test_query_accounting_matches_the_fixture(fixture_table, run_name):
    _, _, table = fixture_table
    oracle = ORACLE["runs"][run_name]
    counts = table.counts[run_name]
    assert counts.total == len(ORACLE["qrels_queries"])
    assert counts.missing_run == len(oracle["missing"])
    assert counts.no_relevant == len(ORACLE["no_relevant"])
    assert counts.unjudged_queries == len(oracle["unjudged"])
    rec = table.records[
        (table.records["system"] == run_name) & (table.records["metric"] == "ndcg@10")
    ]
    assert sorted(rec.loc[rec["missing_run"], "query_id"]) == oracle["missing"]
    # a missing query is scored as an empty ranking: 0 (trec_eval -c), unless it has no relevant doc
    scored_missing = rec[rec["missing_run"] & ~rec["no_relevant"]]
    assert len(scored_missing) > 0 and (scored_missing["value"] == 0).all()
    assert not rec["query_id"].str.startswith("x").any()  # run-only queries ignored


# --------------------------------------------------------------------------- seed 004


SEED_GOLD = {"q1": {"d3"}, "q2": {"d7", "d2"}, "q3": {"d11"}, "q4": {"d5"}}
SEED_RUNS = {
    "q1": ["d8", "d3", "d1", "d4", "d2", "d9", "d6", "d10", "d12", "d13"],
    "q2": ["d2", "d6", "d4", "d7", "d1", "d3", "d8", "d11", "d5", "d9"],
    "q3": ["d11", "d2", "d3", "d4", "d1", "d6", "d7", "d8", "d10", "d12"],
    "q4": ["d1", "d2", "d3", "d6", "d8", "d9", "d10", "d12", "d13", "d14"],
}


def test_seed_004_worked_example():
    table = evaluate(
        qrels_from_dict(SEED_GOLD), run_from_dict(SEED_RUNS), ["recall@5", "mrr", "ndcg@5"]
    )
    assert f"{table.mean('recall@5'):.3f}" == "0.750"
    assert f"{table.mean('mrr'):.3f}" == "0.625"
    assert f"{table.mean('ndcg@5'):.3f}" == "0.627"
    assert table.mean("recall@5") == 0.75 and table.mean("mrr") == 0.625
    ndcg_q2 = (1 + 1 / math.log2(5)) / (1 + 1 / math.log2(3))
    assert table.values("ndcg@5")["q2"] == pytest.approx(ndcg_q2, abs=1e-15)


def test_seed_004_missing_run_is_an_empty_ranking():
    runs = {q: r for q, r in SEED_RUNS.items() if q != "q3"}
    table = evaluate(qrels_from_dict(SEED_GOLD), run_from_dict(runs), ["recall@5"])
    rec = table.records.set_index("query_id")
    assert bool(rec.loc["q3", "missing_run"]) and rec.loc["q3", "value"] == 0.0
    assert table.counts["run"].missing_run == 1
    assert table.mean("recall@5") == pytest.approx(0.5)  # q3 counts as 0, not dropped


# --------------------------------------------------------------------------- contracts


def test_duplicate_document_in_a_ranking_is_rejected_naming_the_query():
    with pytest.raises(InputError, match=r"query 'q2'.*'d1' twice"):
        run_from_dict({"q1": ["d1", "d2"], "q2": ["d1", "d3", "d1"]})
    with pytest.raises(InputError, match="'q1'"):
        Run({"q1": [("d1", 1.0), ("d1", 0.5)]}, name="r")
    import pandas as pd

    frame = pd.DataFrame(
        {"query_id": ["a", "b", "b"], "doc_id": ["x", "y", "y"], "score": [1, 2, 3]}
    )
    with pytest.raises(InputError, match=r"query 'b'.*'y' twice \(row 1 and row 2\)"):
        run_from_frame(frame)


def test_duplicate_in_trec_run_names_both_lines(tmp_path):
    path = tmp_path / "r.trec"
    path.write_text("q1 Q0 d1 1 3 t\n\nq1 Q0 d2 2 2 t\nq1 Q0 d1 3 1 t\n")
    with pytest.raises(InputError, match=rf"query 'q1'.*'d1' twice \({path}:1 and {path}:4\)"):
        read_run(path)


def test_no_relevant_queries_are_their_own_slice():
    qrels = qrels_from_dict({"q1": {"d1": 1}, "q2": {"d2": 0, "d3": 0}})
    run = run_from_dict({"q1": ["d9", "d1"], "q2": ["d2"]})
    table = evaluate(qrels, run, ["recall@10", "mrr"])
    rec = table.records.set_index(["metric", "query_id"])
    assert math.isnan(rec.loc[("mrr", "q2"), "value"]) and rec.loc[("mrr", "q2"), "no_relevant"]
    assert table.counts["run"].no_relevant == 1 and table.counts["run"].scored == 1
    assert table.mean("mrr") == 0.5  # not (0.5 + 0) / 2
    means = table.means().set_index("metric")
    assert means.loc["mrr", "n"] == 1


@pytest.mark.parametrize("name", ["ndcg@0", "p@-1", "recall@0", "mrr@0", "map@-5", "hit@0"])
def test_non_positive_cutoff_rejected(name):
    with pytest.raises(InputError, match="positive"):
        parse_metric(name)


def test_metric_constructor_validates():
    with pytest.raises(InputError, match="positive"):
        Metric("ndcg", 0)
    with pytest.raises(InputError, match="needs a cutoff"):
        parse_metric("recall")
    with pytest.raises(InputError, match="not an integer"):
        parse_metric("ndcg@ten")
    with pytest.raises(InputError, match="no cutoff"):
        parse_metric("rprec@10")


def test_unknown_metric_lists_the_valid_ones():
    with pytest.raises(InputError) as err:
        parse_metric("bpref")
    for name in ("ndcg@K", "recall@K", "p@K", "mrr", "map", "hit@K", "rprec"):
        assert name in str(err.value)
    assert "ndcg@K" in METRIC_NAMES


@pytest.mark.parametrize(
    ("typed", "canonical"),
    [
        ("nDCG@10", "ndcg@10"),
        ("ndcg", "ndcg"),
        ("Recall@10", "recall@10"),
        ("P@10", "p@10"),
        ("precision@5", "p@5"),
        ("MRR", "mrr"),
        ("mrr@10", "mrr@10"),
        ("rr@10", "mrr@10"),
        ("MAP", "map"),
        ("ap", "map"),
        ("map@100", "map@100"),
        ("hit@5", "hit@5"),
        ("success@5", "hit@5"),
        (" RPrec ", "rprec"),
    ],
)
def test_metric_names_as_users_type_them(typed, canonical):
    assert parse_metric(typed).name == canonical


def test_malformed_trec_lines_name_the_line(tmp_path):
    cases = {
        "q1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 1.0\n": r":2: expected 6 .*columns",
        "q1 Q0 d1 1 2.0 t\n\n\nq1 Q0 d2 2 high t\n": r":4: score 'high' is not a number",
        "q1 Q0 d1 1 nan t\n": r":1: score 'nan' is not finite",
        "q1 Q0 d1 1 2.0 t extra\n": r":1: expected 6",
    }
    for i, (text, pattern) in enumerate(cases.items()):
        path = tmp_path / f"run{i}.trec"
        path.write_text(text)
        with pytest.raises(InputError, match=str(path) + pattern):
            read_run(path)


def test_malformed_qrels_lines(tmp_path):
    path = tmp_path / "qrels.txt"
    path.write_text("q1 0 d1 1\nq1 0 d2 1.5\n")
    with pytest.raises(InputError, match=rf"{path}:2: relevance '1.5' is not an integer"):
        read_qrels(path)
    path.write_text("q1 0 d1 1\nq1 0 d2\n")
    with pytest.raises(InputError, match=rf"{path}:2: expected 4"):
        read_qrels(path)
    path.write_text("q1 0 d1 1\nq2 0 d1 1\nq1 0 d1 0\n")
    with pytest.raises(InputError, match=rf"query 'q1'.*'d1' twice \({path}:1 and {path}:3\)"):
        read_qrels(path)


def test_empty_qrels_rejected(tmp_path):
    path = tmp_path / "empty.qrels"
    path.write_text("")
    with pytest.raises(InputError, match="empty"):
        read_qrels(path)
    path.write_text("\n\n")
    with pytest.raises(InputError, match="empty"):
        read_qrels(path)
    with pytest.raises(InputError, match="empty"):
        qrels_from_dict({})
    with pytest.raises(InputError, match="empty"):
        Qrels({"q1": {}})


def test_negative_grades_are_zero_gain_like_trec_eval():
    # values from pytrec_eval 0.5.11 on exactly this input
    qrels = qrels_from_dict({"q1": {"a": 1, "b": 0, "c": 2, "z": 1, "n": -1}})
    run = run_from_dict({"q1": {"n": 5.0, "a": 4.0}})
    table = evaluate(qrels, run, ["ndcg@1", "ndcg@2", "ndcg", "p@1"])
    assert table.mean("ndcg@1") == 0.0
    assert table.mean("ndcg@2") == pytest.approx(0.23981246656813146, abs=1e-12)
    assert table.mean("ndcg") == pytest.approx(0.20151514190050246, abs=1e-12)
    assert table.mean("p@1") == 0.0


def test_ties_broken_by_doc_id_descending_like_trec_eval():
    # pytrec_eval on all-equal scores ranks z, c, b, a, B (strcmp descending)
    run = run_from_dict({"q1": dict.fromkeys(["a", "b", "c", "z", "B"], 1.0)})
    assert [d for d, _ in run["q1"]] == ["z", "c", "b", "a", "B"]
    qrels = qrels_from_dict({"q1": {"a": 1, "b": 0, "c": 2, "z": 1}})
    table = evaluate(qrels, run, ["p@1", "p@3", "p@4", "p@5", "map", "mrr", "rprec"])
    expected = {"p@1": 1.0, "p@3": 2 / 3, "p@4": 0.75, "p@5": 0.6, "mrr": 1.0}
    expected |= {"map": 0.9166666666666666, "rprec": 0.6666666666666666}
    for name, value in expected.items():
        assert table.mean(name) == pytest.approx(value, abs=1e-12), name


def test_several_systems_and_names():
    qrels = qrels_from_dict(SEED_GOLD)
    a, b = run_from_dict(SEED_RUNS, "a"), run_from_dict({"q1": ["d3"]}, "b")
    table = evaluate(qrels, [a, b], "mrr,recall@5")
    assert table.systems == ("a", "b")
    assert len(table.records) == 2 * 2 * 4
    assert table.counts["b"].missing_run == 3
    with pytest.raises(InputError, match="system="):
        table.mean("mrr")
    assert table.mean("mrr", "b") == 0.25
    with pytest.raises(InputError, match="distinct"):
        evaluate(qrels, [a, a], ["mrr"])
    renamed = evaluate(qrels, [a, a], ["mrr"], system_names=["x", "y"])
    assert renamed.systems == ("x", "y")
    summary = table.summary().set_index("system")
    assert summary.loc["b", "missing_run"] == 3 and summary.loc["a", "total"] == 4
    assert table.to_dict()["a"]["metrics"]["mrr"]["mean"] == 0.625


def test_records_schema():
    table = evaluate(qrels_from_dict(SEED_GOLD), run_from_dict(SEED_RUNS), ["ndcg@10"])
    rec = table.records
    assert list(rec.columns) == [
        "query_id",
        "system",
        "metric",
        "value",
        "missing_run",
        "no_relevant",
    ]
    assert rec["value"].dtype == np.float64
    assert rec["missing_run"].dtype == bool and rec["no_relevant"].dtype == bool


def test_empty_ranking_is_present_not_missing_and_empty_judgments_kept():
    qrels = qrels_from_dict({"q1": {"d1": 1}, "q2": {"d2": 1}, "q3": {}})
    run = Run({"q1": [], "q3": [("d1", 1.0)]}, name="r")
    table = evaluate(qrels, run, ["recall@10"])
    rec = table.records.set_index("query_id")
    assert not rec.loc["q1", "missing_run"] and rec.loc["q1", "value"] == 0.0
    assert rec.loc["q2", "missing_run"] and rec.loc["q2", "value"] == 0.0
    assert rec.loc["q3", "no_relevant"] and math.isnan(rec.loc["q3", "value"])
    assert table.counts["r"].to_dict() == {
        "total": 3,
        "missing_run": 1,
        "no_relevant": 1,
        "unjudged_queries": 0,
        "scored": 2,
    }
    with pytest.raises(InputError, match="given twice"):
        qrels_from_dict({7: {"d": 1}, "7": {"d": 1}})
