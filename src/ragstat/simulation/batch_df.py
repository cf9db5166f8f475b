"""Helpers of `simulation.batch` for R samples at once: sums over the other documents,
the CR2 degrees of freedom, and t / normal quantiles.

The quantile helpers return exactly ``scipy.stats.t.ppf`` / ``scipy.stats.norm.ppf``
(see :func:`t_quantile`) with one scipy call per distinct ν instead of the argument
checks of ``ppf`` on every block.
"""

from __future__ import annotations

from functools import cache

import numpy as np
from scipy import special
from scipy import stats as sps

__all__ = ["df_bell_mccaffrey", "df_moulton", "others", "pairs", "t_quantile", "z_quantile"]


def others(x: np.ndarray) -> np.ndarray:
    """Σ_{e≠d} x_e along axis 1 from prefix and suffix sums (no cancellation for x ≥ 0)."""
    out = np.zeros_like(x)
    out[:, 1:] = np.cumsum(x, axis=1)[:, :-1]
    out[:, :-1] += np.cumsum(x[:, ::-1], axis=1)[:, ::-1][:, 1:]
    return out


def pairs(w: np.ndarray, f: np.ndarray, g: np.ndarray) -> np.ndarray:
    """Σ_{d≠e} w_d f_d w_e g_e per row."""
    return np.sum(w * f * others(w * g), axis=1)


def df_moulton(n: np.ndarray, sigma2: np.ndarray, rho: np.ndarray) -> np.ndarray:
    """ν = tr(Σ)²/tr(Σ²) of the document-space Σ (`inference.variance`), NaN if undefined."""
    N = n.sum(axis=1, keepdims=True)
    rest = others(n)
    s2, r2 = sigma2[:, None], rho[:, None]
    diag = s2 * n + r2 * n * n * (rest / N + others(n * n) / (N * rest))
    w = n * n / rest
    c0 = rho * np.sum(n * n, axis=1) / N[:, 0] - sigma2
    ones = np.ones_like(n)
    off2 = (
        c0 * c0 * pairs(w, ones, ones)
        + 2 * rho * rho * (pairs(w, n * n, ones) + pairs(w, n, n))
        - 4 * c0 * rho * pairs(w, n, ones)
    )
    tr, tr2 = diag.sum(axis=1), np.sum(diag * diag, axis=1) + off2
    good = (tr2 > 0) & np.isfinite(tr2)
    return np.where(good, tr * tr / np.where(good, tr2, 1.0), np.nan)


def df_bell_mccaffrey(n: np.ndarray, rest: np.ndarray) -> np.ndarray:
    """`df_moulton(n, 1, 0)` (working independence) without its ρ̂ terms.

    With σ̂² = 1 and ρ̂ = 0 every ρ̂ term there is 0 · (a finite value) = 0, c0 = −1 and
    adding or multiplying by those exact zeros and ones leaves every value unchanged, so
    this returns the same doubles with one prefix/suffix pass instead of six.
    """
    w = n * n / rest
    off2 = np.sum(w * others(w), axis=1)
    tr, tr2 = n.sum(axis=1), np.sum(n * n, axis=1) + off2
    good = (tr2 > 0) & np.isfinite(tr2)
    return np.where(good, tr * tr / np.where(good, tr2, 1.0), np.nan)


@cache
def _t_scalar(p: float, df: float) -> float:
    return float(special.stdtrit(df, p))


@cache
def z_quantile(p: float) -> float:
    return float(sps.norm.ppf(p))


def t_quantile(p: float, df: np.ndarray, ok: np.ndarray) -> np.ndarray | float:
    """t_{p, ν} where ``ok`` (elsewhere any finite value: those bounds are masked).

    ``scipy.stats.t.ppf(p, ν)`` is ``special.stdtrit(ν, p)`` for ν > 0 and 0 < p < 1
    (its ``_ppf``, times scale 1 plus loc 0), so calling stdtrit skips only the argument
    checks; a constant ν (K − 1) is looked up once per (p, ν).
    """
    first = float(df.flat[0]) if df.size else np.nan
    if np.isfinite(first) and first > 0 and bool(np.all(df == first)):
        return _t_scalar(p, first)
    return special.stdtrit(np.where(ok, df, 1.0), p)
