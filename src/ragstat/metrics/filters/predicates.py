"""Predicate precision/recall (the RAG reference part 5): when an extractor (e.g. an LLM) writes the
filter, score its predicates against labelled correct predicates as a classifier over
(field, value) clauses: TP = clauses in both, FP = predicted only, FN = labelled only.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass

import numpy as np

from ragstat.arrays import frozen_array
from ragstat.errors import InputError
from ragstat.metrics import rates

__all__ = ["PredicatePrecisionRecall", "predicate_precision_recall"]


@dataclass(frozen=True)
class PredicatePrecisionRecall:
    """Per labelled query: clause counts ``tp``, ``fp``, ``fn`` (int arrays).

    ``exact[i]``: the predicted predicate equals the labelled one. ``missing``:
    labelled queries with no prediction (scored as an empty predicate).
    Micro-averaged ``precision = Σtp / Σ(tp + fp)`` and ``recall = Σtp / Σ(tp + fn)``
    raise InputError when their denominator is empty.
    """

    query_ids: tuple[str, ...]
    tp: np.ndarray
    fp: np.ndarray
    fn: np.ndarray
    exact: np.ndarray
    missing: tuple[str, ...]

    @property
    def precision(self) -> float:
        denom = int(self.tp.sum() + self.fp.sum())
        if denom == 0:
            raise InputError("predicate precision: no predicted clause at all (empty denominator)")
        return int(self.tp.sum()) / denom

    @property
    def recall(self) -> float:
        denom = int(self.tp.sum() + self.fn.sum())
        if denom == 0:
            raise InputError("predicate recall: no labelled clause at all (empty denominator)")
        return int(self.tp.sum()) / denom

    @property
    def f1(self) -> float:
        return rates.f1(self.precision, self.recall)

    @property
    def exact_match_rate(self) -> float:
        return float(self.exact.mean())


def _clauses(pred: object, where: str) -> frozenset[tuple[str, Hashable]]:
    """A predicate ``{field: value}`` as its (field, value) clauses; list/set values → frozenset."""
    if not isinstance(pred, Mapping):
        raise InputError(f"{where}: a predicate must be a mapping field → value")
    out = set()
    for field, value in pred.items():
        if isinstance(value, (list, set, frozenset)):
            value = frozenset(value)
        if not isinstance(field, str) or not isinstance(value, Hashable):
            raise InputError(f"{where}: bad clause {field!r}: {value!r}")
        out.add((field, value))
    return frozenset(out)


def predicate_precision_recall(
    predicted: Mapping[str, Mapping[str, object]], correct: Mapping[str, Mapping[str, object]]
) -> PredicatePrecisionRecall:
    """Score an extractor's filter predicates against labelled (query, correct predicate) pairs.

    Clauses are (field, value) pairs: a right field with a wrong value is one FP
    and one FN. Queries are those of ``correct`` in order; predictions for
    unlabelled queries are ignored. No labelled query → InputError.
    """
    if not isinstance(predicted, Mapping) or not isinstance(correct, Mapping):
        raise InputError("predicted and correct must map query id → {field: value}")
    if not correct:
        raise InputError("predicate_precision_recall: no labelled query (empty denominator)")
    tp, fp, fn, exact = [], [], [], []
    for qid, label in correct.items():
        want = _clauses(label, f"correct, query {qid!r}")
        got = _clauses(predicted.get(qid, {}), f"predicted, query {qid!r}")
        tp.append(len(got & want))
        fp.append(len(got - want))
        fn.append(len(want - got))
        exact.append(got == want)
    return PredicatePrecisionRecall(
        query_ids=tuple(correct),
        tp=frozen_array(tp, np.int64),
        fp=frozen_array(fp, np.int64),
        fn=frozen_array(fn, np.int64),
        exact=frozen_array(exact, bool),
        missing=tuple(q for q in correct if q not in predicted),
    )
