"""The small-K reference datasets (tests/reference/data_small_k) as ragstat `Sample`s."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

from ragstat.inference.methods import Sample

REFERENCE = Path(__file__).resolve().parent / "reference"
DATA = REFERENCE / "data_small_k"


def read_queries(name: str) -> tuple[np.ndarray, np.ndarray]:
    """(doc id per query, score per query) of one dataset."""
    with open(DATA / f"{name}.csv", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    return np.array([r["doc"] for r in rows]), np.array([float(r["y"]) for r in rows])


def sample_from(
    doc: np.ndarray, y: np.ndarray, *, level: float = 0.95, reps: int = 9_999, fpc: float = 1.0
) -> Sample:
    """Per-document totals of per-query scores, documents in sorted id order."""
    ids = np.unique(doc)
    n = np.array([np.sum(doc == d) for d in ids], dtype=float)
    s = np.array([y[doc == d].sum() for d in ids])
    q = np.array([np.sum(y[doc == d] ** 2) for d in ids])
    w = np.maximum(q - s * s / n, 0.0)
    binary = bool(np.all((y == 0) | (y == 1)))
    return Sample(n=n, s=s, q=q, binary=binary, level=level, fpc=fpc, reps=reps, w=w)


def load(name: str, **kw) -> Sample:
    return sample_from(*read_queries(name), **kw)


def synthetic(K: int, seed: int, *, binary: bool = True, reps: int = 9_999) -> Sample:
    """A clustered sample with unequal document sizes (2..40 queries)."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(2, 41, size=K)
    p = rng.beta(2.0, 3.0, size=K)
    doc = np.repeat(np.arange(K), sizes)
    if binary:
        y = rng.binomial(1, p[doc]).astype(float)
    else:
        y = np.clip(rng.normal(p[doc], 0.2), 0.0, 1.0)
    return sample_from(doc, y, reps=reps)
