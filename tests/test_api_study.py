"""`ragstat.api.verbs.study.study`: the Python twin of `ragstat study`, and its typed summary."""

from __future__ import annotations

import ast
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from ragstat import InputError
from ragstat.api.verbs.study import StudyResult, study
from ragstat.cli import main
from ragstat.corpus.document import Document
from ragstat.report import report_from_study
from ragstat.report.summary import StudySummary

REFERENCE = Path(__file__).parent / "reference" / "study_summary_v1.json"
SRC = Path(__file__).resolve().parents[1] / "src" / "ragstat"
CREATED = "2024-01-02T03:04:05+00:00"
#: The studies pinned in REFERENCE (written by `write_study` before the typed summary).
CASES: dict[str, dict[str, Any]] = {
    "plain": dict(retrievers=("bm25", "tfidf"), chunk_words=50, query_words=10, strata="kind"),
    "sampled": dict(
        retrievers="tfidf,bm25,rrf",
        chunk_words=50,
        query_words=10,
        sample_queries=0.5,
        sample_seed=2,
        strata="meta_kind",
    ),
    "one": dict(retrievers=["bm25"], chunk_words=60, query_words=10),
}


def small_rows(n_docs: int = 14, seed: int = 11) -> list[dict]:
    """Documents with their own words (and one single-chunk document, d03), kind odd/even."""
    rng = np.random.default_rng(seed)
    vocab = [f"w{i}" for i in range(300)]
    rows = []
    for d in range(n_docs):
        own = rng.choice(len(vocab), 30, replace=False)
        n = 30 if d == 3 else int(rng.integers(120, 420))
        words = [
            vocab[own[i % 30]] if rng.random() < 0.5 else vocab[int(rng.integers(0, 300))]
            for i in range(n)
        ]
        rows.append(
            {"doc_id": f"d{d:02d}", "text": " ".join(words), "kind": "odd" if d % 2 else "even"}
        )
    return rows


@pytest.fixture
def corpus_here(tmp_path, monkeypatch) -> str:
    """``c.jsonl`` in the working folder (the source recorded in REFERENCE)."""
    monkeypatch.chdir(tmp_path)
    Path("c.jsonl").write_text(
        "\n".join(json.dumps(r) for r in small_rows()) + "\n", encoding="utf-8"
    )
    return "c.jsonl"


@pytest.fixture(scope="module")
def plain(tmp_path_factory) -> tuple[StudyResult, Path]:
    folder = tmp_path_factory.mktemp("api-study")
    path = folder / "c.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in small_rows()) + "\n", encoding="utf-8")
    return study(path, seed=3, bootstrap_reps=99, **CASES["plain"]), path


def _same(got: object, want: object, where: str = "summary") -> None:
    """Equal structure, strings and integers; floats equal to 1e-9 (relative)."""
    if isinstance(want, dict):
        assert isinstance(got, dict) and list(got) == list(want), where
        for k in want:
            _same(got[k], want[k], f"{where}.{k}")
    elif isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), where
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            _same(g, w, f"{where}[{i}]")
    elif isinstance(want, float) and not isinstance(got, bool):
        assert isinstance(got, (int, float)) and math.isclose(got, want, rel_tol=1e-9), where
    else:
        assert got == want and type(got) is type(want), where


@pytest.mark.parametrize("case", sorted(CASES))
def test_summary_to_dict_is_the_v1_summary_json(corpus_here, case):
    want = json.loads(REFERENCE.read_text(encoding="utf-8"))[case]
    result = study(corpus_here, seed=3, bootstrap_reps=99, **CASES[case])
    got = result.to_dict()
    want["versions"] = got["versions"]  # the running packages'
    if case == "sampled":  # --strata meta_kind is recorded as the field it names
        assert want["by_stratum"]["field"] == "meta_kind"
        want["by_stratum"]["field"] = "kind"
    _same(got, want)
    assert json.loads(json.dumps(got)) == got  # JSON-ready: lists, plain numbers
    again = StudySummary.from_dict(json.loads(json.dumps(got)))
    assert again.to_dict() == got


def test_cli_json_is_the_twins_to_dict(corpus_here, tmp_path, capsys):
    args = ["--retrievers", "bm25,tfidf", "--chunk-words", "50", "--query-words", "10"]
    capsys.readouterr()
    out = ["--out", str(tmp_path / "out")]
    code = main(["study", corpus_here, *args, "--strata", "kind", "--seed", "4", *out, "--json"])
    assert code == 0
    printed = json.loads(capsys.readouterr().out)
    twin = study(
        corpus_here,
        retrievers="bm25,tfidf",
        chunk_words=50,
        query_words=10,
        strata="kind",
        seed=4,
    )
    assert printed == twin.to_dict()
    on_disk = json.loads((tmp_path / "out" / "summary.json").read_text(encoding="utf-8"))
    assert on_disk == printed


