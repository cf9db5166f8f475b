"""Resampling intervals, vectorised across replicates in memory-bounded blocks.

Document bootstrap (seed 000): resample the K documents with replacement and
recompute the estimator. Percentile: quantiles of the replicate estimates.
Bootstrap-t: studentise every replicate by its own standard error (macro:
sd(r)/√K; micro: the replicate's CR1) and invert the pivot,

    (θ̂ − t*_{1−α/2} · se,  θ̂ − t*_{α/2} · se).

Replicates with zero SE (all resampled documents at one rate) are discarded
and counted; when all are, the interval is unavailable, not a point.

Query bootstrap (naive, contrast only): resample queries as if independent.
For binary scores it needs no per-query data: the micro replicate is exactly
Binomial(N, R)/N and the within-document macro replicate is the mean of
Binomial(n_d, r_d)/n_d.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

__all__ = [
    "BLOCK_ELEMENTS",
    "DocBootstrap",
    "doc_bootstrap",
    "query_bootstrap_binary",
    "query_bootstrap_values",
]

#: Upper bound on replicate × document elements held at once (bounded memory).
BLOCK_ELEMENTS = 4_000_000


@dataclass(frozen=True, eq=False)
class DocBootstrap:
    """Replicate estimates and their own standard errors."""

    theta: np.ndarray
    se: np.ndarray


def _blocks(reps: int, width: int) -> Iterator[int]:
    size = max(1, BLOCK_ELEMENTS // max(width, 1))
    done = 0
    while done < reps:
        b = min(size, reps - done)
        yield b
        done += b


def doc_bootstrap(
    n: np.ndarray, s: np.ndarray, estimand: str, reps: int, rng: np.random.Generator
) -> DocBootstrap:
    """Resample documents; return each replicate's estimate and studentising SE."""
    K = n.shape[0]
    theta = np.empty(reps)
    se = np.empty(reps)
    r = s / n
    start = 0
    for b in _blocks(reps, K):
        idx = rng.integers(0, K, size=(b, K))
        sl = slice(start, start + b)
        if estimand == "macro":
            rb = r[idx]
            theta[sl] = rb.mean(axis=1)
            se[sl] = rb.std(axis=1, ddof=1) / np.sqrt(K)
        else:
            nb, sb = n[idx], s[idx]
            Nb = nb.sum(axis=1)
            Rb = sb.sum(axis=1) / Nb
            u = sb - Rb[:, None] * nb
            theta[sl] = Rb
            se[sl] = np.sqrt(K / (K - 1) * np.einsum("ij,ij->i", u, u)) / Nb
        start += b
    return DocBootstrap(theta=theta, se=se)


def query_bootstrap_binary(
    n: np.ndarray, s: np.ndarray, estimand: str, reps: int, rng: np.random.Generator
) -> np.ndarray:
    """Exact query-bootstrap replicates for 0/1 scores via binomial identities."""
    if estimand == "micro":
        N = round(n.sum())
        return rng.binomial(N, s.sum() / n.sum(), size=reps) / N
    K = n.shape[0]
    ni = np.round(n).astype(np.int64)
    p = s / n
    out = np.empty(reps)
    start = 0
    for b in _blocks(reps, K):
        out[start : start + b] = (rng.binomial(ni, p, size=(b, K)) / n).mean(axis=1)
        start += b
    return out


def query_bootstrap_values(
    doc_index: np.ndarray,
    y: np.ndarray,
    n: np.ndarray,
    estimand: str,
    reps: int,
    rng: np.random.Generator,
) -> np.ndarray:
    """Query-bootstrap replicates from the per-query scores (any score type).

    micro: resample all N queries iid; macro: resample within each document.
    Cost is reps × N; callers bound it.
    """
    order = np.argsort(doc_index, kind="stable")
    y_sorted = y[order]
    N = y.shape[0]
    K = n.shape[0]
    counts = np.round(n).astype(np.int64)
    offsets = np.concatenate([[0], np.cumsum(counts)[:-1]])
    doc_of = np.repeat(np.arange(K), counts)
    out = np.empty(reps)
    start = 0
    for b in _blocks(reps, N):
        if estimand == "micro":
            out[start : start + b] = y_sorted[rng.integers(0, N, size=(b, N))].mean(axis=1)
        else:
            pick = offsets[doc_of] + (rng.random((b, N)) * counts[doc_of]).astype(np.int64)
            sums = np.add.reduceat(y_sorted[pick], offsets, axis=1)
            out[start : start + b] = (sums / n).mean(axis=1)
        start += b
    return out
