"""The compiled top-k (numba) against the numpy/scipy fallback: bit-identical indices, scores
and tie flags, on the shared corpora (skipped when ../shared/data is absent), on a tiny
corpus with planted ties and on random sparse products with many ties."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

import ragstat.retrieval.topk_compiled as tc
from ragstat.corpus.loaders import load_jsonl
from ragstat.errors import InputError
from ragstat.retrieval import BM25Retriever, TfidfRetriever
from ragstat.retrieval.topk import topk_product
from ragstat.selfretrieval import StudyConfig
from ragstat.selfretrieval.run import prepare
from ragstat.selfretrieval.search import analyzer_for

pytest.importorskip("numba")

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
CORPORA = {"planalto-leis": (10,), "aneel-ren1000": (10, 100)}  # depths compared


def both_paths(monkeypatch, fn):
    """``fn()`` with the compiled path forced, then with the fallback forced."""
    monkeypatch.setattr(tc, "ENABLED", True)
    compiled = fn()
    monkeypatch.setattr(tc, "ENABLED", False)
    fallback = fn()
    monkeypatch.setattr(tc, "ENABLED", None)
    return compiled, fallback


def tied(scores: np.ndarray) -> np.ndarray:
    """The study's ``top1_tied`` (selfretrieval.outcomes): the top score shared by rank 2."""
    if scores.shape[1] < 2:
        return np.zeros(scores.shape[0], dtype=bool)
    return ~np.isnan(scores[:, 1]) & (scores[:, 0] == scores[:, 1])


def assert_identical(got, want) -> None:
    gi, gv = got
    wi, wv = want
    assert gi.dtype == wi.dtype == np.int64 and gv.dtype == wv.dtype == np.float64
    np.testing.assert_array_equal(gi, wi)
    assert np.array_equal(gv, wv, equal_nan=True)  # exact equality, not a tolerance
    np.testing.assert_array_equal(tied(gv), tied(wv))


@pytest.fixture(scope="module", params=sorted(CORPORA))
def prepared(request):
    path = DATA / f"{request.param}.jsonl"
    if not path.is_file():
        pytest.skip(f"{path} is absent")
    config = StudyConfig()
    prep = prepare(load_jsonl(path), config)
    return request.param, prep, analyzer_for(config)


@pytest.mark.slow  # real corpora
@pytest.mark.parametrize("cls", [BM25Retriever, TfidfRetriever], ids=["bm25", "tfidf"])
def test_shared_corpora_bit_identical(prepared, cls, monkeypatch):
    name, prep, analyzer = prepared
    retriever = cls(analyzer).fit(prep.texts)
    left = retriever.query_matrix(prep.queries)
    right = retriever.weights if cls is BM25Retriever else retriever.chunk_matrix
    for k in CORPORA[name]:
        compiled, fallback = both_paths(
            monkeypatch, lambda k=k: topk_product(left, right, k, prep.query, True)
        )
        assert_identical(compiled, fallback)
        assert (compiled[0] != prep.query[:, None]).all()  # own chunk never returned
        ties = compiled[1][:, 1:] == compiled[1][:, :-1]
        assert ties.any() or cls is TfidfRetriever  # BM25 lists do hold equal scores


def test_search_honours_the_environment_switch(monkeypatch):
    texts = ["a b c", "a b", "b c d", "a b c", "d e"]
    retriever = BM25Retriever(str.split).fit(texts)
    monkeypatch.setattr(tc, "ENABLED", True)
    assert tc.supports(retriever.query_matrix(["a"]), retriever.weights, True)
    monkeypatch.setenv("RAGSTAT_NO_NUMBA", "1")
    assert not tc.available()
    assert not tc.supports(retriever.query_matrix(["a"]), retriever.weights, True)
    off = retriever.search(["a b", "c"], 3, np.array([1, -1]))
    monkeypatch.delenv("RAGSTAT_NO_NUMBA")
    on = retriever.search(["a b", "c"], 3, np.array([1, -1]))
    assert_identical((on.indices, on.scores), (off.indices, off.scores))


def test_automatic_mode_keeps_small_cold_products_on_the_fallback(monkeypatch):
    left = sp.csr_matrix(np.ones((2, 3)))
    right = sp.csr_matrix(np.ones((3, 4)))
    monkeypatch.setattr(tc, "_kernel", None)  # as in a fresh process
    assert not tc.supports(left, right, True)
    monkeypatch.setattr(tc, "COLD_WORK", 24)  # 2 queries × 3 terms × 4 chunks
    assert tc.supports(left, right, True)
    assert not tc.supports(left, right, False)  # scores ≤ 0 count: fallback
    assert not tc.supports(left.astype(np.float32), right, True)
    assert not tc.supports(left.toarray(), right, True)


