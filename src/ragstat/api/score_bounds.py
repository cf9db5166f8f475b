"""The range a score is known to lie in, read from its values, and that of a difference.

A side whose every value lies in [0, 1] is a rate (every IR metric, a 0/1 hit, a judge's
pass): its known range is [0, 1] (:func:`ragstat.records.docstats.known_range`); a
difference A − B of two sides known in [a_lo, a_hi] and [b_lo, b_hi] lies in
[a_lo − b_hi, a_hi − b_lo] (:func:`ragstat.records.docstats.difference_range`), [−1, 1]
for two rates. The paired verbs (``evaluate``, ``gate``, ``filter_rule``) pass it to
:func:`ragstat.inference.paired.compare`, which then computes the range-respecting
intervals, flags those that leave the range and never recommends one.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ragstat.records.docstats import difference_range, known_range

__all__ = ["difference_bounds", "known_range_of"]


def known_range_of(values: Any) -> tuple[float, float] | None:
    """[0, 1] when every value (missing and non-numeric ones left out) lies there; else None
    (nothing is known), and None when there is no value."""
    numbers = pd.to_numeric(pd.Series(np.asarray(values, dtype=object)), errors="coerce")
    found = numbers.dropna().to_numpy(float)
    if found.size == 0:
        return None
    return known_range((float(found.min()), float(found.max())))


def difference_bounds(a: Any, b: Any) -> tuple[float, float] | None:
    """The range of A − B from the values of both sides (see the module docstring)."""
    return difference_range(known_range_of(a), known_range_of(b))
