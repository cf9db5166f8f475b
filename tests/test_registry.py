"""The run registry: manifests, SQLite store (WAL) under deletion, locks and concurrency, diffs."""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import platformdirs
import pytest

from ragstat.corpus import Document
from ragstat.errors import InputError, RagstatError
from ragstat.registry import (
    Change,
    Manifest,
    Registry,
    RegistryError,
    RegistryLocation,
    RunDiff,
    corpus_fingerprint,
    default_registry_path,
    diff_runs,
    file_sha256,
    locate_registry,
    new_run_id,
    package_versions,
    read_manifest,
    record_run,
    utc_now,
    write_manifest,
)
from ragstat.registry.location import find_project_registry, user_registry_path

VERSIONS = {"python": "3.11.7", "ragstat": "0.1.0", "numpy": "2.0"}


def manifest(run_id: str | None = None, **over) -> Manifest:
    fields = {
        "run_id": run_id or new_run_id(),
        "command": "study",
        "argv": ("study", "corpus.jsonl", "--seed", "1"),
        "config": {"seed": 1, "chunk_words": 100, "retrievers": ["bm25", "tfidf"], "k": 10},
        "seed": 1,
        "corpus_fingerprint": "c" * 64,
        "inputs": {"corpus.jsonl": "a" * 64},
        "outputs": ("out/records.parquet", "out/manifest.json"),
        "results": {"bm25": {"hit1_micro": 0.36, "mrr": 0.5}, "tfidf": {"hit1_micro": 0.31}},
        "versions": dict(VERSIONS),
        "started_at": utc_now(),
        "wall_s": 1.25,
    }
    fields.update(over)
    return Manifest(**fields)


def integrity(path: Path) -> str:
    con = sqlite3.connect(path)
    try:
        return con.execute("PRAGMA integrity_check").fetchone()[0]
    finally:
        con.close()


# -- manifest ---------------------------------------------------------------------------------


def test_run_ids_are_sortable_timestamps_with_a_random_suffix():
    ids = [new_run_id() for _ in range(500)]
    assert all(re.fullmatch(r"\d{8}-\d{6}-[0-9a-f]{6}", i) for i in ids)
    assert len(set(ids)) == len(ids)
    stamps = [i[:15] for i in ids]
    assert stamps == sorted(stamps)


def test_file_sha256_streams_files_and_hashes_folders_by_path_and_content(tmp_path):
    f = tmp_path / "a.bin"
    f.write_bytes(b"x" * (3 << 20) + b"tail")
    assert file_sha256(f) == hashlib.sha256(f.read_bytes()).hexdigest()
    folder = tmp_path / "docs"
    (folder / "sub").mkdir(parents=True)
    (folder / "one.txt").write_text("one")
    (folder / "sub" / "two.txt").write_text("two")
    h = file_sha256(folder)
    assert len(h) == 64 and file_sha256(folder) == h
    (folder / "sub" / "two.txt").rename(folder / "two.txt")
    assert file_sha256(folder) != h  # a move changes the hash
    (folder / "two.txt").rename(folder / "sub" / "two.txt")
    assert file_sha256(folder) == h
    (folder / "one.txt").write_text("One")
    assert file_sha256(folder) != h
    with pytest.raises(InputError, match="missing"):
        file_sha256(tmp_path / "missing")


def test_corpus_fingerprint_covers_ids_and_texts_not_order():
    docs = [Document("d1", "alpha beta"), Document("d2", "gamma")]
    fp = corpus_fingerprint(docs)
    assert (
        fp
        == corpus_fingerprint(reversed(docs))
        == corpus_fingerprint([("d2", "gamma"), ("d1", "alpha beta")])
    )
    assert fp != corpus_fingerprint([("d1", "alpha beta"), ("d3", "gamma")])
    assert fp != corpus_fingerprint([("d1", "alpha beta "), ("d2", "gamma")])
    # id/text boundaries are unambiguous
    assert corpus_fingerprint([("ab", "c")]) != corpus_fingerprint([("a", "bc")])


