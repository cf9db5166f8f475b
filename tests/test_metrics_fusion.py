"""Id-keyed reciprocal rank fusion and reranking deltas: seed 004's worked examples and contracts."""

from __future__ import annotations

import dataclasses
import math
from collections import defaultdict

import numpy as np
import pytest

from ragstat.errors import InputError
from ragstat.metrics import Run, evaluate, parse_metric, qrels_from_dict
from ragstat.metrics.ir import RerankDelta, rerank_delta, rrf_fuse
from ragstat.retrieval.base import SearchResult
from ragstat.retrieval.fusion import rrf as rrf_indices

# seed 004, "Retrieval híbrido e reciprocal rank fusion": two lanes, dense and BM25
DENSE = ["d3", "d7", "d1", "d4", "d2", "d9", "d10"]
SPARSE = ["d2", "d3", "d8", "d1", "d11", "d4", "d6"]


def seed_rrf(rankings: list[list[str]], k: int = 60) -> list[tuple[str, float]]:
    """The seed's reference implementation, verbatim but for the doc-id tie-break."""
    scores: dict[str, float] = defaultdict(float)
    for ranking in rankings:
        for rank, doc in enumerate(ranking, start=1):
            scores[doc] += 1.0 / (k + rank)
    return sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))


# ------------------------------------------------------------------------ rrf_fuse


def test_seed_004_rrf_worked_example():
    fused = rrf_fuse([{"q": DENSE}, {"q": SPARSE}], k=60)["q"]
    assert [d for d, _ in fused[:3]] == ["d3", "d2", "d1"]
    assert [round(s, 5) for _, s in fused[:3]] == [0.03252, 0.03178, 0.03150]
    assert fused[0][1] == 1 / 61 + 1 / 62  # rank 1 dense, rank 2 sparse
    assert fused[1][1] == 1 / 61 + 1 / 65  # rank 5 dense, rank 1 sparse
    assert fused[2][1] == 1 / 63 + 1 / 64
    # the four documents in both lanes lead; d7 (2nd dense, absent from BM25) falls to 5th
    assert {d for d, _ in fused[:4]} == {"d1", "d2", "d3", "d4"}
    assert fused[4] == ("d7", 1 / 62)
    assert len(fused) == 10  # the union of both lanes
    assert rrf_fuse([{"q": DENSE}, {"q": SPARSE}]) == {"q": fused}  # k = 60 by default


def test_seed_reference_agrees_on_random_runs():
    rng = np.random.default_rng(4)
    for _ in range(50):
        lists = [
            [f"d{j}" for j in rng.permutation(15)[: rng.integers(0, 12)]]
            for _ in range(rng.integers(1, 5))
        ]
        k = float(rng.choice([1, 2.5, 60]))
        got = rrf_fuse([{"q": lst} for lst in lists], k=k)["q"]
        want = seed_rrf(lists, k=k)
        assert [d for d, _ in got] == [d for d, _ in want] or _only_fp_ties(got, want)
        np.testing.assert_allclose([s for _, s in got], [s for _, s in want], rtol=1e-15)


def _only_fp_ties(got, want) -> bool:
    """Orders may differ only where the two summation orders disagree in the last bits."""
    return all(math.isclose(g[1], w[1], rel_tol=1e-14) for g, w in zip(got, want, strict=True))


def test_matches_the_chunk_index_rrf_bit_for_bit():
    # zero-padded ids sort like the chunk indices, so both tie rules coincide
    rng = np.random.default_rng(7)
    n_lists, n_rows, width = 3, 6, 9
    lists = [
        [rng.choice(30, int(rng.integers(0, width + 1)), replace=False) for _ in range(n_rows)]
        for _ in range(n_lists)
    ]
    results = []
    for rows in lists:
        idx = np.full((n_rows, width), -1, dtype=np.int64)
        for i, row in enumerate(rows):
            idx[i, : len(row)] = row
        results.append(SearchResult(idx, np.where(idx >= 0, 1.0, np.nan)))
    by_index = rrf_indices(results, k=60)
    runs = [{f"q{i}": [f"{c:04d}" for c in row] for i, row in enumerate(rows)} for rows in lists]
    fused = rrf_fuse(runs, k=60)
    for i in range(n_rows):
        keep = by_index.indices[i] >= 0
        idx, val = by_index.indices[i][keep], by_index.scores[i][keep]
        want = [(f"{c:04d}", float(s)) for c, s in zip(idx, val, strict=True)]
        assert fused[f"q{i}"] == want


def test_ties_break_by_doc_id_and_do_not_depend_on_run_order():
    a, b, c = ["x", "y", "z"], ["y", "z", "x"], ["z", "x", "y"]  # every doc has ranks {1, 2, 3}
    outs = [rrf_fuse([{"q": r} for r in order])["q"] for order in ([a, b, c], [c, a, b], [b, c, a])]
    assert outs[0] == outs[1] == outs[2]
    assert [d for d, _ in outs[0]] == ["x", "y", "z"]
    assert len({s for _, s in outs[0]}) == 1
    # plain str order: "d10" < "d2"
    assert [d for d, _ in rrf_fuse([{"q": ["d2"]}, {"q": ["d10"]}])["q"]] == ["d10", "d2"]


