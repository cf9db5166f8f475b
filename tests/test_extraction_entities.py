"""Mentions and relations: BIO tags against seqeval (default and strict), span sets against
scikit-learn, partial matching by hand, F1's document bootstrap, bad input."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("seqeval", reason="the extraction extra (pip install -e '.[extraction]')")

from seqeval import metrics as sq
from seqeval.metrics.sequence_labeling import get_entities
from seqeval.scheme import IOB2
from sklearn.metrics import precision_score, recall_score

from ragstat.api.verbs.extraction import extraction
from ragstat.errors import InputError
from ragstat.metrics.extraction import f1_bootstrap, relation_matches, span_matches, tag_matches

# CoNLL-style: items of one or two sentences; "I-PER" after "O" is a mention in default
# mode only; a wrong type, a wrong boundary, a miss and a spurious mention.
CONLL = {
    "s1": ([["B-PER", "I-PER", "O", "B-LOC"]], [["B-PER", "I-PER", "O", "B-LOC"]]),
    "s2": ([["O", "I-PER", "O"], ["B-ORG", "I-ORG"]], [["O", "B-PER", "O"], ["B-ORG", "O"]]),
    "s3": ([["B-MISC", "O", "B-LOC", "I-LOC"]], [["B-MISC", "O", "B-ORG", "I-ORG"]]),
    "s4": ([["O", "O", "B-PER"]], [["O", "O", "O"]]),
    "s5": ([["O", "B-LOC", "O"]], [["B-PER", "O", "B-LOC"]]),
}
REF = {k: v[1] for k, v in CONLL.items()}
PRED = {k: v[0] for k, v in CONLL.items()}
Y_TRUE = [s for k in CONLL for s in REF[k]]
Y_PRED = [s for k in CONLL for s in PRED[k]]


@pytest.mark.parametrize("mode", ["default", "strict"])
def test_tag_scores_equal_seqeval(mode):
    kw = {} if mode == "default" else {"mode": "strict", "scheme": IOB2}
    m = tag_matches(PRED, REF, mode=mode)
    assert m.precision == pytest.approx(sq.precision_score(Y_TRUE, Y_PRED, **kw), abs=1e-12)
    assert m.recall == pytest.approx(sq.recall_score(Y_TRUE, Y_PRED, **kw), abs=1e-12)
    assert m.f1 == pytest.approx(sq.f1_score(Y_TRUE, Y_PRED, **kw), abs=1e-12)
    report = sq.classification_report(Y_TRUE, Y_PRED, output_dict=True, zero_division=0, **kw)
    for kind in m.types:
        sub, want = m.of_type(kind), report[kind]
        assert np.nan_to_num(sub.precision) == pytest.approx(want["precision"], abs=1e-12)
        assert np.nan_to_num(sub.recall) == pytest.approx(want["recall"], abs=1e-12)
        assert sub.f1 == pytest.approx(want["f1-score"], abs=1e-12)
        assert len(sub.reference.item_ids) == want["support"]


def test_default_and_strict_differ_where_seqeval_says():
    default, strict = tag_matches(PRED, REF), tag_matches(PRED, REF, mode="strict")
    assert default.precision != strict.precision  # "I-PER" after "O" (item s2)


@pytest.mark.parametrize(
    ("tags", "match"),
    [(["X-PER"], "'bad'.*'X-PER'"), (["E-PER"], "'bad'.*'E-PER'.*IOB2"), (["B-"], "'B-'")],
)
def test_invalid_tags_name_the_item(tags, match):
    with pytest.raises(InputError, match=match):
        tag_matches({"bad": tags}, {"bad": ["O"]}, mode="strict")


def test_unknown_scheme_and_length_mismatch():
    with pytest.raises(InputError, match="unknown tag scheme 'BIO9'"):
        tag_matches(PRED, REF, mode="strict", scheme="BIO9")
    with pytest.raises(InputError, match=r"'x'.*sentence lengths"):
        tag_matches({"x": ["O", "O"]}, {"x": ["O"]})


SPANS_PRED = {
    "a": [[0, 4, "PER"], [10, 15, "LOC"], [20, 25, "ORG"]],
    "b": [{"start": 0, "end": 3, "type": "PER"}],
    "c": [],
}
SPANS_REF = {"a": [[0, 4, "PER"], [9, 15, "LOC"]], "b": [[0, 3, "LOC"]], "c": [[1, 2, "PER"]]}


def test_strict_spans_equal_scikit_learn_on_the_candidate_indicators():
    def keyset(side):
        return {(k, tuple(s) if isinstance(s, list) else (s["start"], s["end"], s["type"]))
                for k, v in side.items() for s in v}  # fmt: skip

    pred, ref = keyset(SPANS_PRED), keyset(SPANS_REF)
    every = sorted(pred | ref)
    y_pred, y_true = [c in pred for c in every], [c in ref for c in every]
    m = span_matches(SPANS_PRED, SPANS_REF)
    assert m.precision == pytest.approx(precision_score(y_true, y_pred), abs=1e-12)
    assert m.recall == pytest.approx(recall_score(y_true, y_pred), abs=1e-12)


def test_partial_spans_by_hand():
    m = span_matches(SPANS_PRED, SPANS_REF, mode="partial")
    # predicted: PER a ✓, LOC a (overlaps 9-15) ✓, ORG a ✗, PER b ✗ (type) → 2/4
    # reference: PER a ✓, LOC a ✓, LOC b ✗, PER c ✗ → 2/4
    assert (m.precision, m.recall) == (0.5, 0.5)
    assert span_matches(SPANS_PRED, SPANS_REF).precision == 0.25


@pytest.mark.parametrize(
    ("spans", "match"),
    [([[3, 1, "PER"]], "0 ≤ start < end"), ([[-1, 2, "PER"]], "0 ≤ start < end"),
     ([[0, 4, "PER"], [2, 6, "LOC"]], "overlap"), ([[0, 99, "PER"]], "ends past the text"),
     ([[0, 2]], "expected"), ([[0, 2, ""]], "type")],
)  # fmt: skip
def test_bad_spans_name_the_item(spans, match):
    with pytest.raises(InputError, match=f"'doc7'.*{match}"):
        span_matches({"doc7": spans}, {"doc7": []}, lengths={"doc7": 10})


def test_relations_exact_triples():
    pred = {"x": [["Ana", "born_in", "Porto"], ["Ana", "works_at", "IBM"]]}
    ref = {"x": [["Ana", "born_in", "Porto"], ["Rui", "born_in", "Braga"]]}
    m = relation_matches(pred, ref)
    assert (m.precision, m.recall, m.f1) == (0.5, 0.5, 0.5)
    assert m.of_type("born_in").precision == 1.0
    with pytest.raises(InputError, match=r"'x'.*twice"):
        relation_matches({"x": [["a", "r", "b"], ["a", "r", "b"]]}, ref)


def test_f1_bootstrap_resamples_documents():
    m = span_matches(SPANS_PRED, SPANS_REF)
    clusters = {"a": "D1", "b": "D2", "c": "D2"}
    lo, hi, k = f1_bootstrap(m, clusters, level=0.95, reps=4000, seed=3)
    assert k == 2  # documents, not items
    # D1 alone: P 1/3, R 1/2 → F1 0.4; D2 alone: no match → 0; both: 0.25/0.25 → 0.25
    assert (lo, hi) == (0.0, pytest.approx(0.4))
    again = f1_bootstrap(m, clusters, level=0.95, reps=4000, seed=3)
    assert again == (lo, hi, k)


def test_verb_units_give_the_corpus_ratio_and_document_clusters():
    rows = [
        {"id": k, "doc": "D1" if k in ("s1", "s2") else "D2", "tags_pred": PRED[k],
         "tags_ref": REF[k]} for k in CONLL
    ]  # fmt: skip
    r = extraction(rows, cluster_by="doc", seed=5, bootstrap_reps=199)
    p = r.scores["ner_precision"]
    assert p.mean == pytest.approx(sq.precision_score(Y_TRUE, Y_PRED), abs=1e-12)
    assert p.clusters == 2 and p.n == sum(len(get_entities(s)) for s in Y_PRED)
    assert r.f1["ner_f1"]["clusters"] == 2
    assert r.f1["ner_f1"]["estimate"] == pytest.approx(sq.f1_score(Y_TRUE, Y_PRED))
    assert r.inputs["tags"] == {"items": 5, "lacking": 0}
    with pytest.raises(InputError, match="'s1' has tags_pred but no tags_ref"):
        extraction([{"id": "s1", "tags_pred": ["O"]}])
