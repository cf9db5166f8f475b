"""The MTEB reader on a fixture written by MTEB itself (scripts/adapters/make_mteb_fixture.py).

Two models on a tiny in-memory retrieval task, saved with ``prediction_folder``; the
task's qrels beside them as BEIR TSV. ragstat's means equal MTEB's own scoring: to
1e-12 the mean of the per-query values of MTEB's pytrec_eval call, and to MTEB's
rounding (5 decimals) the scores of MTEB's results JSON.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

import ragstat
from ragstat.adapters import mteb
from ragstat.adapters.base import RunSource
from ragstat.adapters.registry import read_source
from ragstat.errors import InputError

FIXTURES = Path(__file__).parent / "fixtures" / "adapters"
HERE = FIXTURES / "mteb"
DATA = HERE / "tiny"
EXPECTED = json.loads((HERE / "expected.json").read_text())
MODELS = ("mteb/baseline-random-encoder", "ragstat/hash-bow")
METRICS = ("ndcg@10", "recall@10", "map@10", "p@10")
PREDICTIONS = DATA / "hash-bow" / "TinyRetrieval_predictions.json"


@pytest.fixture(scope="module")
def source() -> RunSource:
    found = read_source(DATA)  # detected from the folder
    assert isinstance(found, RunSource)
    return found


def test_reads_predictions_and_qrels(source):
    assert source.tool == "mteb" and source.version == EXPECTED["version"]
    assert sorted(source.runs) == list(MODELS)
    assert len(source.qrels) == 12
    assert all(len(run) == 12 and len(run["q01"]) == 40 for run in source.runs.values())


def test_means_equal_mtebs_own_scores(source):
    report = ragstat.evaluate(source.qrels, source.runs, metrics=",".join(METRICS),
                              bootstrap_reps=199, seed=0)  # fmt: skip
    for model in MODELS:
        for metric in METRICS:
            mean = report.runs[model].metrics[metric].mean
            assert mean == pytest.approx(EXPECTED[model]["unrounded"][metric], abs=1e-12)
            reported = EXPECTED[model]["reported"][metric]
            assert source.aggregates[f"{model}/{metric}"] == reported  # from the results JSON
            assert mean == pytest.approx(reported, abs=5e-6)  # MTEB rounds to 5 decimals


def test_one_predictions_file(source):
    one = read_source(PREDICTIONS)
    assert list(one.runs) == ["ragstat/hash-bow"] and one.qrels == source.qrels
    assert one.runs["ragstat/hash-bow"] == source.runs["ragstat/hash-bow"]


def test_sniff_own_files():
    assert mteb.sniff(DATA) and mteb.sniff(PREDICTIONS)
    assert not mteb.sniff(DATA / "hash-bow" / "TinyRetrieval.json")  # results, not predictions


def test_sniff_is_false_elsewhere(tmp_path):
    csv = tmp_path / "scores.csv"
    csv.write_text("query_id,doc_id,score\nq1,d1,0.5\n")
    others = [p for p in FIXTURES.rglob("*") if HERE not in p.parents and p != HERE]
    for path in [*others, csv, tmp_path, tmp_path / "missing_predictions.json"]:
        assert not mteb.sniff(path), path


def _one_line_error(path, fmt="mteb"):
    with pytest.raises(InputError) as err:
        read_source(path, fmt)
    assert "\n" not in str(err.value)
    return str(err.value)


def test_another_format_is_a_one_line_error():
    for path in [FIXTURES / "beir" / "tiny", FIXTURES / "ranx" / "run"]:
        if path.exists():
            assert "no MTEB predictions" in _one_line_error(path)
    assert "mteb_model_meta" in _one_line_error(FIXTURES / "ranx" / "run" / "bm25.json")


def _edit(tmp_path: Path, change) -> Path:
    data = tmp_path / "tiny"
    shutil.copytree(DATA, data)
    path = data / "hash-bow" / PREDICTIONS.name
    found = json.loads(path.read_text())
    change(found)
    path.write_text(json.dumps(found))
    return path


def test_bad_inputs_are_one_line_errors(tmp_path):
    empty = _edit(tmp_path / "a", lambda d: d["default"].update(test={}))
    assert "empty" in _one_line_error(empty)
    two = _edit(tmp_path / "b", lambda d: d["default"].update(dev=d["default"]["test"]))
    assert "one subset/split" in _one_line_error(two)
    assert "one subset/split" in _one_line_error(two.parent.parent)
    bad = _edit(tmp_path / "c", lambda d: d["default"]["test"]["q01"].update({"d0#1": None}))
    assert "not a number" in _one_line_error(bad)
    same = _edit(tmp_path / "d", lambda d: None)
    (same.parent.parent / "qrels" / "test.tsv").unlink()
    assert "no qrels for split 'test'" in _one_line_error(same.parent.parent)
