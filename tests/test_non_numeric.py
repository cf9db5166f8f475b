"""Issue 28, item 1: a score cell that is not a number is an error, not a missing score.

The table of the issue: 300 rows, 92 of whose ``hit1`` cells are ``ERROR`` (the true rate
≈ 0.69, the scored rows' rate ≈ 0.98). Every verb that reads per-query scores stops with
one line naming the file, the column, the count and the first rows, unless the user opts
in (``--non-numeric missing``, ``non_numeric = "missing"``); then the cells count as
missing, apart from the truly missing ones, and a gate fails on ``max_unscored`` (default 0).
"""

from __future__ import annotations

import json
import os
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import ragstat
from cli_run import cli
from ragstat.api import gate_settings
from ragstat.errors import InputError
from ragstat.records.cells import CellCounts, numeric_cells

BAD = 92


def _error_table(missing: int = 0) -> pd.DataFrame:
    """300 queries in 100 documents; the first 92 hit1 cells are ERROR, the next
    ``missing`` are empty, the rest a 0/1 hit at ≈ 0.98 (seeded)."""
    rng = np.random.default_rng(28)
    hits = (rng.random(300) < 0.98).astype(int).astype(str).astype(object)
    hits[:BAD] = "ERROR"
    hits[BAD : BAD + missing] = None
    return pd.DataFrame(
        {"query_id": [f"q{i}" for i in range(300)], "doc_id": [f"d{i // 3}" for i in range(300)],
         "hit1": hits}
    )  # fmt: skip


@pytest.fixture
def error_csv(tmp_path: Path) -> Path:
    path = tmp_path / "errors.csv"
    _error_table().to_csv(path, index=False)
    return path


def _gates(tmp_path: Path, table: Path, head: str = "", input_extra: str = "") -> Path:
    path = tmp_path / "gates.toml"
    path.write_text(
        f"{head}seed = 1\n"
        + ("" if "bootstrap_reps" in head else "bootstrap_reps = 199\n")
        + f'[inputs.candidate]\npath = "{table}"\n{input_extra}'
        '[[gates]]\nname = "hit rate"\nkind = "at_least"\nmetric = "hit1"\nthreshold = 0.9\n',
        encoding="utf-8",
    )
    return path


# -- the must-show cases -------------------------------------------------------------------


def test_gate_on_error_cells_exits_2_with_one_line(capsys, tmp_path, error_csv):
    rc, out, err = cli(capsys, "gate", _gates(tmp_path, error_csv))
    assert rc == 2 and out == ""
    assert "'hit1'" in err and f"{BAD} of 300 cells" in err and "not numbers" in err
    assert "row 1: 'ERROR'" in err and 'non_numeric = "missing"' in err


def test_gate_treating_error_cells_as_missing_fails_on_max_unscored(capsys, tmp_path, error_csv):
    gates = _gates(tmp_path, error_csv, head='non_numeric = "missing"\n')
    rc, out, _ = cli(capsys, "gate", gates, "--json")
    assert rc == 1
    (g,) = json.loads(out)["gates"]
    assert g["outcome"] == "fail" and g["lower"] is None
    assert "max_unscored" in g["reason"] and f"{BAD} not a number" in g["reason"]
    assert g["unscored"] == {"missing": 0, "non_numeric": BAD}
    rc, out, _ = cli(capsys, "gate", gates)  # the terminal says the same
    assert rc == 1 and f"{BAD} not a number" in out and "max_unscored" in out


def test_a_higher_max_unscored_lets_the_gate_decide_on_the_scored_rows(tmp_path, error_csv):
    gates = _gates(tmp_path, error_csv, head='non_numeric = "missing"\nmax_unscored = 0.5\n')
    (g,) = ragstat.gate(gates).gates
    assert g.decision.interval is not None and g.N == 300 - BAD
    assert g.non_numeric == BAD and g.missing == 0 and f"{BAD} not a number" in g.evidence


def test_per_input_setting_overrides_the_file(tmp_path, error_csv):
    gates = _gates(tmp_path, error_csv, head='non_numeric = "missing"\n',
                   input_extra='non_numeric = "error"\n')  # fmt: skip
    with pytest.raises(InputError, match=f"{BAD} of 300 cells"):
        ragstat.gate(gates)
    gates = _gates(tmp_path, error_csv, input_extra='non_numeric = "missing"\n')
    (g,) = ragstat.gate(gates).gates
    assert g.outcome == "fail" and "max_unscored" in (g.decision.reason or "")


