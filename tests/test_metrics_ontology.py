"""Ontology-layer metrics (seed 004 part 7, issue 7 part 2): hand-checked values."""

from __future__ import annotations

import dataclasses

import numpy as np
import pydantic
import pytest

from ragstat.errors import InputError
from ragstat.metrics.ontology import (
    Taxonomy,
    entity_linking,
    hierarchical_prf,
    hierarchy_confusion,
    schema_validity,
    vocabulary_conformance,
    wu_palmer,
)

# The seed's diagram: Sedan shares two of its three nodes with Hatchback, Submarine only the root.
SEED_EDGES = [
    ("Vehicle", "Car"),
    ("Car", "Sedan"),
    ("Car", "Hatchback"),
    ("Vehicle", "Watercraft"),
    ("Watercraft", "Submarine"),
]


@pytest.fixture
def seed_tax() -> Taxonomy:
    return Taxonomy.from_edges(SEED_EDGES)


# A small DAG: Thing → {Animal, Machine}; Animal → {Dog, Cat}; Dog → Puppy;
# Machine → Robot; Animal → RoboDog ← Robot (two parents, two LCA candidates).
DAG = {
    "Thing": ["Animal", "Machine"],
    "Animal": ["Dog", "Cat", "RoboDog"],
    "Dog": ["Puppy"],
    "Machine": ["Robot"],
    "Robot": ["RoboDog"],
}


@pytest.fixture
def dag() -> Taxonomy:
    return Taxonomy.from_dict(DAG)


# -- seed worked example -----------------------------------------------------
def test_seed_sedan_scores_higher_than_submarine(seed_tax):
    pred, gold = {"near": "Sedan", "far": "Submarine"}, {"near": "Hatchback", "far": "Hatchback"}
    h = hierarchical_prf(seed_tax, pred, gold)
    assert h.overlap.tolist() == [2, 1]  # two of three nodes vs only the root
    assert h.n_predicted.tolist() == [3, 3]
    np.testing.assert_allclose(h.hp, [2 / 3, 1 / 3])
    np.testing.assert_allclose(h.hr, [2 / 3, 1 / 3])
    np.testing.assert_allclose(h.hf1, [2 / 3, 1 / 3])
    assert h.precision == h.recall == h.f1 == pytest.approx(0.5)  # 3 / 6 micro
    w = wu_palmer(seed_tax, pred, gold)
    np.testing.assert_allclose(w.similarity, [2 * 2 / 6, 2 * 1 / 6])  # root depth 1
    assert w.lca == ("Car", "Vehicle")
    c = hierarchy_confusion(seed_tax, pred, gold)
    assert c.records() == {"near": "sibling", "far": "other"}


# -- taxonomy validation -----------------------------------------------------
def test_taxonomy_depth_ancestors_and_lookups(dag):
    assert dag.depth("Thing") == 1
    assert dag.depth("Puppy") == 4
    assert dag.depth("RoboDog") == 4  # longest path Thing → Machine → Robot → RoboDog
    assert dag.ancestors("RoboDog") == {"RoboDog", "Animal", "Robot", "Machine", "Thing"}
    assert dag.ancestors("Dog", include_self=False) == {"Animal", "Thing"}
    assert dag.roots == {"Thing"}
    assert len(dag) == 8 and "Cat" in dag and "Bird" not in dag


def test_cycle_rejected_naming_it():
    with pytest.raises(InputError, match="cycle"):
        Taxonomy.from_edges([("A", "B"), ("B", "C"), ("C", "A")])
    with pytest.raises(InputError, match="cycle"):
        Taxonomy.from_edges([("A", "A")])


@pytest.mark.parametrize(
    "bad",
    [[], [("A", 3)], [("A",)], [("", "B")]],
)
def test_bad_taxonomy_input(bad):
    with pytest.raises(InputError):
        Taxonomy.from_edges(bad)


def test_from_dict_rejects_string_children():
    with pytest.raises(InputError, match="children"):
        Taxonomy.from_dict({"A": "B"})


