"""Benchmark: the coverage simulator against the seed-000 code looped once per replicate.

K = 20 documents per sample, R = 5,000 samples, 999-replicate bootstraps, census =
BM25 hit@1 on planalto-leis (../shared) or, when absent, a lognormal synthetic census.
  (a) baseline: seed 000's numpy code (CR2 + its df for micro, t on rates and the
      document bootstrap-t for macro) once per sample, on 500 samples, scaled to R
  (b) ragstat simulate_coverage on the same three methods (micro cr2_bm; macro
      t_rates + doc_bootstrap_t), in this process
  (c) ragstat simulate_coverage with every method, both estimands (1 and 2 workers)
Targets: (a)/(b) ≥ 10×, (c) under a minute on 2 cores. (a) and (b) are the best of
--repeat runs (default 3); each line also shows the process CPU time, so that
contention from other jobs (wall well above CPU) is visible.

    python benchmarks/bench_simulate.py [--quick] [--repeat N] [--skip-all-methods]
"""

from __future__ import annotations

import argparse
import os
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


def best_of(label: str, fn, repeat: int) -> tuple[float, float, object]:
    """Best wall and best CPU time (this process) of ``repeat`` runs, printed on one line."""
    walls, cpus, result = [], [], None
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        result = fn()
        walls.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
    print(
        f"  {label:<46s} {min(walls):8.3f} s  (CPU {min(cpus):.3f} s; "
        f"walls {', '.join(f'{w:.3f}' for w in walls)})",
        flush=True,
    )
    return min(walls), min(cpus), result


def seed_loop(c: Census, K: int, R: int, B: int, repeat: int) -> tuple[float, float]:
    """(wall, CPU) of the seed-000 loop, measured on ≤ 500 samples and scaled to R."""
    rng = np.random.default_rng(1)
    loop_n = min(R, 500)
    idx = [rng.choice(c.M, K, replace=False) for _ in range(loop_n)]

    def run() -> None:
        boot = np.random.default_rng(2)
        for i in idx:
            seed_000_once(c.n[i], c.s[i], boot, B)

    wall, cpu, _ = best_of(f"(a) seed-000 loop, {loop_n} samples", run, repeat)
    scale = R / loop_n
    print(
        f"      {wall / loop_n * 1e3:.2f} ms per sample → {wall * scale:.2f} s for {R} "
        f"(CPU {cpu * scale:.2f} s; scaled ×{scale:g} from {loop_n})"
    )
    return wall * scale, cpu * scale


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--repeat", type=int, default=3, help="runs of (a) and (b); the best counts")
    ap.add_argument("--skip-all-methods", action="store_true", help="skip (c) and (c2)")
    args = ap.parse_args(argv)
    R, B, K = (500, 199, 20) if args.quick else (5_000, 999, 20)
    print(machine_line())
    c, label = census()
    print(f"census: {label}, {c.M} documents; K = {K}, R = {R}, B = {B}")
    print(f"load average before: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    base, base_cpu = seed_loop(c, K, R, B, args.repeat)
    kw = dict(reps=R, bootstrap_reps=B, seed=1)
    w1, c1, _ = best_of(
        "(b1) micro cr2_bm",
        lambda: simulate_coverage(c, [K], methods=["cr2_bm"], estimands=["micro"], **kw),
        args.repeat,
    )
    w2, c2, _ = best_of(
        "(b2) macro t_rates + doc_bootstrap_t",
        lambda: simulate_coverage(
            c, [K], methods=["t_rates", "doc_bootstrap_t"], estimands=["macro"], **kw
        ),
        args.repeat,
    )
    ours, ours_cpu = w1 + w2, c1 + c2
    print(f"  (b) = (b1) + (b2): {ours:.3f} s (CPU {ours_cpu:.3f} s)")
    print(f"  ratio (a)/(b) on the three methods: {base / ours:.1f}× wall (target ≥ 10×), ", end="")
    print(f"{base_cpu / ours_cpu:.1f}× CPU")
    print(f"load average after (a), (b): {os.getloadavg()[0]:.1f}")
    if args.skip_all_methods:
        return
    every = timed(
        "(c) every method, both estimands, 1 worker", lambda: simulate_coverage(c, [K], **kw)
    )
    two = timed("(c2) the same, 2 workers", lambda: simulate_coverage(c, [K], workers=2, **kw))
    print(
        f"  every method: {every.best:.1f} s (1 worker), {two.best:.1f} s (2 workers); target < 60 s"
    )
    for r in every.result.results:
        print(
            f"    {r.estimand:5s} {r.method:26s} coverage {r.coverage:6.1%} ± {r.coverage_se:.1%}"
        )


if __name__ == "__main__":
    main()
