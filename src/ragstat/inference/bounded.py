"""Intervals for a mean in [0, 1] that stay inside [0, 1] (R `survey::svyciprop`).

θ̂ is the estimate, se its design-based standard error (linearised, FPC
included) and ν = degf(design) its degrees of freedom, t_p(ν) the p-quantile of
Student's t and B_p(a, b) that of the Beta(a, b) distribution. With α = 1 − level:

    logit (svyciprop method "logit")
        expit( logit θ̂ ± t_{1−α/2}(ν) · se / (θ̂ (1 − θ̂)) )
    survey fits ``svyglm(y ~ 1, family = quasibinomial)``; for an intercept-only
    model the sandwich SE of the logit is exactly the delta-method se/(θ̂(1 − θ̂)),
    and svyciprop takes t quantiles with df = degf(design).

    korn_graubard (svyciprop method "beta"; Korn & Graubard 1998)
        n_eff = θ̂ (1 − θ̂) / se² · ( t_{α/2}(n − 1) / t_{α/2}(ν) )²
        lower = B_{α/2}(n_eff θ̂, n_eff (1 − θ̂) + 1)
        upper = B_{1−α/2}(n_eff θ̂ + 1, n_eff (1 − θ̂))
    i.e. Clopper–Pearson with n_eff trials and n_eff θ̂ successes; n is the
    number of observations, nrow(design) (queries for micro, documents for macro).

At θ̂ ∈ {0, 1} the SE is 0 and survey returns NaN. ragstat's rule (see
`clopper_pearson_at_bound`) takes the design effect as 1, n_eff = n with the
same df factor, which is Korn & Graubard's own convention for p̂ = 0 (and the
NCHS data presentation standard, Parker et al. 2017).
"""

from __future__ import annotations

from scipy import special
from scipy import stats as sps

__all__ = [
    "clopper_pearson_at_bound",
    "df_factor",
    "korn_graubard_bounds",
    "logit_bounds",
]


def df_factor(n: float, df: float, level: float) -> float:
    """Korn–Graubard df adjustment (t_{α/2}(n − 1) / t_{α/2}(ν))², as survey's ``rat``."""
    alpha = 1.0 - level
    return float((sps.t.ppf(alpha / 2, n - 1) / sps.t.ppf(alpha / 2, df)) ** 2)


def logit_bounds(theta: float, se: float, df: float, level: float) -> tuple[float, float]:
    """expit(logit θ̂ ± t_{1−α/2}(ν) · se/(θ̂(1 − θ̂))) for 0 < θ̂ < 1, se > 0."""
    se_logit = se / (theta * (1.0 - theta))
    half = sps.t.ppf(0.5 + level / 2, df) * se_logit
    ell = special.logit(theta)
    return float(special.expit(ell - half)), float(special.expit(ell + half))


def _clopper_pearson(x: float, n_eff: float, level: float) -> tuple[float, float]:
    """B_{α/2}(x, n_eff − x + 1), B_{1−α/2}(x + 1, n_eff − x); 0 and 1 where a shape is 0."""
    alpha = 1.0 - level
    lower = 0.0 if x <= 0 else sps.beta.ppf(alpha / 2, x, n_eff - x + 1)
    upper = 1.0 if x >= n_eff else sps.beta.ppf(1 - alpha / 2, x + 1, n_eff - x)
    return float(lower), float(upper)


def korn_graubard_bounds(
    theta: float, se: float, n: float, df: float, level: float
) -> tuple[float, float]:
    """Clopper–Pearson on n_eff = θ̂(1 − θ̂)/se² · (t_{α/2}(n − 1)/t_{α/2}(ν))², 0 < θ̂ < 1."""
    n_eff = theta * (1.0 - theta) / se**2 * df_factor(n, df, level)
    return _clopper_pearson(n_eff * theta, n_eff, level)


def clopper_pearson_at_bound(
    theta: float, n: float, df: float, level: float
) -> tuple[float, float]:
    """ragstat's rule at θ̂ ∈ {0, 1}: Clopper–Pearson with n_eff = n · (t_{α/2}(n − 1)/t_{α/2}(ν))².

    The sample carries no information on the design effect when every score is
    0 (or 1), so it is taken as 1 (Korn & Graubard 1998); the df factor still
    widens the interval for few documents. At θ̂ = 0: [0, 1 − (α/2)^(1/n_eff)];
    at θ̂ = 1 the mirror image. n is the number of observations (queries for
    micro, documents for macro, where the factor is 1). The FPC is not applied:
    the rule is conservative without it.
    """
    n_eff = n * df_factor(n, df, level) if n > 1 else float(n)
    return _clopper_pearson(theta * n_eff, n_eff, level)
