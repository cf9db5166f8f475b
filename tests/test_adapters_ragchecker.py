"""The RAGChecker reader on a results file written by RAGChecker's own ``to_json``
(scripts/adapters/make_ragchecker_fixture.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragstat.adapters import ragchecker
from ragstat.adapters.base import SourceTable
from ragstat.adapters.registry import read_source
from ragstat.errors import InputError

FIXTURES = Path(__file__).parent / "fixtures" / "adapters"
HERE = FIXTURES / "ragchecker"
EXPECTED = json.loads((HERE / "expected.json").read_text(encoding="utf-8"))
SYSTEMS = sorted(EXPECTED["systems"])


def _others() -> list[Path]:
    return sorted(p for p in FIXTURES.rglob("*") if p.is_file() and p.parent.name != "ragchecker")


@pytest.mark.parametrize("name", SYSTEMS)
def test_reads_one_row_per_query(name):
    table = ragchecker.read(HERE / f"{name}.json")
    assert isinstance(table, SourceTable)
    frame = table.frame
    assert table.tool == "RAGChecker" and table.version is None
    assert set(frame["system"]) == {name}
    assert (frame["repeat"] == 0).all()
    assert list(frame["item_id"]) == ["q1", "q2", "q3", "q4", "q5", "q6"]
    assert set(table.scores) == set(EXPECTED["systems"][name]["means"])
    for score in table.scores:
        assert frame[score].dtype == float
    refs = frame["reference_ids"].tolist()
    assert all(len(r) == 2 for r in refs)
    assert [r[0] for r in refs] == ["doc-bridge"] * 2 + ["doc-river"] * 2 + ["doc-valley"] * 2
    assert frame["meta_query"].iloc[0] == "When was the bridge opened?"


@pytest.mark.parametrize("name", SYSTEMS)
def test_means_reproduce_ragcheckers_aggregates(name):
    table = ragchecker.read(HERE / f"{name}.json")
    expected = EXPECTED["systems"][name]
    file_metrics = {m: v for group in expected["metrics"].values() for m, v in group.items()}
    assert len(table.aggregates) == len(file_metrics) == 11
    for score in table.scores:
        mean = float(table.frame[score].mean())
        assert abs(mean - expected["means"][score]) <= 1e-12
        # RAGChecker reports round(mean × 100, 1)
        reported = table.aggregates[f"{name}/{score}"]
        assert reported == file_metrics[score]
        assert abs(round(mean * 100, 1) - reported) <= 1e-12


def test_sniff_own_and_others():
    for name in SYSTEMS:
        assert ragchecker.sniff(HERE / f"{name}.json")
    assert not ragchecker.sniff(HERE / "expected.json")
    for path in _others():
        assert not ragchecker.sniff(path), path


def test_sniff_plain_csv_and_missing(tmp_path):
    csv = tmp_path / "plain.csv"
    csv.write_text("query_id,doc_id,score\nq1,d1,0.5\n", encoding="utf-8")
    assert not ragchecker.sniff(csv)
    assert not ragchecker.sniff(tmp_path / "absent.json")


def _one_line_error(path: Path) -> str:
    with pytest.raises(InputError) as info:
        ragchecker.read(path)
    message = str(info.value)
    assert "\n" not in message and str(path) in message
    return message


def test_another_format_is_refused(tmp_path):
    others = [p for p in _others() if p.suffix == ".json"]
    for path in others:
        _one_line_error(path)
    text = tmp_path / "notes.txt"
    text.write_text("not json", encoding="utf-8")
    assert "not a RAGChecker" in _one_line_error(text)


def test_results_without_metrics_are_refused(tmp_path):
    data = json.loads((HERE / "bm25.json").read_text(encoding="utf-8"))
    for result in data["results"]:
        result["metrics"] = {}
    path = tmp_path / "unscored.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    assert "without per-query metrics" in _one_line_error(path)


def test_a_result_without_its_keys_is_refused(tmp_path):
    data = json.loads((HERE / "bm25.json").read_text(encoding="utf-8"))
    del data["results"][2]["query_id"]
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    assert "results[2]" in _one_line_error(path)


def test_through_the_registry():
    path = HERE / "dense.json"
    named = read_source(path, "ragchecker")
    detected = read_source(path)
    assert isinstance(named, SourceTable) and isinstance(detected, SourceTable)
    assert named.frame.equals(detected.frame)
    assert detected.tool == "RAGChecker"
