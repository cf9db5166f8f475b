"""Precision, recall and F1 over matched units, kept unit by unit.

A ratio measure over a corpus is a mean over *units*: precision = ΣTP / Σpredicted is the
share of predicted units (mentions, relation triples) that are matched, recall = ΣTP /
Σreference the share of reference units that are matched. :class:`Units` keeps one 0/1
row per unit with its item and type, so a clustered mean over the rows is exactly the
corpus ratio; :class:`Matching` pairs the two and gives F1 = 2PR / (P + R), and
:func:`f1_bootstrap` its percentile interval over resampled clusters (documents).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ragstat.arrays import frozen_array

__all__ = ["Matching", "Units", "f1_bootstrap", "f1_of", "units"]


@dataclass(frozen=True)
class Units:
    """One row per unit: its item, its type and whether it is matched."""

    item_ids: tuple[str, ...]
    types: tuple[str, ...]
    matched: np.ndarray

    @property
    def ratio(self) -> float:
        """Σ matched / Σ units (NaN when there is no unit: an empty denominator)."""
        return float(self.matched.mean()) if self.matched.size else float("nan")

    def of_type(self, kind: str) -> Units:
        keep = np.asarray(self.types, dtype=object) == kind
        ids = tuple(i for i, k in zip(self.item_ids, keep, strict=True) if k)
        return Units(ids, (kind,) * len(ids), frozen_array(self.matched[keep], bool))


def units(rows: Sequence[tuple[str, str, bool]]) -> Units:
    """Units from (item, type, matched) rows."""
    return Units(
        tuple(r[0] for r in rows),
        tuple(r[1] for r in rows),
        frozen_array([r[2] for r in rows], bool),
    )


def f1_of(precision: float | np.ndarray, recall: float | np.ndarray) -> np.ndarray:
    """F1 = 2PR / (P + R); 0 where P + R = 0 or either is undefined (scikit-learn's and
    seqeval's zero-division value)."""
    p, r = np.nan_to_num(np.asarray(precision, float)), np.nan_to_num(np.asarray(recall, float))
    total = p + r
    return np.divide(2 * p * r, total, out=np.zeros_like(total), where=total > 0)


@dataclass(frozen=True)
class Matching:
    """Predicted units (precision) and reference units (recall) of one measure."""

    predicted: Units
    reference: Units

    @property
    def precision(self) -> float:
        return self.predicted.ratio

    @property
    def recall(self) -> float:
        return self.reference.ratio

    @property
    def f1(self) -> float:
        return float(f1_of(self.precision, self.recall))

    @property
    def types(self) -> tuple[str, ...]:
        return tuple(sorted(set(self.predicted.types) | set(self.reference.types)))

    def of_type(self, kind: str) -> Matching:
        return Matching(self.predicted.of_type(kind), self.reference.of_type(kind))


def _totals(u: Units, index: dict[str, int], clusters: dict[str, str]) -> np.ndarray:
    """Per cluster: [matched units, units]."""
    at = np.array([index[clusters[i]] for i in u.item_ids], dtype=np.int64)
    matched = np.bincount(at, weights=u.matched.astype(float), minlength=len(index))
    return np.column_stack([matched, np.bincount(at, minlength=len(index)).astype(float)])


def f1_bootstrap(
    m: Matching, clusters: dict[str, str], *, level: float, reps: int, seed: int
) -> tuple[float, float, int]:
    """Percentile interval of F1 over ``reps`` resamples of the clusters with replacement
    (``clusters``: item → cluster), and the number K of clusters that hold a unit of
    ``m`` (the others are not in this measure's population). Each resample draws K
    clusters; its F1 is computed from the drawn clusters' totals (ΣTP, Σpredicted,
    ΣTP_ref, Σreference), vectorised as multinomial counts × totals."""
    names = sorted({clusters[i] for i in m.predicted.item_ids + m.reference.item_ids})
    index = {c: k for k, c in enumerate(names)}
    pred, ref = _totals(m.predicted, index, clusters), _totals(m.reference, index, clusters)
    k = len(names)
    draws = np.random.default_rng(seed).multinomial(k, np.full(k, 1.0 / k), size=reps)
    p_sum, r_sum = draws @ pred, draws @ ref
    with np.errstate(invalid="ignore", divide="ignore"):
        f1 = f1_of(p_sum[:, 0] / p_sum[:, 1], r_sum[:, 0] / r_sum[:, 1])
    alpha = 1.0 - level
    lo, hi = np.quantile(f1, [alpha / 2, 1 - alpha / 2])
    return float(lo), float(hi), k
