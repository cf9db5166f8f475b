"""Benchmark: 9,999-replicate document bootstrap-t for K = 1,000 documents.

    python benchmarks/bench_bootstrap.py           # K = 1,000, B = 9,999, loop on 999
    python benchmarks/bench_bootstrap.py --quick   # K = 200, B = 999, loop on 199

Documents have very unequal (lognormal) numbers of queries and binary scores.
Measured in one process, for the micro and the macro estimand:

*   ragstat.inference.bootstrap.doc_bootstrap(n, s, estimand, B, rng):
    replicate estimates and their studentising SEs, vectorised across
    replicates in memory-bounded blocks;
*   ragstat.analyze(stats, methods=["doc_bootstrap_t"], seed=1) (both estimands);
*   the baseline: the straightforward per-replicate Python loop
    (for b in range(B): idx = rng.integers(0, K, K); estimate and SE with numpy),
    run on fewer replicates and scaled linearly to B (printed as such).

The baseline loop uses the same generator and seed; where numpy draws the same
indices row by row as in one (B, K) call, its replicates are compared with the
vectorised ones exactly. Timing ratios only; nothing is asserted.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import ragstat
from _common import machine_line, peak_rss_mib, timed
from ragstat.inference.bootstrap import doc_bootstrap


def make_docs(K: int, mean_size: float, sigma: float, seed: int) -> ragstat.DocStats:
    """K documents, lognormal sizes (≥ 1), binary scores with Beta-distributed rates."""
    rng = np.random.default_rng(seed)
    w = rng.lognormal(0.0, sigma, K)
    n = np.maximum(1, np.round(w / w.mean() * mean_size)).astype(np.int64)
    rate = rng.beta(1.5, 3.0, K)
    s = rng.binomial(n, rate)
    return ragstat.DocStats(
        doc_id=np.array([f"doc-{i:05d}" for i in range(K)]),
        n=n,
        s=s,
        q=s,
        binary=True,
        score="hit",
    )


def loop_bootstrap(
    n: np.ndarray, s: np.ndarray, estimand: str, reps: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Baseline: one replicate at a time, the obvious numpy code."""
    K = n.shape[0]
    r = s / n
    theta = np.empty(reps)
    se = np.empty(reps)
    for b in range(reps):
        idx = rng.integers(0, K, K)
        if estimand == "macro":
            rb = r[idx]
            theta[b] = rb.mean()
            se[b] = rb.std(ddof=1) / np.sqrt(K)
        else:
            nb, sb = n[idx], s[idx]
            Nb = nb.sum()
            Rb = sb.sum() / Nb
            u = sb - Rb * nb
            theta[b] = Rb
            se[b] = np.sqrt(K / (K - 1) * (u @ u)) / Nb
    return theta, se


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="K = 200, B = 999 (smoke test)")
    ap.add_argument("--docs", type=int, help="documents K (default 1,000; quick 200)")
    ap.add_argument("--reps", type=int, help="bootstrap replicates B (default 9,999; quick 999)")
    ap.add_argument(
        "--loop-reps", type=int, help="replicates run by the Python-loop baseline (default B/10)"
    )
    ap.add_argument("--mean-size", type=float, default=50.0, help="mean queries per document")
    ap.add_argument("--sigma", type=float, default=1.5, help="lognormal sigma of document sizes")
    ap.add_argument("--repeat", type=int, help="timed runs of the vectorised code (default 5)")
    ap.add_argument("--seed", type=int, default=7, help="data seed")
    ap.add_argument(
        "--block-sweep",
        action="store_true",
        help="also time doc_bootstrap with other BLOCK_ELEMENTS (patched in this process only)",
    )
    args = ap.parse_args(argv)

    K = args.docs or (200 if args.quick else 1_000)
    B = args.reps or (999 if args.quick else 9_999)
    B_loop = min(args.loop_reps or max(1, (B + 1) // 10 - 1), B)
    repeat = args.repeat or (2 if args.quick else 5)
    stats = make_docs(K, args.mean_size, args.sigma, args.seed)
    n, s = stats.n, stats.s
    print(
        f"bench_bootstrap: K = {K:,} documents, N = {stats.N:,.0f} queries "
        f"(sizes {n.min():.0f}..{n.max():.0f}, median {np.median(n):.0f}), binary scores, "
        f"B = {B:,} replicates"
    )
    print(machine_line())
    print(
        f"baseline: Python loop over replicates, run on {B_loop:,} replicates and "
        f"scaled x{B / B_loop:.2f} to B = {B:,}"
    )

    # Warm up (imports, first-touch allocations) outside the timings.
    doc_bootstrap(n, s, "micro", min(B, 100), np.random.default_rng(0))
    loop_bootstrap(n, s, "micro", 10, np.random.default_rng(0))

    print(f"\ntimes (wall; vectorised: best of {repeat})")
    rows = []
    for estimand in ("micro", "macro"):
        vec = timed(
            f"{estimand}: doc_bootstrap, B={B:,}",
            lambda est=estimand: doc_bootstrap(n, s, est, B, np.random.default_rng(1)),
            repeat,
        )
        loop = timed(
            f"{estimand}: Python loop, B={B_loop:,}",
            lambda est=estimand: loop_bootstrap(n, s, est, B_loop, np.random.default_rng(1)),
            min(repeat, 3),
        )
        loop_scaled = loop.best * B / B_loop
        print(f"  {estimand}: Python loop scaled to B={B:,}{'':<19s} {loop_scaled:8.3f} s")
        theta, se = loop.result
        draws = vec.result
        if np.array_equal(theta, draws.theta[:B_loop]) or np.allclose(
            theta, draws.theta[:B_loop], rtol=1e-12, atol=0
        ):
            err = max(
                np.max(np.abs(theta - draws.theta[:B_loop])), np.max(np.abs(se - draws.se[:B_loop]))
            )
            agree = f"same replicates as the loop (max abs difference {err:.1e})"
        else:
            agree = (
                "different index streams; replicate means "
                f"{theta.mean():.5f} (loop) vs {draws.theta.mean():.5f}, "
                f"sd {theta.std():.5f} vs {draws.theta.std():.5f}"
            )
        rows.append((estimand, vec.best, loop_scaled, agree))

    full = timed(
        f"analyze(methods=['doc_bootstrap_t']), B={B:,}",
        lambda: ragstat.analyze(stats, methods=["doc_bootstrap_t"], bootstrap_reps=B, seed=1),
        repeat,
    )

    print(f"\nspeed-up (scaled loop / vectorised), B = {B:,}, K = {K:,}")
    for estimand, vec_t, loop_t, agree in rows:
        print(f"  {estimand}: {loop_t / vec_t:6.1f}x   ({agree})")
    loop_total = sum(r[2] for r in rows)
    print(
        f"  analyze, both estimands: {full.best:.3f} s "
        f"(vs {loop_total:.2f} s for the two scaled loops: {loop_total / full.best:.1f}x)"
    )
    for est in ("micro", "macro"):
        iv = full.result.estimands[est].get("doc_bootstrap_t")
        print(
            f"  {est} doc_bootstrap_t: {iv.estimate:.4f} [{iv.lower:.4f}, {iv.upper:.4f}], "
            f"{iv.discarded} of {iv.replicates} replicates discarded"
        )
    if args.block_sweep:
        block_sweep(n, s, B, repeat)
    print(f"\npeak RSS (getrusage): {peak_rss_mib():.0f} MiB")


def block_sweep(n: np.ndarray, s: np.ndarray, B: int, repeat: int) -> None:
    """doc_bootstrap time against the block size (replicates x documents held at once)."""
    import ragstat.inference.bootstrap as bt

    default = bt.BLOCK_ELEMENTS
    print(f"\nblock sweep: doc_bootstrap best of {repeat}, B = {B:,} (default {default:,})")
    try:
        for elements in (65_536, 262_144, 1_048_576, default, 16_777_216):
            bt.BLOCK_ELEMENTS = elements
            cells = []
            for estimand in ("micro", "macro"):
                times = []
                for _ in range(repeat):
                    t0 = time.perf_counter()
                    doc_bootstrap(n, s, estimand, B, np.random.default_rng(1))
                    times.append(time.perf_counter() - t0)
                cells.append(f"{estimand} {min(times):6.3f} s")
            mib = elements * 8 / 2**20
            print(
                f"  {elements:>12,} elements ({mib:6.1f} MiB per float64 temporary)  "
                + "  ".join(cells)
            )
    finally:
        bt.BLOCK_ELEMENTS = default


if __name__ == "__main__":
    main()
