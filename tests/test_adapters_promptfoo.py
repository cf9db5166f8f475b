"""The promptfoo reader on a results file written by ``promptfoo eval -o``
(scripts/adapters/make_promptfoo_fixture.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragstat.adapters import promptfoo
from ragstat.adapters.base import SourceTable
from ragstat.adapters.registry import read_source
from ragstat.errors import InputError

FIXTURES = Path(__file__).parent / "fixtures" / "adapters"
RESULTS = FIXTURES / "promptfoo" / "results.json"
RAW = json.loads(RESULTS.read_text(encoding="utf-8"))
SYSTEMS = ("echo / short", "echo / long")


def _others() -> list[Path]:
    return sorted(p for p in FIXTURES.rglob("*") if p.is_file() and p.parent.name != "promptfoo")


def test_reads_one_row_per_system_test_repeat():
    table = promptfoo.read(RESULTS)
    assert isinstance(table, SourceTable)
    frame = table.frame
    assert table.tool == "promptfoo"
    assert table.version == RAW["metadata"]["promptfooVersion"]
    assert table.scores == ("pass", "score", "mentions_topic", "length_score", "noisy_judge")
    assert set(frame["system"]) == set(SYSTEMS)
    assert frame.groupby(["system", "item_id"]).size().eq(2).all()
    assert sorted(set(frame["repeat"])) == [0, 1]
    assert frame["item_id"].nunique() == 6
    assert not frame.duplicated(["system", "item_id", "repeat"]).any()
    docs = frame.groupby("item_id")["meta_vars.source_doc"].nunique()
    assert docs.eq(1).all()
    assert set(frame["meta_vars.source_doc"]) == {"doc-bridge", "doc-river", "doc-valley"}
    for score in table.scores:
        assert frame[score].dtype == float


def test_means_reproduce_promptfoos_aggregates():
    table = promptfoo.read(RESULTS)
    frame = table.frame
    assert len(table.aggregates) == len(SYSTEMS) * len(table.scores)
    for prompt in RAW["results"]["prompts"]:
        system = f"{prompt['provider']} / {prompt['label']}"
        rows = frame[frame["system"] == system]
        m = prompt["metrics"]
        total = m["testPassCount"] + m["testFailCount"] + m["testErrorCount"]
        assert len(rows) == total
        assert abs(rows["pass"].mean() - m["testPassCount"] / total) <= 1e-12
        assert abs(rows["score"].mean() - m["score"] / total) <= 1e-12
        for name, value in m["namedScores"].items():
            expected = value / m["namedScoresCount"][name]
            assert abs(rows[name].mean() - expected) <= 1e-12
        for score in table.scores:
            assert abs(rows[score].mean() - table.aggregates[f"{system}/{score}"]) <= 1e-12
    stats = RAW["results"]["stats"]
    overall = stats["successes"] / (stats["successes"] + stats["failures"] + stats["errors"])
    assert abs(frame["pass"].mean() - overall) <= 1e-12


def test_sniff_own_and_others(tmp_path):
    assert promptfoo.sniff(RESULTS)
    for path in _others():
        assert not promptfoo.sniff(path), path
    csv = tmp_path / "plain.csv"
    csv.write_text("query_id,doc_id,score\nq1,d1,0.5\n", encoding="utf-8")
    assert not promptfoo.sniff(csv)
    assert not promptfoo.sniff(tmp_path / "absent.json")


def _one_line_error(path: Path) -> str:
    with pytest.raises(InputError) as info:
        promptfoo.read(path)
    message = str(info.value)
    assert "\n" not in message and str(path) in message
    return message


def _write(tmp_path: Path, data: dict, name: str = "results.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_another_format_is_refused(tmp_path):
    for path in [p for p in _others() if p.suffix == ".json"]:
        _one_line_error(path)
    text = tmp_path / "notes.txt"
    text.write_text("not json", encoding="utf-8")
    assert "not a promptfoo" in _one_line_error(text)


def test_results_without_scores_are_refused(tmp_path):
    data = json.loads(RESULTS.read_text(encoding="utf-8"))
    for result in data["results"]["results"]:
        result.pop("score")
        result.pop("namedScores")
    assert "no scores" in _one_line_error(_write(tmp_path, data))


def test_an_unsupported_version_is_refused(tmp_path):
    data = json.loads(RESULTS.read_text(encoding="utf-8"))
    data["results"]["version"] = 99
    assert "version 99 is not supported" in _one_line_error(_write(tmp_path, data))


def test_tests_without_description_are_named_by_their_vars(tmp_path):
    data = json.loads(RESULTS.read_text(encoding="utf-8"))
    for result in data["results"]["results"]:
        result["testCase"].pop("description")
    table = promptfoo.read(_write(tmp_path, data))
    assert table.frame["item_id"].nunique() == 6
    assert table.frame["item_id"].str.contains("source_doc").all()
    assert sorted(set(table.frame["repeat"])) == [0, 1]


def test_through_the_registry():
    named = read_source(RESULTS, "promptfoo")
    detected = read_source(RESULTS)
    assert isinstance(detected, SourceTable) and detected.tool == "promptfoo"
    assert named.frame.equals(detected.frame)
