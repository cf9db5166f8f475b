"""BM25 and TF-IDF retrievers: scores from scratch, exclusion, ties, padding, errors."""

from __future__ import annotations

import math
import random
import re
from collections import Counter

import numpy as np
import pytest

from ragstat.errors import InputError
from ragstat.retrieval import BM25Retriever, TfidfRetriever


def tok(text: str) -> list[str]:
    return re.findall(r"\w+", text.lower())


class ManyTok:
    """An analyzer with a batch method, like ragstat.corpus.analysis.Analyzer."""

    def __init__(self):
        self.batches = 0

    def __call__(self, text):
        raise AssertionError("many() should be used")

    def many(self, texts):
        self.batches += 1
        return [tok(t) for t in texts]


def lucene_bm25(chunks: list[str], query: str, k1=1.2, b=0.75) -> list[float]:
    """From-scratch Lucene BM25 (dict-based): Σ over query tokens (with repeats) of
    ln(1 + (N − df + 0.5)/(df + 0.5)) · tf·(k1+1) / (tf + k1·(1 − b + b·|d|/avgdl))."""
    docs = [Counter(tok(c)) for c in chunks]
    lengths = [sum(d.values()) for d in docs]
    n = len(docs)
    avgdl = sum(lengths) / n
    df = Counter(t for d in docs for t in d)
    out = []
    for d, length in zip(docs, lengths, strict=False):
        s = 0.0
        for t in tok(query):
            tf = d.get(t, 0)
            if tf == 0:  # no contribution (and 0/0 for an empty chunk when b = 1)
                continue
            idf = math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5))
            s += idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * length / avgdl))
        out.append(s)
    return out


def sklearn_free_tfidf(chunks: list[str], query: str) -> list[float]:
    """From-scratch cosine of l2-normalised tf·(ln((1+N)/(1+df)) + 1) vectors."""
    docs = [Counter(tok(c)) for c in chunks]
    n = len(docs)
    df = Counter(t for d in docs for t in d)
    idf = {t: math.log((1 + n) / (1 + df[t])) + 1 for t in df}

    def vec(counts):
        v = {t: c * idf[t] for t, c in counts.items() if t in idf}
        norm = math.sqrt(sum(x * x for x in v.values()))
        return {t: x / norm for t, x in v.items()} if norm else {}

    q = vec(Counter(tok(query)))
    return [sum(w * vec(d).get(t, 0.0) for t, w in q.items()) for d in docs]


def random_corpus(seed: int, n: int = 50) -> list[str]:
    rng = random.Random(seed)
    words = [
        "ação",
        "lei",
        "artigo",
        "prazo",
        "conta",
        "energia",
        "tarifa",
        "de",
        "a",
        "o",
        "consumidor",
        "Ação",
    ]
    return [" ".join(rng.choice(words) for _ in range(rng.randint(0, 15))) for _ in range(n)]


QUERIES = ["lei de energia", "tarifa tarifa conta", "", "palavra desconhecida", "ação artigo"]


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize(("k1", "b"), [(1.2, 0.75), (0.9, 0.4), (2.0, 1.0), (1.2, 0.0)])
def test_bm25_scores_equal_from_scratch_lucene(seed, k1, b):
    chunks = random_corpus(seed)
    queries = [*QUERIES, *chunks[:5]]
    got = BM25Retriever(tok, k1=k1, b=b).fit(chunks).scores(queries)
    want = np.array([lucene_bm25(chunks, q, k1, b) for q in queries])
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=0)


@pytest.mark.parametrize("seed", range(3))
def test_tfidf_scores_equal_from_scratch(seed):
    chunks = random_corpus(seed)
    queries = [*QUERIES, *chunks[:5]]
    got = TfidfRetriever(tok).fit(chunks).scores(queries)
    want = np.array([sklearn_free_tfidf(chunks, q) for q in queries])
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-15)


@pytest.mark.parametrize("cls", [BM25Retriever, TfidfRetriever])
def test_search_is_sorted_scores_with_tie_rule(cls):
    chunks = random_corpus(11, n=60)
    queries = [*QUERIES, *chunks]
    exclude = np.array([-1] * len(QUERIES) + list(range(len(chunks))))
    r = cls(tok).fit(chunks)
    res = r.search(queries, 7, exclude)
    full = r.scores(queries)
    for i in range(len(queries)):
        cands = [(full[i, j], j) for j in range(len(chunks)) if full[i, j] > 0 and j != exclude[i]]
        best = sorted(cands, key=lambda c: (-c[0], c[1]))[:7]
        want = [j for _, j in best] + [-1] * (7 - len(best))
        assert res.indices[i].tolist() == want
        np.testing.assert_array_equal(res.scores[i, : len(best)], [s for s, _ in best])
        assert np.isnan(res.scores[i, len(best) :]).all()


@pytest.mark.parametrize("cls", [BM25Retriever, TfidfRetriever])
def test_own_chunk_never_returned(cls):
    chunks = random_corpus(5, n=40)
    queries = [" ".join(c.split()[:4]) for c in chunks]
    own = np.arange(len(chunks))
    res = cls(tok).fit(chunks).search(queries, 40, own)
    assert not (res.indices == own[:, None]).any()
    # the own chunk is a candidate when not excluded (a query is a prefix of its chunk)
    res = cls(tok).fit(chunks).search(queries, 40)
    has_tokens = np.array([bool(tok(q)) for q in queries])
    assert (res.indices == own[:, None]).any(axis=1)[has_tokens].all()


