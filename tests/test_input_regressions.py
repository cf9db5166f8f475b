"""Issue 21 (no internal errors on input): one regression test per defect found.

Each bad input must end in exit code 2 with exactly one line on stderr,
``ragstat: error: …`` naming the file (never ``internal error``, never a traceback);
inputs that are merely unusual (huge seeds, gzip, U+2028 inside a JSON string) must work.
"""

from __future__ import annotations

import gzip
import json
import os
import sqlite3
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from cli_run import cli
from ragstat.registry import Registry

SEED = 2**64  # past SQLite's signed 64-bit INTEGER
HUGE_SEED = 2**200


@pytest.fixture
def table(tmp_path: Path) -> Path:
    rng = np.random.default_rng(0)
    path = tmp_path / "records.parquet"
    pd.DataFrame(
        {
            "query_id": [f"q{i}" for i in range(40)],
            "doc_id": np.repeat([f"d{i}" for i in range(8)], 5),
            "hit": (rng.random(40) < 0.5).astype(float),
        }
    ).to_parquet(path)
    return path


def _registry() -> Path:
    return Path(os.environ["RAGSTAT_REGISTRY"])


def _jsonl(path: Path, rows: list[dict], end: str = "\n") -> Path:
    path.write_text(end.join(json.dumps(r, ensure_ascii=False) for r in rows) + end, "utf-8")
    return path


def _spans(n: int = 6, **extra: object) -> list[dict]:
    return [
        {"trace_id": f"t{i}", "stage": "retrieve", "duration_ms": float(i + 1), **extra}
        for i in range(n)
    ]


# -- 1. seeds past 2**63 -------------------------------------------------------------------


def test_seed_above_2_63_is_stored_exactly(capsys, table, tmp_path):
    out = tmp_path / "out"
    rc, stdout, _ = cli(
        capsys, "interval", table, "--seed", SEED, "--bootstrap-reps", 99, "--json", "--out", out
    )
    assert rc == 0 and json.loads(stdout)["seed"] == SEED  # stdout not lost to the registry
    assert json.loads((out / "report.json").read_text())["seed"] == SEED
    assert json.loads((out / "manifest.json").read_text())["seed"] == SEED
    (run,) = Registry(_registry()).list()
    assert run.seed == SEED and run.config["seed"] == SEED
    con = sqlite3.connect(_registry())
    assert con.execute("SELECT seed, typeof(seed) FROM runs").fetchall() == [(str(SEED), "text")]
    con.close()
    rc, stdout, _ = cli(capsys, "compare", table, table, "--seed", HUGE_SEED, "--json")
    assert rc == 0 and json.loads(stdout)["seed"] == HUGE_SEED
    rc, _, _ = cli(capsys, "simulate", table, "--k", 4, "--reps", 20, "--seed", HUGE_SEED)
    assert rc == 0
    assert sorted(m.seed for m in Registry(_registry()).list()) == [SEED, HUGE_SEED, HUGE_SEED]


def test_seed_above_2_63_in_a_registry_with_an_integer_seed_column(tmp_path):
    """A registry created before seeds were TEXT keeps working and stores a huge seed exactly."""
    from test_registry import manifest

    path = tmp_path / "old.sqlite"
    Registry(path).record(manifest("20250101-000000-aaaaaa", seed=7))
    con = sqlite3.connect(path)  # rebuild the table as the older schema declared it
    con.executescript(
        """ALTER TABLE runs RENAME TO new_runs;
        CREATE TABLE runs (
            run_id TEXT PRIMARY KEY, command TEXT NOT NULL, started_at TEXT NOT NULL,
            wall_s REAL NOT NULL, status TEXT NOT NULL, seed INTEGER, corpus_fingerprint TEXT,
            argv TEXT NOT NULL, config TEXT NOT NULL, inputs TEXT NOT NULL,
            outputs TEXT NOT NULL, results TEXT NOT NULL, versions TEXT NOT NULL, error TEXT);
        INSERT INTO runs SELECT run_id, command, started_at, wall_s, status, seed,
                corpus_fingerprint, argv, config, inputs, outputs, results, versions, error
                FROM new_runs; DROP TABLE new_runs;"""
    )
    con.close()
    Registry(path).record(manifest("20250101-000001-bbbbbb", seed=SEED))
    Registry(path).record(manifest("20250101-000002-cccccc", seed=3))
    assert sorted(m.seed for m in Registry(path).list()) == [3, 7, SEED]
    assert Registry(path).get("20250101-000001").seed == SEED


# -- 2. a foreign SQLite database is never modified -----------------------------------------


