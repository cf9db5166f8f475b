"""Resource caps: options checked against what they can mean, long jobs in bounded blocks."""

from __future__ import annotations

import json
import time
import tracemalloc
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from ragstat import DocStats, InputError
from ragstat.cli import main
from ragstat.corpus.document import Corpus, Document
from ragstat.engine import spawn_seeds
from ragstat.resources import memory_budget, parse_bytes
from ragstat.retrieval.topk import empty_result
from ragstat.selfretrieval import StudyConfig, run_study
from ragstat.simulation import Census, simulate_coverage
from ragstat.simulation import coverage as cov
from ragstat.simulation import tally as tly
from ragstat.simulation.budget import block_bytes

CHEAP = ["cr1", "t_rates", "wald_iid"]


def _words(n: int, seed: int) -> str:
    rng = np.random.default_rng(seed)
    return " ".join(f"w{v}" for v in rng.integers(0, 500, n))


def _corpus_file(tmp_path, docs: int = 40, words: int = 300):
    """A JSONL corpus of ``docs`` documents of 3 chunks each (100 words per chunk)."""
    path = tmp_path / "c.jsonl"
    rows = [{"doc_id": f"d{i}", "text": _words(words, i)} for i in range(docs)]
    path.write_text("\n".join(json.dumps(r) for r in rows))
    return path


def _census(M: int = 400, seed: int = 0) -> Census:
    rng = np.random.default_rng(seed)
    n = np.maximum(1, rng.lognormal(2.0, 1.0, M).round())
    s = rng.binomial(n.astype(int), rng.beta(0.7, 2.0, M)).astype(float)
    return Census.from_docstats(
        DocStats(doc_id=[f"d{i}" for i in range(M)], n=n, s=s, q=s, binary=True)
    )


def _census_file(tmp_path):
    c = _census()
    path = tmp_path / "census.csv"
    pd.DataFrame({"doc_id": [f"d{i}" for i in range(c.M)], "n": c.n, "s": c.s}).to_csv(path)
    return path


def test_study_k_above_chunks_fails_at_once_with_estimate(tmp_path, capsys):
    path = _corpus_file(tmp_path)  # 40 documents × 3 chunks = 120 chunks, 120 queries
    t0 = time.perf_counter()
    code = main(["study", str(path), "--k", "1000000", "--out", str(tmp_path / "out")])
    elapsed = time.perf_counter() - t0
    err = capsys.readouterr().err
    assert code == 2
    assert "120 indexed chunks" in err and "at most 119" in err and "--k 119" in err
    assert "GiB" in err and "120 queries" in err
    assert elapsed < 20  # no index, no search: fails as soon as the chunks are counted
    assert not (tmp_path / "out" / "records.parquet").exists()
    assert main(["study", str(path), "--k", "0", "--out", str(tmp_path / "o2")]) == 2
    assert "--k must be a whole number ≥ 1" in capsys.readouterr().err
    # the Python API gets the same check; k ≤ 10 is always accepted (lists are 10 deep)
    docs = Corpus(tuple(Document(f"d{i}", _words(200, i)) for i in range(3)))  # 6 chunks
    with pytest.raises(InputError, match="6 indexed chunks"):
        run_study(docs, StudyConfig(retrievers=("bm25",), k=11))
    assert run_study(docs, StudyConfig(retrievers=("bm25",), k=10)).n_indexed == 6