def test_missing_and_not_a_number_are_counted_apart_in_a_gate(tmp_path):
    path = tmp_path / "both.csv"
    _error_table(missing=12).to_csv(path, index=False)
    gates = _gates(tmp_path, path, head='non_numeric = "missing"\n')
    (g,) = ragstat.gate(gates).gates
    assert (g.missing, g.non_numeric) == (12, BAD)
    assert "12 missing, 92 not a number" in (g.decision.reason or "")


def test_interval_on_error_cells_exits_2_then_runs_when_told(capsys, error_csv):
    rc, out, err = cli(capsys, "interval", error_csv, "--score", "hit1")
    assert rc == 2 and f"{BAD} of 300 cells of score column 'hit1'" in err
    assert "--non-numeric missing" in err and str(error_csv) in err
    rc, out, _ = cli(
        capsys, "interval", error_csv, "--score", "hit1", "--non-numeric", "missing",
        "--seed", "1", "--bootstrap-reps", "199", "--json",
    )  # fmt: skip
    assert rc == 0
    report = json.loads(out)
    assert report["N"] == 300 - BAD
    (note,) = [w for w in report["warnings"] if "not a number" in w]
    assert f"{BAD} not a number, 0 missing" in note
    rc, out, _ = cli(
        capsys, "interval", error_csv, "--score", "hit1", "--non-numeric", "missing",
        "--seed", "1", "--bootstrap-reps", "199",
    )  # fmt: skip
    assert rc == 0 and f"{BAD} not a number, 0 missing" in out


def test_unknown_non_numeric_choice_is_one_line(capsys, error_csv):
    rc, _, err = cli(capsys, "interval", error_csv, "--non-numeric", "zero")
    assert rc == 2 and "non_numeric must be one of error, missing" in err


# -- the same rule in every reader ---------------------------------------------------------


def test_python_interval_on_a_frame_with_mixed_cells():
    frame = _error_table()
    cells = frame["hit1"].to_numpy(dtype=object)
    cells[BAD:] = [int(v) for v in cells[BAD:]]  # numbers beside text in one column
    frame["hit1"] = pd.Series(cells, dtype=object)
    with pytest.raises(InputError, match=rf"<DataFrame data>: {BAD} of 300 cells"):
        ragstat.interval(frame, score="hit1")
    report = ragstat.interval(
        frame, score="hit1", non_numeric="missing", seed=1, bootstrap_reps=199
    )
    assert report.N == 300 - BAD


def test_compare_paired_and_two_sample(capsys, tmp_path):
    rng = np.random.default_rng(3)
    rows = []
    for system in ("a", "b"):
        for i in range(120):
            hit = "timeout" if system == "a" and i < 10 else str(int(rng.random() < 0.7))
            rows.append((f"q{i}", f"d{i // 3}", system, hit))
    path = tmp_path / "two.csv"
    pd.DataFrame(rows, columns=["query_id", "doc_id", "system", "hit1"]).to_csv(path, index=False)
    base = ["compare", path, "--systems", "a,b", "--score", "hit1"]
    rc, _, err = cli(capsys, *base)
    assert rc == 2 and "10 of 120 cells of score column 'hit1'" in err and "'timeout'" in err
    rc, out, _ = cli(capsys, *base, "--non-numeric", "missing", "--on-missing", "drop",
                     "--seed", "1", "--bootstrap-reps", "199", "--json")  # fmt: skip
    assert rc == 0 and any("10 (A) and 0 (B)" in w for w in json.loads(out)["warnings"])
    rc, _, err = cli(capsys, *base, "--design", "two-sample", "--arm", "system")
    assert rc == 2 and "10 of 120 cells" in err


def test_dataset_folder_counts_the_cells_it_left_out(tmp_path):
    folder = tmp_path / "ds"
    folder.mkdir()
    frame = _error_table()
    frame.iloc[:150].to_parquet(folder / "a.parquet")
    frame.iloc[150:].to_parquet(folder / "b.parquet")
    with pytest.raises(InputError, match="not numbers"):
        ragstat.interval(folder, score="hit1")
    report = ragstat.interval(folder, score="hit1", non_numeric="missing", seed=1,
                              bootstrap_reps=199)  # fmt: skip
    assert report.N == 300 - BAD and any(f"{BAD} not a number" in w for w in report.warnings)


def test_cells_are_parsed_once_for_every_reader():
    values = [True, "ERROR", 1, None, "", " 0.5 ", np.nan, "nan", "n/a", "a\x1b[31m"]
    numbers, counts = numeric_cells(values, "s", "t", "missing")
    assert counts == CellCounts(missing=4, non_numeric=3)  # None, "", NaN, "nan"
    assert numbers[0] == 1.0 and numbers[5] == 0.5 and np.isnan(numbers[1])
    with pytest.raises(InputError) as info:
        numeric_cells(values, "s", "t")
    message = str(info.value)
    assert "\n" not in message and "\x1b" not in message and "\\x1b" in message
    assert "row 2: 'ERROR'" in message and "3 of 10 cells" in message
    assert numeric_cells(pd.Series([True, False]), "s", "t")[1] == CellCounts()


