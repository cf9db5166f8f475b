"""The self-retrieval study on the shared corpora: protocol contracts and outputs."""

import json

import numpy as np
import pandas as pd
import pytest

from ragstat import InputError
from ragstat.api.verbs.study import summarize
from ragstat.cli import main
from ragstat.corpus.document import Corpus, Document
from ragstat.corpus.loaders import load_jsonl
from ragstat.selfretrieval import StudyConfig, run_study, write_study


def _words(n: int, seed: int) -> str:
    rng = np.random.default_rng(seed)
    vocab = [f"w{i}" for i in range(300)]
    return " ".join(rng.choice(vocab, n))


CORPORA = {"aneel-ren1000.jsonl": "titulo", "planalto-leis.jsonl": "law"}


@pytest.fixture(
    scope="module",
    params=[pytest.param(c, marks=pytest.mark.slow) for c in sorted(CORPORA)],  # real corpora
)
def aneel(request, tmp_path_factory):
    """A study of each shared corpus (named for the first; both run every test)."""
    from conftest import SHARED

    path = SHARED / "data" / request.param
    if not path.is_file():
        pytest.skip("../shared is absent")
    corpus = load_jsonl(path)
    study = run_study(corpus, StudyConfig(retrievers=("bm25", "tfidf")))
    out = tmp_path_factory.mktemp("study")
    summary = write_study(
        study, out, summarize(study, reps=999, strata=CORPORA[request.param]).to_dict()
    )
    return corpus, study, summary, out


def test_own_chunk_is_never_returned(aneel):
    _, study, *_ = aneel
    c = study.candidates
    assert len(c) > 0
    assert not (c["query_id"] == c["chunk_id"]).any()


