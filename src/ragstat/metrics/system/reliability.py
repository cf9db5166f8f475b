"""Confidence calibration (the RAG reference, serving): expected calibration error and its
reliability table over equal-width confidence bins.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from ragstat.arrays import frozen_array
from ragstat.errors import InputError

__all__ = ["Calibration", "calibration"]


@dataclass(frozen=True)
class Calibration:
    """Per item ``confidence`` ∈ [0, 1], ``correct`` (bool) and ``bin`` index.

    Bins are M equal-width intervals ``[m/M, (m+1)/M)``, the last closed at 1; the index is
    ``min(⌊round(c·M, 9)⌋, M − 1)`` (rounding first so 0.3·10 lands in bin 3).
    ``ECE = Σ_m (|B_m| / n)·|acc(B_m) − conf(B_m)|`` over non-empty bins, with
    ``acc(B_m)`` the share correct and ``conf(B_m)`` the mean confidence in bin m.
    """

    item_ids: tuple[str, ...]
    confidence: np.ndarray
    correct: np.ndarray
    bin: np.ndarray
    n_bins: int

    def reliability(self) -> list[dict]:
        """One row per bin: lower, upper, count, mean_confidence, accuracy (NaN when empty)."""
        rows = []
        for m in range(self.n_bins):
            sel = self.bin == m
            k = int(sel.sum())
            rows.append(
                {
                    "bin": m,
                    "lower": m / self.n_bins,
                    "upper": (m + 1) / self.n_bins,
                    "count": k,
                    "mean_confidence": float(self.confidence[sel].mean()) if k else math.nan,
                    "accuracy": float(self.correct[sel].mean()) if k else math.nan,
                }
            )
        return rows

    @property
    def ece(self) -> float:
        n = self.confidence.size
        return float(
            sum(
                r["count"] / n * abs(r["accuracy"] - r["mean_confidence"])
                for r in self.reliability()
                if r["count"]
            )
        )

    def records(self) -> dict[str, float]:
        """Item id → ``correct − confidence`` (its mean is the overall calibration gap)."""
        gap = self.correct.astype(float) - self.confidence
        return dict(zip(self.item_ids, gap.tolist(), strict=True))


def calibration(
    confidence: Iterable[float],
    correct: Iterable[bool],
    n_bins: int = 10,
    item_ids: Iterable[str] | None = None,
) -> Calibration:
    """Expected calibration error with a reliability table (see :class:`Calibration`)."""
    conf = np.asarray(list(confidence), dtype=float)
    corr = np.asarray(list(correct))
    if conf.size == 0:
        raise InputError("calibration: no item (empty denominator)")
    if corr.shape != conf.shape:
        raise InputError(f"calibration: {conf.size} confidences but {corr.size} outcomes")
    if not np.isin(corr, [0, 1]).all():
        raise InputError("calibration: correct must be booleans / 0 / 1")
    if not (np.isfinite(conf).all() and (conf >= 0).all() and (conf <= 1).all()):
        raise InputError("calibration: confidences must lie in [0, 1]")
    if not isinstance(n_bins, int) or n_bins < 1:
        raise InputError(f"calibration: n_bins must be a positive int, got {n_bins!r}")
    ids = tuple(str(i) for i in (item_ids if item_ids is not None else range(conf.size)))
    if len(ids) != conf.size:
        raise InputError("calibration: item_ids length differs from confidences")
    bins = np.minimum(np.floor(np.round(conf * n_bins, 9)), n_bins - 1).astype(np.int64)
    return Calibration(
        ids,
        frozen_array(conf, float),
        frozen_array(corr, bool),
        frozen_array(bins, np.int64),
        n_bins,
    )
