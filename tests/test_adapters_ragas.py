"""The ragas reader on ``EvaluationResult.to_pandas()`` tables saved by pandas
(scripts/adapters/make_ragas_fixture.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragstat.adapters import ragas
from ragstat.adapters.base import SourceTable
from ragstat.adapters.registry import read_source
from ragstat.errors import InputError

FIXTURES = Path(__file__).parent / "fixtures" / "adapters"
HERE = FIXTURES / "ragas"
EXPECTED = json.loads((HERE / "expected.json").read_text(encoding="utf-8"))
FILES = {
    "bm25.csv": "bm25",
    "bm25.parquet": "bm25",
    "bm25.jsonl": "bm25",
    "dense.csv": "dense",
    "dense_with_ids.jsonl": "dense",
}
DOCS = ["doc-bridge"] * 2 + ["doc-river"] * 2 + ["doc-valley"] * 2


def _others() -> list[Path]:
    return sorted(p for p in FIXTURES.rglob("*") if p.is_file() and p.parent.name != "ragas")


@pytest.mark.parametrize("name", sorted(FILES))
def test_reads_one_row_per_sample(name):
    table = ragas.read(HERE / name)
    assert isinstance(table, SourceTable)
    frame = table.frame
    assert table.tool == "ragas" and table.version is None
    assert set(table.scores) == set(EXPECTED["systems"][FILES[name]]["means"])
    assert set(frame["system"]) == {Path(name).stem} and (frame["repeat"] == 0).all()
    assert [refs[0] for refs in frame["reference_ids"]] == DOCS
    assert frame["meta_user_input"].iloc[0] == "When was the bridge opened?"
    assert json.loads(frame["meta_retrieved_context_ids"].iloc[0])[0] == "doc-bridge"
    for score in table.scores:
        assert frame[score].dtype == float
    if "with_ids" in name:
        assert frame["item_id"].tolist() == [f"q{i}" for i in range(1, 7)]
        assert frame["meta_source_doc"].tolist() == DOCS
    else:
        assert frame["item_id"].tolist() == [str(i) for i in range(6)]
        assert any("row number" in n for n in table.notes)


@pytest.mark.parametrize("name", sorted(FILES))
def test_means_reproduce_ragas_aggregates(name):
    table = ragas.read(HERE / name)
    for metric, value in EXPECTED["systems"][FILES[name]]["means"].items():
        assert abs(float(table.frame[metric].mean()) - value) <= 1e-12


def test_the_three_file_kinds_agree():
    frames = [ragas.read(HERE / f"bm25.{ext}").frame for ext in ("csv", "parquet", "jsonl")]
    for frame in frames[1:]:
        assert frame["item_id"].tolist() == frames[0]["item_id"].tolist()
        assert frame["reference_ids"].tolist() == frames[0]["reference_ids"].tolist()
        for score in ragas.read(HERE / "bm25.csv").scores:
            assert (frame[score] - frames[0][score]).abs().max() <= 1e-12


def test_sniff_own_and_others(tmp_path):
    for name in FILES:
        assert ragas.sniff(HERE / name), name
    assert not ragas.sniff(HERE / "expected.json")
    for path in _others():
        assert not ragas.sniff(path), path
    csv = tmp_path / "plain.csv"
    csv.write_text("query_id,doc_id,score\nq1,d1,0.5\n", encoding="utf-8")
    assert not ragas.sniff(csv)
    assert not ragas.sniff(tmp_path / "absent.csv")


def _one_line_error(path: Path) -> str:
    with pytest.raises(InputError) as info:
        ragas.read(path)
    message = str(info.value)
    assert "\n" not in message and str(path) in message
    return message


def test_another_format_is_refused(tmp_path):
    for path in [p for p in _others() if p.suffix in (".json", ".jsonl", ".csv")]:
        _one_line_error(path)
    csv = tmp_path / "plain.csv"
    csv.write_text("query_id,doc_id,score\nq1,d1,0.5\n", encoding="utf-8")
    assert "no user_input" in _one_line_error(csv)


def test_a_table_without_scores_is_refused(tmp_path):
    import pandas as pd

    frame = pd.read_csv(HERE / "bm25.csv")
    path = tmp_path / "unscored.csv"
    frame[["user_input", "retrieved_contexts", "response"]].to_csv(path, index=False)
    assert "no metric" in _one_line_error(path)


def test_a_ragas_0_1_table_is_unsupported(tmp_path):
    path = tmp_path / "old.csv"
    path.write_text("question,contexts,answer,faithfulness\nq,['c'],a,0.5\n", encoding="utf-8")
    assert "unsupported" in _one_line_error(path)


def test_a_version_column_is_reported(tmp_path):
    import pandas as pd

    path = tmp_path / "versioned.csv"
    pd.read_csv(HERE / "dense.csv").assign(ragas_version="0.4.3").to_csv(path, index=False)
    table = ragas.read(path)
    assert table.version == "0.4.3" and "ragas_version" not in table.scores


def test_through_the_registry():
    path = HERE / "dense.csv"
    named = read_source(path, "ragas")
    detected = read_source(path)
    assert isinstance(detected, SourceTable) and detected.tool == "ragas"
    assert named.frame.equals(detected.frame)
    assert read_source(HERE / "bm25.parquet", "ragas").frame.shape[0] == 6
