"""Benchmark: IR metrics for 100,000 queries × 100-document runs, five metrics.

    python benchmarks/bench_metrics.py            # 100,000 queries (10M run rows); ~1.5 min
    python benchmarks/bench_metrics.py --quick    # 5,000 queries (smoke test)

Synthetic data (``--seed``): a corpus of 1,000,000 document ids; per query a
100-document run (scores descending, rounded to 3 decimals so ties occur) and
qrels with 10 judged documents, about 5 of them relevant with grades 1–3;
each judged document is retrieved with probability 0.6 at a random rank.
Both sides receive the same pandas DataFrames (``query_id, doc_id, score`` and
``query_id, doc_id, relevance``).

Timed in one process (best of ``--repeat``):

(a)  ragstat ``run_from_frame`` + ``qrels_from_frame`` (checks, trec_eval ordering)
(b)  ragstat ``evaluate`` on the built objects (ndcg@10, recall@10, p@10, mrr, map)
(c)  ir_measures ``iter_calc`` (pytrec_eval provider) from the same DataFrames
(d)  pytrec_eval alone: ``RelevanceEvaluator(...).evaluate`` on prebuilt dicts
     (dict building timed separately), when installed
(e)  ranx ``evaluate`` on the same frames, when installed

Printed: wall times, the ratios (c)/(a+b), (d)/(b), and the largest per-query
difference between ragstat and the baseline (0 expected: same definitions;
queries without a relevant document excluded since ragstat gives NaN there).
Nothing is asserted.

Measured on the 2-CPU development machine (python 3.11, numpy 2.4, pandas 3.1):
(a) 3.7 s, (b) 1.5 s, (c) 34.1 s → ir_measures / ragstat = 6.5×;
(d) 2.5 s → pytrec_eval / ragstat evaluate = 1.7×; from the DataFrames 1.4×;
every per-query value identical (max |diff| = 0).
"""

from __future__ import annotations

import argparse
import math

import numpy as np
import pandas as pd

from _common import machine_line, timed
from ragstat.metrics import evaluate, qrels_from_frame, run_from_frame

METRICS = ["ndcg@10", "recall@10", "p@10", "mrr", "map"]
TREC = {
    "ndcg@10": "ndcg_cut_10",
    "recall@10": "recall_10",
    "p@10": "P_10",
    "mrr": "recip_rank",
    "map": "map",
}