def test_depth_limits_the_voting_ranks():
    fused = rrf_fuse([{"q": DENSE}, {"q": SPARSE}], depth=2)["q"]
    assert fused == seed_rrf([DENSE[:2], SPARSE[:2]])
    assert [d for d, _ in fused] == ["d3", "d2", "d7"]


def test_queries_are_the_union_in_first_appearance_order():
    fused = rrf_fuse([{"q2": ["a"], "q1": []}, {"q3": ["b", "a"], "q1": []}])
    assert list(fused) == ["q2", "q1", "q3"]
    assert fused["q1"] == []
    assert fused["q2"] == [("a", 1 / 61)]
    assert fused["q3"] == [("b", 1 / 61), ("a", 1 / 62)]
    assert rrf_fuse([{"q": np.array(["a", "b"])}])["q"][0][0] == "a"


@pytest.mark.parametrize("k", [0, -1, -60.0, math.nan, math.inf, True, "60", None])
def test_bad_k_is_rejected(k):
    with pytest.raises(InputError, match="k must be a positive"):
        rrf_fuse([{"q": DENSE}], k=k)


@pytest.mark.parametrize("depth", [0, -3, 2.5, True])
def test_bad_depth_is_rejected(depth):
    with pytest.raises(InputError, match="depth"):
        rrf_fuse([{"q": DENSE}], depth=depth)


def test_duplicate_ids_are_rejected_naming_query_and_run():
    with pytest.raises(
        InputError, match=r"run 1, query 'q7': document 'd3' appears more than once"
    ):
        rrf_fuse([{"q7": DENSE}, {"q7": ["d2", "d3", "d3"]}])
    with pytest.raises(InputError, match="more than once"):  # also beyond depth
        rrf_fuse([{"q": ["a", "b", "a"]}], depth=1)


@pytest.mark.parametrize(
    ("rankings", "message"),
    [
        ([], "non-empty sequence"),
        ({"q": DENSE}, "non-empty sequence"),
        ([["d1"]], "run 0 must be a mapping"),
        ([{"q": "d1 d2"}], "must be a sequence of document ids"),
        ([{"q": [1, 2]}], "document ids must be strings"),
        ([{1: ["d1"]}], "query ids must be strings"),
    ],
)
def test_malformed_runs_are_rejected(rankings, message):
    with pytest.raises(InputError, match=message):
        rrf_fuse(rankings)


# -------------------------------------------------------------------- rerank_delta

# seed 004, "Métricas de retrieval": gold sets and top-10 runs
GOLD = {"q1": {"d3"}, "q2": {"d7", "d2"}, "q3": {"d11"}, "q4": {"d5"}}
RUNS = {
    "q1": ["d8", "d3", "d1", "d4", "d2", "d9", "d6", "d10", "d12", "d13"],
    "q2": ["d2", "d6", "d4", "d7", "d1", "d3", "d8", "d11", "d5", "d9"],
    "q3": ["d11", "d2", "d3", "d4", "d1", "d6", "d7", "d8", "d10", "d12"],
    "q4": ["d1", "d2", "d3", "d6", "d8", "d9", "d10", "d12", "d13", "d14"],
}
QRELS = {q: dict.fromkeys(docs, 1) for q, docs in GOLD.items()}


def test_kernels_reproduce_the_seed_mrr_and_ndcg():
    mrr = rerank_delta(QRELS, RUNS, RUNS, "mrr")
    assert mrr.before.tolist() == [0.5, 1.0, 1.0, 0.0]
    assert mrr.mean_before == 0.625
    ndcg = rerank_delta(QRELS, RUNS, RUNS, "ndcg@5")
    want = [1 / math.log2(3), (1 + 1 / math.log2(5)) / (1 + 1 / math.log2(3)), 1.0, 0.0]
    np.testing.assert_allclose(ndcg.before, want, rtol=1e-15)
    assert f"{ndcg.mean_before:.3f}" == "0.627"
    assert (ndcg.delta == 0).all() and ndcg.mean_delta == 0.0