def test_foreign_sqlite_registry_is_left_byte_identical(capsys, table, tmp_path, monkeypatch):
    path = tmp_path / "foreign.sqlite"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE notes (x)")
    con.execute("INSERT INTO notes VALUES ('keep me')")
    con.commit()
    con.close()
    before = path.read_bytes()
    monkeypatch.setenv("RAGSTAT_REGISTRY", str(path))
    rc, stdout, err = cli(capsys, "interval", table, "--seed", 1, "--bootstrap-reps", 99, "--json")
    assert rc == 0 and json.loads(stdout)["K"] == 8  # the run succeeds …
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "not a ragstat registry" in lines[0]  # … with one warning
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("foreign")) == [
        "foreign.sqlite"
    ]  # no -wal / -shm created
    con = sqlite3.connect(path)
    assert con.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    con.close()


# -- 3. non-UTF-8 and gzip input --------------------------------------------------------------


def test_latency_on_latin1_input_names_the_file_and_byte_offset(capsys, tmp_path):
    text = _jsonl(tmp_path / "utf8.jsonl", _spans(note="café")).read_text("utf-8")
    latin = tmp_path / "latin1.jsonl"
    latin.write_bytes(text.encode("latin-1"))
    offset = text.encode("latin-1").index("é".encode("latin-1"))
    rc, _, err = cli(capsys, "latency", latin)
    assert rc == 2 and str(latin) in err and f"byte offset {offset}" in err and ":1:" in err
    for verb in ("generation", "ingestion"):
        rc, _, err = cli(capsys, verb, latin)
        assert rc == 2 and "not UTF-8" in err and str(latin) in err


def test_gzip_input_is_read_transparently_and_damaged_gzip_is_an_error(capsys, tmp_path):
    plain = _jsonl(tmp_path / "t.jsonl", _spans())
    rc, expected, _ = cli(capsys, "latency", plain, "--json", "--seed", "0")
    assert rc == 0
    for name in ("t.jsonl.gz", "t2.jsonl"):  # by its magic bytes, whatever the suffix
        packed = tmp_path / name
        packed.write_bytes(gzip.compress(plain.read_bytes()))
        rc, out, _ = cli(capsys, "latency", packed, "--json", "--seed", "0")
        assert rc == 0 and json.loads(out)["scores"] == json.loads(expected)["scores"]
    damaged = tmp_path / "d.jsonl.gz"
    damaged.write_bytes(gzip.compress(plain.read_bytes())[:25])
    rc, _, err = cli(capsys, "latency", damaged)
    assert rc == 2 and "gzip" in err and str(damaged) in err


# -- 4. JSONL lines end at "\n" only ----------------------------------------------------------


@pytest.mark.parametrize("char", ["\u2028", "\u2029", "\x85", "\x0b", "\x0c", "\x1c", "\x1e"])
def test_jsonl_is_split_on_newline_only(capsys, tmp_path, char):
    rows = _spans(note=f"a{char}b")
    for end in ("\n", "\r\n"):
        rc, out, _ = cli(capsys, "latency", _jsonl(tmp_path / "t.jsonl", rows, end), "--json")
        assert rc == 0 and json.loads(out)["scores"]["retrieve ms"]["n"] == 6
    items = [
        {"id": f"i{k}", "text": f"x{char}y", "reference": "a b", "extracted": "a b"}
        for k in range(4)
    ]
    rc, _, _ = cli(capsys, "ingestion", _jsonl(tmp_path / "i.jsonl", items, "\r\n"))
    assert rc == 0
    qrels = [{"query_id": f"q{k}", "doc_id": f"d{char}{k}", "relevance": 1} for k in range(4)]
    run = [{"query_id": f"q{k}", "doc_id": f"d{char}{k}", "score": 1.0} for k in range(4)]
    args = ("--bootstrap-reps", 99, "--json")
    q, r = _jsonl(tmp_path / "q.jsonl", qrels, "\r\n"), _jsonl(tmp_path / "r.jsonl", run)
    rc, out, _ = cli(capsys, "evaluate", "--qrels", q, "--run", r, *args)
    assert rc == 0 and "ndcg@10" in out


# -- 5. lone surrogates in ids ----------------------------------------------------------------


def test_lone_surrogate_in_an_id_is_an_input_error_naming_the_field(capsys, table, tmp_path):
    raw = "\n".join(
        json.dumps({"query_id": f"q{i}", "doc_id": f"d{i % 4}", "hit": i % 2}) for i in range(12)
    ).replace('"d1"', '"d\\udc80"')
    records = tmp_path / "records.jsonl"
    records.write_text(raw + "\n")
    for args in (
        ("interval", records, "--bootstrap-reps", 99),
        ("compare", records, table, "--bootstrap-reps", 99),
    ):
        rc, _, err = cli(capsys, *args)
        assert rc == 2 and str(records) in err
    qrels = tmp_path / "q.jsonl"
    qrels.write_text('{"query_id": "q1", "doc_id": "d\\udc80", "relevance": 1}\n')
    run = _jsonl(tmp_path / "r.jsonl", [{"query_id": "q1", "doc_id": "d", "score": 1.0}])
    rc, _, err = cli(capsys, "evaluate", "--qrels", qrels, "--run", run)
    assert rc == 2 and f"{qrels}:1" in err and "doc_id" in err and "surrogate" in err
    items = tmp_path / "items.jsonl"
    items.write_text('{"id": "a\\ud800", "text": "x"}\n')
    for verb in ("ingestion", "generation"):
        rc, _, err = cli(capsys, verb, items)
        assert rc == 2 and f"{items}:1" in err and "id" in err and "surrogate" in err
    spans = tmp_path / "spans.jsonl"
    spans.write_text('{"trace_id": "t\\udfff", "stage": "s", "duration_ms": 1}\n')
    rc, _, err = cli(capsys, "latency", spans)
    assert rc == 2 and "trace_id" in err
    pair = tmp_path / "pair.jsonl"  # a valid surrogate pair is an ordinary character
    pair.write_text(
        "".join(
            json.dumps({"trace_id": f"t{i}\ud83d\ude00", "stage": "s", "duration_ms": i}) + "\n"
            for i in range(4)
        )
    )
    assert cli(capsys, "latency", pair)[0] == 0