@pytest.mark.parametrize("cls", [BM25Retriever, TfidfRetriever])
def test_tie_rule_on_identical_chunks(cls):
    same = "energia elétrica tarifa"
    chunks = []
    for i in range(30):
        chunks.append(same if i % 3 == 0 else f"outro texto {i}")
    tied = [i for i, c in enumerate(chunks) if c == same]  # 0, 3, 6, …, 27
    r = cls(tok).fit(chunks)
    res = r.search([same, same], 4, np.array([-1, 3]))
    assert res.indices[0].tolist() == tied[:4]
    assert res.indices[1].tolist() == [0, 6, 9, 12]
    assert len(set(res.scores[0].tolist())) == 1  # bit-identical scores


@pytest.mark.parametrize("cls", [BM25Retriever, TfidfRetriever])
def test_padding_empty_query_unknown_terms(cls):
    chunks = ["alpha beta", "beta gamma", "delta"]
    res = (
        cls(tok).fit(chunks).search(["beta", "", "zzz yyy", "delta"], 5, np.array([-1, -1, -1, 2]))
    )
    assert res.indices.tolist() == [[0, 1, -1, -1, -1], [-1] * 5, [-1] * 5, [-1] * 5]
    assert np.isnan(res.scores[1:]).all()
    assert res.indices.dtype == np.int64 and res.scores.dtype == np.float64


def test_bm25_query_term_multiplicity_counts():
    chunks = random_corpus(3)
    r = BM25Retriever(tok).fit(chunks)
    once, twice = r.scores(["energia"]), r.scores(["energia energia"])
    np.testing.assert_allclose(twice, 2 * once, rtol=1e-12)


def test_collection_statistics_use_full_index():
    chunks = random_corpus(4)
    r = BM25Retriever(tok).fit(chunks)
    full = r.scores([chunks[0]])[0]
    res = r.search([chunks[0]], len(chunks), np.array([0]))
    got = dict(zip(res.indices[0].tolist(), res.scores[0].tolist(), strict=False))
    for j, s in got.items():
        if j >= 0:
            assert s == full[j]  # exclusion does not change any other chunk's score


@pytest.mark.parametrize("cls", [BM25Retriever, TfidfRetriever])
def test_analyzer_many_is_used(cls):
    analyzer = ManyTok()
    res = cls(analyzer).fit(["a b", "b c"]).search(["b"], 2)
    assert analyzer.batches == 2
    assert res.indices.tolist() == [[0, 1]] or res.indices.tolist() == [[1, 0]]


@pytest.mark.parametrize("cls", [BM25Retriever, TfidfRetriever])
def test_no_queries_and_tokenless_corpus(cls):
    r = cls(tok).fit(["a b", "c"])
    res = r.search([], 3)
    assert res.indices.shape == (0, 3)
    res = cls(tok).fit(["", "!!"]).search(["a"], 2)
    assert res.indices.tolist() == [[-1, -1]]


@pytest.mark.parametrize("cls", [BM25Retriever, TfidfRetriever])
def test_input_errors(cls):
    with pytest.raises(InputError, match="empty"):
        cls(tok).fit([])
    with pytest.raises(InputError, match="single string"):
        cls(tok).fit("one text")
    with pytest.raises(InputError, match="expected str"):
        cls(tok).fit(["ok", 3])
    with pytest.raises(InputError, match="before fit"):
        cls(tok).search(["a"], 1)
    with pytest.raises(InputError, match="callable"):
        cls("not callable")
    r = cls(tok).fit(["a b", "b c"])
    with pytest.raises(InputError, match="k must be"):
        r.search(["a"], 0)
    with pytest.raises(InputError, match="one chunk index per query"):
        r.search(["a", "b"], 1, np.array([0]))
    with pytest.raises(InputError, match="chunk indices"):
        r.search(["a"], 1, np.array([2]))


@pytest.mark.parametrize("cls", [BM25Retriever, TfidfRetriever])
def test_blocks_and_threads_do_not_change_results(cls):
    chunks = random_corpus(8, n=80)
    queries = [*QUERIES, *chunks]
    exclude = np.array([-1] * len(QUERIES) + list(range(len(chunks))))
    ref = cls(tok).fit(chunks).search(queries, 6, exclude)
    for block_elements, n_jobs in [(80, 1), (80, 2), (1, 2), (10**9, 2)]:
        got = cls(tok, block_elements=block_elements, n_jobs=n_jobs).fit(chunks)
        res = got.search(queries, 6, exclude)
        np.testing.assert_array_equal(res.indices, ref.indices)
        np.testing.assert_array_equal(res.scores, ref.scores)
    with pytest.raises(InputError, match="n_jobs"):
        cls(tok, n_jobs=0)


@pytest.mark.parametrize(
    ("k1", "b"), [(-0.1, 0.75), (1.2, 1.5), (float("nan"), 0.5), ("x", 0.5), (1.2, None)]
)
def test_bm25_bad_parameters(k1, b):
    with pytest.raises(InputError):
        BM25Retriever(tok, k1=k1, b=b)
