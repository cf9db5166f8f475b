"""`ragstat runs list | show | diff` over a registry of recorded manifests."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from ragstat.cli.runs import runs_app, source_fingerprint
from ragstat.registry import Manifest, Registry, RegistryError

app = typer.Typer()
app.add_typer(runs_app, name="runs")
runner = CliRunner()

A = "20260301-101500-aaaaaa"
B = "20260301-101500-aaaabb"
C = "20260302-090000-cccccc"


def _manifest(run_id: str, started_at: str, seed: int, chunk_words: int, hit: float, **over):
    fields = {
        "run_id": run_id,
        "command": "study",
        "argv": ("study", "corpus.jsonl", "--seed", str(seed)),
        "config": {"seed": seed, "chunk_words": chunk_words, "k": 10},
        "seed": seed,
        "corpus_fingerprint": "f00dfeed" * 8,
        "inputs": {"corpus.jsonl": "ab" * 32},
        "outputs": (f"out/{run_id}/records.parquet",),
        "results": {"bm25": {"hit1_micro": hit}},
        "versions": {"python": "3.11.7", "ragstat": "0.1.0"},
        "started_at": started_at,
        "wall_s": 2.5,
    }
    fields.update(over)
    return Manifest(**fields)


@pytest.fixture
def registry(tmp_path) -> Path:
    path = tmp_path / "runs.sqlite"
    reg = Registry(path)
    reg.record(_manifest(A, "2026-03-01T10:15:00+00:00", 1, 100, 0.36))
    reg.record(_manifest(B, "2026-03-01T10:15:00.5+00:00", 2, 50, 0.41))
    reg.record(
        _manifest(
            C, "2026-03-02T09:00:00Z", 1, 100, 0.36, command="interval", corpus_fingerprint=None
        )
    )
    return path


def run(*args: str):
    return runner.invoke(app, ["runs", *args])


def test_list_shows_a_table_newest_first(registry):
    res = run("list", "--registry", str(registry))
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    assert lines[0].split() == ["id", "time", "(UTC)", "command", "data", "seed", "wall", "status"]
    assert [line.split()[0] for line in lines[1:]] == [C, B, A]
    assert lines[3].split() == [
        A,
        "2026-03-01",
        "10:15:00",
        "study",
        "f00dfeedf00d",
        "1",
        "2.5s",
        "ran",  # recorded before outcomes were: it finished, with no pass or fail recorded
    ]
    assert "abababababab" in lines[1]  # no corpus: the input's hash names the data
    res = run("list", "--registry", str(registry), "--limit", "1", "--json")
    assert [m["run_id"] for m in json.loads(res.stdout)] == [C]
    Registry(registry).record(
        _manifest(
            "20260303-000000-eeeeee",
            "2026-03-03T00:00:00Z",
            1,
            100,
            0.4,
            command="gate",
            outcome="failed gate",
        )
    )
    first = run("list", "--registry", str(registry)).stdout.splitlines()[1]
    assert first.startswith("20260303-000000-eeeeee") and first.endswith("failed gate")


def test_list_reads_the_default_registry_and_says_when_it_is_empty(tmp_path):
    res = run("list")
    assert res.exit_code == 0
    path = os.environ["RAGSTAT_REGISTRY"]
    assert res.stdout.strip() == f"no runs recorded in {path}"
    assert res.stderr == f"ragstat: registry {path} (from $RAGSTAT_REGISTRY)\n"
    assert json.loads(run("list", "--json").stdout) == []


def test_every_runs_command_names_the_registry_it_reads_on_stderr(registry):
    said = f"ragstat: registry {registry} (from --registry)\n"
    for args in (["list"], ["show", A], ["diff", A, B]):
        for extra in ([], ["--json"]):
            res = run(*args, *extra, "--registry", str(registry))
            assert res.exit_code == 0, res.output
            assert res.stderr == said, args
            assert str(registry) not in res.stdout
            if extra:
                json.loads(res.stdout)  # stdout stays pure JSON


def test_list_finds_the_nearest_ragstat_folder_and_names_it(tmp_path, monkeypatch):
    monkeypatch.delenv("RAGSTAT_REGISTRY")
    nested = tmp_path / "project" / "src" / "deep"
    nested.mkdir(parents=True)
    (tmp_path / "project" / ".ragstat").mkdir()
    path = tmp_path / "project" / ".ragstat" / "registry.sqlite"
    Registry(path).record(_manifest(A, "2026-03-01T10:15:00+00:00", 1, 100, 0.36))
    monkeypatch.chdir(nested)
    res = run("list")
    assert res.exit_code == 0, res.output
    assert res.stderr == f"ragstat: registry {path} (nearest .ragstat/ folder)\n"
    assert [line.split()[0] for line in res.stdout.splitlines()[1:]] == [A]


def test_show_takes_a_unique_prefix_and_prints_the_manifest(registry):
    res = run("show", "20260302", "--registry", str(registry))
    assert res.exit_code == 0, res.output
    text = res.output
    assert f"run      {C}" in text and "command  interval" in text
    assert "argv     study corpus.jsonl --seed 1" in text
    assert "config:\n  seed: 1\n  chunk_words: 100\n  k: 10" in text
    assert "results:\n  bm25.hit1_micro: 0.36" in text
    assert "corpus   —" in text and "versions:\n  python: 3.11.7" in text
    res = run("show", A[:-1], "--json", "--registry", str(registry))
    assert json.loads(res.stdout) == Registry(registry).get(A).to_dict()


def test_diff_names_exactly_the_seed_and_chunk_size(registry):
    res = run("diff", A, B, "--registry", str(registry))
    assert res.exit_code == 0, res.output
    assert res.stdout.splitlines() == [
        f"{A} → {B}",
        "config:",
        "  seed: 1 → 2",
        "  chunk_words: 100 → 50",
        "results:",
        "  bm25.hit1_micro: 0.36 → 0.41",
    ]
    d = json.loads(run("diff", A, B, "--json", "--registry", str(registry)).stdout)
    assert {c["key"] for c in d["config"]} == {"seed", "chunk_words"}
    assert d["data"] == [] and d["versions"] == [] and (d["a"], d["b"]) == (A, B)


def test_diff_of_a_run_with_itself_says_no_differences(registry):
    res = run("diff", A, A[:-1], "--registry", str(registry))
    assert res.stdout.splitlines() == [f"{A} → {A}", "no differences"]


def test_diff_across_commands_reports_the_data_section(registry):
    res = run("diff", A, C, "--registry", str(registry))
    assert "config:\n  command: study → interval" in res.output
    assert f"data:\n  corpus_fingerprint: {'f00dfeed' * 8} → —" in res.output


def test_ambiguous_and_unknown_ids_are_clear_errors(registry):
    res = run("show", "20260301-101500", "--registry", str(registry))
    assert isinstance(res.exception, RegistryError)
    msg = str(res.exception)
    assert "ambiguous" in msg and A in msg and B in msg
    res = run("diff", A, "nope", "--registry", str(registry))
    assert isinstance(res.exception, RegistryError) and "no run 'nope'" in str(res.exception)


def test_recording_off_needs_an_explicit_registry(registry, monkeypatch):
    monkeypatch.setenv("RAGSTAT_REGISTRY", "off")
    res = run("list")
    assert isinstance(res.exception, RegistryError) and "--registry" in str(res.exception)
    assert run("list", "--registry", str(registry)).exit_code == 0


def test_a_broken_registry_file_is_a_one_line_error(tmp_path):
    bad = tmp_path / "bad.sqlite"
    bad.write_bytes(b"garbage" * 10)
    res = run("list", "--registry", str(bad))
    assert isinstance(res.exception, RegistryError) and str(bad) in str(res.exception)
    assert bad.read_bytes() == b"garbage" * 10


def test_source_fingerprint_prefers_the_corpus_then_the_inputs(registry):
    m = Registry(registry).get(A)
    assert source_fingerprint(m) == "f00dfeedf00d"
    bare = Manifest.from_dict({**m.to_dict(), "corpus_fingerprint": None, "inputs": {}})
    assert source_fingerprint(bare) == "—"
    two = Manifest.from_dict({**bare.to_dict(), "inputs": {"a": "1" * 64, "b": "2" * 64}})
    assert len(source_fingerprint(two)) == 12


def test_the_real_entry_point_turns_registry_errors_into_exit_2(registry, capsys):
    from ragstat.cli import app as real_app
    from ragstat.cli import main

    if not any(g.name == "runs" for g in real_app.registered_groups):
        pytest.skip("`runs` is not registered in ragstat.cli yet")
    assert main(["runs", "show", "nope", "--registry", str(registry)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("ragstat: error: no run 'nope'")
    assert main(["runs", "diff", A, B, "--json", "--registry", str(registry)]) == 0
    assert {c["key"] for c in json.loads(capsys.readouterr().out)["config"]} == {
        "seed",
        "chunk_words",
    }


def test_failed_runs_are_listed_with_their_status_and_shown_with_their_error(registry):
    failed = _manifest(
        "20260303-080000-dddddd",
        "2026-03-03T08:00:00.123456+00:00",
        3,
        100,
        0.0,
        status="failed",
        error="InputError: t.parquet: no column 'hit'",
        results={},
    )
    Registry(registry).record(failed)
    res = run("list", "--registry", str(registry))
    assert res.exit_code == 0, res.output
    first = res.stdout.splitlines()[1].split()
    assert first[0] == failed.run_id and first[-1] == "failed"
    res = run("show", "20260303", "--json", "--registry", str(registry))
    data = json.loads(res.stdout)
    assert data["status"] == "failed" and data["error"] == failed.error
    assert Manifest.from_dict(data) == failed
    text = run("show", "20260303", "--registry", str(registry)).stdout
    assert "failed" in text
    assert failed.error in text
