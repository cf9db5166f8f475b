"""Sampled queries: the two-stage design (every document, then chunks), its weights and summary."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from ragstat.api.verbs.study import summarize
from ragstat.errors import InputError
from ragstat.selfretrieval import StudyConfig, run_study, write_study
from ragstat.selfretrieval.sampling import check_sample_spec, parse_sample_queries, sample
from test_study_scale import synthetic_corpus


@pytest.fixture(scope="module")
def corpus():
    return synthetic_corpus(n_docs=60, seed=4)


@pytest.fixture(scope="module")
def full(corpus):
    return run_study(corpus, StudyConfig(retrievers=("bm25", "tfidf")))


def _codes(sizes) -> np.ndarray:
    return np.repeat(np.arange(len(sizes)), sizes)


def test_per_document_counts_follow_the_rounding_rule():
    sizes = np.array([2, 3, 7, 10, 25, 101, 400])
    for spec in (0.1, 0.25, 1.0, 55, 100, 3):
        s = sample(_codes(sizes), spec, seed=1)
        f = s.fraction
        expected = np.minimum(sizes, np.maximum(1, np.floor(f * sizes + 0.5)))
        assert np.array_equal(s.m, expected) and np.array_equal(s.n, sizes)
        kept = np.bincount(_codes(sizes)[s.keep], minlength=sizes.size)
        assert np.array_equal(kept, s.m)  # exactly m_d per document, at least one each
        if isinstance(spec, float):
            assert f == spec
    assert sample(_codes(sizes), 10**6, seed=1).keep.all()  # N ≥ all: every chunk


@pytest.mark.parametrize("target", [7, 8, 50, 100, 300, 547])
def test_a_count_gives_the_largest_fraction_within_it(target):
    sizes = np.array([2, 3, 7, 10, 25, 101, 400])
    s = sample(_codes(sizes), target, seed=0)
    assert s.m.sum() <= max(target, sizes.size)  # one per document at least
    bigger = np.minimum(sizes, np.maximum(1, np.floor((s.fraction + 1e-9) * sizes + 0.5)))
    assert s.fraction == 1.0 or bigger.sum() > target  # a larger fraction would exceed it
    if target >= 50:
        assert s.m.sum() >= 0.9 * target


def test_sample_depends_on_the_seed_only():
    codes = _codes([5, 40, 12, 300])
    a, b = sample(codes, 0.2, seed=7), sample(codes, 0.2, seed=7)
    assert np.array_equal(a.keep, b.keep)
    assert not np.array_equal(a.keep, sample(codes, 0.2, seed=8).keep)
    # document order in the codes does not matter: the draws are per chunk, in corpus order
    relabel = np.array([3, 2, 1, 0])[codes]
    assert np.array_equal(sample(relabel, 0.2, seed=7).keep, a.keep)


def test_within_document_sample_is_uniform():
    """SRS within a document: every chunk equally likely (Monte Carlo over seeds)."""
    codes = _codes([10, 30])
    hits = np.zeros(codes.size)
    for seed in range(2000):
        hits += sample(codes, 0.2, seed).keep
    assert np.allclose(hits[:10] / 2000, 0.2, atol=0.04)
    assert np.allclose(hits[10:] / 2000, 0.2, atol=0.04)


def test_weighted_micro_is_unbiased_where_the_plain_mean_is_not():
    """Small documents are over-sampled (at least one query): n_d/m_d weights correct it."""
    rng = np.random.default_rng(0)
    sizes = np.r_[np.full(80, 2), np.full(20, 60)]
    codes = _codes(sizes)
    y = (rng.random(codes.size) < np.where(sizes[codes] == 2, 0.1, 0.8)).astype(float)
    weighted, plain = [], []
    for seed in range(400):
        s = sample(codes, 0.1, seed)
        w = s.weights(codes[s.keep])
        weighted.append(np.sum(w * y[s.keep]) / np.sum(w))
        plain.append(y[s.keep].mean())
    assert abs(np.mean(weighted) - y.mean()) < 0.01
    assert abs(np.mean(plain) - y.mean()) > 0.1


@pytest.mark.parametrize(
    "value, parsed",
    [("20000", 20000), ("20_000", 20000), ("0.1", 0.1), ("1.0", 1.0), ("1", 1), (None, None)],
)
def test_parse_sample_queries(value, parsed):
    out = parse_sample_queries(value)
    assert out == parsed and type(out) is type(parsed)


@pytest.mark.parametrize("bad", ["0", "1.5", "-3", "abc", "0.0", "nan"])
def test_bad_sample_specs_are_input_errors(bad):
    with pytest.raises(InputError, match="sample-queries"):
        parse_sample_queries(bad)


def test_config_validates_the_sample():
    with pytest.raises(InputError):
        StudyConfig(sample_queries=True)
    with pytest.raises(InputError):
        StudyConfig(sample_queries=0)
    with pytest.raises(InputError, match="sample_seed"):
        StudyConfig(sample_queries=0.5, sample_seed=-1)
    assert check_sample_spec(np.int64(5)) == 5


def test_sampled_records_are_the_full_studys_rows_for_those_queries(corpus, full):
    config = StudyConfig(retrievers=("bm25", "tfidf"), sample_queries=0.3, sample_seed=2)
    sampled = run_study(corpus, config)
    rows = full.records.merge(
        sampled.records[["query_id", "retriever"]], on=["query_id", "retriever"]
    )
    pd.testing.assert_frame_equal(rows, sampled.records.drop(columns="weight"), check_exact=True)
    keep = set(sampled.records["query_id"])
    cands = full.candidates[full.candidates["query_id"].isin(keep)].reset_index(drop=True)
    pd.testing.assert_frame_equal(cands, sampled.candidates, check_exact=True)
    docs = sampled.documents.set_index("doc_id")
    g = sampled.records[sampled.records["retriever"] == "bm25"]
    assert (g.groupby("doc_id").size() == docs.loc[g["doc_id"].unique(), "queries_sampled"]).all()
    w = g["weight"].to_numpy()
    n_d = docs.loc[g["doc_id"], "queries_eligible"].to_numpy()
    m_d = docs.loc[g["doc_id"], "queries_sampled"].to_numpy()
    assert np.array_equal(w, n_d / m_d)
    assert docs["queries_eligible"].sum() == len(full.records) // 2


def test_summary_records_the_design_and_weights_micro(corpus, tmp_path):
    config = StudyConfig(retrievers=("bm25", "tfidf"), sample_queries=150, sample_seed=5)
    study = run_study(corpus, config)
    summary = write_study(study, tmp_path, summarize(study, reps=99, strata="part").to_dict())
    sampling = summary["sampling"]
    assert sampling["design"] == "two-stage: documents, then chunks within each document"
    assert sampling["n"] == 150 and sampling["seed"] == 5
    assert sampling["queries_sampled"] == len(study.records) // 2
    assert summary["config"]["sample_queries"] == 150
    g = study.records[study.records["retriever"] == "bm25"]
    per_doc = g.groupby("doc_id").agg(y=("hit1", "mean"), n=("weight", "sum"))
    report = summary["retrievers"]["bm25"]["hit1"]
    hit1 = report["estimands"]
    micro = (per_doc["y"] * per_doc["n"].round()).sum() / per_doc["n"].round().sum()
    assert hit1["micro"]["estimate"] == pytest.approx(micro, rel=1e-12)
    assert hit1["macro"]["estimate"] == pytest.approx(per_doc["y"].mean(), rel=1e-12)
    assert "wald_iid" not in {iv["method"] for iv in hit1["micro"]["intervals"]}
    assert report["K"] == study.documents["eligible"].sum()  # every eligible document is kept
    stored = json.loads((tmp_path / "summary.json").read_text())
    assert stored["sampling"] == sampling
    docs = pd.read_parquet(tmp_path / "documents.parquet")
    assert {"queries_eligible", "queries_sampled"} <= set(docs.columns)
    assert "weight" in pd.read_parquet(tmp_path / "records.parquet").columns


def test_unsampled_study_has_no_weights(full, tmp_path):
    summary = write_study(full, tmp_path, summarize(full, reps=99).to_dict())
    assert "sampling" not in summary and "weight" not in full.records.columns
    assert "queries_sampled" not in full.documents.columns


def _jsonl_corpus(path, n_docs: int = 24, seed: int = 1):
    rng = np.random.default_rng(seed)
    vocab = np.array([f"w{i}" for i in range(300)])
    with path.open("w") as f:
        for d in range(n_docs):
            n, topic = int(rng.integers(60, 500)), rng.choice(300, 6, replace=False)
            ids = np.where(rng.random(n) < 0.25, rng.choice(topic, n), rng.integers(0, 300, n))
            f.write(json.dumps({"doc_id": f"d{d:02d}", "text": " ".join(vocab[ids])}) + "\n")
    return path


@pytest.fixture(scope="module")
def sampled_study(tmp_path_factory):
    from ragstat.cli import main

    tmp = tmp_path_factory.mktemp("sampled")
    out = tmp / "study"
    corpus = _jsonl_corpus(tmp / "c.jsonl")
    args = ["study", str(corpus), "--sample-queries", "0.5", "--retrievers", "bm25,tfidf"]
    assert main([*args, "--out", str(out), "--quiet"]) == 0
    return out, json.loads((out / "summary.json").read_text())


def _cli_json(capsys, *args) -> dict:
    from ragstat.cli import main

    capsys.readouterr()
    assert main([*args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def _by_method(intervals: list[dict]) -> dict:
    return {iv["method"]: iv for iv in intervals}


def test_interval_on_sampled_records_is_the_summarys(sampled_study, capsys):
    out, summary = sampled_study
    records = str(out / "records.parquet")
    got = _cli_json(capsys, "interval", records, "--score", "hit1", "--system", "bm25")
    want = summary["retrievers"]["bm25"]["hit1"]["estimands"]
    assert not any("ignore" in w for w in got["warnings"])
    for est in ("micro", "macro"):
        mine, theirs = got["estimands"][est], want[est]
        assert mine["estimate"] == pytest.approx(theirs["estimate"], rel=1e-12)
        assert mine["recommended"] == theirs["recommended"]
    a, b = (
        _by_method(got["estimands"]["micro"]["intervals"]),
        _by_method(want["micro"]["intervals"]),
    )
    for method in ("cr1", "cr2_bm"):
        assert (a[method]["lower"], a[method]["upper"]) == (
            pytest.approx(b[method]["lower"], rel=1e-10),
            pytest.approx(b[method]["upper"], rel=1e-10),
        )
    assert want["micro"]["recommended"] == "cr2_bm" and b["cr2_bm"]["lower"] is not None
    assert b["cr2_ik"]["lower"] is None and "Imbens" in b["cr2_ik"]["reason"]


def test_compare_on_sampled_records(sampled_study, capsys):
    out, summary = sampled_study
    records = str(out / "records.parquet")
    got = _cli_json(capsys, "compare", records, "--systems", "bm25,tfidf", "--score", "hit1")
    micro = got["report"]["estimands"]["micro"] if "report" in got else got["estimands"]["micro"]
    want = summary["paired"]["estimands"]["micro"]
    assert micro["estimate"] == pytest.approx(want["estimate"], rel=1e-12, abs=1e-15)
    assert _by_method(micro["intervals"])["cr1"]["lower"] == pytest.approx(
        _by_method(want["intervals"])["cr1"]["lower"], rel=1e-10
    )


def test_compare_needs_the_same_weights(sampled_study, tmp_path, capsys):
    from ragstat.cli import main

    out, _ = sampled_study
    records = pd.read_parquet(out / "records.parquet")
    a = records[records["retriever"] == "bm25"].copy()
    b = records[records["retriever"] == "tfidf"].copy()
    b.loc[b.index[:4], "weight"] *= 2
    a.to_parquet(tmp_path / "a.parquet")
    b.to_parquet(tmp_path / "b.parquet")
    capsys.readouterr()
    code = main(["compare", str(tmp_path / "a.parquet"), str(tmp_path / "b.parquet"),
                 "--score", "hit1"])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2 and "weight differs" in err and "4 query" in err
    b.drop(columns="weight").to_parquet(tmp_path / "b.parquet")
    code = main(["compare", str(tmp_path / "a.parquet"), str(tmp_path / "b.parquet"),
                 "--score", "hit1"])  # fmt: skip
    assert code == 2 and "only the first" in capsys.readouterr().err