def test_result_is_tidy_with_a_short_repr(plain):
    result, _ = plain
    frame = result.to_frame()
    assert {"retriever", "estimand", "method", "estimate", "lower", "upper", "se", "df"} <= set(
        frame.columns
    )
    assert set(frame["retriever"]) == {"bm25", "tfidf", "bm25 − tfidf"}
    rec = frame[frame["recommended"]]
    assert len(rec) == 6  # one per subject × estimand
    text = repr(result)
    lines = text.splitlines()
    assert lines[0].startswith("Self-retrieval study of") and len(lines) == 5
    assert [line.split()[0] for line in lines[2:]] == ["bm25", "tfidf", "bm25"]
    assert "bm25 − tfidf" in lines[-1] and "{" not in text
    micro = result.summary.retrievers["bm25"].hit1.estimands["micro"]
    shown = micro.get(micro.recommended or "cr2_bm")
    assert f"{shown.lower:.4g}" in lines[2]
    assert isinstance(result.records, pd.DataFrame) and len(result.records) == 2 * 77
    assert "<table>" in result._repr_html_()


def test_documents_in_memory_give_the_same_study(plain):
    result, path = plain
    docs = [
        Document(r["doc_id"], r["text"], {"kind": r["kind"]})
        for r in map(json.loads, path.read_text().splitlines())
    ]
    again = study(docs, seed=3, bootstrap_reps=99, **CASES["plain"])
    a, b = again.to_dict(), result.to_dict()
    assert a["source"] == "documents"
    a.pop("source"), b.pop("source")
    assert a == b
    with pytest.raises(InputError, match=r"list of ragstat\.corpus Document"):
        study([1, 2])


def test_strata_with_or_without_meta(plain):
    result, path = plain
    meta = study(path, seed=3, bootstrap_reps=99, **{**CASES["plain"], "strata": "meta_kind"})
    assert meta.to_dict() == result.to_dict()
    assert result.summary.by_stratum is not None and result.summary.by_stratum.field == "kind"
    with pytest.raises(InputError, match="no such metadata field; the documents have kind"):
        study(path, strata="law")


def test_write_then_report_equals_the_report_in_memory(plain, tmp_path):
    result, _ = plain
    written = result.write(tmp_path, report=result.report(created=CREATED))
    names = {p.name for p in written}
    assert names == {
        "records.parquet",
        "candidates.parquet",
        "documents.parquet",
        "summary.json",
        "report.json",
        "report.md",
        "report.html",
    }
    assert all(p.is_file() for p in written)
    loaded = StudySummary.from_dict(json.loads((tmp_path / "summary.json").read_text()))
    assert loaded.to_dict() == result.to_dict()
    from_folder = report_from_study(tmp_path, created=CREATED)
    assert from_folder == result.report(created=CREATED)
    assert [r.stratum for r in from_folder.strata] == ["even", "odd", "even", "odd"]


def _old(summary: dict) -> dict:
    """summary.json as an older ragstat wrote it (before verdicts, notes and range flags)."""
    old = json.loads(json.dumps(summary))
    old["counts"].pop("unreadable_files")
    old["paired"].pop("verdicts")
    for block in [*(r["hit1"] for r in old["retrievers"].values()), old["paired"]]:
        for est in block["estimands"].values():
            est.pop("recommendation_note")
            for iv in est["intervals"]:
                iv.pop("outside_range")
    old["by_stratum"]["field"] = "meta_kind"
    return old


def test_an_older_summary_still_reports(plain, tmp_path, capsys):
    result, _ = plain
    result.write(tmp_path)
    (tmp_path / "summary.json").write_text(json.dumps(_old(result.to_dict())))
    for name in ("report.json", "report.md", "report.html"):
        (tmp_path / name).unlink()
    summary = StudySummary.from_dict(_old(result.to_dict()))
    assert summary.paired is not None and summary.paired.verdicts == ()
    assert summary.counts.unreadable_files == 0
    assert main(["report", str(tmp_path)]) == 0
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["strata_field"] == "meta_kind" and len(report["strata"]) == 4
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "records.parquet").write_bytes((tmp_path / "records.parquet").read_bytes())
    broken = _old(result.to_dict())
    del broken["retrievers"]["bm25"]["hit1"]["K"]
    (bad / "summary.json").write_text(json.dumps(broken))
    capsys.readouterr()
    assert main(["report", str(bad)]) == 2
    assert "missing field 'K'" in capsys.readouterr().err


def test_terminal_words(corpus_here, tmp_path):
    import subprocess
    import sys

    out = tmp_path / "out"
    res = subprocess.run(
        [sys.executable, "-m", "ragstat", "study", corpus_here, "--chunk-words", "50",
         "--query-words", "10", "--strata", "meta_kind", "--out", str(out)],
        capture_output=True, text=True, timeout=300, env={**__import__("os").environ,
                                                          "COLUMNS": "200"},
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    text = res.stdout
    assert "excluded single chunk: 1" in text and "{" not in text
    assert "hit@1 by kind" in text and "even" in text and "odd" in text
    assert "report.html" in text and "seed 0" not in text
    assert "document-level reporting checklist" in text


def test_the_study_layer_does_not_import_inference():
    """study/ may import corpus, retrieval and records (DESIGN.md), not inference."""
    for path in (SRC / "study").glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module:
                assert not node.module.startswith("ragstat.inference"), path.name
            if isinstance(node, ast.Import):
                assert not any(a.name.startswith("ragstat.inference") for a in node.names)
