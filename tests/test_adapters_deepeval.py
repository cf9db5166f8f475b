"""The DeepEval reader on test runs written by DeepEval's own ``evaluate``
(scripts/adapters/make_deepeval_fixture.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragstat.adapters import deepeval
from ragstat.adapters.base import SourceTable
from ragstat.adapters.registry import read_source
from ragstat.errors import InputError

FIXTURES = Path(__file__).parent / "fixtures" / "adapters"
HERE = FIXTURES / "deepeval"
EXPECTED = json.loads((HERE / "expected.json").read_text(encoding="utf-8"))
RUNS = sorted(EXPECTED["runs"])


def _others() -> list[Path]:
    return sorted(p for p in FIXTURES.rglob("*") if p.is_file() and p.parent.name != "deepeval")


def test_reads_one_row_per_test_case():
    table = deepeval.read(HERE / "bm25.json")
    assert isinstance(table, SourceTable)
    frame = table.frame
    assert table.tool == "DeepEval" and table.version is None
    assert table.scores == ("pass", "Word Recall", "Brevity")
    assert set(frame["system"]) == {"bm25"} and (frame["repeat"] == 0).all()
    assert frame["item_id"].tolist()[:2] == ["bridge-opened", "bridge-designer"]
    assert (
        frame["meta_source_doc"].tolist()
        == ["doc-bridge"] * 2 + ["doc-river"] * 2 + ["doc-valley"] * 2
    )
    assert set(frame["pass"]) <= {0.0, 1.0}
    for score in table.scores:
        assert frame[score].dtype == float


def test_conversational_cases():
    table = deepeval.read(HERE / "conversational.json")
    assert table.scores == ("pass", "Turn Share")
    assert table.frame["item_id"].str.startswith("chat-").all()
    assert set(table.frame["meta_case_kind"]) == {"conversational"}
    assert table.frame["meta_source_doc"].notna().all()


@pytest.mark.parametrize("run", RUNS)
def test_means_reproduce_deepevals_aggregates(run):
    table = deepeval.read(HERE / run)
    expected = EXPECTED["runs"][run]
    system = table.frame["system"].iloc[0]
    assert set(table.aggregates) == {f"{system}/{s}" for s in table.scores}
    for metric, value in expected["metric_means"].items():
        mean = float(table.frame[metric].mean())
        assert abs(mean - value) <= 1e-12
        assert abs(mean - table.aggregates[f"{system}/{metric}"]) <= 1e-12
    pass_rate = float(table.frame["pass"].mean())
    assert abs(pass_rate - expected["pass_rate"]) <= 1e-12
    assert abs(pass_rate - table.aggregates[f"{system}/pass"]) <= 1e-12


def test_the_latest_test_run_wrapper_is_read(tmp_path):
    run = json.loads((HERE / "dense.json").read_text(encoding="utf-8"))
    path = tmp_path / ".latest_test_run.json"
    path.write_text(json.dumps({"testRunData": run, "testRunLink": None}), encoding="utf-8")
    assert deepeval.sniff(path)
    assert deepeval.read(path).frame.equals(deepeval.read(HERE / "dense.json").frame)


def test_sniff_own_and_others(tmp_path):
    for run in RUNS:
        assert deepeval.sniff(HERE / run)
    assert not deepeval.sniff(HERE / "expected.json")
    for path in _others():
        assert not deepeval.sniff(path), path
    csv = tmp_path / "plain.csv"
    csv.write_text("query_id,doc_id,score\nq1,d1,0.5\n", encoding="utf-8")
    assert not deepeval.sniff(csv)
    assert not deepeval.sniff(tmp_path / "absent.json")


def _one_line_error(path: Path) -> str:
    with pytest.raises(InputError) as info:
        deepeval.read(path)
    message = str(info.value)
    assert "\n" not in message and str(path) in message
    return message


def test_another_format_is_refused(tmp_path):
    for path in [p for p in _others() if p.suffix == ".json"]:
        _one_line_error(path)
    assert "not a DeepEval" in _one_line_error(HERE / "expected.json")
    text = tmp_path / "notes.txt"
    text.write_text("not json", encoding="utf-8")
    assert "not a DeepEval" in _one_line_error(text)


def test_a_run_without_scores_is_refused(tmp_path):
    run = json.loads((HERE / "bm25.json").read_text(encoding="utf-8"))
    for case in run["testCases"]:
        case.pop("metricsData")
    path = tmp_path / "unscored.json"
    path.write_text(json.dumps(run), encoding="utf-8")
    assert "no metric scores" in _one_line_error(path)


def test_an_unaliased_run_is_unsupported(tmp_path):
    run = json.loads((HERE / "bm25.json").read_text(encoding="utf-8"))
    run["test_cases"] = run.pop("testCases")
    path = tmp_path / "snake.json"
    path.write_text(json.dumps(run), encoding="utf-8")
    assert "unsupported" in _one_line_error(path)


def test_through_the_registry():
    path = HERE / "dense.json"
    named = read_source(path, "deepeval")
    detected = read_source(path)
    assert isinstance(detected, SourceTable) and detected.tool == "DeepEval"
    assert named.frame.equals(detected.frame)