def test_rerank_delta_ndcg_mrr_and_p_on_identical_candidate_sets():
    qrels = {"q1": {"a": 1}, "q2": {"b": 2, "c": 1, "n": -1}, "q3": {"x": 1}, "q4": {"z": 0}}
    before = {"q1": ["c", "a", "d"], "q2": ["c", "b", "e", "n"], "q4": ["z"], "q5": ["y"]}
    after = {"q1": ["a", "c", "d"], "q2": ["b", "c", "n", "e"], "q4": ["z"], "q5": ["y"]}
    res = rerank_delta(qrels, before, after, "ndcg@3")
    assert isinstance(res, RerankDelta)
    assert res.query_ids == ("q1", "q2", "q3")
    assert res.missing == ("q3",)  # no ranking: scored as empty, Δ = 0
    assert res.no_relevant == ("q4",)  # a separate slice, not a zero
    assert res.unjudged == ("q5",)  # ranked but not in the qrels
    l3 = math.log2(3)
    idcg2 = 2 + 1 / l3
    np.testing.assert_allclose(res.before, [1 / l3, (1 + 2 / l3) / idcg2, 0.0], rtol=1e-15)
    np.testing.assert_allclose(res.after, [1.0, 1.0, 0.0], rtol=1e-15)  # negative grade: no gain
    np.testing.assert_allclose(res.delta, res.after - res.before, rtol=0)
    assert res.mean_delta == pytest.approx(res.mean_after - res.mean_before, abs=1e-15)
    mrr = rerank_delta(qrels, before, after, "mrr@10")
    assert mrr.before.tolist() == [0.5, 1.0, 0.0]
    assert mrr.delta.tolist() == [0.5, 0.0, 0.0]
    p1 = rerank_delta(qrels, before, after, "P@1")
    assert p1.metric == "p@1"
    assert p1.delta.tolist() == [1.0, 0.0, 0.0]
    assert rerank_delta(qrels, before, after, "rr@1").before.tolist() == [0.0, 1.0, 0.0]
    full = rerank_delta(qrels, before, after, "ndcg")  # full depth: q2's c, b both count
    assert full.before[1] == pytest.approx((1 + 2 / l3) / idcg2)


def test_rerank_delta_result_is_frozen_and_read_only():
    res = rerank_delta(QRELS, RUNS, RUNS)
    assert res.metric == "ndcg@10"
    with pytest.raises(dataclasses.FrozenInstanceError):
        res.metric = "mrr"
    for arr in (res.before, res.after, res.delta):
        assert arr.dtype == np.float64 and not arr.flags.writeable


def test_different_candidate_sets_are_rejected_naming_the_first_query():
    after = {**RUNS, "q2": [*RUNS["q2"][:9], "d99"]}
    with pytest.raises(InputError, match=r"query 'q2': the candidate sets .* differ") as err:
        rerank_delta(QRELS, RUNS, after)
    assert "['d9']" in str(err.value) and "['d99']" in str(err.value)
    truncated = {**RUNS, "q1": RUNS["q1"][:5]}  # a reranker that cut the pool
    with pytest.raises(InputError, match="'q1'"):
        rerank_delta(QRELS, RUNS, truncated)
    with pytest.raises(InputError, match="'q9'"):  # a query on one side only
        rerank_delta(QRELS, RUNS, {**RUNS, "q9": ["d1"]})


def test_rerank_delta_bad_input():
    dup = {**RUNS, "q3": ["d11", "d11"]}
    with pytest.raises(InputError, match=r"before, query 'q3': document 'd11' appears more"):
        rerank_delta(QRELS, dup, dup)
    for bad in ("recall@10", "ndcg@0", "p", "ndcg@-1", "map", 10):
        with pytest.raises(InputError, match="valid: ndcg@k"):
            rerank_delta(QRELS, RUNS, RUNS, bad)
    with pytest.raises(InputError, match="no query in qrels has a relevant document"):
        rerank_delta({"q1": {"d3": 0}}, RUNS, RUNS)
    with pytest.raises(InputError, match="bad judgment"):
        rerank_delta({"q1": {"d3": "1"}}, RUNS, RUNS)
    with pytest.raises(InputError, match="before must be a mapping"):
        rerank_delta(QRELS, [RUNS["q1"]], RUNS)


def test_rerank_delta_shares_the_parser_and_kernels_of_evaluate():
    """Same metric parser (canonical names) and the same kernels: values equal to the bit."""
    rng = np.random.default_rng(11)
    docs = [f"d{i}" for i in range(12)]
    qrels = {
        f"q{i}": {d: int(g) for d, g in zip(docs, rng.integers(-1, 4, len(docs)), strict=True)}
        for i in range(8)
    }
    before = {q: [str(d) for d in rng.permutation(docs)] for q in qrels}
    after = {q: [str(d) for d in rng.permutation(ranked)] for q, ranked in before.items()}
    judged = qrels_from_dict(qrels)
    for typed in ("nDCG@5", "ndcg", "RR@3", "mrr", "precision@4"):
        res = rerank_delta(qrels, before, after, typed)
        assert res.metric == parse_metric(typed).name  # "RR@3" → "mrr@3", "precision@4" → "p@4"
        for rankings, values in ((before, res.before), (after, res.after)):
            run = Run({q: [(d, 0.0) for d in ranked] for q, ranked in rankings.items()})
            want = evaluate(judged, run, typed).values(typed).loc[list(res.query_ids)]
            np.testing.assert_array_equal(values, want.to_numpy())
