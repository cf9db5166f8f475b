"""Agreement between a judge and human labels: kernels on confusion tables.

Every statistic here is a function of the confusion table ``C`` (judge × human counts
over the labelled items, categories ``0 … q−1`` in the order of the scale), and ``C`` is
a sum over documents of the per-document tables ``C_k``. A document-cluster bootstrap
replicate is therefore ``C_b = Σ_k w_bk C_k`` with multinomial document weights
``w_b ~ Multinomial(K, 1/K, …, 1/K)`` (resampling the K documents with replacement), and
B replicates are one matrix product ``W (B × K) · C_flat (K × q²)``. Every kernel takes
tables of shape ``(..., q, q)`` and returns one value per leading index, so the point
estimate (``W`` = all ones) and the replicates run through the same code.

Statistics (``N = Σ C``, ``p_ij = C_ij / N``, row sums ``p_i·`` = judge, column sums
``p_·j`` = human):

* accuracy ``p_o = Σ_i p_ii``;
* Cohen's κ (Cohen 1960) ``κ = (p_o − p_e) / (1 − p_e)``, ``p_e = Σ_i p_i· p_·i``;
  weighted κ (Cohen 1968) ``κ_w = 1 − Σ w_ij p_ij / Σ w_ij p_i· p_·j`` with disagreement
  weights ``w_ij = |i − j|`` (linear) or ``(i − j)²`` (quadratic) on the category ranks —
  the definition of scikit-learn's ``cohen_kappa_score`` (unweighted: ``w_ij = [i ≠ j]``);
* Krippendorff's α (Krippendorff 2011, "Computing Krippendorff's alpha-reliability")
  for two coders: every item is a unit with two pairable values, so the coincidence
  matrix is ``o = C + Cᵀ``, ``n_c = Σ_k o_ck``, ``n = Σ_c n_c`` and
  ``α = 1 − (n − 1) Σ o_ck δ²_ck / Σ n_c n_k δ²_ck`` with ``δ²`` nominal ``[c ≠ k]``,
  interval ``(v_c − v_k)²`` or ordinal ``(Σ_{g=c}^{k} n_g − (n_c + n_k)/2)²`` — the
  definitions of the ``krippendorff`` package;
* Gwet's AC1 (Gwet 2008, "Computing inter-rater reliability and its variance in the
  presence of high agreement") ``AC1 = (p_o − p_e) / (1 − p_e)``,
  ``p_e = 1/(q − 1) Σ_c π_c (1 − π_c)``, ``π_c = (p_c· + p_·c) / 2``;
* the judge's precision ``C_pp / Σ_j C_pj`` and recall ``C_pp / Σ_i C_ip`` for the
  positive category ``p`` (the human label is the truth).

An undefined value (a zero denominator) is NaN, never a reassuring 0 or 1.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping

import numpy as np

__all__ = [
    "BLOCK_ELEMENTS",
    "KAPPA_WEIGHTS",
    "SCALES",
    "Kernel",
    "accuracy",
    "bootstrap_intervals",
    "bootstrap_tables",
    "check_size",
    "cohen_kappa",
    "confusion_tables",
    "gwet_ac1",
    "krippendorff_alpha",
    "percentile_interval",
    "precision",
    "recall",
    "statistic_kernels",
]

#: Levels of measurement of Krippendorff's α (and of the labels' scale).
SCALES = ("nominal", "ordinal", "interval")
#: Cohen's κ weightings: unweighted (None), linear and quadratic disagreement weights.
KAPPA_WEIGHTS = (None, "linear", "quadratic")
#: Replicate × document weights drawn per block: bounded memory whatever B and K.
BLOCK_ELEMENTS = 262_144


def confusion_tables(
    judge: np.ndarray, human: np.ndarray, doc: np.ndarray, q: int, K: int
) -> np.ndarray:
    """Per-document confusion tables ``C_k[i, j]`` = items of document ``k`` the judge put in
    category ``i`` and the humans in ``j`` (shape ``(K, q, q)``, float counts).

    ``judge``, ``human``: category codes ``0 … q−1``; ``doc``: document codes ``0 … K−1``.
    """
    flat = (np.asarray(doc, np.int64) * q + np.asarray(judge, np.int64)) * q + np.asarray(
        human, np.int64
    )
    return np.bincount(flat, minlength=K * q * q).astype(np.float64).reshape(K, q, q)


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """``num / den`` elementwise, NaN where ``den == 0``."""
    num, den = np.asarray(num, np.float64), np.asarray(den, np.float64)
    out = np.full(np.broadcast(num, den).shape, np.nan)
    np.divide(num, den, out=out, where=den != 0)
    return out


def accuracy(C: np.ndarray) -> np.ndarray:
    """Share of items on which judge and humans agree: ``Σ_i C_ii / Σ C``."""
    return _ratio(np.trace(C, axis1=-2, axis2=-1), C.sum(axis=(-2, -1)))


def _rank_weights(q: int, weights: str | None) -> np.ndarray:
    """Disagreement weights ``w_ij`` on category ranks (Cohen 1968)."""
    i, j = np.indices((q, q))
    if weights is None:
        return (i != j).astype(np.float64)
    if weights == "linear":
        return np.abs(i - j).astype(np.float64)
    if weights == "quadratic":
        return ((i - j) ** 2).astype(np.float64)
    raise ValueError(f"weights must be one of {KAPPA_WEIGHTS}, got {weights!r}")


def cohen_kappa(C: np.ndarray, weights: str | None = None) -> np.ndarray:
    """Cohen's κ (``weights=None``, Cohen 1960) or weighted κ (``"linear"``/``"quadratic"``,
    Cohen 1968): ``κ_w = 1 − Σ w_ij C_ij / Σ w_ij E_ij``, ``E_ij = C_i· C_·j / N``."""
    q = C.shape[-1]
    w = _rank_weights(q, weights)
    N = C.sum(axis=(-2, -1))
    expected = C.sum(axis=-1)[..., :, None] * C.sum(axis=-2)[..., None, :]
    observed = (w * C).sum(axis=(-2, -1))
    chance = _ratio((w * expected).sum(axis=(-2, -1)), N)
    return 1.0 - _ratio(observed, chance)


def _ordinal_delta(n_c: np.ndarray) -> np.ndarray:
    """Ordinal ``δ²_ck = (Σ_{g=min}^{max} n_g − (n_c + n_k)/2)²`` from the marginals
    ``n_c`` of shape ``(..., q)`` (Krippendorff 2011; zero on the diagonal)."""
    cum = np.concatenate([np.zeros_like(n_c[..., :1]), np.cumsum(n_c, axis=-1)], axis=-1)
    q = n_c.shape[-1]
    lo, hi = np.minimum(*np.indices((q, q))), np.maximum(*np.indices((q, q)))
    between = cum[..., hi + 1] - cum[..., lo]
    return (between - (n_c[..., :, None] + n_c[..., None, :]) / 2.0) ** 2


def _delta(n_c: np.ndarray, scale: str, values: np.ndarray | None) -> np.ndarray:
    q = n_c.shape[-1]
    if scale == "nominal":
        return 1.0 - np.eye(q)
    if scale == "ordinal":
        return _ordinal_delta(n_c)
    if scale == "interval":
        if values is None:
            raise ValueError("the interval scale needs the categories' numeric values")
        v = np.asarray(values, np.float64)
        return (v[:, None] - v[None, :]) ** 2
    raise ValueError(f"scale must be one of {SCALES}, got {scale!r}")


def krippendorff_alpha(
    C: np.ndarray, scale: str = "nominal", values: np.ndarray | None = None
) -> np.ndarray:
    """Krippendorff's α for two coders from confusion tables ``C`` (``(..., q, q)``):
    coincidences ``o = C + Cᵀ``, ``α = 1 − (n − 1) Σ o δ² / Σ n_c n_k δ²``.

    ``values``: the categories' numbers (the interval scale's distances); the ordinal
    distance uses only the order of the categories and their marginals.
    """
    o = C + np.swapaxes(C, -1, -2)
    n_c = o.sum(axis=-1)
    n = n_c.sum(axis=-1)
    d = _delta(n_c, scale, values)
    observed = (o * d).sum(axis=(-2, -1))
    expected = (n_c[..., :, None] * n_c[..., None, :] * d).sum(axis=(-2, -1))
    return 1.0 - _ratio((n - 1.0) * observed, expected)


def gwet_ac1(C: np.ndarray) -> np.ndarray:
    """Gwet's AC1 (Gwet 2008): ``(p_o − p_e)/(1 − p_e)``, ``p_e = Σ_c π_c(1 − π_c)/(q − 1)``
    with ``π_c`` the mean of the judge's and the humans' shares of category ``c``; ``q``
    counts every category of the scale, used or not."""
    q = C.shape[-1]
    N = C.sum(axis=(-2, -1))
    pi = _ratio(C.sum(axis=-1) + C.sum(axis=-2), 2.0 * N[..., None])
    p_e = (pi * (1.0 - pi)).sum(axis=-1) / (q - 1) if q > 1 else np.full_like(N, np.nan)
    p_o = accuracy(C)
    return _ratio(p_o - p_e, 1.0 - p_e)


def precision(C: np.ndarray, positive: int) -> np.ndarray:
    """The judge's precision for category ``positive``: ``C_pp / Σ_j C_pj``."""
    return _ratio(C[..., positive, positive], C[..., positive, :].sum(axis=-1))


