"""Benchmark: the self-retrieval study at scale — in-process vs batched vs a Dask LocalCluster.

A synthetic corpus is generated in memory (nothing written but the index): documents
with heavy-tailed sizes (lognormal chunks per document, median 8, σ = 1.5, capped at
20,000) of 100-word chunks; words from a Zipf–Mandelbrot law over 200,000 word types
(the 40 commonest are English function words, so posting lists are as long as in
real text) mixed with 40 % topic words of the document (50 per document), so
self-retrieval is neither trivial nor hopeless. The study: BM25 (and TF-IDF with
``--retrievers bm25,tfidf``), queries = 20 words, a two-stage sample of
``--queries`` queries (default 20,000). For each size (100k, 300k, 1M chunks):

  (L) run_study in process (fit + search, nothing saved)
  (B) batched, serial executor, a fresh index folder (fit + save + batches + assembly)
  (D) batched on a Dask LocalCluster (2 workers, loopback), a fresh index folder
  (D') the same cluster again, reusing the saved index (search only)

with the client's peak RSS per phase (VmHWM) and the Dask workers' peak RSS
(getrusage in each worker); the results of (B), (D), (D') are checked identical
to (L). The index lives in a temporary folder removed at the end.

``--modes P`` (the memory profile) runs only (P): the in-process study with the peak RSS
of each phase — chunking, index build, search, records, analysis (the summary's
intervals and the study folder written) — read from the study's progress lines
(VmHWM reset at each), then the time and client peak per size and the growth exponents
(log-log slopes of time and of peak memory against chunks).

    python benchmarks/bench_scale_study.py                       # 100k, 300k, 1M chunks
    python benchmarks/bench_scale_study.py --quick               # 100k only
    python benchmarks/bench_scale_study.py --modes P --sizes 100000,300000,1000000
"""

from __future__ import annotations

import argparse
import gc
import resource
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from _common import (
    current_rss_mib,
    machine_line,
    peak_rss_mib,
    phase_peak_mib,
    reset_phase_peak,
    timed,
)
from ragstat.corpus.document import Corpus, Document
from ragstat.engine import get_executor
from ragstat.selfretrieval import StudyConfig, run_study

FUNCTION_WORDS = (  # noqa: SIM905 (one readable line of words)
    "the of and to a in is that for it as was with be by on not he this are or his from at "
    "which but have an they you were their one all we can her has there been if more when"
).split()
WORDS_PER_CHUNK = 100


def _vocabulary(size: int, rng: np.random.Generator) -> np.ndarray:
    """Function words first, then distinct pseudo-words of 2–4 syllables."""
    syll = np.array(
        [c + v for c in "bcdfghjklmnprstvz" for v in "aeiou"] + ["qu", "th", "st", "ch"]
    )
    out, seen = list(FUNCTION_WORDS), set(FUNCTION_WORDS)
    while len(out) < size:
        k = rng.integers(2, 5, size)
        picks = rng.integers(0, syll.size, (size, 4))
        for n, row in zip(k, picks, strict=True):
            word = "".join(syll[row[:n]])
            if word not in seen:
                seen.add(word)
                out.append(word)
                if len(out) == size:
                    break
    return np.array(out, dtype=object)


