"""Write the small-K reference datasets (columns ``doc,y``) for the small-K interval methods.

Used by ``make_wild_reference.py`` (the ``wildboottest`` package's p-values) and
``reference_cr3.R`` (clubSandwich's CR3). Deterministic: each dataset has its own
numpy seed, so rerunning reproduces the committed CSVs byte for byte.

    python tests/reference/make_small_k_data.py
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

DATA = Path(__file__).resolve().parent / "data_small_k"

#: name → (K, score type, seed); sizes are unequal in every dataset.
DATASETS = {
    "k5_binary": (5, "binary", 501),
    "k5_continuous": (5, "continuous", 502),
    "k8_binary": (8, "binary", 801),
    "k8_continuous": (8, "continuous", 802),
    "k10_binary": (10, "binary", 1001),
    "k10_continuous": (10, "continuous", 1002),
}


def make(K: int, kind: str, seed: int) -> tuple[list[str], list[float]]:
    """Unequal document sizes (lognormal, 2..60 queries) and clustered scores."""
    rng = np.random.default_rng(seed)
    sizes = np.clip(np.round(rng.lognormal(2.3, 0.8, size=K)), 2, 60).astype(int)
    docs: list[str] = []
    ys: list[float] = []
    for d, m in enumerate(sizes):
        if kind == "binary":
            p = rng.beta(2.0, 2.5)
            y = rng.binomial(1, p, size=m).astype(float)
        else:
            y = np.round(np.clip(rng.normal(rng.normal(0.5, 0.15), 0.2, size=m), 0, 1), 6)
        docs += [f"d{d:02d}"] * int(m)
        ys += [float(v) for v in y]
    return docs, ys


def main() -> None:
    DATA.mkdir(exist_ok=True)
    for name, (K, kind, seed) in DATASETS.items():
        docs, ys = make(K, kind, seed)
        lines = ["doc,y"] + [f"{d},{y:.6f}" for d, y in zip(docs, ys, strict=True)]
        (DATA / f"{name}.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
