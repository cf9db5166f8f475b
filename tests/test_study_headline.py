"""One answer: the study's headline intervals are `ragstat.interval`'s, and every output of
the study (terminal, summary.json, report.json/md/html) opens with the same verdicts."""

from __future__ import annotations

import io
import json
from html import escape as html_escape
from pathlib import Path

import numpy as np
import pytest

import ragstat
from ragstat.api.verbs.study import StudyResult, study
from ragstat.inference.headline import describe, headline
from ragstat.inference.weighted import WEIGHTED_RECOMMENDED
from ragstat.report.markdown import escape

SEED = 7
REPS = 499
RETRIEVERS = ("bm25", "tfidf")


def _rows(n_docs: int = 30, seed: int = 5) -> list[dict]:
    """Documents with words of their own (some shared), of unequal length."""
    rng = np.random.default_rng(seed)
    vocab = [f"w{i}" for i in range(400)]
    rows = []
    for d in range(n_docs):
        own = rng.choice(len(vocab), 25, replace=False)
        n = int(rng.integers(80, 400))
        words = [
            vocab[own[i % 25]] if rng.random() < 0.45 else vocab[int(rng.integers(0, 400))]
            for i in range(n)
        ]
        rows.append({"doc_id": f"d{d:02d}", "text": " ".join(words)})
    return rows


def _write(rows: list[dict], path: Path) -> Path:
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory) -> tuple[StudyResult, Path]:
    folder = tmp_path_factory.mktemp("study-headline")
    corpus = _write(_rows(), folder / "c.jsonl")
    result = study(corpus, chunk_words=40, query_words=8, seed=SEED, bootstrap_reps=REPS)
    out = folder / "out"
    result.write(out, report=result.report(created="2026-01-01T00:00:00+00:00"))
    return result, out


def _same_as_interval(result: StudyResult, records: Path, seed: int, reps: int) -> None:
    """(method, lower, upper) of every retriever's micro and macro headline, in the summary
    and in summary.json, equal `ragstat.interval`'s on the records — to the last digit."""
    written = json.loads((records.parent / "summary.json").read_text(encoding="utf-8"))
    for name in result.summary.retrievers:
        report = ragstat.interval(
            records, system=name, score="hit1", seed=seed, bootstrap_reps=reps
        )
        for est in ("micro", "macro"):
            want = headline(report, est)
            got = result.summary.headlines(name)[est]
            assert want.available and want.method is not None
            assert (got.method, got.lower, got.upper) == (want.method, want.lower, want.upper)
            row = written["retrievers"][name]["headline"][est]
            assert (row["method"], row["lower"], row["upper"]) == (
                want.method,
                want.lower,
                want.upper,
            )
            assert row["sentence"] == describe(want, "hit1", name)


def test_the_study_headline_is_ragstat_interval_s(synthetic):
    result, out = synthetic
    _same_as_interval(result, out / "records.parquet", SEED, REPS)


def test_the_default_bootstrap_too(tmp_path):
    """The default replicates and seed 0, as `ragstat study` runs."""
    corpus = _write(_rows(14, seed=9), tmp_path / "c.jsonl")
    result = study(corpus, chunk_words=40, query_words=8)
    result.write(tmp_path / "out")
    _same_as_interval(result, tmp_path / "out" / "records.parquet", 0, 9_999)


def test_planalto_laws(shared, tmp_path):
    """A few of the longest laws of the shared Planalto corpus."""
    rows = [json.loads(line) for line in (shared / "data" / "planalto-leis.jsonl").open()]
    rows = sorted(rows, key=lambda r: -len(r["text"]))[:25]
    corpus = _write(
        [{"doc_id": r["doc_id"], "text": r["text"]} for r in rows], tmp_path / "p.jsonl"
    )
    result = study(corpus, chunk_words=40, query_words=8, seed=SEED, bootstrap_reps=REPS)
    result.write(tmp_path / "out")
    _same_as_interval(result, tmp_path / "out" / "records.parquet", SEED, REPS)


def test_every_output_opens_with_the_verdicts(synthetic):
    from rich.console import Console

    from ragstat.cli.render_study import print_study

    result, out = synthetic
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    sentences = summary["verdicts"]
    a, b = RETRIEVERS
    assert len(sentences) == 2 * 2 + 2  # hit@1 per retriever × estimand, then the paired ones
    assert sentences[0].startswith(f"For a random query, hit1 of {a} is ")
    assert sentences[1].startswith(f"For a typical document, hit1 of {a} is ")
    assert all("points (95 % interval" in s for s in sentences[:4])
    paired = [v["sentence"] for v in summary["paired"]["verdicts"]]
    assert sentences[4:] == paired
    for s in paired:  # named by the retrievers, in points
        assert " on hit1" in s and " A " not in s and "score units" not in s
        assert (f"{a} beats {b}" in s or f"{b} beats {a}" in s) or "cannot be told apart" in s
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert report["verdicts"] == sentences
    md = (out / "report.md").read_text(encoding="utf-8")
    head = md.split("- **kind**")[0]  # the verdict comes before the facts of the run
    assert "## Verdict" in head and all(escape(v) in head for v in sentences)
    html = (out / "report.html").read_text(encoding="utf-8")
    assert html.index('id="verdict"') < html.index('class="facts"')
    assert all(html_escape(v, quote=False) in html for v in sentences)
    console = Console(file=io.StringIO(), width=200, color_system=None)
    print_study(result.summary, out, console)
    text = console.file.getvalue()
    assert text.splitlines()[: len(sentences)] == sentences
    micro = result.summary.headlines(a)["micro"]
    assert f"[{micro.lower:.3f}, {micro.upper:.3f}]" in text
    assert f"{a} − {b}: micro" not in text  # the bare line is gone


def test_sampled_queries_show_the_weighted_recommendation(tmp_path):
    corpus = _write(_rows(20, seed=3), tmp_path / "c.jsonl")
    result = study(
        corpus, chunk_words=40, query_words=8, sample_queries=0.5, seed=SEED, bootstrap_reps=REPS
    )
    result.write(tmp_path / "out")
    records = tmp_path / "out" / "records.parquet"
    for name in RETRIEVERS:
        report = ragstat.interval(
            records, system=name, score="hit1", seed=SEED, bootstrap_reps=REPS
        )
        for est in ("micro", "macro"):
            got, want = result.summary.headlines(name)[est], headline(report, est)
            assert got.method == want.method == WEIGHTED_RECOMMENDED[est]
            assert got.lower == pytest.approx(want.lower, rel=1e-9)
            assert got.upper == pytest.approx(want.upper, rel=1e-9)
