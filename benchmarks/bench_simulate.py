"""Benchmark: the coverage simulator against the seed-000 code looped once per replicate.

K = 20 documents per sample, R = 5,000 samples, 999-replicate bootstraps, census =
BM25 hit@1 on planalto-leis (../shared) or, when absent, a lognormal synthetic census.
  (a) baseline: seed 000's numpy code (CR2 + its df for micro, t on rates and the
      document bootstrap-t for macro) once per sample, on 500 samples, scaled to R
  (b) ragstat simulate_coverage on the same three methods
  (c) ragstat simulate_coverage with every method, both estimands (1 and 2 workers)
Targets: (a)/(b) ≥ 10×, (c) under a minute on 2 cores.

    python benchmarks/bench_simulate.py [--quick]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
from scipy import stats

from _common import machine_line, timed
from ragstat import DocStats
from ragstat.simulation import Census, simulate_coverage

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"


def census() -> tuple[Census, str]:
    path = SHARED / "planalto-leis.jsonl"
    if path.is_file():
        from ragstat.corpus.loaders import load_jsonl
        from ragstat.records import aggregate_frame
        from ragstat.selfretrieval import StudyConfig, run_study

        study = run_study(load_jsonl(path), StudyConfig(retrievers=("bm25",)))
        return Census.from_docstats(aggregate_frame(study.records, score="hit1")), "planalto BM25"
    rng = np.random.default_rng(0)
    n = np.maximum(1, rng.lognormal(2.0, 1.1, 1300).round())
    s = rng.binomial(n.astype(int), rng.beta(0.6, 2.5, 1300)).astype(float)
    st = DocStats(doc_id=np.arange(1300).astype(str), n=n, s=s, q=s, binary=True)
    return Census.from_docstats(st), "synthetic lognormal"


def seed_000_once(n: np.ndarray, s: np.ndarray, rng: np.random.Generator, B: int) -> None:
    """The seed's own code for one sample (micro CR2 + df, macro t and bootstrap-t)."""
    K, N = len(n), n.sum()
    R = s.sum() / N
    u = s - R * n
    h = n / N
    se_micro = np.sqrt(np.sum(u**2 / (1 - h))) / N
    a = 1 / np.sqrt(1 - h)
    M = -np.outer(a * n, a * n) / N
    M[np.diag_indices(K)] += a**2 * n
    df_micro = np.trace(M) ** 2 / np.sum(M * M)
    R + np.array([-1, 1]) * stats.t.ppf(0.975, df_micro) * se_micro
    r = s / n
    se_macro = r.std(ddof=1) / np.sqrt(K)
    r.mean() + np.array([-1, 1]) * stats.t.ppf(0.975, K - 1) * se_macro
    rb = r[rng.integers(0, K, (B, K))]
    sd = rb.std(1, ddof=1)
    if np.any(sd > 0):
        tb = (rb.mean(1)[sd > 0] - r.mean()) / (sd[sd > 0] / np.sqrt(K))
        np.quantile(tb, [0.025, 0.975])


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args(argv)
    R, B, K = (500, 199, 20) if args.quick else (5_000, 999, 20)
    print(machine_line())
    c, label = census()
    print(f"census: {label}, {c.M} documents; K = {K}, R = {R}, B = {B}")
    rng = np.random.default_rng(1)
    loop_n = min(R, 500)
    idx = [rng.choice(c.M, K, replace=False) for _ in range(loop_n)]
    t0 = time.perf_counter()
    for i in idx:
        seed_000_once(c.n[i], c.s[i], rng, B)
    base = (time.perf_counter() - t0) * R / loop_n
    print(
        f"  (a) seed-000 loop: {base / R * 1e3:.2f} ms per sample → {base:.2f} s for {R} (scaled from {loop_n})"
    )
    kw = dict(reps=R, bootstrap_reps=B, seed=1)
    micro = timed(
        "(b1) micro cr2_bm",
        lambda: simulate_coverage(c, [K], methods=["cr2_bm"], estimands=["micro"], **kw),
    )
    macro = timed(
        "(b2) macro t_rates + doc_bootstrap_t",
        lambda: simulate_coverage(
            c, [K], methods=["t_rates", "doc_bootstrap_t"], estimands=["macro"], **kw
        ),
    )
    ours = micro.best + macro.best
    every = timed(
        "(c) every method, both estimands, 1 worker", lambda: simulate_coverage(c, [K], **kw)
    )
    two = timed("(c2) the same, 2 workers", lambda: simulate_coverage(c, [K], workers=2, **kw))
    print(f"  ratio (a)/(b) on the three methods: {base / ours:.1f}× (target ≥ 10×)")
    print(
        f"  every method: {every.best:.1f} s (1 worker), {two.best:.1f} s (2 workers); target < 60 s"
    )
    for r in every.result.results:
        print(
            f"    {r.estimand:5s} {r.method:26s} coverage {r.coverage:6.1%} ± {r.coverage_se:.1%}"
        )


if __name__ == "__main__":
    main()
