"""Language identification in ``ragstat ingestion``: per-language precision/recall/F1,
accuracy and macro F1 equal to scikit-learn on a labelled multilingual fixture, clustered by
document, and bad input."""

from __future__ import annotations

import numpy as np
import pytest

from ragstat.api.verbs.ingestion import ingestion
from ragstat.errors import InputError
from ragstat.metrics.ingestion.language import language_code, language_identification

sk = pytest.importorskip("sklearn.metrics")
REPS = 199
REF = ["pt", "pt", "en", "es", "fr", "pt", "en", "en", "es", "pt", "fr", "de"]
PRED = ["pt", "es", "en", "es", "fr", "pt", "pt", "en", "pt", "pt", "en", "pt"]
#: A labelled multilingual sample: 12 passages from 4 documents; "de" is never predicted.
RECORDS = [
    {"id": f"p{i}", "doc": f"d{i // 3}", "lang_ref": r, "lang_pred": p}
    for i, (r, p) in enumerate(zip(REF, PRED, strict=True))
]


def test_per_language_scores_equal_sklearn():
    labels = sorted(set(REF) | set(PRED))
    p, r, _, _ = sk.precision_recall_fscore_support(
        REF, PRED, labels=labels, average=None, zero_division=np.nan
    )
    lid = language_identification(
        {x["id"]: x["lang_ref"] for x in RECORDS}, {x["id"]: x["lang_pred"] for x in RECORDS}
    )
    assert lid.labels == tuple(labels)
    np.testing.assert_allclose(lid.precision, p, atol=1e-12)  # NaN for "de" on both sides
    np.testing.assert_allclose(lid.recall, r, atol=1e-12)
    f_default = sk.precision_recall_fscore_support(REF, PRED, average=None, zero_division=0)[2]
    np.testing.assert_allclose(lid.f1, f_default, atol=1e-12)
    assert lid.macro_f1 == pytest.approx(sk.f1_score(REF, PRED, average="macro"), abs=1e-12)
    assert lid.accuracy == pytest.approx(sk.accuracy_score(REF, PRED), abs=1e-12)


def test_verb_means_equal_sklearn_and_the_document_is_the_unit():
    out = ingestion(RECORDS, cluster_by="doc", seed=2, bootstrap_reps=REPS)
    labels = sorted(set(REF) | set(PRED))
    p, r, f, _ = sk.precision_recall_fscore_support(
        REF, PRED, labels=labels, average=None, zero_division=0
    )
    for j, code in enumerate(labels):
        if code in PRED:
            assert out.scores[f"lang_precision:{code}"].mean == pytest.approx(p[j], abs=1e-12)
        else:
            assert f"lang_precision:{code}" not in out.scores  # never predicted: no unit
        assert out.scores[f"lang_recall:{code}"].mean == pytest.approx(r[j], abs=1e-12)
        assert out.f1[f"lang_f1:{code}"]["estimate"] == pytest.approx(f[j], abs=1e-12)
    macro = out.f1["lang_macro_f1"]
    assert macro["estimate"] == pytest.approx(sk.f1_score(REF, PRED, average="macro"), abs=1e-12)
    assert macro["clusters"] == 4 and macro["lower"] <= macro["estimate"] <= macro["upper"]
    acc = out.scores["lang_accuracy"]
    assert acc.mean == pytest.approx(sk.accuracy_score(REF, PRED), abs=1e-12)
    assert acc.clusters == 4 and acc.n == 12  # K = documents, not passages
    assert ingestion(RECORDS, seed=2, bootstrap_reps=REPS).scores["lang_accuracy"].clusters == 12
    assert "text" not in RECORDS[0]  # language records need no text


def test_codes_are_normalised():
    assert language_code("__label__PT ", "a", "lang_pred") == "pt"
    assert language_code("pt-BR", "a", "lang_pred") == "pt-br"


@pytest.mark.parametrize("value", [None, 3, "", "__label__"])
def test_bad_code_names_the_item(value):
    rows = [dict(r) for r in RECORDS]
    rows[4] = rows[4] | {"lang_pred": value}
    with pytest.raises(InputError, match=r"item 'p4'.*lang_pred"):
        ingestion(rows, seed=0, bootstrap_reps=REPS)


def test_lacking_partner_is_counted():
    rows = [dict(r) for r in RECORDS]
    rows[0] = {k: v for k, v in rows[0].items() if k != "lang_pred"}
    out = ingestion(rows, cluster_by="doc", seed=0, bootstrap_reps=REPS)
    assert out.inputs["language"] == {"scored": 11, "lacking_partner": 1}
    assert out.scores["lang_accuracy"].n == 11
