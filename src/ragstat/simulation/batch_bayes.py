"""The beta-binomial posterior interval (`inference.bayes.beta_binomial`) for R samples at once.

Same model, prior, grid and refinement as the library function (see its module docstring):
a coarse 61 × 61 grid over (η, λ) = (logit μ, log φ), then two refinements of ``size`` ×
``size`` cells over each sample's box of cells holding posterior mass above 1e-12 of the
largest, widened by one cell. Each sample's grid is a row of (rows, cells) arrays, so the
samples of a block share every array operation.

Likelihood. For 0/1 scores, with a = μφ, b = (1 − μ)φ and f_d = n_d − s_d,

    log B(s + a, f + b) − log B(a, b) = A(s; a) + A(f; b) − A(n; φ),
    A(k; x) = log Γ(x + k) − log Γ(x) = Σ_{j<k} log(x + j)

(the rising factorial), so a sample's log-likelihood is Σ_d A(s_d; a) + Σ_d A(f_d; b) −
Σ_d A(n_d; φ), and each sum is Σ_j C_j log(x + j) with C_j the number of documents whose
value (s_d, f_d or n_d) exceeds j. Over a run of j where every row's C_j is constant the
factors (x + j) are multiplied out (at most 32, far from overflow) and logged once, so
the cost is about one logarithm per distinct value per cell. The φ side depends on λ
alone and is evaluated on the λ values only. The result equals the library's `betaln`
sums to rounding (≈1e-13 relative). Blocks hold ``GRID_ELEMENTS`` cells: one sample at
the default size (fewest distinct values, so fewest logarithms), four at size 61.

Estimands, as in the library:

* "model" (default for macro): the posterior quantiles of μ are read from the grid
  deterministically, not from draws: the library's draws pick a cell by its probability
  and a point uniformly in η within it, so η's distribution is piecewise uniform and its
  quantile is found exactly by inverting that CDF; μ = expit(η). The library's interval
  (quantiles of ``draws`` draws) agrees within Monte-Carlo error.
* "documents" (default for micro): ``draws`` posterior draws per sample, exactly as the
  library makes them (a cell by numpy's `Generator.choice` rule, written as a vectorised
  binary search; uniform offsets; Beta rates; exponential Dirichlet weights), in the same
  order: for a one-sample block the draws, and so the bounds, are the library's for the
  same generator.

Finite population: limits θ̂ + √fpc (q − θ̂); a census (fpc = 0) is the point θ̂. Samples
whose scores are not 0/1 (``binary=False``, or s not an integer in [0, n]) are unavailable.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy.special import expit

from ragstat.simulation.batch_boot import Bounds

__all__ = ["BatchPosterior", "beta_binomial_batch", "beta_binomial_batch_bounds", "posterior_grids"]

_COARSE = 61
_ETA = (-20.0, 20.0)
_LAM = (-8.0, 12.0)
_KEEP = 1e-12
_RUN = 32  # factors multiplied before a logarithm: (x + j)^32 stays far below overflow
_DRAW_BLOCK = 262_144  # draws × documents per chunk, as `inference.bayes.rate_draws`
#: Grid cells (rows × size²) evaluated together: a block of samples stays in cache.
GRID_ELEMENTS = 1 << 14


class BatchPosterior(NamedTuple):
    """Grid posteriors of a block of samples: cell centres η (rows, sE) and λ (rows, sL),
    cell probabilities (rows, sE · sL) in the library's order (η major), cell widths."""

    eta: np.ndarray
    lam: np.ndarray
    prob: np.ndarray
    d_eta: np.ndarray
    d_lam: np.ndarray


def _tail_counts(v: np.ndarray) -> np.ndarray:
    """C[:, j] = the number of documents whose value exceeds j, j = 0 … max − 1 (rows, J)."""
    J = int(v.max()) if v.size else 0
    return (v[:, :, None] > np.arange(J)[None, None, :]).sum(axis=1).astype(float)


def _log_rising(x: np.ndarray, C: np.ndarray) -> np.ndarray:
    """Σ_j C_j log(x + j) = Σ_d (log Γ(x + v_d) − log Γ(x)) per cell; x (rows, G) > 0.

    Runs of j over which every row's C_j is constant share one logarithm of the product
    of their factors (at most ``_RUN`` of them, far from overflow)."""
    acc = np.zeros_like(x)
    J = C.shape[1]
    if J == 0:  # every count 0: no factor
        return acc
    change = np.flatnonzero(np.any(C[:, 1:] != C[:, :-1], axis=0)) + 1
    starts = sorted({0, *change.tolist(), *range(0, J, _RUN)} - {J})
    P, tmp = np.empty_like(x), np.empty_like(x)
    for j0, j1 in zip(starts, [*starts[1:], J], strict=True):
        np.add(x, float(j0), out=P)
        for j in range(j0 + 1, j1):
            np.add(x, float(j), out=tmp)
            P *= tmp
        np.log(P, out=P)
        P *= C[:, j0, None]
        acc += P
    return acc


