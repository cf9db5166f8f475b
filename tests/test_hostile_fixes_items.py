"""Hostile-sweep defects of the item verbs (issue 28), each stopped with one line (exit 2):
score cells that are not numbers in `rewriting` (the one rule of ragstat.records.cells),
timing cells that are not numbers in `latency`, bootstrap replicates past the cap of 10⁶
for every item verb, a labels file that is not a regular file; and no raw escape sequence
from a record reaches summary.md."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from ragstat.api.items import check_reps
from ragstat.api.verbs.ingestion import latency
from ragstat.api.verbs.rewriting import rewriting
from ragstat.cli import main
from ragstat.errors import InputError
from ragstat.inference.analyze import MAX_REPS

FORMATS = Path(__file__).parent / "fixtures" / "formats"
FAST = ["--seed", "7", "--bootstrap-reps", "99"]


def _records(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


def _write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _one_error_line(capsys) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert "internal error" not in err[0]
    return err[0]


@pytest.mark.parametrize(("column", "text"), [("baseline", "ERROR"), ("hyde", "true")])
def test_rewriting_cell_that_is_not_a_number_is_one_line(tmp_path, capsys, column, text):
    rows = _records(FORMATS / "rewriting" / "queries.jsonl")
    for i in range(1, len(rows), 3):
        rows[i][column] = text
    path = _write(tmp_path / "q.jsonl", rows)
    assert main(["rewriting", str(path), "--score", "recall@10", *FAST]) == 2
    line = _one_error_line(capsys)
    assert f"score column {column!r}" in line and repr(text) in line and "row 2" in line
    assert "--non-numeric missing" in line
    # opting in: the cells are left out and counted, and the verb runs
    found = rewriting(path, score="recall@10", bootstrap_reps=99, seed=7, non_numeric="missing")
    assert any("8 not a number" in n for n in found.notes)
    assert {d.method for d in found.decisions} == {"expansion", "hyde"}  # none dropped


def test_rewriting_nan_text_is_missing_not_an_error(tmp_path):
    rows = _records(FORMATS / "rewriting" / "queries.jsonl")
    rows[2]["expansion"] = "NaN"
    found = rewriting(_write(tmp_path / "q.jsonl", rows), score="recall@10", bootstrap_reps=99)
    every = next(d for d in found.decisions if d.method == "expansion" and d.slice == "all")
    assert every.queries == len(rows) - 1


@pytest.mark.parametrize(
    ("field", "value", "said"),
    [
        ("start_ms", "NaN", "needs a number in duration_ms, or in both start_ms and end_ms"),
        ("end_ms", "", "needs a number in duration_ms, or in both start_ms and end_ms"),
        ("start_ms", "ERROR", "start_ms is not a number: 'ERROR'"),
        ("end_ms", True, "end_ms is a boolean"),
        ("end_ms", "9" * 400, "end_ms − start_ms must be finite"),
    ],
)
def test_latency_timing_cell_that_is_not_a_number_is_one_line(tmp_path, capsys, field, value, said):
    rows = _records(FORMATS / "latency" / "trace.jsonl")
    at = next(i for i, r in enumerate(rows) if field in r)
    rows[at][field] = value
    path = _write(tmp_path / "trace.jsonl", rows)
    assert main(["latency", str(path), *FAST]) == 2
    line = _one_error_line(capsys)
    assert said in line and f"span {at + 1}" in line


def test_latency_numeric_text_is_a_number(tmp_path):
    rows = _records(FORMATS / "latency" / "trace.jsonl")
    rows[0]["duration_ms"] = " 41.5 "
    found = latency(_write(tmp_path / "t.jsonl", rows), bootstrap_reps=99, seed=7)
    plain = latency(FORMATS / "latency" / "trace.jsonl", bootstrap_reps=99, seed=7)
    assert found.percentiles == plain.percentiles


ITEM_VERBS = {
    "routing": [str(FORMATS / "routing" / "queries.jsonl"), "--cluster-by", "doc_id"],
    "rewriting": [str(FORMATS / "rewriting" / "queries.jsonl"), "--score", "recall@10"],
    "latency": [str(FORMATS / "latency" / "trace.jsonl")],
    "ingestion": [str(FORMATS / "ingestion" / "pages.jsonl"), "--cluster-by", "file"],
    "chunking": [str(FORMATS / "chunking" / "chunks.jsonl")],
    "extraction": [str(FORMATS / "extraction" / "items.jsonl"), "--cluster-by", "doc"],
    "nuggets": [str(FORMATS / "nuggets" / "answers.jsonl"), "--cluster-by", "topic"],
    "generation": [str(FORMATS / "generation" / "answers.jsonl")],
}


@pytest.mark.parametrize("verb", sorted(ITEM_VERBS))
@pytest.mark.parametrize("reps", ["1000000000", "0"])
def test_bootstrap_reps_are_capped_for_every_item_verb(verb, reps, capsys):
    assert main([verb, *ITEM_VERBS[verb], "--seed", "7", "--bootstrap-reps", reps]) == 2
    line = _one_error_line(capsys)
    assert "--bootstrap-reps" in line and f"{MAX_REPS:,}" in line


def test_check_reps_accepts_the_cap_and_refuses_other_types():
    assert check_reps(MAX_REPS) == MAX_REPS
    for bad in (MAX_REPS + 1, 0, True, 99.0, "99"):
        with pytest.raises(InputError, match="bootstrap_reps"):
            check_reps(bad)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_routing_labels_file_must_be_a_regular_file(tmp_path, capsys):
    fifo = tmp_path / "labels"
    os.mkfifo(fifo)  # reading it would block: it must be refused without opening
    queries = ITEM_VERBS["routing"]
    assert main(["routing", *queries, "--labels-file", str(fifo), *FAST]) == 2
    assert "not a regular file" in _one_error_line(capsys)
    if Path("/dev/urandom").is_char_device():  # endless: must be refused, not read
        assert main(["routing", *queries, "--labels-file", "/dev/urandom", *FAST]) == 2
        assert "character device" in _one_error_line(capsys)


def test_routing_labels_file_is_read_as_lines(tmp_path, capsys):
    labels = tmp_path / "labels.txt"
    labels.write_text("no_retrieval\n\nsingle_step\r\niterative\n", encoding="utf-8")
    assert main(["routing", *ITEM_VERBS["routing"], "--labels-file", str(labels), *FAST]) == 0


ESCAPES = {
    "chunking": ("chunking/chunks.jsonl", "chunker", "\x1b[31mred\x1b[0m"),
    "ingestion": ("ingestion/pages.jsonl", "file", "\x1b[31mred\x1b[0m"),
    "latency": ("latency/trace.jsonl", "stage", "\x1b]0;pwned\x07x"),
    "routing": ("routing/queries.jsonl", "doc_id", "\x1b]0;pwned\x07x"),
    "rewriting": ("rewriting/queries.jsonl", "slice", "\x1b[31mred\x1b[0m"),
}


@pytest.mark.parametrize("verb", sorted(ESCAPES))
def test_no_raw_escape_reaches_summary_md(verb, tmp_path, capsys):
    rel, key, text = ESCAPES[verb]
    rows = _records(FORMATS / rel)
    for r in rows:
        if key in r and r[key] == rows[1].get(key):
            r[key] = text  # every record of that group: the name reaches the summary
    path = _write(tmp_path / Path(rel).name, rows)
    args = [str(path), *ITEM_VERBS[verb][1:]]
    out = tmp_path / "out"
    assert main([verb, *args, *FAST, "--out", str(out)]) == 0
    capsys.readouterr()
    summary = (out / "summary.md").read_text(encoding="utf-8")
    assert "\x1b" not in summary and "\x07" not in summary
    assert "\\x1b" in summary or verb in ("ingestion", "routing")  # shown, escaped
