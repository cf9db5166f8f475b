"""Generate the IR-metrics conformance fixture and its oracle values.

    pip install ir-measures pytrec-eval-terrier
    python tests/reference/ir/make_fixture.py

Writes, next to this script (fixed seed, so reruns give identical files):

* ``qrels.trec``  TREC qrels: 64 queries, graded relevance 0–3, six queries whose
  judgments are all 0 (no relevant document);
* ``run_a.trec``, ``run_b.trec``  TREC runs: depths 1–130, scores rounded so
  that ties are common (``run_b`` has whole tie blocks, negative and
  exponent-formatted scores, rank columns that contradict the scores and lines
  shuffled across queries), qrels queries missing from each run, and run-only
  queries (``x…``) absent from the qrels. Document ids mix ``D99``/``D100``
  (string order ≠ numeric order), lower/upper case and a non-ASCII letter,
  so the tie rule (doc id descending, byte order) is exercised;
* ``oracle.json``  per run, per query, per metric values from **pytrec_eval**
  (trec_eval's C code) reading the files with its own parser, with full
  precision, plus the 1-based ranks of the relevant documents in trec_eval's
  order (recovered from ``P_1 … P_depth``), and an **ir_measures** cross-check.

Oracle conventions (and how ragstat differs, tested in test_metrics_ir.py):

* queries missing from a run: pytrec_eval skips them; the oracle scores them
  as an empty ranking (the query given ``{}``), which is trec_eval ``-c``;
* queries without a relevant document: trec_eval gives 0; ragstat gives NaN
  and flags them ``no_relevant`` (the oracle still records trec_eval's 0);
* ``mrr@k`` (RR with a cutoff) is not a trec_eval measure; the oracle derives
  it from trec_eval's ``recip_rank``: ``rr`` when ``1/rr ≤ k``, else 0. ir_measures
  computes ``RR@k`` with its msmarco provider, which breaks score ties by doc
  id *ascending*: the cross-check lists the queries where that differs.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
SEED = 20240611
N_QUERIES = 64
N_NO_REL = 6
POOL = (
    [f"D{i}" for i in range(1, 181)]
    + [f"d{i}" for i in range(1, 61)]
    + [f"Dé{i}" for i in range(8)]
)

# ragstat metric name → trec_eval measure (pytrec_eval spelling); mrr@k derived, see above.
CUTS = (1, 3, 5, 10, 20, 100)
METRICS: dict[str, str] = {
    **{f"ndcg@{k}": f"ndcg_cut_{k}" for k in CUTS},
    "ndcg": "ndcg",
    **{f"recall@{k}": f"recall_{k}" for k in (1, 5, 10, 20, 100)},
    **{f"p@{k}": f"P_{k}" for k in (1, 5, 10, 20, 100)},
    "mrr": "recip_rank",
    "map": "map",
    **{f"map@{k}": f"map_cut_{k}" for k in (5, 10, 100)},
    **{f"hit@{k}": f"success_{k}" for k in (1, 5, 10)},
    "rprec": "Rprec",
}
RR_CUTS = (1, 3, 5, 10)
MAX_DEPTH = 130


def make_qrels(rng: np.random.Generator) -> dict[str, dict[str, int]]:
    qrels = {}
    for i in range(N_QUERIES):
        n = int(rng.integers(3, 26))
        docs = rng.choice(POOL, size=n, replace=False)
        grades = rng.choice([0, 1, 2, 3], size=n, p=[0.5, 0.25, 0.15, 0.10])
        if i < N_NO_REL:
            grades[:] = 0
        elif grades.max() == 0:
            grades[0] = int(rng.integers(1, 4))
        qrels[f"q{i:03d}"] = {str(d): int(g) for d, g in zip(docs, grades, strict=True)}
    return qrels


def make_run(rng: np.random.Generator, qrels: dict, style: str) -> dict[str, dict[str, float]]:
    qids = list(qrels)
    missing = set(rng.choice(qids[N_NO_REL:], size=5, replace=False)) | {qids[1]}
    run = {}
    for q in [q for q in qids if q not in missing] + ["x01", "x02", "x03"]:
        depth = int(rng.choice([1, 2, 4, 10, 30, 60, 101, MAX_DEPTH]))
        judged = list(qrels.get(q, {}))
        take = [d for d in judged if rng.random() < 0.7]
        rest = [d for d in POOL if d not in take]
        docs = take + list(rng.choice(rest, size=max(depth - len(take), 0), replace=False))
        docs = docs[:depth]
        if style == "a":
            scores = np.round(rng.normal(size=len(docs)), 1)
        else:
            scores = rng.integers(-3, 4, size=len(docs)).astype(float)
            if rng.random() < 0.3:
                scores[:] = 1.5  # a whole tie block
        run[q] = {str(d): float(s) for d, s in zip(docs, scores, strict=True)}
    return run


def write_qrels(path: Path, qrels: dict, rng: np.random.Generator) -> None:
    lines = []
    for q, docs in qrels.items():
        items = list(docs.items())
        rng.shuffle(items)
        lines.extend(f"{q} 0 {d} {g}" for d, g in items)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def write_run(path: Path, run: dict, rng: np.random.Generator, style: str) -> None:
    lines = []
    for q, docs in run.items():
        items = list(docs.items())
        rng.shuffle(items)
        ranks = rng.permutation(len(items)) + 1  # deliberately unrelated to the scores
        for (d, s), r in zip(items, ranks, strict=True):
            text = f"{s:.1f}" if style == "a" else (f"{s:.3e}" if r % 2 else f"{s:g}")
            sep = "\t" if style == "a" else " "
            lines.append(sep.join([q, "Q0", d, str(r), text, f"sys_{style}"]))
    if style == "b":
        rng.shuffle(lines)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def relevant_ranks(res: dict, depth: int) -> list[int]:
    """1-based ranks i with P_i·i − P_{i−1}·(i−1) = 1: the relevant documents in trec_eval's order."""
    ranks, prev = [], 0
    for i in range(1, depth + 1):
        count = round(res[f"P_{i}"] * i)
        if count > prev:
            ranks.append(i)
        prev = count
    return ranks


