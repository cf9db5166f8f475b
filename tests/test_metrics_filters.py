"""Filter false exclusion with entitlement kept apart from relevance predicates (seed 004 part 5)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from ragstat.errors import InputError
from ragstat.metrics.filters import (
    DocumentExclusions,
    FalseExclusion,
    RecallAtK,
    document_exclusions,
    false_exclusion,
    predicate_precision_recall,
    recall_at_k_correct,
    recall_at_k_filtered_gold,
    select_ids,
)

# seed 004, "A taxa de falsa exclusão pelo filtro": the worked example, verbatim
DOCS = [
    {"id": "d1", "tenant": "acme", "locale": "en-US"},
    {"id": "d2", "tenant": "acme", "locale": "en-GB"},
    {"id": "d3", "tenant": "globex", "locale": "en-US"},
    {"id": "d4", "tenant": "acme", "locale": "en-US"},
    {"id": "d5", "tenant": "acme", "locale": "de-DE"},
    {"id": "d6", "tenant": "acme", "locale": "fr-FR"},
]
QUERIES = [
    {"qid": "q1", "gold": {"d2"}, "filter": lambda d: d["locale"] == "en-US"},
    {"qid": "q2", "gold": {"d4"}, "filter": lambda d: d["tenant"] == "acme"},
    {"qid": "q3", "gold": {"d6"}, "filter": lambda d: d["locale"] == "en-US"},
    {"qid": "q4", "gold": {"d5"}, "filter": lambda d: d["locale"] == "de-DE"},
]


def seed_rate(queries, eligible_docs):
    """The seed's filter_false_exclusion_rate, verbatim."""
    n_with_gold, n_excluded = 0, 0
    eligible_ids = {d["id"] for d in eligible_docs}
    for q in queries:
        eligible_gold = q["gold"] & eligible_ids
        if not eligible_gold:
            continue
        n_with_gold += 1
        survivors = {d["id"] for d in eligible_docs if q["filter"](d)}
        if not (eligible_gold & survivors):
            n_excluded += 1
    if not n_with_gold:
        raise ValueError("false-exclusion rate needs queries with eligible gold")
    return n_excluded / n_with_gold, n_with_gold


def seed_standard_recall(queries, eligible_docs, k=10):
    """The seed's standard_recall_at_k, verbatim."""
    recalls = []
    eligible_ids = {d["id"] for d in eligible_docs}
    for q in queries:
        eligible_gold = q["gold"] & eligible_ids
        if not eligible_gold:
            continue
        survivors = [d for d in eligible_docs if q["filter"](d)][:k]
        survivor_ids = {d["id"] for d in survivors}
        recalls.append(len(eligible_gold & survivor_ids) / len(eligible_gold))
    return sum(recalls) / len(recalls) if recalls else 0.0


def seed_invalid_recall(queries, eligible_docs, k=10):
    """The seed's invalid_recall_over_filtered_gold, verbatim."""
    recalls = []
    all_doc_ids = {d["id"] for d in eligible_docs}
    for q in queries:
        all_survivors = {d["id"] for d in eligible_docs if q["filter"](d)}
        filtered_gold = q["gold"] & all_doc_ids & all_survivors
        if not filtered_gold:
            continue
        top_k_ids = set(list(all_survivors)[:k])
        recalls.append(len(filtered_gold & top_k_ids) / len(filtered_gold))
    return sum(recalls) / len(recalls) if recalls else 0.0


def model(docs, queries, tenant="acme"):
    """(gold, entitlement, predicate survivors, survivor run in corpus order) for our API."""
    entitled = select_ids(docs, lambda d: d["tenant"] == tenant)
    gold = {q["qid"]: q["gold"] for q in queries}
    passed = {q["qid"]: select_ids(docs, q["filter"]) for q in queries}
    # demo only, as in the seed: the entitled survivors stand in for a ranked run
    run = {
        q["qid"]: [d["id"] for d in docs if d["id"] in entitled and q["filter"](d)] for q in queries
    }
    return gold, entitled, passed, run


