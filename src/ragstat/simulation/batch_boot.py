"""Bootstraps for R samples at once: document bootstrap (percentile, t) and the query bootstrap.

Document bootstrap. A replicate of a sample of K documents is a vector of
multinomial counts c (K draws with replacement, Σ c_d = K). With the sample's
centred quantities d_d = r_d − r̄ (macro) and u_d = s_d − R̂ n_d (micro), the
replicate statistics are functions of seven inner products c·f:

    macro:  r̄* = r̄ + c·d / K,   sd*² = (c·d² − (c·d)²/K) / (K − 1),   se* = sd*/√K
    micro:  N* = c·n,  δ = c·u / N*,  R* = R̂ + δ,
            Σ c_d (s_d − R* n_d)² = c·u² − 2δ c·un + δ² c·n²,
            se* = sqrt(K/(K − 1) · Σ c_d (s_d − R* n_d)²) / N*   (the replicate's CR1)

so the resampling loop is one batched matrix product (samples, B, K) @ (samples, K, 9).
Centring keeps the sums small; a replicate is degenerate (zero SE) exactly when
every resampled document has the same rate, which is decided without rounding
from two more columns, g and g², g_d the dense rank of r_d within its sample:
K·c·g² = (c·g)² (Cauchy–Schwarz equality) holds iff all resampled ranks are equal,
and both sides are integers below 2⁵³ for K ≤ 9,741 (beyond, ranks are compared
directly). Rates closer than the sample's zero `tol` share a rank.

Percentile: quantiles of all B replicate estimates (unavailable when their range
is ≤ tol), deviations from θ̂ shrunk by √fpc. Bootstrap-t: pivots (θ* − θ̂)/se*
of the non-degenerate replicates, (θ̂ − t*_{1−α/2}·se, θ̂ − t*_{α/2}·se) with se
the sample's own SE × √fpc; unavailable when no replicate is usable, se ≤ tol,
or every pivot is the same (e.g. K = 2). Quantiles use numpy's default (linear)
rule on each sample's own number of usable replicates.

Query bootstrap (naive), exact for 0/1 scores without per-query data: the micro
replicate is Binomial(N, R̂)/N and the macro replicate (1/K) Σ_d Binomial(n_d, r_d)/n_d.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

import numpy as np

__all__ = [
    "BLOCK_ELEMENTS",
    "Bounds",
    "count_matrix",
    "doc_bootstrap_bounds",
    "query_bootstrap_bounds",
    "replicate_statistics",
    "sorted_quantile",
]

#: Samples that share one bootstrap count matrix (see `_draw_block`).
SHARE = 25
#: Most samples × replicates × documents held at once (count matrices, binomial draws).
BLOCK_ELEMENTS = 1 << 22
#: Largest K for which the integer rank sums K·c·g² and (c·g)² stay below 2⁵³.
_EXACT_RANK_K = 9_741
_UINT16_MAX = 65_535  # document indices drawn as uint16 (fastest bounded draws) up to here


class Bounds(NamedTuple):
    """One method's bounds for R samples; NaN where unavailable."""

    lower: np.ndarray
    upper: np.ndarray
    available: np.ndarray
    discarded: np.ndarray | None = None


