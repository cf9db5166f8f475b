"""Prediction-powered inference (PPI) for a mean, clustered by document, with PPI++ tuning.

A judge scores every item (f_i); people label a few (y_j, NaN elsewhere). With U the
unlabelled items (N of them) and L the labelled ones (n), the power-tuned estimator is

    θ̂_λ = λ · f̄_U + (ȳ_L − λ f̄_L)        (Angelopoulos et al. 2023, "Prediction-powered
                                            inference", Science; PPI++: Angelopoulos, Duchi
                                            & Zrnic 2023, arXiv:2311.01453)

λ = 0 is the human-only mean, λ = 1 classic PPI. Every public implementation (ppi_py,
ARES) treats items as independent; here each document d contributes one influence value

    u_d = Σ_{i∈d, U} λ (f_i − f̄_U) / N  +  Σ_{j∈d, L} ((y_j − λ f_j) − r̄) / n,
    r̄ = ȳ_L − λ f̄_L,

and V = c Σ_d u_d² with c = K/(K − 1) (CR1, ``method="cr1"``) for the t interval on K − 1
df, c = 1 (CR0) with the normal quantile for ``dist="normal"`` — the large-sample interval
ppi_py's ``ppi_mean_ci`` computes, which this equals for one item per document.

The default t interval of ``same_documents`` (``method="jackknife"``) is the delete-one-
document jackknife of the whole estimator, λ̂ re-tuned on every replicate:

    V_JK = (K − 1)/K Σ_d (θ̂_(−d) − θ̄_(·))²,   t interval on K − 1 df,

computed in O(K) from the 5×5 cross-products of the centred document totals. CR1 ignores
that λ̂ is tuned on the same documents (and the ratio means' leverage) and undercovers
with few documents. Coverage (%) of the 95 % interval on the slow test's census (3,000
documents of 1 + Poisson(5) items, pass rate Beta(2, 2), document-level judge error, 30 %
of items labelled, auto λ), 5 seeds × 2,000 samples (MC SE 0.49 per seed, 0.22 pooled):

    K = 10: jackknife 94.0–94.9 (mean 94.4), CR1 89.8–92.0 (91.0)
    K = 20: jackknife 94.7–95.8 (mean 95.3), CR1 92.8–93.9 (93.3),
            CR2 + Bell–McCaffrey df 93.4–94.7 (94.0), document bootstrap-t 96.0–97.2 (96.4)
    K = 40: jackknife 94.2–95.8 (95.2), CR1 93.2–94.8 (94.0)
    K = 50: jackknife 94.6–95.9 (95.3), CR1 93.5–95.2 (94.3), CR2 + BM 93.8–95.3 (94.5),
            bootstrap-t 95.3–96.5 (95.8)

(K = 10, 40: ``scripts/make_other_coverage.py --ppi-methods``, seeds 20250531–20250535.)

(CR2: u_d = λ a_U,d/√(1 − m_U,d/N) + (λ a_L,d + b_d)/√(1 − m_L,d/n), the stacked two-mean
regression's bias-reduced variance.) The jackknife is 11 % wider than CR1 at K = 20, 5 %
at K = 50.

Designs:

* ``same_documents`` — the labelled items are a random subset of the items of the same
  K documents: u_d sums both parts' contributions (above). Writing u_d = λ a_d + b_d,
  V is quadratic in λ and ``lam="auto"`` takes its minimiser λ* = −Σ a_d b_d / Σ a_d².
* ``disjoint_documents`` — labelled and unlabelled items come from disjoint documents
  (K_L and K_U of them): the parts are independent, V = V_U + V_L with each part's own
  CR1 factor, and the t interval uses the Welch–Satterthwaite df
  ν = (V_U + V_L)² / (V_U²/(K_U − 1) + V_L²/(K_L − 1)). ``lam="auto"`` is ppi_py's PPI++
  rule with documents as units: λ = C / (S (K_L/n² + K_U/N²)), C = Σ_{d∈L} (Y_d − ȳ m_d)
  (F_d − f̄_L m_d) / n², S = Σ_d (F_d − f̄ m_d)² / (K − 1) pooled over both parts (F_d, Y_d
  the document totals, m_d its items); for one item per document this is exactly
  ppi_py's cov(y, f) / ((1 + n/N) var(f)).

As in ppi_py (``_calc_lam_glm(..., clip=True)``), the automatic λ is clipped to [0, 1].
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np
from scipy import stats

from ragstat.errors import DesignError, InputError

__all__ = [
    "DESIGNS", "DISTS", "MAX_ABS_LAMBDA", "METHODS", "JudgeOnly", "PPIAnalysis", "PPIMean",
    "labels_for_half_width", "ppi_analysis", "ppi_mean",
]  # fmt: skip

DESIGNS = ("same_documents", "disjoint_documents")
DISTS = ("t", "normal")
METHODS = ("auto", "jackknife", "cr1")
Lam = float | Literal["auto"]
MAX_ABS_LAMBDA = 1e6  # largest |λ| accepted (beyond it the λ² terms overflow or mean nothing)
ONE_DOCUMENT = "the interval cannot be computed: the labelled items come from one document"


@dataclass(frozen=True)
class PPIMean:
    """One PPI interval: θ̂_λ, its SE (``method``: jackknife, cr1 or cr0), df, λ."""

    estimate: float
    se: float
    lower: float
    upper: float
    df: float | None
    lam: float
    lam_auto: bool
    var_unlabelled: float  # the judge-scored part of V (λ² terms of the unlabelled items)
    n_labelled: int
    n_unlabelled: int
    K: int
    K_labelled: int
    design: str
    dist: str
    level: float
    method: str

    @property
    def quantile(self) -> float:
        return _quantile(self.level, self.df)


@dataclass(frozen=True)
class JudgeOnly:
    """The judge's own mean over every item, clustered (biased for the human mean)."""

    estimate: float
    se: float
    lower: float
    upper: float
    df: float | None