def test_seed_004_false_exclusion_worked_example():
    gold, entitled, passed, _ = model(DOCS, QUERIES)
    assert entitled == {"d1", "d2", "d4", "d5", "d6"}  # the tenant check removes d3: correct
    fe = false_exclusion(gold, entitled, passed)
    assert isinstance(fe, FalseExclusion)
    assert fe.rate == 0.5  # filter_false_exclusion_rate = 50.00 %
    assert f"{fe.rate:.2%}" == "50.00%"
    assert fe.eligible_query_count == 4  # eligible queries = 4 / 4
    assert fe.query_ids == ("q1", "q2", "q3", "q4")
    assert fe.excluded.tolist() == [
        True,
        False,
        True,
        False,
    ]  # the predicate removed q1's, q3's gold
    assert fe.n_eligible_gold.tolist() == [1, 1, 1, 1]
    assert fe.n_excluded_gold.tolist() == [1, 0, 1, 0]
    assert fe.document_rate == 0.5
    assert fe.no_gold == () and fe.unentitled_gold_only == ()
    assert (fe.rate, fe.eligible_query_count) == seed_rate(
        QUERIES, [d for d in DOCS if d["tenant"] == "acme"]
    )


def test_seed_004_correct_recall_50_and_filtered_gold_100():
    gold, entitled, passed, run = model(DOCS, QUERIES)
    correct = recall_at_k_correct(gold, entitled, run, k=10)
    assert isinstance(correct, RecallAtK) and correct.valid
    assert correct.mean == 0.5  # standard recall@10 = 50.00 %
    assert correct.recall.tolist() == [0.0, 1.0, 0.0, 1.0]
    assert correct.query_ids == ("q1", "q2", "q3", "q4")
    assert (
        correct.dropped == () and correct.missing_run == () and correct.unentitled_retrieved == ()
    )
    invalid = recall_at_k_filtered_gold(gold, entitled, passed, run, k=10)
    assert not invalid.valid
    assert invalid.mean == 1.0  # INVALID recall (filtered gold) = 100.00 %
    assert invalid.query_ids == ("q2", "q4")
    assert invalid.dropped == ("q1", "q3")  # exactly the falsely excluded queries vanish
    acme = [d for d in DOCS if d["tenant"] == "acme"]
    assert correct.mean == seed_standard_recall(QUERIES, acme)
    assert invalid.mean == seed_invalid_recall(QUERIES, acme)


def test_seed_004_per_document_exclusions():
    gold, entitled, passed, _ = model(DOCS, QUERIES)
    de = document_exclusions(gold, entitled, passed)
    assert isinstance(de, DocumentExclusions)
    assert de.doc_ids == ("d2", "d4", "d5", "d6")
    assert de.n_eligible.tolist() == [1, 1, 1, 1]
    assert de.n_excluded.tolist() == [1, 0, 0, 1]
    assert de.rate == 0.5


@pytest.mark.parametrize("seed", range(30))
def test_matches_the_seed_reference_on_random_instances(seed):
    rng = np.random.default_rng(seed)
    locales = ["en-US", "en-GB", "de-DE"]
    docs = [
        {
            "id": f"d{i}",
            "tenant": str(rng.choice(["acme", "globex"])),
            "locale": str(rng.choice(locales)),
        }
        for i in range(10)
    ]
    queries = []
    for j in range(8):
        want = str(rng.choice(locales))
        gold = {f"d{i}" for i in rng.choice(10, int(rng.integers(0, 3)), replace=False)}
        queries.append({"qid": f"q{j}", "gold": gold, "filter": lambda d, w=want: d["locale"] == w})
    gold, entitled, passed, run = model(docs, queries)
    acme = [d for d in docs if d["tenant"] == "acme"]
    try:
        want_rate = seed_rate(queries, acme)
    except ValueError:
        with pytest.raises(InputError, match="no eligible query"):
            false_exclusion(gold, entitled, passed)
        return
    fe = false_exclusion(gold, entitled, passed)
    assert (fe.rate, fe.eligible_query_count) == want_rate
    assert recall_at_k_correct(gold, entitled, run).mean == pytest.approx(
        seed_standard_recall(queries, acme), abs=1e-15
    )
    if any(g & entitled & passed[q] for q, g in gold.items()):
        invalid = recall_at_k_filtered_gold(gold, entitled, passed, run).mean
        assert invalid == pytest.approx(seed_invalid_recall(queries, acme), abs=1e-15)


