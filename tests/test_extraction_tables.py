"""TEDS / TEDS-S against the reference code (values written by scripts/make_teds_fixture.py
with table-recognition-metric and PubTabNet's count), and the table part of the verb."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragstat.api.verbs.extraction import extraction
from ragstat.errors import InputError
from ragstat.metrics.extraction import table_scores, teds

REFERENCE = json.loads(
    (Path(__file__).parent / "reference" / "teds_reference.json").read_text(encoding="utf-8")
)["pairs"]
ONE = "<table><tbody><tr><td>a</td><td>b</td></tr></tbody></table>"


@pytest.mark.parametrize("pair", REFERENCE, ids=[p["name"] for p in REFERENCE])
def test_teds_equals_the_reference_implementations(pair):
    p, r = pair["pred"], pair["ref"]
    assert teds(p, r) == pytest.approx(pair["teds"], abs=1e-12)
    assert teds(p, r, structure_only=True) == pytest.approx(pair["teds_s"], abs=1e-12)
    assert teds(p, r, count="pubtabnet") == pytest.approx(pair["teds_pubtabnet"], abs=1e-12)
    got = teds(p, r, structure_only=True, count="pubtabnet")
    assert got == pytest.approx(pair["teds_s_pubtabnet"], abs=1e-12)


def test_the_reference_set_covers_the_named_cases():
    names = {p["name"] for p in REFERENCE}
    assert len(names) >= 10
    assert {"identical", "entirely_different", "empty_cells", "rowspan_and_colspan"} <= names


def test_hand_worked_one_cell_rename():
    # tree: table, tbody, tr, td, td = 5 nodes; one cell 'b' → 'c' costs 1 (1 token of 1)
    pred = "<table><tbody><tr><td>a</td><td>c</td></tr></tbody></table>"
    assert teds(pred, ONE) == pytest.approx(1 - 1 / 5)
    assert teds(pred, ONE, structure_only=True) == 1.0


def test_a_prediction_without_a_table_scores_zero_and_is_named():
    s = table_scores({"x": "no table here", "y": ONE}, {"x": ONE, "y": ONE})
    assert s.teds.tolist() == [0.0, 1.0] and s.no_table == ("x",)


def test_bad_reference_or_span_is_an_input_error_naming_the_item():
    with pytest.raises(InputError, match=r"'p7'.*no <table>"):
        teds(ONE, "<div>text</div>", item="p7")
    with pytest.raises(InputError, match=r"'p8'.*colspan='two'"):
        teds('<table><tr><td colspan="two">a</td></tr></table>', ONE, item="p8")
    with pytest.raises(InputError, match="count"):
        teds(ONE, ONE, count="nodes")


def test_verb_clusters_by_document_and_gives_per_class_means():
    bad = "<table><tbody><tr><td>a</td></tr></tbody></table>"
    rows = [
        {"id": "1", "doc": "A", "class": "scan", "table_pred": ONE, "table_ref": ONE},
        {"id": "2", "doc": "A", "class": "scan", "table_pred": bad, "table_ref": ONE},
        {"id": "3", "doc": "B", "class": "digital", "table_pred": ONE, "table_ref": ONE},
        {"id": "4", "doc": "B", "class": "digital", "table_pred": "", "table_ref": ONE},
    ]
    r = extraction(rows, cluster_by="doc", seed=1, bootstrap_reps=99)
    assert r.scores["teds"].n == 4 and r.scores["teds"].clusters == 2  # K = documents
    assert r.scores["teds:scan"].mean == pytest.approx((1 + teds(bad, ONE)) / 2)
    assert r.scores["teds:digital"].mean == 0.5
    assert r.inputs["tables"] == {"items": 4, "lacking": 0}
    assert any("'4'" in n or "4" in n for n in r.notes if "no <table>" in n)
    independent = extraction(rows, seed=1, bootstrap_reps=99)
    assert independent.scores["teds"].clusters == 4
    assert "independent" in independent.clustering