def test_records_count_is_chunks_of_eligible_documents(aneel):
    corpus, study, summary, _ = aneel
    words = {d.doc_id: len(d.text.split()) for d in corpus.documents}
    chunks = {k: -(-w // 100) for k, w in words.items()}
    eligible = {k: c for k, c in chunks.items() if c >= 2}
    for name in ("bm25", "tfidf"):
        rec = study.records[study.records["retriever"] == name]
        assert len(rec) == sum(eligible.values())
        assert set(rec["doc_id"]) == set(eligible)
    single = [k for k, c in chunks.items() if c == 1]
    docs = study.documents.set_index("doc_id")
    assert (docs.loc[single, "reason"] == "single chunk").all()
    assert summary["counts"]["excluded"].get("single chunk", 0) == len(single)
    # single-chunk documents stay in the index as candidates
    assert study.n_chunks == sum(chunks.values())
    if single:
        returned = set(study.candidates["doc_id"])
        assert returned & set(single), "single-chunk documents must remain retrievable"


def test_outcome_columns_are_consistent(aneel):
    _, study, *_ = aneel
    r = study.records
    has = r["first_rank"].notna()
    assert ((r["hit1"] == 1) == (has & (r["first_rank"] == 1))).all()
    np.testing.assert_allclose(r.loc[has, "rr"], 1 / r.loc[has, "first_rank"].astype(float))
    assert (r.loc[~has, "rr"] == 0).all()
    assert ((r["hit1"] == 1) == (r["top1_doc"] == r["doc_id"])).all()
    assert (r["hit5"] >= r["hit1"]).all() and (r["hit10"] >= r["hit5"]).all()


def test_summary_has_clustered_intervals_and_the_paired_comparison(aneel):
    *_, summary, out = aneel
    assert {"records.parquet", "candidates.parquet", "documents.parquet", "summary.json"} <= {
        p.name for p in out.iterdir()
    }
    on_disk = json.loads((out / "summary.json").read_text())
    assert on_disk["corpus_fingerprint"] == summary["corpus_fingerprint"]
    bm25 = summary["retrievers"]["bm25"]["hit1"]
    assert bm25["K"] == summary["counts"]["eligible_documents"]
    micro = {iv["method"]: iv for iv in bm25["estimands"]["micro"]["intervals"]}
    assert micro["wald_iid"]["width"] < micro["cr2_bm"]["width"]
    assert summary["paired"]["systems"] == ["bm25", "tfidf"]
    assert 0 <= summary["paired"]["paired"]["ties_share"] <= 1
    field = summary["by_stratum"]["field"]
    records = pd.read_parquet(out / "records.parquet")
    for name, by in summary["by_stratum"]["hit1"].items():
        rec = records[records["retriever"] == name]
        assert sum(v["N"] for v in by.values()) == len(rec)
        for stratum, v in by.items():
            sub = rec[rec[f"meta_{field}"].astype(str) == stratum]
            assert v["micro"] == pytest.approx(sub["hit1"].mean())
    import pyarrow.parquet as pq

    meta = json.loads(pq.read_schema(out / "records.parquet").metadata[b"ragstat"])
    assert meta["corpus_fingerprint"] == summary["corpus_fingerprint"]


def test_tie_rule_on_a_corpus_built_to_tie():
    text = _words(100, 1)
    other = " ".join(f"z{i}" for i in range(200))
    docs = [
        Document("a", text + " " + _words(100, 2)),
        Document("b", text),
        Document("c", text),
        Document("d", other),
    ]
    for k in (1, 10):
        study = run_study(
            Corpus(tuple(docs)), StudyConfig(retrievers=("bm25", "tfidf", "rrf"), k=k)
        )
        rec = study.records
        for name in ("bm25", "tfidf", "rrf"):
            row = rec[(rec["retriever"] == name) & (rec["query_id"] == "a#0")].iloc[0]
            assert row["top1_chunk"] == "b#0"  # equal scores: corpus order decides
            if name != "rrf":  # fused ranks of identical chunks differ, so no tie there
                assert row["top1_tied"]
            untied = rec[(rec["retriever"] == name) & (rec["query_id"] == "d#0")].iloc[0]
            assert not untied["top1_tied"]  # d#1 is the only match
        assert {"hit5", "hit10"} <= set(rec.columns)
        assert study.candidates.groupby(["query_id", "retriever"]).size().max() <= k


def test_empty_and_unusable_corpora():
    with pytest.raises(InputError, match="no documents"):
        run_study(Corpus(()))
    one_chunk = Corpus((Document("a", _words(50, 1)), Document("b", _words(260, 2))))
    with pytest.raises(InputError, match="two or more chunks"):
        run_study(one_chunk)
    with pytest.raises(InputError, match="query-words"):
        StudyConfig(query_words=30, chunk_words=20)
    with pytest.raises(InputError, match="unknown retriever"):
        StudyConfig(retrievers=("bm26",))


def test_cli_study_on_a_small_jsonl(tmp_path, capsys):
    path = tmp_path / "c.jsonl"
    rows = [
        {"doc_id": f"d{i}", "text": _words(250, i), "kind": "x" if i % 2 else "y"} for i in range(8)
    ]
    path.write_text("\n".join(json.dumps(r) for r in rows))
    out = tmp_path / "out"
    code = main(["study", str(path), "--out", str(out), "--json", "--seed", "1"])
    assert code == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["counts"]["queries"] == 8 * 3
    assert (out / "records.parquet").is_file()
    assert main(["study", str(path), "--chunk-words", "0", "--out", str(out)]) == 2


def test_bm25_scores_in_the_study_equal_lucene_from_scratch(aneel):
    """Top-1 scores of sampled queries against a dict-based Lucene BM25 with the same analyzer."""
    import math
    from collections import Counter

    from ragstat.corpus.analysis import Analyzer
    from ragstat.corpus.chunking import chunk_corpus, query_text

    corpus, study, *_ = aneel
    table = chunk_corpus(corpus, 100)
    analyzer = Analyzer()
    docs = [Counter(analyzer(text)) for text in table.text]
    lengths = [sum(d.values()) for d in docs]
    N, avgdl = len(docs), sum(lengths) / len(docs)
    df = Counter(term for d in docs for term in d)
    pos = {cid: i for i, cid in enumerate(table.chunk_id)}
    c = study.candidates[(study.candidates["retriever"] == "bm25")]
    sample = c[c["rank"] == 1].sample(40, random_state=0)
    for _, row in sample.iterrows():
        q = analyzer(query_text(table.text[pos[row["query_id"]]], 20))
        d, dl = docs[pos[row["chunk_id"]]], lengths[pos[row["chunk_id"]]]
        score = 0.0
        for term in q:
            if term in d:
                idf = math.log(1 + (N - df[term] + 0.5) / (df[term] + 0.5))
                tf = d[term]
                score += idf * tf * 2.2 / (tf + 1.2 * (1 - 0.75 + 0.75 * dl / avgdl))
        assert row["score"] == pytest.approx(score, rel=1e-9)


def test_metadata_of_mixed_types_is_kept_as_text(tmp_path):
    docs = [
        Document(f"d{i}", _words(250, i), {"year": 2020 if i % 2 else "2021"}) for i in range(4)
    ]
    study = run_study(Corpus(tuple(docs)))
    write_study(study, tmp_path, summarize(study, reps=99).to_dict())
    assert set(pd.read_parquet(tmp_path / "documents.parquet")["meta_year"]) == {"2020", "2021"}


def test_single_chunk_documents_can_be_left_out_of_the_index():
    docs = [
        Document("a", _words(250, 1)),
        Document("b", _words(250, 2)),
        Document("c", _words(50, 3)),
    ]
    kept = run_study(Corpus(tuple(docs)))
    left = run_study(Corpus(tuple(docs)), StudyConfig(index_single_chunk_docs=False))
    assert kept.n_indexed == 7 and left.n_indexed == 6
    assert "c" not in set(left.candidates["doc_id"])
    assert len(kept.records) == len(left.records)