def test_package_versions_names_python_ragstat_and_the_numeric_stack():
    v = package_versions()
    assert {"python", "ragstat", "numpy", "scipy", "pandas", "duckdb"} <= set(v)
    assert v["python"] == ".".join(map(str, sys.version_info[:3]))
    assert all(isinstance(x, str) for x in v.values())


def test_manifest_normalises_to_plain_json_and_round_trips(tmp_path):
    m = manifest(
        argv=["study", Path("c.jsonl")],
        config={"seed": np.int64(7), "alpha": np.float64(0.05), "cols": ("a", "b"), "p": Path("x")},
        seed=np.int64(7),
        results={"se": float("nan"), "arr": np.array([1.0, 2.5]), "n": np.int32(3)},
        outputs=[tmp_path / "o.json"],
    )
    assert m.argv == ("study", "c.jsonl") and m.seed == 7 and type(m.seed) is int
    assert m.config == {"seed": 7, "alpha": 0.05, "cols": ["a", "b"], "p": "x"}
    assert type(m.config["seed"]) is int and type(m.config["alpha"]) is float
    assert m.results == {"se": None, "arr": [1.0, 2.5], "n": 3}
    assert m.outputs == (str(tmp_path / "o.json"),)
    d = m.to_dict()
    assert json.loads(json.dumps(d, allow_nan=False)) == d
    assert Manifest.from_dict(d) == m
    assert Manifest.from_dict({**d, "future_field": 1}) == m


@pytest.mark.parametrize(
    ("over", "match"),
    [
        ({"command": ""}, "command"),
        ({"run_id": "a b"}, "run_id"),
        ({"seed": True}, "seed"),
        ({"seed": 1.5}, "seed"),
        ({"wall_s": -1.0}, "wall_s"),
        ({"wall_s": float("inf")}, "wall_s"),
        ({"config": [1, 2]}, "config"),
        ({"config": {"fn": object()}}, r"config\.fn"),
        ({"inputs": "x"}, "inputs"),
        ({"corpus_fingerprint": 3}, "corpus_fingerprint"),
    ],
)
def test_manifest_rejects_bad_fields_naming_them(over, match):
    with pytest.raises(InputError, match=match):
        manifest(**over)


def test_manifest_file_is_written_atomically_and_read_back(tmp_path):
    m = manifest()
    path = write_manifest(m, tmp_path / "run")
    assert path == tmp_path / "run" / "manifest.json"
    assert read_manifest(tmp_path / "run") == m == read_manifest(path)
    assert [p.name for p in path.parent.iterdir()] == ["manifest.json"]  # no temp files left
    path.write_text("{not json")
    with pytest.raises(InputError, match="not valid JSON"):
        read_manifest(path)
    path.write_text(json.dumps({"run_id": "x"}))
    with pytest.raises(InputError, match="lacks command"):
        read_manifest(path)
    with pytest.raises(InputError, match="cannot read"):
        read_manifest(tmp_path / "nowhere")


# -- store ------------------------------------------------------------------------------------


def test_registry_is_created_on_demand_in_wal_mode_with_a_schema_version(tmp_path):
    path = tmp_path / "deep" / "er" / "registry.sqlite"
    reg = Registry(path)
    assert reg.list() == [] and not path.exists()  # reading creates nothing
    m = manifest()
    reg.record(m)
    assert path.is_file()
    con = sqlite3.connect(path)
    assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert con.execute("PRAGMA user_version").fetchone()[0] == 1
    row = con.execute("SELECT command, seed, config FROM runs").fetchone()
    con.close()
    assert row[:2] == ("study", "1") and json.loads(row[2])["chunk_words"] == 100  # seed as text
    assert reg.list() == [m] and reg.get(m.run_id) == m


