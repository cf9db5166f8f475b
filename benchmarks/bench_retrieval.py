"""Benchmark: the self-retrieval search (every chunk a query, own chunk excluded) with BM25 and TF-IDF.

    python benchmarks/bench_retrieval.py            # planalto-leis: 687 docs, ~6.6k chunks
    python benchmarks/bench_retrieval.py --quick    # first 80 documents (smoke test)

Documents from ../shared/data/planalto-leis.jsonl (``--data`` for another JSONL)
are cut into 100-word chunks; each chunk's first 20 words are a query that
must not return its own chunk. Tokens come from ragstat.corpus.analysis.Analyzer()
when present (else NFKD folding + lowercase + \\w+); every system gets the same.

Measured in one process (best of ``--repeat``; wall time and, since single-threaded code
on a shared machine is steadier in it, process CPU time; ratios in both). ragstat's
compiled top-k (numba) is forced on or off for its rows and warmed up first; the
cold start of the kernel in a fresh process is measured separately (j).

BM25 (k = 10)
(a)  ragstat BM25Retriever.fit(chunks) + search(queries, 10, exclude=own)  [tokenises too]
(a0) the same with the fallback top-k (scipy blocks + numpy, as without numba)
(q)  ragstat search alone on the fitted index (query tokenisation, counts, top-k); (q0) fallback
(t)  tokenisation alone (chunks + queries); (tq) queries only
(b)  bm25s alone on the same tokens: BM25(method="lucene").index + retrieve(k=11), numpy
     backend; (b') numba backend (warm); (r') its retrieve alone on the built index
(c)  rank_bm25 BM25Okapi: index once, then get_scores + argsort for a sample of
     ``--sample`` queries, the per-query time scaled to every query (the output says so)

Differences: bm25s scores in float32 by default and breaks ties arbitrarily, returning the
own chunk (hence k = 11); ragstat scores in float64 with the exact tie rule. rank_bm25's
IDF is not Lucene's (its lists differ; only time is compared).

TF-IDF (k = 10)
(d)  ragstat TfidfRetriever.fit + search (exact ties, own chunk excluded), compiled top-k;
     (d0) fallback; (d2) compiled with n_jobs=2
(e)  baseline: TfidfVectorizer on the same tokens + a plain blocked scipy product
     with argpartition top-k (no tie rule), and sparse_dot_topn's sp_matmul_topn
     when installed

Targets: (q) ≤ 1.0× ((r') + (tq)), (a) ≤ 1.0× ((b') + (t)), rank_bm25 ≥ 100× (a),
(d) ≤ 1.0× ((e) + (t)). Nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import time
import unicodedata
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import scipy.sparse as sp

import ragstat.retrieval.topk_compiled as tc
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


def cpu_timed(label: str, fn, repeat: int):
    """:func:`timed` (wall), plus the best process CPU time (``.cpu``): on a shared machine
    the CPU time of single-threaded code is the steadier figure."""
    cpu: list[float] = []

    def run():
        t0 = time.process_time()
        out = fn()
        cpu.append(time.process_time() - t0)
        return out

    t = timed(label, run, repeat)
    t.cpu = min(cpu)  # type: ignore[attr-defined]
    print(f"  {'':<48s} {t.cpu:8.3f} s CPU")
    return t


def with_kernel(enabled: bool, fn):
    """``fn`` with ragstat's compiled top-k forced on (True) or off (False, the fallback)."""

    def run():
        tc.ENABLED = enabled
        try:
            return fn()
        finally:
            tc.ENABLED = None

    return run


def ratio(label: str, num, den, target: str = "") -> None:
    """Wall and CPU ratios of two timings (sums of timings as lists)."""
    num, den = list(num), list(den)
    wall = sum(t.best for t in num) / sum(t.best for t in den)
    cpu = sum(t.cpu for t in num) / sum(t.cpu for t in den)
    print(f"    {label:<48s} wall {wall:8.2f}   CPU {cpu:8.2f}   {target}")


