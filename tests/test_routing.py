"""`ragstat routing`: intent / router classification against scikit-learn, iterative search
under budgets against a hand-worked example, the document as the unit of every interval,
and bad input."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest
import typer
from typer.testing import CliRunner

from ragstat.api.verbs.routing import routing
from ragstat.cli.routing import routing as routing_cli
from ragstat.errors import InputError
from ragstat.metrics.routing import f1_bootstrap, intent_classification, search_budgets

FIXTURE = Path(__file__).parent / "fixtures" / "formats" / "routing" / "queries.jsonl"
LABELS = ["none", "single", "iterative", "web"]  # "web": declared, never seen
TRUE = ["none", "none", "single", "single", "single"] + ["iterative"] * 3 + ["none", "single"]
PRED = [
    "none", "single", "single", "single", "none",
    "iterative", "single", "iterative", "none", "single",
]  # fmt: skip


def _records(**extra):
    return [
        {"id": f"q{k}", "doc": f"d{k % 3}", "label": t, "predicted": p, **extra}
        for k, (t, p) in enumerate(zip(TRUE, PRED, strict=True))
    ]


def _iv(score: dict, method: str) -> dict:
    return next(iv for iv in score["intervals"] if iv["method"] == method)


# ------------------------------------------------------------------ classification


def test_classification_matches_scikit_learn():
    skm = pytest.importorskip("sklearn.metrics")
    ids = [f"q{k}" for k in range(len(TRUE))]
    c = intent_classification(
        dict(zip(ids, TRUE, strict=True)), dict(zip(ids, PRED, strict=True)), LABELS
    )
    assert abs(c.accuracy - skm.accuracy_score(TRUE, PRED)) < 1e-12
    np.testing.assert_array_equal(c.confusion(), skm.confusion_matrix(TRUE, PRED, labels=LABELS))
    p, r, _, _ = skm.precision_recall_fscore_support(
        TRUE, PRED, labels=LABELS, average=None, zero_division=np.nan
    )
    np.testing.assert_allclose(c.precision, p, atol=1e-12, equal_nan=True)
    np.testing.assert_allclose(c.recall, r, atol=1e-12, equal_nan=True)
    with warnings.catch_warnings():  # the default zero_division="warn" scores 0 and warns
        warnings.simplefilter("ignore")
        _, _, f_default, _ = skm.precision_recall_fscore_support(
            TRUE, PRED, labels=LABELS, average=None
        )
        macro = skm.f1_score(TRUE, PRED, labels=LABELS, average="macro")
    np.testing.assert_allclose(c.f1, f_default, atol=1e-12)
    assert abs(c.macro_f1 - macro) < 1e-12
    assert np.isnan(c.precision[3]) and c.f1[3] == 0.0  # "web": no true, no predicted item


def test_verb_reports_the_same_figures_and_ratio_means():
    skm = pytest.importorskip("sklearn.metrics")
    res = routing(_records(), labels=LABELS, cluster_by="doc", seed=3, bootstrap_reps=199)
    d = res.to_dict()
    p, r, _, _ = skm.precision_recall_fscore_support(
        TRUE, PRED, labels=LABELS, average=None, zero_division=np.nan
    )
    for j, lab in enumerate(LABELS[:3]):  # the unit means are the corpus ratios
        assert abs(d["scores"][f"precision:{lab}"]["mean"] - p[j]) < 1e-12
        assert abs(d["scores"][f"recall:{lab}"]["mean"] - r[j]) < 1e-12
    assert "precision:web" not in d["scores"] and d["classes"]["web"]["precision"] is None
    assert d["confusion"] == skm.confusion_matrix(TRUE, PRED, labels=LABELS).tolist()
    assert d["labels"] == LABELS and d["labels_source"] == "argument"
    assert any("never predicted" in n and "web" in n for n in d["notes"])
    assert d["macro_f1"]["lower"] <= d["macro_f1"]["estimate"] <= d["macro_f1"]["upper"]


def test_undeclared_labels_are_the_labels_seen():
    d = routing(_records(), seed=1, bootstrap_reps=99).to_dict()
    assert d["labels"] == ["iterative", "none", "single"] and d["labels_source"] == "seen"
    assert any("labels seen are the set" in n for n in d["notes"])
    assert "items are treated as independent" in d["clustering"]


def test_two_documents_are_the_unit_of_accuracy_and_of_the_f1_bootstrap():
    # document A: 4 items all right; document B: 4 items, one right. Accuracy 5/8.
    a = [("x", "x"), ("y", "y"), ("x", "x"), ("y", "y")]
    b = [("x", "y"), ("y", "x"), ("x", "x"), ("y", "x")]
    rows = [
        {"id": f"{doc}{k}", "doc": doc, "label": t, "predicted": p}
        for doc, pairs in (("A", a), ("B", b))
        for k, (t, p) in enumerate(pairs)
    ]
    d = routing(rows, labels=["x", "y"], cluster_by="doc", seed=5, bootstrap_reps=299).to_dict()
    acc = d["scores"]["accuracy"]
    assert acc["mean"] == 5 / 8 and acc["clusters"] == 2
    cr1 = _iv(acc, "cr1")  # residuals 4 − 5/8·4 = 1.5 and 1 − 5/8·4 = −1.5 per document
    assert abs(cr1["se"] - np.sqrt(2 / 1 * (1.5**2 + 1.5**2) / 8**2)) < 1e-12 and cr1["df"] == 1
    # resampling two documents can only give A alone, B alone or both: the 95 % percentile
    # bounds are the macro F1 of each document alone (an item bootstrap would not be)
    f1_a = 1.0
    f1_b = np.mean([2 / (2 + 2 + 1), 0.0])  # B — x: TP 1, FP 2, FN 1; y: TP 0
    assert d["macro_f1"]["clusters"] == 2
    assert abs(d["macro_f1"]["lower"] - f1_b) < 1e-12 and d["macro_f1"]["upper"] == f1_a
    ind = routing(rows, labels=["x", "y"], seed=5, bootstrap_reps=99).to_dict()
    assert ind["scores"]["accuracy"]["clusters"] == 8


def test_f1_bootstrap_is_seeded_and_sums_documents():
    rng = np.random.default_rng(0)
    tp, fp, fn = (rng.integers(0, 4, size=(6, 3)).astype(float) for _ in range(3))
    one = f1_bootstrap(tp, fp, fn, level=0.9, reps=500, seed=11)
    two = f1_bootstrap(tp, fp, fn, level=0.9, reps=500, seed=11)
    np.testing.assert_array_equal(one.lower, two.lower)
    assert one.macro_lower == two.macro_lower and one.clusters == 6
    assert np.all(one.lower <= one.upper)
    with pytest.raises(InputError, match="2 documents"):
        f1_bootstrap(tp[:1], fp[:1], fn[:1], level=0.95, reps=10, seed=0)


def test_slices_get_their_own_accuracy():
    rows = _records()
    for k, r in enumerate(rows):
        r["slice"] = "faq" if k < 4 else "multi_hop"
    d = routing(rows, cluster_by="doc", seed=2, bootstrap_reps=99).to_dict()
    assert d["scores"]["accuracy:faq"]["n"] == 4
    right = [t == p for t, p in zip(TRUE, PRED, strict=True)]
    assert d["scores"]["accuracy:faq"]["mean"] == np.mean(right[:4])


# ------------------------------------------------------------------ search budgets

# Hand-worked: 10 items in 3 documents, S = 4.
#   d1: steps 1, 1, 2        d2: steps 2, 3, never        d3: steps 1, 4, never, 2
# success(1) = 3/10, success(2) = 6/10, success(3) = 7/10, success(4) = 8/10;
# gain to S: 0.5, 0.2, 0.1, 0 → with flat_gain 0.15 the curve flattens at 3 steps, and going
# to 4 adds 10 points (one item, in d3). Paired gain per item is 0/1: document totals 0, 0, 1
# over 3, 3, 4 items; residuals −0.3, −0.3, 0.6; CR1 se = √(3/2 · 0.54 / 10²) = 0.09.
STEPS = {"d1": [1, 1, 2], "d2": [2, 3, None], "d3": [1, 4, None, 2]}
COSTS = {"d1": [0.1, 0.2, 0.3], "d2": [0.3, 0.5, None], "d3": [0.1, 0.9, None, None]}


def _search_rows():
    return [
        {"id": f"{d}-{k}", "doc": d, "steps": s, "max_steps": 4, "cost": COSTS[d][k]}
        for d, steps in STEPS.items()
        for k, s in enumerate(steps)
    ]


def test_search_budgets_hand_worked():
    d = routing(
        _search_rows(), cluster_by="doc", flat_gain=0.15, seed=1, bootstrap_reps=199
    ).to_dict()
    curve = [d["scores"][f"success@{s}"]["mean"] for s in range(1, 5)]
    np.testing.assert_allclose(curve, [0.3, 0.6, 0.7, 0.8], atol=1e-12)
    s = d["search"]
    assert s["horizon"] == 4 and s["flattens_at"] == 3 and s["never_found"] == 2
    gain = d["scores"]["gain@3->4"]
    assert abs(gain["mean"] - 0.1) < 1e-12 and gain["clusters"] == 3
    assert abs(_iv(gain, "cr1")["se"] - 0.09) < 1e-12
    # three documents cannot support an interval: none is shown, and the note says why
    assert s["gain"]["lower"] is None and s["gain"]["upper"] is None
    assert s["gain"]["reason"].startswith("only 3 documents: the data cannot support")
    assert any(n.startswith("the curve flattens at 3 steps: going to 4 adds 10.0 points, no "
                            "interval: only 3 documents")
               for n in d["notes"])  # fmt: skip
    # cost: found items with a cost; d3's step-2 item was found without one (not scored)
    assert s["cost_budgets"] == [0.1, 0.2, 0.3, 0.5, 0.9]
    at_03 = d["scores"]["success@cost<=0.3"]
    # ≤ 0.3: d1's three, d2's first and d3's first → 5 of the 9 scored
    assert at_03["n"] == 9 and at_03["not_scored"] == 1 and abs(at_03["mean"] - 5 / 9) < 1e-12
    default = routing(_search_rows(), seed=1, bootstrap_reps=99).to_dict()["search"]
    assert default["flattens_at"] == 4 and default["gain"]["estimate"] == 0.0  # flat_gain 0.01


def test_search_kernel_and_given_cost_budgets():
    b = search_budgets({"a": 2, "b": None}, {"a": 3, "b": 3}, {"a": 1.5})
    np.testing.assert_array_equal(b.success_at(1), [0, 0])
    np.testing.assert_array_equal(b.success_at(2), [1, 0])
    np.testing.assert_array_equal(b.within_cost(1.0), [0, 0])
    np.testing.assert_array_equal(b.within_cost(1.5), [1, 0])
    d = routing(_search_rows(), cost_budgets=["0.25", 1], seed=1, bootstrap_reps=99).to_dict()
    assert d["search"]["cost_budgets"] == [0.25, 1.0] and "success@cost<=0.25" in d["scores"]


# ------------------------------------------------------------------ bad input


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"label": "web"}, "item 'q0': label 'web' is not a declared label"),
        ({"predicted": "web"}, "item 'q0': predicted 'web' is not a declared label"),
        ({"predicted": None}, "item 'q0': predicted must be a label"),
    ],
)
def test_a_label_outside_the_declared_set_names_the_item(change, message):
    rows = _records()
    rows[0].update(change)
    with pytest.raises(InputError, match=message):
        routing(rows, labels=["none", "single", "iterative"], seed=0, bootstrap_reps=99)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"steps": 0}, "item 'd1-0': steps must be a whole number ≥ 1"),
        ({"steps": "2"}, "item 'd1-0': steps must be a whole number ≥ 1"),
        ({"steps": 5}, "item 'd1-0': steps 5 exceeds max_steps 4"),
        ({"max_steps": None}, "item 'd1-0' has steps but no max_steps"),
        ({"cost": -1}, "item 'd1-0': cost must be a number ≥ 0"),
        ({"steps": None}, "item 'd1-0': cost is the cost at success, but steps is null"),
    ],
)
def test_bad_search_records_name_the_item(change, message):
    rows = _search_rows()
    rows[0].update(change)
    with pytest.raises(InputError, match=message):
        routing(rows, seed=0)


def test_label_sets_and_half_pairs_are_checked(tmp_path):
    rows = _records()
    with pytest.raises(InputError, match="has label but no predicted"):
        routing([{"id": "x", "label": "a"}], seed=0)
    with pytest.raises(InputError, match="first record only"):
        routing([*rows[:2], {"labels": ["a"], **rows[2]}], seed=0)
    with pytest.raises(InputError, match="declared label sets differ"):
        routing([{"labels": ["none", "single"]}, *rows], labels=["none"], seed=0)
    with pytest.raises(InputError, match="distinct"):
        routing(rows, labels=["none", "none", "single", "iterative"], seed=0)
    with pytest.raises(InputError, match="flat_gain"):
        routing(_search_rows(), flat_gain=1.5, seed=0)
    path = tmp_path / "labels.txt"
    path.write_text("none\nsingle\n\niterative\n", encoding="utf-8")
    d = routing(rows, labels_file=path, seed=0, bootstrap_reps=99).to_dict()
    assert d["labels"] == ["none", "single", "iterative"] and d["labels_source"] == "labels file"


# ------------------------------------------------------------------ the documented example


def test_documented_example_runs_on_the_command_line_as_in_python():
    app = typer.Typer()
    app.command("routing")(routing_cli)
    app.command("other")(lambda: None)  # two commands: the verb's name is parsed as in ragstat
    argv = ["routing", str(FIXTURE), "--cluster-by", "doc_id", "--flat-gain", "0.15",
            "--seed", "7", "--bootstrap-reps", "199", "--json"]  # fmt: skip
    out = CliRunner().invoke(app, argv)
    assert out.exit_code == 0, out.output
    twin = routing(
        FIXTURE, cluster_by="doc_id", flat_gain=0.15, seed=7, bootstrap_reps=199
    ).to_dict()
    assert json.loads(out.output) == twin
    assert twin["labels_source"] == "first record" and twin["search"]["flattens_at"] == 3
    assert twin["scores"]["accuracy"]["clusters"] == 4
