"""The study at scale: saved indexes and batched queries give the in-process study, exactly.

Run clean under ``python -W error -m pytest tests/test_study_scale.py``: the Dask
tests use one 2-worker loopback LocalCluster and leave no process, no scratch
folder and no parts folder behind.
"""

from __future__ import annotations

import json
import multiprocessing
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from conftest import child_pids
from ragstat.api.verbs.study import summarize
from ragstat.corpus.analysis import Analyzer
from ragstat.corpus.document import Corpus, Document, Excluded
from ragstat.corpus.loaders import load_jsonl
from ragstat.engine import ProcessExecutor, SerialExecutor, get_executor
from ragstat.errors import InputError
from ragstat.retrieval import BM25Retriever, TfidfRetriever, load_retriever, save_retriever
from ragstat.selfretrieval import StudyConfig, run_study, write_study
from ragstat.selfretrieval.batches import BatchTask, batch_bounds, search_batch
from ragstat.selfretrieval.index import read_manifest

pytestmark = pytest.mark.slow  # scale: real corpora, Dask clusters

CONFIGS = {
    "lexical+rrf": StudyConfig(retrievers=("bm25", "tfidf", "rrf"), k=12),
    "sampled": StudyConfig(retrievers=("tfidf", "bm25"), sample_queries=0.4, sample_seed=3),
    "single-off": StudyConfig(retrievers=("bm25",), k=3, index_single_chunk_docs=False),
}


def synthetic_corpus(n_docs: int = 70, seed: int = 0) -> Corpus:
    """Documents with lognormal sizes (1 to ~40 chunks of 20 words) and Zipfian words,
    some topic words per document, one empty document, one unreadable file, metadata."""
    rng = np.random.default_rng(seed)
    vocab = np.array([f"w{i}" for i in range(600)])
    zipf = 1.0 / np.arange(1, vocab.size + 1) ** 1.1
    zipf /= zipf.sum()
    docs = []
    for d in range(n_docs):
        words = max(1, int(rng.lognormal(4.5, 1.0)))
        topic = rng.choice(vocab.size, 8, replace=False)
        ids = np.where(
            rng.random(words) < 0.3, rng.choice(topic, words), rng.choice(vocab.size, words, p=zipf)
        )
        meta = {"part": f"p{d % 3}", "year": 2000 + d % 5}
        docs.append(Document(f"doc{d:03d}", " ".join(vocab[ids]), meta))
    docs.append(Document("empty", "", {"part": "p0"}))
    return Corpus(tuple(docs), (Excluded("broken.pdf", "unreadable PDF"),), source="synthetic")


def assert_same_study(a, b) -> None:
    pd.testing.assert_frame_equal(a.records, b.records, check_exact=True)
    pd.testing.assert_frame_equal(a.candidates, b.candidates, check_exact=True)
    pd.testing.assert_frame_equal(a.documents, b.documents, check_exact=True)
    assert (a.n_chunks, a.n_indexed, a.sampling) == (b.n_chunks, b.n_indexed, b.sampling)


def assert_same_outputs(a, b, tmp_path: Path, strata: str = "part") -> None:
    """The written files: the same summary and byte-identical Parquet files."""
    sa = write_study(a, tmp_path / "a", summarize(a, reps=99, strata=strata).to_dict())
    sb = write_study(b, tmp_path / "b", summarize(b, reps=99, strata=strata).to_dict())
    assert json.dumps(sa, default=str) == json.dumps(sb, default=str)
    for name in ("records", "candidates", "documents"):
        data_a = (tmp_path / "a" / f"{name}.parquet").read_bytes()
        assert data_a == (tmp_path / "b" / f"{name}.parquet").read_bytes(), name


@pytest.fixture(scope="module")
def corpus() -> Corpus:
    return synthetic_corpus()


@pytest.fixture(scope="module")
def local(corpus):
    return {name: run_study(corpus, cfg) for name, cfg in CONFIGS.items()}


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """One 2-worker loopback LocalCluster for the module; it must leave nothing behind."""
    pytest.importorskip("distributed")
    before = child_pids()
    scratch = tmp_path_factory.mktemp("dask-scratch")
    with get_executor(2, "dask", scratch=scratch) as ex:
        yield ex
    assert child_pids() <= before
    assert not multiprocessing.active_children()
    assert not any((scratch / "dask-scratch-space").glob("worker-*"))


