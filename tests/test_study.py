"""The self-retrieval study on the shared corpora: protocol contracts and outputs."""

import json

import numpy as np
import pandas as pd
import pytest

from ragstat import InputError
from ragstat.cli import main
from ragstat.corpus.document import Corpus, Document
from ragstat.corpus.loaders import load_jsonl
from ragstat.study import StudyConfig, run_study, write_study


def _words(n: int, seed: int) -> str:
    rng = np.random.default_rng(seed)
    vocab = [f"w{i}" for i in range(300)]
    return " ".join(rng.choice(vocab, n))


@pytest.fixture(scope="module")
def aneel(tmp_path_factory):
    from conftest import SHARED

    path = SHARED / "data" / "aneel-ren1000.jsonl"
    if not path.is_file():
        pytest.skip("../shared is absent")
    corpus = load_jsonl(path)
    study = run_study(corpus, StudyConfig(retrievers=("bm25", "tfidf")))
    out = tmp_path_factory.mktemp("aneel")
    summary = write_study(study, out, reps=999)
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
    strata = pd.read_parquet(out / "records.parquet")
    assert "meta_titulo" in strata.columns


def test_tie_rule_on_a_corpus_built_to_tie():
    text = _words(100, 1)
    docs = [Document("a", text + " " + _words(100, 2)), Document("b", text), Document("c", text)]
    study = run_study(Corpus(tuple(docs)), StudyConfig(retrievers=("bm25", "tfidf")))
    for name in ("bm25", "tfidf"):
        r = study.records[
            (study.records["retriever"] == name) & (study.records["query_id"] == "a#0")
        ]
        row = r.iloc[0]
        assert row["top1_tied"]
        assert row["top1_chunk"] == "b#0"  # equal scores: corpus order decides


def test_empty_and_unusable_corpora():
    with pytest.raises(InputError, match="no documents"):
        run_study(Corpus(()))
    one_chunk = Corpus((Document("a", _words(50, 1)), Document("b", _words(60, 2))))
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