def test_list_is_newest_first_with_a_limit_and_get_takes_unique_prefixes(tmp_path):
    reg = Registry(tmp_path / "r.sqlite")
    runs = [
        manifest("20260101-000000-aaaaaa", started_at="2026-01-01T00:00:00+00:00"),
        manifest("20260101-000000-aaaabb", started_at="2026-01-01T00:00:00.5+00:00"),
        manifest("20260102-000000-cccccc", started_at="2026-01-02T00:00:00+00:00"),
    ]
    for m in runs:
        reg.record(m)
    assert [m.run_id for m in reg.list()] == [m.run_id for m in reversed(runs)]
    assert [m.run_id for m in reg.list(limit=1)] == [runs[2].run_id]
    assert reg.get("20260102") == runs[2]
    assert reg.get("20260101-000000-aaaaa") == runs[0]
    with pytest.raises(RegistryError, match="ambiguous") as err:
        reg.get("20260101-000000-aaaa")
    assert runs[0].run_id in str(err.value) and runs[1].run_id in str(err.value)
    with pytest.raises(RegistryError, match="no run 'zzz'"):
        reg.get("zzz")
    with pytest.raises(RegistryError, match="run id"):
        reg.get("  ")
    with pytest.raises(InputError, match="limit"):
        reg.list(limit=-1)


def test_recording_the_same_run_again_replaces_it(tmp_path):
    reg = Registry(tmp_path / "r.sqlite")
    m = manifest(status="running")
    reg.record(m)
    done = Manifest.from_dict({**m.to_dict(), "status": "ok", "wall_s": 9.0})
    reg.record(done)
    assert reg.list() == [done]


def test_a_registry_deleted_between_runs_is_recreated_cleanly(tmp_path):
    path = tmp_path / "r.sqlite"
    reg = Registry(path)
    reg.record(manifest())
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    m = manifest()
    reg.record(m)
    assert reg.list() == [m] and integrity(path) == "ok"


def test_a_registry_deleted_while_a_connection_is_open_is_recreated(tmp_path):
    path = tmp_path / "r.sqlite"
    reg = Registry(path)
    reg.record(manifest())
    held = sqlite3.connect(path)  # another reader in this process keeps -wal/-shm alive
    held.execute("SELECT count(*) FROM runs").fetchone()
    path.unlink()
    m = manifest()
    reg.record(m)
    held.close()
    assert reg.list() == [m] and integrity(path) == "ok"


_HOLD = """
import sqlite3, sys, time
con = sqlite3.connect(sys.argv[1], isolation_level=None)
con.execute(sys.argv[3])
print("ready", flush=True)
time.sleep(float(sys.argv[2]))
"""


