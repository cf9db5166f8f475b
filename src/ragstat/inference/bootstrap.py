"""Resampling intervals, vectorised across replicates in memory-bounded blocks.

Document bootstrap (the interval guide): resample the K documents with replacement and
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
    "BINOMIAL_BUDGET",
    "BLOCK_ELEMENTS",
    "DocBootstrap",
    "binomial_pairs",
    "doc_bootstrap",
    "query_bootstrap_binary",
    "query_bootstrap_values",
]

#: Replicate × document elements per block: bounded memory, cache-sized arrays.
BLOCK_ELEMENTS = 262_144
#: Most binomial draws (replicates × distinct random documents) for the naive
#: macro query bootstrap; beyond it the replicate count is reduced and reported.
BINOMIAL_BUDGET = 20_000_000


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
    """Exact query-bootstrap replicates for 0/1 scores via binomial identities.

    micro: Binomial(N, R)/N. macro: (1/K) Σ_d Binomial(n_d, r_d)/n_d; documents at
    rate 0 or 1 are constant, and the m documents sharing one (n, s) pair add up
    to a single Binomial(m·n, s/n) draw, so the cost is reps × distinct pairs.
    """
    if estimand == "micro":
        N = round(n.sum())
        return rng.binomial(N, s.sum() / n.sum(), size=reps) / N
    K = n.shape[0]
    r = s / n
    const = np.sum(r[(r == 0) | (r == 1)])
    random = (r > 0) & (r < 1)
    pairs, mult = np.unique(np.column_stack([n[random], s[random]]), axis=0, return_counts=True)
    trials = np.round(pairs[:, 0] * mult).astype(np.int64)[:, None]
    p, scale = (pairs[:, 1] / pairs[:, 0])[:, None], pairs[:, 0][:, None]
    out = np.full(reps, const)
    start = 0
    for b in _blocks(reps, max(len(pairs), 1)):
        if len(pairs):
            draws = rng.binomial(trials, p, size=(len(pairs), b)) / scale
            out[start : start + b] += draws.sum(axis=0)
        start += b
    return out / K


def binomial_pairs(n: np.ndarray, s: np.ndarray) -> int:
    """Distinct (n, s) pairs of documents strictly between rate 0 and 1."""
    r = s / n
    random = (r > 0) & (r < 1)
    return len(np.unique(np.column_stack([n[random], s[random]]), axis=0))


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
