"""The wild cluster bootstrap-t with the null imposed (WCR) for R samples at once.

The same interval as `ragstat.inference.wild.wcr`, sample by sample: the CR1 t-statistic,
restricted-score bootstrap, symmetric p-value with ties not counted (or counted), the
interval {θ₀ : p(θ₀) > α} found by stepping outward from θ̂ in steps of se/2 (to 20 se,
then doubling, to 20 · 2²⁰ se) and bisecting the last step to 1e-10 · se, the outer end
reported and shrunk toward θ̂ by √fpc. One weight matrix v (B, K) serves every sample of a
call (drawn by `wild_weights`, or enumerated, or passed in).

With the cluster totals (n, s) of each sample (micro: queries and score sums; macro:
(1, r_d)), u = s − θ̂ n and the weights centred on their first column, v' = v − v₁
(exactly 0 for a constant weight vector, whose |t*| equals |t̂|), the five numbers of
`WildFit` per sample and replicate, arrays (R, B), are matrix products:

    a = u·v,   c = n·v,   g = (u n)·v,   c' = (n·v')/N,   h = n²·v'
    A = Σα² = (u²)·(v²) − 2 (a/N) g + (a/N)² Σn²
    B = Σαβ = (u n)·(v v') − c' g − (a/N) h + (a/N) c' Σn²
    C = Σβ² = (n²)·(v'²) − 2 c' h + c'² Σn²

(α_d = v_d u_d − n_d a/N, β_d = v_d n_d − n_d c/N = n_d (v'_d − c')). Written with v'
the β terms vanish exactly for a constant weight vector, so its tie with t̂ holds at any
distance from θ̂, as in the direct sums. The outward steps and the bisection run for all
samples of a block at once; memory stays within `batch_boot.BLOCK_ELEMENTS` per block
(rows × B × K).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ragstat.inference.wild import wild_weights
from ragstat.simulation.batch_boot import BLOCK_ELEMENTS, GEMM_ELEMENTS, Bounds

__all__ = ["WildBlock", "wcr_batch_bounds"]

_REL_TOL = 1e-10  # bisection stops when the bracket is narrower than this × se (wild.py)
_TIE = 1e-9  # relative tie on the squared statistics (wild.py)
_STEPS = 60  # outward steps: j/2 se for j ≤ 40, then 20 · 2^(j − 40) se


def _totals(n: np.ndarray, s: np.ndarray, estimand: str) -> tuple[np.ndarray, np.ndarray]:
    if estimand == "micro":
        return n, s
    return np.ones_like(n), s / n


@dataclass(frozen=True, eq=False)
class WildBlock:
    """`WildFit`'s numbers for a block of samples: per sample (rows,), per replicate (rows, B)."""

    theta: np.ndarray
    se: np.ndarray
    N: np.ndarray
    U: np.ndarray
    a: np.ndarray
    c: np.ndarray
    A: np.ndarray
    B: np.ndarray
    C: np.ndarray
    count_ties: bool = False

    @classmethod
    def build(cls, n: np.ndarray, s: np.ndarray, v: np.ndarray, count_ties: bool = False):
        """The coefficients from cluster totals (rows, K) and weights v (B, K)."""
        K = n.shape[1]
        N = n.sum(axis=1)
        theta = s.sum(axis=1) / N
        u = s - theta[:, None] * n
        U = np.sum(u * u, axis=1)
        se = np.sqrt(K / (K - 1) * U) / N
        vp = v - v[:, :1]
        un, nn = u * n, n * n
        a, c, g = _products([u, n, un], v)
        cp, h = _products([n, nn], vp)
        cp /= N[:, None]
        an = a / N[:, None]
        q = nn.sum(axis=1)[:, None]
        (A,) = _products([u * u], v * v)
        A += an * (an * q - 2 * g)
        (B,) = _products([un], v * vp)
        B += an * (cp * q - h) - cp * g
        (C,) = _products([nn], vp * vp)
        C += cp * (cp * q - 2 * h)
        return cls(theta, se, N, U, a, c, A, B, C, count_ties)

    def rejected(self, rows, dist: np.ndarray, direction: float, alpha: float) -> np.ndarray:
        """p(θ̂ + direction · dist · se) ≤ α for the given rows (a boolean mask or a slice).

        The arithmetic of `WildFit.p_value` (same operands, same order), in place.
        """
        theta, se = self.theta[rows], self.se[rows]
        d = (theta - (theta + direction * dist * se))[:, None]
        lhs = np.multiply(d, self.c[rows])
        lhs += self.a[rows]
        lhs *= lhs
        lhs *= self.U[rows][:, None]
        rhs = np.multiply(2 * self.B[rows], d)
        rhs += self.A[rows]
        quartic = np.multiply(self.C[rows], d)
        quartic *= d
        rhs += quartic
        rhs *= d * d * self.N[rows][:, None] ** 2
        if self.count_ties:
            rhs *= 1 - _TIE
            hits = np.count_nonzero(lhs >= rhs, axis=1)
        else:
            rhs *= 1 + _TIE
            hits = np.count_nonzero(lhs > rhs, axis=1)
        return hits / self.a.shape[1] <= alpha


