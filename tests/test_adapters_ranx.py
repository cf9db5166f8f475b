"""The ranx reader on a fixture written by ranx itself (scripts/adapters/make_ranx_fixture.py).

ragstat's means of the read qrels and runs equal ``ranx.evaluate`` (recorded in
expected.json) to 1e-12 on tie-free runs, for the JSON files and the TREC files.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

import ragstat
from ragstat.adapters import ranx
from ragstat.adapters.base import RunSource
from ragstat.adapters.registry import read_source
from ragstat.errors import InputError

FIXTURES = Path(__file__).parent / "fixtures" / "adapters"
HERE = FIXTURES / "ranx"
RUNS = HERE / "run"
EXPECTED = json.loads((HERE / "expected.json").read_text())
METRICS = EXPECTED["metrics"]  # ndcg@10, recall@10, mrr


@pytest.fixture(scope="module")
def source() -> RunSource:
    found = read_source(RUNS)  # detected from the folder
    assert isinstance(found, RunSource)
    return found


def _means(source: RunSource) -> dict[str, dict[str, float]]:
    report = ragstat.evaluate(source.qrels, source.runs, metrics=",".join(METRICS),
                              bootstrap_reps=199, seed=0)  # fmt: skip
    return {r: {m: report.runs[r].metrics[m].mean for m in METRICS} for r in source.runs}


def test_reads_the_saved_folder(source):
    assert source.tool == "ranx" and source.version is None
    assert sorted(source.runs) == ["bm25", "dense"]  # the report.json is not a run
    assert len(source.qrels) == 12
    assert all(isinstance(g, int) for docs in source.qrels.values() for g in docs.values())


def test_means_equal_ranx_evaluate(source):
    means = _means(source)
    for run in ("bm25", "dense"):
        for metric in METRICS:
            assert means[run][metric] == pytest.approx(EXPECTED[run][metric], abs=1e-12)
            assert source.aggregates[f"{run}/{metric}"] == EXPECTED[run][metric]  # report.json


def test_trec_files_give_the_same_data(source):
    trec = read_source(HERE / "trec", "ranx")
    assert trec.qrels == source.qrels and trec.runs == source.runs  # names from the tag


def test_one_run_file_or_the_qrels_file(source):
    one = read_source(RUNS / "dense.json")
    assert list(one.runs) == ["dense"] and one.runs["dense"] == source.runs["dense"]
    assert read_source(RUNS / "qrels.json").runs == source.runs


def test_sniff_own_files():
    assert ranx.sniff(RUNS) and ranx.sniff(RUNS / "bm25.json") and ranx.sniff(RUNS / "qrels.json")
    assert not ranx.sniff(RUNS / "report.json")


def test_sniff_is_false_elsewhere(tmp_path):
    csv = tmp_path / "scores.csv"
    csv.write_text("query_id,doc_id,score\nq1,d1,0.5\n")
    others = [p for p in FIXTURES.rglob("*") if HERE not in p.parents and p != HERE]
    for path in [*others, csv, tmp_path, tmp_path / "missing.json"]:
        assert not ranx.sniff(path), path


def _one_line_error(path, fmt="ranx"):
    with pytest.raises(InputError) as err:
        read_source(path, fmt)
    assert "\n" not in str(err.value)
    return str(err.value)


def test_another_format_is_a_one_line_error():
    for path in [FIXTURES / "beir" / "tiny", FIXTURES / "mteb" / "tiny"]:
        if path.exists():
            assert "no ranx qrels" in _one_line_error(path)


def test_bad_inputs_are_one_line_errors(tmp_path):
    data = tmp_path / "run"
    shutil.copytree(RUNS, data)
    (data / "dense.json").write_text("{}")
    assert "empty" in _one_line_error(data)
    (data / "dense.json").write_text('{"q01": {"d1#0": "high"}}')
    assert "not a number" in _one_line_error(data)
    (data / "dense.json").write_text('[["q01", "d1#0", 0.5]]')
    assert "not a ranx run" in _one_line_error(data / "dense.json")
    (data / "dense.json").write_text("{not json")
    assert "not a ranx JSON file" in _one_line_error(data)
    (data / "dense.json").unlink()
    (data / "dense.lz4").write_bytes(b"\x04\x22\x4d\x18")
    assert "lz4" in _one_line_error(data)
    (data / "dense.lz4").unlink()
    (data / "qrels.json").write_text('{"q01": {"d1#0": 0.5}}')
    assert "not an integer" in _one_line_error(data)
    (data / "qrels.json").unlink()
    assert "no ranx qrels" in _one_line_error(data / "bm25.json")


def test_other_json_in_the_folder_is_left_out_with_a_note(tmp_path):
    data = tmp_path / "run"
    shutil.copytree(RUNS, data)
    (data / "config.json").write_text('{"model": "bm25", "k": 10}')  # any other JSON
    (data / "hits.json").write_text('[["q01", "d1#0", 0.5]]')
    source = read_source(data, "ranx")
    clean = read_source(RUNS, "ranx")
    assert source.runs == clean.runs and source.qrels == clean.qrels
    assert any("config.json" in n and "hits.json" in n for n in source.notes)


def test_qrels_and_runs_named_explicitly(tmp_path):
    data = tmp_path / "eval"
    data.mkdir()
    shutil.copy(RUNS / "qrels.json", data / "judgments.json")
    shutil.copy(RUNS / "bm25.json", data / "bm25.json")
    shutil.copy(RUNS / "dense.json", data / "dense.json")
    (data / "notes.json").write_text('{"q": {"d": "a note"}}')  # run-shaped, not a run
    named = ragstat.read_source(data, "ranx", qrels="judgments.json", run="bm25.json,dense.json")
    clean = read_source(RUNS, "ranx")
    assert named.runs.runs == clean.runs and named.runs.qrels == clean.qrels
    assert any("notes.json" in n for n in named.info.notes)
    one = ragstat.read_source(data, "ranx", qrels="judgments.json", run=["dense.json"])
    assert list(one.runs.runs) == ["dense"]
    with pytest.raises(InputError, match=r"--run missing\.json: no such file"):
        ragstat.read_source(data, "ranx", qrels="judgments.json", run="missing.json")
    with pytest.raises(InputError, match="--task applies to helm, lm-eval files, not to ranx"):
        ragstat.read_source(data, "ranx", task="x")