def oracle_run(pytrec_eval, qrels: dict, run: dict) -> dict:
    depth = max(len(v) for v in run.values())
    cut_lists = {
        "ndcg_cut": CUTS,
        "map_cut": (5, 10, 100),
        "recall": (1, 5, 10, 20, 100),
        "P": tuple(range(1, depth + 1)),
        "success": (1, 5, 10),
    }
    spec = {f"{b}.{','.join(map(str, cut_lists[b]))}" for b in cut_lists}
    spec |= {"ndcg", "recip_rank", "map", "Rprec"}
    missing = sorted(q for q in qrels if q not in run)
    # empty ranking for a query missing from the run (trec_eval -c)
    full_run = {q: run.get(q, {}) for q in qrels}
    res = pytrec_eval.RelevanceEvaluator(qrels, spec).evaluate(full_run)
    values, ranks = {}, {}
    for q in qrels:
        r = res[q]
        vals = {name: r[measure] for name, measure in METRICS.items()}
        for k in RR_CUTS:
            rr = r["recip_rank"]
            vals[f"mrr@{k}"] = rr if rr > 0 and round(1 / rr) <= k else 0.0
        values[q] = vals
        ranks[q] = relevant_ranks(r, depth)
    return {
        "missing": missing,
        "unjudged": sorted(q for q in run if q not in qrels),
        "values": values,
        "relevant_ranks": ranks,
    }


def ir_measures_crosscheck(qrels: dict, run: dict, oracle: dict) -> dict:
    import ir_measures
    from ir_measures import AP, RR, P, R, Rprec, Success, nDCG

    names = {
        nDCG @ 10: "ndcg@10",
        nDCG: "ndcg",
        R @ 10: "recall@10",
        P @ 10: "p@10",
        RR: "mrr",
        RR @ 10: "mrr@10",
        AP: "map",
        AP @ 100: "map@100",
        Success @ 5: "hit@5",
        Rprec: "rprec",
    }
    run_present = {q: d for q, d in run.items() if q in qrels}
    worst: dict[str, float] = {}
    differs: dict[str, list[str]] = {}
    for m in ir_measures.iter_calc(list(names), qrels, run_present):
        name = names[m.measure]
        diff = abs(m.value - oracle["values"][m.query_id][name])
        worst[name] = max(worst.get(name, 0.0), diff)
        if diff > 1e-9:
            differs.setdefault(name, []).append(m.query_id)
    return {"max_abs_diff_vs_pytrec_eval": worst, "queries_differing": differs}


def main() -> None:
    import ir_measures
    import pytrec_eval

    rng = np.random.default_rng(SEED)
    qrels = make_qrels(rng)
    runs = {"run_a": make_run(rng, qrels, "a"), "run_b": make_run(rng, qrels, "b")}
    write_qrels(HERE / "qrels.trec", qrels, rng)
    for name, run in runs.items():
        write_run(HERE / f"{name}.trec", run, rng, name[-1])
    with (HERE / "qrels.trec").open(encoding="utf-8") as fh:
        qrels_read = pytrec_eval.parse_qrel(fh)
    out = {
        "generator": "tests/reference/ir/make_fixture.py",
        "seed": SEED,
        "oracle": f"pytrec_eval-terrier {pytrec_eval.__version__} (trec_eval)",
        "ir_measures": ir_measures.__version__,
        "trec_eval_measures": METRICS
        | {f"mrr@{k}": f"recip_rank if 1/rr <= {k} else 0" for k in RR_CUTS},
        "qrels_queries": list(qrels_read),
        "no_relevant": sorted(q for q, d in qrels_read.items() if max(d.values()) <= 0),
        "runs": {},
    }
    for name in runs:
        with (HERE / f"{name}.trec").open(encoding="utf-8") as fh:
            run_read = dict(pytrec_eval.parse_run(fh))
        oracle = oracle_run(pytrec_eval, qrels_read, run_read)
        oracle["ir_measures_crosscheck"] = ir_measures_crosscheck(qrels_read, run_read, oracle)
        out["runs"][name] = oracle
    assert all(
        math.isfinite(v)
        for r in out["runs"].values()
        for q in r["values"].values()
        for v in q.values()
    )
    (HERE / "oracle.json").write_text(
        json.dumps(out, indent=1, sort_keys=True) + "\n", encoding="utf-8"
    )
    for name, r in out["runs"].items():
        print(name, "missing", r["missing"], "unjudged", r["unjudged"])
        print("  ir_measures vs pytrec_eval:", json.dumps(r["ir_measures_crosscheck"]))


if __name__ == "__main__":
    main()
