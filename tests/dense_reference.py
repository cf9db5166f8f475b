"""Dense N×N reference implementations of the cluster-robust variances and dfs.

Test helper (not a test module). Everything here works on the raw per-query
vectors (document codes 0..K−1 and scores y) and follows the textbook
definitions literally, with full N×N matrices, so that the O(K) closed forms
in ``ragstat.inference.variance`` can be checked against them. Only meant for
small N (a few hundred queries).

Model: intercept-only OLS, X = 1 (N×1), β̂ = R = mean(y), e = y − R.

    H   = X (XᵀX)⁻¹ Xᵀ = 11ᵀ/N
    A_d = (I − H_dd)^(−1/2)      symmetric inverse square root (eigendecomposition)
    CR1 = K/(K−1) (XᵀX)⁻¹ Σ_d X_dᵀ e_d e_dᵀ X_d (XᵀX)⁻¹
    CR2 =         (XᵀX)⁻¹ Σ_d X_dᵀ A_d e_d e_dᵀ A_d X_d (XᵀX)⁻¹
    G   = [g_1 … g_K],  g_d = (I − H)[:, d] A_d X_d (XᵀX)⁻¹ ℓ   (ℓ = 1)

so that CR2 = Σ_d (g_dᵀ y)² = yᵀ G Gᵀ y, and under y ~ (Xβ, Ω) the
Satterthwaite df is ν = tr(GᵀΩG)² / tr((GᵀΩG)²) with

    Bell–McCaffrey:   Ω = I
    Imbens–Kolesár:   Ω = σ̂² I + ρ̂ blockdiag(J_d)   (Moulton working model)
    ρ̂  = Σ_d Σ_{i≠j∈d} e_i e_j / Σ_d n_d (n_d − 1)    (0 when every n_d = 1)
    σ̂² = max(Σ_i e_i² / N − ρ̂, 0)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = [
    "DenseDesign",
    "dense_design",
    "dense_df",
    "dense_df_bell_mccaffrey",
    "dense_df_imbens_kolesar",
    "dense_g_matrix",
    "dense_moulton",
    "dense_omega_moulton",
    "dense_se_cr1",
    "dense_se_cr2",
    "inverse_sqrt_psd",
]


@dataclass(frozen=True)
class DenseDesign:
    """Raw per-query design: cluster codes 0..K−1 and scores, with the OLS pieces."""

    codes: np.ndarray  # (N,) int
    y: np.ndarray  # (N,) float
    X: np.ndarray  # (N, 1) intercept column
    bread: np.ndarray  # (XᵀX)⁻¹, (1, 1)
    H: np.ndarray  # (N, N) hat matrix
    e: np.ndarray  # (N,) OLS residuals
    blocks: tuple[np.ndarray, ...]  # row indices of each document

    @property
    def N(self) -> int:
        return int(self.y.shape[0])

    @property
    def K(self) -> int:
        return len(self.blocks)


def dense_design(codes: np.ndarray, y: np.ndarray) -> DenseDesign:
    """Fit y on an intercept by least squares and build the dense N×N pieces."""
    codes = np.asarray(codes)
    y = np.asarray(y, dtype=np.float64)
    _, codes = np.unique(codes, return_inverse=True)
    N = y.shape[0]
    X = np.ones((N, 1))
    bread = np.linalg.inv(X.T @ X)
    beta = bread @ X.T @ y
    H = X @ bread @ X.T
    e = y - X @ beta
    K = int(codes.max()) + 1
    blocks = tuple(np.flatnonzero(codes == d) for d in range(K))
    return DenseDesign(codes=codes, y=y, X=X, bread=bread, H=H, e=e, blocks=blocks)


def inverse_sqrt_psd(S: np.ndarray) -> np.ndarray:
    """Symmetric inverse square root S^(−1/2) of a symmetric positive definite matrix."""
    S = 0.5 * (S + S.T)
    lam, V = np.linalg.eigh(S)
    if lam.min() <= 0:
        raise ValueError(f"matrix is not positive definite (smallest eigenvalue {lam.min():g})")
    return (V / np.sqrt(lam)) @ V.T


def _adjustments(des: DenseDesign) -> list[np.ndarray]:
    """A_d = (I − H_dd)^(−1/2) for every document block."""
    out = []
    for idx in des.blocks:
        Hdd = des.H[np.ix_(idx, idx)]
        out.append(inverse_sqrt_psd(np.eye(idx.size) - Hdd))
    return out


def dense_se_cr1(des: DenseDesign) -> float:
    """CR1 standard error, K/(K−1) times the CR0 sandwich."""
    meat = np.zeros((1, 1))
    for idx in des.blocks:
        v = des.X[idx].T @ des.e[idx]
        meat += np.outer(v, v)
    V = des.K / (des.K - 1) * des.bread @ meat @ des.bread
    return float(np.sqrt(V[0, 0]))


def dense_se_cr2(des: DenseDesign) -> float:
    """CR2 (Bell–McCaffrey bias-reduced) standard error from the sandwich."""
    meat = np.zeros((1, 1))
    for idx, A in zip(des.blocks, _adjustments(des), strict=True):
        v = des.X[idx].T @ A @ des.e[idx]
        meat += np.outer(v, v)
    V = des.bread @ meat @ des.bread
    return float(np.sqrt(V[0, 0]))


def dense_g_matrix(des: DenseDesign) -> np.ndarray:
    """G (N×K): column d is (I − H)[:, d-block] A_d X_d (XᵀX)⁻¹ ℓ with ℓ = 1."""
    M = np.eye(des.N) - des.H
    ell = np.ones(1)
    G = np.empty((des.N, des.K))
    for d, (idx, A) in enumerate(zip(des.blocks, _adjustments(des), strict=True)):
        G[:, d] = M[:, idx] @ A @ des.X[idx] @ des.bread @ ell
    return G


def dense_df(G: np.ndarray, omega: np.ndarray) -> float:
    """Satterthwaite df tr(GᵀΩG)² / tr((GᵀΩG)²)."""
    S = G.T @ omega @ G
    return float(np.trace(S) ** 2 / np.trace(S @ S))


def dense_moulton(des: DenseDesign) -> tuple[float, float]:
    """(σ̂², ρ̂) of the Moulton model from the within-document cross products of e."""
    B = np.zeros((des.N, des.N))
    for idx in des.blocks:
        B[np.ix_(idx, idx)] = 1.0
    off = B - np.eye(des.N)  # pairs i ≠ j in the same document
    pairs = off.sum()
    rho = float(des.e @ off @ des.e / pairs) if pairs > 0 else 0.0
    sigma2 = max(float(des.e @ des.e) / des.N - rho, 0.0)
    return sigma2, rho


def dense_omega_moulton(des: DenseDesign) -> np.ndarray:
    """Ω = σ̂² I + ρ̂ blockdiag(J_d)."""
    sigma2, rho = dense_moulton(des)
    omega = sigma2 * np.eye(des.N)
    for idx in des.blocks:
        omega[np.ix_(idx, idx)] += rho
    return omega


def dense_df_bell_mccaffrey(des: DenseDesign) -> float:
    """Bell–McCaffrey df: Ω = I."""
    return dense_df(dense_g_matrix(des), np.eye(des.N))


def dense_df_imbens_kolesar(des: DenseDesign) -> float:
    """Imbens–Kolesár df: Ω = σ̂² I + ρ̂ blockdiag(J_d)."""
    return dense_df(dense_g_matrix(des), dense_omega_moulton(des))