# -- saved indexes ---------------------------------------------------------------------------


@pytest.mark.parametrize("cls", [BM25Retriever, TfidfRetriever])
def test_saved_index_is_memory_mapped_and_bit_identical(cls, corpus, tmp_path):
    texts = [d.text for d in corpus.documents if d.text]
    queries = [" ".join(t.split()[:6]) for t in texts] + ["nothing known", ""]
    fitted = cls(Analyzer()).fit(texts)
    save_retriever(fitted, tmp_path / cls.name)
    loaded = load_retriever(cls.name, tmp_path / cls.name, Analyzer())
    matrix = loaded.weights if cls is BM25Retriever else loaded.chunk_matrix
    base = matrix.data
    while base is not None and not isinstance(base, np.memmap):
        base = base.base
    assert isinstance(base, np.memmap) and not matrix.data.flags.writeable
    assert np.array_equal(fitted.scores(queries), loaded.scores(queries))  # bit for bit
    exclude = np.r_[np.arange(len(texts)), -1, -1]
    a, b = fitted.search(queries, 7, exclude), loaded.search(queries, 7, exclude)
    assert np.array_equal(a.indices, b.indices)
    assert np.array_equal(a.scores, b.scores, equal_nan=True)


def test_bm25_index_is_bm25s_format(corpus, tmp_path):
    import bm25s

    texts = [d.text for d in corpus.documents if d.text]
    save_retriever(BM25Retriever(Analyzer()).fit(texts), tmp_path / "bm25")
    model = bm25s.BM25.load(tmp_path / "bm25", mmap=True, show_progress=False)
    assert model.scores["num_docs"] == len(texts)
    assert isinstance(model.scores["data"], np.memmap)


def test_loading_a_missing_index_is_an_input_error(tmp_path):
    with pytest.raises(InputError, match="no saved bm25 index"):
        load_retriever("bm25", tmp_path / "nope", Analyzer())
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match="holds no saved TF-IDF index"):
        load_retriever("tfidf", tmp_path / "empty", Analyzer())


# -- batches ----------------------------------------------------------------------------------


def test_batches_hold_at_least_batch_size_queries():
    for q, size in [(25_000, 10_000), (9_999, 10_000), (10_000, 10_000), (123_457, 10_000)]:
        bounds = batch_bounds(q, size)
        sizes = [b - a for a, b in bounds]
        assert sum(sizes) == q and bounds[0][0] == 0 and bounds[-1][1] == q
        assert min(sizes) >= min(size, q) and max(sizes) - min(sizes) <= 1
    with pytest.raises(InputError):
        batch_bounds(10, 0)


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_serial_batches_identical_to_in_process(name, corpus, local, tmp_path):
    batched = run_study(corpus, CONFIGS[name], executor=SerialExecutor(), batch_size=40)
    assert_same_study(local[name], batched)


def test_process_pool_identical_and_outputs_byte_identical(corpus, local, tmp_path):
    index = tmp_path / "index"
    with ProcessExecutor(2) as ex:
        batched = run_study(
            corpus, CONFIGS["lexical+rrf"], executor=ex, index_dir=index, batch_size=50
        )
    assert_same_study(local["lexical+rrf"], batched)
    assert_same_outputs(local["lexical+rrf"], batched, tmp_path)
    assert sorted(p.name for p in index.iterdir()) == [
        "bm25",
        "chunk_doc.npy",
        "manifest.json",
        "tfidf",
    ]


def test_dask_local_cluster_identical(cluster, corpus, local, tmp_path):
    for name in ("lexical+rrf", "sampled"):
        index = tmp_path / name
        batched = run_study(corpus, CONFIGS[name], executor=cluster, index_dir=index, batch_size=40)
        assert_same_study(local[name], batched)
        assert not (index / "parts").exists()


