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


# ---------------------------------------------------------------- every JSON writer, strict
# (issue 28, item 5 follow-up: --json of every verb through cli/options.emit, result.json
# through cli/runlog.write_json, manifest.json, gate --json, runs --json, study --json and
# summary.json all go through tidy.json_text)


def _constant_arms(folder):
    a, b = folder / "a.csv", folder / "b.csv"
    pd.DataFrame({"doc_id": [f"a{i}" for i in range(10)], "hit": 1}).to_csv(a, index=False)
    pd.DataFrame({"doc_id": [f"b{i}" for i in range(10)], "hit": 0}).to_csv(b, index=False)
    return a, b


def test_every_json_of_a_two_sample_run_with_constant_arms_is_strict(tmp_path, capsys):
    a, b = _constant_arms(tmp_path)
    argv = ["compare", str(a), str(b), "--design", "two-sample", "--score", "hit"]
    assert main([*argv, "--json"]) == 0
    printed = _strict(capsys.readouterr().out)
    assert printed["se"] == 0.0 and printed["t"] is None and printed["p"] is None
    assert "standard error is 0" in printed["t_undefined"]
    out = tmp_path / "out"
    assert main([*argv, "--out", str(out)]) == 0
    capsys.readouterr()
    result = _strict((out / "result.json").read_text(encoding="utf-8"))
    assert result == printed  # the file is the --json object
    manifest = _strict((out / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["command"] == "compare"
    # the registry: the two runs, listed, shown and diffed as strict JSON
    assert main(["runs", "list", "--json"]) == 0
    runs = _strict(capsys.readouterr().out)
    assert [r["command"] for r in runs] == ["compare", "compare"]
    assert main(["runs", "show", runs[0]["run_id"], "--json"]) == 0
    assert _strict(capsys.readouterr().out)["run_id"] == runs[0]["run_id"]
    assert main(["runs", "diff", runs[1]["run_id"], runs[0]["run_id"], "--json"]) == 0
    assert isinstance(_strict(capsys.readouterr().out), dict)


def test_manifest_and_study_summary_writers_are_strict(tmp_path):
    from ragstat.cli.runlog import write_json
    from ragstat.registry import Manifest
    from ragstat.selfretrieval.output import write_summary

    m = Manifest(
        run_id="20260301-101500-aaaaaa", command="plan", argv=("plan",),
        config={"sd": math.inf}, seed=None, corpus_fingerprint=None, inputs={},
        outputs=(), results={"n": np.float64("nan")}, versions={"ragstat": "0"},
        started_at="2026-03-01T10:15:00+00:00", wall_s=0.5,
    )  # fmt: skip
    data = _strict(m.to_json())
    assert data["config"]["sd"] is None and data["results"]["n"] is None
    assert Manifest.from_dict(data) == m
    path = write_json(tmp_path / "result.json", {"upper": math.inf, "path": tmp_path})
    assert _strict(path.read_text(encoding="utf-8")) == {
        "upper": None, "upper_undefined": "infinite", "path": str(tmp_path)
    }  # fmt: skip
    path = write_summary({"micro": {"lower": np.float64("-inf"), "k": np.int64(3)}}, tmp_path)
    assert _strict(path.read_text(encoding="utf-8")) == {
        "micro": {"lower": None, "lower_undefined": "minus infinity", "k": 3}
    }


def test_study_json_on_a_corpus_every_query_finds_is_strict(tmp_path, capsys):
    """Every hit is 1 (documents share no word): intervals without a standard error."""
    rows = []
    for i in range(8):
        words = np.random.default_rng(i).choice([f"d{i}w{j}" for j in range(300)], 250)
        rows.append(json.dumps({"doc_id": f"d{i}", "text": " ".join(words)}))
    path = tmp_path / "c.jsonl"
    path.write_text("\n".join(rows), encoding="utf-8")
    out = tmp_path / "out"
    assert main(["study", str(path), "--out", str(out), "--json", "--seed", "1"]) == 0
    printed = _strict(capsys.readouterr().out)
    assert printed["counts"]["queries"] == 8 * 3
    _strict((out / "summary.json").read_text(encoding="utf-8"))
    _strict((out / "manifest.json").read_text(encoding="utf-8"))


# ---------------------------------------------------------------- list options are capped


@pytest.mark.parametrize(
    "argv",
    [
        ["interval", "{table}", "--score", "hit", "--methods", ",".join(["wald"] * 101)],
        ["interval", "{table}", "--score", "hit", "--estimand", ",".join(["micro"] * 101)],
        ["study", "{table}", "--retrievers", ",".join(["bm25"] * 101), "--out", "{out}"],
    ],
)
def test_comma_list_options_are_capped(argv, tmp_path, capsys):
    table, _ = _constant_arms(tmp_path)
    out = tmp_path / "out"
    assert main([a.format(table=table, out=out) for a in argv]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "has too many values: 101, over the limit of 100" in err
    assert "RAGSTAT_MAX_LIST=101" in err
    assert not out.exists()  # stopped before any work


def test_the_list_cap_follows_its_environment_variable(monkeypatch):
    from ragstat.cli.options import split
    from ragstat.errors import InputError

    assert split("micro,macro", ("micro", "macro"), "estimand") == ["micro", "macro"]
    monkeypatch.setenv("RAGSTAT_MAX_LIST", "1")
    with pytest.raises(InputError, match="--estimand has too many values: 2"):
        split("micro,macro", ("micro", "macro"), "estimand")


# ---------------------------------------------------------------- gate outputs, user text

GATE_NAME = "hit\x1b[31m red" + "".join(chr(c) for c in range(9)) + " end"


def _hostile_gates(folder):
    rng = np.random.default_rng(1)
    doc = np.repeat(np.arange(30), 5)
    table = folder / "t.csv"
    hits = (rng.random(doc.size) < 0.7).astype(int)
    pd.DataFrame({"doc_id": doc, "hit1": hits}).to_csv(table, index=False)
    name = GATE_NAME.encode("unicode_escape").decode("ascii").replace("\\x", "\\u00")
    path = folder / "gates.toml"
    path.write_text(
        f'seed = 1\nbootstrap_reps = 199\n[inputs.candidate]\npath = "{table}"\n'
        f'[[gates]]\nname = "{name}"\nkind = "at_least"\nmetric = "hit1"\nthreshold = 0.9\n',
        encoding="utf-8",
    )
    return path


def test_gate_outputs_with_control_characters_in_a_gate_name(tmp_path, capsys):
    import xml.etree.ElementTree as ET

    gates = _hostile_gates(tmp_path)
    junit, md, out = tmp_path / "gates.xml", tmp_path / "summary.md", tmp_path / "out"
    argv = ["gate", str(gates), "--json", "--junit", str(junit), "--markdown", str(md)]
    assert main([*argv, "--out", str(out)]) == 1
    printed = _strict(capsys.readouterr().out)
    assert printed["gates"][0]["name"] == GATE_NAME  # JSON keeps the name, escaped by JSON
    root = ET.parse(junit).getroot()  # parses: no character XML 1.0 forbids
    case = root.find("testsuite/testcase")
    assert (
        case is not None
        and case.get("name")
        == "hit\\x1b[31m red" + "".join(f"\\x{c:02x}" for c in range(9)) + " end"
    )
    assert case.find("failure") is not None
    for text in (md.read_text(encoding="utf-8"), (out / "gates.md").read_text(encoding="utf-8")):
        assert not any(ch in text for ch in GATE_NAME if ord(ch) < 0x20), "raw control"
        assert "| hit\\\\x1b[31m red\\\\x00\\\\x01" in text  # visible, then Markdown-escaped
    for name in ("result.json", "manifest.json", "report.json"):
        _strict((out / name).read_text(encoding="utf-8"))
    for name in ("report.md", "report.html"):
        assert b"\x1b" not in (out / name).read_bytes(), name


def test_gates_junit_itself_is_xml_safe(tmp_path):
    """The library's JUnit writer, not only the command line's file, escapes what XML forbids
    (here also a lone surrogate and U+FFFE); the Markdown shows bidi overrides as escapes."""
    import xml.etree.ElementTree as ET
    from dataclasses import replace

    from ragstat.report.gate_summary import gates_junit, gates_markdown, xml_text

    assert xml_text("a\x00b\x1b\ud800\ufffe\tc") == "a\\x00b\\x1b\\ud800\\ufffe\tc"
    report = ragstat.gate(_hostile_gates(tmp_path))
    g = report.gates[0]
    name = GATE_NAME + "\u202e\ud800"
    hostile = replace(report, gates=(replace(g, spec=replace(g.spec, name=name)),))
    case = ET.fromstring(gates_junit(hostile).encode("utf-8")).find("testsuite/testcase")
    assert case is not None and case.get("name", "").startswith("hit\\x1b[31m red\\x00")
    assert case.get("name", "").endswith(" end\u202e\\ud800")  # U+202E is allowed in XML
    md = gates_markdown(hostile)
    assert "\x1b" not in md and "\u202e" not in md and "\\\\u202e\\\\ud800" in md