def test_unknown_node_is_named(seed_tax):
    with pytest.raises(InputError, match="'Bicycle'"):
        hierarchical_prf(seed_tax, {"q": "Bicycle"}, {"q": "Sedan"})
    with pytest.raises(InputError, match="'Tank'"):
        wu_palmer(seed_tax, {"q": "Sedan"}, {"q": "Tank"})
    with pytest.raises(InputError, match="'Tank'"):
        seed_tax.depth("Tank")


# -- hierarchical P/R/F1 -----------------------------------------------------
def test_hierarchical_prf_hand_checked(dag):
    pred = {"q1": "Puppy", "q2": "Cat", "q3": ["Dog", "Robot"], "q4": "Thing"}
    gold = {"q1": "Dog", "q2": "RoboDog", "q3": "RoboDog", "q4": "Cat", "q5": "Cat"}
    h = hierarchical_prf(dag, pred, gold)
    # q1: P̂={Puppy,Dog,Animal,Thing} T={Dog,Animal,Thing} → 3/4, 3/3
    # q2: P̂={Cat,Animal,Thing} T={RoboDog,Animal,Robot,Machine,Thing} → 2/3, 2/5
    # q3: P̂={Dog,Animal,Thing,Robot,Machine} T as q2 → 4/5, 4/5
    # q4: P̂={Thing} T={Cat,Animal,Thing} → 1/1, 1/3
    # q5: missing → P̂=∅, T={Cat,Animal,Thing} → NaN, 0
    assert h.overlap.tolist() == [3, 2, 4, 1, 0]
    assert h.n_predicted.tolist() == [4, 3, 5, 1, 0]
    assert h.n_gold.tolist() == [3, 5, 5, 3, 3]
    np.testing.assert_allclose(h.hp, [3 / 4, 2 / 3, 4 / 5, 1, np.nan])
    np.testing.assert_allclose(h.hr, [1, 2 / 5, 4 / 5, 1 / 3, 0])
    np.testing.assert_allclose(h.hf1, [6 / 7, 4 / 8, 8 / 10, 2 / 4, 0])
    assert h.precision == pytest.approx(10 / 13)
    assert h.recall == pytest.approx(10 / 19)
    p, r = 10 / 13, 10 / 19
    assert h.f1 == pytest.approx(2 * p * r / (p + r))
    assert h.missing == ("q5",)
    assert h.records("hr")["q4"] == pytest.approx(1 / 3)


def test_hierarchical_prf_exclude_roots(seed_tax):
    h = hierarchical_prf(seed_tax, {"q": "Submarine"}, {"q": "Hatchback"}, exclude_roots=True)
    assert (h.overlap[0], h.n_predicted[0], h.n_gold[0]) == (0, 2, 2)
    assert h.precision == 0.0 and h.f1 == 0.0


def test_hierarchical_empty_denominators(seed_tax):
    with pytest.raises(InputError, match="empty denominator"):
        hierarchical_prf(seed_tax, {}, {})
    h = hierarchical_prf(seed_tax, {}, {"q": "Sedan"})
    assert h.recall == 0.0
    with pytest.raises(InputError, match="precision: empty denominator"):
        _ = h.precision
    with pytest.raises(InputError):
        h.records("accuracy")


# -- Wu–Palmer ----------------------------------------------------------------
def test_wu_palmer_hand_checked(dag):
    pred = {"same": "Dog", "anc": "Animal", "dag": "Puppy", "mach": "Robot"}
    gold = {"same": "Dog", "anc": "Puppy", "dag": "RoboDog", "mach": "RoboDog", "gone": "Cat"}
    w = wu_palmer(dag, pred, gold)
    # anc: LCA Animal (2) → 2·2/(2+4); dag: LCA Animal → 2·2/(4+4);
    # mach: LCA Robot (3), RoboDog depth 4 (longest path) → 2·3/(3+4); gone: missing → 0
    np.testing.assert_allclose(w.similarity, [1.0, 4 / 6, 4 / 8, 6 / 7, 0.0])
    assert w.lca == ("Dog", "Animal", "Animal", "Robot", None)
    assert w.missing == ("gone",)
    assert w.mean == pytest.approx((1 + 4 / 6 + 4 / 8 + 6 / 7) / 5)