def test_entitlement_is_not_a_false_exclusion():
    gold, entitled, passed, run = model(DOCS, QUERIES)
    en_us = select_ids(DOCS, lambda d: d["locale"] == "en-US")
    gold |= {"q5": {"d3"}, "q6": {"d2", "d3"}, "q7": set()}
    passed |= {"q5": en_us, "q6": en_us, "q7": en_us}
    fe = false_exclusion(gold, entitled, passed)
    assert fe.unentitled_gold_only == ("q5",)  # only another tenant's gold: not in the denominator
    assert fe.no_gold == ("q7",)
    # q6: d3 passes the predicate but is not entitled, so it cannot rescue the query
    assert fe.query_ids[-1] == "q6" and fe.excluded[-1] and fe.n_eligible_gold[-1] == 1
    assert fe.rate == 3 / 5
    # a run that leaks another tenant's gold: flagged, and never counted as a hit
    run |= {"q6": ["d3", "d1"]}
    rec = recall_at_k_correct(gold, entitled, run)
    assert rec.unentitled_retrieved == ("q6",)
    assert rec.recall[rec.query_ids.index("q6")] == 0.0
    assert rec.dropped == ("q5", "q7")


def test_partial_exclusion_and_per_query_entitlement():
    gold = {"a": {"x", "y"}, "b": {"y"}}
    entitlement = {"a": {"x", "y"}, "b": {"y", "z"}}
    passed = {"a": {"x"}, "b": {"y"}}
    fe = false_exclusion(gold, entitlement, passed)
    assert fe.excluded.tolist() == [False, False]  # the query-level rate counts catastrophic loss
    assert fe.any_excluded.tolist() == [True, False]
    assert fe.n_excluded_gold.tolist() == [1, 0]
    assert fe.rate == 0.0 and fe.document_rate == 1 / 3
    de = document_exclusions(gold, entitlement, passed)
    assert de.doc_ids == ("x", "y") and de.n_eligible.tolist() == [1, 2]
    assert de.n_excluded.tolist() == [0, 1]
    rec = recall_at_k_correct(gold, entitlement, {"a": ["x", "w", "y"]}, k=2)
    assert rec.recall.tolist() == [0.5, 0.0] and rec.n_hit.tolist() == [1, 0]
    assert rec.n_gold.tolist() == [2, 1] and rec.missing_run == ("b",)


def test_qrels_style_gold_keeps_positive_grades():
    qrels = {"q1": {"d2": 1, "d1": 0}, "q2": {"d4": 2}}
    fe = false_exclusion(qrels, {"d1", "d2", "d4"}, {"q1": {"d1"}, "q2": {"d4"}})
    assert fe.n_eligible_gold.tolist() == [1, 1] and fe.excluded.tolist() == [True, False]
    with pytest.raises(InputError, match="grades must be numbers"):
        false_exclusion({"q1": {"d2": "1"}}, {"d2"}, {"d2"})


def test_empty_denominator_raises():
    for gold in ({"q1": {"d3"}}, {"q1": set()}, {}):
        for fn in (false_exclusion, document_exclusions):
            with pytest.raises(InputError, match="no eligible query"):
                fn(gold, {"d1"}, {"d1"})
        with pytest.raises(InputError, match="no eligible query"):
            recall_at_k_correct(gold, {"d1"}, {"q1": ["d1"]})
    with pytest.raises(InputError, match="no query keeps a gold document after filtering"):
        recall_at_k_filtered_gold({"q1": {"d2"}}, {"d2"}, {"q1": {"d1"}}, {"q1": ["d1"]})