def _plan(R: int, B: int, K: int) -> Iterator[tuple[slice, list[slice]]]:
    """Blocks of samples, each with its chunks of replicates, ≤ BLOCK_ELEMENTS at once."""
    per = B * K
    rows = max(1, BLOCK_ELEMENTS // per)
    chunk = B if per <= BLOCK_ELEMENTS else max(1, BLOCK_ELEMENTS // K)
    reps = [slice(b, min(b + chunk, B)) for b in range(0, B, chunk)]
    for start in range(0, R, rows):
        yield slice(start, min(start + rows, R)), reps


def sorted_quantile(xs: np.ndarray, m: np.ndarray, p: float) -> np.ndarray:
    """Row-wise quantile p of the first m[i] values of each sorted row (numpy's linear rule).

    Virtual index v = p (m − 1), j = ⌊v⌋, γ = v − j: x_j + γ (x_{j+1} − x_j), written
    as numpy writes it (x_{j+1} − (1 − γ)(x_{j+1} − x_j) for γ ≥ ½) so it matches np.quantile.
    """
    m = np.maximum(np.asarray(m, dtype=np.int64), 1)
    virtual = (m - 1) * p
    lo = np.floor(virtual).astype(np.int64)
    hi = np.minimum(lo + 1, m - 1)
    gamma = virtual - lo
    a = np.take_along_axis(xs, lo[:, None], axis=1)[:, 0]
    b = np.take_along_axis(xs, hi[:, None], axis=1)[:, 0]
    diff = b - a
    return np.where(gamma >= 0.5, b - diff * (1 - gamma), a + diff * gamma)


def _ranks(r: np.ndarray, tol: np.ndarray) -> np.ndarray:
    """Dense rank of each rate within its row; rates closer than ``tol`` share a rank."""
    order = np.argsort(r, axis=1, kind="stable")
    rs = np.take_along_axis(r, order, axis=1)
    step = np.diff(rs, axis=1) > tol[:, None]
    ranks = np.concatenate([np.zeros((r.shape[0], 1)), np.cumsum(step, axis=1)], axis=1)
    g = np.empty_like(r)
    np.put_along_axis(g, order, ranks, axis=1)
    return g


def _features(n, s, micro, macro, tol) -> np.ndarray:
    """Per-document columns (n, u, u², u·n, n², d, d², g, g²), shape (R, K, 9)."""
    u = s - micro[:, None] * n
    d = s / n - macro[:, None]
    g = _ranks(s / n, tol)
    return np.stack([n, u, u * u, u * n, n * n, d, d * d, g, g * g], axis=2)


def count_matrix(rng: np.random.Generator, rows: int, reps: int, K: int) -> np.ndarray:
    """Multinomial(K; 1/K, …, 1/K) counts, shape (rows, reps, K), as float64.

    K uniform document indices per replicate, scattered into counts by one ``np.add.at``
    (flat indices fit int32: a block holds at most BLOCK_ELEMENTS counts).
    """
    small = np.uint16 if K <= _UINT16_MAX else np.int32
    idx = rng.integers(0, K, size=(rows * reps, K), dtype=small)
    flat = np.add(idx, (np.arange(rows * reps, dtype=np.int32) * K)[:, None], dtype=np.int32)
    counts = np.zeros(rows * reps * K)
    np.add.at(counts, flat.ravel(), 1.0)
    return counts.reshape(rows, reps, K)


def _degenerate(C: np.ndarray, P: np.ndarray, g: np.ndarray) -> np.ndarray:
    """Replicates whose resampled documents all share one rate rank."""
    K = C.shape[2]
    if K <= _EXACT_RANK_K:
        return K * P[..., 8] == P[..., 7] * P[..., 7]
    chosen = C > 0
    top = np.where(chosen, g[:, None, :], -1.0).max(axis=2)
    low = np.where(chosen, g[:, None, :], np.inf).min(axis=2)
    return top == low


def replicate_statistics(
    C: np.ndarray,
    F: np.ndarray,
    micro: np.ndarray,
    macro: np.ndarray,
    estimands: tuple[str, ...] = ("micro", "macro"),
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """{estimand: (θ*, se*)} of shape (rows, reps) from counts C and `_features` F.

    P = C F (rows, reps, 9) holds every inner product c·f; degenerate replicates
    get se* = 0 (see the module docstring for the formulas).
    """
    K = C.shape[2]
    P = np.matmul(C, F)  # C may be (1, reps, K), shared by every sample of F
    dead = _degenerate(C, P, F[:, :, 7])
    out = {}
    if "micro" in estimands:
        Nb = P[..., 0]
        delta = P[..., 1] / Nb
        ss = np.maximum(P[..., 2] - 2 * delta * P[..., 3] + delta * delta * P[..., 4], 0.0)
        se = np.sqrt(K / (K - 1) * ss) / Nb
        se[dead] = 0.0
        out["micro"] = (micro[:, None] + delta, se)
    if "macro" in estimands:
        mean_d = P[..., 5] / K
        var = np.maximum((P[..., 6] - P[..., 5] * mean_d) / (K - 1), 0.0)
        se = np.sqrt(var / K)
        se[dead] = 0.0
        out["macro"] = (macro[:, None] + mean_d, se)
    return out


def _percentile(theta_b, theta, tol, alpha, fpc) -> Bounds:
    """Percentile bounds θ̂ + √fpc (q − θ̂) from all replicates."""
    xs = np.sort(theta_b, axis=1)
    m = np.full(xs.shape[0], xs.shape[1])
    ok = xs[:, -1] - xs[:, 0] > tol
    f = np.sqrt(fpc)
    lo = theta + f * (sorted_quantile(xs, m, alpha / 2) - theta)
    hi = theta + f * (sorted_quantile(xs, m, 1 - alpha / 2) - theta)
    return Bounds(np.where(ok, lo, np.nan), np.where(ok, hi, np.nan), ok, np.zeros(len(ok), int))


def _bootstrap_t(theta_b, se_b, theta, se, tol, alpha, fpc) -> Bounds:
    """Bootstrap-t bounds from the usable (se* > tol) replicates' pivots."""
    usable = se_b > tol[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(usable, (theta_b - theta[:, None]) / se_b, np.nan)
    ts = np.sort(t, axis=1)  # NaN (discarded) last
    m = usable.sum(axis=1)
    last = np.take_along_axis(ts, np.maximum(m - 1, 0)[:, None], axis=1)[:, 0]
    spread = last - ts[:, 0]
    scale = np.maximum(1.0, np.maximum(np.abs(last), np.abs(ts[:, 0])))
    ok = (m > 0) & (se > tol)
    ok[ok] = spread[ok] > 1e-12 * scale[ok]
    se_f = se * np.sqrt(fpc)
    lower = theta - sorted_quantile(ts, m, 1 - alpha / 2) * se_f
    upper = theta - sorted_quantile(ts, m, alpha / 2) * se_f
    discarded = theta_b.shape[1] - m
    return Bounds(np.where(ok, lower, np.nan), np.where(ok, upper, np.nan), ok, discarded)


def _draw_block(rng, F, micro, macro, B, reps, estimands):
    """Replicate (θ*, se*) of shape (rows, B) for one block of samples.

    Every group of SHARE consecutive samples shares one count matrix (common random
    numbers): each sample's bootstrap is still an ordinary document bootstrap, and
    the draws cost B × K per group instead of per sample.
    """
    rows, K = F.shape[0], F.shape[1]
    out = {e: (np.empty((rows, B)), np.empty((rows, B))) for e in estimands}
    for sl in reps:
        for g in range(0, rows, SHARE):
            gs = slice(g, min(g + SHARE, rows))
            C = count_matrix(rng, 1, sl.stop - sl.start, K)
            stats = replicate_statistics(C, F[gs], micro[gs], macro[gs], estimands)
            for e in estimands:
                out[e][0][gs, sl], out[e][1][gs, sl] = stats[e]
    return out


def doc_bootstrap_bounds(
    n: np.ndarray,
    s: np.ndarray,
    est: dict[str, tuple[np.ndarray, np.ndarray]],
    tol: np.ndarray,
    methods: set[str],
    B: int,
    rng: np.random.Generator,
    alpha: float,
    fpc: float,
) -> dict[tuple[str, str], Bounds]:
    """Document-bootstrap bounds {(estimand, method): Bounds} for every requested pair.

    ``est`` maps each estimand to (θ̂, se) per sample: se is sd(r)/√K (macro) or the
    CR1 SE (micro). Micro and macro share one count matrix per replicate (each is
    marginally an ordinary document bootstrap).
    """
    R, K = n.shape
    parts: dict[tuple[str, str], list[Bounds]] = {(e, m): [] for e in est for m in methods}
    for rows, reps in _plan(R, B, K):
        micro = est["micro"][0][rows] if "micro" in est else s[rows].sum(1) / n[rows].sum(1)
        macro = est["macro"][0][rows] if "macro" in est else (s[rows] / n[rows]).mean(1)
        F = _features(n[rows], s[rows], micro, macro, tol[rows])
        draws = _draw_block(rng, F, micro, macro, B, reps, tuple(est))
        for e, (theta, se) in est.items():
            tb, seb = draws[e]
            if "doc_bootstrap_percentile" in methods:
                b = _percentile(tb, theta[rows], tol[rows], alpha, fpc)
                parts[(e, "doc_bootstrap_percentile")].append(b)
            if "doc_bootstrap_t" in methods:
                b = _bootstrap_t(tb, seb, theta[rows], se[rows], tol[rows], alpha, fpc)
                parts[(e, "doc_bootstrap_t")].append(b)
    return {key: _concat(bs) for key, bs in parts.items()}


def _concat(parts: list[Bounds]) -> Bounds:
    return Bounds(*(np.concatenate([getattr(p, f) for p in parts]) for f in Bounds._fields))


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
    for rows, reps in _plan(R, B, K if estimand == "macro" else 1):
        xs = np.sort(_query_draws(rng, n[rows], s[rows], estimand, reps), axis=1)
        m = np.full(xs.shape[0], B)
        ok = xs[:, -1] - xs[:, 0] > tol[rows]
        lo, hi = sorted_quantile(xs, m, alpha / 2), sorted_quantile(xs, m, 1 - alpha / 2)
        parts.append(Bounds(np.where(ok, lo, np.nan), np.where(ok, hi, np.nan), ok))
    return Bounds(*(np.concatenate([getattr(p, f) for p in parts]) for f in Bounds._fields[:3]))