def synthetic_corpus(n_chunks: int, seed: int = 0, vocab_size: int = 200_000) -> Corpus:
    """About ``n_chunks`` chunks of 100 words in documents with lognormal sizes."""
    rng = np.random.default_rng(seed)
    vocab = _vocabulary(vocab_size, rng)
    p = 1.0 / (np.arange(1, vocab_size + 1) + 2.7)
    cdf = np.cumsum(p / p.sum())
    sizes = np.minimum(20_000, np.ceil(rng.lognormal(np.log(8), 1.5, n_chunks // 4 + 100)))
    sizes = sizes[: np.searchsorted(np.cumsum(sizes), n_chunks) + 1].astype(np.int64)
    sizes[-1] -= max(0, int(sizes.sum()) - n_chunks)
    sizes = sizes[sizes > 0]
    docs = []
    for d, n in enumerate(sizes):
        words = int(n) * WORDS_PER_CHUNK - int(rng.integers(0, WORDS_PER_CHUNK // 2))
        ids = np.searchsorted(cdf, rng.random(words))
        topic = rng.integers(500, vocab_size, 50)
        own = rng.random(words) < 0.4
        ids[own] = topic[rng.integers(0, 50, int(own.sum()))]
        docs.append(Document(f"d{d:06d}", " ".join(vocab[ids].tolist()), {"size": int(n)}))
    return Corpus(tuple(docs), source=f"synthetic-{n_chunks}")


def _worker_peak_mib() -> float:
    """In a worker: its peak RSS (VmHWM; getrusage would include the forking parent's)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return float(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _worker_peaks_mib(executor) -> list[float]:
    return sorted(executor.client.run(_worker_peak_mib).values())


def _same(a, b) -> bool:
    try:
        pd.testing.assert_frame_equal(a.records, b.records, check_exact=True)
        pd.testing.assert_frame_equal(a.candidates, b.candidates, check_exact=True)
    except AssertionError:
        return False
    return True


def bench_size(n_chunks: int, config: StudyConfig, workers: int, scratch: Path) -> dict:
    t0 = time.perf_counter()
    corpus = synthetic_corpus(n_chunks)
    sizes = np.array([d.metadata["size"] for d in corpus.documents])
    print(
        f"\n{n_chunks:,} chunks: {len(corpus):,} documents (chunks per document: median "
        f"{np.median(sizes):.0f}, mean {sizes.mean():.1f}, max {sizes.max():,}, largest 10 % "
        f"hold {np.sort(sizes)[::-1][: max(1, sizes.size // 10)].sum() / sizes.sum():.0%}); "
        f"generated in {time.perf_counter() - t0:.1f} s",
        flush=True,
    )
    out: dict = {}
    local = timed("(L)  in process", lambda: run_study(corpus, config))
    out["L"] = local
    print(f"       {len(local.result.records) // len(config.retrievers):,} sampled queries")
    index = scratch / f"index-{n_chunks}"
    batched = timed(
        "(B)  batched, serial, fresh index",
        lambda: run_study(corpus, config, index_dir=index),
    )
    out["B"] = batched
    shutil.rmtree(index)
    t0 = time.perf_counter()
    with get_executor(workers, "dask") as ex:
        out["start"] = time.perf_counter() - t0
        print(f"  Dask LocalCluster with {ex.workers} workers started in {out['start']:.1f} s")
        dask = timed(
            f"(D)  Dask {ex.workers} workers, fresh index",
            lambda: run_study(corpus, config, executor=ex, index_dir=index),
        )
        reuse = timed(
            f"(D') Dask {ex.workers} workers, saved index",
            lambda: run_study(corpus, config, executor=ex, index_dir=index),
        )
        out["workers_mib"] = _worker_peaks_mib(ex)
    out["D"], out["D2"] = dask, reuse
    shutil.rmtree(index)
    same = all(_same(local.result, t.result) for t in (batched, dask, reuse))
    print(f"  Dask workers' peak RSS: {', '.join(f'{m:.0f}' for m in out['workers_mib'])} MiB")
    print(
        f"  ratios to (L): (B) {batched.best / local.best:.2f}, (D) {dask.best / local.best:.2f}, "
        f"(D') {reuse.best / local.best:.2f};  identical tables: {same}"
    )
    for t in (local, batched, dask, reuse):
        t.result = None
    gc.collect()
    return out


#: Progress-line prefixes that open a phase of the in-process study (in order).
PHASES = (("index", ": indexing"), ("search", ": searching"), ("records", "records:"))


class _Phases:
    """A progress callback that closes the running phase at each phase-opening line."""

    def __init__(self) -> None:
        self.name = "chunking"
        self.t0 = time.perf_counter()
        self.base = current_rss_mib() or 0.0
        self.out: dict[str, list[float]] = {}
        reset_phase_peak()

    def close(self, next_name: str) -> None:
        peak = max(phase_peak_mib() or 0.0, self.base)
        wall = time.perf_counter() - self.t0
        old = self.out.get(self.name, [0.0, 0.0])
        self.out[self.name] = [old[0] + wall, max(old[1], peak)]
        self.name, self.t0 = next_name, time.perf_counter()
        self.base = current_rss_mib() or 0.0
        reset_phase_peak()

    def __call__(self, msg: str) -> None:
        for name, marker in PHASES:
            if marker in msg:
                self.close(name)
                return


def profile_size(n_chunks: int, config: StudyConfig, scratch: Path) -> dict:
    """(P): the in-process study of ``n_chunks`` chunks, per-phase wall time and peak RSS."""
    from ragstat.api.verbs.study import StudyResult, summarize

    t0 = time.perf_counter()
    corpus = synthetic_corpus(n_chunks)
    print(
        f"\n{n_chunks:,} chunks: {len(corpus):,} documents, generated in "
        f"{time.perf_counter() - t0:.1f} s; corpus held: {current_rss_mib():.0f} MiB",
        flush=True,
    )
    start = time.perf_counter()
    phases = _Phases()
    study = run_study(corpus, config, progress=phases)
    phases.close("analysis")
    summary = summarize(study, seed=0)
    StudyResult(summary=summary, tables=study).write(scratch / f"study-{n_chunks}")
    phases.close("done")
    total = time.perf_counter() - start
    peak = max(p for _, p in phases.out.values())
    for name, (wall, mib) in phases.out.items():
        print(f"  {name:<10s} {wall:8.1f} s   phase peak RSS {mib:7.0f} MiB", flush=True)
    queries = len(study.records) // len(config.retrievers)
    print(f"  (P) study {total:.1f} s, client peak {peak:.0f} MiB, {queries:,} queries", flush=True)
    del study, summary, corpus
    gc.collect()
    return {"time": total, "peak": peak, "phases": phases.out}


def slope(xs: list[float], ys: list[float]) -> float:
    """Least-squares slope of log y on log x (the growth exponent)."""
    return float(np.polyfit(np.log(xs), np.log(ys), 1)[0])


def print_growth(sizes: list[int], results: dict) -> None:
    print("\nchunks        time (s)   client peak (MiB)")
    for n in sizes:
        print(f"  {n:>10,} {results[n]['time']:10.1f} {results[n]['peak']:12.0f}")
    if len(sizes) > 1:
        t = slope(sizes, [results[n]["time"] for n in sizes])
        m = slope(sizes, [results[n]["peak"] for n in sizes])
        print(f"growth exponents (log-log slope vs chunks): time {t:.2f}, memory {m:.2f}")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="100k chunks only")
    ap.add_argument("--sizes", default="100000,300000,1000000", help="chunks, comma-separated")
    ap.add_argument("--queries", type=int, default=20_000, help="sampled queries (N)")
    ap.add_argument("--retrievers", default="bm25")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument(
        "--modes", default="L,B,D", help="L,B,D (the four-way comparison) or P (memory profile)"
    )
    args = ap.parse_args(argv)
    sizes = [100_000] if args.quick else [int(s) for s in args.sizes.split(",")]
    config = StudyConfig(
        retrievers=tuple(args.retrievers.split(",")), sample_queries=args.queries, sample_seed=1
    )
    print(machine_line())
    print(f"retrievers {', '.join(config.retrievers)}; sample of {args.queries:,} queries")
    scratch = Path(tempfile.mkdtemp(prefix="ragstat-bench-scale-"))
    results = {}
    profile = args.modes.strip().upper() == "P"
    try:
        for n in sizes:
            if profile:
                results[n] = profile_size(n, config, scratch)
            else:
                results[n] = bench_size(n, config, args.workers, scratch)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if profile:
        print_growth(sizes, results)
        print(f"client peak RSS over the run: {peak_rss_mib():.0f} MiB")
        return
    base = sizes[0]
    print(f"\ngrowth from {base:,} chunks (time ratio; chunks ratio):")
    for n in sizes[1:]:
        r = results[n]
        print(
            f"  {n:,}: (L) ×{r['L'].best / results[base]['L'].best:.1f}, "
            f"(D) ×{r['D'].best / results[base]['D'].best:.1f}, "
            f"(D') ×{r['D2'].best / results[base]['D2'].best:.1f}  (chunks ×{n / base:.0f})"
        )
    print(f"client peak RSS over the run: {peak_rss_mib():.0f} MiB")


if __name__ == "__main__":
    main()
