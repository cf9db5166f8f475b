"""Benchmark: the self-retrieval search (every chunk a query, own chunk excluded) with BM25 and TF-IDF.

    python benchmarks/bench_retrieval.py            # planalto-leis: 687 docs, ~6.6k chunks
    python benchmarks/bench_retrieval.py --quick    # first 80 documents (smoke test)

Documents from ../shared/data/planalto-leis.jsonl (``--data`` for another JSONL)
are cut into 100-word chunks; each chunk's first 20 words are a query that
must not return its own chunk. Tokens come from ragstat.corpus.analysis.Analyzer()
when present (else NFKD folding + lowercase + \\w+); every system gets the same.

Measured in one process (best of ``--repeat``):

BM25 (k = 10)
(a)  ragstat BM25Retriever.fit(chunks) + search(queries, 10, exclude=own)  [tokenises too]
(t)  tokenisation alone (chunks + queries), to compare like with like
(b)  bm25s alone on the same tokens: BM25(method="lucene").index + retrieve(k=11)
     (numpy backend; also the numba backend when numba is installed)
(c)  rank_bm25 BM25Okapi: index once, then get_scores + argsort for a sample of
     ``--sample`` queries, the per-query time extrapolated to every query

TF-IDF (k = 10)
(d)  ragstat TfidfRetriever.fit + search (exact ties, own chunk excluded)
(e)  baseline: TfidfVectorizer on the same tokens + a plain blocked scipy product
     with argpartition top-k (no tie rule), and sparse_dot_topn's sp_matmul_topn
     when installed

Printed: wall times and ratios (target: (a) ≥ 100× faster than (c), (a) ≤ 1.3× (b)),
and how often ragstat's top-10 agrees with the baselines'. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import re
import time
import unicodedata
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from _common import machine_line, timed
from ragstat.retrieval import BM25Retriever, TfidfRetriever

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "planalto-leis.jsonl"
K = 10


def fallback_analyzer(text: str) -> list[str]:
    folded = unicodedata.normalize("NFKD", text)
    folded = "".join(ch for ch in folded if not unicodedata.combining(ch))
    return re.findall(r"\w+", folded.lower())


def get_analyzer():
    try:
        from ragstat.corpus.analysis import Analyzer
    except ImportError:
        return fallback_analyzer, "fallback NFKD + lower + \\w+"
    return Analyzer(), "ragstat.corpus.analysis.Analyzer()"


def tokenize(analyzer, texts):
    many = getattr(analyzer, "many", None)
    return many(texts) if callable(many) else [analyzer(t) for t in texts]


def load_chunks(path: Path, max_docs: int | None) -> tuple[list[str], list[str]]:
    chunks = []
    with path.open(encoding="utf-8") as fh:
        for d, line in enumerate(fh):
            if max_docs is not None and d >= max_docs:
                break
            words = json.loads(line)["text"].split()
            chunks.extend(" ".join(words[lo : lo + 100]) for lo in range(0, len(words), 100))
    queries = [" ".join(c.split()[:20]) for c in chunks]
    return chunks, queries


def drop_own(indices: np.ndarray, k: int) -> np.ndarray:
    """Top-k after removing each row's own chunk from a (k+1)-deep list."""
    own = np.arange(indices.shape[0])[:, None]
    keep = indices != own
    out = np.full((indices.shape[0], k), -1, dtype=np.int64)
    for i in range(indices.shape[0]):  # bookkeeping on k+1 entries per row, not timed
        row = indices[i][keep[i]][:k]
        out[i, : len(row)] = row
    return out


def overlap(a: np.ndarray, b: np.ndarray) -> float:
    """Mean share of common chunks in the two top-k lists (as sets)."""
    shares = [
        len(set(x[x >= 0]) & set(y[y >= 0])) / max(1, len(set(x[x >= 0])))
        for x, y in zip(a, b, strict=True)
    ]
    return float(np.mean(shares))


