"""Regression tests for defects the hostile sweep found in the command line and readers:
argv that is not UTF-8, BEIR/MTEB TSV lines the csv module refuses, a damaged ``.eval``
archive, FIFOs where a run folder's files or the registry belong, and a gates file with
more gates than can be decided in time. Each is one ``ragstat: error:`` line, exit 2."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ragstat.api import gate_settings
from ragstat.cli import main

FIXTURES = Path(__file__).parent / "fixtures" / "adapters"


def cli(capsys, *args: object) -> tuple[int, str]:
    """``ragstat ARGS`` in-process; exit 2 must be one ``ragstat: error:`` line."""
    rc = main([str(a) for a in args])
    err = capsys.readouterr().err
    assert "Traceback" not in err and "internal error" not in err, err
    lines = [line for line in err.splitlines() if line.strip()]
    assert rc == 2 and len(lines) == 1 and lines[0].startswith("ragstat: error: "), err
    return rc, lines[0]


def run_cli(*args: str | bytes, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """``ragstat ARGS`` in a child process (bytes reach argv as the OS gives them), killed
    after 20 s so a blocking open fails the test instead of hanging it."""
    code = "import sys; from ragstat.cli import main; sys.exit(main())"
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        timeout=20,
        cwd=cwd,
        env={**os.environ, "RAGSTAT_REGISTRY": "off"},
    )


def one_error_line(proc: subprocess.CompletedProcess) -> str:
    err = proc.stderr.decode("utf-8", "replace")
    lines = [line for line in err.splitlines() if line.strip()]
    assert proc.returncode == 2, err
    assert len(lines) == 1 and lines[0].startswith("ragstat: error: "), err
    return lines[0]


# -- 1. argv that is not UTF-8 ----------------------------------------------------------


def test_argv_bytes_that_are_not_utf8_are_one_line(tmp_path):
    table = tmp_path / "t.csv"
    table.write_text("a\n1\n")
    proc = run_cli(
        b"interval", str(table).encode(), b"--from", b"inspect", b"--system", b"\xed\xa0\x80"
    )
    line = one_error_line(proc)
    assert line == "ragstat: error: argument 6 is not valid UTF-8: \\xed\\xa0\\x80"
    proc = run_cli(b"report", str(tmp_path).encode(), b"--title", b"ab\xffc")
    assert one_error_line(proc) == "ragstat: error: argument 4 is not valid UTF-8: ab\\xffc"


def test_a_lone_surrogate_passed_to_main_is_one_line(capsys):
    _, line = cli(capsys, "interval", "x.csv", "--system", "a\ud800b")
    assert line == "ragstat: error: argument 4 is not valid UTF-8: a\\ud800b"


def test_valid_unicode_arguments_pass_the_check(capsys, tmp_path):
    rc = main(["report", str(tmp_path / "nowhere"), "--title", "café ✓"])
    err = capsys.readouterr().err
    assert rc == 2 and "UTF-8" not in err and "nowhere" in err


# -- 2. BEIR / MTEB TSV lines the csv module refuses ------------------------------------


@pytest.mark.parametrize("tool", ["beir", "mteb"])
def test_a_qrels_line_over_the_csv_field_limit_is_one_line(capsys, tmp_path, tool):
    data = tmp_path / "data"
    shutil.copytree(FIXTURES / tool / "tiny", data)
    qrels = data / "qrels" / "test.tsv"
    qrels.write_text(qrels.read_text() + "q01\t" + "x" * 200_000 + "\t1\n")
    _, line = cli(capsys, "evaluate", data, "--from", tool, "--bootstrap-reps", "99")
    lines = len(qrels.read_text().splitlines())
    assert f"test.tsv:{lines}:" in line and "field limit" in line


@pytest.mark.parametrize("tool", ["beir", "mteb"])
def test_nul_bytes_in_qrels_are_one_line(capsys, tmp_path, tool):
    data = tmp_path / "data"
    shutil.copytree(FIXTURES / tool / "tiny", data)
    qrels = data / "qrels" / "test.tsv"
    raw = qrels.read_bytes()
    qrels.write_bytes(raw[: len(raw) // 2] + b"\x00" * 16 + raw[len(raw) // 2 :])
    _, line = cli(capsys, "evaluate", data, "--from", tool, "--bootstrap-reps", "99")
    assert "test.tsv:" in line and "NUL byte" in line


# -- 3. a damaged .eval archive ---------------------------------------------------------


def test_a_bom_crlf_mangled_eval_archive_is_one_line(tmp_path):
    folder = tmp_path / "inspect"
    shutil.copytree(FIXTURES / "inspect", folder)
    archive = folder / "eval" / "alpha.eval"
    archive.write_bytes(b"\xef\xbb\xbf" + archive.read_bytes().replace(b"\n", b"\r\n"))
    proc = run_cli(
        "interval", "eval", "--from", "inspect", "--cluster-by", "source_doc",
        "--system", "mockllm/alpha", "--score", "grade", "--json",
        cwd=folder,
    )  # fmt: skip
    line = one_error_line(proc)  # no "Exception ignored in ZipFile.__del__" traceback
    assert "alpha.eval" in line and "not a readable zip archive" in line


# -- 4. FIFOs that would block an open --------------------------------------------------


@pytest.mark.parametrize("name", ["manifest.json", "report.json", "summary.json"])
def test_report_refuses_a_fifo_in_the_run_folder(tmp_path, name):
    run = tmp_path / "run"
    run.mkdir()
    os.mkfifo(run / name)
    line = one_error_line(run_cli("report", str(run)))
    assert name in line and "FIFO" in line


@pytest.mark.parametrize("verb", [["list"], ["show", "abc"], ["diff", "abc", "def"]])
def test_runs_refuse_a_fifo_registry(tmp_path, verb):
    fifo = tmp_path / "registry.sqlite"
    os.mkfifo(fifo)
    line = one_error_line(run_cli("runs", *verb, "--registry", str(fifo)))
    assert "registry.sqlite" in line and "not a regular file" in line


# -- 5. gates per file ------------------------------------------------------------------


def test_more_than_1000_gates_stop_at_once_with_the_way_out(capsys, tmp_path):
    assert gate_settings.MAX_GATES == 1_000
    table = tmp_path / "t.csv"
    table.write_text("query_id,doc_id,hit1\n" + "".join(f"q{i},d{i % 7},1\n" for i in range(50)))
    gate = '[[gates]]\nname = "g{}"\nkind = "at_least"\nmetric = "hit1"\nthreshold = 0.5\n'
    path = tmp_path / "gates.toml"
    path.write_text(
        f'seed = 1\n[inputs.candidate]\npath = "{table}"\n'
        + "".join(gate.format(i) for i in range(2_000))
    )
    start = time.perf_counter()
    _, line = cli(capsys, "gate", path)
    assert time.perf_counter() - start < 5
    assert "2,000 gates; at most 1,000" in line and "split the gates" in line


def test_limits_page_states_the_gates_cap():
    limits = (Path(__file__).parents[1] / "docs" / "limits.md").read_text()
    assert "| gates in one gates file; bytes of a gates file | 1,000; 16 MiB |" in limits
