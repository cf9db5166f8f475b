"""Iterative search under budgets (the RAG reference: an end-to-end test of iterative search
with explicit limits on calls, time and tokens).

Per item: ``steps`` — the search step at which the answer was found (an integer ≥ 1), or
None when it never was; ``max_steps`` — the step budget the item ran under; optionally
``cost`` — the cumulative cost when the answer was found.

* success by steps: ``success_i(s) = [found_i and steps_i ≤ s]`` and
  ``success(s) = mean_i success_i(s)`` for s = 1 … S, S = the largest ``max_steps``;
* success by cost budget: ``success_i(b) = [found_i and cost_i ≤ b]`` (a found item with no
  cost is not scored; an item never found is 0 at every budget);
* where the curve flattens: the smallest s with ``success(S) − success(s) < flat_gain``.
  The gain per item, ``success_i(S) − success_i(s)`` ∈ {0, 1}, is a mean over the same items
  as both curves' points, so its document-clustered interval is the paired interval.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from ragstat.arrays import frozen_array
from ragstat.errors import InputError

__all__ = ["SearchBudgets", "search_budgets"]

#: Most cost budgets the default grid shows (observed costs; deciles beyond that).
MAX_DEFAULT_BUDGETS = 20


@dataclass(frozen=True)
class SearchBudgets:
    """Per item ``steps`` (float, NaN = never found), ``max_steps`` (int) and ``cost``
    (float, NaN = not given)."""

    item_ids: tuple[str, ...]
    steps: np.ndarray
    max_steps: np.ndarray
    cost: np.ndarray

    @property
    def horizon(self) -> int:
        """S, the largest step budget."""
        return int(self.max_steps.max())

    @property
    def found(self) -> np.ndarray:
        return np.isfinite(self.steps)

    def success_at(self, s: int) -> np.ndarray:
        """``[found_i and steps_i ≤ s]`` per item (0.0 / 1.0)."""
        return (self.found & (np.nan_to_num(self.steps, nan=np.inf) <= s)).astype(float)

    def curve(self) -> np.ndarray:
        """success(s) for s = 1 … S."""
        return np.array([self.success_at(s).mean() for s in range(1, self.horizon + 1)])

    def flattens_at(self, flat_gain: float) -> int:
        """The smallest s with success(S) − success(s) < ``flat_gain``."""
        if not 0 < flat_gain < 1:
            raise InputError(f"flat_gain must lie in (0, 1), got {flat_gain!r}")
        c = self.curve()
        return int(np.flatnonzero(c[-1] - c < flat_gain)[0]) + 1

    def gain_from(self, s: int) -> np.ndarray:
        """``success_i(S) − success_i(s)`` per item."""
        return self.success_at(self.horizon) - self.success_at(s)

    @property
    def has_cost(self) -> bool:
        return bool(np.isfinite(self.cost).any())

    def within_cost(self, budget: float) -> np.ndarray:
        """``[found_i and cost_i ≤ budget]``; NaN for a found item with no cost."""
        ok = np.where(np.isfinite(self.cost), self.cost <= budget, np.nan)
        return np.where(self.found, ok, 0.0)

    def default_budgets(self) -> tuple[float, ...]:
        """The distinct costs at success (up to 20), else their deciles (observed values)."""
        costs = np.unique(self.cost[self.found & np.isfinite(self.cost)])
        if costs.size <= MAX_DEFAULT_BUDGETS:
            return tuple(float(c) for c in costs)
        q = np.quantile(costs, np.linspace(0.1, 1.0, 10), method="inverted_cdf")
        return tuple(float(c) for c in np.unique(q))


def _whole(value: object, item: str, field: str, allow_none: bool) -> float:
    if value is None and allow_none:
        return math.nan
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise InputError(f"item {item!r}: {field} must be a whole number ≥ 1, got {value!r}")
    return float(value)


def _cost(value: object, item: str, found: bool) -> float:
    if value is None:
        return math.nan
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0:
        raise InputError(f"item {item!r}: cost must be a number ≥ 0, got {value!r}")
    if not math.isfinite(value):
        raise InputError(f"item {item!r}: cost must be finite, got {value!r}")
    if not found:
        raise InputError(f"item {item!r}: cost is the cost at success, but steps is null")
    return float(value)


def search_budgets(
    steps: Mapping[str, object],
    max_steps: Mapping[str, object],
    cost: Mapping[str, object] | None = None,
) -> SearchBudgets:
    """Per item id its ``steps`` (≥ 1 or None), ``max_steps`` (≥ 1, ≥ steps) and optional
    ``cost`` (≥ 0, only when found). Bad values are InputErrors naming the item."""
    if not steps:
        raise InputError("search budgets: no item with steps")
    cost = cost or {}
    s, m, c = [], [], []
    for item, value in steps.items():
        if item not in max_steps:
            raise InputError(f"item {item!r}: no max_steps (the step budget it ran under)")
        s.append(_whole(value, item, "steps", allow_none=True))
        m.append(_whole(max_steps[item], item, "max_steps", allow_none=False))
        if s[-1] > m[-1]:
            raise InputError(f"item {item!r}: steps {value!r} exceeds max_steps {m[-1]:.0f}")
        c.append(_cost(cost.get(item), item, math.isfinite(s[-1])))
    return SearchBudgets(
        tuple(map(str, steps)), frozen_array(s, float), frozen_array(m, np.int64),
        frozen_array(c, float),
    )  # fmt: skip