# -- 6. relevance grades out of range -------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "content", "match"),
    [
        ("big.qrels", "q1 0 d1 100000000000000000000000\n", "out of range"),
        ("exp.qrels", "q1 0 d1 1e23\n", "not an integer"),
        ("edge.qrels", f"q1 0 d1 1\nq1 0 d2 {2**31}\n", "out of range"),
        ("neg.qrels", f"q1 0 d1 {-(2**31)}\n", "out of range"),
        ("half.qrels", "q1 0 d1 1.5\n", "not an integer"),
        ("big.jsonl", '{"query_id": "q1", "doc_id": "d1", "relevance": 1e23}\n', "out of range"),
        (
            "long.jsonl",
            '{"query_id": "q1", "doc_id": "d1", "relevance": ' + "9" * 30 + "}\n",
            "out of range",
        ),
        ("big.csv", "query_id,doc_id,relevance\nq1,d1,100000000000000000000000\n", "integer grade"),
    ],
)
def test_out_of_range_relevance_grade_is_an_input_error(capsys, tmp_path, name, content, match):
    qrels = tmp_path / name
    qrels.write_text(content)
    run = tmp_path / "run.trec"
    run.write_text("q1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 1.0 t\n")
    rc, _, err = cli(capsys, "evaluate", "--qrels", qrels, "--run", run)
    assert rc == 2 and match in err and str(qrels) in err
    if not name.endswith(".csv"):
        assert f"{qrels}:" in err  # file:line


def test_largest_valid_grade_still_works(capsys, tmp_path):
    qrels = tmp_path / "q.qrels"
    qrels.write_text(f"q1 0 d1 {2**31 - 1}\nq1 0 d2 0\n")
    run = tmp_path / "run.trec"
    run.write_text("q1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 1.0 t\n")
    assert cli(capsys, "evaluate", "--qrels", qrels, "--run", run, "--json")[0] == 0


# -- 7. malformed report / summary / manifest JSON ------------------------------------------


def test_deeply_nested_report_json_is_an_input_error(capsys, tmp_path):
    folder = tmp_path / "run"
    folder.mkdir()
    report = folder / "report.json"
    for text in ("[" * 100_000 + "]" * 100_000, '{"a":' * 100_000 + "1" + "}" * 100_000):
        report.write_text(text)
        rc, _, err = cli(capsys, "report", folder)
        # the file is named (with `report` rendering in a staging copy, by the copy's path)
        assert rc == 2 and "report.json" in err and "nested" in err and "deep" in err


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"\xff\xfe\x00",
        b"[1, 2]",
        b'{"config": {}}',
        b'{"config": {"retrievers": []}}',
        b'{"config": {"retrievers": [3]}, "retrievers": []}',
        b'{"config": "x", "by_stratum": [1]}',
        b'{"config": {"retrievers": ["bm25"], "chunk_words": 1}, "counts": {"documents": 1},'
        b' "retrievers": {"bm25": {"hit1": 1e999}}}',
        b"[" * 50_000 + b"]" * 50_000,
        b'{"seed": ' + b"9" * 5000 + b"}",
    ],
)
def test_malformed_study_folder_json_is_an_input_error(capsys, table, tmp_path, content):
    folder = tmp_path / "study"
    folder.mkdir()
    (folder / "records.parquet").write_bytes(table.read_bytes())
    (folder / "summary.json").write_bytes(content)
    (folder / "manifest.json").write_bytes(content)
    rc, _, err = cli(capsys, "report", folder)
    assert rc == 2 and "study" in err  # the folder (or `report`'s staging copy of it)
    rc, _, err = cli(capsys, "simulate", "--from-study", folder, "--k", 2, "--reps", 10)
    assert rc == 2 and str(folder) in err
    (folder / "summary.json").unlink()
    (folder / "report.json").write_bytes(content)
    rc, _, err = cli(capsys, "report", folder)
    assert rc == 2 and "report.json" in err