def test_wu_palmer_deepest_lca_and_disjoint_roots():
    t = Taxonomy.from_edges(
        [("R", "A"), ("R", "B"), ("B", "B2"), ("A", "X"), ("B2", "X"), ("A", "Y"), ("B2", "Y")]
    )
    # X and Y share A (depth 2) and B2 (depth 3): the deepest, B2, is the LCA.
    assert t.lca("X", "Y") == "B2"
    assert t.wu_palmer("X", "Y") == pytest.approx(2 * 3 / (4 + 4))
    forest = Taxonomy.from_edges([("R1", "a"), ("R2", "b")])
    assert forest.lca("a", "b") is None and forest.wu_palmer("a", "b") == 0.0


def test_wu_palmer_rejects_multilabel(seed_tax):
    with pytest.raises(InputError, match="one node"):
        wu_palmer(seed_tax, {"q": ["Sedan"]}, {"q": "Sedan"})


# -- confusion shares ---------------------------------------------------------
def test_hierarchy_confusion_shares(dag):
    pred = {
        "ok": "Cat",
        "sib": "Cat",
        "par": "Dog",
        "anc": "Animal",
        "desc": "Puppy",
        "oth": "Robot",
        "lin": "Robot",
    }
    gold = {
        "ok": "Cat",
        "sib": "Dog",
        "par": "Puppy",
        "anc": "Puppy",
        "desc": "Animal",
        "oth": "Cat",
        "lin": "RoboDog",
        "none": "Dog",
    }
    c = hierarchy_confusion(dag, pred, gold)
    assert c.relation.tolist() == [
        "correct",
        "sibling",
        "parent",
        "ancestor",
        "descendant",
        "other",
        "parent",
        "missing",
    ]
    assert c.n_errors == 6 and c.missing == ("none",)
    assert c.shares == pytest.approx(
        {"parent": 2 / 6, "ancestor": 1 / 6, "descendant": 1 / 6, "sibling": 1 / 6, "other": 1 / 6}
    )
    assert sum(c.shares.values()) == pytest.approx(1.0)


def test_lineage_wins_over_sibling():
    t = Taxonomy.from_edges([("A", "B"), ("A", "C"), ("B", "C")])
    assert t.relation("B", "C") == "parent"  # also a sibling (both children of A)
    assert t.relation("C", "B") == "descendant"


def test_confusion_without_errors_raises(seed_tax):
    c = hierarchy_confusion(seed_tax, {"q": "Sedan"}, {"q": "Sedan"})
    with pytest.raises(InputError, match="no wrong prediction"):
        _ = c.shares


# -- entity linking with NIL --------------------------------------------------
def test_entity_linking_counts_and_nil():
    gold = {
        "d1": {(0, 7): "Q18216", (10, 15): "B737", (20, 25): None, (30, 33): "NIL"},
        "d2": {(0, 4): "Q1", (5, 9): "Q2", (12, 14): None},
    }
    pred = {
        # correct, wrong entity, over-link, correct NIL, spurious link
        "d1": {(0, 7): "Q18216", (10, 15): "B747", (20, 25): "Q5", (30, 33): None, (40, 44): "Q9"},
        # missed by NIL, missed (absent), gold NIL absent, spurious NIL
        "d2": {(0, 4): "NIL", (50, 52): None},
    }
    e = entity_linking(pred, gold)
    assert e.correct.tolist() == [1, 0]
    assert e.wrong.tolist() == [1, 0]
    assert e.missed.tolist() == [0, 2]
    assert e.over_linked.tolist() == [1, 0]
    assert e.correct_nil.tolist() == [1, 0]
    assert e.predicted_entities.tolist() == [4, 0]
    assert e.gold_entities.tolist() == [2, 2]
    assert e.predicted_nil.tolist() == [1, 2]
    assert e.gold_nil.tolist() == [2, 1]
    assert e.precision == pytest.approx(1 / 4)
    assert e.recall == pytest.approx(1 / 4)
    assert e.f1 == pytest.approx(1 / 4)
    assert e.nil_precision == pytest.approx(1 / 3)
    assert e.nil_recall == pytest.approx(1 / 3)
    assert e.over_link_rate == pytest.approx(1 / 3)
    assert e.disambiguation_accuracy == pytest.approx(1 / 2)
    assert e.records("missed") == {"d1": 0, "d2": 2}