def _holder(path: Path, seconds: float, sql: str) -> subprocess.Popen:
    proc = subprocess.Popen(
        [sys.executable, "-c", _HOLD, str(path), str(seconds), sql],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout.readline().strip() == "ready"
    return proc


def test_a_registry_deleted_under_another_process_gives_an_error_or_a_clean_record(tmp_path):
    path = tmp_path / "r.sqlite"
    reg = Registry(path, timeout=0.5)
    reg.record(manifest())
    proc = _holder(path, 0.6, "SELECT count(*) FROM runs")
    try:
        path.unlink()
        try:
            reg.record(manifest())
        except RegistryError as exc:  # SQLite refuses while the old file is still open
            assert str(path) in str(exc) and "not recorded" in str(exc)
    finally:
        proc.wait(timeout=10)
    m = manifest(started_at="2999-01-01T00:00:00+00:00")
    reg.record(m)
    assert reg.list()[0] == m and integrity(path) == "ok"


def test_a_registry_locked_by_another_process_fails_fast_and_stays_intact(tmp_path):
    path = tmp_path / "r.sqlite"
    reg = Registry(path, timeout=0.3)
    first = manifest()
    reg.record(first)
    proc = _holder(path, 30, "BEGIN EXCLUSIVE")
    try:
        start = time.perf_counter()
        with pytest.raises(RegistryError) as err:
            reg.record(manifest())
        assert time.perf_counter() - start < 3
        assert reg.list() == [first]  # readers are not blocked in WAL mode
    finally:
        proc.kill()
        proc.wait()
    msg = str(err.value)
    assert str(path) in msg and "locked by another process" in msg
    assert "outputs are intact" in msg and "not recorded" in msg
    assert integrity(path) == "ok"
    second = manifest(started_at="2999-01-01T00:00:00+00:00")
    reg.record(second)
    assert reg.list() == [second, first]


def test_a_file_that_is_not_a_database_is_named_and_left_untouched(tmp_path):
    path = tmp_path / "r.sqlite"
    junk = b"these are my notes, not a database\n" * 50
    path.write_bytes(junk)
    reg = Registry(path)
    for call in (lambda: reg.record(manifest()), reg.list, lambda: reg.get("x")):
        with pytest.raises(RegistryError, match="not a ragstat registry") as err:
            call()
        assert str(path) in str(err.value) and "move it away" in str(err.value)
    assert path.read_bytes() == junk
    assert isinstance(err.value, RagstatError)
    with pytest.raises(RegistryError, match="is a folder"):
        Registry(tmp_path).list()


def test_another_sqlite_database_is_not_taken_over(tmp_path):
    path = tmp_path / "other.sqlite"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE notes (x)")
    con.commit()
    con.close()
    with pytest.raises(RegistryError, match="not a ragstat registry"):
        Registry(path).record(manifest())
    con = sqlite3.connect(path)
    assert [r[0] for r in con.execute("SELECT name FROM sqlite_master")] == ["notes"]
    con.close()


def test_a_registry_from_a_newer_schema_is_refused_clearly(tmp_path):
    path = tmp_path / "r.sqlite"
    reg = Registry(path)
    reg.record(manifest())
    con = sqlite3.connect(path)
    con.execute("PRAGMA user_version = 99")
    con.close()
    for call in (lambda: reg.record(manifest()), reg.list):
        with pytest.raises(RegistryError, match=r"newer ragstat \(schema 99"):
            call()


_WRITER = """
import sys, time
from pathlib import Path
from ragstat.registry import Manifest, Registry, new_run_id, utc_now
path, who, n, go = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3]), Path(sys.argv[4])
reg = Registry(path, timeout=30)
print("ready", flush=True)
while not go.exists():
    time.sleep(0.005)
for i in range(n):
    reg.record(Manifest(new_run_id() + f"-{who}{i}", "study", (), {"i": i}, i, None, {}, (),
                        {"who": who}, {}, utc_now(), 0.0))
"""


def test_concurrent_processes_all_land_and_the_file_stays_intact(tmp_path):
    path = tmp_path / "fresh" / "r.sqlite"  # they also race to create it
    go = tmp_path / "go"
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _WRITER, str(path), f"p{w}", "25", str(go)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for w in range(4)
    ]
    for p in procs:
        assert p.stdout.readline().strip() == "ready", p.stderr.read()
    go.touch()
    for p in procs:
        assert p.wait(timeout=60) == 0, p.stderr.read()
    runs = Registry(path).list()
    assert len(runs) == 100
    assert sorted({m.results["who"] for m in runs}) == ["p0", "p1", "p2", "p3"]
    assert integrity(path) == "ok"


def test_default_path_honours_the_environment_and_off(tmp_path, monkeypatch):
    (tmp_path / ".ragstat").mkdir()  # the environment comes before a project folder
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("RAGSTAT_REGISTRY", str(tmp_path / "x.sqlite"))
    assert default_registry_path() == tmp_path / "x.sqlite"
    assert locate_registry() == RegistryLocation(tmp_path / "x.sqlite", "environment")
    monkeypatch.setenv("RAGSTAT_REGISTRY", "sub/x.sqlite")  # relative to the working folder
    assert default_registry_path() == tmp_path / "sub" / "x.sqlite"
    monkeypatch.setenv("RAGSTAT_REGISTRY", "OFF")
    assert default_registry_path() is None
    assert locate_registry().describe() == "off (RAGSTAT_REGISTRY=off)"
    assert locate_registry(tmp_path / "y.sqlite").path == tmp_path / "y.sqlite"  # --registry
    monkeypatch.delenv("RAGSTAT_REGISTRY")
    assert default_registry_path() == tmp_path / ".ragstat" / "registry.sqlite"
    assert locate_registry("off") == RegistryLocation(None, "option")


def _user_data_in(folder: Path, monkeypatch) -> Path:
    """Point platformdirs' per-user data folder into ``folder``; the registry expected there."""
    monkeypatch.setattr(platformdirs, "user_data_dir", lambda app, *a, **k: str(folder / app))
    return folder / "ragstat" / "registry.sqlite"


