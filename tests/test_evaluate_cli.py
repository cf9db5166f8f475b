"""`ragstat evaluate`: JSON contract, clustering, paired runs, errors."""

import json
from pathlib import Path

import pandas as pd
import pytest

from ragstat import InputError
from ragstat.cli import main
from ragstat.metrics import cluster_queries

IR = Path(__file__).parent / "reference" / "ir"


def _run(capsys, *args):
    code = main([str(a) for a in args])
    cap = capsys.readouterr()
    return code, cap.out, cap.err


def test_one_run_json_shape(capsys):
    code, out, err = _run(
        capsys,
        "evaluate",
        "--qrels",
        IR / "qrels.trec",
        "--run",
        IR / "run_a.trec",
        "--metrics",
        "ndcg@10,recall@10,mrr",
        "--json",
        "--bootstrap-reps",
        "199",
    )
    assert code == 0, err
    res = json.loads(out)
    assert set(res["metrics"]) == {"ndcg@10", "recall@10", "mrr"}
    m = res["metrics"]["ndcg@10"]
    assert {"mean", "intervals"} <= set(m) and m["intervals"][0]["method"] == "cr2_bm"
    q = res["queries"]
    assert (q["total"], q["missing_run"], q["no_relevant"], q["unjudged_queries"]) == (64, 6, 6, 3)
    assert any("no ranking" in w for w in res["warnings"])
    assert res["clustering"]["by"] == "query" and "independent" in res["clustering"]["note"]


def test_two_runs_are_compared_pairwise(capsys):
    code, out, _ = _run(
        capsys,
        "evaluate",
        "--qrels",
        IR / "qrels.trec",
        "--run",
        IR / "run_a.trec",
        "--run",
        IR / "run_b.trec",
        "--metrics",
        "p@10",
        "--json",
        "--bootstrap-reps",
        "199",
    )
    assert code == 0
    res = json.loads(out)
    assert set(res["runs"]) == {"run_a", "run_b"}
    paired = res["paired"]["metrics"]["p@10"]
    want = (
        res["runs"]["run_a"]["metrics"]["p@10"]["mean"]
        - res["runs"]["run_b"]["metrics"]["p@10"]["mean"]
    )
    assert paired["estimands"]["micro"]["estimate"] == pytest.approx(want)
    assert 0 <= paired["paired"]["permutation_p"]["micro"] <= 1


def test_clustering_by_source_document_and_by_file(tmp_path, capsys):
    qrels = {
        "q1": {"A#0": 1, "A#1": 1},
        "q2": {"A#2": 2},
        "q3": {"B#0": 1, "C#4": 1, "C#5": 1},
        "q4": {},
        "q5": {"C#9": 1},
        "q6": {"D#1": 1},
    }
    c = cluster_queries("qrels-doc", ["q1", "q2", "q3", "q4", "q5", "q6"], qrels)
    assert c.clusters["q1"] == c.clusters["q2"] == "A"
    assert c.clusters["q3"] == c.clusters["q5"] != c.clusters["q6"]  # B and C joined by q3
    assert c.joined == 1 and c.to_dict()["clusters"] == 3
    with pytest.raises(InputError, match="doc#position"):
        cluster_queries("qrels-doc", ["q1"], {"q1": {"D1": 1}})
    lines = [f"q{i} 0 D{i % 3}#{i} 1" for i in range(12)]
    qpath = tmp_path / "qrels.trec"
    qpath.write_text("\n".join(lines) + "\n")
    rpath = tmp_path / "run.trec"
    rpath.write_text("\n".join(f"q{i} Q0 D{i % 3}#{i} 1 1.0 x" for i in range(0, 12, 2)) + "\n")
    code, out, err = _run(
        capsys,
        "evaluate",
        "--qrels",
        qpath,
        "--run",
        rpath,
        "--metrics",
        "hit@1",
        "--cluster-by",
        "qrels-doc",
        "--json",
        "--bootstrap-reps",
        "99",
    )
    assert code == 0, err
    res = json.loads(out)
    assert res["metrics"]["hit@1"]["clusters"] == 3
    mapping = tmp_path / "topics.csv"
    pd.DataFrame({"query_id": [f"q{i}" for i in range(12)], "topic": ["t1", "t2"] * 6}).to_csv(
        mapping, index=False
    )
    code, out, _ = _run(
        capsys,
        "evaluate",
        "--qrels",
        qpath,
        "--run",
        rpath,
        "--metrics",
        "hit@1",
        "--cluster-by",
        mapping,
        "--cluster-column",
        "topic",
        "--json",
        "--bootstrap-reps",
        "99",
    )
    assert code == 0 and json.loads(out)["metrics"]["hit@1"]["clusters"] == 2


@pytest.mark.parametrize(
    "qrels_text, metrics, match",
    [
        ("q1 0 d1 1\nq1 0 d2\n", "mrr", ":2"),
        ("q1 0 d1 1\n", "ndcg@0", "positive"),
        ("q1 0 d1 1\n", "bleu", "valid metrics"),
        ("", "mrr", "empty"),
    ],
)
def test_bad_input_exits_2(tmp_path, capsys, qrels_text, metrics, match):
    q = tmp_path / "q.trec"
    q.write_text(qrels_text)
    r = tmp_path / "r.trec"
    r.write_text("q1 Q0 d1 1 2.0 x\n")
    code, _, err = _run(capsys, "evaluate", "--qrels", q, "--run", r, "--metrics", metrics)
    assert code == 2 and match in err, err


def test_run_with_no_query_in_common_exits_2(tmp_path, capsys):
    q = tmp_path / "q.trec"
    q.write_text("q1 0 d1 1\nq2 0 d2 1\n")
    r = tmp_path / "r.trec"
    r.write_text("1 Q0 d1 1 2.0 x\n2 Q0 d2 1 2.0 x\n")
    code, _, err = _run(capsys, "evaluate", "--qrels", q, "--run", r, "--metrics", "mrr")
    assert code == 2 and "no query in common" in err and len(err.strip().splitlines()) == 1
