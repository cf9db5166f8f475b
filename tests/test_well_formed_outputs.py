"""Issue 28, item 5: strict JSON (no NaN/Infinity: null with a reason) and user text whose
control characters never reach report.md, report.html or summary.md raw."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

import ragstat
from ragstat.cli import main
from ragstat.cli.items import markdown_summary
from ragstat.tidy import json_text, strict

HOSTILE = "ev\x1b[31mil\x07\u202e"


def _strict(text: str):
    def refuse(constant: str):
        raise ValueError(f"not strict JSON: {constant}")

    return json.loads(text, parse_constant=refuse)


def test_json_text_writes_null_with_a_reason():
    value = {"t": float("nan"), "p": np.float64("nan"), "se_arms": (0.0, 0.0),
             "rows": [{"upper": math.inf}, {"lower": -math.inf, "lower_undefined": "one arm"}]}  # fmt: skip
    out = _strict(json_text(value))
    assert out["t"] is None and out["p"] is None and out["se_arms"] == [0.0, 0.0]
    assert "standard error is 0" in out["t_undefined"]
    assert out["rows"] == [
        {"upper": None, "upper_undefined": "infinite"},
        {"lower": None, "lower_undefined": "one arm"},  # the result's own reason is kept
    ]
    assert strict({"a": 1.5, "b": [np.int64(3)]}) == {"a": 1.5, "b": [3]}
    with pytest.raises(ValueError):
        json.dumps({"x": math.nan}, allow_nan=False)  # what json_text guards against


def test_two_sample_compare_with_constant_arms_is_strict_json(tmp_path):
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    pd.DataFrame({"doc_id": [f"a{i}" for i in range(10)], "hit": 1}).to_csv(a, index=False)
    pd.DataFrame({"doc_id": [f"b{i}" for i in range(10)], "hit": 0}).to_csv(b, index=False)
    result = ragstat.compare(a, b, design="two-sample", score="hit")
    out = _strict(json_text(result.to_dict()))
    assert out["t"] is None and "standard error is 0" in out["t_undefined"]


@pytest.mark.parametrize(
    "argv",
    [
        ["plan", "--sd", "0.3", "--documents", "2", "--power", "0.999"],
        ["plan", "--sd", "0.3", "--documents", "10", "--population", "10"],
        ["plan", "--ab", "--mde", "0.5", "--rate", "0.4"],
    ],
)
def test_plan_json_is_strict(argv, capsys):
    assert main([*argv, "--json"]) == 0
    _strict(capsys.readouterr().out)


def test_reports_show_control_characters_escaped(tmp_path, capsys):
    rng = np.random.default_rng(2)
    doc = np.repeat(np.arange(20), 4)
    path = tmp_path / f"{HOSTILE}.csv"
    pd.DataFrame({"doc_id": doc, "hit": (rng.random(doc.size) < 0.4).astype(int)}).to_csv(
        path, index=False
    )
    out = tmp_path / "out"
    assert main(["interval", str(path), "--out", str(out)]) == 0
    capsys.readouterr()
    for name in ("report.md", "report.html", "report.json", "result.json"):
        data = (out / name).read_bytes()
        assert b"\x1b" not in data and b"\x07" not in data, name
    assert "ev\\x1b[31mil\\x07\\u202e" in (out / "report.html").read_text(encoding="utf-8")
    assert "ev\\\\x1b\\[31mil\\\\x07\\\\u202e" in (out / "report.md").read_text(encoding="utf-8")
    _strict((out / "report.json").read_text(encoding="utf-8"))


def test_markdown_summary_shows_control_characters_escaped():
    result = ragstat.plan(sd=0.3, documents=40)
    text = markdown_summary(result, {"Notes": [f"system {HOSTILE}\nsecond line"]})
    assert "\x1b" not in text and "\x07" not in text and "\u202e" not in text
    assert "- system ev\\x1b[31mil\\x07\\u202e second line" in text
