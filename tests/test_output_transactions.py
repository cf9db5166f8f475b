"""Regression tests for the output-folder defects of issue 21, each named after its defect."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from conftest import NOTE, assert_complete, leftovers, snapshot, write_corpus
from ragstat import outfolder
from ragstat.cli import main


@pytest.fixture
def table(tmp_path) -> Path:
    rng = np.random.default_rng(5)
    n = rng.integers(1, 6, 25)
    doc = np.repeat([f"d{i}" for i in range(25)], n)
    frame = pd.DataFrame({"query_id": np.arange(n.sum()), "doc_id": doc})
    frame["hit"] = (rng.random(len(frame)) < 0.6).astype(int)
    path = tmp_path / "q.csv"
    frame.to_csv(path, index=False)
    return path


def _registry():
    from ragstat.registry import Registry

    return Registry(os.environ["RAGSTAT_REGISTRY"])


def test_failed_run_never_replaces_a_good_runs_files(table, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["interval", str(table), "--out", str(out)]) == 0
    before = snapshot(out)
    assert main(["interval", str(table), "--score", "nope", "--out", str(out)]) == 2
    assert snapshot(out) == before
    assert leftovers(out) == []
    assert [r.status for r in _registry().list()] == ["failed", "ok"]


def test_out_of_another_verbs_folder_is_refused_unless_force(table, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["interval", str(table), "--out", str(out)]) == 0
    (out / NOTE).write_text("keep me")
    before = snapshot(out)
    capsys.readouterr()
    assert main(["compare", str(table), str(table), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "ragstat interval" in err and "--force" in err and err.count("\n") == 1
    assert snapshot(out) == before
    assert main(["compare", str(table), str(table), "--out", str(out), "--force"]) == 0
    manifest = assert_complete(out)
    assert manifest["command"] == "compare"
    assert (out / NOTE).read_text() == "keep me"


def test_folder_ragstat_did_not_write_is_refused(table, tmp_path, capsys):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "thesis.tex").write_text("\\section{}")
    assert main(["interval", str(table), "--out", str(out), "--force"]) == 2
    assert "did not write" in capsys.readouterr().err
    assert [p.name for p in out.iterdir()] == ["thesis.tex"]


def test_out_as_the_working_folder_is_refused(table, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["interval", str(table), "--out", "."]) == 2
    assert "working folder" in capsys.readouterr().err


def test_study_never_reads_its_own_output_folder(tmp_path, capsys):
    corpus = tmp_path / "docs"
    corpus.mkdir()
    for i in range(6):
        words = " ".join(f"t{i}x{j % 37} common{j % 5}" for j in range(130))
        (corpus / f"doc{i}.txt").write_text(words)
    out = corpus / "results"
    assert main(["study", str(corpus), "--out", str(out), "--quiet", "--json"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert main(["study", str(corpus), "--out", str(out), "--json"]) == 0
    captured = capsys.readouterr()
    second = json.loads(captured.out)
    assert second["counts"] == first["counts"]
    assert second["counts"]["documents"] == 6
    # an output folder elsewhere in the corpus is skipped too, and said so
    assert main(["study", str(corpus), "--out", str(tmp_path / "elsewhere"), "--quiet"]) == 0
    assert main(["study", str(corpus), "--out", str(tmp_path / "third")]) == 0
    assert "not read as documents (ragstat output): results" in capsys.readouterr().err


def test_outputs_honour_the_umask(table, tmp_path):
    out = tmp_path / "out"
    old = os.umask(0o027)
    try:
        assert main(["interval", str(table), "--out", str(out)]) == 0
    finally:
        os.umask(old)
    modes = {p.name: p.stat().st_mode & 0o777 for p in out.iterdir()}
    assert set(modes.values()) == {0o640}, modes
    assert out.stat().st_mode & 0o777 == 0o750


def test_stale_staging_folder_of_a_dead_run_is_removed(table, tmp_path):
    out = tmp_path / "out"
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    stale = tmp_path / f".out.ragstat-incomplete-{dead.pid}-0000"
    stale.mkdir()
    (stale / "result.json").write_text("{half")
    assert main(["interval", str(table), "--out", str(out)]) == 0
    assert not stale.exists()
    assert_complete(out)


def test_a_live_run_writing_the_same_out_is_refused(table, tmp_path, capsys):
    out = tmp_path / "out"
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        (tmp_path / f".out.ragstat-incomplete-{other.pid}-0000").mkdir()
        assert main(["interval", str(table), "--out", str(out)]) == 2
        assert f"process {other.pid}" in capsys.readouterr().err
    finally:
        other.kill()
        other.wait()


def test_publish_without_atomic_exchange_and_recovery(table, tmp_path, monkeypatch):
    """Where renameat2 is missing the previous result is renamed aside first; a crash between
    the two renames is undone by the next run."""
    out = tmp_path / "out"
    assert main(["interval", str(table), "--out", str(out)]) == 0
    monkeypatch.setattr(outfolder, "_exchange", lambda a, b: False)
    assert main(["interval", str(table), "--seed", "9", "--out", str(out)]) == 0
    assert_complete(out)
    assert leftovers(out) == []
    # the crash: the previous result renamed aside, the new one never arrived
    before = snapshot(out)
    aside = tmp_path / ".out.ragstat-replaced-dead"
    os.rename(out, aside)
    outfolder.recover(out)
    assert snapshot(out) == before and not aside.exists()


def test_report_rerender_is_a_transaction(table, tmp_path, monkeypatch, capsys):
    import ragstat.report.write as write

    out = tmp_path / "out"
    assert main(["interval", str(table), "--out", str(out)]) == 0
    before = snapshot(out)
    real, calls = write.atomic_write_text, [0]

    def dies_on_second(path, text):
        calls[0] += 1
        if calls[0] == 2:
            raise KeyboardInterrupt
        return real(path, text)

    monkeypatch.setattr(write, "atomic_write_text", dies_on_second)
    assert main(["report", str(out), "--title", "New title"]) == 130
    assert snapshot(out) == before and leftovers(out) == []
    monkeypatch.setattr(write, "atomic_write_text", real)
    assert main(["report", str(out), "--title", "New title"]) == 0
    assert "New title" in (out / "report.html").read_text()
    assert (out / "result.json").read_bytes() == before["result.json"]


def test_a_killed_runs_staging_folder_is_not_read_as_a_result(table, tmp_path, capsys):
    stale = tmp_path / ".out.ragstat-incomplete-1-abcd"
    stale.mkdir()
    pd.read_csv(table).to_parquet(stale / "records.parquet")
    assert main(["interval", str(stale / "records.parquet")]) == 2
    assert "unfinished run" in capsys.readouterr().err
    assert main(["report", str(stale)]) == 2


def test_sigint_exits_130_and_is_not_swallowed(table, monkeypatch, capsys):
    """Ctrl-C used to end in exit 0 (the exit code of typer.Exit was dropped)."""
    import ragstat.api.verbs.interval as cli_interval

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli_interval, "aggregate_path", interrupted)
    assert main(["interval", str(table)]) == 130
    assert capsys.readouterr().err == "ragstat: interrupted by SIGINT\n"
    assert [r.status for r in _registry().list()] == ["interrupted"]


def test_sigint_inside_a_duckdb_query_exits_130(table, monkeypatch, capsys):
    import duckdb

    import ragstat.api.verbs.interval as cli_interval

    def interrupted(*args, **kwargs):
        raise duckdb.InterruptException("INTERRUPT Error: Interrupted!")

    monkeypatch.setattr(cli_interval, "aggregate_path", interrupted)
    assert main(["interval", str(table)]) == 130
    assert capsys.readouterr().err == "ragstat: interrupted by SIGINT\n"


def test_sigint_during_startup_imports_prints_one_line(tmp_path):
    code = (
        "import sys\n"
        "class Stop:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'typer': raise KeyboardInterrupt\n"
        "sys.meta_path.insert(0, Stop())\n"
        "sys.argv = ['ragstat', '--help']\n"
        "from ragstat._entry import run\n"
        "run()\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 130
    assert done.stderr == "ragstat: interrupted by SIGINT while starting\n"


@pytest.mark.slow  # fault injection
@pytest.mark.parametrize("delay", [1.0, 3.0])
def test_study_killed_at_any_moment_keeps_a_whole_result(tmp_path, delay):
    """kill -9 of `study --retrievers bm25` over a bm25+tfidf folder used to leave bm25
    records beside a bm25+tfidf report."""
    corpus = write_corpus(tmp_path / "corpus.jsonl")
    out = tmp_path / "K"
    env = {**os.environ}
    first = [sys.executable, "-m", "ragstat", "study", str(corpus), "--quiet", "--out", str(out)]
    subprocess.run(first, env=env, check=True, capture_output=True)
    before = snapshot(out)
    proc = subprocess.Popen(
        [*first, "--retrievers", "bm25"], env=env, stderr=subprocess.PIPE, text=True
    )
    time.sleep(delay)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    after = snapshot(out)
    if after != before:
        assert_complete(out)
    summary = json.loads((out / "summary.json").read_text())
    report = json.loads((out / "report.json").read_text())
    names = sorted(summary["retrievers"])
    assert names in (["bm25", "tfidf"], ["bm25"])
    assert set(names) <= set(json.dumps(report).split('"')) and (
        names == ["bm25"] or "tfidf" in json.dumps(report)
    )
    assert all(".ragstat-incomplete-" in name for name in leftovers(out))


# ------------------------------------------------------------- found in review (issue 21)


def test_out_with_dotdot_is_resolved_before_the_checks(table, tmp_path, monkeypatch, capsys):
    """`--out nonexist/..` named the working folder past the guards and copied it into itself."""
    monkeypatch.chdir(tmp_path)
    assert main(["interval", str(table), "--out", "nonexist/.."]) == 2
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path / "sub")
    assert main(["interval", str(table), "--out", "../sub"]) == 2
    assert capsys.readouterr().err.count("working folder") == 2
    assert leftovers(tmp_path / "sub") == [] and not list((tmp_path / "sub").iterdir())


def test_out_as_a_symlink_publishes_into_its_target(table, tmp_path):
    real, link = tmp_path / "real", tmp_path / "link"
    assert main(["interval", str(table), "--out", str(real)]) == 0
    link.symlink_to(real)
    assert main(["interval", str(table), "--seed", "5", "--out", str(link)]) == 0
    assert link.is_symlink() and link.resolve() == real
    manifest = assert_complete(real)
    assert manifest["config"]["seed"] == 5
    assert leftovers(real) == [] and leftovers(link) == []


def test_users_file_with_an_output_name_is_refused_not_overwritten(table, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["compare", str(table), str(table), "--out", str(out)]) == 0
    (out / "result.json").unlink()
    assert main(["compare", str(table), str(table), "--out", str(out)]) == 0
    (out / "report.md").write_text("my own summary")  # not an output of the run recorded there
    manifest = json.loads((out / "manifest.json").read_text())
    manifest["outputs"] = [p for p in manifest["outputs"] if not p.endswith("report.md")]
    (out / "manifest.json").write_text(json.dumps(manifest))
    capsys.readouterr()
    assert main(["interval", str(table), "--out", str(out), "--force"]) == 2
    assert "report.md is not an output" in capsys.readouterr().err
    assert (out / "report.md").read_text() == "my own summary"


def test_legacy_study_files_are_not_carried_into_another_kind(table, tmp_path):
    out = tmp_path / "old-study"
    out.mkdir()
    pd.read_csv(table).to_parquet(out / "records.parquet")
    (out / "summary.json").write_text("{}")
    (out / "index").mkdir()
    (out / "index" / "manifest.json").write_text("{}")
    (out / NOTE).write_text("mine")
    assert main(["interval", str(table), "--out", str(out), "--force"]) == 0
    assert sorted(p.name for p in out.iterdir()) == sorted(
        [NOTE, "manifest.json", "report.html", "report.json", "report.md", "result.json"]
    )


def test_kind_check_runs_after_a_crashed_publish_is_undone(table, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["interval", str(table), "--out", str(out)]) == 0
    os.rename(out, tmp_path / ".out.ragstat-replaced-0badc0de")
    assert main(["compare", str(table), str(table), "--out", str(out)]) == 2
    assert "ragstat interval" in capsys.readouterr().err
    assert_complete(out)


def test_a_signal_while_the_command_line_is_parsed_is_named(monkeypatch, capsys):
    """typer turns it into a bare exit code 130, without a word (and 130 for SIGTERM too)."""
    import ragstat.cli as cli
    from ragstat.signals import Terminated, received

    def parsing(**kwargs):
        received.append(Terminated())
        return 130

    monkeypatch.setattr(cli, "app", parsing)
    assert main(["interval", "--help"]) == 143
    assert capsys.readouterr().err == "ragstat: interrupted by SIGTERM\n"


def test_batched_study_rebuilds_its_index_in_staging(tmp_path, monkeypatch):
    """`study --workers 2` rebuilt OUT/index in place: a run stopped after the rebuild left the
    previous result's index changed."""
    import ragstat.selfretrieval as study_pkg

    corpus = write_corpus(tmp_path / "corpus.jsonl")
    out = tmp_path / "out"
    args = ["study", str(corpus), "--workers", "2", "--quiet", "--out", str(out)]
    assert main([*args, "--retrievers", "bm25"]) == 0
    assert (out / "index" / "bm25").is_dir()
    before = snapshot(out)
    inode = (out / "index" / "bm25" / "data.csc.index.npy").stat().st_ino

    def stop(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(study_pkg, "write_study", stop)
    assert main([*args, "--retrievers", "tfidf", "--chunk-words", "80"]) == 130
    assert snapshot(out) == before and leftovers(out) == []
    monkeypatch.undo()
    assert main([*args, "--retrievers", "bm25"]) == 0  # the unchanged index is reused
    assert (out / "index" / "bm25" / "data.csc.index.npy").stat().st_ino == inode


def test_a_mount_point_inside_out_is_refused_and_left_alone(table, tmp_path, capsys):
    """The clean-up of the previous result descended into a mounted folder and emptied it."""
    out = tmp_path / "out"
    assert main(["interval", str(table), "--out", str(out)]) == 0
    data = out / "data"
    data.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "tmpfs", str(data)], capture_output=True)
    if mounted.returncode != 0:
        pytest.skip("cannot mount a tmpfs here")
    try:
        (data / "precious.txt").write_text("keep")
        assert main(["interval", str(table), "--out", str(out)]) == 2
        assert "data inside it is a mount point" in capsys.readouterr().err
        assert (data / "precious.txt").read_text() == "keep"
        assert main(["interval", str(table), "--out", str(data)]) == 2
        assert "is a mount point" in capsys.readouterr().err
    finally:
        subprocess.run(["umount", "-l", str(data)], capture_output=True)