def test_the_nearest_ragstat_folder_upward_wins(tmp_path, monkeypatch):
    monkeypatch.delenv("RAGSTAT_REGISTRY")
    user = _user_data_in(tmp_path / "user", monkeypatch)
    project = tmp_path / "project"
    nested = project / "a" / "b" / "c"
    nested.mkdir(parents=True)
    (project / ".ragstat").mkdir()
    (project / "a" / "b" / ".ragstat").write_text("a file, not the folder")  # passed over
    monkeypatch.chdir(nested)
    outer = project / ".ragstat" / "registry.sqlite"
    assert locate_registry() == RegistryLocation(outer, "project")
    assert locate_registry().describe() == f"{outer} (nearest .ragstat/ folder)"
    (project / "a" / ".ragstat").mkdir()
    inner = project / "a" / ".ragstat" / "registry.sqlite"
    assert default_registry_path() == inner
    m = manifest()
    assert record_run(m) == inner and Registry(inner).list() == [m]
    assert not outer.exists() and not user.exists()
    assert find_project_registry(nested, stop=nested) is None  # the search ends at `stop`
    assert find_project_registry(nested, stop=project / "a") == inner


def test_without_a_ragstat_folder_the_per_user_data_folder_is_used(tmp_path, monkeypatch):
    monkeypatch.delenv("RAGSTAT_REGISTRY")
    work = tmp_path / "work" / "deep"
    work.mkdir(parents=True)
    user = _user_data_in(tmp_path / "user", monkeypatch)
    assert locate_registry(cwd=work, stop=tmp_path) == RegistryLocation(user, "user")
    assert locate_registry(cwd=work, stop=tmp_path).describe() == f"{user} (per-user data folder)"
    monkeypatch.chdir(work)
    if find_project_registry(work) is None:  # no stray .ragstat/ above the test's folders
        m = manifest()
        assert record_run(m) == user and Registry(user).list() == [m]
    gone = tmp_path / "gone"
    gone.mkdir()
    monkeypatch.chdir(gone)
    gone.rmdir()  # a working folder deleted under the process: the per-user registry
    assert default_registry_path() == user


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="XDG_DATA_HOME is for Linux")
def test_the_per_user_data_folder_follows_xdg_data_home(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert user_registry_path() == tmp_path / "xdg" / "ragstat" / "registry.sqlite"


def test_record_run_writes_the_default_registry_or_nothing_when_off(tmp_path, monkeypatch):
    m = manifest()
    target = tmp_path / "env.sqlite"
    monkeypatch.setenv("RAGSTAT_REGISTRY", str(target))
    assert record_run(m) == target and Registry(target).list() == [m]
    assert record_run(m, tmp_path / "explicit.sqlite") == tmp_path / "explicit.sqlite"
    assert record_run(m, "off") is None
    monkeypatch.setenv("RAGSTAT_REGISTRY", "off")
    assert record_run(m) is None
    assert sorted(p.name for p in tmp_path.iterdir()) == ["env.sqlite", "explicit.sqlite"]
    monkeypatch.setenv("RAGSTAT_REGISTRY_TIMEOUT", "soon")
    with pytest.raises(RegistryError, match="RAGSTAT_REGISTRY_TIMEOUT"):
        record_run(m, tmp_path / "t.sqlite")


def test_an_unwritable_folder_is_a_registry_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(RegistryError, match="cannot create the folder"):
        Registry(blocker / "sub" / "r.sqlite").record(manifest())


# -- diff -------------------------------------------------------------------------------------


def test_diff_of_seed_and_chunk_size_names_exactly_those_in_config():
    a = manifest()
    b = manifest(
        config={**a.config, "seed": 2, "chunk_words": 50},
        seed=2,
        argv=("study", "corpus.jsonl", "--seed", "2", "--chunk-words", "50"),
        outputs=("elsewhere/records.parquet",),
        started_at="2030-01-01T00:00:00+00:00",
        wall_s=99.0,
        results={"bm25": {"hit1_micro": 0.41, "mrr": 0.5}, "tfidf": {"hit1_micro": 0.31}},
    )
    d = diff_runs(a, b)
    assert isinstance(d, RunDiff)
    assert d.config == (Change("seed", 1, 2), Change("chunk_words", 100, 50))
    assert d.data == () and d.versions == ()
    assert d.results == (Change("bm25.hit1_micro", 0.36, 0.41),)
    text = "\n".join(d.lines())
    assert "config:\n  seed: 1 → 2\n  chunk_words: 100 → 50" in text
    assert "results:\n  bm25.hit1_micro: 0.36 → 0.41" in text
    assert "data:" not in text and "versions:" not in text
    assert d.to_dict()["config"] == [
        {"key": "seed", "a": 1, "b": 2},
        {"key": "chunk_words", "a": 100, "b": 50},
    ]


def test_diff_of_a_run_with_itself_or_a_rerun_is_empty():
    a = manifest()
    rerun = Manifest.from_dict(
        {**a.to_dict(), "run_id": new_run_id(), "wall_s": 3.0, "outputs": ["x"], "argv": ["y"]}
    )
    for b in (a, rerun):
        d = diff_runs(a, b)
        assert d.empty and d.lines()[-1] == "no differences"


def test_diff_data_results_and_versions_sections():
    a = manifest()
    b = manifest(
        corpus_fingerprint="d" * 64,
        inputs={"corpus.jsonl": "b" * 64, "qrels.tsv": "e" * 64},
        results={"bm25": {"hit1_micro": 0.36 + 1e-15, "mrr": 0.5}},
        versions={**VERSIONS, "numpy": "2.1"},
        status="failed",
    )
    d = diff_runs(a, b)
    assert d.config == ()
    assert d.keys("data") == {"corpus_fingerprint", "inputs.corpus.jsonl", "inputs.qrels.tsv"}
    assert Change("inputs.qrels.tsv", None, "e" * 64) in d.data
    # float noise is not a change; a metric that disappeared is
    assert d.results == (Change("tfidf.hit1_micro", 0.31, None), Change("status", "ok", "failed"))
    assert d.versions == (Change("numpy", "2.0", "2.1"),)
    assert "  tfidf.hit1_micro: 0.31 → —" in d.lines()
    with pytest.raises(InputError, match="section"):
        d.keys("outputs")


def test_diff_names_the_manifest_seed_only_when_the_config_has_none():
    a = manifest(config={"k": 10}, seed=1)
    b = manifest(config={"k": 10}, seed=2, command="interval")
    assert diff_runs(a, b).config == (Change("command", "study", "interval"), Change("seed", 1, 2))
    with pytest.raises(InputError):
        diff_runs(a, a.to_dict())


# -- regressions: order, folder errors, failed runs -----------------------------------------


def test_runs_in_the_same_instant_list_newest_recorded_first(tmp_path):
    reg = Registry(tmp_path / "r.sqlite")
    same = "2026-01-01T00:00:00+00:00"
    # random suffixes that sort against the recording order
    ids = ["20260101-000000-ffffff", "20260101-000000-000000", "20260101-000000-888888"]
    for run_id in ids:
        reg.record(manifest(run_id, started_at=same))
    assert [m.run_id for m in reg.list()] == list(reversed(ids))
    assert [m.run_id for m in reg.list(limit=2)] == list(reversed(ids))[:2]
    # re-recording a run (e.g. its final state) keeps its place
    reg.record(manifest(ids[0], started_at=same, wall_s=5.0))
    assert [m.run_id for m in reg.list()] == list(reversed(ids))


def test_list_orders_by_the_instant_across_precision_and_offsets(tmp_path):
    reg = Registry(tmp_path / "r.sqlite")
    runs = [
        manifest("20260101-000000-zzzzzz", started_at="2026-01-01T00:00:00.000001+00:00"),
        manifest("20260101-000000-aaaaaa", started_at="2026-01-01T00:00:00.900000+00:00"),
        manifest("20260101-003000-bbbbbb", started_at="2026-01-01T01:30:00+01:00"),  # 00:30 UTC
        manifest("20260101-001000-cccccc", started_at="2026-01-01T00:10:00Z"),
    ]
    for m in runs:
        reg.record(m)
    expected = ["20260101-003000-bbbbbb", "20260101-001000-cccccc"]
    expected += ["20260101-000000-aaaaaa", "20260101-000000-zzzzzz"]
    assert [m.run_id for m in reg.list()] == expected


def test_a_file_in_the_way_of_the_registry_folder_is_named(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    for path in (blocker / "r.sqlite", blocker / "sub" / "deeper" / "r.sqlite"):
        with pytest.raises(RegistryError) as err:
            Registry(path).record(manifest())
        text = str(err.value)
        assert f"{blocker} is a file, not a folder" in text
        assert "File exists" not in text and "Not a directory" not in text
        assert "not recorded" in text
        with pytest.raises(RegistryError, match="is a file, not a folder"):
            Registry(path).list()
    assert blocker.read_text() == "x"


def test_a_failed_run_keeps_its_error(tmp_path):
    failed = manifest(status="failed", error="InputError: no column 'hit'")
    d = failed.to_dict()
    assert d["error"] == "InputError: no column 'hit'" and d["status"] == "failed"
    assert Manifest.from_dict(d) == failed
    assert manifest().error is None
    old = {k: v for k, v in manifest().to_dict().items() if k not in ("error", "status")}
    assert Manifest.from_dict(old).error is None  # manifests written before the field
    with pytest.raises(InputError, match="error"):
        manifest(error=3)
    reg = Registry(tmp_path / "r.sqlite")
    reg.record(failed)
    assert reg.get(failed.run_id) == failed and reg.list() == [failed]
    assert read_manifest(write_manifest(failed, tmp_path / "run")) == failed


def test_a_registry_from_before_the_error_and_outcome_columns_reads_and_gains_them(tmp_path):
    path = tmp_path / "old.sqlite"
    con = sqlite3.connect(path)
    con.executescript(
        """CREATE TABLE runs (
            run_id TEXT PRIMARY KEY, command TEXT NOT NULL, started_at TEXT NOT NULL,
            wall_s REAL NOT NULL, status TEXT NOT NULL, seed INTEGER, corpus_fingerprint TEXT,
            argv TEXT NOT NULL, config TEXT NOT NULL, inputs TEXT NOT NULL,
            outputs TEXT NOT NULL, results TEXT NOT NULL, versions TEXT NOT NULL);
        CREATE INDEX runs_by_time ON runs (started_at);
        PRAGMA application_id = 1380406100;
        PRAGMA user_version = 1;"""
    )
    old = manifest("20250101-000000-aaaaaa", started_at="2025-01-01T00:00:00+00:00")
    row = old.to_dict()
    cols = [c for c in row if c not in ("error", "outcome", "output_sha256")]
    values = [json.dumps(row[c]) if isinstance(row[c], (dict, list)) else row[c] for c in cols]
    con.execute(
        f"INSERT INTO runs ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})", values
    )
    con.commit()
    con.close()
    reg = Registry(path)
    assert reg.list() == [old] and reg.get("2025") == old
    failed = manifest(status="failed", error="boom", outcome="failed")
    reg.record(failed)
    assert reg.list() == [failed, old] and integrity(path) == "ok"
    assert reg.get(failed.run_id).outcome == "failed" and old.outcome is None


def test_the_outcome_is_kept_compared_and_optional(tmp_path):
    gate = manifest(command="gate", outcome="failed gate")
    assert Manifest.from_dict(gate.to_dict()) == gate
    reg = Registry(tmp_path / "r.sqlite")
    reg.record(gate)
    assert reg.get(gate.run_id).outcome == "failed gate"
    assert diff_runs(gate, manifest(command="gate", outcome="passed")).results == (
        Change("outcome", "failed gate", "passed"),
    )
    assert diff_runs(manifest(), manifest()).results == ()  # neither recorded one
    with pytest.raises(InputError, match="outcome"):
        manifest(outcome="")


def test_diff_compares_the_error_only_when_the_statuses_differ():
    a = manifest(status="failed", error="InputError: file a.parquet missing")
    b = manifest(status="failed", error="InputError: file b.parquet missing")
    assert diff_runs(a, b).results == ()
    ok = manifest()
    d = diff_runs(ok, a)
    assert d.results == (
        Change("status", "ok", "failed"),
        Change("error", None, "InputError: file a.parquet missing"),
    )
