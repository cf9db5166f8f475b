"""Write tests/reference/simulate_speed_equivalence.json: the simulator's outputs, frozen.

The fixture pins `simulate_coverage` (every method, both estimands, with and without
the bootstrap, two K) and the per-sample intervals of one SRS block
(`coverage.run_srs_block`) on small synthetic censuses, so speed work on
`ragstat.simulation` can prove that the numbers did not move
(tests/test_simulate_speed_equivalence.py recomputes them and compares).

    python scripts/make_simulate_fixture.py [--out PATH]

Floats are stored with ``repr`` (shortest round-trip form), so a file written by this
script reproduces the computed doubles exactly.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from ragstat import DocStats
from ragstat.simulation import Census, simulate_coverage

OUT = (
    Path(__file__).resolve().parents[1] / "tests" / "reference" / "simulate_speed_equivalence.json"
)

#: name → (census kind, simulate_coverage keyword arguments)
CONFIGS: dict[str, tuple[str, dict]] = {
    "binary_all_boot": ("binary", dict(ks=[5, 20], reps=230, bootstrap_reps=99, seed=3)),
    "binary_analytic": (
        "binary",
        dict(
            ks=[4, 40],
            reps=150,
            seed=5,
            methods=[
                "cr1",
                "cr2_bm",
                "cr2_ik",
                "t_rates",
                "wald_iid",
                "wald_effective_n",
                "logit",
                "logit_cr2_bm",
                "korn_graubard",
            ],
        ),
    ),
    "binary_fpc_boot": ("binary", dict(ks=[12], reps=120, bootstrap_reps=49, seed=7, fpc=True)),
    "graded_all_boot": ("graded", dict(ks=[6], reps=120, bootstrap_reps=99, seed=11)),
    "binary_macro_t": (
        "binary",
        dict(
            ks=[20],
            reps=200,
            bootstrap_reps=199,
            seed=1,
            estimands=["macro"],
            methods=["t_rates", "doc_bootstrap_t"],
        ),
    ),
}
#: The block whose per-sample intervals are stored: (census, K, reps, bootstrap reps, seed).
BLOCK_CASES = {
    "block_binary_k8": ("binary", 8, 24, 99, 13),
    "block_graded_k5": ("graded", 5, 16, 59, 17),
}


def census(kind: str) -> Census:
    """A 300-document synthetic census: lognormal sizes, Beta rates (0/1 or graded scores)."""
    rng = np.random.default_rng(20)
    M = 300
    n = np.maximum(1, rng.lognormal(2.0, 1.1, M).round())
    p = rng.beta(0.6, 2.5, M)
    if kind == "binary":
        s = rng.binomial(n.astype(int), p).astype(float)
        st = DocStats(doc_id=np.arange(M).astype(str), n=n, s=s, q=s, binary=True)
        return Census.from_docstats(st)
    s = np.round(n * p * 4) / 4  # graded scores in quarters
    q = s * s / n + np.round(n * p * (1 - p) * 8) / 64
    st = DocStats(
        doc_id=np.arange(M).astype(str), n=n, s=s, q=np.maximum(q, s * s / n), binary=False
    )
    return Census.from_docstats(st)


def coverage_rows(kind: str, kwargs: dict) -> list[dict]:
    kw = dict(kwargs)
    ks = kw.pop("ks")
    report = simulate_coverage(census(kind), ks, **kw)
    return [r.to_dict() for r in report.results]


def block_intervals(kind: str, k: int, reps: int, boot: int, seed: int) -> dict:
    """Per-sample (estimate, lower, upper, available) of one SRS block, every method the
    simulator computes by default (the small-K candidates have their own tests)."""
    from ragstat.inference import METHODS
    from ragstat.inference.estimators import ESTIMANDS
    from ragstat.inference.names import SMALL_K_METHODS
    from ragstat.simulation.coverage import _Task, run_srs_block

    task = _Task(
        census(kind),
        "srs",
        k,
        reps,
        np.random.SeedSequence(seed),
        tuple(m for m in METHODS if m not in SMALL_K_METHODS),
        tuple(ESTIMANDS),
        0.95,
        boot,
        False,
    )
    out = {}
    for (e, m), (est, lo, hi, ok, _reason) in run_srs_block(task).items():
        out[f"{e}/{m}"] = {
            "estimate": [float(v) for v in est],
            "lower": [None if np.isnan(v) else float(v) for v in lo],
            "upper": [None if np.isnan(v) else float(v) for v in hi],
            "available": [bool(v) for v in ok],
        }
    return out


def build() -> dict:
    data: dict = {"coverage": {}, "blocks": {}}
    for name, (kind, kwargs) in CONFIGS.items():
        data["coverage"][name] = coverage_rows(kind, kwargs)
    for name, case in BLOCK_CASES.items():
        data["blocks"][name] = block_intervals(*case)
    return data


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(build(), indent=1, sort_keys=True) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