def test_entity_linking_empty_denominators():
    e = entity_linking({"d": {"m": "Q1"}}, {"d": {"m": "Q1"}})
    assert e.precision == e.recall == 1.0
    with pytest.raises(InputError, match="NIL recall: empty denominator"):
        _ = e.nil_recall
    with pytest.raises(InputError):
        entity_linking({}, {})
    with pytest.raises(InputError, match="string or None"):
        entity_linking({}, {"d": {"m": 3}})


# -- schema validity and vocabulary -------------------------------------------
JSON_SCHEMA = {
    "type": "object",
    "properties": {"entity": {"type": "string"}, "score": {"type": "integer"}},
    "required": ["entity", "score"],
    "additionalProperties": False,
}


class Answer(pydantic.BaseModel):
    entity: str
    score: int


OUTPUTS = {
    "ok_text": '{"entity": "Q1", "score": 3}',
    "ok_obj": {"entity": "Q2", "score": 1},
    "bad_json": '{"entity": "Q1", ',
    "coerced": '{"entity": "Q1", "score": "3"}',
    "missing": b'{"entity": "Q1"}',
}


@pytest.mark.parametrize("schema", [JSON_SCHEMA, Answer])
def test_schema_validity_keeps_reasons(schema):
    s = schema_validity(OUTPUTS, schema)
    assert s.valid.tolist() == [True, True, False, False, False]
    assert s.rate == pytest.approx(2 / 5)
    assert set(s.invalid) == {"bad_json", "coerced", "missing"}
    assert s.invalid["bad_json"].startswith("not valid JSON")
    assert "score" in s.invalid["coerced"]
    assert "score" in s.invalid["missing"]
    assert s.records()["ok_obj"] == 1.0


def test_schema_validity_bad_input():
    with pytest.raises(InputError, match="empty denominator"):
        schema_validity({}, JSON_SCHEMA)
    with pytest.raises(InputError, match="schema itself"):
        schema_validity({"a": "{}"}, {"type": "no-such-type"})
    with pytest.raises(InputError, match="pydantic"):
        schema_validity({"a": "{}"}, int)
    lax = schema_validity({"c": OUTPUTS["coerced"]}, Answer, strict=False)
    assert lax.rate == 1.0


def test_vocabulary_conformance(seed_tax):
    v = vocabulary_conformance(
        {"a": ["Sedan", "Car"], "b": ["Sedan", "Bicycle", "Bicycle"], "c": []}, seed_tax.nodes
    )
    assert v.n_named.tolist() == [2, 3, 0]
    assert v.n_valid.tolist() == [2, 1, 0]
    assert v.out_of_vocabulary == ((), ("Bicycle", "Bicycle"), ())
    assert v.rate == pytest.approx(3 / 5)
    np.testing.assert_allclose(v.item_rate, [1.0, 1 / 3, np.nan])
    with pytest.raises(InputError, match="empty denominator"):
        _ = vocabulary_conformance({"c": []}, {"x"}).rate
    with pytest.raises(InputError):
        vocabulary_conformance({"a": "Sedan"}, {"Sedan"})


# -- result objects ------------------------------------------------------------
def test_results_are_frozen_with_readonly_arrays(seed_tax):
    h = hierarchical_prf(seed_tax, {"q": "Sedan"}, {"q": "Sedan"})
    with pytest.raises(dataclasses.FrozenInstanceError):
        h.item_ids = ()  # type: ignore[misc]
    with pytest.raises(ValueError):
        h.overlap[0] = 0
    with pytest.raises(ValueError):
        h.hp[0] = 0
