"""Reciprocal rank fusion: seed 004's worked example, tie rule, exclusion, the factory."""

from __future__ import annotations

import re
from collections import defaultdict

import numpy as np
import pytest

from ragstat.errors import InputError
from ragstat.retrieval import (
    RETRIEVERS,
    BM25Retriever,
    RRFRetriever,
    SearchResult,
    TfidfRetriever,
    make_retriever,
    rrf,
)


def tok(text: str) -> list[str]:
    return re.findall(r"\w+", text.lower())


def as_result(rows: list[list[int]], width: int) -> SearchResult:
    idx = np.full((len(rows), width), -1, dtype=np.int64)
    for i, row in enumerate(rows):
        idx[i, : len(row)] = row
    return SearchResult(idx, np.where(idx >= 0, 1.0, np.nan))


def brute_rrf(rankings: list[list[int]], k: float = 60) -> list[tuple[int, float]]:
    scores: dict[int, float] = defaultdict(float)
    for ranking in rankings:
        for rank, doc in enumerate(ranking, start=1):
            scores[doc] += 1.0 / (k + rank)
    return sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))


def test_seed_004_worked_example():
    # seed 004 ("Retrieval híbrido e reciprocal rank fusion"): d3, d2, d1 with k = 60
    dense = [3, 7, 1, 4, 2, 9, 10]
    sparse = [2, 3, 8, 1, 11, 4, 6]
    fused = rrf([as_result([dense], 7), as_result([sparse], 7)], k=60)
    assert fused.indices[0, :3].tolist() == [3, 2, 1]
    np.testing.assert_allclose(fused.scores[0, :3], [0.03252, 0.03178, 0.03150], atol=5e-6)
    assert fused.scores[0, 0] == 1 / 61 + 1 / 62
    assert fused.scores[0, 1] == 1 / 65 + 1 / 61
    # the four chunks in both lists lead; d7 (2nd dense, absent from BM25) falls to 5th
    assert set(fused.indices[0, :4].tolist()) == {1, 2, 3, 4}
    assert fused.indices[0, 4] == 7
    assert fused.indices.shape == (1, 14)
    assert (fused.indices[0, 10:] == -1).all()  # union of 10 chunks, padded


@pytest.mark.parametrize("seed", range(20))
def test_matches_brute_force_with_ties(seed):
    rng = np.random.default_rng(seed)
    n_lists, n_rows, width = rng.integers(1, 5), 4, 8
    lists = []
    for _ in range(n_lists):
        rows = []
        for _ in range(n_rows):
            m = int(rng.integers(0, width + 1))
            rows.append(rng.choice(12, m, replace=False).tolist())
        lists.append(rows)
    results = [as_result(rows, width) for rows in lists]
    fused = rrf(results, k=3, top=6)
    for i in range(n_rows):
        want = brute_rrf([lst[i] for lst in lists], k=3)[:6]
        got = [(d, s) for d, s in zip(fused.indices[i], fused.scores[i], strict=False) if d >= 0]
        assert [d for d, _ in got] == [d for d, _ in want]
        np.testing.assert_allclose([s for _, s in got], [s for _, s in want], rtol=1e-15)


def test_symmetric_ranks_tie_exactly_in_any_list_order():
    a, b, c = [10, 20, 30], [20, 30, 10], [30, 10, 20]  # every chunk has ranks {1, 2, 3}
    for order in ([a, b, c], [c, a, b], [b, c, a]):
        fused = rrf([as_result([r], 3) for r in order], k=60, top=3)
        assert fused.indices[0].tolist() == [10, 20, 30]
        assert len(set(fused.scores[0].tolist())) == 1


def test_depth_limits_votes():
    fused = rrf([as_result([[1, 2, 3]], 3), as_result([[3, 2, 1]], 3)], depth=1, top=3)
    assert fused.indices[0].tolist() == [1, 3, -1]


def test_errors():
    ok = as_result([[1, 2]], 2)
    with pytest.raises(InputError, match="positive"):
        rrf([ok], k=0)
    with pytest.raises(InputError, match="positive"):
        rrf([ok], k=-5)
    with pytest.raises(InputError, match="at least one"):
        rrf([])
    with pytest.raises(InputError, match="rows"):
        rrf([ok, as_result([[1], [2]], 2)])
    with pytest.raises(InputError, match="repeats"):
        rrf([as_result([[1, 1]], 2)])
    with pytest.raises(InputError):
        RRFRetriever([BM25Retriever(tok)], k=0)
    with pytest.raises(InputError):
        RRFRetriever([])


CHUNKS = [
    "energia elétrica tarifa",
    "conta de luz",
    "energia elétrica tarifa",
    "tarifa social de energia",
    "prazo de pagamento da conta",
    "energia elétrica tarifa",
]


def test_rrf_retriever_excludes_and_ties():
    r = RRFRetriever([BM25Retriever(tok), TfidfRetriever(tok)], k=60, depth=10).fit(CHUNKS)
    res = r.search(["energia elétrica tarifa", "conta"], 4, np.array([0, -1]))
    assert 0 not in res.indices[0]
    assert res.indices[0, :2].tolist() == [2, 5]  # identical chunks: corpus order
    # members already broke the tie by index (ranks 1 and 2), so fusion keeps that order
    assert res.scores[0, 0] > res.scores[0, 1]
    assert res.indices[1, :2].tolist() == [1, 4]
    padded = r.search(["luz"], 5)
    assert padded.indices[0].tolist() == [1, -1, -1, -1, -1]
    empty = r.search([""], 3)
    assert empty.indices.tolist() == [[-1, -1, -1]]
    with pytest.raises(InputError, match="before fit"):
        RRFRetriever([BM25Retriever(tok)]).search(["a"], 1)


def test_make_retriever():
    assert RETRIEVERS == ("bm25", "tfidf", "dense", "rrf")
    bm25 = make_retriever("bm25", tok, k1=1.5)
    assert isinstance(bm25, BM25Retriever) and bm25.k1 == 1.5
    assert isinstance(make_retriever("TFIDF", tok), TfidfRetriever)
    fused = make_retriever("rrf", tok, depth=20)
    assert isinstance(fused, RRFRetriever) and fused.depth == 20
    assert [m.name for m in fused.retrievers] == ["bm25", "tfidf"]
    assert make_retriever("rrf", tok, members="bm25").retrievers[0].name == "bm25"
    with pytest.raises(InputError, match="bm25, tfidf, dense, rrf"):
        make_retriever("splade", tok)
    with pytest.raises(InputError, match="bad options"):
        make_retriever("bm25", tok, nope=1)
    with pytest.raises(InputError, match="members"):
        make_retriever("rrf", tok, members=["rrf"])


def test_make_retriever_default_analyzer_folds_portuguese():
    pytest.importorskip("ragstat.corpus.analysis")
    chunks = ["A AÇÃO foi julgada", "prazo de pagamento", "ação civil pública"]
    for name in ("bm25", "tfidf", "rrf"):
        r = make_retriever(name).fit(chunks)
        res = r.search(["acao"], 3)
        assert res.indices[0].tolist() == [0, 2, -1] or res.indices[0].tolist() == [2, 0, -1]