def bench_bm25(args, analyzer, chunks, queries) -> None:
    import bm25s

    own = np.arange(len(chunks))
    print("\nBM25 (k1 = 1.2, b = 0.75, Lucene IDF), k = 10, own chunk excluded")
    ours = timed(
        "(a) ragstat BM25Retriever fit + search",
        lambda: BM25Retriever(analyzer).fit(chunks).search(queries, K, own),
        args.repeat,
    )
    ours2 = timed(
        "(a2) the same with n_jobs=2 (threads over blocks)",
        lambda: BM25Retriever(analyzer, n_jobs=2).fit(chunks).search(queries, K, own),
        args.repeat,
    )
    tok = timed(
        "(t) tokenisation alone (chunks + queries)",
        lambda: (tokenize(analyzer, chunks), tokenize(analyzer, queries)),
        args.repeat,
    )
    ctoks, qtoks = tok.result

    def run_bm25s(backend):
        model = bm25s.BM25(k1=1.2, b=0.75, method="lucene", backend=backend)
        model.index(ctoks, show_progress=False)
        return model.retrieve(qtoks, k=K + 1, show_progress=False)

    alone = timed(
        "(b) bm25s alone, numpy backend: index + retrieve k=11",
        lambda: run_bm25s("numpy"),
        args.repeat,
    )
    numba_t = None
    try:
        import numba  # noqa: F401
    except ImportError:
        print("  (bm25s numba backend: numba not installed)")
    else:
        run_bm25s("numba")  # JIT warm-up, not timed
        numba_t = timed("(b') bm25s alone, numba backend", lambda: run_bm25s("numba"), args.repeat)
    rank = bench_rank_bm25(args, ctoks, qtoks)

    agree = overlap(ours.result.indices, drop_own(np.asarray(alone.result.documents), K))
    print(f"  top-10 overlap ragstat vs bm25s (bm25s ties in arbitrary order): {agree:.4f}")
    print("  ratios (> 1: ragstat faster)")
    print(f"    rank_bm25 (extrapolated) / (a)       {rank / ours.best:9.1f}×   target ≥ 100×")
    print(f"    (a) / (b) bm25s alone               {ours.best / alone.best:9.2f}    target ≤ 1.3")
    print(f"    (a) / ((b) + (t)) like for like     {ours.best / (alone.best + tok.best):9.2f}")
    print(f"    (a2) / (b) bm25s alone               {ours2.best / alone.best:9.2f}")
    if numba_t is not None:
        print(f"    (a) / (b') bm25s numba               {ours.best / numba_t.best:9.2f}")
        print(f"    (a2) / (b') bm25s numba              {ours2.best / numba_t.best:9.2f}")
        print(f"    bm25s numpy / numba                  {alone.best / numba_t.best:9.2f}")


def bench_rank_bm25(args, ctoks, qtoks) -> float:
    try:
        from rank_bm25 import BM25Okapi
    except ImportError:
        print("  (c) rank_bm25 not installed: pip install rank-bm25")
        return float("nan")
    built = timed("(c) rank_bm25 BM25Okapi index", lambda: BM25Okapi(ctoks, k1=1.2, b=0.75), 1)
    model = built.result
    rng = np.random.default_rng(0)
    sample = rng.choice(len(qtoks), min(args.sample, len(qtoks)), replace=False)

    def loop():
        for i in sample:
            scores = model.get_scores(qtoks[i])
            scores[i] = -np.inf
            np.argsort(-scores, kind="stable")[:K]

    t0 = time.perf_counter()
    loop()
    per_query = (time.perf_counter() - t0) / len(sample)
    total = built.best + per_query * len(qtoks)
    print(
        f"  (c) rank_bm25 get_scores loop: {per_query * 1e3:.2f} ms/query on {len(sample)} queries "
        f"→ {total:.1f} s for all {len(qtoks)} (index included, extrapolated)"
    )
    return total


