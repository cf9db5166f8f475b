"""Intent and router accuracy (the RAG reference, query understanding and adaptive routing):
per-class precision, recall and F1, macro F1, accuracy and the confusion matrix.

Definitions follow scikit-learn (``sklearn.metrics``), for a declared label order
``labels = (c_1, …, c_L)``:

* ``accuracy = Σ_i [y_i = ŷ_i] / n`` (``accuracy_score``);
* ``confusion[j, k] = #{i : y_i = c_j, ŷ_i = c_k}`` — rows true, columns predicted
  (``confusion_matrix(labels=...)``);
* per class ``TP_c = confusion[c, c]``, ``FP_c`` = column sum − TP, ``FN_c`` = row sum − TP;
  ``precision_c = TP_c / (TP_c + FP_c)``, ``recall_c = TP_c / (TP_c + FN_c)``
  (``precision_recall_fscore_support(average=None, labels=...)``), undefined (NaN) when the
  denominator is 0 — scikit-learn's ``zero_division=np.nan``;
* ``F1_c = 2 TP_c / (2 TP_c + FP_c + FN_c)`` and ``macro F1 = mean_c F1_c``
  (``f1_score(average="macro", labels=...)``), with F1_c = 0 when the class has neither true
  nor predicted items: scikit-learn's default ``zero_division="warn"``, which scores 0.

Precision and recall are means over units: the precision units of class c are the items
predicted c (1 when truly c), its recall units the items truly c (1 when predicted c), so the
mean of the units is the corpus ratio and its interval is clustered by each item's document.
F1 is not a mean: :func:`f1_bootstrap` resamples documents for a percentile interval.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ragstat.arrays import frozen_array
from ragstat.errors import InputError

__all__ = [
    "F1Interval",
    "IntentClassification",
    "f1_bootstrap",
    "f1_from_counts",
    "intent_classification",
]


def f1_from_counts(tp: np.ndarray, fp: np.ndarray, fn: np.ndarray) -> np.ndarray:
    """``F1 = 2 TP / (2 TP + FP + FN)``, 0 where the denominator is 0 (scikit-learn's default)."""
    den = 2 * tp + fp + fn
    return np.where(den > 0, 2 * tp / np.where(den > 0, den, 1), 0.0)


@dataclass(frozen=True)
class IntentClassification:
    """Per item its true and predicted label; ``labels`` the class order (declared, or the
    labels seen, sorted, when ``declared`` is False)."""

    item_ids: tuple[str, ...]
    true: tuple[str, ...]
    predicted: tuple[str, ...]
    labels: tuple[str, ...]
    declared: bool

    @property
    def correct(self) -> np.ndarray:
        """1.0 where the predicted label is the true one (the accuracy units)."""
        return np.array([t == p for t, p in zip(self.true, self.predicted, strict=True)], float)

    @property
    def accuracy(self) -> float:
        return float(self.correct.mean())

    def confusion(self) -> np.ndarray:
        """Counts, rows = true labels, columns = predicted labels, in ``labels`` order."""
        index = {c: j for j, c in enumerate(self.labels)}
        out = np.zeros((len(self.labels), len(self.labels)), dtype=np.int64)
        np.add.at(out, ([index[t] for t in self.true], [index[p] for p in self.predicted]), 1)
        return out

    def counts(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(TP, FP, FN) per class, in ``labels`` order."""
        m = self.confusion()
        tp = np.diag(m)
        return tp, m.sum(axis=0) - tp, m.sum(axis=1) - tp

    @property
    def precision(self) -> np.ndarray:
        """TP / (TP + FP) per class; NaN for a class never predicted."""
        tp, fp, _ = self.counts()
        return np.where(tp + fp > 0, tp / np.maximum(tp + fp, 1), np.nan)

    @property
    def recall(self) -> np.ndarray:
        """TP / (TP + FN) per class; NaN for a class with no true item."""
        tp, _, fn = self.counts()
        return np.where(tp + fn > 0, tp / np.maximum(tp + fn, 1), np.nan)

    @property
    def f1(self) -> np.ndarray:
        return f1_from_counts(*self.counts())

    @property
    def macro_f1(self) -> float:
        return float(self.f1.mean())

    def units(self, label: str, which: str) -> tuple[list[str], np.ndarray]:
        """The item ids and 0/1 values of class ``label``'s ``precision`` or ``recall`` units."""
        if which not in ("precision", "recall"):
            raise InputError(f"units: unknown measure {which!r} (precision or recall)")
        side, other = (self.predicted, self.true) if which == "precision" else (
            self.true, self.predicted)  # fmt: skip
        keep = [k for k, s in enumerate(side) if s == label]
        return [self.item_ids[k] for k in keep], np.array(
            [other[k] == label for k in keep], dtype=float
        )

    def counts_by_cluster(self, clusters: Sequence[str]) -> tuple[np.ndarray, ...]:
        """(TP, FP, FN) per cluster × class (K × L arrays), clusters in first-seen order."""
        order = {c: k for k, c in enumerate(dict.fromkeys(clusters))}
        index = {c: j for j, c in enumerate(self.labels)}
        shape = (len(order), len(self.labels))
        tp, fp, fn = (np.zeros(shape) for _ in range(3))
        for c, t, p in zip(clusters, self.true, self.predicted, strict=True):
            k = order[c]
            if t == p:
                tp[k, index[t]] += 1
            else:
                fp[k, index[p]] += 1
                fn[k, index[t]] += 1
        return tp, fp, fn


def _label(value: object, item: str, field: str) -> str:
    if value is None or isinstance(value, (bool, list, dict, float)):
        raise InputError(f"item {item!r}: {field} must be a label (text or integer), got {value!r}")
    return str(value)


def intent_classification(
    true: Mapping[str, object], predicted: Mapping[str, object], labels: Sequence[str] | None
) -> IntentClassification:
    """True and predicted labels per item id. With ``labels`` declared, a label outside the
    set (true or predicted) is an InputError naming the item; without, the labels seen
    (sorted) are the set."""
    if not true:
        raise InputError("intent classification: no labelled item")
    missing = [k for k in true if k not in predicted]
    extra = [k for k in predicted if k not in true]
    if missing or extra:
        raise InputError(
            f"intent classification: ids differ; without a prediction {missing[:5]}, "
            f"without a label {extra[:5]}"
        )
    ids = tuple(str(k) for k in true)
    t = tuple(_label(true[k], str(k), "label") for k in true)
    p = tuple(_label(predicted[k], str(k), "predicted") for k in true)
    if labels is None:
        return IntentClassification(ids, t, p, tuple(sorted(set(t) | set(p))), False)
    declared = tuple(str(c) for c in labels)
    if len(set(declared)) != len(declared) or not declared:
        raise InputError(f"declared labels must be distinct and not empty: {list(declared)}")
    allowed = set(declared)
    for i, a, b in zip(ids, t, p, strict=True):
        for field, value in (("label", a), ("predicted", b)):
            if value not in allowed:
                raise InputError(
                    f"item {i!r}: {field} {value!r} is not a declared label {list(declared)}"
                )
    return IntentClassification(ids, t, p, declared, True)


@dataclass(frozen=True)
class F1Interval:
    """Document-bootstrap percentile intervals: per class (``lower[c]``, ``upper[c]``) and of
    macro F1, from ``reps`` resamples of ``clusters`` documents."""

    lower: np.ndarray
    upper: np.ndarray
    macro_lower: float
    macro_upper: float
    clusters: int
    reps: int


def f1_bootstrap(
    tp: np.ndarray, fp: np.ndarray, fn: np.ndarray, *, level: float, reps: int, seed: int
) -> F1Interval:
    """Percentile intervals of per-class and macro F1, resampling documents with replacement.

    ``tp, fp, fn``: K × L counts per document and class. Replicate r draws multinomial
    document weights w_r (Σ w = K), sums ``w_r @ TP`` etc., and recomputes F1 (0 where
    undefined, as the point value); the bounds are the α/2 and 1 − α/2 quantiles.
    """
    k = tp.shape[0]
    if k < 2 or reps < 1 or not 0 < level < 1:
        raise InputError(f"F1 bootstrap needs ≥ 2 documents, reps ≥ 1, 0 < level < 1 (K = {k})")
    rng = np.random.default_rng(seed)
    block = max(1, min(reps, 4_000_000 // max(k, 1)))
    per_class, macro = [], []
    for start in range(0, reps, block):
        w = rng.multinomial(k, np.full(k, 1.0 / k), size=min(block, reps - start)).astype(float)
        f1 = f1_from_counts(w @ tp, w @ fp, w @ fn)
        per_class.append(f1)
        macro.append(f1.mean(axis=1))
    f, m = np.vstack(per_class), np.concatenate(macro)
    q = [(1 - level) / 2, (1 + level) / 2]
    lo, hi = np.quantile(f, q, axis=0)
    mlo, mhi = np.quantile(m, q)
    return F1Interval(
        frozen_array(lo, float), frozen_array(hi, float), float(mlo), float(mhi), k, reps
    )