def test_study_memory_budget(tmp_path, capsys, monkeypatch):
    path = _corpus_file(tmp_path, docs=10)
    monkeypatch.setenv("RAGSTAT_MEMORY_BUDGET", "100K")
    code = main(["study", str(path), "--k", "29", "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 2 and "RAGSTAT_MEMORY_BUDGET" in err and "--sample-queries" in err
    with pytest.raises(InputError, match="ranked lists"):  # the retrieval API's own guard
        empty_result(10**6, 10**6)


def test_simulate_reps_1e9_fails_at_once_with_estimate(tmp_path, capsys):
    path = _census_file(tmp_path)
    t0 = time.perf_counter()
    code = main(["simulate", str(path), "--k", "5", "--reps", "1000000000"])
    elapsed = time.perf_counter() - t0
    err = capsys.readouterr().err
    assert code == 2 and elapsed < 20
    assert "1,000,000,000" in err and "100,000,000" in err and "days" in err
    assert len(err.strip().splitlines()) == 1
    with pytest.raises(InputError, match="cap of 100,000,000 samples"):
        simulate_coverage(_census(), [5], reps=10**9, methods=CHEAP)


def test_bootstrap_reps_budget(monkeypatch):
    c = _census()
    with pytest.raises(InputError, match="bootstrap replicates per K"):
        simulate_coverage(c, [5], reps=10**6, bootstrap_reps=10**6)
    simulate_coverage(c, [5], reps=50, bootstrap_reps=10**6, methods=CHEAP)  # no bootstrap
    monkeypatch.setenv("RAGSTAT_MEMORY_BUDGET", "256M")
    with pytest.raises(InputError, match=r"≈ \d+\.\d MiB .*RAGSTAT_MEMORY_BUDGET"):
        simulate_coverage(c, [2], reps=100, bootstrap_reps=10**6, methods=["doc_bootstrap_t"])
    monkeypatch.setenv("RAGSTAT_MEMORY_BUDGET", "lots")
    with pytest.raises(InputError, match="RAGSTAT_MEMORY_BUDGET='lots'"):
        memory_budget()
    assert parse_bytes("8G") == 8 << 30 and parse_bytes("512MiB") == 512 << 20
    # the estimate bounds what one block really allocates
    task = cov._Task(c, "srs", 5, 100, np.random.SeedSequence(1), ("doc_bootstrap_t",), ("micro",), 0.95, 20_000, False)  # fmt: skip
    tracemalloc.start()
    cov.run_srs_block(task)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak <= block_bytes(5, 20_000, task.methods) <= 4 * peak


def _peak(reps: int) -> int:
    tracemalloc.start()
    simulate_coverage(_census(), [5], reps=reps, methods=CHEAP, seed=1)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


def test_simulate_memory_bounded_blocks(monkeypatch):
    """Beyond the exact-summary cap and one window of blocks, memory stays flat in R
    (the caps shrunk here so that the test runs in seconds)."""
    monkeypatch.setattr(tly, "EXACT_REPS", 1_000)
    monkeypatch.setattr(cov, "WINDOW_BYTES", 256 << 10)
    _peak(200)  # lazy imports and caches first
    small, big = _peak(2_000), _peak(20_000)
    # keeping every sample's intervals would add ~2.6 MiB (200 blocks × 4 methods × 4 arrays)
    assert big - small < 256 << 10 and big < 1.5 * small, (small, big)


def _rows(report) -> list[dict]:
    return [r.to_dict() for r in report.results]


def test_identical_results_across_block_boundaries(monkeypatch):
    c = _census()
    kw = dict(reps=1_234, bootstrap_reps=49, seed=5)
    ref = simulate_coverage(c, [5, 20], **kw)
    monkeypatch.setattr(cov, "WINDOW_BYTES", 1)  # 4 blocks in flight at a time
    assert cov.window_blocks(14, 1) == 4
    assert simulate_coverage(c, [5, 20], **kw).to_dict() == ref.to_dict()
    # the lazily made block seeds are spawn_seeds' children
    kids = spawn_seeds(5, 13, key=(20,))
    assert all(
        (cov._seed(5, 20, i).generate_state(4) == kids[i].generate_state(4)).all()
        for i in (0, 7, 12)
    )
    # streaming summary (R above the exact cap): same whatever the window, counts exact
    monkeypatch.setattr(tly, "EXACT_REPS", 500)
    streamed = simulate_coverage(c, [5, 20], **kw)
    monkeypatch.setattr(cov, "WINDOW_BYTES", 16 << 20)
    assert simulate_coverage(c, [5, 20], **kw).to_dict() == streamed.to_dict()
    for a, b in zip(_rows(ref), _rows(streamed), strict=True):
        for key in ("k", "estimand", "method", "reps", "coverage", "coverage_se", "unavailable"):
            assert a[key] == b[key], key
        for key in ("coverage_available", "mean_width", "bias", "rmse"):
            assert a[key] == pytest.approx(b[key], rel=1e-12, abs=1e-15), key
        if a["median_width"] is not None:  # a reservoir of 500 of the widths
            assert a["median_width"] == pytest.approx(b["median_width"], rel=0.1)


def test_running_tally_reservoir_is_uniform():
    t = tly.RunningTally(5, "micro", "cr1", 0.0, reps=10**6, seed=3)
    size = tly.EXACT_REPS
    stream = np.arange(5 * size, dtype=float)
    for block in np.split(stream, 50):
        ones = np.ones(block.size, bool)
        t.add((np.zeros(block.size), np.zeros(block.size), block, ones))
    kept = t._reservoir
    assert np.unique(kept).size == size  # no width kept twice
    assert np.mean(kept) == pytest.approx(np.mean(stream), rel=0.02)
    row = t.result()
    assert row.reps == 5 * size and row.coverage == 1.0
    assert row.mean_width == np.mean(stream) and row.median_width == pytest.approx(
        np.median(stream), rel=0.03
    )


def test_design_runs_use_the_same_blocks(monkeypatch):
    strata = np.where(np.arange(400) % 3 == 0, "a", "b")
    c = replace(_census(), stratum=strata)
    ref = simulate_coverage(c, [10], reps=250, design="stratified", seed=2).to_dict()
    monkeypatch.setattr(cov, "WINDOW_BYTES", 1)
    assert simulate_coverage(c, [10], reps=250, design="stratified", seed=2).to_dict() == ref


def test_compare_permutation_reps_above_the_cap_fail_at_once(tmp_path, capsys):
    """`compare --permutation-reps 10^9` ran for hours (bounded memory, unbounded time)."""
    import time

    import numpy as np
    import pandas as pd

    from ragstat.cli import main

    rng = np.random.default_rng(0)
    doc = np.repeat(np.arange(60), 3)
    for name in ("a", "b"):
        frame = pd.DataFrame({"query_id": np.arange(180), "doc_id": doc})
        frame["hit"] = rng.integers(0, 2, 180)
        frame.to_csv(tmp_path / f"{name}.csv", index=False)
    t0 = time.perf_counter()
    args = ["compare", str(tmp_path / "a.csv"), str(tmp_path / "b.csv")]
    assert main([*args, "--permutation-reps", "1000000000"]) == 2
    assert time.perf_counter() - t0 < 30
    err = capsys.readouterr().err
    assert "above the cap of 10,000,000" in err and err.count("\n") == 1
