"""Qrels / run readers and constructors: formats, ordering, errors, immutability."""

from __future__ import annotations

import dataclasses
import gzip
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from ragstat.errors import InputError
from ragstat.metrics import (
    Qrels,
    Run,
    evaluate,
    qrels_from_dict,
    qrels_from_frame,
    read_qrels,
    read_run,
    run_from_dict,
    run_from_frame,
)

REF = Path(__file__).resolve().parent / "reference" / "ir"
METRICS = [
    "ndcg@10",
    "ndcg",
    "recall@10",
    "p@5",
    "mrr",
    "mrr@3",
    "map",
    "map@100",
    "hit@5",
    "rprec",
]


@pytest.fixture(scope="module")
def reference():
    qrels = read_qrels(REF / "qrels.trec")
    run = read_run(REF / "run_b.trec")
    return qrels, run, evaluate(qrels, run, METRICS).records


def _write(frame: pd.DataFrame, path: Path) -> Path:
    fmt = path.suffixes[0]
    if fmt == ".jsonl":
        with path.open("w", encoding="utf-8") as fh:
            for rec in frame.to_dict("records"):
                fh.write(json.dumps(rec) + "\n\n")  # blank lines are skipped
    elif fmt == ".csv":
        frame.to_csv(path, index=False)
    elif fmt == ".tsv":
        frame.to_csv(path, index=False, sep="\t")
    else:
        frame.to_parquet(path, index=False)
    return path


@pytest.mark.parametrize("suffix", [".jsonl", ".csv", ".tsv", ".parquet"])
def test_every_format_gives_the_same_values(reference, tmp_path, suffix):
    qrels, run, expected = reference
    raw_run = pd.read_csv(REF / "run_b.trec", sep=r"\s+", header=None, dtype=str)
    frame = pd.DataFrame(
        {
            "query_id": raw_run[0],
            "doc_id": raw_run[2],
            "score": raw_run[4].astype(float),
            "rank": raw_run[3].astype(int),  # contradicts the scores: ignored
        }
    )
    q = read_qrels(_write(qrels.to_frame(), tmp_path / f"qrels{suffix}"))
    r = read_run(_write(frame, tmp_path / f"run_b{suffix}"))
    assert q == qrels and r == run and r.name == "run_b"
    got = evaluate(q, r, METRICS).records
    pd.testing.assert_frame_equal(got, expected)


def test_gzip_trec_and_default_name(reference, tmp_path):
    _, run, _ = reference
    path = tmp_path / "run_b.trec.gz"
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        fh.write((REF / "run_b.trec").read_text(encoding="utf-8"))
    got = read_run(path)
    assert got.name == "run_b" and got == run
    assert read_run(path, name="other").name == "other"


def test_rank_only_run_is_ordered_by_rank():
    frame = pd.DataFrame({"query_id": ["q"] * 3, "doc_id": ["a", "b", "c"], "rank": [3, 1, 2]})
    run = run_from_frame(frame)
    assert [d for d, _ in run["q"]] == ["b", "c", "a"]


def test_dict_frame_and_file_constructors_agree(tmp_path):
    scores = {"q1": {"d1": 0.5, "d2": 0.9, "d3": 0.5}, "q2": {"d1": 1.0}}
    from_dict = run_from_dict(scores, "r")
    rows = [(q, d, s) for q, docs in scores.items() for d, s in docs.items()]
    from_frame = run_from_frame(pd.DataFrame(rows, columns=["query_id", "doc_id", "score"]), "r")
    path = tmp_path / "r.trec"
    path.write_text("".join(f"{q} Q0 {d} 0 {s} x\n" for q, d, s in rows))
    assert from_dict == from_frame == read_run(path)
    assert from_dict["q1"] == [("d2", 0.9), ("d3", 0.5), ("d1", 0.5)]
    assert Run(dict(from_dict.rankings), name="r") == from_dict
    ranked = run_from_dict({"q1": ["d2", "d3", "d1"], "q2": [("d1", 1.0)]}, "r")
    assert [d for d, _ in ranked["q1"]] == ["d2", "d3", "d1"]


def test_qrels_constructors_agree():
    a = qrels_from_dict({"q1": {"d1": 2, "d2": 0}, 7: {"d3": 1}})
    frame = pd.DataFrame(
        {"query_id": ["q1", "q1", 7], "doc_id": ["d1", "d2", "d3"], "relevance": [2, 0, 1.0]}
    )
    b = qrels_from_frame(frame)
    assert a == b and a["7"] == {"d3": 1} and "7" in a and len(a) == 2
    assert qrels_from_dict({"q": ["d1", "d2"]})["q"] == {"d1": 1, "d2": 1}
    assert b.to_frame()["relevance"].dtype == np.int64


def test_objects_are_frozen_and_read_only():
    run = run_from_dict({"q": ["a", "b"]})
    with pytest.raises(dataclasses.FrozenInstanceError):
        run.name = "x"  # type: ignore[misc]
    with pytest.raises(TypeError):
        run.rankings["q"] = []  # type: ignore[index]
    source = {"q": [("a", 1.0)]}
    copy = Run(source)
    source["q"].append(("b", 0.5))
    assert copy["q"] == [("a", 1.0)]
    assert "2 rows" in repr(run) or "2 rows" in repr(run.rankings)
    assert run.to_frame()["rank"].tolist() == [1, 2]