def test_real_corpus_on_dask_identical(cluster, shared, tmp_path):
    corpus = load_jsonl(shared / "data" / "aneel-ren1000.jsonl")
    for config in (
        StudyConfig(retrievers=("bm25", "tfidf", "rrf")),
        StudyConfig(sample_queries=500, sample_seed=9),
    ):
        ref = run_study(corpus, config)
        batched = run_study(corpus, config, executor=cluster, batch_size=300)
        assert_same_study(ref, batched)
    assert_same_outputs(ref, batched, tmp_path, strata="titulo")


def test_no_scratch_left_behind(corpus, tmp_path, monkeypatch):
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    run_study(corpus, CONFIGS["single-off"], executor=SerialExecutor(), batch_size=30)
    assert list(tmp_path.iterdir()) == []
    parts = tmp_path / "shared-parts"
    run_study(corpus, CONFIGS["single-off"], index_dir=tmp_path / "ix", parts_dir=parts)
    assert not parts.exists()


# -- the index folder -------------------------------------------------------------------------


def test_index_is_reused_extended_and_checked(corpus, tmp_path):
    index = tmp_path / "index"
    said: list[str] = []
    run_study(corpus, StudyConfig(retrievers=("bm25",)), index_dir=index, progress=said.append)
    assert read_manifest(index)["retrievers"] == ["bm25"]
    said.clear()
    run_study(
        corpus, StudyConfig(retrievers=("bm25", "tfidf")), index_dir=index, progress=said.append
    )
    assert read_manifest(index)["retrievers"] == ["bm25", "tfidf"]
    assert not any(m.startswith("bm25: indexing") for m in said)
    assert any(m.startswith("tfidf: indexing") for m in said)
    said.clear()
    run_study(
        corpus, StudyConfig(retrievers=("tfidf", "bm25")), index_dir=index, progress=said.append
    )
    assert any("reused" in m for m in said)
    other = StudyConfig(retrievers=("bm25",), chunk_words=50)
    with pytest.raises(InputError, match="chunk_words: index 100, this study 50"):
        run_study(corpus, other, index_dir=index)
    run_study(corpus, other, index_dir=index, replace_index=True)
    manifest = read_manifest(index)
    assert manifest["chunk_words"] == 50 and manifest["retrievers"] == ["bm25"]
    assert not (index / "tfidf").exists()


def test_a_folder_that_is_not_an_index_is_refused(corpus, tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(InputError, match="holds no ragstat index"):
        run_study(corpus, CONFIGS["single-off"], index_dir=tmp_path)
    assert (tmp_path / "notes.txt").read_text() == "mine"


def test_worker_refuses_another_index(corpus, tmp_path):
    index = tmp_path / "index"
    config = CONFIGS["single-off"]
    run_study(corpus, config, index_dir=index)
    task = BatchTask(
        str(index), "not-the-key", str(tmp_path / "parts"), 0, config, ["w1 w2"], np.array([0])
    )
    with pytest.raises(InputError, match="not the one this study built"):
        search_batch(task)
    task = BatchTask(
        str(tmp_path / "nowhere"), "k", str(tmp_path), 0, config, ["w1"], np.array([0])
    )
    with pytest.raises(InputError, match="path every worker can read"):
        search_batch(task)


def test_an_interrupted_index_build_resumes(corpus, tmp_path, monkeypatch):
    import ragstat.selfretrieval.index as index_module

    real = index_module.fit_retriever

    def failing(config, name, texts, show_progress=False):
        if name == "tfidf":
            raise KeyboardInterrupt
        return real(config, name, texts, show_progress)

    index = tmp_path / "index"
    config = StudyConfig(retrievers=("bm25", "tfidf"))
    monkeypatch.setattr(index_module, "fit_retriever", failing)
    with pytest.raises(KeyboardInterrupt):
        run_study(corpus, config, index_dir=index)
    assert read_manifest(index)["retrievers"] == ["bm25"]
    assert not (index / "parts").exists()
    monkeypatch.setattr(index_module, "fit_retriever", real)
    said: list[str] = []
    run_study(corpus, config, index_dir=index, progress=said.append)
    assert [m.split(":")[0] for m in said if "indexing" in m] == ["tfidf"]
