"""The BEIR reader on a fixture written by BEIR itself (scripts/adapters/make_beir_fixture.py).

ragstat's means of the read qrels and runs equal BEIR's own evaluation: to 1e-12 the
mean of the per-query values of the pytrec_eval call BEIR makes, and to BEIR's
rounding (5 decimals) the aggregates BEIR saved with ``save_results``.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

import ragstat
from ragstat.adapters import beir
from ragstat.adapters.base import RunSource
from ragstat.adapters.registry import read_source
from ragstat.errors import InputError

FIXTURES = Path(__file__).parent / "fixtures" / "adapters"
HERE = FIXTURES / "beir"
DATA = HERE / "tiny"
EXPECTED = json.loads((HERE / "expected.json").read_text())
METRICS = ("ndcg@10", "recall@10", "map@10", "p@10")


@pytest.fixture(scope="module")
def source() -> RunSource:
    found = read_source(DATA)  # detected from the folder
    assert isinstance(found, RunSource)
    return found


@pytest.fixture(scope="module")
def report(source):
    return ragstat.evaluate(source.qrels, source.runs, metrics=",".join(METRICS),
                            bootstrap_reps=199, seed=0)  # fmt: skip


def test_reads_the_dataset_folder(source):
    assert source.tool == "beir" and source.version is None
    assert sorted(source.runs) == ["bow", "trigram"]
    assert len(source.qrels) == 12 and all(len(r) == 12 for r in source.runs.values())
    assert source.qrels["q01"] == {"d6#0": 2, "d6#1": 1, "d7#1": 0}


def test_means_equal_beirs_own_evaluation(source, report):
    for run in ("bow", "trigram"):
        for metric in METRICS:
            mean = report.runs[run].metrics[metric].mean
            assert mean == pytest.approx(EXPECTED[run]["unrounded"][metric], abs=1e-12)
            reported = EXPECTED[run]["reported"][metric]
            assert source.aggregates[f"{run}/{metric}"] == reported  # read from save_results
            assert mean == pytest.approx(reported, abs=5e-6)  # BEIR rounds to 5 decimals


def test_a_qrels_file_or_a_run_file_names_the_same_data(source):
    by_qrels = read_source(DATA / "qrels" / "test.tsv", "beir")
    assert by_qrels.qrels == source.qrels and by_qrels.runs == source.runs
    one = read_source(DATA / "bow.trec", "beir")
    assert list(one.runs) == ["bow"] and one.runs["bow"] == source.runs["bow"]


def test_sniff_own_files():
    assert beir.sniff(DATA)
    assert beir.sniff(DATA / "qrels" / "test.tsv")
    assert beir.sniff(DATA / "bow.trec")


def _others():
    return [p for p in FIXTURES.rglob("*") if HERE not in p.parents and p != HERE]


def test_sniff_is_false_elsewhere(tmp_path):
    csv = tmp_path / "scores.csv"
    csv.write_text("query_id,doc_id,score\nq1,d1,0.5\n")
    for path in [*_others(), csv, tmp_path, tmp_path / "missing.tsv"]:
        assert not beir.sniff(path), path


def _one_line_error(path, fmt="beir"):
    with pytest.raises(InputError) as err:
        read_source(path, fmt)
    assert "\n" not in str(err.value)
    return str(err.value)


def test_another_format_is_a_one_line_error(tmp_path):
    for path in [FIXTURES / "ranx" / "run", FIXTURES / "mteb" / "tiny" / "hash-bow"]:
        if path.exists():
            assert "qrels" in _one_line_error(path)


def _copy(tmp_path: Path) -> Path:
    target = tmp_path / "data"
    shutil.copytree(DATA, target)
    return target


def test_bad_inputs_are_one_line_errors(tmp_path):
    data = _copy(tmp_path)
    (data / "bow.trec").write_text("")
    assert "empty" in _one_line_error(data)
    (data / "bow.trec").write_text("q01 Q0 d1#0 0 0.5\n")
    assert "bow.trec" in _one_line_error(data)
    (data / "bow.trec").write_text("q01 Q0 d1#0 0 high bow\n")
    assert "not a number" in _one_line_error(data)
    (data / "bow.trec").unlink()
    (data / "trigram.trec").unlink()
    assert "no BEIR run file" in _one_line_error(data)


def test_bad_qrels_are_one_line_errors(tmp_path):
    data = _copy(tmp_path)
    qrels = data / "qrels" / "test.tsv"
    qrels.write_text("q01\td6#0\t2\n")  # no header: BEIR would drop this line
    assert "header" in _one_line_error(data)
    qrels.write_text("query-id\tcorpus-id\tscore\nq01\td6#0\t0.5\n")
    assert "integer" in _one_line_error(data)
    qrels.unlink()
    assert "no BEIR qrels" in _one_line_error(data)
