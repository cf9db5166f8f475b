"""A Bayesian interval from a hierarchical beta-binomial model of document rates (0/1 scores).

Model: document d has a latent rate p_d ~ Beta(μφ, (1 − μ)φ) and s_d ~ Binomial(n_d, p_d)
correct answers among its n_d queries; μ is the mean document rate of the population of
documents and ρ = 1/(1 + φ) the intra-document correlation.

Prior (weakly informative, proper): μ ~ Uniform(0, 1) and ρ ~ Uniform(0, 1), independent.
On the grid's scale, η = logit μ and λ = log φ, that is the density μ(1 − μ) · φ/(1 + φ)²
(λ then has a standard logistic distribution).

Posterior: on a grid over (η, λ), with the exact beta-binomial likelihood
Π_d B(s_d + μφ, n_d − s_d + (1 − μ)φ) / B(μφ, (1 − μ)φ) (documents sharing (n, s) are
counted once with their multiplicity). A coarse pass (61 × 61 cells over η ∈ [−20, 20],
λ ∈ [−8, 12]) finds the cells holding posterior mass above 1e-12 of the largest; a finer
pass (``size`` × ``size`` cells) covers that box widened by one cell, and a second
refinement repeats this on the finer grid. Draws pick a
cell by its posterior probability and a point uniformly within it, so they are
deterministic given the generator. With ``phi`` fixed the grid is over η alone.

Estimands, by posterior simulation (``population``):

    "model"      the mean of the population distribution of document rates, μ. Under the
                 model the rates do not depend on document size, so the population's
                 micro mean E[n p]/E[n] is μ as well.
    "documents"  the population represented by the sampled documents (Rubin's Bayesian
                 bootstrap): weights g ~ Dirichlet(1, …, 1) over the K documents and their
                 latent rates p_d | μ, φ, data ~ Beta(μφ + s_d, (1 − μ)φ + n_d − s_d);
                 macro Σ g_d p_d, micro Σ g_d n_d p_d / Σ g_d n_d. It keeps the sample's
                 relation between size and rate, which the model does not have.

The default is "model" for macro and "documents" for micro. The interval is the
equal-tailed posterior interval (α/2 and 1 − α/2 quantiles of the draws); ``estimate``
stays the classical point estimate and ``se`` is the posterior standard deviation. A
finite population correction shrinks both limits toward the estimate by √(1 − K/M), as
the bootstrap intervals do (an approximation: the model itself has no finite population).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import expit

from ragstat.inference.methods import Sample, census_interval, in_range
from ragstat.inference.results import Interval

__all__ = [
    "BetaBinomialPosterior",
    "beta_binomial",
    "log_prior",
    "posterior_draws",
    "posterior_grid",
    "rate_draws",
]

_NAME = "beta_binomial"
_REF = "posterior"
_COARSE = 61
_ETA = (-20.0, 20.0)
_LAM = (-8.0, 12.0)
_BLOCK = 262_144  # draws × documents per block


def log_prior(eta: np.ndarray, lam: np.ndarray) -> np.ndarray:
    """log density of (logit μ, log φ): μ ~ U(0, 1), ρ = 1/(1 + φ) ~ U(0, 1)."""
    return -np.logaddexp(0, eta) - np.logaddexp(0, -eta) + lam - 2 * np.logaddexp(0, lam)


def _log_rising(x: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Σ_d (log Γ(x + v_d) − log Γ(x)) = Σ_j C_j log(x + j), C_j = #{d: v_d > j}; the factors
    of a run of equal C_j (at most 32, far from overflow) are multiplied before one log."""
    J = int(values.max()) if values.size else 0
    if J == 0:  # every count 0: no factor
        return np.zeros_like(x)
    C = (values[:, None] > np.arange(J)[None, :]).sum(axis=0)
    starts = sorted({0, *(np.flatnonzero(np.diff(C)) + 1).tolist(), *range(0, J, 32)} - {J})
    acc = np.zeros_like(x)
    for j0, j1 in zip(starts, [*starts[1:], J], strict=True):
        P = x + float(j0)
        for j in range(j0 + 1, j1):
            P *= x + float(j)
        acc += C[j0] * np.log(P)
    return acc


def _loglik(eta: np.ndarray, lam: np.ndarray, n: np.ndarray, s: np.ndarray) -> np.ndarray:
    """Σ_d log BetaBinomial(s_d | n_d, μφ, (1 − μ)φ) up to a constant, on a grid of cells:
    log B(s + a, n − s + b) − log B(a, b) = A(s; a) + A(n − s; b) − A(n; φ) with
    A(k; x) = log Γ(x + k) − log Γ(x) (integer counts; equal to the betaln form to rounding)."""
    mu, phi = expit(eta), np.exp(lam)
    a, b = mu * phi, (1 - mu) * phi
    return _log_rising(a, s) + _log_rising(b, n - s) - _log_rising(phi, n)


