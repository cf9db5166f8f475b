"""`ragstat nuggets`: the TREC 2024 RAG track's four nugget scores (Pradeep et al. 2024) on a
hand-worked example, the document as the unit of the interval, and bad input."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import typer
from typer.testing import CliRunner

from ragstat.api.verbs.nuggets import nuggets
from ragstat.cli.nuggets import nuggets as nuggets_cli
from ragstat.errors import InputError
from ragstat.metrics.generation.nuggets import nugget_scores

FIXTURE = Path(__file__).parent / "fixtures" / "formats" / "nuggets" / "answers.jsonl"


def _n(importance: str, support: str) -> dict[str, str]:
    return {"text": f"{importance} {support}", "importance": importance, "support": support}


# Hand-worked answer: vital support, vital partial, vital not, okay support, okay partial.
#   V_strict = 1 / 3 (only full support, vital only)      V = (1 + 0.5 + 0) / 3 = 0.5
#   A_strict = 2 / 5 (full support over all five)          A = (1 + 0.5 + 0 + 1 + 0.5) / 5 = 0.6
HAND = [
    _n("vital", "support"),
    _n("vital", "partial_support"),
    _n("vital", "not_support"),
    _n("okay", "support"),
    _n("okay", "partial_support"),
]


def test_the_four_track_scores_by_hand():
    s = nugget_scores({"a": HAND, "okay_only": [_n("okay", "partial_support")], "none": []})
    assert s.records("V_strict") == {"a": pytest.approx(1 / 3)}
    assert s.records("V") == {"a": 0.5}
    assert s.records("A_strict") == {"a": 0.4, "okay_only": 0.0}
    assert s.records("A") == {"a": 0.6, "okay_only": 0.5}
    np.testing.assert_array_equal(s.nuggets, [5, 1, 0])
    np.testing.assert_array_equal(s.vital, [3, 0, 0])


def test_reference_convention_for_an_answer_without_vital_nuggets():
    # nuggetizer's calculate_nugget_scores writes 0.0 for V / V_strict without vital nuggets;
    # ragstat leaves that answer out of V and counts it: its mean is over the answers scored.
    rows = [{"id": "a", "nuggets": HAND}, {"id": "b", "nuggets": [_n("okay", "support")]}]
    d = nuggets(rows, seed=0, bootstrap_reps=99).to_dict()
    assert d["scores"]["V"]["mean"] == 0.5 and d["scores"]["V"]["not_scored"] == 1
    assert d["scores"]["A"]["mean"] == pytest.approx((0.6 + 1.0) / 2)
    nuggetizer_v = np.mean([0.5, 0.0])  # the reference package's mean over both answers
    assert nuggetizer_v == 0.25 != d["scores"]["V"]["mean"]


def test_two_documents_are_the_unit_of_the_interval():
    # document A: answers scoring A_strict 1, 1; document B: 0, 0.5. Mean 0.625.
    rows = [
        {"id": "a1", "doc": "A", "nuggets": [_n("vital", "support")]},
        {"id": "a2", "doc": "A", "nuggets": [_n("okay", "support")]},
        {"id": "b1", "doc": "B", "nuggets": [_n("vital", "not_support")]},
        {
            "id": "b2",
            "doc": "B",
            "nuggets": [_n("vital", "support"), _n("okay", "partial_support")],
        },
    ]
    d = nuggets(rows, cluster_by="doc", seed=1, bootstrap_reps=99).to_dict()
    a = d["scores"]["A_strict"]
    assert a["mean"] == 0.625 and a["clusters"] == 2
    cr1 = next(iv for iv in a["intervals"] if iv["method"] == "cr1")
    # document totals 2 and 0.5 over 2 items each: residuals 2 − 1.25 = 0.75 and −0.75
    assert cr1["se"] == pytest.approx(np.sqrt(2 / 1 * (0.75**2 + 0.75**2) / 4**2), abs=1e-12)
    assert cr1["df"] == 1
    ind = nuggets(rows, seed=1, bootstrap_reps=99).to_dict()
    assert ind["scores"]["A_strict"]["clusters"] == 4


@pytest.mark.parametrize(
    ("nugget", "message"),
    [
        ({"text": "x", "importance": "Vital", "support": "support"}, "importance 'Vital'"),
        ({"text": "x", "importance": "vital", "support": "supported"}, "support 'supported'"),
        ({"text": "x", "importance": "okay"}, "support None"),
        ("a nugget", "expected an object"),
        ({"text": 3, "importance": "okay", "support": "support"}, "text must be a string"),
    ],
)
def test_bad_nuggets_name_the_answer(nugget, message):
    rows = [{"id": "q1", "nuggets": [_n("vital", "support")]}, {"id": "q2", "nuggets": [nugget]}]
    with pytest.raises(InputError, match=f"answer 'q2', nugget 0: {message}"):
        nuggets(rows, seed=0)


def test_missing_or_malformed_nugget_lists():
    with pytest.raises(InputError, match="answer 'q1' has no 'nuggets' list"):
        nuggets([{"id": "q1"}], seed=0)
    with pytest.raises(InputError, match="answer 'q1': nuggets must be a list"):
        nuggets([{"id": "q1", "nuggets": {"importance": "vital"}}], seed=0)


def test_documented_example_runs_on_the_command_line_as_in_python():
    app = typer.Typer()
    app.command("nuggets")(nuggets_cli)
    app.command("other")(lambda: None)
    argv = ["nuggets", str(FIXTURE), "--cluster-by", "topic", "--seed", "7",
            "--bootstrap-reps", "199", "--json"]  # fmt: skip
    out = CliRunner().invoke(app, argv)
    assert out.exit_code == 0, out.output
    twin = nuggets(FIXTURE, cluster_by="topic", seed=7, bootstrap_reps=199).to_dict()
    assert json.loads(out.output) == twin
    # a1: V_s 1, V 1, A_s 1/2, A 3/4; a2: 0, 1/2, 0, 1/4; a3: 1/2, 1/2, 2/3, 2/3;
    # a4: —, —, 1, 1; a5: 1, 1, 1, 1; a6: no nugget (not scored)
    means = {k: v["mean"] for k, v in twin["scores"].items()}
    assert means["V_strict"] == pytest.approx((1 + 0 + 0.5 + 1) / 4)
    assert means["V"] == pytest.approx((1 + 0.5 + 0.5 + 1) / 4)
    assert means["A_strict"] == pytest.approx((0.5 + 0 + 2 / 3 + 1 + 1) / 5)
    assert means["A"] == pytest.approx((0.75 + 0.25 + 2 / 3 + 1 + 1) / 5)
    assert twin["scores"]["V"]["not_scored"] == 2 and twin["scores"]["A"]["not_scored"] == 1
    assert twin["scores"]["A"]["clusters"] == 3