def bench_bm25(args, analyzer, chunks, queries) -> None:
    own = np.arange(len(chunks))
    print("\nBM25 (k1 = 1.2, b = 0.75, Lucene IDF), k = 10, own chunk excluded")
    fitted = BM25Retriever(analyzer).fit(chunks)
    with_kernel(True, lambda: fitted.search(queries[:50], K, own[:50]))()  # JIT warm-up

    def search(enabled):
        return with_kernel(enabled, lambda: fitted.search(queries, K, own))

    def fit_search(enabled):
        return with_kernel(
            enabled, lambda: BM25Retriever(analyzer).fit(chunks).search(queries, K, own)
        )

    rows = {
        "a": cpu_timed("(a) ragstat fit + search, compiled top-k", fit_search(True), args.repeat),
        "a0": cpu_timed("(a0) the same, fallback (no numba)", fit_search(False), args.repeat),
        "q": cpu_timed("(q) ragstat search alone, compiled top-k", search(True), args.repeat),
        "q0": cpu_timed("(q0) ragstat search alone, fallback", search(False), args.repeat),
    }
    rows.update(bench_bm25s(args, analyzer, chunks, queries))
    same = bool(np.array_equal(rows["a"].result.indices, rows["a0"].result.indices))
    same = same and np.array_equal(rows["a"].result.scores, rows["a0"].result.scores, True)
    print(f"  compiled vs fallback lists bit-identical: {same}")
    agree = overlap(rows["a"].result.indices, drop_own(np.asarray(rows["b"].result.documents), K))
    print(f"  top-10 overlap ragstat vs bm25s (bm25s ties in arbitrary order): {agree:.4f}")
    report_bm25(rows)


def bench_bm25s(args, analyzer, chunks, queries) -> dict:
    import bm25s

    rows = {}
    for part in ("tq", "t"):
        texts = queries if part == "tq" else chunks + queries
        what = "queries" if part == "tq" else "chunks + queries"
        rows[part] = cpu_timed(
            f"({part}) tokenisation alone ({what})",
            lambda texts=texts: tokenize(analyzer, texts),
            args.repeat,
        )
    ctoks, qtoks = tokenize(analyzer, chunks), rows["tq"].result

    def index(backend):
        model = bm25s.BM25(k1=1.2, b=0.75, method="lucene", backend=backend)
        model.index(ctoks, show_progress=False)
        return model

    def run_bm25s(backend):
        return index(backend).retrieve(qtoks, k=K + 1, show_progress=False)

    rows["b"] = cpu_timed(
        "(b) bm25s numpy backend: index + retrieve k=11", lambda: run_bm25s("numpy"), args.repeat
    )
    run_bm25s("numba")  # JIT warm-up, not timed
    rows["bn"] = cpu_timed(
        "(b') bm25s numba backend: index + retrieve", lambda: run_bm25s("numba"), args.repeat
    )
    model = index("numba")
    rows["rn"] = cpu_timed(
        "(r') bm25s numba retrieve alone (index built)",
        lambda: model.retrieve(qtoks, k=K + 1, show_progress=False),
        args.repeat,
    )
    rows["c"] = bench_rank_bm25(args, ctoks, qtoks)
    return rows


def report_bm25(r: dict) -> None:
    print("  ratios (time / time; < 1: ragstat faster)")
    ratio("(q) / ((r') + (tq)) search vs retrieve", [r["q"]], [r["rn"], r["tq"]], "target ≤ 1.0")
    ratio("(a) / ((b') + (t)) fit + search vs numba", [r["a"]], [r["bn"], r["t"]], "target ≤ 1.0")
    ratio("(a) / (b') (bm25s given tokens)", [r["a"]], [r["bn"]])
    ratio("(a) / (b) bm25s numpy backend", [r["a"]], [r["b"]])
    ratio("(a) / (a0) compiled vs fallback, fit + search", [r["a"]], [r["a0"]])
    ratio("(q) / (q0) compiled vs fallback, search", [r["q"]], [r["q0"]])
    if r["c"] is not None:
        ratio("(c) rank_bm25 (extrapolated) / (a)", [r["c"]], [r["a"]], "target ≥ 100")


