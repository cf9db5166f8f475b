"""Write the small datasets (columns ``doc,y``) used by ``reference_svyciprop.R``.

Deterministic (fixed numpy seed per dataset): rerunning reproduces the committed
CSVs byte for byte.

    python tests/reference/make_svyciprop_data.py
    Rscript tests/reference/reference_svyciprop.R

The second line refreshes ``r_svyciprop.json`` (R survey's svyciprop, methods
"logit" and "beta", micro and macro, with and without FPC, levels 0.95 and 0.90).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

DATA = Path(__file__).resolve().parent / "data_svyciprop"


def _frame(scores: list[np.ndarray]) -> pd.DataFrame:
    ids = [f"d{d:02d}" for d in range(len(scores))]
    doc = np.repeat(ids, [y.size for y in scores])
    return pd.DataFrame({"doc": doc, "y": np.concatenate(scores)})


def _hits(sizes: list[int], hits: list[int]) -> list[np.ndarray]:
    """Binary scores: document d has hits[d] ones among sizes[d] queries."""
    return [np.r_[np.ones(h), np.zeros(m - h)] for m, h in zip(sizes, hits, strict=True)]


def k3_mid() -> pd.DataFrame:
    """K = 3, binary, unequal sizes, estimate near 0.4."""
    return _frame(_hits([5, 12, 8], [1, 6, 3]))


def k3_rates_near1() -> pd.DataFrame:
    """K = 3, scores in [0, 1] (not 0/1), estimate near 0.95."""
    rng = np.random.default_rng(20250103)
    return _frame([1.0 - 0.1 * rng.random(m) ** 2 for m in (4, 9, 6)])


def k10_near0() -> pd.DataFrame:
    """K = 10, binary, micro estimate 0.02 (3 hits in 150 queries, in three documents)."""
    sizes = [12, 18, 9, 20, 15, 11, 17, 14, 16, 18]
    return _frame(_hits(sizes, [1, 0, 0, 1, 0, 0, 0, 1, 0, 0]))


def k10_near1() -> pd.DataFrame:
    """K = 10, binary, micro estimate 0.98 (3 misses in 150 queries)."""
    sizes = [12, 18, 9, 20, 15, 11, 17, 14, 16, 18]
    misses = [0, 1, 0, 0, 0, 1, 0, 0, 1, 0]
    return _frame(_hits(sizes, [m - x for m, x in zip(sizes, misses, strict=True)]))


def k40_half() -> pd.DataFrame:
    """K = 40, binary, one document holds half the queries; estimate near 0.3."""
    rng = np.random.default_rng(20250140)
    sizes = rng.integers(1, 12, 39)
    sizes = np.r_[int(sizes.sum()), sizes]
    p = rng.beta(1.5, 3.5, sizes.size)
    return _frame([rng.binomial(1, p[d], m).astype(float) for d, m in enumerate(sizes)])


def k40_rr_near0() -> pd.DataFrame:
    """K = 40, reciprocal-rank-like scores in [0, 1], mostly 0; estimate near 0.03."""
    rng = np.random.default_rng(20250141)
    sizes = rng.integers(2, 15, 40)
    out = []
    for m in sizes:
        found = rng.random(m) < 0.06
        out.append(np.where(found, 1.0 / rng.integers(1, 6, m), 0.0))
    return _frame(out)


DATASETS = {
    f.__name__: f for f in (k3_mid, k3_rates_near1, k10_near0, k10_near1, k40_half, k40_rr_near0)
}


def main() -> None:
    DATA.mkdir(exist_ok=True)
    for name, make in DATASETS.items():
        make().to_csv(DATA / f"{name}.csv", index=False, float_format="%.17g")


if __name__ == "__main__":
    main()