def _weights(eta: np.ndarray, lam: np.ndarray, sides: tuple) -> np.ndarray:
    """Normalised posterior cell weights (rows, sE · sL), η major, as `bayes._weights`."""
    rows = eta.shape[0]
    part_eta = -np.logaddexp(0, eta) - np.logaddexp(0, -eta)
    prior = (part_eta[:, :, None] + lam[:, None, :]) - (2 * np.logaddexp(0, lam))[:, None, :]
    mu, phi = expit(eta), np.exp(lam)
    a = (mu[:, :, None] * phi[:, None, :]).reshape(rows, -1)
    b = ((1 - mu)[:, :, None] * phi[:, None, :]).reshape(rows, -1)
    c_s, c_f, c_n = sides
    loglik = _log_rising(a, c_s) + _log_rising(b, c_f)
    loglik = loglik.reshape(rows, eta.shape[1], -1) - _log_rising(phi, c_n)[:, None, :]
    logp = prior.reshape(rows, -1) + loglik.reshape(rows, -1)
    w = np.exp(logp - logp.max(axis=1, keepdims=True))
    return w / w.sum(axis=1, keepdims=True)


def _box(values: np.ndarray, kept: np.ndarray, width: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(min − width, max + width) of each row's kept cell centres (values increasing)."""
    first = np.argmax(kept, axis=1)
    last = kept.shape[1] - 1 - np.argmax(kept[:, ::-1], axis=1)
    rows = np.arange(values.shape[0])
    return values[rows, first] - width, values[rows, last] + width


def posterior_grids(n: np.ndarray, s: np.ndarray, *, size: int = 121) -> BatchPosterior:
    """`inference.bayes.posterior_grid` for each row of (rows, K) integer counts n, s."""
    rows = n.shape[0]
    sides = (_tail_counts(s), _tail_counts(n - s), _tail_counts(n))
    eta = np.broadcast_to(np.linspace(*_ETA, _COARSE), (rows, _COARSE))
    lam = np.broadcast_to(np.linspace(*_LAM, _COARSE), (rows, _COARSE))
    for step in range(3):
        de, dl = eta[:, 1] - eta[:, 0], lam[:, 1] - lam[:, 0]
        w = _weights(eta, lam, sides)
        if step == 2:
            return BatchPosterior(eta, lam, w, de, dl)
        keep = (w > _KEEP * w.max(axis=1, keepdims=True)).reshape(rows, eta.shape[1], -1)
        eta_lo, eta_hi = _box(eta, keep.any(axis=2), de)
        lam_lo, lam_hi = _box(lam, keep.any(axis=1), dl)
        eta = np.linspace(eta_lo, eta_hi, size, axis=1)
        lam = np.linspace(lam_lo, lam_hi, size, axis=1)
    raise AssertionError("unreachable")


def _mu_quantiles(post: BatchPosterior, qs: tuple[float, ...]) -> list[np.ndarray]:
    """Quantiles of μ under the grid posterior, uniform in η within each cell."""
    rows, sE = post.eta.shape
    p_eta = post.prob.reshape(rows, sE, -1).sum(axis=2)
    cdf = np.cumsum(p_eta, axis=1)
    out = []
    for q in qs:
        j = np.minimum(np.sum(cdf < q, axis=1), sE - 1)
        r = np.arange(rows)
        before = np.where(j > 0, cdf[r, np.maximum(j - 1, 0)], 0.0)
        share = np.clip((q - before) / p_eta[r, j], 0.0, 1.0)
        out.append(expit(post.eta[r, j] - post.d_eta / 2 + post.d_eta * share))
    return out


def _choose_cells(prob: np.ndarray, u: np.ndarray) -> np.ndarray:
    """numpy's `Generator.choice(G, p=prob)` for uniforms u: searchsorted(cdf, u, 'right')."""
    cdf = np.cumsum(prob, axis=1)
    cdf /= cdf[:, -1:]
    G = cdf.shape[1]
    lo = np.zeros(u.shape, dtype=np.int64)
    hi = np.full(u.shape, G, dtype=np.int64)
    for _ in range(int(G).bit_length() + 1):
        mid = (lo + hi) // 2
        right = (lo < hi) & (np.take_along_axis(cdf, np.minimum(mid, G - 1), axis=1) <= u)
        lo = np.where(right, mid + 1, lo)
        hi = np.where((lo < hi) & ~right, mid, hi)
    return lo


def _parameter_draws(post: BatchPosterior, D: int, rng: np.random.Generator):
    """(μ, φ) draws (rows, D), as `inference.bayes.posterior_draws` for each row."""
    rows, sL = post.lam.shape
    cell = _choose_cells(post.prob, rng.random((rows, D)))
    eta_c = np.take_along_axis(post.eta, cell // sL, axis=1)
    lam_c = np.take_along_axis(post.lam, cell % sL, axis=1)
    eta = eta_c + post.d_eta[:, None] * (rng.random((rows, D)) - 0.5)
    lam = lam_c + post.d_lam[:, None] * (rng.random((rows, D)) - 0.5)
    return expit(eta), np.exp(lam)


def _document_draws(post, n, s, estimand: str, D: int, rng) -> np.ndarray:
    """The "documents" population's draws (rows, D), as `inference.bayes.rate_draws`."""
    mu, phi = _parameter_draws(post, D, rng)
    rows, K = n.shape
    out = np.empty((rows, D))
    step = max(1, _DRAW_BLOCK // max(K, 1))
    for start in range(0, D, step):
        sl = slice(start, min(D, start + step))
        a, b = (mu[:, sl] * phi[:, sl])[:, :, None], ((1 - mu[:, sl]) * phi[:, sl])[:, :, None]
        p = rng.beta(a + s[:, None, :], b + (n - s)[:, None, :])
        g = rng.standard_exponential(p.shape)
        if estimand == "micro":
            g = g * n[:, None, :]
        out[:, sl] = np.einsum("rij,rij->ri", g, p) / g.sum(axis=2)
    return out


def _block_quantiles(n, s, estimands, populations, alpha, draws, size, rng) -> dict:
    """{estimand: (lower quantile, upper quantile)} for one block of samples."""
    post = posterior_grids(n, s, size=size)
    qs = (alpha / 2, 1 - alpha / 2)
    out = {}
    for e in estimands:
        if populations[e] == "model":
            lo, hi = _mu_quantiles(post, qs)
        else:
            values = _document_draws(post, n, s, e, draws, rng)
            lo, hi = np.quantile(values, qs, axis=1)
        out[e] = (lo, hi)
    return out


def _usable(n: np.ndarray, s: np.ndarray, binary: bool) -> np.ndarray:
    """Samples the model applies to: 0/1 scores, so s an integer in [0, n]."""
    if not binary:
        return np.zeros(n.shape[0], dtype=bool)
    whole = np.abs(s - np.round(s)) <= 1e-9 * np.maximum(1.0, n)
    return np.all(whole & (s >= -1e-9) & (s <= n + 1e-9), axis=1)


def beta_binomial_batch(
    n: np.ndarray,
    s: np.ndarray,
    estimands: tuple[str, ...],
    *,
    level: float,
    fpc: float,
    rng: np.random.Generator,
    draws: int = 999,
    size: int = 121,
    binary: bool = True,
    population: str | None = None,
) -> dict[str, Bounds]:
    """`inference.bayes.beta_binomial` for R samples (rows of n, s), every estimand from
    one grid posterior per sample; ``population`` None is "model" for macro and
    "documents" for micro."""
    if population not in (None, "model", "documents"):
        raise ValueError(f"unknown population {population!r}; choose model or documents")
    pops = {e: population or ("model" if e == "macro" else "documents") for e in estimands}
    theta = {"micro": s.sum(axis=1) / n.sum(axis=1), "macro": (s / n).mean(axis=1)}
    ok = _usable(n, s, binary)
    R = n.shape[0]
    q = {e: (np.full(R, np.nan), np.full(R, np.nan)) for e in estimands}
    todo = np.flatnonzero(ok) if fpc > 0 else np.zeros(0, dtype=np.int64)
    rows = max(1, GRID_ELEMENTS // (size * size))
    for start in range(0, todo.size, rows):
        idx = todo[start : start + rows]
        nb, sb = np.round(n[idx]), np.round(s[idx])
        got = _block_quantiles(nb, sb, estimands, pops, 1.0 - level, draws, size, rng)
        for e, (lo, hi) in got.items():
            q[e][0][idx], q[e][1][idx] = lo, hi
    f = float(np.sqrt(fpc))
    out = {}
    for e in estimands:
        t = theta[e]
        lower, upper = (t + f * (q[e][0] - t), t + f * (q[e][1] - t)) if fpc > 0 else (t, t)
        out[e] = Bounds(
            np.where(ok, lower, np.nan), np.where(ok, upper, np.nan), ok.copy(), np.zeros(R, int)
        )
    return out


def beta_binomial_batch_bounds(
    n: np.ndarray,
    s: np.ndarray,
    estimand: str,
    *,
    level: float,
    fpc: float,
    rng: np.random.Generator,
    tol: np.ndarray | None = None,
    draws: int = 999,
    size: int = 121,
    binary: bool = True,
    population: str | None = None,
) -> Bounds:
    """One estimand's bounds (the simulator's batch signature). ``tol`` is accepted for
    that signature and unused: the posterior interval has no zero-SE case."""
    del tol
    return beta_binomial_batch(
        n, s, (estimand,), level=level, fpc=fpc, rng=rng, draws=draws, size=size,
        binary=binary, population=population,
    )[estimand]  # fmt: skip
