"""What ragstat writes to a terminal stays inert: control characters in names, ids, argv and
error messages are shown as visible escapes, rich markup in user text prints literally,
library warnings are one line each, and the Dask engine neither hangs on an unusable address
nor prints tracebacks when it shuts down."""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import subprocess
import sys
import types
import unicodedata
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from ragstat.cli import main
from ragstat.cli.terminal import error_line, route_warnings, safe
from ragstat.errors import InputError

ESC_NAME = "a\x1b[31mred.csv"
SYSTEM = "x\x1b]0;pwned\x07"
#: Characters a terminal obeys or reorders by: none may reach it raw.
UNSAFE = {chr(c) for c in (*range(0x20), *range(0x7F, 0xA0))} | set(
    "\u061c\u200e\u200f\u2028\u2029\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)


def _clean(text: str) -> bool:
    """No unsafe character, except the newlines that end lines."""
    return not (set(text.replace("\n", "")) & UNSAFE)


@pytest.fixture(autouse=True)
def _wide(monkeypatch):
    monkeypatch.setenv("COLUMNS", "1000")  # rich wraps long paths at 80 columns otherwise


def _table(path: Path, systems: tuple[str, ...] = ("s",)) -> Path:
    rng = np.random.default_rng(7)
    n = rng.integers(2, 9, 12)
    doc = np.repeat([f"d{i}" for i in range(n.size)], n)
    frames = [
        pd.DataFrame(
            {
                "query_id": [f"q{i}" for i in range(doc.size)],
                "doc_id": doc,
                "hit": (rng.random(doc.size) < 0.5).astype(float),
                "system": system,
            }
        )
        for system in systems
    ]
    pd.concat(frames).to_csv(path, index=False)
    return path


def _run_ids(capsys) -> list[str]:
    capsys.readouterr()
    assert main(["runs", "list", "--json"]) == 0
    return [m["run_id"] for m in json.loads(capsys.readouterr().out)]


# ------------------------------------------------------------------------ control characters


def test_safe_escapes_every_terminal_control():
    raw = "".join(sorted(UNSAFE)) + "\ud8ff ok é ü 中 \u200d"
    out = safe(raw)
    assert _clean(out) and "\n" not in out
    assert out.endswith(" ok é ü 中 \u200d")  # printable text, joiners included, untouched
    assert safe("a\x1b[31mred") == "a\\x1b[31mred"
    assert safe("\u202etxt.exe") == "\\u202etxt.exe"
    assert safe("line\nbreak\ttab\rCR\x85") == "line\\nbreak\\ttab\\rCR\\x85"
    assert safe(3) == "3"
    assert all(unicodedata.category(c) != "Cc" for c in out)


def test_escape_sequences_in_file_name_are_escaped(tmp_path, capsys):
    path = _table(tmp_path / ESC_NAME)
    assert main(["interval", str(path), "--seed", "1", "--bootstrap-reps", "99"]) == 0
    out = capsys.readouterr().out
    assert _clean(out)
    assert "a\\x1b[31mred.csv" in out


def test_escape_sequences_in_error_message_are_escaped(tmp_path, capsys):
    """The one-line error quotes the file name with its escapes visible (``error_line``, used
    by ``main``)."""
    missing = tmp_path / "no\x1b]0;pwned\x07such\u202efile.csv"
    assert main(["interval", str(missing)]) == 2
    err = capsys.readouterr().err
    assert _clean(err) and len(err.strip().splitlines()) == 1
    assert "no\\x1b]0;pwned\\x07such\\u202efile.csv" in err


def test_error_line_is_one_safe_line():
    line = error_line(InputError("bad \x1b[2J value\non two lines\u2028and a separator"))
    assert line == "bad \\x1b[2J value; on two lines\\u2028and a separator"
    assert error_line("first\r\n  second \n\n") == "first; second"
    assert error_line(KeyError("k\x07")) == "'k\\x07'"
    assert error_line(RuntimeError()) == "RuntimeError"


def test_system_value_escape_sequences_in_runs_show(tmp_path, capsys):
    """The --system value, in the recorded argv and config, prints escaped in runs show,
    diff and list (the first run is a real process, so its argv is the command line)."""
    path = _table(tmp_path / ESC_NAME, systems=(SYSTEM, "plain"))
    res = subprocess.run(
        [sys.executable, "-m", "ragstat", "interval", str(path), "--system", SYSTEM, "--json"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert main(["interval", str(path), "--system", "plain", "--json"]) == 0
    plain, escaped = _run_ids(capsys)[:2]  # newest first
    for args in (["show", escaped], ["diff", escaped, plain], ["list"]):
        capsys.readouterr()
        assert main(["runs", *args]) == 0
        out = capsys.readouterr().out
        assert _clean(out), args
        if args[0] != "list":
            assert "system: x\\x1b]0;pwned\\x07" in out, args
    capsys.readouterr()
    assert main(["runs", "show", escaped]) == 0
    shown = capsys.readouterr().out
    argv = next(line for line in shown.splitlines() if line.startswith("argv"))
    assert "a\\x1b[31mred.csv" in argv and "x\\x1b]0;pwned\\x07" in argv
    assert main(["runs", "show", escaped, "--json"]) == 0  # JSON stays exact JSON
    assert SYSTEM in json.loads(capsys.readouterr().out)["argv"]


def test_runs_list_columns_stay_aligned_with_escaped_names(tmp_path, capsys):
    from ragstat.cli.runs import list_runs
    from ragstat.registry import Manifest, Registry

    reg = Registry(tmp_path / "r.sqlite")
    empty = {"argv": (), "config": {}, "seed": None, "corpus_fingerprint": None, "inputs": {}}
    empty |= {"outputs": (), "results": {}, "versions": {}, "wall_s": 1.0}
    for run_id, command in (("20260301-101500-aaaaaa", "st\x1bdy"), ("20260301-101501-bbb", "x")):
        started = "2026-03-01T10:15:00+00:00"
        reg.record(Manifest(run_id=run_id, command=command, started_at=started, **empty))
    list_runs(limit=0, as_json=False, registry=reg.path)
    lines = capsys.readouterr().out.splitlines()
    assert _clean("\n".join(lines)) and any("st\\x1bdy" in line for line in lines)
    data = {line.index("—") for line in lines[1:]}  # the "data" column starts at one offset
    assert len(data) == 1


# ----------------------------------------------------------------------------- rich markup


def test_rich_markup_in_doc_id_printed_literally(capsys):
    """A doc id (here in a report warning) with markup and emoji codes prints as written."""
    from ragstat.cli.render import print_report
    from ragstat.inference import analyze
    from ragstat.records import aggregate_arrays

    doc = np.repeat(["[bold]d1[/bold]", "[red]d2", "d3 :warning:", "d4"], 5)
    y = np.tile([1.0, 0.0, 1.0, 0.0, 0.0], 4)
    report = analyze(aggregate_arrays(doc, y), methods=["cr2_bm"], seed=1)
    note = "document '[bold]d1[/bold]' \x1b[31m:warning: has one query"
    report = dataclasses.replace(report, warnings=(note,))
    print_report(report, source="[red]src.csv")
    out = capsys.readouterr().out
    assert "document '[bold]d1[/bold]' \\x1b[31m:warning: has one query" in out
    assert "[red]src.csv" in out and _clean(out)


def test_rich_markup_in_names_printed_literally(tmp_path, capsys):
    """Run names (from file names) and the file name itself print with their brackets."""
    qrels = tmp_path / "judged.qrels"
    run = tmp_path / "[bold]sys[red]\x1b[5m.run"
    judged = [f"q{i}\t0\tdoc{i % 4}#0\t1" for i in range(12)]
    ranked = [
        f"q{i}\tQ0\tdoc{(i + r) % 4}#0\t{r + 1}\t{1.0 / (r + 1)}\ttag"
        for i in range(12)
        for r in range(3)
    ]
    qrels.write_text("\n".join(judged) + "\n")
    run.write_text("\n".join(ranked) + "\n")
    code = main(
        ["evaluate", "--qrels", str(qrels), "--run", str(run), "--metrics", "mrr",
         "--cluster-by", "qrels-doc", "--bootstrap-reps", "99"]
    )  # fmt: skip
    assert code == 0
    out = capsys.readouterr().out
    assert "[bold]sys[red]\\x1b[5m:" in out and _clean(out)


# -------------------------------------------------------------------------------- warnings


def _library(name: str) -> types.ModuleType:
    """A module that warns the way a library does (from its own file and line)."""
    module = types.ModuleType(name)
    module.__file__ = f"/site-packages/{name.replace('.', '/')}.py"
    code = (
        "import warnings\n"
        "def first():\n"
        "    warnings.warn('Mean of empty slice\\n  (see docs)', RuntimeWarning)\n"
        "def second():\n"
        "    warnings.warn('Mean of empty slice  (see docs)', RuntimeWarning)\n"
        "def other():\n"
        "    warnings.warn('odd \\x1b[31m value', UserWarning)\n"
    )
    exec(compile(code, module.__file__, "exec"), module.__dict__)
    return module


def test_library_warning_is_one_line(capsys):
    lib, before = _library("fakepdf._reader"), warnings.showwarning
    with route_warnings(), warnings.catch_warnings():
        warnings.simplefilter("default")
        lib.first()
        lib.second()  # the same words from another line: not repeated
        lib.first()
        lib.other()
        logging.getLogger("fakepdf._reader").warning("Ignoring wrong pointing object %d", 6)
        logging.getLogger("fakepdf._reader").warning("Ignoring wrong pointing object %d", 6)
        logging.getLogger("fakepdf._reader").info("not shown")
    err = capsys.readouterr().err.splitlines()
    assert err == [
        "ragstat: warning: Mean of empty slice (see docs)",
        "ragstat: warning: odd \\x1b[31m value",
        "ragstat: warning: Ignoring wrong pointing object 6",
    ]
    assert warnings.showwarning is before  # restored on leaving the with block


def test_library_log_record_once_when_routed_twice(capsys):
    with route_warnings(), route_warnings():  # e.g. main() called again in one process
        logging.getLogger("fakeduck").warning("slow \x1b[31m scan")
    assert capsys.readouterr().err == "ragstat: warning: slow \\x1b[31m scan\n"
    assert not any(type(h).__name__ == "_LogToLine" for h in logging.getLogger().handlers)


def test_library_warning_filters_still_apply():
    lib = _library("fakesk.utils")
    with route_warnings(), warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(RuntimeWarning):
            lib.first()


# ------------------------------------------------------------------------------------ dask


def test_dask_inproc_address_is_one_line_error(tmp_path, capsys):
    pytest.importorskip("distributed")
    from ragstat.engine import EngineError, get_executor

    path = _table(tmp_path / "t.csv")
    args = ["simulate", str(path), "--k", "5", "--reps", "20", "--engine", "dask"]
    assert main([*args, "--scheduler", "inproc://x"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert "inproc://" in err and "tcp://HOST:PORT" in err
    with pytest.raises(EngineError, match="none runs here"):
        get_executor(engine="dask", scheduler="inproc://127.0.0.1/1/1", connect_timeout=30)


SHUTDOWN = """
import time
from ragstat.engine import get_executor
from ragstat.errors import InputError

def task(x):
    if x == 0:
        raise InputError("task 0 is bad input")
    time.sleep(3)  # still running when the executor closes
    return x

if __name__ == "__main__":
    with get_executor(2, "dask") as ex:
        try:
            ex.map(task, list(range(6)))
        except InputError as exc:
            print("caught", exc)
"""


def _stderr_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip()]


@pytest.mark.slow  # a Dask cluster
def test_dask_shutdown_prints_no_traceback(tmp_path):
    """A successful run and one that stops while workers are busy both close in silence
    (the workers' and nanny's logs of cancelled tasks and lost connections are off)."""
    pytest.importorskip("distributed")
    path = _table(tmp_path / "t.csv")
    env = {**os.environ, "COLUMNS": "200"}
    ok = subprocess.run(
        [sys.executable, "-m", "ragstat", "simulate", str(path), "--k", "5", "--reps", "40",
         "--bootstrap-reps", "19", "--engine", "dask", "--workers", "2", "--json"],
        capture_output=True, text=True, timeout=300, env=env,
    )  # fmt: skip
    assert ok.returncode == 0, ok.stderr
    assert "Traceback" not in ok.stderr and _stderr_lines(ok.stderr) == []
    script = tmp_path / "shutdown.py"
    script.write_text(SHUTDOWN)
    busy = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=300, env=env,
        cwd=tmp_path,
    )  # fmt: skip
    assert busy.returncode == 0, busy.stderr
    assert busy.stdout.strip() == "caught task 0 is bad input"
    assert "Traceback" not in busy.stderr and _stderr_lines(busy.stderr) == []


# ------------------------------------------------------------------------ piped output

#: What a Python repr looks like in printed text (a dict, a numpy scalar, a missing value).
REPRS = ("{'", "np.float64", "np.int64", "seed None", "= None")


def _no_repr(text: str) -> None:
    found = [r for r in REPRS if r in text]
    assert not found, f"Python repr(s) {found} in:\n{text}"


def _study_folder(path: Path) -> Path:
    """Eleven documents of several chunks, one of a single chunk (excluded with a reason)."""
    rng = np.random.default_rng(3)
    path.mkdir()
    for i in range(12):
        words = [f"t{i}w{j}" for j in range(30)] + [f"c{j}" for j in range(100)]
        n = 15 if i == 0 else int(rng.integers(120, 300))
        (path / f"doc{i:02d}.txt").write_text(" ".join(rng.choice(words, n)), "utf-8")
    return path


def test_piped_interval_output_keeps_long_lines_whole(tmp_path):
    """Through a real pipe, with no COLUMNS: rich would break lines at 80 columns."""
    path = _table(tmp_path / "t.csv")
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    done = subprocess.run(
        [sys.executable, "-m", "ragstat", "interval", str(path), "--seed", "1",
         "--bootstrap-reps", "99"],
        capture_output=True, text=True, timeout=120, env=env,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    diagnostics = [line for line in lines if line.startswith("ICC ")]
    assert len(diagnostics) == 1 and len(diagnostics[0]) > 100
    assert "top 10 % hold" in diagnostics[0]  # its end, on the same line
    assert any(len(line) > 80 for line in lines if line.startswith("★ "))
    _no_repr(done.stdout)


def test_piped_study_and_simulate_print_words_not_reprs(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)
    folder = _study_folder(tmp_path / "corpus")
    args = ["study", str(folder), "--out", str(tmp_path / "out"), "--chunk-words", "30",
            "--query-words", "8", "--quiet"]  # fmt: skip
    assert main(args) == 0
    out = capsys.readouterr().out
    _no_repr(out)
    assert out.splitlines()[0].startswith("For a random query, hit1 of ")
    head = next(line for line in out.splitlines() if line.endswith("queries per retriever"))
    assert "excluded single chunk: 1" in head and head.endswith("queries per retriever")
    assert main(["simulate", str(_table(tmp_path / "c.csv")), "--k", "4", "--reps", "20",
                 "--bootstrap-reps", "49"]) == 0  # fmt: skip
    out = capsys.readouterr().out
    _no_repr(out)
    assert any(
        line.startswith("census: ") and "samples per K, seed 0" in line for line in out.splitlines()
    )


def test_plain_text_writes_values_as_words():
    from ragstat.cli.terminal import plain_text

    assert plain_text({"single chunk": 74, "empty text": np.int64(3)}) == (
        "single chunk: 74, empty text: 3"
    )
    assert plain_text([np.float64(0.123456), None, True]) == "0.1235, —, yes"
    assert plain_text(1234567) == "1,234,567" and plain_text("a\x1bb") == "a\\x1bb"


def test_console_is_wide_only_when_piped(monkeypatch):
    from ragstat.cli.terminal import PIPE_WIDTH, console

    monkeypatch.setenv("COLUMNS", "40")
    piped = console()  # pytest captures stdout: not a terminal
    assert piped.width == PIPE_WIDTH and piped.soft_wrap
    monkeypatch.setenv("FORCE_COLOR", "1")  # rich treats the output as a terminal
    monkeypatch.setenv("TTY_COMPATIBLE", "1")
    assert console().width == 40
