"""Write the small design reference datasets used by ``reference_designs.R``.

Each dataset is a per-query CSV ``<name>.csv`` (columns ``doc,stratum,y``; the
stratum of a two-stage dataset is the document's type) and a population CSV
``<name>_population.csv`` (columns ``stratum,M``: population documents per
stratum or type). A two-stage population lists every population type, sampled
or not, so T = its number of rows.

Deterministic: every dataset has its own fixed numpy seed, so rerunning this
script reproduces the committed CSVs byte for byte.

    python tests/reference/make_design_datasets.py

then ``Rscript tests/reference/reference_designs.R`` refreshes ``r_designs.json``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

DATA = Path(__file__).resolve().parent / "data_designs"


def _queries(groups: list[tuple[str, str, np.ndarray]]) -> pd.DataFrame:
    """One row per query from (doc, stratum, scores) triples."""
    doc = np.concatenate([np.repeat(d, y.size) for d, _, y in groups])
    stratum = np.concatenate([np.repeat(h, y.size) for _, h, y in groups])
    y = np.concatenate([y for _, _, y in groups])
    return pd.DataFrame({"doc": doc, "stratum": stratum, "y": y})


def _population(counts: dict[str, int]) -> pd.DataFrame:
    return pd.DataFrame({"stratum": list(counts), "M": list(counts.values())})


def stratified_binary() -> tuple[pd.DataFrame, pd.DataFrame]:
    """(a) binary, strata A/B/C with 4, 6, 10 sampled documents of M_h = 30, 12, 200."""
    rng = np.random.default_rng(20240601)
    sampled = {"A": 4, "B": 6, "C": 10}
    level = {"A": 0.3, "B": 0.55, "C": 0.7}
    groups = []
    for h, k in sampled.items():
        sizes = rng.integers(2, 35, size=k)
        sizes[0] = 1 if h == "C" else sizes[0]  # a one-query document
        sizes[-1] = 90 if h == "B" else sizes[-1]  # one large document
        p = np.clip(rng.normal(level[h], 0.15, size=k), 0.05, 0.95)
        for d, (m, pd_) in enumerate(zip(sizes, p, strict=True)):
            groups.append((f"{h.lower()}{d:02d}", h, rng.binomial(1, pd_, size=m).astype(float)))
    return _queries(groups), _population({"A": 30, "B": 12, "C": 200})


def stratified_size_continuous() -> tuple[pd.DataFrame, pd.DataFrame]:
    """(b) size strata "n>76" (10 documents) and "n<=76" (10), continuous scores in [0, 1]."""
    rng = np.random.default_rng(20240602)
    sizes = np.concatenate([rng.integers(77, 200, size=10), rng.integers(2, 77, size=10)])
    sizes[10] = 76  # boundary: 76 queries belongs to "n<=76"
    sizes[0] = 77  # boundary: 77 queries belongs to "n>76"
    a = rng.uniform(1.0, 4.0, size=20)
    b = rng.uniform(1.0, 4.0, size=20)
    groups = []
    for d, m in enumerate(sizes):
        h = "n>76" if m > 76 else "n<=76"
        y = np.round(rng.beta(a[d], b[d], size=m), 4)
        y[rng.random(m) < 0.1] = 0.0  # a few exact zeros and ones as in graded judgments
        y[rng.random(m) < 0.05] = 1.0
        groups.append((f"s{d:02d}", h, y))
    return _queries(groups), _population({"n>76": 25, "n<=76": 300})


def two_stage_binary() -> tuple[pd.DataFrame, pd.DataFrame]:
    """(c) binary, 7 of 9 types sampled: six with 4 documents, one with 3.

    Type t5 is fully enumerated (k_i = M_i = 4), so its within-type FPC is zero.
    """
    rng = np.random.default_rng(20240603)
    population = {
        "t1": 10,
        "t2": 8,
        "t3": 25,
        "t4": 15,
        "t5": 4,
        "t6": 40,
        "t7": 6,
        "t8": 20,
        "t9": 7,
    }
    sampled = {"t1": 4, "t2": 4, "t3": 4, "t5": 4, "t6": 4, "t7": 3, "t9": 4}
    groups = []
    for i, k in sampled.items():
        mu = rng.uniform(0.2, 0.85)
        sizes = rng.integers(1, 30, size=k)
        p = np.clip(rng.normal(mu, 0.12, size=k), 0.02, 0.98)
        for d, (m, pd_) in enumerate(zip(sizes, p, strict=True)):
            groups.append((f"{i}d{d:02d}", i, rng.binomial(1, pd_, size=m).astype(float)))
    return _queries(groups), _population(population)


def two_stage_continuous() -> tuple[pd.DataFrame, pd.DataFrame]:
    """(d) continuous scores in [0, 1], 4 of 7 types sampled with k_i = 3, 5, 8, 2."""
    rng = np.random.default_rng(20240604)
    population = {"u1": 12, "u2": 30, "u3": 9, "u4": 50, "u5": 5, "u6": 18, "u7": 22}
    sampled = {"u1": 3, "u2": 5, "u4": 8, "u6": 2}
    groups = []
    for i, k in sampled.items():
        centre = rng.uniform(0.3, 0.8)
        sizes = rng.integers(2, 45, size=k)
        for d, m in enumerate(sizes):
            c = np.clip(centre + rng.normal(0, 0.1), 0.05, 0.95)
            y = np.round(rng.beta(6 * c, 6 * (1 - c), size=m), 4)
            groups.append((f"{i}d{d:02d}", i, y))
    return _queries(groups), _population(population)


DATASETS = {
    "a_stratified_binary": stratified_binary,
    "b_stratified_size_continuous": stratified_size_continuous,
    "c_two_stage_binary": two_stage_binary,
    "d_two_stage_continuous": two_stage_continuous,
}


def main() -> None:
    DATA.mkdir(parents=True, exist_ok=True)
    for name, make in DATASETS.items():
        queries, population = make()
        queries.to_csv(DATA / f"{name}.csv", index=False)
        population.to_csv(DATA / f"{name}_population.csv", index=False)
        k = queries.groupby("stratum")["doc"].nunique().to_dict()
        print(f"{name}: K={queries['doc'].nunique()} N={len(queries)} sampled={k}")


if __name__ == "__main__":
    main()
