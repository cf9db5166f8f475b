"""Property tests: vectorised IR kernels equal a line-by-line reading of the formulas."""

from __future__ import annotations

import math

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragstat.metrics import Run, evaluate, parse_metric, qrels_from_dict, run_from_frame

DOCS = [f"d{i}" for i in range(12)] + ["D1", "D10", "D2", "é"]
METRICS = [
    "ndcg@1",
    "ndcg@3",
    "ndcg@20",
    "ndcg",
    "recall@1",
    "recall@4",
    "p@1",
    "p@3",
    "p@30",
    "mrr",
    "mrr@2",
    "map",
    "map@3",
    "hit@1",
    "hit@3",
    "rprec",
]


def naive(name: str, ranking: list[str], judged: dict[str, int]) -> float:
    m = parse_metric(name)
    grades = [judged.get(d, 0) for d in ranking]
    R = sum(g >= 1 for g in judged.values())
    if R == 0:
        return math.nan
    top = grades if m.k is None else grades[: m.k]
    b = [g >= 1 for g in top]
    if m.kind == "p":
        return sum(b) / m.k
    if m.kind == "recall":
        return sum(b) / R
    if m.kind == "hit":
        return float(any(b))
    if m.kind == "rprec":
        return sum(g >= 1 for g in grades[:R]) / R
    if m.kind == "mrr":
        return next((1 / (i + 1) for i, x in enumerate(b) if x), 0.0)
    if m.kind == "map":
        hits, total = 0, 0.0
        for i, x in enumerate(b):
            if x:
                hits += 1
                total += hits / (i + 1)
        return total / R
    dcg = sum(max(g, 0) / math.log2(i + 2) for i, g in enumerate(top))
    ideal = sorted((g for g in judged.values() if g > 0), reverse=True)
    ideal = ideal if m.k is None else ideal[: m.k]
    return dcg / sum(g / math.log2(i + 2) for i, g in enumerate(ideal))


@st.composite
def cases(draw):
    n_q = draw(st.integers(1, 5))
    qrels, rankings = {}, {}
    for i in range(n_q):
        judged_docs = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=8, unique=True))
        qrels[f"q{i}"] = {d: draw(st.integers(-1, 3)) for d in judged_docs}
        if draw(st.booleans()) or i == 0:
            ranked = draw(st.lists(st.sampled_from(DOCS), max_size=14, unique=True))
            rankings[f"q{i}"] = [(d, float(len(ranked) - j)) for j, d in enumerate(ranked)]
    if draw(st.booleans()):
        rankings["unjudged"] = [("d0", 1.0)]
    return qrels, rankings


@settings(max_examples=150, deadline=None)
@given(cases())
def test_kernels_equal_the_formulas(case):
    qrels, rankings = case
    table = evaluate(qrels_from_dict(qrels), Run(rankings, name="r"), METRICS)
    for q, metric, value, missing in table.records[
        ["query_id", "metric", "value", "missing_run"]
    ].itertuples(index=False):
        ranking = [d for d, _ in rankings.get(q, [])]
        expected = naive(metric, ranking, qrels[q])
        assert missing == (q not in rankings)
        if math.isnan(expected):
            assert math.isnan(value)
        else:
            assert value == pytest.approx(expected, abs=1e-12), (q, metric)


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["a", "b", "c"]),
            st.sampled_from(DOCS),
            st.sampled_from([0.0, 1.0, -0.5, 2.25]),
        ),
        min_size=1,
        max_size=40,
        unique_by=lambda t: (t[0], t[1]),
    )
)
def test_trec_order_equals_a_python_sort(rows):
    run = run_from_frame(pd.DataFrame(rows, columns=["query_id", "doc_id", "score"]))
    for q in {r[0] for r in rows}:
        items = [(d, s) for qq, d, s in rows if qq == q]
        items.sort(key=lambda x: x[0], reverse=True)  # doc id descending …
        items.sort(key=lambda x: -x[1])  # … within score descending (stable)
        assert run[q] == items


@settings(max_examples=40, deadline=None)
@given(cases(), st.randoms(use_true_random=False))
def test_query_order_does_not_matter(case, rnd):
    qrels, rankings = case
    keys = list(rankings)
    rnd.shuffle(keys)
    a = evaluate(qrels_from_dict(qrels), Run(rankings), ["ndcg@3", "map"]).records
    b = evaluate(
        qrels_from_dict(qrels), Run({k: rankings[k] for k in keys}), ["ndcg@3", "map"]
    ).records
    pd.testing.assert_frame_equal(a, b)
