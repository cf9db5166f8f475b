"""The sample-size margin of a rate (the RAG reference): a planning rule of thumb."""

from __future__ import annotations

import math

from ragstat.errors import InputError

__all__ = ["proportion_margin"]


def proportion_margin(rate: float, n: int, z: float = 1.96) -> float:
    """Normal-approximation half-width ``z·sqrt(p(1−p)/n)`` of a 95% interval for a rate.

    Seed 004: 200 queries at a pass rate of 0.8 → 1.96·sqrt(0.8·0.2/200) = 0.0554, about
    ±5.5 points. A planning rule of thumb; it ignores clustering by document, which widens
    the interval (use ragstat's clustered intervals for the real one).
    """
    if not 0.0 <= rate <= 1.0 or not isinstance(n, int) or n < 1 or not z > 0:
        raise InputError(f"proportion_margin: need 0 ≤ rate ≤ 1, n ≥ 1, z > 0; got {rate}, {n}")
    return z * math.sqrt(rate * (1.0 - rate) / n)
