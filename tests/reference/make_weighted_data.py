"""Write the weighted (sampled-query) datasets of tests/reference/data_weighted/.

    python tests/reference/make_weighted_data.py

Each CSV has one row per *scored* query: doc_id, query_id, y, weight, M. Every
document d has n_d queries of which an SRS of m_d was scored, so weight = n_d / m_d
(unequal across documents, constant within one); M is the number of documents in
the population (for the finite-population correction). K = 5, 15, 40 documents;
y binary (0/1) or continuous in [0, 1]. Then run reference_weighted.R.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent / "data_weighted"


def dataset(K: int, kind: str, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    n = rng.integers(2, 40, K)
    m = np.maximum(1, np.minimum(n, np.round(n * rng.uniform(0.1, 0.9, K)))).astype(int)
    level = rng.beta(2, 2, K)
    rows = []
    for d in range(K):
        for i in range(m[d]):
            p = level[d]
            y = float(rng.random() < p) if kind == "binary" else float(rng.beta(4 * p + 0.2, 2))
            rows.append((f"d{d:02d}", f"d{d:02d}_q{i}", y, n[d] / m[d], 3 * K))
    return pd.DataFrame(rows, columns=["doc_id", "query_id", "y", "weight", "M"])


def main() -> None:
    HERE.mkdir(exist_ok=True)
    for j, (K, kind) in enumerate((k, t) for k in (5, 15, 40) for t in ("binary", "continuous")):
        frame = dataset(K, kind, seed=100 + j)
        frame.to_csv(HERE / f"w_k{K:02d}_{kind}.csv", index=False, float_format="%.17g")


if __name__ == "__main__":
    main()
