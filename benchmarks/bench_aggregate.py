"""Benchmark: aggregate a 10-million-row per-query Parquet file and analyse it.

    python benchmarks/bench_aggregate.py            # 10M rows, K = 20,000 documents
    python benchmarks/bench_aggregate.py --quick    # 200k rows, K = 2,000 (smoke test)
    python benchmarks/bench_aggregate.py --profile  # + per-method times and cProfile of analyze

The input is generated once and cached under benchmarks/_data/ (git-ignored):
columns query_id (string "q<row>"), doc_id (string), hit (int8 0/1), rr (float64)
and position (int32, order of the query inside its document). Document sizes
are lognormal (very unequal) and sum exactly to the row count; rows are in
random document order, as in a shuffled evaluation set.

Measured in one process:

(a)  ragstat.aggregate_file(path, score="hit")   (DuckDB; includes the
     duplicate-query_id check), and the same with query_id=None to give the
     check's share; the check's GROUP BY query_id alone in DuckDB;
(b)  ragstat.analyze(stats, seed=1): every method, 9,999 bootstrap replicates;
(c)  the baseline: pandas.read_parquet(path, columns=["doc_id", "hit"]) +
     groupby("doc_id")["hit"].agg(["size", "sum"]); and a like-for-like baseline
     that also reads query_id and checks it for duplicates in pandas;
(d)  aggregate_file(..., position="position")  (lag-1 sums, window function).

Printed: each wall time, the ratio baseline / ragstat (> 1: ragstat faster)
and peak RSS. Timing ratios only; nothing is asserted.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import multiprocessing
import os
import pstats
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

import ragstat
from _common import machine_line, peak_rss_mib, timed
from ragstat.inference import METHODS

DATA_DIR = Path(__file__).resolve().parent / "_data"


# --------------------------------------------------------------------------- data


def doc_sizes(K: int, N: int, sigma: float, rng: np.random.Generator) -> np.ndarray:
    """K lognormal sizes, each ≥ 1, summing exactly to N (largest-remainder rounding)."""
    w = rng.lognormal(0.0, sigma, K)
    raw = w / w.sum() * (N - K)
    sizes = np.floor(raw).astype(np.int64)
    short = (N - K) - int(sizes.sum())
    sizes[np.argsort(raw - sizes)[::-1][:short]] += 1
    return sizes + 1


def _cumcount(codes: np.ndarray) -> np.ndarray:
    """Rank of each element among the earlier elements with the same code (0-based)."""
    order = np.argsort(codes, kind="stable")
    sorted_codes = codes[order]
    idx = np.arange(codes.size)
    first = np.empty(codes.size, dtype=bool)
    first[:1] = True
    first[1:] = sorted_codes[1:] != sorted_codes[:-1]
    group_start = np.maximum.accumulate(np.where(first, idx, 0))
    out = np.empty(codes.size, dtype=np.int64)
    out[order] = idx - group_start
    return out


def make_table(path: Path, N: int, K: int, *, sigma: float, chunk: int, seed: int) -> None:
    """Write the synthetic per-query file in row groups of ``chunk`` rows."""
    rng = np.random.default_rng(seed)
    sizes = doc_sizes(K, N, sigma, rng)
    # Per-document hit rate (Beta: strong between-document heterogeneity, ICC > 0).
    rate = rng.beta(1.5, 3.0, K)
    names = pa.array([f"doc-{i:06d}" for i in range(K)], type=pa.string())
    codes = np.repeat(np.arange(K, dtype=np.int32), sizes)
    rng.shuffle(codes)  # queries of a document are spread over the file
    seen = np.zeros(K, dtype=np.int64)  # queries of each document already written
    schema = pa.schema(
        [
            ("query_id", pa.string()),
            ("doc_id", pa.string()),
            ("hit", pa.int8()),
            ("rr", pa.float64()),
            ("position", pa.int32()),
        ]
    )
    tmp = path.with_suffix(".tmp")
    with pq.ParquetWriter(tmp, schema, compression="snappy") as writer:
        for lo in range(0, N, chunk):
            hi = min(lo + chunk, N)
            c = codes[lo:hi]
            hit = (rng.random(hi - lo) < rate[c]).astype(np.int8)
            rank = np.minimum(rng.geometric(0.45, hi - lo), 20)
            rr = np.where(hit == 1, 1.0 / rank, 0.0)
            position = (seen[c] + _cumcount(c)).astype(np.int32)
            seen += np.bincount(c, minlength=K)
            qid = pc.binary_join_element_wise(
                "q", pc.cast(pa.array(np.arange(lo, hi, dtype=np.int64)), pa.string()), ""
            )
            batch = pa.record_batch(
                [qid, pc.take(names, pa.array(c)), hit, rr, position], schema=schema
            )
            writer.write_batch(batch, row_group_size=chunk)
    os.replace(tmp, path)


def ensure_data(N: int, K: int, *, sigma: float, seed: int, rebuild: bool) -> Path:
    DATA_DIR.mkdir(parents=True, exist_ok=True)
    path = DATA_DIR / f"queries_N{N}_K{K}_sigma{sigma:g}_seed{seed}.parquet"
    if path.exists() and not rebuild:
        print(f"data: cached {path.relative_to(DATA_DIR.parent.parent)}")
        return path
    print(f"data: writing {N:,} rows, K = {K:,} documents to {path.name} ...", flush=True)
    t0 = time.perf_counter()
    # In a child process, so the generator's memory does not count in this process's peak RSS.
    ctx = multiprocessing.get_context("spawn")
    proc = ctx.Process(
        target=make_table,
        args=(path, N, K),
        kwargs={"sigma": sigma, "chunk": min(1_000_000, N), "seed": seed},
    )
    proc.start()
    proc.join()
    if proc.exitcode != 0:
        raise SystemExit(f"data generation failed (exit code {proc.exitcode})")
    print(
        f"data: written in {time.perf_counter() - t0:.1f} s ({path.stat().st_size / 2**20:.0f} MiB)"
    )
    return path


def warm_page_cache(path: Path) -> None:
    """Read the file once so every timed reader starts from the OS page cache."""
    with path.open("rb") as fh:
        while fh.read(1 << 24):
            pass


# --------------------------------------------------------------------------- phases


def pandas_baseline(path: Path):
    import pandas as pd

    df = pd.read_parquet(path, columns=["doc_id", "hit"])
    return df.groupby("doc_id")["hit"].agg(["size", "sum"])


def pandas_baseline_with_dup_check(path: Path):
    import pandas as pd

    df = pd.read_parquet(path, columns=["query_id", "doc_id", "hit"])
    if df["query_id"].duplicated().any():
        raise ValueError("duplicate query_id")
    return df.groupby("doc_id")["hit"].agg(["size", "sum"])


def duckdb_dup_check(path: Path):
    """The duplicate-query_id query of aggregate_file, run on its own."""
    import duckdb

    con = duckdb.connect()
    try:
        sql = (
            "SELECT query_id, count(*) FROM read_parquet(?) GROUP BY 1 HAVING count(*) > 1 LIMIT 3"
        )
        return con.execute(sql, [str(path)]).fetchall()
    finally:
        con.close()


def _split_query_bootstrap_macro(stats, reps: int) -> None:
    """Line split of the macro branch of query_bootstrap_binary, timed on its own."""
    from ragstat.inference.bootstrap import BLOCK_ELEMENTS

    n, s, K = stats.n, stats.s, stats.K
    ni, p = np.round(n).astype(np.int64), s / n
    b = min(reps, max(1, BLOCK_ELEMENTS // K))
    rng = np.random.default_rng(1)
    t0 = time.perf_counter()
    draws = rng.binomial(ni, p, size=(b, K))
    t1 = time.perf_counter()
    (draws / n).mean(axis=1)
    t2 = time.perf_counter()
    scale = reps / b
    print(
        f"  macro query_bootstrap lines, one block of {b} x {K} scaled to {reps:,} replicates:\n"
        f"    rng.binomial(ni, p, size=(b, K))  {scale * (t1 - t0):8.3f} s "
        f"({(t1 - t0) / draws.size * 1e9:.0f} ns per draw, mean n_d = {n.mean():.0f})\n"
        f"    (draws / n).mean(axis=1)          {scale * (t2 - t1):8.3f} s"
    )


def profile_analyze(stats, reps: int, top: int) -> None:
    print("\nprofile: analyze one method at a time (both estimands)")
    for method in METHODS:
        t0 = time.perf_counter()
        ragstat.analyze(stats, methods=[method], bootstrap_reps=reps, seed=1)
        print(f"  {method:<26s} {time.perf_counter() - t0:8.3f} s")
    for estimand in ("micro", "macro"):
        t0 = time.perf_counter()
        ragstat.analyze(
            stats, methods=["query_bootstrap"], estimands=[estimand], bootstrap_reps=reps, seed=1
        )
        print(f"  query_bootstrap, {estimand:<15s} {time.perf_counter() - t0:8.3f} s")
    _split_query_bootstrap_macro(stats, reps)
    prof = cProfile.Profile()
    prof.enable()
    ragstat.analyze(stats, bootstrap_reps=reps, seed=1)
    prof.disable()
    out = io.StringIO()
    pstats.Stats(prof, stream=out).sort_stats("tottime").print_stats(top)
    print(f"\nprofile: cProfile of analyze(stats, seed=1), top {top} by own time")
    print("\n".join(line for line in out.getvalue().splitlines() if line.strip()))


# --------------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="200k rows, K = 2,000 (smoke test)")
    ap.add_argument("--rows", type=int, help="rows (default 10,000,000; quick 200,000)")
    ap.add_argument("--docs", type=int, help="documents K (default 20,000; quick 2,000)")
    ap.add_argument("--sigma", type=float, default=1.5, help="lognormal sigma of document sizes")
    ap.add_argument("--reps", type=int, help="bootstrap replicates (default 9,999; quick 999)")
    ap.add_argument("--repeat", type=int, help="timed runs per aggregation (default 3; quick 1)")
    ap.add_argument("--seed", type=int, default=20240611, help="data-generation seed")
    ap.add_argument("--rebuild", action="store_true", help="regenerate the cached data file")
    ap.add_argument("--no-position", action="store_true", help="skip (d), the lag-1 aggregation")
    ap.add_argument("--profile", action="store_true", help="per-method times + cProfile")
    args = ap.parse_args(argv)

    N = args.rows or (200_000 if args.quick else 10_000_000)
    K = args.docs or (2_000 if args.quick else 20_000)
    repeat = args.repeat or (1 if args.quick else 3)
    args.reps = args.reps or (999 if args.quick else 9_999)
    print(f"bench_aggregate: N = {N:,} rows, K = {K:,} documents, {args.reps:,} replicates")
    print(machine_line())

    path = ensure_data(N, K, sigma=args.sigma, seed=args.seed, rebuild=args.rebuild)
    warm_page_cache(path)
    print(f"\ntimes (wall; best of {repeat} where repeated), file in the OS page cache")

    agg = timed(
        "(a)  aggregate_file(score='hit')",
        lambda: ragstat.aggregate_file(path, score="hit"),
        repeat,
    )
    rss_after_agg = peak_rss_mib()
    agg_nodup = timed(
        "(a') aggregate_file(score='hit', query_id=None)",
        lambda: ragstat.aggregate_file(path, score="hit", query_id=None),
        repeat,
    )
    dup = timed("     duplicate-query_id GROUP BY alone (DuckDB)", lambda: duckdb_dup_check(path))
    stats = agg.result
    assert stats.K == K and round(stats.N) == N, (stats.K, stats.N)

    pos = None
    if not args.no_position:
        pos = timed(
            "(d)  aggregate_file(score='hit', position=...)",
            lambda: ragstat.aggregate_file(path, score="hit", position="position"),
            repeat,
        )

    ana = timed(
        f"(b)  analyze(stats, seed=1), all methods, B={args.reps:,}",
        lambda: ragstat.analyze(stats, bootstrap_reps=args.reps, seed=1),
    )
    rss_after_ragstat = peak_rss_mib()

    base = timed(
        "(c)  pandas read_parquet + groupby (baseline)", lambda: pandas_baseline(path), repeat
    )
    base_dup = timed(
        "(c') pandas + query_id duplicated() check",
        lambda: pandas_baseline_with_dup_check(path),
        repeat,
    )

    # Same answer?
    b = base.result
    same = np.array_equal(b.index.to_numpy(dtype=str), stats.doc_id.astype(str)) and (
        np.array_equal(b["size"].to_numpy(), stats.n)
        and np.array_equal(b["sum"].to_numpy(), stats.s)
    )

    print("\nratios (baseline / ragstat; > 1 means ragstat is faster)")
    print(f"  (c)  / (a)   pandas minimal  vs aggregate_file      {base.best / agg.best:6.2f}x")
    print(f"  (c') / (a)   pandas + dup check vs aggregate_file   {base_dup.best / agg.best:6.2f}x")
    print(
        f"  (c)  / (a')  pandas minimal  vs aggregate, no check {base.best / agg_nodup.best:6.2f}x"
    )
    share = max(0.0, 1.0 - agg_nodup.best / agg.best)
    print(
        f"\nduplicate-query_id check: {share:.0%} of aggregate_file "
        f"({agg.best - agg_nodup.best:.2f} s of {agg.best:.2f} s; the GROUP BY alone "
        f"takes {dup.best:.2f} s)"
    )
    if pos is not None:
        print(f"position (lag-1 window) adds {pos.best - agg.best:+.2f} s to (a)")
    print(f"analyze: {ana.best:.2f} s for K = {K:,}, B = {args.reps:,}")
    print(f"pandas baseline gives the same per-document n and s: {same}")
    print(
        f"\npeak RSS (getrusage, whole process, data generation excluded): after aggregation {rss_after_agg:.0f} MiB, "
        f"after analyze {rss_after_ragstat:.0f} MiB, after the pandas baseline {peak_rss_mib():.0f} MiB"
    )

    if args.profile:
        profile_analyze(stats, args.reps, top=15)


if __name__ == "__main__":
    main()
