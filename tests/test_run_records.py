"""Every verb leaves a manifest, a report and a registry entry; the registry never costs a run."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from ragstat.cli import main
from ragstat.registry import Registry


def _words(n: int, seed: int) -> str:
    rng = np.random.default_rng(seed)
    vocab = [f"w{i}" for i in range(300)]
    return " ".join(rng.choice(vocab, n))


@pytest.fixture
def corpus(tmp_path) -> Path:
    path = tmp_path / "c.jsonl"
    rows = [
        {"doc_id": f"d{i}", "text": _words(260, i), "kind": "x" if i % 2 else "y"} for i in range(8)
    ]
    path.write_text("\n".join(json.dumps(r) for r in rows))
    return path


@pytest.fixture
def table(tmp_path) -> Path:
    rng = np.random.default_rng(3)
    n = rng.integers(2, 12, 30)
    doc = np.repeat([f"doc{i:02d}" for i in range(30)], n)
    path = tmp_path / "t.parquet"
    pd.DataFrame(
        {
            "query_id": [f"q{i}" for i in range(doc.size)],
            "doc_id": doc,
            "hit": (rng.random(doc.size) < 0.4).astype(float),
        }
    ).to_parquet(path)
    return path


def _registry() -> Registry:
    return Registry(Path(os.environ["RAGSTAT_REGISTRY"]))


def _diff_json(capsys, a: str, b: str) -> dict:
    capsys.readouterr()
    assert main(["runs", "diff", a, b, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_study_writes_report_manifest_and_registry_entry(corpus, tmp_path, capsys):
    out = tmp_path / "s"
    assert main(["study", str(corpus), "--out", str(out), "--seed", "3", "--json"]) == 0
    for name in ("report.json", "report.md", "report.html", "manifest.json", "summary.json"):
        assert (out / name).is_file(), name
    manifest = json.loads((out / "manifest.json").read_text())
    runs = _registry().list()
    assert [r.run_id for r in runs] == [manifest["run_id"]]
    run = runs[0]
    assert run.command == "study" and run.seed == 3 and run.config["chunk_words"] == 100
    assert (
        run.corpus_fingerprint
        == json.loads((out / "summary.json").read_text())["corpus_fingerprint"]
    )
    assert set(run.inputs) == {"corpus"} and len(run.inputs["corpus"]) == 64
    assert str(out / "records.parquet") in run.outputs
    assert set(run.results) == {"bm25", "tfidf"}
    assert run.wall_s > 0


def test_runs_diff_names_exactly_seed_and_chunk_size(corpus, tmp_path, capsys):
    args = ["study", str(corpus), "--json", "--retrievers", "bm25"]
    assert main([*args, "--out", str(tmp_path / "a"), "--seed", "1"]) == 0
    assert main([*args, "--out", str(tmp_path / "b"), "--seed", "2", "--chunk-words", "50"]) == 0
    a, b = (json.loads((tmp_path / x / "manifest.json").read_text())["run_id"] for x in "ab")
    diff = _diff_json(capsys, a, b)
    assert {c["key"] for c in diff["config"]} == {"seed", "chunk_words"}
    assert diff["data"] == []  # same corpus file, same fingerprint
    assert diff["results"]  # hit@1 moved with the chunk size
    capsys.readouterr()
    assert main(["runs", "diff", a, b]) == 0
    text = capsys.readouterr().out
    assert "seed" in text and "chunk_words" in text


def test_interval_compare_simulate_write_their_report(table, tmp_path, capsys):
    for verb, extra in (
        ("interval", [str(table), "--seed", "5"]),
        ("compare", [str(table), str(table), "--seed", "5"]),
        ("simulate", [str(table), "--k", "10", "--reps", "100", "--bootstrap-reps", "49"]),
    ):
        out = tmp_path / verb
        assert main([verb, *extra, "--out", str(out), "--json"]) == 0, verb
        printed = json.loads(capsys.readouterr().out)
        assert json.loads((out / "result.json").read_text()) == printed
        assert {"report.html", "report.md", "report.json", "manifest.json"} <= {
            p.name for p in out.iterdir()
        }
    kinds = [r.command for r in _registry().list()]
    assert sorted(kinds) == ["compare", "interval", "simulate"]
    interval_run = next(r for r in _registry().list() if r.command == "interval")
    assert interval_run.config["seed"] == 5
    assert set(interval_run.results) == {"micro", "macro"}


def test_runs_list_and_show(table, tmp_path, capsys):
    assert main(["interval", str(table), "--seed", "1", "--json"]) == 0
    capsys.readouterr()
    assert main(["runs", "list", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    run_id = listed[0]["run_id"]
    assert main(["runs", "show", run_id[:-3], "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["command"] == "interval"
    assert main(["runs", "show", "nope"]) == 2


def test_report_rerenders_a_run_folder(table, tmp_path, capsys):
    out = tmp_path / "r"
    assert main(["interval", str(table), "--seed", "2", "--out", str(out)]) == 0
    html = (out / "report.html").read_text()
    (out / "report.html").unlink()
    (out / "report.md").unlink()
    assert main(["report", str(out)]) == 0
    assert (out / "report.html").read_text() == html
    assert (out / "report.md").is_file()
    assert main(["report", str(tmp_path / "missing")]) == 2


_LOCK = """
import sqlite3, sys, time
con = sqlite3.connect(sys.argv[1], isolation_level=None)
con.execute("BEGIN EXCLUSIVE")
print("locked", flush=True)
time.sleep(float(sys.argv[2]))
con.execute("COMMIT")
"""


def test_a_locked_registry_costs_the_run_nothing(table, tmp_path, capsys, monkeypatch):
    registry = Path(os.environ["RAGSTAT_REGISTRY"])
    assert main(["interval", str(table), "--seed", "1", "--json"]) == 0  # creates the registry
    monkeypatch.setenv("RAGSTAT_REGISTRY_TIMEOUT", "0.5")
    holder = subprocess.Popen(
        [sys.executable, "-c", _LOCK, str(registry), "5"], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout.readline().strip() == "locked"
        out = tmp_path / "locked"
        start = time.perf_counter()
        capsys.readouterr()
        assert main(["interval", str(table), "--seed", "2", "--out", str(out), "--json"]) == 0
        assert time.perf_counter() - start < 4.5
        err = capsys.readouterr().err
        assert "not recorded" in err and "locked" in err
        assert json.loads((out / "result.json").read_text())["seed"] == 2
        assert (out / "report.html").is_file() and (out / "manifest.json").is_file()
    finally:
        holder.kill()
        holder.wait()
    con = sqlite3.connect(registry)
    assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    con.close()
    assert len(_registry().list()) == 1


def test_a_registry_deleted_between_runs_is_recreated(table, tmp_path, capsys):
    registry = Path(os.environ["RAGSTAT_REGISTRY"])
    assert main(["interval", str(table), "--seed", "1", "--json"]) == 0
    for suffix in ("", "-wal", "-shm"):
        Path(f"{registry}{suffix}").unlink(missing_ok=True)
    out = tmp_path / "after"
    assert main(["interval", str(table), "--seed", "2", "--out", str(out), "--json"]) == 0
    assert [r.seed for r in _registry().list()] == [2]
    assert (out / "report.html").is_file()


def test_a_registry_that_is_not_a_database_is_left_alone(table, tmp_path, capsys):
    registry = Path(os.environ["RAGSTAT_REGISTRY"])
    registry.parent.mkdir(parents=True, exist_ok=True)
    registry.write_bytes(b"not a database, keep me" * 100)
    out = tmp_path / "o"
    assert main(["interval", str(table), "--out", str(out), "--json"]) == 0
    assert "not recorded" in capsys.readouterr().err
    assert registry.read_bytes() == b"not a database, keep me" * 100
    assert (out / "result.json").is_file()


def test_registry_off_records_nothing(table, tmp_path, monkeypatch):
    monkeypatch.setenv("RAGSTAT_REGISTRY", "off")
    assert main(["interval", str(table), "--json"]) == 0
    assert not (tmp_path / ".ragstat").exists()


def test_a_failed_run_is_recorded_as_failed(tmp_path, capsys):
    bad = tmp_path / "bad.csv"
    bad.write_text("query_id,doc_id,hit\nq1,d1,1\nq2,d1,nan\n")
    out = tmp_path / "failed"
    assert main(["interval", str(bad), "--out", str(out)]) == 2
    (run,) = _registry().list()
    assert run.status == "failed" and "NaN" in run.error
    assert not out.exists()  # a failed run publishes nothing (the registry has its error)


def test_the_same_file_by_relative_and_absolute_path_is_the_same_run(
    table, tmp_path, capsys, monkeypatch
):
    monkeypatch.chdir(table.parent)
    assert main(["interval", table.name, "--seed", "1", "--json"]) == 0
    assert main(["interval", str(table.resolve()), "--seed", "1", "--json"]) == 0
    b, a = (r.run_id for r in _registry().list())
    diff = _diff_json(capsys, a, b)
    assert diff["config"] == [] and diff["data"] == [] and diff["results"] == []


def test_compare_counts_documents_lost_by_dropping(table, tmp_path, capsys):
    frame = pd.read_parquet(table)
    other = tmp_path / "other.parquet"
    frame[frame["doc_id"] != "doc00"].to_parquet(other)
    out = tmp_path / "cmp"
    args = ["compare", str(table), str(other), "--on-missing", "drop", "--out", str(out), "--json"]
    assert main(args) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["paired"]["pairing"]["documents_lost"] == 1
    assert printed["K"] == 29
    assert "documents with no matched query" in (out / "report.md").read_text()


def test_the_manifest_records_the_command_line_main_was_given(tmp_path):
    """Called from Python (an embedding, a test), the manifest shows main's argv, not the
    host program's sys.argv."""
    rng = np.random.default_rng(0)
    table = tmp_path / "t.csv"
    pd.DataFrame(
        {"query_id": range(60), "doc_id": rng.integers(0, 8, 60), "hit": rng.integers(0, 2, 60)}
    ).to_csv(table, index=False)
    argv = [
        "interval",
        str(table),
        "--seed",
        "1",
        "--bootstrap-reps",
        "99",
        "--out",
        str(tmp_path / "o"),
    ]
    assert main(argv) == 0
    manifest = json.loads((tmp_path / "o" / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["argv"] == argv
