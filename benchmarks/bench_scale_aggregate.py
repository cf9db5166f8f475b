"""Benchmark: aggregate a 50-million-row Parquet dataset locally and on a Dask LocalCluster.

    python benchmarks/bench_scale_aggregate.py            # 50M rows, 20 files, K = 200,000
    python benchmarks/bench_scale_aggregate.py --quick    # 2M rows, 8 files, K = 20,000

The input is generated once and cached under benchmarks/_data/ (git-ignored): a
folder of equal Parquet files (the dataset) and the same rows in one file (the
baseline). Columns: query_id (string "q<row>", all distinct), doc_id (string),
hit (int8 0/1, per-document rate ~ Beta(1.5, 3)). Document sizes are lognormal
(sigma 1.5: heavy-tailed) and sum exactly to the row count; rows are in random
document order, so most documents have rows in every file (the combine step's
worst case).

Measured, with the files in the OS page cache:

(a)  aggregate_file(single file)            one DuckDB query over one file (baseline)
(a') the same with query_id=None            (the duplicate-id check's share)
(b)  aggregate_dataset(folder), serial      one DuckDB task per file in this process
(b') the same with query_id=None            (the cross-file duplicate-id pass's share)
(c)  aggregate_dataset(folder) on a Dask LocalCluster of 2 single-threaded workers
(c') the same with query_id=None
(p)  aggregate_dataset(folder) on a local process pool of 2

Printed: wall times, ratios against (a), peak RSS of this process per phase, of
the pool's children and of each Dask worker, and whether every result is the same.
"""

from __future__ import annotations

import argparse
import itertools
import multiprocessing
import os
import resource
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from _common import machine_line, peak_rss_mib, timed
from bench_aggregate import doc_sizes, warm_page_cache
from ragstat.engine import get_executor
from ragstat.records import aggregate_dataset, aggregate_file

DATA_DIR = Path(__file__).resolve().parent / "_data"


def make_dataset(folder: Path, N: int, K: int, files: int, *, sigma: float, seed: int) -> None:
    """Write ``files`` Parquet files of N/files rows each, and all rows again in one file."""
    rng = np.random.default_rng(seed)
    sizes = doc_sizes(K, N, sigma, rng)
    rate = rng.beta(1.5, 3.0, K)
    names = pa.array([f"doc-{i:07d}" for i in range(K)], type=pa.string())
    codes = np.repeat(np.arange(K, dtype=np.int32), sizes)
    rng.shuffle(codes)
    schema = pa.schema([("query_id", pa.string()), ("doc_id", pa.string()), ("hit", pa.int8())])
    tmp = folder.with_name(folder.name + ".tmp")
    (tmp / "dataset").mkdir(parents=True, exist_ok=True)
    bounds = np.linspace(0, N, files + 1).astype(np.int64)
    with pq.ParquetWriter(tmp / "single.parquet", schema, compression="snappy") as single:
        for i, (lo, hi) in enumerate(itertools.pairwise(bounds)):
            c = codes[lo:hi]
            qid = pc.binary_join_element_wise(
                "q", pc.cast(pa.array(np.arange(lo, hi, dtype=np.int64)), pa.string()), ""
            )
            hit = (rng.random(hi - lo) < rate[c]).astype(np.int8)
            table = pa.table([qid, pc.take(names, pa.array(c)), hit], schema=schema)
            pq.write_table(table, tmp / "dataset" / f"part-{i:03d}.parquet", row_group_size=1 << 20)
            single.write_table(table, row_group_size=1 << 20)
    os.replace(tmp, folder)


def ensure_data(N: int, K: int, files: int, *, sigma: float, seed: int) -> Path:
    folder = DATA_DIR / f"scale_N{N}_K{K}_F{files}_sigma{sigma:g}_seed{seed}"
    if folder.exists():
        print(f"data: cached {folder.relative_to(DATA_DIR.parent.parent)}")
        return folder
    DATA_DIR.mkdir(parents=True, exist_ok=True)
    print(f"data: writing {N:,} rows, K = {K:,} documents, {files} files ...", flush=True)
    t0 = time.perf_counter()
    # In a child process, so the generator's memory does not count in this process's peak.
    proc = multiprocessing.get_context("spawn").Process(
        target=make_dataset, args=(folder, N, K, files), kwargs={"sigma": sigma, "seed": seed}
    )
    proc.start()
    proc.join()
    if proc.exitcode != 0:
        raise SystemExit(f"data generation failed (exit code {proc.exitcode})")
    size = sum(f.stat().st_size for f in folder.rglob("*.parquet")) / 2**20
    print(f"data: written in {time.perf_counter() - t0:.1f} s ({size:.0f} MiB in all)")
    return folder


def _spin(n: int) -> float:
    t0 = time.perf_counter()
    total = 0
    for i in range(n):
        total += i
    return time.perf_counter() - t0


def parallel_capacity(workers: int) -> str:
    """How much faster ``workers`` processes go than one here (other load on the machine
    shows up as < workers): the ceiling for every parallel phase below."""
    one = _spin(20_000_000)
    with multiprocessing.get_context("spawn").Pool(workers) as pool:
        pool.map(_spin, [1] * workers)  # started
        many = max(pool.map(_spin, [20_000_000] * workers, chunksize=1))
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    return f"parallel capacity: {workers * one / many:.2f} of {workers} cores (load average {load})"


