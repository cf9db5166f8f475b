"""CR3: the leave-one-document-out (cluster jackknife) variance, with a t reference.

For the mean as the intercept of a regression clustered by document, with cluster totals
(n_d, s_d) — micro: queries and score sums; macro: n_d = 1 and s_d = r_d — the estimate
without document d and its distance from θ̂ are

    θ̂₋d = (S − s_d)/(N − n_d),   θ̂₋d − θ̂ = −u_d/(N − n_d),   u_d = s_d − θ̂ n_d.

Three variants of the variance (``variant``):

    "clubsandwich"  Σ_d (θ̂₋d − θ̂)² = Σ_d u_d² / (N − n_d)²   R clubSandwich vcovCR "CR3"
                    (adjustment (I − H_dd)⁻¹; Bell & McCaffrey 2002)
    "mnw"           (K−1)/K · Σ_d (θ̂₋d − θ̂)²                 MacKinnon, Nielsen & Webb's CV3
    "jackknife"     (K−1)/K · Σ_d (θ̂₋d − θ̄₋)², θ̄₋ the mean of the θ̂₋d   (CV3J, ≤ "mnw")

For the macro mean θ̂₋d − θ̂ = (θ̂ − r_d)/(K − 1), so θ̄₋ = θ̂, "mnw" = "jackknife" =
sd(r)²/K (the t on the rates) and "clubsandwich" is K/(K − 1) times that.

Degrees of freedom (``df_rule``): "cr3" (default) is the Satterthwaite df of the CR3
estimator under the working model Ω = I, as clubSandwich's ``coef_test(vcov = "CR3")``:
any estimator V = Σ_d a_d² u_d² / N² with u = Lᵀ(I − H) y has

    ν = (Σ_d a_d² G_dd)² / Σ_{d,e} a_d² a_e² G_de²,   G_de = δ_de n_d − n_d n_e / N,

with a_d² = (N/(N − n_d))^p: p = 1 is CR2 (Bell–McCaffrey's ν, `df_bell_mccaffrey`),
p = 2 is CR3. ν is scale-free, so it is the same for all three variants. "cr2" takes
Bell–McCaffrey's CR2 df instead. The interval is θ̂ ± t_{1−α/2}(ν) · se · √(1 − K/M).
"""

from __future__ import annotations

import numpy as np
from scipy import stats as sps

from ragstat.inference.methods import Sample, census_interval, in_range
from ragstat.inference.results import Interval
from ragstat.inference.variance import df_bell_mccaffrey

__all__ = ["VARIANTS", "cr3_bm", "cr3_se", "df_satterthwaite", "leave_one_out", "regression_totals"]

VARIANTS = ("clubsandwich", "mnw", "jackknife")


def _others(x: np.ndarray) -> np.ndarray:
    """Σ_{e≠d} x_e for every d, from prefix and suffix sums (no cancellation for x ≥ 0)."""
    before = np.concatenate([[0.0], np.cumsum(x)[:-1]])
    after = np.concatenate([np.cumsum(x[::-1])[::-1][1:], [0.0]])
    return before + after


def regression_totals(x: Sample, estimand: str) -> tuple[np.ndarray, np.ndarray]:
    """(n, s) of the intercept regression: micro the documents' totals, macro (1, r_d)."""
    if estimand == "micro":
        return x.n, x.s
    return np.ones_like(x.n), x.s / x.n


def leave_one_out(n: np.ndarray, s: np.ndarray) -> np.ndarray:
    """θ̂₋d = (S − s_d)/(N − n_d) for every document d."""
    return _others(s) / _others(n)


def cr3_se(n: np.ndarray, s: np.ndarray, variant: str = "clubsandwich") -> float:
    """The CR3 standard error of the mean (module docstring, ``variant``)."""
    if variant not in VARIANTS:
        raise ValueError(f"unknown CR3 variant {variant!r}; choose from {', '.join(VARIANTS)}")
    K = n.shape[0]
    theta = float(s.sum() / n.sum())
    u = s - theta * n
    step = u / _others(n)  # −(θ̂₋d − θ̂)
    if variant == "clubsandwich":
        return float(np.sqrt(np.sum(step * step)))
    if variant == "mnw":
        return float(np.sqrt((K - 1) / K * np.sum(step * step)))
    loo = leave_one_out(n, s)
    return float(np.sqrt((K - 1) / K * np.sum((loo - loo.mean()) ** 2)))


def df_satterthwaite(n: np.ndarray, power: int = 2) -> float:
    """ν of V = Σ a_d² u_d²/N² under Ω = I, a_d² = (N/(N − n_d))^power (module docstring).

    O(K): Σ_{d,e} a_d² a_e² G_de² = Σ_d a_d⁴ G_dd² + Σ_{d≠e} w_d w_e, w_d = a_d² n_d² / N.
    """
    n = np.asarray(n, dtype=np.float64)
    N = float(n.sum())
    rest = _others(n)  # N − n_d
    a2 = (N / rest) ** power
    g_dd = n * rest / N
    w = a2 * n * n / N
    tr = float(np.sum(a2 * g_dd))
    tr2 = float(np.sum((a2 * g_dd) ** 2) + np.sum(w * _others(w)))
    if not (tr2 > 0 and np.isfinite(tr2)):
        return float("nan")
    return tr * tr / tr2


def _t(name: str, estimand: str, theta: float, se: float, df: float, x: Sample) -> Interval:
    if x.census():
        return census_interval(name, estimand, theta, x, "t")
    if se <= x.tol():
        why = "zero standard error: every document has the same rate"
        return Interval.unavailable(name, estimand, theta, x.level, "t", why)
    if not np.isfinite(df) or df <= 0:
        why = "degrees of freedom undefined"
        return Interval.unavailable(name, estimand, theta, x.level, "t", why)
    se = se * float(np.sqrt(x.fpc))
    half = float(sps.t.ppf(1 - x.alpha / 2, df)) * se
    iv = Interval(
        name, estimand, theta, theta - half, theta + half, x.level, "t",
        se=se, df=float(df), fpc=x.fpc if x.fpc < 1 else None,
    )  # fmt: skip
    return in_range(x, iv)


def cr3_bm(
    x: Sample, estimand: str = "micro", variant: str = "clubsandwich", df_rule: str = "cr3"
) -> Interval:
    """CR3 interval ("cr3_bm"): the jackknife SE with a Satterthwaite/Bell–McCaffrey t."""
    n, s = regression_totals(x, estimand)
    if df_rule not in ("cr3", "cr2"):
        raise ValueError(f"unknown df rule {df_rule!r}; choose cr3 or cr2")
    df = df_satterthwaite(n, 2) if df_rule == "cr3" else df_bell_mccaffrey(n)
    return _t("cr3_bm", estimand, x.estimate(estimand), cr3_se(n, s, variant), df, x)