def test_bad_input_is_rejected():
    gold, entitled, passed, run = model(DOCS, QUERIES)
    with pytest.raises(InputError, match=r"passed .* has no entry for query 'q3'"):
        false_exclusion(gold, entitled, {q: s for q, s in passed.items() if q != "q3"})
    with pytest.raises(InputError, match="entitlement has no entry for query 'q1'"):
        false_exclusion(gold, {"q2": entitled}, passed)
    with pytest.raises(InputError, match="collection of document ids"):
        false_exclusion(gold, "d1", passed)
    with pytest.raises(InputError, match="must be strings"):
        false_exclusion({"q1": [1]}, entitled, passed)
    with pytest.raises(InputError, match="run, query 'q2': a document id appears more than once"):
        recall_at_k_correct(gold, entitled, {**run, "q2": ["d4", "d4"]})
    for k in (0, -1, 2.0, True):
        with pytest.raises(InputError, match="k must be a positive integer"):
            recall_at_k_correct(gold, entitled, run, k=k)
    with pytest.raises(InputError, match="run must be a mapping"):
        recall_at_k_correct(gold, entitled, [["d1"]])


def test_results_are_frozen_and_read_only():
    gold, entitled, passed, run = model(DOCS, QUERIES)
    fe = false_exclusion(gold, entitled, passed)
    rec = recall_at_k_correct(gold, entitled, run)
    with pytest.raises(dataclasses.FrozenInstanceError):
        fe.query_ids = ()
    for arr in (fe.n_eligible_gold, fe.n_excluded_gold, fe.excluded, rec.recall, rec.n_hit):
        assert not arr.flags.writeable
    assert fe.excluded.dtype == bool and rec.recall.dtype == np.float64


def test_predicate_precision_recall():
    correct = {
        "q1": {"locale": "en-GB"},
        "q2": {"tenant": "acme"},
        "q3": {"locale": "fr-FR", "product": "Y"},
        "q4": {"locale": "de-DE"},
    }
    predicted = {
        "q1": {"locale": "en-US"},  # right field, wrong value: one FP and one FN
        "q2": {"tenant": "acme"},
        "q3": {"product": "Y"},
        "q9": {"locale": "en-US"},  # unlabelled: ignored
    }
    pr = predicate_precision_recall(predicted, correct)
    assert pr.query_ids == ("q1", "q2", "q3", "q4")
    assert pr.tp.tolist() == [0, 1, 1, 0]
    assert pr.fp.tolist() == [1, 0, 0, 0]
    assert pr.fn.tolist() == [1, 0, 1, 1]
    assert pr.exact.tolist() == [False, True, False, False]
    assert pr.missing == ("q4",)
    assert pr.precision == 2 / 3 and pr.recall == 2 / 5
    assert pr.f1 == pytest.approx(0.5, abs=1e-15)
    assert pr.exact_match_rate == 0.25
    # set-valued clauses compare as sets
    same = predicate_precision_recall({"q": {"locale": ["a", "b"]}}, {"q": {"locale": {"b", "a"}}})
    assert same.exact.tolist() == [True]


def test_predicate_precision_recall_empty_denominators():
    pr = predicate_precision_recall({}, {"q1": {"locale": "en-US"}})
    assert pr.recall == 0.0
    with pytest.raises(InputError, match="no predicted clause"):
        _ = pr.precision
    empty = predicate_precision_recall({"q1": {"x": 1}}, {"q1": {}})
    assert empty.precision == 0.0
    with pytest.raises(InputError, match="no labelled clause"):
        _ = empty.recall
    with pytest.raises(InputError, match="no labelled query"):
        predicate_precision_recall({}, {})
    with pytest.raises(InputError, match="must be a mapping field"):
        predicate_precision_recall({"q1": ["locale"]}, {"q1": {"locale": "x"}})