def same(a, b) -> bool:
    return (
        np.array_equal(a.doc_id, b.doc_id)
        and np.array_equal(a.n, b.n)
        and np.array_equal(a.s, b.s)
        and np.allclose(a.within_ss, b.within_ss, rtol=1e-12, atol=1e-9)
    )


def _worker_peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def dask_phases(folder: Path, workers: int, repeat: int):
    t0 = time.perf_counter()
    with get_executor(workers, "dask") as ex:
        start = time.perf_counter() - t0
        print(f"  Dask LocalCluster ({ex.workers} workers) started in {start:.2f} s", flush=True)
        run = timed(
            f"(c)  aggregate_dataset(folder), Dask {workers} workers",
            lambda: aggregate_dataset(folder, score="hit", executor=ex),
            repeat,
        )
        nocheck = timed(
            "(c') the same, query_id=None",
            lambda: aggregate_dataset(folder, score="hit", query_id=None, executor=ex),
            repeat,
        )
        peaks = ex.client.run(_worker_peak_mib)
    return run, nocheck, start, peaks


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="2M rows, 8 files, K = 20,000")
    ap.add_argument("--rows", type=int, help="rows (default 50,000,000; quick 2,000,000)")
    ap.add_argument("--docs", type=int, help="documents K (default 200,000; quick 20,000)")
    ap.add_argument("--files", type=int, help="files in the dataset (default 20; quick 8)")
    ap.add_argument("--sigma", type=float, default=1.5, help="lognormal sigma of document sizes")
    ap.add_argument("--workers", type=int, default=2, help="Dask / process-pool workers")
    ap.add_argument("--repeat", type=int, default=1, help="timed runs per phase")
    ap.add_argument("--seed", type=int, default=20260801, help="data-generation seed")
    ap.add_argument("--no-pool", action="store_true", help="skip (p), the local process pool")
    args = ap.parse_args(argv)

    N = args.rows or (2_000_000 if args.quick else 50_000_000)
    K = args.docs or (20_000 if args.quick else 200_000)
    files = args.files or (8 if args.quick else 20)
    print(f"bench_scale_aggregate: N = {N:,} rows, K = {K:,} documents, {files} files")
    print(machine_line())
    print(parallel_capacity(args.workers))
    folder = ensure_data(N, K, files, sigma=args.sigma, seed=args.seed)
    single, dataset = folder / "single.parquet", folder / "dataset"
    for f in [single, *sorted(dataset.glob("*.parquet"))]:
        warm_page_cache(f)
    aggregate_dataset(next(dataset.glob("*.parquet")), score="hit")  # warm-up (imports, DuckDB)
    r = args.repeat
    print(f"\ntimes (wall; best of {r}), files in the OS page cache")

    a = timed(
        "(a)  aggregate_file(single file), DuckDB", lambda: aggregate_file(single, score="hit"), r
    )
    a0 = timed(
        "(a') the same, query_id=None",
        lambda: aggregate_file(single, score="hit", query_id=None),
        r,
    )
    b = timed(
        "(b)  aggregate_dataset(folder), serial", lambda: aggregate_dataset(dataset, score="hit"), r
    )
    b0 = timed(
        "(b') the same, query_id=None",
        lambda: aggregate_dataset(dataset, score="hit", query_id=None),
        r,
    )
    c, c0, start, peaks = dask_phases(dataset, args.workers, r)
    p = None
    if not args.no_pool:
        with get_executor(args.workers) as pool:
            p = timed(
                f"(p)  aggregate_dataset(folder), process pool of {args.workers}",
                lambda: aggregate_dataset(dataset, score="hit", executor=pool),
                r,
            )
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024

    stats = a.result
    assert stats.K == K and round(stats.N) == N, (stats.K, stats.N)
    print("\nratios ((a) / phase; > 1 means faster than one DuckDB query over one file)")
    for t in (b, c) + ((p,) if p else ()):
        print(f"  {t.label[:4]} {a.best / t.best:6.2f}x")
    print(
        f"  without the duplicate-id check: (a')/(b') {a0.best / b0.best:5.2f}x, (a')/(c') {a0.best / c0.best:5.2f}x"
    )
    print(
        "\nduplicate-query_id check: single file "
        f"{a.best - a0.best:.2f} s of {a.best:.2f} s; dataset serial (cross-file pass) "
        f"{b.best - b0.best:.2f} s of {b.best:.2f} s; Dask {c.best - c0.best:.2f} s of {c.best:.2f} s"
    )
    print(f"Dask LocalCluster start-up (not in (c)): {start:.2f} s")
    print(
        "\npeak RSS: this process (phases above, MiB); Dask workers "
        + ", ".join(f"{v:.0f}" for v in peaks.values())
        + f" MiB; largest child process (pool workers; the data generator if it ran now) {children:.0f} MiB;"
        f" this process overall {peak_rss_mib():.0f} MiB"
    )
    print(parallel_capacity(args.workers))
    results = [b.result, c.result] + ([p.result] if p else [])
    print(f"every result equals aggregate_file's: {all(same(stats, x) for x in results)}")


if __name__ == "__main__":
    main()
