"""The naive query bootstrap for R samples at once, exact for 0/1 scores.

Without per-query data, the micro replicate is Binomial(N, R̂)/N and the macro
replicate (1/K) Σ_d Binomial(n_d, r_d)/n_d; percentile bounds, unavailable where every
replicate has the same estimate (R̂ or every r_d at 0 or 1).
"""

from __future__ import annotations

import numpy as np

from ragstat.simulation.batch_boot import Bounds, plan_blocks, sorted_quantile

__all__ = ["query_bootstrap_bounds"]


def _query_draws(rng, n, s, estimand, reps: list[slice]) -> np.ndarray:
    """Exact 0/1 query-bootstrap replicates, shape (rows, B), drawn in replicate chunks."""
    B = reps[-1].stop
    out = np.empty((n.shape[0], B))
    if estimand == "micro":
        N = np.round(n.sum(axis=1))
        p = (s.sum(axis=1) / n.sum(axis=1))[:, None]
        hits = rng.binomial(N.astype(np.int64)[:, None], p, size=(len(N), B))
        return hits / N[:, None]
    r = s / n
    K = n.shape[1]
    const = np.sum(np.where(r >= 1, 1.0, 0.0), axis=1)  # documents at rate 0 or 1 are fixed
    live = (r > 0) & (r < 1)
    rows_live, starts = np.unique(np.nonzero(live)[0], return_index=True)
    trials, p, size = (
        np.round(n[live]).astype(np.int64)[:, None],
        r[live][:, None],
        n[live][:, None],
    )
    for sl in reps:  # (pairs, b): consecutive draws share (n_d, r_d), so numpy reuses its setup
        out[:, sl] = const[:, None]
        if rows_live.size:
            hits = rng.binomial(trials, p, size=(trials.shape[0], sl.stop - sl.start)) / size
            out[rows_live, sl] += np.add.reduceat(hits, starts, axis=0)
    return out / K


def query_bootstrap_bounds(
    n: np.ndarray,
    s: np.ndarray,
    estimand: str,
    tol: np.ndarray,
    B: int,
    rng: np.random.Generator,
    alpha: float,
) -> Bounds:
    """Naive query-bootstrap percentile bounds for 0/1 scores (exact binomial identities).

    Unavailable where every replicate has the same estimate (R̂ or every r_d at 0 or 1).
    """
    R, K = n.shape
    parts = []
    for rows, reps in plan_blocks(R, B, K if estimand == "macro" else 1):
        xs = np.sort(_query_draws(rng, n[rows], s[rows], estimand, reps), axis=1)
        m = np.full(xs.shape[0], B)
        ok = xs[:, -1] - xs[:, 0] > tol[rows]
        lo, hi = sorted_quantile(xs, m, alpha / 2), sorted_quantile(xs, m, 1 - alpha / 2)
        parts.append(Bounds(np.where(ok, lo, np.nan), np.where(ok, hi, np.nan), ok))
    return Bounds(*(np.concatenate([getattr(p, f) for p in parts]) for f in Bounds._fields[:3]))
