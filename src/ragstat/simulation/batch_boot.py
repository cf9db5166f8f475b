"""The document bootstrap (percentile, t) for R samples at once; the query bootstrap is
in `simulation.batch_query`.

Document bootstrap. A replicate of a sample of K documents is a vector of
multinomial counts c (K draws with replacement, Σ c_d = K). With the sample's
centred quantities d_d = r_d − r̄ (macro) and u_d = s_d − R̂ n_d (micro), the
replicate statistics are functions of seven inner products c·f:

    macro:  r̄* = r̄ + c·d / K,   sd*² = (c·d² − (c·d)²/K) / (K − 1),   se* = sd*/√K
    micro:  N* = c·n,  δ = c·u / N*,  R* = R̂ + δ,
            Σ c_d (s_d − R* n_d)² = c·u² − 2δ c·un + δ² c·n²,
            se* = sqrt(K/(K − 1) · Σ c_d (s_d − R* n_d)²) / N*   (the replicate's CR1)

so the resampling loop is matrix products: for a count matrix shared by a group of
samples, (columns × samples, K) @ (K, B), only the columns the estimands need
(`_products`; the integer rank columns in float32, where that is exact).
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

Speed (issue 20) changed only the order of the floating-point sums inside c·f (one
product per group instead of one per sample): replicate statistics move by a few units
in the last place, bounds by ≲ 1e-14 relative, and the degenerate decision (integers)
not at all; see tests/test_simulate_speed_equivalence.py.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

import numpy as np

__all__ = [
    "BLOCK_ELEMENTS",
    "GEMM_ELEMENTS",
    "Bounds",
    "count_matrix",
    "doc_bootstrap_bounds",
    "plan_blocks",
    "replicate_statistics",
    "sorted_quantile",
]

#: Samples that share one bootstrap count matrix (see `_draw_block`).
SHARE = 25
#: Most samples × replicates × documents held at once (count matrices, binomial draws).
BLOCK_ELEMENTS = 1 << 22
#: Most multiply-adds in one replicate-statistics product (one BLAS thread; see `_products`).
GEMM_ELEMENTS = 1 << 18
#: Largest K for which the integer rank sums K·c·g² and (c·g)² stay below 2⁵³.
_EXACT_RANK_K = 9_741
#: Largest K whose rank products K(K − 1)² stay below 2²⁴ (exact in float32).
_F32_RANK_K = 256
#: Largest K whose K·c·g² and (c·g)², at most K²(K − 1)², stay below 2²⁴.
_F32_COMPARE_K = 64
_UINT16_MAX = 65_535  # document indices drawn as uint16 (fastest bounded draws) up to here


class Bounds(NamedTuple):
    """One method's bounds for R samples; NaN where unavailable."""

    lower: np.ndarray
    upper: np.ndarray
    available: np.ndarray
    discarded: np.ndarray | None = None


def plan_blocks(R: int, B: int, K: int) -> Iterator[tuple[slice, list[slice]]]:
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
    rows = np.arange(xs.shape[0])
    a, b = xs[rows, lo], xs[rows, hi]
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


def _feature_planes(n, s, micro, macro, tol, cols: list[int]) -> dict[int, np.ndarray]:
    """The `_features` columns in ``cols``, each a (R, K) array."""
    out: dict[int, np.ndarray] = {}
    if any(j < 5 for j in cols):
        u = s - micro[:, None] * n
        out |= {0: n, 1: u, 2: u * u, 3: u * n, 4: n * n}
    if 5 in cols or 6 in cols:
        d = s / n - macro[:, None]
        out |= {5: d, 6: d * d}
    if 7 in cols or 8 in cols:
        g = _ranks(s / n, tol)
        out |= {7: g, 8: g * g}
    return {j: out[j] for j in cols}


def _features(n, s, micro, macro, tol) -> np.ndarray:
    """Per-document columns (n, u, u², u·n, n², d, d², g, g²), shape (R, K, 9)."""
    planes = _feature_planes(n, s, micro, macro, tol, list(range(9)))
    return np.stack([planes[j] for j in range(9)], axis=2)


