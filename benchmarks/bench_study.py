"""Benchmark: the full self-retrieval study (every chunk a query) against bm25s and rank_bm25.

In one process, for each corpus (planalto-leis from ../shared, the built-in demo):
  (s)  ragstat run_study with BM25 + TF-IDF (chunking, analysis, both retrievers, records)
  (s1) ragstat run_study with BM25 only
  (b)  bm25s alone on the same chunk and query tokens: index + retrieve k = 11
  (c)  rank_bm25 BM25Okapi get_scores loop on a sample of queries, extrapolated
Ratios: (c)/(s1) (target ≥ 100×) and (s1)/(b) (target ≤ 1.3×; (s1) also pays for
chunking, analysis, exact ties and the outcome columns).

    python benchmarks/bench_study.py            # both corpora
    python benchmarks/bench_study.py --quick    # first 100 planalto documents only
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from _common import machine_line, timed
from ragstat.corpus.analysis import Analyzer
from ragstat.corpus.chunking import chunk_corpus, query_text
from ragstat.corpus.document import Corpus
from ragstat.corpus.loaders import load_demo, load_jsonl
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


def _rank_bm25(ctoks, qtoks, sample: int) -> float:
    try:
        from rank_bm25 import BM25Okapi
    except ImportError:
        print("  (c) rank_bm25 not installed (pip install rank-bm25)")
        return float("nan")
    t0 = time.perf_counter()
    model = BM25Okapi(ctoks, k1=1.2, b=0.75)
    build = time.perf_counter() - t0
    idx = np.random.default_rng(0).choice(len(qtoks), min(sample, len(qtoks)), replace=False)
    t0 = time.perf_counter()
    for i in idx:
        np.argsort(-model.get_scores(qtoks[i]), kind="stable")[: K + 1]
    per = (time.perf_counter() - t0) / len(idx)
    total = build + per * len(qtoks)
    print(f"  (c) rank_bm25: {per * 1e3:.1f} ms/query on {len(idx)} → {total:.1f} s extrapolated")
    return total


def bench(name: str, corpus: Corpus, repeat: int, sample: int) -> None:
    import bm25s

    print(f"\n{name}: {len(corpus)} documents")
    both = timed("(s)  run_study bm25 + tfidf", lambda: run_study(corpus, StudyConfig()), repeat)
    print(
        f"       {both.result.n_chunks} chunks, {len(both.result.records) // 2} queries per retriever"
    )
    one = timed(
        "(s1) run_study bm25 only",
        lambda: run_study(corpus, StudyConfig(retrievers=("bm25",))),
        repeat,
    )
    texts, queries = _queries(corpus)
    analyzer = Analyzer()
    ctoks, qtoks = analyzer.many(texts), analyzer.many(queries)

    def alone():
        model = bm25s.BM25(k1=1.2, b=0.75, method="lucene")
        model.index(ctoks, show_progress=False)
        return model.retrieve(qtoks, k=K + 1, show_progress=False)

    b = timed("(b)  bm25s alone: index + retrieve k = 11 (tokens given)", alone, repeat)
    c = _rank_bm25(ctoks, qtoks, sample)
    print(
        f"  ratios: (c)/(s1) = {c / one.best:.0f}× (target ≥ 100×);  "
        f"(s1)/(b) = {one.best / b.best:.2f} (target ≤ 1.3)"
    )


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
