"""Small numpy helpers shared across packages: read-only arrays and undefined ratios.

A leaf module (imports numpy only), so any layer may use it:

* :func:`frozen_array` — the arrays held by ragstat's frozen result dataclasses are
  made read-only, so a result cannot be changed after it is built;
* :func:`ratio` / :func:`ratios` — a share whose denominator may be zero, where the
  value is undefined (NaN), never a reassuring 0 or 1.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import numpy.typing as npt

__all__ = ["frozen_array", "ratio", "ratios"]


def frozen_array(values: Iterable[object] | npt.ArrayLike, dtype: npt.DTypeLike) -> np.ndarray:
    """``values`` as a read-only numpy array of ``dtype``.

    ``np.asarray`` semantics: an array that already has ``dtype`` is not copied,
    so the caller's array itself becomes read-only; pass a list (or a fresh array)
    when the input must stay writeable.
    """
    array = np.asarray(values, dtype=dtype)
    array.flags.writeable = False
    return array


def ratio(num: float, den: float) -> float:
    """``num / den``, NaN when ``den == 0`` (the ratio is undefined for that item)."""
    return num / den if den else np.nan


def ratios(num: npt.ArrayLike, den: npt.ArrayLike) -> np.ndarray:
    """Element-wise ``num / den`` (read-only float64), NaN where ``den`` is not positive."""
    n, d = np.asarray(num), np.asarray(den)
    out = np.full(np.broadcast(n, d).shape, np.nan)
    np.divide(n, d, out=out, where=d > 0)
    out.flags.writeable = False
    return out
