"""Two independent groups of units (an A/B test): the difference of two clustered means.

The regression ``y ~ arm`` with clusters (units) nested in arms has OLS coefficient
β = ȳ_A − ȳ_B (the arms' pooled per-row means) and a hat matrix that is block-diagonal by
arm with H_cc = J/N_g on unit c of arm g. CR2's adjustment (I − H_cc)^(−1/2) acts on a
residual total as 1/√(1 − h_c), h_c = n_c/N_g, so (Bell & McCaffrey 2002)

    V_CR2 = V_A + V_B,   V_g = Σ_{c∈g} u_c² / (1 − h_c) / N_g²,   u_c = s_c − ȳ_g n_c

(each V_g is the one-sample CR2 of the arm mean). Satterthwaite df under the working
model Ω = I (clubSandwich's default for ``lm``): E V = 1/N_A + 1/N_B and the cross-arm
terms vanish, so with ν_g the one-arm Bell–McCaffrey df
(:func:`ragstat.inference.variance.df_bell_mccaffrey`)

    ν = (1/N_A + 1/N_B)² / (1/(N_A² ν_A) + 1/(N_B² ν_B))

a Welch–Satterthwaite combination. Checked against clubSandwich's
``coef_test(lm(y ~ arm), vcov = "CR2", cluster = unit, test = "Satterthwaite")``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import stats as sps

from ragstat.errors import InputError
from ragstat.inference.variance import df_bell_mccaffrey, se_cr2
from ragstat.inference.verdict import two_sample_sentence
from ragstat.tidy import Tidy, plain

__all__ = ["TwoSampleResult", "two_sample"]


@dataclass(frozen=True, repr=False)
class TwoSampleResult(Tidy):
    """A − B for two independent arms of clustered units: CR2 SE, Satterthwaite df."""

    arms: tuple[str, str]
    units: tuple[int, int]
    rows_per_arm: tuple[float, float]
    means: tuple[float, float]
    estimate: float
    se: float
    df: float
    level: float
    lower: float
    upper: float
    t: float
    p: float
    se_arms: tuple[float, float]
    df_arms: tuple[float, float]
    score: str | None = None
    bounds: tuple[float, float] | None = None

    headline_columns = ("estimate", "lower", "upper", "se", "df", "p")

    def to_dict(self) -> dict[str, Any]:
        return {
            "design": "two-sample",
            "method": "cr2_satterthwaite",
            "arms": list(self.arms),
            "units": list(self.units),
            "rows": list(self.rows_per_arm),
            "means": list(self.means),
            "estimate": self.estimate,
            "se": self.se,
            "df": self.df,
            "level": self.level,
            "lower": self.lower,
            "upper": self.upper,
            "t": self.t,
            "p": self.p,
            "se_arms": list(self.se_arms),
            "df_arms": list(self.df_arms),
            "score": self.score,
            "bounds": None if self.bounds is None else list(self.bounds),
        }

    def rows(self) -> list[dict[str, Any]]:
        d = self.to_dict()
        keys = ("estimate", "lower", "upper", "se", "df", "t", "p", "level")
        return [{"contrast": f"{self.arms[0]} − {self.arms[1]}"} | {k: plain(d[k]) for k in keys}]

    def sentences(self) -> list[str]:
        """The plain verdict (who beats whom, by how much, is it real) the ``repr`` opens with."""
        return [two_sample_sentence(self.to_dict(), self.score)]

    def title(self) -> str:
        a, b = self.arms
        return f"two-sample {a} − {b} ({self.units[0]} vs {self.units[1]} units, CR2)"


def _arm(n: np.ndarray, s: np.ndarray, name: str) -> tuple[float, float, float, float]:
    """(mean, N, CR2 SE, Bell–McCaffrey df) of one arm from per-unit counts and sums."""
    n = np.asarray(n, dtype=np.float64)
    s = np.asarray(s, dtype=np.float64)
    if n.size < 2:
        raise InputError(f"arm {name!r} has {n.size} unit(s): CR2 needs at least two per arm")
    if np.any(n <= 0):
        raise InputError(f"arm {name!r}: every unit needs at least one row")
    N = float(n.sum())
    mean = float(s.sum() / N)
    return mean, N, se_cr2(s - mean * n, n), df_bell_mccaffrey(n)


def two_sample(
    n_a: np.ndarray,
    s_a: np.ndarray,
    n_b: np.ndarray,
    s_b: np.ndarray,
    *,
    level: float = 0.95,
    arms: tuple[str, str] = ("A", "B"),
    score: str | None = None,
    bounds: tuple[float, float] | None = None,
) -> TwoSampleResult:
    """A − B from per-unit row counts ``n`` and score sums ``s`` of each arm.

    ``score`` names the score in the verdict; ``bounds`` is the difference's known range
    ([−1, 1] for two rates: the verdict is then in points)."""
    if not 0 < level < 1:
        raise InputError(f"level must be between 0 and 1, got {level}")
    mean_a, N_a, se_a, nu_a = _arm(n_a, s_a, arms[0])
    mean_b, N_b, se_b, nu_b = _arm(n_b, s_b, arms[1])
    se = float(np.hypot(se_a, se_b))
    df = float((1 / N_a + 1 / N_b) ** 2 / (1 / (N_a**2 * nu_a) + 1 / (N_b**2 * nu_b)))
    est = mean_a - mean_b
    t = est / se if se > 0 else float("nan")
    half = float(sps.t.ppf(0.5 + level / 2, df)) * se
    p = float(2 * sps.t.sf(abs(t), df)) if se > 0 else float("nan")
    return TwoSampleResult(
        arms, (int(np.size(n_a)), int(np.size(n_b))), (N_a, N_b), (mean_a, mean_b), est, se, df,
        level, est - half, est + half, t, p, (se_a, se_b), (nu_a, nu_b), score, bounds,
    )  # fmt: skip
