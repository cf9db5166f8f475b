"""Pairwise-judge position bias (the RAG reference, part 6): swap consistency of verdicts.

Same shape as :mod:`ragstat.metrics.generation.claims`: a frozen dataclass with
``records()``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from ragstat.arrays import frozen_array
from ragstat.errors import InputError

__all__ = ["PositionBias", "position_bias"]


_VERDICTS = {"first": "first", "a": "first", "second": "second", "b": "second", "tie": "tie"}
_FLIP = {"first": "second", "second": "first", "tie": "tie"}


def _verdict(value: object, where: str) -> str:
    v = _VERDICTS.get(value.strip().lower()) if isinstance(value, str) else None
    if v is None:
        raise InputError(f"{where}: verdict must be 'first'/'A', 'second'/'B' or 'tie': {value!r}")
    return v


@dataclass(frozen=True)
class PositionBias:
    """Pairs judged in both orders. Verdicts name the winning *position*.

    ``consistent[i]``: the swapped-order verdict picks the same answer
    (first ↔ second, tie ↔ tie). ``swap_consistency = mean(consistent)``.
    ``first_both`` / ``second_both``: the judge chose the same *position* in both
    orders (primacy / recency). ``one_order``: pairs judged in only one order.
    """

    pair_ids: tuple[str, ...]
    consistent: np.ndarray
    first_both: np.ndarray
    second_both: np.ndarray
    one_order: tuple[str, ...]

    @property
    def swap_consistency(self) -> float:
        return float(self.consistent.mean())

    @property
    def primacy_share(self) -> float:
        """Share of pairs where the first position won in both orders."""
        return float(self.first_both.mean())

    def records(self) -> dict[str, float]:
        return dict(zip(self.pair_ids, map(float, self.consistent), strict=True))


def position_bias(original: Mapping[str, str], swapped: Mapping[str, str]) -> PositionBias:
    """Swap consistency over pairs judged in both presentation orders.

    ``original[pair]`` is the verdict with answer X first; ``swapped[pair]`` with
    Y first. No pair in both → InputError.
    """
    if not isinstance(original, Mapping) or not isinstance(swapped, Mapping):
        raise InputError("position_bias: expected mappings pair id → verdict")
    both = [k for k in original if k in swapped]
    if not both:
        raise InputError("position_bias: no pair judged in both orders (empty denominator)")
    a = [_verdict(original[k], f"original[{k!r}]") for k in both]
    b = [_verdict(swapped[k], f"swapped[{k!r}]") for k in both]
    one = [k for k in original if k not in swapped] + [k for k in swapped if k not in original]
    return PositionBias(
        pair_ids=tuple(map(str, both)),
        consistent=frozen_array([x == _FLIP[y] for x, y in zip(a, b, strict=True)], bool),
        first_both=frozen_array([x == y == "first" for x, y in zip(a, b, strict=True)], bool),
        second_both=frozen_array([x == y == "second" for x, y in zip(a, b, strict=True)], bool),
        one_order=tuple(map(str, one)),
    )