def _products(left: list[np.ndarray], v: np.ndarray) -> list[np.ndarray]:
    """[x @ v.T for x in left], each (rows, B), in replicate chunks of at most
    GEMM_ELEMENTS multiply-adds (one BLAS thread: spare threads only spin on a busy host)."""
    X = np.concatenate(left, axis=0)
    out = np.empty((X.shape[0], v.shape[0]))
    step = max(1, GEMM_ELEMENTS // max(1, X.shape[0] * X.shape[1]))
    for j in range(0, v.shape[0], step):
        np.matmul(X, v[j : j + step].T, out=out[:, j : j + step])
    rows = left[0].shape[0]
    return [out[i * rows : (i + 1) * rows] for i in range(len(left))]


def _rows(mask: np.ndarray) -> np.ndarray | slice:
    """The mask, or a slice (no copies) when every row is selected."""
    return slice(None) if mask.all() else mask


def _step(j: int) -> float:
    return j / 2 if j <= 40 else 20.0 * 2.0 ** (j - 40)


def _limits(fit: WildBlock, alpha: float, direction: float) -> np.ndarray:
    """One side's limit for every sample of the block; NaN where no θ₀ is rejected."""
    rows = fit.theta.shape[0]
    inside = np.zeros(rows)
    outside = np.full(rows, np.nan)
    found = np.zeros(rows, dtype=bool)
    for j in range(1, _STEPS + 1):
        act = ~found
        if not act.any():
            break
        dist = _step(j)
        rej = fit.rejected(_rows(act), np.full(int(act.sum()), dist), direction, alpha)
        idx = np.flatnonzero(act)
        outside[idx[rej]] = dist
        inside[idx[~rej]] = dist
        found[idx[rej]] = True
    act = found & (outside - inside > _REL_TOL)
    while act.any():
        idx = np.flatnonzero(act)
        mid = 0.5 * (inside[idx] + outside[idx])
        rej = fit.rejected(_rows(act), mid, direction, alpha)
        outside[idx[rej]] = mid[rej]
        inside[idx[~rej]] = mid[~rej]
        act[idx] = outside[idx] - inside[idx] > _REL_TOL
    return np.where(found, fit.theta + direction * outside * fit.se, np.nan)


def wcr_batch_bounds(
    n: np.ndarray,
    s: np.ndarray,
    estimand: str,
    *,
    level: float,
    fpc: float,
    rng: np.random.Generator | None,
    tol: np.ndarray,
    reps: int = 999,
    weights: str = "auto",
    v: np.ndarray | None = None,
    count_ties: bool = False,
) -> Bounds:
    """WCR intervals ("wcr") for the rows of (n, s); `inference.wild.wcr` per row.

    ``v`` (B, K) injects the weight matrix; otherwise `wild_weights` (Webb's six points
    below K = 12, enumeration when support^K ≤ reps, else ``reps`` draws from ``rng``).
    Unavailable (NaN) where the CR1 SE is ≤ ``tol`` or the test rejects no θ₀ on a side.
    """
    nt, st = _totals(n, s, estimand)
    R, K = nt.shape
    theta = st.sum(axis=1) / nt.sum(axis=1)
    if fpc == 0.0:  # census: no sampling error
        return Bounds(theta.copy(), theta.copy(), np.ones(R, dtype=bool))
    if v is None:
        v = wild_weights(K, reps, rng, weights).v
    u = st - theta[:, None] * nt
    se = np.sqrt(K / (K - 1) * np.sum(u * u, axis=1)) / nt.sum(axis=1)
    todo = np.flatnonzero(se > tol)  # zero SE: every document has the same rate
    lower, upper = np.full(R, np.nan), np.full(R, np.nan)
    alpha, f = 1.0 - level, float(np.sqrt(fpc))
    step = max(1, BLOCK_ELEMENTS // max(1, v.shape[0] * K))
    for start in range(0, todo.size, step):
        rows = todo[start : start + step]
        fit = WildBlock.build(nt[rows], st[rows], v, count_ties)
        lo, hi = _limits(fit, alpha, -1.0), _limits(fit, alpha, 1.0)
        th = theta[rows]
        lower[rows], upper[rows] = th + f * (lo - th), th + f * (hi - th)
    available = np.isfinite(lower) & np.isfinite(upper)
    lower[~available] = np.nan
    upper[~available] = np.nan
    return Bounds(lower, upper, available)
