"""From a SourceTable to the per-query table: cluster choice, missing values, repeats."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from ragstat.adapters.base import SourceTable
from ragstat.adapters.units import INDEPENDENT, design_effect, to_units
from ragstat.errors import InputError
from ragstat.inference.components import nested_components

NAN = float("nan")


def _table(rows, scores=("acc",)):
    frame = pd.DataFrame.from_records(rows)
    return SourceTable(frame=frame, scores=tuple(scores), tool="test", version=None, source="x")


def _rows():
    """Two systems; q1 has two repeats (one without a score); q4 lacks a source document."""
    base = [
        ("q1", 0, 1.0, "d1", ["a", "b"]),
        ("q1", 1, NAN, "d1", ["a", "b"]),
        ("q2", 0, 0.0, "d1", ["b", "c"]),
        ("q3", 0, 1.0, "d2", ["d"]),
        ("q4", 0, 0.5, None, ["c"]),
    ]
    return [
        {
            "system": s,
            "item_id": q,
            "repeat": r,
            "acc": v,
            "meta_source_doc": doc,
            "meta_vars.doc": doc,
            "reference_ids": refs,
        }
        for s in ("A", "B")
        for q, r, v, doc, refs in base
    ]


def _docs(units, system="A"):
    f = units.frame[units.frame["system"] == system]
    return dict(zip(f["query_id"], f["doc_id"], strict=True))


def test_default_is_independent_items_with_the_design_effect_and_suggestions():
    u = to_units(_table(_rows()))
    assert u.independent and u.cluster == INDEPENDENT and u.excluded == 0
    assert _docs(u) == {"q1": "q1", "q2": "q2", "q3": "q3", "q4": "q4"}
    text = " ".join(u.notes)
    assert "items treated as independent" in text
    for factor in ("1.18", "1.48", "1.38", "1.92"):
        assert factor in text
    assert "--cluster-by meta_source_doc" in text
    assert "first-reference" in text and "component" in text
    assert design_effect(5, 0.1) == pytest.approx(math.sqrt(1.4))


def test_no_suggestion_when_nothing_looks_like_a_document():
    rows = [{"system": "A", "item_id": f"q{i}", "repeat": 0, "acc": 1.0, "meta_lang": "en"}
            for i in range(3)]  # fmt: skip
    notes = " ".join(to_units(_table(rows)).notes)
    assert "--cluster-by" not in notes and "first-reference" not in notes


def test_item_means_are_nan_aware_and_count_repeats():
    u = to_units(_table(_rows()), cluster_by="source_doc")
    f = u.frame.set_index(["system", "query_id"])
    assert list(u.frame.columns[:3]) == ["query_id", "doc_id", "system"]
    assert f.loc[("A", "q1"), "acc"] == 1.0 and f.loc[("A", "q1"), "meta_n_repeats"] == 2
    assert f.loc[("B", "q2"), "meta_source_doc"] == "d1"
    assert u.frame["meta_n_repeats"].dtype.kind == "i"
    assert any("2 of 8 repeats have no score" in n for n in u.notes)


@pytest.mark.parametrize("name", ["source_doc", "meta_source_doc"])
def test_cluster_by_a_field_with_or_without_the_prefix(name):
    u = to_units(_table(_rows()), cluster_by=name)
    assert not u.independent
    assert u.cluster == "documents from field meta_source_doc (2 documents)"
    assert _docs(u) == {"q1": "d1", "q2": "d1", "q3": "d2"}
    assert u.excluded == 1 and "1 of 4 items have no meta_source_doc; excluded" in u.notes
    assert set(u.repeats["item_id"]) == {"q1", "q2", "q3"} and "doc_id" in u.repeats


def test_cluster_by_a_dotted_flattened_name():
    u = to_units(_table(_rows()), cluster_by="vars.doc")
    assert u.cluster.startswith("documents from field meta_vars.doc")


def test_unknown_field_lists_the_nearest_names():
    with pytest.raises(InputError, match="no such field; nearest: meta_source_doc"):
        to_units(_table(_rows()), cluster_by="sorce_doc")


def test_first_reference_rule():
    u = to_units(_table(_rows()), rule="first-reference")
    assert _docs(u) == {"q1": "a", "q2": "b", "q3": "d", "q4": "c"}
    assert u.cluster == "first reference document of each item (4 documents)"


def test_component_rule_joins_items_sharing_any_reference():
    u = to_units(_table(_rows()), rule="component")
    # q1 {a, b} – q2 {b, c} – q4 {c} form one group (labelled by its smallest id, a)
    assert _docs(u) == {"q1": "a", "q2": "a", "q3": "d", "q4": "a"}
    assert u.cluster.startswith("groups of items sharing reference documents")
    assert "(2 groups)" in u.cluster


def test_items_without_references_are_missing_for_the_rules():
    rows = _rows()
    for r in rows:
        if r["item_id"] == "q3":
            r["reference_ids"] = []
    u = to_units(_table(rows), rule="component")
    assert u.excluded == 1 and "q3" not in set(u.frame["query_id"])
    with pytest.raises(
        InputError, match=r"1 of 4 items have no reference document ids \(e.g. item q3\)"
    ):
        to_units(_table(rows), rule="first-reference", on_missing="error")


def test_missing_cluster_values_as_error():
    with pytest.raises(
        InputError,
        match=r"1 of 4 items have no meta_source_doc \(e.g. item q4\); use --missing-cluster exclude",
    ):
        to_units(_table(_rows()), cluster_by="source_doc", on_missing="error")


@pytest.mark.parametrize("blank", [None, NAN, "", "  "])
def test_none_nan_and_empty_text_are_missing(blank):
    rows = _rows()
    for r in rows:
        if r["item_id"] == "q3":
            r["meta_source_doc"] = blank
    assert to_units(_table(rows), cluster_by="source_doc").excluded == 2


def test_an_item_needs_one_cluster():
    rows = _rows()
    rows[1]["meta_source_doc"] = "d9"  # q1's second repeat names another document
    with pytest.raises(InputError, match="item 'q1' has more than one meta_source_doc"):
        to_units(_table(rows), cluster_by="source_doc")


def test_an_item_needs_one_first_reference():
    rows = _rows()
    rows[1]["reference_ids"] = ["z"]
    with pytest.raises(InputError, match="item 'q1'"):
        to_units(_table(rows), rule="first-reference")


def test_duplicate_rows_are_named():
    rows = _rows()
    rows.append(dict(rows[2]))
    with pytest.raises(InputError, match="system 'A', item 'q2', repeat 0 appears more than once"):
        to_units(_table(rows))


@pytest.mark.parametrize("scores", [(), ("acc",)])
def test_no_scores_at_all(scores):
    rows = [{**r, "acc": NAN} for r in _rows()]
    with pytest.raises(InputError, match="no scores"):
        to_units(_table(rows, scores=scores))


def test_an_empty_score_is_left_out_with_a_note():
    rows = [{**r, "f1": NAN} for r in _rows()]
    u = to_units(_table(rows, scores=("acc", "f1")))
    assert u.scores == ("acc",) and "f1" not in u.frame
    assert "score f1 has no values; left out" in u.notes


@pytest.mark.parametrize(
    "kwargs, words",
    [
        ({"cluster_by": "source_doc", "rule": "component"}, "not both"),
        ({"rule": "nearest"}, "unknown; use one of first-reference, component"),
        ({"on_missing": "drop"}, "on_missing"),
    ],
)
def test_bad_arguments(kwargs, words):
    with pytest.raises(InputError, match=words):
        to_units(_table(_rows()), **kwargs)


def test_rules_need_reference_ids():
    rows = [{k: v for k, v in r.items() if k != "reference_ids"} for r in _rows()]
    with pytest.raises(InputError, match="no reference document ids"):
        to_units(_table(rows), rule="component")


def test_repeats_feed_the_variance_components():
    rng = np.random.default_rng(0)
    rows = [
        {
            "system": "A",
            "item_id": f"q{d}-{i}",
            "repeat": r,
            "acc": float(rng.normal()),
            "meta_doc": f"d{d}",
        }
        for d in range(4)
        for i in range(3)
        for r in range(2)
    ]
    u = to_units(_table(rows), cluster_by="doc")
    vc = nested_components(u.repeats["acc"], u.repeats["doc_id"], u.repeats["item_id"])
    assert (vc.n_documents, vc.n_items, vc.n_repeats) == (4, 12, 2.0)