@dataclass(frozen=True, eq=False)
class BetaBinomialPosterior:
    """Grid cells (centres), their posterior probabilities and the cell widths."""

    eta: np.ndarray
    lam: np.ndarray
    prob: np.ndarray
    d_eta: float
    d_lam: float

    def mu_cdf(self, value: float) -> float:
        """P(μ ≤ value | data), cells split uniformly in η."""
        cut = float(np.log(value / (1 - value)))
        lo = self.eta - self.d_eta / 2
        share = np.clip((cut - lo) / self.d_eta, 0.0, 1.0)
        return float(np.sum(self.prob * share))


def _cells(
    eta_r: tuple[float, float], lam_r: tuple[float, float], size: int, phi: float | None
) -> tuple[np.ndarray, np.ndarray, float, float]:
    eta = np.linspace(eta_r[0], eta_r[1], size)
    lam = np.array([np.log(phi)]) if phi is not None else np.linspace(lam_r[0], lam_r[1], size)
    E, L = np.meshgrid(eta, lam, indexing="ij")
    d_lam = 0.0 if phi is not None else float(lam[1] - lam[0])
    return E.ravel(), L.ravel(), float(eta[1] - eta[0]), d_lam


def _weights(E: np.ndarray, L: np.ndarray, n: np.ndarray, s: np.ndarray) -> np.ndarray:
    logp = log_prior(E, L) + _loglik(E, L, n, s)
    w = np.exp(logp - logp.max())
    return w / w.sum()


def posterior_grid(
    n: np.ndarray, s: np.ndarray, *, size: int = 121, phi: float | None = None
) -> BetaBinomialPosterior:
    """The grid posterior of (logit μ, log φ) (module docstring); ``phi`` fixes φ."""
    E, L, de, dl = _cells(_ETA, _LAM, _COARSE, phi)
    w = _weights(E, L, n, s)
    for _ in range(2):  # refine twice: a concentrated posterior gets a fine enough grid
        keep = w > 1e-12 * w.max()
        eta_r = (float(E[keep].min()) - de, float(E[keep].max()) + de)
        lam_r = (float(L[keep].min()) - dl, float(L[keep].max()) + dl)
        E, L, de, dl = _cells(eta_r, lam_r, size, phi)
        w = _weights(E, L, n, s)
    return BetaBinomialPosterior(E, L, w, de, dl)


def posterior_draws(
    post: BetaBinomialPosterior, draws: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """(μ, φ) draws: a cell by its probability, then a uniform point within it."""
    cell = rng.choice(post.prob.shape[0], size=draws, p=post.prob)
    eta = post.eta[cell] + post.d_eta * (rng.random(draws) - 0.5)
    lam = post.lam[cell] + post.d_lam * (rng.random(draws) - 0.5)
    return expit(eta), np.exp(lam)


def rate_draws(
    mu: np.ndarray,
    phi: np.ndarray,
    n: np.ndarray,
    s: np.ndarray,
    estimand: str,
    rng: np.random.Generator,
) -> np.ndarray:
    """Bayesian-bootstrap draws of the sampled documents' population ("documents")."""
    D, K = mu.shape[0], n.shape[0]
    out = np.empty(D)
    step = max(1, _BLOCK // max(K, 1))
    for start in range(0, D, step):
        sl = slice(start, min(D, start + step))
        a, b = (mu[sl] * phi[sl])[:, None], ((1 - mu[sl]) * phi[sl])[:, None]
        p = rng.beta(a + s[None, :], b + (n - s)[None, :])
        g = rng.standard_exponential((p.shape[0], K))  # Dirichlet(1, …, 1) after normalising
        if estimand == "micro":
            g = g * n[None, :]
        out[sl] = np.einsum("ij,ij->i", g, p) / g.sum(axis=1)
    return out


def _unavailable(x: Sample, estimand: str, theta: float) -> Interval | None:
    if not x.binary:
        why = "the beta-binomial model needs 0/1 scores"
        return Interval.unavailable(_NAME, estimand, theta, x.level, _REF, why)
    if x.census():
        return census_interval(_NAME, estimand, theta, x, _REF)
    return None


def beta_binomial(
    x: Sample,
    estimand: str,
    rng: np.random.Generator,
    population: str | None = None,
    draws: int | None = None,
) -> Interval:
    """Posterior interval ("beta_binomial") by simulation: ``draws`` (default ``x.reps``)."""
    theta = x.estimate(estimand)
    early = _unavailable(x, estimand, theta)
    if early is not None:
        return early
    population = population or ("model" if estimand == "macro" else "documents")
    if population not in ("model", "documents"):
        raise ValueError(f"unknown population {population!r}; choose model or documents")
    n, s = np.round(x.n), np.round(x.s)
    D = draws or x.reps
    mu, phi = posterior_draws(posterior_grid(n, s), D, rng)
    values = mu if population == "model" else rate_draws(mu, phi, n, s, estimand, rng)
    lo, hi = np.quantile(values, [x.alpha / 2, 1 - x.alpha / 2])
    f = float(np.sqrt(x.fpc))
    iv = Interval(
        _NAME, estimand, theta, theta + f * (float(lo) - theta), theta + f * (float(hi) - theta),
        x.level, f"{_REF} ({population})", se=float(np.std(values, ddof=1)) * f,
        fpc=x.fpc if x.fpc < 1 else None, replicates=D, discarded=0,
    )  # fmt: skip
    return in_range(x, iv)