# -- the gates file itself -----------------------------------------------------------------


@pytest.mark.parametrize(
    "head, match",
    [
        ("bootstrap_reps = 10000000\n", r"bootstrap_reps must be in \[99, 1,000,000\]"),
        ("x = " + "[" * 3000 + "]" * 3000 + "\n", "not a valid TOML gates file"),
        ("level = " + "9" * 5000 + "\n", "too many digits"),
        ("max_unscored = " + "9" * 400 + "\n", "'max_unscored' is too large"),
        ("max_unscored = 2\n", "max_unscored is a share"),
        ('non_numeric = "zero"\n', "non_numeric must be one of error, missing"),
    ],
)
def test_gates_file_mistakes_exit_2(capsys, tmp_path, error_csv, head, match):
    rc, _, err = cli(capsys, "gate", _gates(tmp_path, error_csv, head=head))
    assert rc == 2 and re.search(match, err), err


def test_gates_file_must_be_a_regular_utf8_file(capsys, tmp_path):
    fifo = tmp_path / "gates.toml"
    os.mkfifo(fifo)
    rc, _, err = cli(capsys, "gate", fifo)  # would hang if it were opened
    assert rc == 2 and "not a regular file" in err
    bad = tmp_path / "latin.toml"
    bad.write_bytes(b"title = 'caf\xe9'\n")
    rc, _, err = cli(capsys, "gate", bad)
    assert rc == 2 and "not UTF-8" in err


def test_gates_per_file_are_capped(capsys, tmp_path, error_csv, monkeypatch):
    monkeypatch.setattr(gate_settings, "MAX_GATES", 2)
    gate = '[[gates]]\nname = "g{}"\nkind = "at_least"\nmetric = "hit1"\nthreshold = 0.5\n'
    path = _gates(tmp_path, error_csv)
    path.write_text(path.read_text() + "".join(gate.format(i) for i in range(2)))
    rc, _, err = cli(capsys, "gate", path)
    assert rc == 2 and "3 gates; at most 2 (MAX_GATES in ragstat/api/gate_settings.py)" in err


def test_control_characters_in_a_gate_name_keep_the_junit_xml_valid(capsys, tmp_path):
    table = tmp_path / "ok.csv"
    frame = _error_table()
    frame["hit1"] = 1
    frame.to_csv(table, index=False)
    gates = _gates(tmp_path, table)
    gates.write_text(gates.read_text().replace('"hit rate"', '"hit\\u0001 rate\\u001b[31m"'))
    junit = tmp_path / "junit.xml"
    rc, _, _ = cli(capsys, "gate", gates, "--junit", junit)
    assert rc == 0
    (case,) = ET.parse(junit).iter("testcase")  # strict XML 1.0 parser
    assert case.get("name") == "hit\\x01 rate\\x1b[31m"


def test_a_fifo_as_a_gate_input_or_a_table_is_refused_not_read(capsys, tmp_path):
    fifo = tmp_path / "scores.csv"
    os.mkfifo(fifo)
    rc, _, err = cli(capsys, "gate", _gates(tmp_path, fifo))
    assert rc == 2 and "is a FIFO (named pipe), not a regular file" in err
    with pytest.raises(InputError, match="FIFO"):
        ragstat.interval(fifo)


# -- the table through coverage, plan and simulate (issue 28 follow-up) --------------


@pytest.mark.parametrize(
    "verb",
    [
        ["coverage", "{csv}", "--dims", "doc_id", "--score", "hit1", "--json"],
        ["plan", "--pilot", "{csv}", "--score", "hit1", "--half-width", "0.1", "--json"],
        ["simulate", "{csv}", "--score", "hit1", "--k", "5", "--reps", "20",
         "--bootstrap-reps", "19", "--methods", "cr1", "--json"],
    ],
    ids=["coverage", "plan", "simulate"],
)  # fmt: skip
def test_error_table_stops_the_planning_verbs_then_runs_when_told(capsys, error_csv, verb):
    args = [str(error_csv) if a == "{csv}" else a for a in verb]
    rc, out, err = cli(capsys, *args)
    assert rc == 2 and out == "" and f"{BAD} of 300 cells of score column 'hit1'" in err
    rc, out, _ = cli(capsys, *args, "--non-numeric", "missing")
    assert rc == 0
    result = json.loads(out)
    said = json.dumps(result, ensure_ascii=False)
    assert f"{BAD} not a number" in said or f"{BAD} row(s) whose score is not a number" in said