def count_matrix(rng: np.random.Generator, rows: int, reps: int, K: int) -> np.ndarray:
    """Multinomial(K; 1/K, …, 1/K) counts, shape (rows, reps, K), as float64.

    K uniform document indices per replicate, counted by one ``np.bincount`` (flat
    indices fit int32: a block holds at most BLOCK_ELEMENTS counts; integer counts, so
    the same float64 values as adding ones).
    """
    small = np.uint16 if K <= _UINT16_MAX else np.int32
    idx = rng.integers(0, K, size=(rows * reps, K), dtype=small)
    flat = np.add(idx, (np.arange(rows * reps, dtype=np.int32) * K)[:, None], dtype=np.int32)
    counts = np.bincount(flat.ravel(), minlength=rows * reps * K)
    return counts.astype(np.float64).reshape(rows, reps, K)


def _columns(estimands: tuple[str, ...]) -> list[int]:
    """The `_features` columns the estimands need (the rank columns g, g² always)."""
    micro = [0, 1, 2, 3, 4] if "micro" in estimands else []
    return micro + ([5, 6] if "macro" in estimands else []) + [7, 8]


def _gemm(A: np.ndarray, Ct: np.ndarray) -> np.ndarray:
    """A @ Ct in column (replicate) chunks of at most :data:`GEMM_ELEMENTS` multiply-adds.

    Each product then stays on one BLAS thread (OpenBLAS starts threads only above 2¹⁸;
    under load the extra threads only spin), so its value cannot depend on the free
    cores; chunking the replicates rather than the rows packs the count matrix once.
    """
    out = np.empty((A.shape[0], Ct.shape[1]), dtype=A.dtype)
    step = max(1, GEMM_ELEMENTS // max(1, A.shape[0] * A.shape[1]))
    for j in range(0, Ct.shape[1], step):
        np.matmul(A, Ct[:, j : j + step], out=out[:, j : j + step])
    return out


def _products(C: np.ndarray, F: dict[int, np.ndarray], cols: list[int]) -> dict[int, np.ndarray]:
    """{column j: c·f_j} of shape (rows, reps) for the requested feature columns.

    A shared count matrix (C of shape (1, reps, K)) is multiplied once for every sample
    and column, (columns × rows, K) @ (K, reps), so that each column's products form one
    contiguous plane. The rank columns g, g² (7, 8) hold integers: for K ≤
    :data:`_F32_RANK_K` every product and partial sum c·g² ≤ K(K − 1)² is an integer
    below 2²⁴, exact in float32, so they are multiplied in float32 (half the work);
    their planes stay float32 (see `_degenerate`).
    """
    rows, K = F[cols[0]].shape
    if C.shape[0] != 1:  # one count matrix per sample
        P = np.matmul(C, np.stack([F[j] for j in cols], axis=2))
        return {j: P[..., i] for i, j in enumerate(cols)}
    Ct = C[0].T
    low = K <= _F32_RANK_K
    value = [j for j in cols if j < 7] if low else cols
    planes = {}
    for group, dtype in ((value, np.float64), ([7, 8] if low else [], np.float32)):
        if not group:
            continue
        A = np.stack([F[j] for j in group]).astype(dtype, copy=False)
        out = _gemm(A.reshape(len(group) * rows, K), Ct.astype(dtype, copy=False))
        for i, j in enumerate(group):
            planes[j] = out[i * rows : (i + 1) * rows]
    return planes


def _degenerate(C: np.ndarray, P: dict[int, np.ndarray], g: np.ndarray) -> np.ndarray:
    """Replicates whose resampled documents all share one rate rank."""
    K = C.shape[2]
    if P[8].dtype == np.float32 and K <= _F32_COMPARE_K:  # both sides exact in float32
        return np.float32(K) * P[8] == P[7] * P[7]
    if K <= _EXACT_RANK_K:
        g1, g2 = P[7].astype(np.float64, copy=False), P[8].astype(np.float64, copy=False)
        return K * g2 == g1 * g1
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

    C may be one count matrix per sample, (rows, reps, K), or one shared by every
    sample, (1, reps, K).

    P_j = C f_j holds the inner products c·f the estimands need (C may be (1, reps, K),
    shared by every sample of F); degenerate replicates get se* = 0 (see the module
    docstring for the formulas).
    """
    shape = (F.shape[0], C.shape[1])
    out = {e: (np.empty(shape), np.empty(shape)) for e in estimands}
    _statistics_into(C, {j: F[:, :, j] for j in range(9)}, micro, macro, out)
    return out


def _statistics_into(C, F: dict[int, np.ndarray], micro, macro, out: dict) -> None:
    """`replicate_statistics` from feature planes ``F`` ({column: (rows, K)}), written
    into ``out[estimand] = (θ*, se*)`` (views allowed).

    Every expression is evaluated in the order of the formulas (in place where possible),
    so the values are those of the plain expressions.
    """
    K = C.shape[2]
    P = _products(C, F, _columns(tuple(out)))
    dead = _degenerate(C, P, F[7])
    if "micro" in out:
        theta, se = out["micro"]
        Nb = P[0]
        delta = P[1] / Nb
        ss = np.multiply(2, delta)
        ss *= P[3]
        np.subtract(P[2], ss, out=ss)
        dd = np.multiply(delta, delta)
        dd *= P[4]
        ss += dd
        np.maximum(ss, 0.0, out=ss)
        ss *= K / (K - 1)
        np.sqrt(ss, out=ss)
        np.divide(ss, Nb, out=se)
        se[dead] = 0.0
        np.add(micro[:, None], delta, out=theta)
    if "macro" in out:
        theta, se = out["macro"]
        mean_d = P[5] / K
        var = np.multiply(P[5], mean_d)
        np.subtract(P[6], var, out=var)
        var /= K - 1
        np.maximum(var, 0.0, out=var)
        var /= K
        np.sqrt(var, out=se)
        se[dead] = 0.0
        np.add(macro[:, None], mean_d, out=theta)


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
    m = np.count_nonzero(usable, axis=1)
    t = np.subtract(theta_b, theta[:, None])
    if m.sum() == usable.size:
        t /= se_b
    else:
        np.divide(t, se_b, out=t, where=usable)
        t[~usable] = np.nan
    t.sort(axis=1)  # NaN (discarded) last
    first = t[:, 0]
    last = t[np.arange(t.shape[0]), np.maximum(m - 1, 0)]
    spread = last - first
    scale = np.maximum(1.0, np.maximum(np.abs(last), np.abs(first)))
    ok = (m > 0) & (se > tol)
    ok[ok] = spread[ok] > 1e-12 * scale[ok]
    se_f = se * np.sqrt(fpc)
    lower = theta - sorted_quantile(t, m, 1 - alpha / 2) * se_f
    upper = theta - sorted_quantile(t, m, alpha / 2) * se_f
    discarded = theta_b.shape[1] - m
    return Bounds(np.where(ok, lower, np.nan), np.where(ok, upper, np.nan), ok, discarded)


def _draw_block(rng, F, micro, macro, B, reps, estimands):
    """Replicate (θ*, se*) of shape (rows, B) for one block of samples.

    Every group of SHARE consecutive samples shares one count matrix (common random
    numbers): each sample's bootstrap is still an ordinary document bootstrap, and
    the draws cost B × K per group instead of per sample.
    """
    rows, K = F[7].shape
    out = {e: (np.empty((rows, B)), np.empty((rows, B))) for e in estimands}
    for sl in reps:
        for g in range(0, rows, SHARE):
            gs = slice(g, min(g + SHARE, rows))
            C = count_matrix(rng, 1, sl.stop - sl.start, K)
            views = {e: (out[e][0][gs, sl], out[e][1][gs, sl]) for e in estimands}
            planes = {j: f[gs] for j, f in F.items()}
            _statistics_into(C, planes, micro[gs], macro[gs], views)
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
    for rows, reps in plan_blocks(R, B, K):
        micro = est["micro"][0][rows] if "micro" in est else s[rows].sum(1) / n[rows].sum(1)
        macro = est["macro"][0][rows] if "macro" in est else (s[rows] / n[rows]).mean(1)
        F = _feature_planes(n[rows], s[rows], micro, macro, tol[rows], _columns(tuple(est)))
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