def bench_rank_bm25(args, ctoks, qtoks):
    """rank_bm25 BM25Okapi: index once, then a ``get_scores`` + argsort loop on ``--sample``
    queries; the per-query time is scaled to every query (wall and CPU)."""
    try:
        from rank_bm25 import BM25Okapi
    except ImportError:
        print("  (c) rank_bm25 not installed: pip install rank-bm25")
        return None
    built = cpu_timed("(c) rank_bm25 BM25Okapi index", lambda: BM25Okapi(ctoks, k1=1.2, b=0.75), 1)
    model = built.result
    rng = np.random.default_rng(0)
    sample = rng.choice(len(qtoks), min(args.sample, len(qtoks)), replace=False)
    t0, c0 = time.perf_counter(), time.process_time()
    for i in sample:
        scores = model.get_scores(qtoks[i])
        scores[i] = -np.inf
        np.argsort(-scores, kind="stable")[:K]
    scale = len(qtoks) / len(sample)
    wall = built.best + (time.perf_counter() - t0) * scale
    cpu = built.cpu + (time.process_time() - c0) * scale
    print(
        f"  (c) rank_bm25 get_scores loop timed on {len(sample)} of {len(qtoks)} queries, "
        f"scaled ×{scale:.1f}: {wall:.1f} s ({cpu:.1f} s CPU) with the index (extrapolated)"
    )
    return SimpleNamespace(best=wall, cpu=cpu)


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

    def fit_search(enabled, n_jobs=1):
        return with_kernel(
            enabled,
            lambda: TfidfRetriever(analyzer, n_jobs=n_jobs).fit(chunks).search(queries, K, own),
        )

    fit_search(True)()  # JIT warm-up for this retriever's operand types
    ours = cpu_timed(
        "(d) ragstat TfidfRetriever fit + search, compiled", fit_search(True), args.repeat
    )
    ours0 = cpu_timed("(d0) the same, fallback (no numba)", fit_search(False), args.repeat)
    ours2 = cpu_timed("(d2) compiled, n_jobs=2 (threads)", fit_search(True, 2), args.repeat)
    tok = cpu_timed(
        "(t) tokenisation alone",
        lambda: (tokenize(analyzer, chunks), tokenize(analyzer, queries)),
        1,
    )
    ctoks, qtoks = tok.result
    base = cpu_timed(
        "(e) TfidfVectorizer + scipy product + argpartition",
        lambda: baseline_tfidf(ctoks, qtoks),
        args.repeat,
    )
    same = np.array_equal(ours.result.indices, ours0.result.indices)
    same = same and np.array_equal(ours.result.scores, ours0.result.scores, True)
    print(f"  compiled vs fallback lists bit-identical: {same}")
    print(
        f"  top-10 overlap ragstat vs (e) (no tie rule): {overlap(ours.result.indices, base.result[0]):.4f}"
    )
    print("  ratios (time / time; < 1: ragstat faster)")
    ratio("(d) / ((e) + (t)) like for like", [ours], [base, tok], "target ≤ 1.0")
    ratio("(d0) / ((e) + (t)) fallback", [ours0], [base, tok])
    ratio("(d) / (d0) compiled vs fallback", [ours], [ours0])
    ratio("(d2) / (d) two threads vs one", [ours2], [ours])
    bench_topn(args, base.result[1], base.result[2])


def bench_topn(args, xq, xt) -> None:
    try:
        from sparse_dot_topn import sp_matmul_topn
    except ImportError:
        print("  (sparse_dot_topn not installed)")
        return

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


COLD = """
import time
import numpy as np, scipy.sparse as sp
import ragstat.retrieval.topk_compiled as tc
from ragstat.retrieval.topk import topk_product
tc.ENABLED = True
a, b = sp.csr_matrix(np.eye(3)), sp.csr_matrix(np.ones((3, 4)))
w, c = time.perf_counter(), time.process_time()
import numba
w1, c1 = time.perf_counter(), time.process_time()
topk_product(a, b, 2, np.full(3, -1), True)
w2, c2 = time.perf_counter(), time.process_time()
print(f"  (j) fresh process: import numba {w1 - w:.2f} s ({c1 - c:.2f} s CPU), first kernel "
      f"call {w2 - w1:.2f} s ({c2 - c1:.2f} s CPU; numba set-up + kernel from the disk cache)")
"""


def bench_cold(chunks, queries, analyzer) -> None:
    """The kernel's start-up cost in a fresh process, and the automatic mode's choice here."""
    subprocess.run([sys.executable, "-c", COLD], check=False)
    subprocess.run([sys.executable, "-c", COLD], check=False)
    r = BM25Retriever(analyzer).fit(chunks)
    left = r.query_matrix(queries)
    work = int(np.diff(r.weights.indptr)[left.indices].sum())
    use = "compiled" if work >= tc.COLD_WORK else "fallback until the kernel has run"
    print(
        f"  this corpus: {work:,} multiply-adds per BM25 search; automatic mode in a fresh "
        f"process (COLD_WORK = {tc.COLD_WORK:,}): {use}"
    )


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
    print("\nCompiled top-k start-up (run twice: the first may compile and fill numba's cache)")
    bench_cold(chunks, queries, analyzer)
    bench_bm25(args, analyzer, chunks, queries)
    bench_tfidf(args, analyzer, chunks, queries)


if __name__ == "__main__":
    main()
