"""Titles and headings: similarity equals rapidfuzz's normalized_similarity; lists of
headings are compared position by position; the verb's unit is the heading."""

from __future__ import annotations

import pytest

pytest.importorskip("rapidfuzz", reason="the extraction extra (pip install -e '.[extraction]')")

from rapidfuzz.distance import Levenshtein

from ragstat.api.verbs.extraction import extraction
from ragstat.errors import InputError
from ragstat.metrics.extraction import heading_scores, normalized_similarity

PAIRS = [
    ("", ""), ("", "abc"), ("abc", ""), ("Lease", "Lease"), ("Lease", "lease"),
    ("São Paulo", "Sao Paulo"), ("naïve café", "naive cafe"), ("東京都", "京都"),
    ("Ｆｕｌｌ", "Full"), ("kitten", "sitting"), ("🙂 title", "title"),
    ("Capítulo 1", "Capitulo 1 "),
]  # fmt: skip


@pytest.mark.parametrize(("a", "b"), PAIRS)
def test_similarity_equals_rapidfuzz(a, b):
    assert normalized_similarity(a, b) == pytest.approx(
        Levenshtein.normalized_similarity(a, b), abs=1e-12
    )


def test_lists_are_compared_by_position_with_padding():
    h = heading_scores({"x": ["Intro", "Method"], "y": "Title"}, {"x": ["Intro"], "y": "Title"})
    assert h.item_ids == ("x", "x", "y")
    assert h.exact.tolist() == [1.0, 0.0, 1.0]  # an extra heading scores 0
    assert h.similarity.tolist() == [1.0, 0.0, 1.0]


def test_bad_title_names_the_item():
    with pytest.raises(InputError, match=r"'t9'.*title_pred"):
        heading_scores({"t9": 5}, {"t9": "x"})


def test_verb_heading_units_cluster_by_document():
    rows = [
        {"id": "1", "doc": "A", "title_pred": ["a", "b"], "title_ref": ["a", "b"]},
        {"id": "2", "doc": "A", "title_pred": "x", "title_ref": "y"},
        {"id": "3", "doc": "B", "title_pred": "Lease", "title_ref": "Lease"},
        {"id": "4", "doc": "B", "table_pred": "", "table_ref": "<table></table>"},
    ]
    r = extraction(rows, cluster_by="doc", seed=0, bootstrap_reps=99)
    em = r.scores["title_exact_match"]
    assert (em.mean, em.n, em.clusters) == (0.75, 4, 2)
    assert r.inputs["titles"] == {"items": 3, "lacking": 1}
    assert r.to_dict()["inputs"]["tables"] == {"items": 1, "lacking": 3}
