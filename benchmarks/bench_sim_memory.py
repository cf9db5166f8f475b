"""Benchmark: the coverage simulator's peak memory does not grow with the number of samples.

Runs ``simulate_coverage`` at K = 5 in a fresh subprocess, first with R = 10,000
samples (the baseline), then with R = 1,000,000, on a synthetic census (1,300
documents, lognormal sizes, Beta rates: the one of bench_simulate.py), with the
seven analytic methods (cr1, cr2_bm, cr2_ik, t_rates, wald_iid, wald_effective_n,
logit; no bootstrap, so the big run takes ~2 minutes on one core) and one worker.
Prints each run's peak RSS — the child's own ``getrusage(RUSAGE_SELF).ru_maxrss``,
and the parent's ``getrusage(RUSAGE_CHILDREN).ru_maxrss`` after it (the largest child
so far) — and the ratio big / baseline. ``--quick``: R = 2,000 against 100,000.

    python benchmarks/bench_sim_memory.py [--quick]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time

from _common import machine_line

METHODS = ("cr1", "cr2_bm", "cr2_ik", "t_rates", "wald_iid", "wald_effective_n", "logit")
K = 5

_CHILD = """
import json, resource, sys, time
import numpy as np
from ragstat import DocStats
from ragstat.simulation import Census, simulate_coverage

reps, k, methods = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3].split(",")
rng = np.random.default_rng(0)
n = np.maximum(1, rng.lognormal(2.0, 1.1, 1300).round())
s = rng.binomial(n.astype(int), rng.beta(0.6, 2.5, 1300)).astype(float)
census = Census.from_docstats(
    DocStats(doc_id=np.arange(1300).astype(str), n=n, s=s, q=s, binary=True)
)
t0 = time.perf_counter()
report = simulate_coverage(census, [k], reps=reps, methods=methods, seed=1)
row = report.results[0]
print(json.dumps({
    "seconds": time.perf_counter() - t0,
    "peak_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
    "first": [row.estimand, row.method, row.coverage, row.mean_width],
}))
"""


def run(reps: int) -> dict:
    """One simulation in a child process: its own peak and the parent's RUSAGE_CHILDREN."""
    t0 = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, str(reps), str(K), ",".join(METHODS)],
        check=True,
        capture_output=True,
        text=True,
    )
    got = json.loads(out.stdout.strip().splitlines()[-1])
    got["wall"] = time.perf_counter() - t0
    got["children_kib"] = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return got


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="R = 2,000 against 100,000")
    args = parser.parse_args()
    small, big = (2_000, 100_000) if args.quick else (10_000, 1_000_000)
    print(machine_line())
    print(f"simulate_coverage, K = {K}, methods {', '.join(METHODS)}, one worker, synthetic census")
    rows = {}
    for reps in (small, big):
        r = rows[reps] = run(reps)
        print(
            f"  R = {reps:>9,}: {r['seconds']:7.1f} s  peak RSS {r['peak_kib'] / 1024:6.1f} MiB "
            f"(RUSAGE_CHILDREN so far {r['children_kib'] / 1024:6.1f} MiB)  "
            f"{r['first'][0]} {r['first'][1]} coverage {r['first'][2]:.4f}",
            flush=True,
        )
    ratio = rows[big]["peak_kib"] / rows[small]["peak_kib"]
    print(
        f"peak RSS ratio R = {big:,} / R = {small:,}: {ratio:.3f} "
        f"({big // small}× the samples); time ratio "
        f"{rows[big]['seconds'] / rows[small]['seconds']:.0f}×"
    )


if __name__ == "__main__":
    main()
