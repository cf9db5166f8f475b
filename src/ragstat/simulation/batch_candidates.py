"""The small-K candidates for R samples at once, and the batch simulator's input checks.

Each candidate has its own batch module (CR3 `batch_cr3`, WCR `batch_wild`, BCa
`batch_bca`, the beta-binomial posterior `batch_bayes`, the double-bootstrap calibration
`batch_calibrated`), equal sample by sample to its `ragstat.inference` function. The random
ones draw from children spawned from the simulator's generator, one per candidate in
`SMALL_K_METHODS` order, so adding or dropping one changes no other method's numbers (spawning
consumes no draws of the parent).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from ragstat.errors import InputError
from ragstat.inference.estimators import ESTIMANDS
from ragstat.inference.names import METHODS, SMALL_K_METHODS
from ragstat.simulation.batch_bayes import beta_binomial_batch
from ragstat.simulation.batch_bca import bca_batch_bounds
from ragstat.simulation.batch_boot import Bounds
from ragstat.simulation.batch_calibrated import calibrated_batch_bounds
from ragstat.simulation.batch_cr3 import cr3_batch_bounds
from ragstat.simulation.batch_wild import wcr_batch_bounds

__all__ = ["NOT_BINARY_MODEL", "candidate_bounds", "check_inputs"]

#: Why the beta-binomial interval is unavailable for scores that are not 0/1.
NOT_BINARY_MODEL = "the beta-binomial model is for 0/1 scores"


def check_inputs(
    n: np.ndarray,
    s: np.ndarray,
    w: np.ndarray,
    level: float,
    fpc: float,
    methods: Iterable[str],
    estimands: Sequence[str],
    reps: object,
) -> None:
    """One-line errors for arrays, level, fpc, replicates and names a batch cannot take."""
    if n.ndim != 2 or n.shape != s.shape or n.shape != w.shape:
        raise InputError(
            f"n, s, w must share one shape (R, K), got {n.shape}, {s.shape}, {w.shape}"
        )
    if n.shape[0] < 1 or n.shape[1] < 2:
        raise InputError(f"need R ≥ 1 samples of K ≥ 2 documents, got shape {n.shape}")
    if not (np.isfinite(n).all() and np.isfinite(s).all() and np.isfinite(w).all()):
        raise InputError("n, s and w must be finite")
    if np.any(n <= 0):
        raise InputError("every document needs n_d > 0")
    if not 0 < level < 1:
        raise InputError(f"level must be between 0 and 1, got {level}")
    if not 0 <= fpc <= 1:
        raise InputError(f"fpc (1 − K/M) must lie in [0, 1], got {fpc}")
    if isinstance(reps, bool) or not isinstance(reps, (int, np.integer)) or reps < 1:
        raise InputError(f"bootstrap replicates must be a positive whole number, got {reps!r}")
    bad = sorted((set(methods) - set(METHODS)) | (set(estimands) - set(ESTIMANDS)))
    if bad:
        raise InputError(f"unknown method(s)/estimand(s) {bad}")


def candidate_bounds(
    method: str,
    n: np.ndarray,
    s: np.ndarray,
    estimand: str,
    *,
    binary: bool,
    level: float,
    fpc: float,
    tol: np.ndarray,
    reps: int,
    children: Sequence[np.random.Generator],
    shared: dict[str, dict[str, Bounds]] | None = None,
    estimands: Sequence[str] = ESTIMANDS,
) -> tuple[Bounds, str | None]:
    """One candidate's bounds for the rows of (n, s), and why it is unavailable on all rows.

    ``shared`` keeps what one call computes for every estimand (the beta-binomial posterior
    grid serves micro and macro): pass the same dict for every estimand of a batch."""
    rng = children[SMALL_K_METHODS.index(method)]
    if method == "cr3_bm":
        return cr3_batch_bounds(n, s, estimand, level=level, fpc=fpc, tol=tol), None
    if method == "wcr":
        got = wcr_batch_bounds(n, s, estimand, level=level, fpc=fpc, rng=rng, tol=tol, reps=reps)
        return got, None
    if method == "doc_bootstrap_bca":
        got = bca_batch_bounds(n, s, estimand, level=level, fpc=fpc, rng=rng, tol=tol, reps=reps)
        return got, None
    if method == "beta_binomial":
        shared = {} if shared is None else shared
        if method not in shared:
            shared[method] = beta_binomial_batch(
                n, s, tuple(dict.fromkeys((*estimands, estimand))), level=level, fpc=fpc,
                rng=rng, draws=reps, binary=binary,
            )  # fmt: skip
        return shared[method][estimand], None if binary else NOT_BINARY_MODEL
    return calibrated_batch_bounds(n, s, estimand, level=level, fpc=fpc, rng=rng, tol=tol), None
