"""Write the small reference datasets (columns ``doc,y``) used by ``reference_r.R``.

Deterministic: every dataset has its own fixed numpy seed, so rerunning this
script reproduces the committed CSVs byte for byte.

    python tests/reference/make_datasets.py

then ``Rscript tests/reference/reference_r.R`` refreshes ``r_reference.json``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

DATA = Path(__file__).resolve().parent / "data"


def _frame(sizes: np.ndarray, scores: list[np.ndarray]) -> pd.DataFrame:
    ids = [f"d{d:02d}" for d in range(len(sizes))]
    doc = np.repeat(ids, sizes)
    y = np.concatenate(scores)
    assert y.shape == doc.shape
    return pd.DataFrame({"doc": doc, "y": y})


def binary_k5_unequal() -> pd.DataFrame:
    """(a) binary, K = 5, very unequal sizes (one document holds most queries)."""
    rng = np.random.default_rng(20240501)
    sizes = np.array([3, 7, 15, 40, 160])
    p = rng.uniform(0.2, 0.8, size=sizes.size)
    return _frame(sizes, [rng.binomial(1, p[d], size=m).astype(float) for d, m in enumerate(sizes)])


def binary_k30_lognormal() -> pd.DataFrame:
    """(b) binary, K = 30, lognormal sizes plus two large documents."""
    rng = np.random.default_rng(20240502)
    sizes = np.maximum(1, np.round(rng.lognormal(mean=2.0, sigma=0.9, size=30))).astype(int)
    sizes[7] = 250
    sizes[21] = 140
    p = rng.beta(3.0, 2.0, size=30)
    return _frame(sizes, [rng.binomial(1, p[d], size=m).astype(float) for d, m in enumerate(sizes)])


def reciprocal_rank_k20() -> pd.DataFrame:
    """(c) reciprocal ranks 1/rank (rank 1..10) or 0 when not retrieved, K = 20."""
    rng = np.random.default_rng(20240503)
    sizes = rng.integers(2, 60, size=20)
    sizes[3] = 1
    sizes[11] = 120
    hit = rng.beta(2.0, 2.0, size=20)
    scores = []
    for d, m in enumerate(sizes):
        found = rng.random(m) < hit[d]
        rank = rng.geometric(0.45, size=m).clip(max=10)
        scores.append(np.where(found, 1.0 / rank, 0.0))
    return _frame(sizes, scores)


def paired_difference_k15() -> pd.DataFrame:
    """(d) paired differences: values in {−1, 0, 1} and fractions in (−1, 1), K = 15."""
    rng = np.random.default_rng(20240504)
    sizes = rng.integers(3, 45, size=15)
    sizes[0] = 2
    sizes[9] = 90
    shift = rng.normal(0.1, 0.25, size=15)
    scores = []
    for d, m in enumerate(sizes):
        a = rng.binomial(1, np.clip(0.5 + shift[d], 0.05, 0.95), size=m)
        b = rng.binomial(1, 0.5, size=m)
        diff = (a - b).astype(float)
        frac = rng.random(m) < 0.3  # graded judgments: difference of two fractions
        graded = np.round(rng.uniform(0, 1, m) - rng.uniform(0, 1, m), 4)
        scores.append(np.where(frac, graded, diff))
    return _frame(sizes, scores)


def binary_k10_equal() -> pd.DataFrame:
    """(e) binary, K = 10, every document has 12 queries."""
    rng = np.random.default_rng(20240505)
    sizes = np.full(10, 12)
    p = rng.uniform(0.1, 0.9, size=10)
    return _frame(sizes, [rng.binomial(1, p[d], size=m).astype(float) for d, m in enumerate(sizes)])


DATASETS = {
    "a_binary_k5_unequal": binary_k5_unequal,
    "b_binary_k30_lognormal": binary_k30_lognormal,
    "c_reciprocal_rank_k20": reciprocal_rank_k20,
    "d_paired_difference_k15": paired_difference_k15,
    "e_binary_k10_equal": binary_k10_equal,
}


def main() -> None:
    DATA.mkdir(parents=True, exist_ok=True)
    for name, make in DATASETS.items():
        frame = make()
        frame.to_csv(DATA / f"{name}.csv", index=False)
        print(f"{name}: K={frame['doc'].nunique()} N={len(frame)}")


if __name__ == "__main__":
    main()