def make_data(n_queries: int, depth: int, seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n_docs, judged = 1_000_000, 10
    qids = np.char.add("q", np.arange(n_queries).astype(str)).astype(object)
    # depth + judged distinct ids per query: a random start plus positive gaps summing below n_docs
    gaps = rng.integers(1, n_docs // (depth + judged), size=(n_queries, depth + judged))
    docs = (rng.integers(0, n_docs, size=(n_queries, 1)) + np.cumsum(gaps, axis=1)) % n_docs
    docs = rng.permuted(docs, axis=1)
    qrel_docs, run_docs = docs[:, :judged], docs[:, judged:].copy()
    # each judged document is retrieved with p = 0.6, at a rank of its own
    slots = np.argsort(rng.random((n_queries, depth)), axis=1)[:, :judged]
    take = rng.random((n_queries, judged)) < 0.6
    rows = np.repeat(np.arange(n_queries)[:, None], judged, axis=1)
    run_docs[rows[take], slots[take]] = qrel_docs[take]
    scores = -np.sort(-np.round(rng.gamma(2.0, 2.0, size=(n_queries, depth)), 3), axis=1)
    doc_name = np.char.add("D", np.arange(n_docs).astype(str)).astype(object)
    run = pd.DataFrame(
        {
            "query_id": np.repeat(qids, depth),
            "doc_id": doc_name[run_docs.ravel()],
            "score": scores.ravel(),
        }
    )
    grade = rng.choice([0, 1, 2, 3], size=(n_queries, judged), p=[0.5, 0.25, 0.15, 0.10])
    qrels = pd.DataFrame(
        {
            "query_id": np.repeat(qids, judged),
            "doc_id": doc_name[qrel_docs.ravel()],
            "relevance": grade.ravel(),
        }
    )
    return run, qrels


def as_dicts(run: pd.DataFrame, qrels: pd.DataFrame) -> tuple[dict, dict]:
    run_d: dict[str, dict[str, float]] = {}
    for q, d, s in zip(
        run["query_id"].tolist(), run["doc_id"].tolist(), run["score"].tolist(), strict=True
    ):
        run_d.setdefault(q, {})[d] = s
    qrels_d: dict[str, dict[str, int]] = {}
    for q, d, r in zip(
        qrels["query_id"].tolist(),
        qrels["doc_id"].tolist(),
        qrels["relevance"].tolist(),
        strict=True,
    ):
        qrels_d.setdefault(q, {})[d] = int(r)
    return run_d, qrels_d


def compare(table, baseline: dict[str, dict[str, float]]) -> float:
    """Largest |ragstat − baseline| over queries with a relevant document."""
    worst = 0.0
    for name in METRICS:
        ours = table.values(name)
        ours = ours[ours.notna()]
        theirs = np.array([baseline[q][name] for q in ours.index])
        worst = max(worst, float(np.max(np.abs(ours.to_numpy() - theirs))))
    return worst


def bench_ir_measures(run: pd.DataFrame, qrels: pd.DataFrame, repeat: int):
    try:
        import ir_measures
    except ImportError:
        print("  (c) ir_measures not installed: pip install ir-measures pytrec-eval-terrier")
        return None
    m = [ir_measures.parse_measure(x) for x in ("nDCG@10", "R@10", "P@10", "RR", "AP")]
    names = dict(zip(m, METRICS, strict=True))

    def go():
        out: dict[str, dict[str, float]] = {}
        for r in ir_measures.iter_calc(m, qrels, run):
            out.setdefault(r.query_id, {})[names[r.measure]] = r.value
        return out

    return timed("(c) ir_measures iter_calc (from the DataFrames)", go, repeat)


def bench_pytrec_eval(run: pd.DataFrame, qrels: pd.DataFrame, repeat: int):
    try:
        import pytrec_eval
    except ImportError:
        return None, None
    dicts = timed("(d0) DataFrames → dict of dicts (for pytrec_eval)", lambda: as_dicts(run, qrels))
    run_d, qrels_d = dicts.result
    measures = {"ndcg_cut.10", "recall.10", "P.10", "recip_rank", "map"}

    def go():
        res = pytrec_eval.RelevanceEvaluator(qrels_d, measures).evaluate(run_d)
        return {q: {n: v[TREC[n]] for n in METRICS} for q, v in res.items()}

    return dicts, timed("(d) pytrec_eval RelevanceEvaluator.evaluate", go, repeat)


def bench_ranx(run: pd.DataFrame, qrels: pd.DataFrame, repeat: int):
    try:
        import ranx
    except ImportError:
        print("  (e) ranx not installed: skipped")
        return None
    r = ranx.Run.from_df(run, q_id_col="query_id", doc_id_col="doc_id", score_col="score")
    q = ranx.Qrels.from_df(qrels, q_id_col="query_id", doc_id_col="doc_id", score_col="relevance")
    return timed(
        "(e) ranx evaluate (prebuilt)",
        lambda: ranx.evaluate(q, r, ["ndcg@10", "recall@10", "precision@10", "mrr", "map"]),
        repeat,
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--queries", type=int, default=100_000)
    ap.add_argument("--depth", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--seed", type=int, default=20240611)
    ap.add_argument("--quick", action="store_true", help="5,000 queries, one repetition")
    ap.add_argument("--no-baseline", action="store_true", help="time ragstat only")
    args = ap.parse_args()
    if args.quick:
        args.queries, args.repeat = 5_000, 1
    print(machine_line())
    run_df, qrels_df = make_data(args.queries, args.depth, args.seed)
    print(
        f"{args.queries:,} queries × {args.depth} documents = {len(run_df):,} run rows; "
        f"{len(qrels_df):,} judgments ({int((qrels_df['relevance'] > 0).sum()):,} relevant); metrics {METRICS}"
    )
    build = timed(
        "(a) ragstat run_from_frame + qrels_from_frame",
        lambda: (run_from_frame(run_df, "bench"), qrels_from_frame(qrels_df)),
        args.repeat,
    )
    run, qrels = build.result
    ev = timed(
        "(b) ragstat evaluate (5 metrics)", lambda: evaluate(qrels, run, METRICS), args.repeat
    )
    table = ev.result
    print(
        f"  means: {table.means().set_index('metric')['mean'].round(4).to_dict()}; counts {table.counts['bench'].to_dict()}"
    )
    if args.no_baseline:
        return
    ours = build.best + ev.best
    irm = bench_ir_measures(run_df, qrels_df, 1 if not args.quick else args.repeat)
    if irm is not None:
        print(
            f"  ratio (c) / (a+b) = {irm.best / ours:6.1f}×   (ir_measures / ragstat, both from DataFrames); "
            f"max |diff| = {compare(table, irm.result):.2e}"
        )
    dicts, pte = bench_pytrec_eval(run_df, qrels_df, args.repeat)
    if pte is not None:
        print(
            f"  ratio (d) / (b) = {pte.best / ev.best:6.1f}×   (pytrec_eval on prebuilt dicts / ragstat evaluate on prebuilt Run)"
        )
        print(
            f"  ratio (d0+d) / (a+b) = {(dicts.best + pte.best) / ours:6.1f}×   (from the same DataFrames); "
            f"max |diff| = {compare(table, pte.result):.2e}"
        )
    rx = bench_ranx(run_df, qrels_df, args.repeat)
    if rx is not None and math.isfinite(rx.best):
        print(
            f"  ratio (e) / (b) = {rx.best / ev.best:6.1f}×   (ranx / ragstat evaluate, prebuilt)"
        )


if __name__ == "__main__":
    main()
