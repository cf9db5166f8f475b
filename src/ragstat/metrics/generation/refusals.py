"""Refusal correctness (the RAG reference, part 6): refusals against should-abstain labels.

Same shape as :mod:`ragstat.metrics.generation.claims`: a frozen dataclass of item
ids and read-only arrays with ``records()``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from ragstat.arrays import frozen_array
from ragstat.errors import InputError

__all__ = ["RefusalCorrectness", "refusal_correctness"]


@dataclass(frozen=True)
class RefusalCorrectness:
    """Per item: ``refused`` and ``should_abstain`` (bool arrays).

    ``refusal_precision = Σ(refused ∧ abstain) / Σ refused`` — correct refusals
    among refusals; ``refusal_recall = Σ(refused ∧ abstain) / Σ abstain`` —
    refusals among should-abstain cases. Empty denominator → InputError.
    """

    item_ids: tuple[str, ...]
    refused: np.ndarray
    should_abstain: np.ndarray

    @property
    def refusal_precision(self) -> float:
        den = int(self.refused.sum())
        if den == 0:
            raise InputError("refusal precision: no refusal at all (empty denominator)")
        return int((self.refused & self.should_abstain).sum()) / den

    @property
    def refusal_recall(self) -> float:
        den = int(self.should_abstain.sum())
        if den == 0:
            raise InputError("refusal recall: no should-abstain case (empty denominator)")
        return int((self.refused & self.should_abstain).sum()) / den

    def records(self, which: str = "precision") -> dict[str, float]:
        """``precision``: refused items → 1.0 if they should abstain; ``recall``:
        should-abstain items → 1.0 if refused (means equal the ratios above)."""
        if which == "precision":
            mask, val = self.refused, self.should_abstain
        elif which == "recall":
            mask, val = self.should_abstain, self.refused
        else:
            raise InputError(f"refusal records: unknown metric {which!r}")
        return {i: float(v) for i, v, m in zip(self.item_ids, val, mask, strict=True) if m}


def _bool(value: object, where: str) -> bool:
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)) and value in (0, 1):
        return bool(value)
    raise InputError(f"{where}: expected a boolean, got {value!r}")


def refusal_correctness(
    refused: Mapping[str, bool], should_abstain: Mapping[str, bool]
) -> RefusalCorrectness:
    """Refusal behaviour against labels of whether the evidence allows an answer.

    Both mappings must cover the same item ids (a mismatch is an InputError
    naming up to five ids); order follows ``should_abstain``.
    """
    if not isinstance(refused, Mapping) or not isinstance(should_abstain, Mapping):
        raise InputError("refusal_correctness: expected mappings item id → bool")
    if not should_abstain:
        raise InputError("refusal_correctness: no labelled item")
    missing = [k for k in should_abstain if k not in refused]
    extra = [k for k in refused if k not in should_abstain]
    if missing or extra:
        raise InputError(
            f"refusal_correctness: ids differ; unlabelled {extra[:5]}, without outcome {missing[:5]}"
        )
    ids = tuple(should_abstain)
    return RefusalCorrectness(
        item_ids=tuple(map(str, ids)),
        refused=frozen_array([_bool(refused[k], f"refused[{k!r}]") for k in ids], bool),
        should_abstain=frozen_array(
            [_bool(should_abstain[k], f"should_abstain[{k!r}]") for k in ids], bool
        ),
    )