@dataclass(frozen=True)
class PPIAnalysis:
    """PPI with the human-only interval and the judge-only estimate beside it."""

    ppi: PPIMean
    human_only: PPIMean
    judge_only: JudgeOnly
    effective_labels: float  # n · V_human-only / V_PPI
    labels_needed: int | None  # labelled items for target_half_width (None: unreachable)
    target_half_width: float | None


@dataclass(frozen=True)
class _Data:
    f: np.ndarray  # judge scores, human labels, document codes, labelled mask, documents
    y: np.ndarray
    codes: np.ndarray
    lab: np.ndarray
    K: int


def _quantile(level: float, df: float | None) -> float:
    p = 0.5 + level / 2
    return float(stats.norm.ppf(p) if df is None else stats.t.ppf(p, df))


def _prepare(f: np.ndarray, y: np.ndarray, cluster: np.ndarray) -> _Data:
    f = np.asarray(f, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if f.ndim != 1 or f.shape != y.shape or len(cluster) != f.shape[0]:
        raise InputError("judge, human and cluster must be 1-d arrays of one length")
    if not np.all(np.isfinite(f)):
        raise InputError("the judge score must be a finite number on every item")
    if np.any(np.isinf(y)):
        raise InputError("human labels must be finite numbers (NaN where unlabelled)")
    _, codes = np.unique(np.asarray(cluster), return_inverse=True)
    codes = codes.reshape(-1)
    lab = ~np.isnan(y)
    if not lab.any():
        raise InputError("no human labels: at least two labelled documents are needed")
    if lab.all():
        raise InputError(
            "every item has a human label: nothing is left for the judge (the human-only "
            "interval is `ragstat interval` on the labels)"
        )
    if np.unique(codes[lab]).size < 2:
        raise DesignError(ONE_DOCUMENT)
    return _Data(f, y, codes, lab, int(codes.max()) + 1)


def _sums(d: _Data, mask: np.ndarray, values: np.ndarray) -> np.ndarray:
    return np.bincount(d.codes[mask], weights=values, minlength=d.K)


def _same_parts(d: _Data) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(a_U, a_L, b) per document: u_d = λ (a_U + a_L)_d + b_d."""
    U, L = ~d.lab, d.lab
    N, n = int(U.sum()), int(L.sum())
    a_u = _sums(d, U, d.f[U] - d.f[U].mean()) / N
    a_l = -_sums(d, L, d.f[L] - d.f[L].mean()) / n
    b = _sums(d, L, d.y[L] - d.y[L].mean()) / n
    return a_u, a_l, b


def _crf(K: int, dist: str) -> float:
    """CR1's K/(K − 1) for the t interval, 1 (CR0) for the normal one."""
    return K / (K - 1) if dist == "t" else 1.0


def _auto_same(a: np.ndarray, b: np.ndarray) -> float:
    aa = float(np.sum(a * a))
    return float(np.clip(-np.sum(a * b) / aa, 0.0, 1.0)) if aa > 0 else 0.0


def _auto_disjoint(d: _Data, a_l: np.ndarray, b: np.ndarray) -> float:
    """ppi_py's rule, documents as units: C / (S (K_L/n² + K_U/N²))."""
    L = d.lab
    n, N = int(L.sum()), int((~L).sum())
    m = np.bincount(d.codes, minlength=d.K).astype(np.float64)
    F = np.bincount(d.codes, weights=d.f, minlength=d.K)
    S = float(np.sum((F - d.f.mean() * m) ** 2) / (d.K - 1))
    K_l = np.unique(d.codes[L]).size
    denom = S * (K_l / n**2 + (d.K - K_l) / N**2)
    return float(np.clip(np.sum(-a_l * b) / denom, 0.0, 1.0)) if denom > 0 else 0.0


def _resolve_lam(lam: Lam, auto: float) -> tuple[float, bool]:
    if lam == "auto":
        return auto, True
    try:  # |λ| is capped: λ weights the judge (PPI++ picks one in [0, 1])
        value = math.nan if isinstance(lam, (bool, str)) else float(lam)
    except (TypeError, ValueError, OverflowError):
        value = math.nan
    if not abs(value) <= MAX_ABS_LAMBDA:
        raise InputError(f"lam: expected 'auto' or a number in [-1e6, 1e6], got {lam!r}")
    return value, False


def _check(design: str, dist: str, level: float, method: str) -> str:
    """Validate; the variance method "auto" resolves to (jackknife | cr1 | cr0)."""
    if method not in METHODS:
        raise InputError(f"method: expected one of {', '.join(METHODS)}, got {method!r}")
    if method == "jackknife" and design != "same_documents":
        raise InputError("method jackknife is for design same_documents; use cr1")
    if design not in DESIGNS:
        raise InputError(f"design: expected one of {', '.join(DESIGNS)}, got {design!r}")
    if dist not in DISTS:
        raise InputError(f"dist: expected one of {', '.join(DISTS)}, got {dist!r}")
    if not 0 < level < 1:
        raise InputError(f"level must be in (0, 1), got {level}")
    if method == "auto":
        method = "jackknife" if design == "same_documents" and dist == "t" else "cr1"
    return "cr0" if method == "cr1" and dist == "normal" else method


def _variance(
    d: _Data, design: str, dist: str, lam: float, parts: tuple[np.ndarray, ...]
) -> tuple[float, float, float | None]:
    """(V, V_U, df) at this λ."""
    a_u, a_l, b = parts
    if design == "same_documents":
        c = _crf(d.K, dist)
        V = c * float(np.sum((lam * (a_u + a_l) + b) ** 2))
        return V, c * lam**2 * float(np.sum(a_u * a_u)), (d.K - 1.0 if dist == "t" else None)
    docs_l = np.unique(d.codes[d.lab])
    docs_u = np.unique(d.codes[~d.lab])
    if np.intersect1d(docs_l, docs_u).size:
        raise DesignError(
            "design disjoint_documents: some documents hold both labelled and unlabelled "
            "items; use design same_documents"
        )
    k_l, k_u = docs_l.size, docs_u.size
    if k_u < 2 and lam != 0:
        raise DesignError(
            "the interval cannot be computed: the unlabelled items come from one document"
        )
    v_l = _crf(k_l, dist) * float(np.sum((lam * a_l + b) ** 2))
    v_u = _crf(k_u, dist) * lam**2 * float(np.sum(a_u * a_u)) if lam != 0 else 0.0
    if dist == "normal":
        return v_l + v_u, v_u, None
    df = (v_l + v_u) ** 2 / (v_l**2 / (k_l - 1) + (v_u**2 / (k_u - 1) if v_u else 0.0))
    return v_l + v_u, v_u, (float(df) if np.isfinite(df) else k_l - 1.0)


def _leave_one_out(d: _Data, lam: float | None) -> np.ndarray:
    """θ̂_(−d) − ȳ_L for every document d, λ re-tuned (clipped) when ``lam`` is None.

    p_d = (X_U, m_U, X_L, m_L, X_Y)_d, the totals centred at the full sample's means
    (X_U = F_U − f̄_U m_U, …). Without d the means move by δ_d = X_d / (N − m_d); the
    leave-one-out a_e, b_e are linear in p_e (coefficients α_d, β_d), so Σ_{e≠d} a_e b_e =
    α_dᵀ (G − p_d p_dᵀ) β_d with G = Σ_e p_e p_eᵀ: O(K) for all K replicates.
    """
    U, L = ~d.lab, d.lab
    m_u = np.bincount(d.codes[U], minlength=d.K).astype(np.float64)
    m_l = np.bincount(d.codes[L], minlength=d.K).astype(np.float64)
    P = np.column_stack([_sums(d, U, d.f[U] - d.f[U].mean()), m_u, _sums(d, L, d.f[L] -
                         d.f[L].mean()), m_l, _sums(d, L, d.y[L] - d.y[L].mean())])  # fmt: skip
    N_d, n_d = m_u.sum() - m_u, m_l.sum() - m_l
    if np.any(N_d <= 0) and lam != 0:
        raise DesignError("the jackknife interval cannot be computed: the unlabelled items "
                          "come from one document (method cr1 gives the CR1 interval)")  # fmt: skip
    N_d = np.where(N_d > 0, N_d, 1.0)
    d_u, d_l, d_y = P[:, 0] / N_d, P[:, 2] / n_d, P[:, 4] / n_d  # full mean − mean without d
    if lam is None:
        zero = np.zeros(d.K)
        alpha = np.column_stack([1 / N_d, d_u / N_d, -1 / n_d, -d_l / n_d, zero])
        beta = np.column_stack([zero, zero, zero, d_y / n_d, 1 / n_d])
        G = P.T @ P
        ap, bp = np.sum(alpha * P, axis=1), np.sum(beta * P, axis=1)
        s_aa = np.einsum("dk,kl,dl->d", alpha, G, alpha) - ap * ap
        s_ab = np.einsum("dk,kl,dl->d", alpha, G, beta) - ap * bp
        ok = s_aa > 0
        lams = np.where(ok, np.clip(-s_ab / np.where(ok, s_aa, 1.0), 0.0, 1.0), 0.0)
    else:
        lams = np.full(d.K, lam)
    gap = float(d.f[~d.lab].mean() - d.f[d.lab].mean())
    return lams * (gap - d_u + d_l) - d_y


def _jackknife(d: _Data, lam: float | None, v_cr: float, vu_cr: float) -> tuple[float, float]:
    """(V_JK, its judge-scored part): (K − 1)/K Σ_d (θ̂_(−d) − θ̄_(·))², split as CR1 is."""
    loo = _leave_one_out(d, lam)
    V = (d.K - 1) / d.K * float(np.sum((loo - loo.mean()) ** 2))
    return V, (V * vu_cr / v_cr if v_cr > 0 else 0.0)


def _fit(d: _Data, lam: Lam, design: str, dist: str, level: float, method: str) -> PPIMean:
    parts = _same_parts(d)
    a_u, a_l, b = parts
    auto = _auto_same(a_u + a_l, b) if design == "same_documents" else _auto_disjoint(d, a_l, b)
    lam_v, is_auto = _resolve_lam(lam, auto)
    U, L = ~d.lab, d.lab
    est = lam_v * float(d.f[U].mean()) + float(d.y[L].mean()) - lam_v * float(d.f[L].mean())
    V, v_u, df = _variance(d, design, dist, lam_v, parts)
    if method == "jackknife":
        V, v_u = _jackknife(d, None if is_auto else lam_v, V, v_u)
    se = math.sqrt(max(V, 0.0))
    q = _quantile(level, df)
    return PPIMean(
        estimate=est, se=se, lower=est - q * se, upper=est + q * se, df=df, lam=lam_v,
        lam_auto=is_auto, var_unlabelled=v_u, n_labelled=int(L.sum()), n_unlabelled=int(U.sum()),
        K=d.K, K_labelled=int(np.unique(d.codes[L]).size), design=design, dist=dist, level=level,
        method=method,
    )  # fmt: skip


def ppi_mean(
    f: np.ndarray,
    y: np.ndarray,
    cluster: np.ndarray,
    *,
    lam: Lam = "auto",
    design: str = "same_documents",
    level: float = 0.95,
    dist: str = "t",
    method: str = "auto",
) -> PPIMean:
    """The clustered PPI(++) interval for the mean of y (module docstring for the formulas).

    ``f``: the judge's score on every item; ``y``: the human label, NaN where unlabelled;
    ``cluster``: the document of each item; ``lam``: "auto" (PPI++), 0, 1 or a number;
    ``method``: "auto" (the jackknife for ``same_documents`` with the t interval, else CR1 —
    CR0 for the normal one), "jackknife" or "cr1".
    """
    m = _check(design, dist, level, method)
    return _fit(_prepare(f, y, cluster), lam, design, dist, level, m)


def _judge_only(d: _Data, dist: str, level: float) -> JudgeOnly:
    N = d.f.shape[0]
    est = float(d.f.mean())
    u = np.bincount(d.codes, weights=d.f - est, minlength=d.K) / N
    se = math.sqrt(_crf(d.K, dist) * float(np.sum(u * u)))
    df = d.K - 1.0 if dist == "t" else None
    q = _quantile(level, df)
    return JudgeOnly(est, se, est - q * se, est + q * se, df)


def labels_for_half_width(fit: PPIMean, half_width: float) -> int | None:
    """Labelled items for a target half-width h, scaling the labelled part's variance.

    V(n') = V_U + (V − V_U) · n / n' (more labels drawn as the present ones were, from
    proportionally more documents), at the present quantile q:
    n' = ⌈n (V − V_U) / ((h/q)² − V_U)⌉; None when (h/q)² ≤ V_U (the judge-scored part
    alone is wider: more unlabelled documents are needed, not labels).
    """
    if not (half_width > 0 and math.isfinite(half_width)):
        raise InputError(f"target half-width must be a positive number, got {half_width}")
    room = (half_width / fit.quantile) ** 2 - fit.var_unlabelled
    labelled_part = fit.se**2 - fit.var_unlabelled
    if room <= 0:
        return None
    return max(1, math.ceil(fit.n_labelled * max(labelled_part, 0.0) / room))


def ppi_analysis(
    f: np.ndarray,
    y: np.ndarray,
    cluster: np.ndarray,
    *,
    lam: Lam = "auto",
    design: str = "same_documents",
    level: float = 0.95,
    dist: str = "t",
    target_half_width: float | None = None,
    method: str = "auto",
) -> PPIAnalysis:
    """PPI beside the human-only interval (λ = 0, same design) and the judge-only mean.

    Effective labels: n · V_human-only / V_PPI — how many human labels, used alone, give
    the PPI interval's variance.
    """
    m = _check(design, dist, level, method)
    d = _prepare(f, y, cluster)
    fit = _fit(d, lam, design, dist, level, m)
    human = _fit(d, 0.0, design, dist, level, m)
    eff = fit.n_labelled * human.se**2 / fit.se**2 if fit.se > 0 else math.inf
    needed = None if target_half_width is None else labels_for_half_width(fit, target_half_width)
    return PPIAnalysis(fit, human, _judge_only(d, dist, level), eff, needed, target_half_width)