@pytest.mark.parametrize(
    ("text", "pattern"),
    [
        ('{"query_id": "q", "doc_id": "d", "score": 1}\nnot json\n', r":2: not valid JSON"),
        ('{"query_id": "q", "doc_id": "d"}\n', r":1: missing key\(s\) \['score'\]"),
        (
            '{"query_id": "q", "doc_id": "d", "score": "high"}\n',
            r":1: 'score' must be a finite number",
        ),
        ('{"query_id": true, "doc_id": "d", "score": 1}\n', r":1: 'query_id' must be a string"),
        ("[1, 2]\n", r":1: expected a JSON object"),
    ],
)
def test_jsonl_errors_name_the_line(tmp_path, text, pattern):
    path = tmp_path / "run.jsonl"
    path.write_text(text)
    with pytest.raises(InputError, match=pattern):
        read_run(path)


def test_jsonl_qrels_relevance_must_be_integer(tmp_path):
    path = tmp_path / "q.jsonl"
    path.write_text(
        '{"query_id": "q", "doc_id": "d", "relevance": 1}\n{"query_id": "q", "doc_id": "e", "relevance": 0.5}\n'
    )
    with pytest.raises(InputError, match=r":2: 'relevance' must be an integer"):
        read_qrels(path)


def test_tabular_errors(tmp_path):
    path = tmp_path / "q.csv"
    path.write_text("query,doc_id,relevance\nq,d,1\n")
    with pytest.raises(InputError, match=r"missing column\(s\) \['query_id'\]; found"):
        read_qrels(path)
    path.write_text("query_id,doc_id,relevance\nq,d,1\nq,e,high\n")
    with pytest.raises(InputError, match=r"data row 2: relevance 'high' is not an integer"):
        read_qrels(path)
    path.write_text("query_id,doc_id,relevance\nq,,1\n")
    with pytest.raises(InputError, match="doc_id is missing or empty"):
        read_qrels(path)


def test_frame_errors():
    bad_score = pd.DataFrame({"query_id": ["a", "a"], "doc_id": ["x", "y"], "score": [1.0, np.inf]})
    with pytest.raises(InputError, match=r"row 1: score inf is not a finite number"):
        run_from_frame(bad_score)
    null_id = pd.DataFrame({"query_id": ["a", None], "doc_id": ["x", "y"], "score": [1.0, 2.0]})
    with pytest.raises(InputError, match=r"row 1: query_id is missing"):
        run_from_frame(null_id)
    with pytest.raises(InputError, match="not a finite number"):
        run_from_dict({"q": {"d": float("nan")}})
    with pytest.raises(InputError, match="not an integer"):
        qrels_from_dict({"q": {"d": 1.5}})
    with pytest.raises(InputError, match="non-empty string"):
        Run({"q": [("d", 1.0)]}, name="")


def test_missing_file_and_bad_encoding(tmp_path):
    with pytest.raises(InputError, match="does not exist"):
        read_run(tmp_path / "nope.trec")
    path = tmp_path / "latin1.trec"
    path.write_bytes("q1 Q0 d\xe9 1 1.0 t\n".encode("latin-1"))
    with pytest.raises(InputError, match=r":1: not UTF-8"):
        read_run(path)


def test_empty_run_file_rejected_but_empty_dict_allowed(tmp_path):
    path = tmp_path / "run.trec"
    path.write_text("")
    with pytest.raises(InputError, match="empty"):
        read_run(path)
    qrels = qrels_from_dict({"q": {"d": 1}})
    table = evaluate(qrels, run_from_dict({}), ["mrr"])
    assert table.counts["run"].missing_run == 1 and table.mean("mrr") == 0.0


def test_unjudged_queries_ignored_and_counted():
    qrels = qrels_from_dict({"q": {"d": 1}})
    run = run_from_dict({"q": ["d"], "extra1": ["d"], "extra2": ["e"]})
    table = evaluate(qrels, run, ["mrr"])
    assert table.counts["run"].unjudged_queries == 2
    assert table.records["query_id"].tolist() == ["q"]


def test_evaluate_argument_errors():
    qrels = qrels_from_dict({"q": {"d": 1}})
    run = run_from_dict({"q": ["d"]})
    with pytest.raises(InputError, match="Qrels"):
        evaluate({"q": {"d": 1}}, run, ["mrr"])  # type: ignore[arg-type]
    with pytest.raises(InputError, match="Run objects"):
        evaluate(qrels, [{"q": ["d"]}], ["mrr"])  # type: ignore[list-item]
    with pytest.raises(InputError, match="no metric"):
        evaluate(qrels, run, [])
    with pytest.raises(InputError, match="2 names for 1 runs"):
        evaluate(qrels, run, ["mrr"], system_names=["a", "b"])
    assert isinstance(qrels, Qrels)
