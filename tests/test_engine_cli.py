"""`--engine dask` on the verbs: the same numbers as the local engine, clear errors."""

from __future__ import annotations

import json
import socket
import time

import numpy as np
import pandas as pd
import pytest

from ragstat.cli import main

pytestmark = pytest.mark.slow  # Dask clusters (scale-out)

pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    """A per-query table as one file and as a folder of three Parquet parts."""
    rng = np.random.default_rng(11)
    n = rng.integers(1, 15, 60)
    doc = np.repeat([f"d{i:03d}" for i in range(60)], n)
    frame = pd.DataFrame(
        {
            "query_id": [f"q{i}" for i in range(doc.size)],
            "doc_id": doc,
            "hit": (rng.random(doc.size) < np.repeat(rng.beta(1, 2, 60), n)).astype(float),
        }
    )
    root = tmp_path_factory.mktemp("ds")
    frame.to_parquet(root / "all.parquet")
    parts = root / "parts"
    parts.mkdir()
    for i, idx in enumerate(np.array_split(np.arange(len(frame)), 3)):
        frame.iloc[idx].to_parquet(parts / f"part-{i}.parquet")
    return root


def _json(capsys, *args: str) -> dict:
    capsys.readouterr()
    assert main(list(args)) == 0
    return json.loads(capsys.readouterr().out)


def test_simulate_on_dask_equals_local(dataset, capsys):
    args = ["simulate", str(dataset / "all.parquet"), "--k", "10", "--reps", "200"]
    args += ["--bootstrap-reps", "49", "--seed", "4", "--json"]
    local = _json(capsys, *args)
    dask = _json(capsys, *args, "--engine", "dask", "--workers", "2")
    assert dask == local


def test_interval_on_a_dataset_folder_equals_the_single_file(dataset, capsys):
    args = ["--seed", "2", "--json", "--methods", "cr2_bm,t_rates,doc_bootstrap_t,wald_iid"]
    one = _json(capsys, "interval", str(dataset / "all.parquet"), *args)
    parts = _json(capsys, "interval", str(dataset / "parts"), *args)
    on_dask = _json(capsys, "interval", str(dataset / "parts"), *args, "--engine", "dask")
    assert parts == one
    assert on_dask == one


@pytest.mark.slow  # waits for a timeout
def test_unreachable_scheduler_is_a_clear_error_within_the_timeout(dataset, capsys):
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    start = time.perf_counter()
    code = main(
        [
            *("simulate", str(dataset / "all.parquet"), "--k", "5", "--reps", "50"),
            *("--engine", "dask", "--scheduler", f"tcp://127.0.0.1:{port}"),
        ]
    )
    assert code == 2
    assert time.perf_counter() - start < 30
    assert "cannot reach the Dask scheduler" in capsys.readouterr().err


def test_unknown_engine_is_an_input_error(dataset, capsys):
    assert main(["interval", str(dataset / "all.parquet"), "--engine", "spark"]) == 2
    assert "engine" in capsys.readouterr().err


def _corpus(path):
    rng = np.random.default_rng(5)
    vocab = [f"w{i}" for i in range(400)]
    rows = [
        {"doc_id": f"d{i}", "text": " ".join(rng.choice(vocab, int(rng.integers(150, 600))))}
        for i in range(12)
    ]
    path.write_text("\n".join(json.dumps(r) for r in rows))
    return path


def test_study_on_dask_equals_the_in_process_study(tmp_path, capsys):
    corpus = _corpus(tmp_path / "c.jsonl")
    args = ["study", str(corpus), "--retrievers", "bm25,tfidf,rrf", "--seed", "1", "--json"]
    local = _json(capsys, *args, "--out", str(tmp_path / "local"))
    dask = _json(capsys, *args, "--out", str(tmp_path / "dask"), "--engine", "dask")
    for summary in (local, dask):
        summary.pop("versions", None)
    assert dask == local
    for name in ("records", "candidates", "documents"):
        a = pd.read_parquet(tmp_path / "local" / f"{name}.parquet")
        b = pd.read_parquet(tmp_path / "dask" / f"{name}.parquet")
        pd.testing.assert_frame_equal(a, b)
    assert (tmp_path / "dask" / "index").is_dir()  # the saved index stays for reuse


def test_sampled_study_records_its_sampling(tmp_path, capsys):
    corpus = _corpus(tmp_path / "c.jsonl")
    out = tmp_path / "s"
    summary = _json(
        capsys, "study", str(corpus), "--sample-queries", "0.25", "--sample-seed", "3",
        "--retrievers", "bm25", "--out", str(out), "--json",
    )  # fmt: skip
    sampling = summary["sampling"]
    assert sampling["fraction"] == 0.25 and sampling["seed"] == 3
    assert (
        summary["counts"]["queries"] == sampling["queries_sampled"] < sampling["queries_eligible"]
    )
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["config"]["sample_queries"] == 0.25
    assert "two-stage" in (out / "report.md").read_text()
    assert main(["study", str(corpus), "--sample-queries", "lots", "--out", str(out)]) == 2