@pytest.mark.parametrize("cls", [BM25Retriever, TfidfRetriever], ids=["bm25", "tfidf"])
def test_planted_ties(cls, monkeypatch):
    # chunks 1, 3, 5 are the same text: every query scores them equally; chunk 6 has no
    # query term; "zzz" is unknown to the index.
    texts = ["alpha beta", "gamma delta", "alpha gamma", "gamma delta", "beta"]
    texts += ["gamma delta", "omega"]
    queries = ["gamma delta", "gamma delta", "gamma", "zzz", "alpha beta gamma delta"]
    exclude = np.array([3, -1, 1, -1, 5])
    retriever = cls(str.split).fit(texts)

    def search(k):
        res = retriever.search(queries, k, exclude)
        return res.indices, res.scores

    for k in (1, 2, 3, 4, 7, 9):
        compiled, fallback = both_paths(monkeypatch, lambda k=k: search(k))
        assert_identical(compiled, fallback)
    idx, val = both_paths(monkeypatch, lambda: search(4))[0]
    assert idx[0].tolist() == [1, 5, 2, -1] and val[0, 0] == val[0, 1] > val[0, 2] > 0
    assert idx[1].tolist() == [1, 3, 5, 2]
    row = idx[2].tolist()  # chunk 1 excluded; 3 and 5 tie, so 3 comes first
    assert 1 not in row and row.index(3) + 1 == row.index(5) and tied(val)[2]
    assert idx[3].tolist() == [-1] * 4 and np.isnan(val[3]).all()
    assert 6 not in idx and set(idx[4]) <= {0, 1, 2, 3, 4}
    assert tied(val).tolist() == [True, True, True, False, tied(val)[4]]


def brute(left, right, k, exclude):
    scores = (left @ right).toarray()
    idx = np.full((scores.shape[0], k), -1, dtype=np.int64)
    val = np.full((scores.shape[0], k), np.nan)
    for i, row in enumerate(scores):
        cands = [(s, j) for j, s in enumerate(row) if s > 0 and j != exclude[i]]
        for pos, (s, j) in enumerate(sorted(cands, key=lambda c: (-c[0], c[1]))[:k]):
            idx[i, pos], val[i, pos] = j, s
    return idx, val


@pytest.mark.parametrize("seed", range(12))
def test_random_products_with_many_ties(seed, monkeypatch):
    rng = np.random.default_rng(seed)
    q, v, n = (int(x) for x in rng.integers(1, 40, size=3))
    left = sp.random(q, v, density=0.3, format="csr", random_state=rng)
    right = sp.random(v, n * 8, density=0.2 if seed % 2 else 0.9, format="csr", random_state=rng)
    left.data = np.round(left.data * 3)  # small integers: many equal scores
    right.data = np.round(right.data * 3) - (seed % 3 == 0)  # some zero and negative weights
    exclude = rng.integers(-1, right.shape[1], size=q)
    for k in (1, 3, 17, right.shape[1] + 2):
        want = brute(left, right, k, exclude)
        compiled, fallback = both_paths(
            monkeypatch, lambda k=k: topk_product(left, right, k, exclude, True)
        )
        assert_identical(compiled, want)
        assert_identical(fallback, want)
        monkeypatch.setattr(tc, "ENABLED", True)
        threads = topk_product(left, right, k, exclude, True, n_jobs=3)
        assert_identical(threads, want)


def test_malformed_operands_are_refused(monkeypatch):
    monkeypatch.setattr(tc, "ENABLED", True)
    left = sp.csr_matrix(np.ones((2, 3)))
    right = sp.csr_matrix(np.ones((3, 4)))
    right.indices[-1] = 9  # beyond the 4 columns: the kernel would write out of bounds
    with pytest.raises(InputError, match="malformed"):
        topk_product(left, right, 2, np.array([-1, -1]), True)
    with pytest.raises(InputError, match="malformed"):
        topk_product(left, sp.csr_matrix(np.ones((5, 4))), 2, np.array([-1, -1]), True)


def test_without_numba_the_fallback_runs(monkeypatch):
    monkeypatch.setattr(tc, "_kernel", False)  # as when `import numba` failed
    monkeypatch.setattr(tc, "ENABLED", True)
    assert not tc.available()
    left = sp.csr_matrix(np.array([[1.0, 0.0], [1.0, 1.0]]))
    right = sp.csr_matrix(np.array([[1.0, 1.0, 0.0], [0.0, 1.0, 2.0]]))
    idx, val = topk_product(left, right, 2, np.array([-1, 2]), True)
    assert idx.tolist() == [[0, 1], [1, 0]] and val.tolist() == [[1.0, 1.0], [2.0, 1.0]]
    assert not math.isnan(val[0, 1])


@pytest.mark.parametrize("cls", [BM25Retriever, TfidfRetriever], ids=["bm25", "tfidf"])
def test_saved_index_read_only_arrays(cls, tmp_path, monkeypatch):
    """A loaded index is memory-mapped (read-only arrays): the kernel reads them as they are."""
    texts = ["a b c", "a b", "b c d", "a b c", "d e", "c c a"] * 20
    cls(str.split).fit(texts).save(tmp_path)
    loaded = cls.load(tmp_path, str.split, mmap=True)
    compiled, fallback = both_paths(
        monkeypatch,
        lambda: loaded.search(["a b", "c d", "e", "q"], 7, np.array([0, -1, 4, -1])),
    )
    assert_identical((compiled.indices, compiled.scores), (fallback.indices, fallback.scores))
