"""Cluster-robust variances and their degrees of freedom for the micro mean.

The micro mean R is the OLS coefficient of y on an intercept. With clusters d,
residual totals u_d = s_d − R n_d and leverages h_d = n_d / N (seed 000, step 3):

    CR1: se = sqrt(K/(K−1) Σ u_d²) / N
    CR2: se = sqrt(Σ u_d² / (1 − h_d)) / N      (Bell & McCaffrey 2002)

Degrees of freedom come from matching the first two moments of the CR2
variance under a working model Ω. With a_d = (1 − h_d)^(−1/2) every matrix is
"diagonal + low rank" in the K×K document space, so both dfs cost O(K):

    Bell–McCaffrey (Ω = I):  M = diag(a² n) − (a n)(a n)ᵀ / N,  ν = tr(M)² / ‖M‖_F²
    Imbens–Kolesár (Ω = σ² I + ρ blockdiag(J_d)), ρ and σ² from the OLS residuals.

The K×K forms are tested against the dense N×N definitions.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "df_bell_mccaffrey",
    "df_imbens_kolesar",
    "moulton_parameters",
    "se_cr1",
    "se_cr2",
    "se_t_rates",
    "within_sum_of_squares",
]


def se_cr1(u: np.ndarray, N: float) -> float:
    """CR1: sqrt(K/(K−1) · Σ u_d²) / N."""
    K = u.shape[0]
    return float(np.sqrt(K / (K - 1) * np.sum(u * u)) / N)


def se_cr2(u: np.ndarray, h: np.ndarray, N: float) -> float:
    """CR2 (independence working model): sqrt(Σ u_d² / (1 − h_d)) / N."""
    return float(np.sqrt(np.sum(u * u / (1.0 - h))) / N)


def se_t_rates(r: np.ndarray) -> float:
    """Macro mean: sd(r_d) / √K."""
    return float(np.std(r, ddof=1) / np.sqrt(r.shape[0]))


def _df_diag_plus_low_rank(delta: np.ndarray, U: np.ndarray, C: np.ndarray) -> float:
    """ν = tr(Σ)² / tr(Σ²) for Σ = diag(δ) + U C Uᵀ (U is K×r, C is r×r symmetric)."""
    G = U.T @ U  # r×r Gram
    D = U.T @ (delta[:, None] * U)  # Uᵀ diag(δ) U
    CG = C @ G
    tr = delta.sum() + np.trace(CG)
    tr2 = np.sum(delta * delta) + 2.0 * np.trace(C @ D) + np.trace(CG @ CG)
    if not tr2 > 0:
        return float("nan")
    return float(tr * tr / tr2)


def df_bell_mccaffrey(n: np.ndarray) -> float:
    """Bell–McCaffrey df of the CR2 variance under Ω = I (seed 000's "Imbens–Kolesár").

    ν = tr(M)² / ‖M‖_F², M = diag(a² n) − (a n)(a n)ᵀ / N, a_d = (1 − n_d/N)^(−1/2).
    """
    N = n.sum()
    a2 = 1.0 / (1.0 - n / N)
    v = np.sqrt(a2) * n
    return _df_diag_plus_low_rank(a2 * n, v[:, None], np.array([[-1.0 / N]]))


def within_sum_of_squares(n: np.ndarray, s: np.ndarray, q: np.ndarray) -> float:
    """Σ_i (y_i − R)², the OLS residual sum of squares of the intercept-only model."""
    N = n.sum()
    R = s.sum() / N
    return float(max(q.sum() - N * R * R, 0.0))


def moulton_parameters(n: np.ndarray, s: np.ndarray, q: np.ndarray) -> tuple[float, float]:
    """(σ̂², ρ̂) of the Moulton working model, as in Kolesár's dfadjust.

    ρ̂ = (Σ_d u_d² − Σ_i e_i²) / (Σ_d n_d² − N),  σ̂² = max(Σ_i e_i² / N − ρ̂, 0).
    """
    N = n.sum()
    R = s.sum() / N
    u = s - R * n
    ee = within_sum_of_squares(n, s, q)
    denom = np.sum(n * n) - N
    rho = float((np.sum(u * u) - ee) / denom) if denom > 0 else 0.0
    return float(max(ee / N - rho, 0.0)), rho


def df_imbens_kolesar(n: np.ndarray, s: np.ndarray, q: np.ndarray) -> float:
    """Imbens–Kolesár (2016) df of CR2 under Ω = σ̂² I + ρ̂ blockdiag(J_d).

    In document space, with v = a∘n, w = a∘n², S₂ = Σ n_d²:
    GᵀΩG ∝ diag(σ² a² n + ρ a² n²) + [v w] C [v w]ᵀ,
    C = [[−σ²/N + ρ S₂/N², −ρ/N], [−ρ/N, 0]].
    """
    sigma2, rho = moulton_parameters(n, s, q)
    N = n.sum()
    a2 = 1.0 / (1.0 - n / N)
    a = np.sqrt(a2)
    S2 = np.sum(n * n)
    delta = sigma2 * a2 * n + rho * a2 * n * n
    U = np.column_stack([a * n, a * n * n])
    C = np.array([[-sigma2 / N + rho * S2 / N**2, -rho / N], [-rho / N, 0.0]])
    return _df_diag_plus_low_rank(delta, U, C)