def recall(C: np.ndarray, positive: int) -> np.ndarray:
    """The judge's recall for category ``positive`` (humans as truth): ``C_pp / Σ_i C_ip``."""
    return _ratio(C[..., positive, positive], C[..., :, positive].sum(axis=-1))


def check_size(label: str, q: int, K: int, reps: int) -> None:
    """Stop before the tables are built when the scale has more labels than
    ``RAGSTAT_MAX_LABELS`` or the tables (``K`` per-document and ``reps`` bootstrap
    ``q × q`` tables, with the statistics' temporaries) would exceed the memory budget."""
    from ragstat.resources import check_memory
    from ragstat.resources.caps import LABELS_ENV, check_cap

    check_cap(q, LABELS_ENV, f"{label}: distinct labels on the agreement scale",
              "map the labels to fewer categories")  # fmt: skip
    check_memory(
        8.0 * q * q * (K + 5 * reps),
        f"agreement over {q:,} labels, {K:,} documents and {reps:,} bootstrap replicates",
        "lower --bootstrap-reps or map the labels to fewer categories",
    )


def _blocks(reps: int, K: int) -> Iterator[int]:
    size = max(1, BLOCK_ELEMENTS // max(K, 1))
    done = 0
    while done < reps:
        b = min(size, reps - done)
        yield b
        done += b


def bootstrap_tables(per_doc: np.ndarray, reps: int, rng: np.random.Generator) -> np.ndarray:
    """``reps`` document-cluster bootstrap replicates of the pooled table (``(reps, q, q)``):
    ``C_b = Σ_k w_bk C_k`` with ``w_b ~ Multinomial(K; 1/K, …, 1/K)``, drawn in blocks of
    replicates so memory stays bounded, each block one matrix product."""
    K, q, _ = per_doc.shape
    flat = per_doc.reshape(K, q * q)
    out = np.empty((reps, q * q))
    start = 0
    p = np.full(K, 1.0 / K)
    for b in _blocks(reps, K):
        w = rng.multinomial(K, p, size=b).astype(np.float64)
        out[start : start + b] = w @ flat
        start += b
    return out.reshape(reps, q, q)


def percentile_interval(replicates: np.ndarray, level: float) -> tuple[float, float, int]:
    """Percentile interval: the ``(1 − level)/2`` and ``(1 + level)/2`` quantiles (linear
    interpolation) of the finite replicates, and how many were undefined (NaN) and left out.
    Both limits are NaN when no replicate is defined."""
    finite = replicates[np.isfinite(replicates)]
    dropped = int(replicates.size - finite.size)
    if finite.size == 0:
        return float("nan"), float("nan"), dropped
    lo, hi = np.quantile(finite, [(1.0 - level) / 2.0, (1.0 + level) / 2.0])
    return float(lo), float(hi), dropped


Kernel = Callable[[np.ndarray], np.ndarray]


def statistic_kernels(
    scale: str, values: np.ndarray | None, positive: int | None
) -> dict[str, Kernel]:
    """Statistic name → function of confusion tables ``(..., q, q)`` on a scale of this level
    (weighted κ on an ordinal or interval scale; α at the scale's level; precision/recall
    when a positive category is known)."""
    out: dict[str, Kernel] = {"accuracy": accuracy, "cohen_kappa": cohen_kappa}
    if scale != "nominal":
        out["cohen_kappa_linear"] = lambda C: cohen_kappa(C, "linear")
        out["cohen_kappa_quadratic"] = lambda C: cohen_kappa(C, "quadratic")
    out["krippendorff_alpha"] = lambda C: krippendorff_alpha(C, scale, values)
    out["gwet_ac1"] = gwet_ac1
    if positive is not None:
        out["precision"] = lambda C: precision(C, positive)
        out["recall"] = lambda C: recall(C, positive)
    return out


def bootstrap_intervals(
    per_doc: np.ndarray, kernels: Mapping[str, Kernel], level: float, reps: int,
    rng: np.random.Generator,
) -> dict[str, tuple[float, float, float, int]]:  # fmt: skip
    """Per statistic: its value on the pooled table and the percentile interval of ``reps``
    document-cluster bootstrap replicates (:func:`bootstrap_tables`, one draw shared by
    every statistic), with the count of undefined replicates left out — what the agreement
    verb reports (``K ≥ 2`` documents)."""
    pooled = per_doc.sum(axis=0)
    tables = bootstrap_tables(per_doc, reps, rng)
    out = {}
    for name, f in kernels.items():
        lo, hi, dropped = percentile_interval(f(tables), level)
        out[name] = (float(f(pooled)), lo, hi, dropped)
    return out