def baseline_tfidf(ctoks, qtoks):
    from sklearn.feature_extraction.text import TfidfVectorizer

    vec = TfidfVectorizer(analyzer=lambda toks: toks, lowercase=False)
    x = vec.fit_transform(ctoks)
    xq = vec.transform(qtoks)
    xt = sp.csr_matrix(x.T)
    out = np.empty((xq.shape[0], K), dtype=np.int64)
    step = max(1, 2**21 // x.shape[0])
    for lo in range(0, xq.shape[0], step):
        block = (xq[lo : lo + step] @ xt).toarray()
        rows = np.arange(block.shape[0])
        block[rows, lo + rows] = -np.inf
        part = np.argpartition(-block, K, axis=1)[:, :K]
        order = np.argsort(-np.take_along_axis(block, part, axis=1), axis=1)
        out[lo : lo + step] = np.take_along_axis(part, order, axis=1)
    return out, xq, xt


def bench_tfidf(args, analyzer, chunks, queries) -> None:
    import sklearn.feature_extraction.text  # noqa: F401  (import time is not search time)

    own = np.arange(len(chunks))
    print("\nTF-IDF cosine (smooth idf, l2), k = 10, own chunk excluded")
    ours = timed(
        "(d) ragstat TfidfRetriever fit + search",
        lambda: TfidfRetriever(analyzer).fit(chunks).search(queries, K, own),
        args.repeat,
    )
    ours2 = timed(
        "(d2) the same with n_jobs=2",
        lambda: TfidfRetriever(analyzer, n_jobs=2).fit(chunks).search(queries, K, own),
        args.repeat,
    )
    tok = timed(
        "(t) tokenisation alone",
        lambda: (tokenize(analyzer, chunks), tokenize(analyzer, queries)),
        1,
    )
    ctoks, qtoks = tok.result
    base = timed(
        "(e) TfidfVectorizer + blocked scipy, no tie rule",
        lambda: baseline_tfidf(ctoks, qtoks),
        args.repeat,
    )
    print(
        f"  top-10 overlap ragstat vs baseline: {overlap(ours.result.indices, base.result[0]):.4f}"
    )
    print(f"  ratio (d) / ((e) + (t)): {ours.best / (base.best + tok.best):.2f}")
    print(f"  ratio (d2) / ((e) + (t)): {ours2.best / (base.best + tok.best):.2f}")
    try:
        from sparse_dot_topn import sp_matmul_topn
    except ImportError:
        print("  (sparse_dot_topn not installed)")
        return
    _, xq, xt = base.result

    def blocked_product():
        step = max(1, 2**21 // xt.shape[1])
        return sum((xq[lo : lo + step] @ xt).nnz for lo in range(0, xq.shape[0], step))

    prod = timed("  scipy blocked product alone (no top-k)", blocked_product, args.repeat)
    topn = timed(
        "  sparse_dot_topn sp_matmul_topn(top_n=16), 1 thread",
        lambda: sp_matmul_topn(xq, xt, top_n=16),
        args.repeat,
    )
    print(f"  sparse_dot_topn / scipy blocked product: {topn.best / prod.best:.2f}")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="first 80 documents, 1 run (smoke test)")
    ap.add_argument("--data", type=Path, default=DATA, help="JSONL with a text field per line")
    ap.add_argument("--docs", type=int, help="use only the first DOCS documents")
    ap.add_argument("--repeat", type=int, help="timed runs per phase (default 3; quick 1)")
    ap.add_argument("--sample", type=int, default=200, help="rank_bm25 queries timed (default 200)")
    args = ap.parse_args(argv)
    args.repeat = args.repeat or (1 if args.quick else 3)
    if args.quick:
        args.docs = args.docs or 80
        args.sample = min(args.sample, 50)
    if not args.data.is_file():
        raise SystemExit(f"data file not found: {args.data}")
    analyzer, label = get_analyzer()
    chunks, queries = load_chunks(args.data, args.docs)
    print(machine_line())
    print(
        f"{args.data.name}: {len(chunks)} chunks of ≤ 100 words, {len(queries)} queries; analyzer: {label}"
    )
    bench_bm25(args, analyzer, chunks, queries)
    bench_tfidf(args, analyzer, chunks, queries)


if __name__ == "__main__":
    main()
