"""Cluster-robust variances and their degrees of freedom for the micro mean.

The micro mean R is the OLS coefficient of y on an intercept. With clusters d,
residual totals u_d = s_d − R n_d and leverages h_d = n_d / N (the interval guide, step 3):

    CR1: se = sqrt(K/(K−1) Σ u_d²) / N
    CR2: se = sqrt(Σ u_d² / (1 − h_d)) / N      (Bell & McCaffrey 2002)

Degrees of freedom match the first two moments of the CR2 variance under a
working model Ω: ν = tr(Σ)² / tr(Σ²) with Σ = GᵀΩG (SPEC.md §3). In document
space, with a_d = (1 − h_d)^(−1/2), v_d = a_d n_d and S₂ = Σ n_d², Σ has

    diagonal      Σ_dd = σ² n_d + ρ n_d² [(N − n_d)/N + (S₂ − n_d²)/(N (N − n_d))]
    off-diagonal  Σ_de = (v_d v_e / N) [ρ (S₂/N − n_d − n_e) − σ²]

for Ω = σ² I + ρ blockdiag(J_d) (Imbens–Kolesár 2016, Moulton model, ρ and
σ² estimated as in Kolesár's dfadjust); σ² = 1, ρ = 0 gives Bell–McCaffrey
(Ω = I), where ν = N² / (Σ n_d² + Σ_{d≠e} w_d w_e), w_d = n_d²/(N − n_d).
Every sum is written over positive terms with N − n_d = Σ_{e≠d} n_e, so a
document holding almost all queries loses no precision; the closed forms are
tested against the dense N×N definitions.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "df_bell_mccaffrey",
    "df_imbens_kolesar",
    "moulton_parameters",
    "residual_sum_of_squares",
    "se_cr1",
    "se_cr2",
    "se_t_rates",
]


def _others(x: np.ndarray) -> np.ndarray:
    """Σ_{e≠d} x_e for every d, from prefix and suffix sums (no cancellation for x ≥ 0)."""
    before = np.concatenate([[0.0], np.cumsum(x)[:-1]])
    after = np.concatenate([np.cumsum(x[::-1])[::-1][1:], [0.0]])
    return before + after


def se_cr1(u: np.ndarray, N: float) -> float:
    """CR1: sqrt(K/(K−1) · Σ u_d²) / N."""
    K = u.shape[0]
    return float(np.sqrt(K / (K - 1) * np.sum(u * u)) / N)


def se_cr2(u: np.ndarray, n: np.ndarray) -> float:
    """CR2 (independence working model): sqrt(Σ u_d² / (1 − h_d)) / N, 1 − h_d = (N − n_d)/N."""
    N = n.sum()
    return float(np.sqrt(np.sum(u * u * N / _others(n))) / N)


def se_t_rates(r: np.ndarray) -> float:
    """Macro mean: sd(r_d) / √K."""
    return float(np.std(r, ddof=1) / np.sqrt(r.shape[0]))


def _pairs(w: np.ndarray, f: np.ndarray, g: np.ndarray) -> float:
    """Σ_{d≠e} w_d f_d w_e g_e for w, f, g ≥ 0."""
    return float(np.sum(w * f * _others(w * g)))


def _df_moulton(n: np.ndarray, sigma2: float, rho: float) -> float:
    """ν = tr(Σ)² / tr(Σ²) for the document-space Σ of the module docstring."""
    N = n.sum()
    rest = _others(n)  # N − n_d
    S2 = np.sum(n * n)
    diag = sigma2 * n + rho * n * n * (rest / N + _others(n * n) / (N * rest))
    w = n * n / rest  # v_d² / N
    c0 = rho * S2 / N - sigma2
    ones = np.ones_like(n)
    off2 = (
        c0 * c0 * _pairs(w, ones, ones)
        + 2 * rho * rho * (_pairs(w, n * n, ones) + _pairs(w, n, n))
        - 4 * c0 * rho * _pairs(w, n, ones)
    )
    tr, tr2 = float(diag.sum()), float(np.sum(diag * diag) + off2)
    if not (tr2 > 0 and np.isfinite(tr2)):
        return float("nan")
    return tr * tr / tr2


def df_bell_mccaffrey(n: np.ndarray) -> float:
    """Bell–McCaffrey df of the CR2 variance under Ω = I (the interval guide's "Imbens–Kolesár").

    ν = N² / (Σ n_d² + Σ_{d≠e} w_d w_e), w_d = n_d² / (N − n_d).
    """
    return _df_moulton(np.asarray(n, dtype=np.float64), 1.0, 0.0)


def residual_sum_of_squares(n: np.ndarray, s: np.ndarray, w: np.ndarray) -> float:
    """Σ_i (y_i − R)² = Σ_d w_d + Σ_d n_d (r_d − R)², w_d the within-document sum of squares."""
    R = s.sum() / n.sum()
    return float(np.sum(w) + np.sum(n * (s / n - R) ** 2))


def _within(n: np.ndarray, s: np.ndarray, q: np.ndarray, w: np.ndarray | None) -> np.ndarray:
    return np.maximum(q - s * s / n, 0.0) if w is None else w


def moulton_parameters(
    n: np.ndarray, s: np.ndarray, q: np.ndarray, w: np.ndarray | None = None
) -> tuple[float, float]:
    """(σ̂², ρ̂) of the Moulton working model, as in Kolesár's dfadjust.

    ρ̂ = (Σ_d u_d² − Σ_i e_i²) / (Σ_d n_d² − N),  σ̂² = max(Σ_i e_i² / N − ρ̂, 0),
    with e the OLS residuals; ``w`` (within-document sums of squares, centred) is
    used when given, else q − s²/n.
    """
    N = n.sum()
    u = s - s.sum() / N * n
    ee = residual_sum_of_squares(n, s, _within(n, s, q, w))
    denom = np.sum(n * (n - 1))
    rho = float((np.sum(u * u) - ee) / denom) if denom > 0 else 0.0
    return float(max(ee / N - rho, 0.0)), rho


def df_imbens_kolesar(
    n: np.ndarray, s: np.ndarray, q: np.ndarray, w: np.ndarray | None = None
) -> float:
    """Imbens–Kolesár (2016) df of CR2 under Ω = σ̂² I + ρ̂ blockdiag(J_d)."""
    sigma2, rho = moulton_parameters(n, s, q, w)
    return _df_moulton(np.asarray(n, dtype=np.float64), sigma2, rho)
