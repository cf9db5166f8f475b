"""Many gates, one family: multiple-comparison corrections on p-values and on intervals.

Two faces of the same procedures:

- :func:`adjust_pvalues` adjusts a vector of p-values (equal to statsmodels'
  ``multipletests(p, method=…)[1]``);
- :func:`decide_family` decides a family of gates from intervals computed at adjusted
  two-sided levels, so that a gate passes exactly when ``multipletests`` would reject its
  null ("the gate does not hold") at ``alpha = 1 − level``, with the p-value of the test
  its interval inverts.

Corrections:

- ``none``: every gate at ``level``.
- ``bonferroni``: every gate at 1 − (1 − level)/m (family-wise error rate ≤ 1 − level).
- ``holm`` (Holm 1979, "A simple sequentially rejective multiple test procedure",
  Scand. J. Statist. 6:65–70), step-down; controls the family-wise rate of false passes
  and is never less powerful than Bonferroni. With r gates still undecided, evaluate them
  at 1 − (1 − level)/r; the ones that pass are decided (pass, at that level) and r drops
  by their number; when none passes, every undecided gate keeps its outcome (fail or
  inconclusive) at that level.
- ``bh`` (Benjamini & Hochberg 1995, "Controlling the false discovery rate: a practical
  and powerful approach to multiple testing", J. R. Statist. Soc. B 57:289–300), step-up;
  controls the expected share of false passes among the passes (for exploratory slices,
  not for release decisions). For k = m … 1, evaluate every gate at
  1 − k(1 − level)/m; at the first k where at least k gates pass, those pass at that level
  and the others take their outcome at that level. When no k works, nothing passes and
  every gate is shown at the Bonferroni level (the k = 1 level).

Missing evidence: a gate without an interval is a failure and **stays in m**. Dropping it
would loosen every other gate's level because evidence went missing; keeping it is the
conservative choice (a failing gate is never removed from Holm's r, and it counts in BH's
m).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from ragstat.errors import InputError

if TYPE_CHECKING:
    from ragstat.decisions.spec import Decision, GateSpec

__all__ = ["CORRECTIONS", "adjust_pvalues", "decide_family", "family_level"]

CORRECTIONS = ("holm", "bonferroni", "bh", "none")
_ALIASES = {"fdr_bh": "bh", "holm": "holm", "bonferroni": "bonferroni", "bh": "bh", "none": "none"}


def _method(name: str) -> str:
    key = str(name).lower()
    if key not in _ALIASES:
        raise InputError(
            f"unknown correction {name!r} (one of {', '.join(CORRECTIONS)}; 'fdr_bh' = 'bh')"
        )
    return _ALIASES[key]


def adjust_pvalues(p: ArrayLike, method: str) -> np.ndarray:
    """Adjusted p-values, in the input's order, capped at 1.

    With p₍₁₎ ≤ … ≤ p₍ₘ₎ (ranks j = 1…m):

    - bonferroni: min(1, m·p);
    - holm (Holm 1979): p̃₍ⱼ₎ = min(1, maxᵢ≤ⱼ (m − i + 1)·p₍ᵢ₎);
    - bh / fdr_bh (Benjamini & Hochberg 1995): p̃₍ⱼ₎ = min(1, minᵢ≥ⱼ m·p₍ᵢ₎/i);
    - none: p unchanged.

    Equal to ``statsmodels.stats.multitest.multipletests(p, method=…)[1]`` (tested to 1e-12).
    """
    how = _method(method)
    values = np.asarray(p, dtype=float)
    if values.ndim != 1:
        raise InputError(f"p-values must be a 1-D sequence, got shape {values.shape}")
    if not np.all(np.isfinite(values)) or np.any((values < 0) | (values > 1)):
        raise InputError("p-values must be numbers in [0, 1] (found NaN, ±inf or out of range)")
    m = values.size
    if m == 0 or how == "none":
        return values.copy()
    if how == "bonferroni":
        return np.minimum(values * m, 1.0)
    order = np.argsort(values, kind="stable")
    ranked = values[order]
    if how == "holm":
        adjusted = np.maximum.accumulate(ranked * np.arange(m, 0, -1))
    else:
        adjusted = np.minimum.accumulate((ranked / (np.arange(1, m + 1) / m))[::-1])[::-1]
    out = np.empty(m)
    out[order] = np.minimum(adjusted, 1.0)
    return out


def family_level(level: float, k: int, m: int) -> float:
    """The two-sided level 1 − k·(1 − level)/m (k = 1: Bonferroni over m gates)."""
    return 1.0 - (1.0 - level) * k / m


def decide_family(
    gates: Sequence[GateSpec],
    decide_at: Callable[[int, float], Decision],
    level: float,
    correction: str,
) -> list[Decision]:
    """Each gate's decision under the family ``correction`` (rules in the module docstring).

    ``decide_at(i, L)`` is gate i's decision from its interval at two-sided level L; it is
    called at most once per (i, L). Decisions come back in the order of ``gates``; each
    carries the level it was decided at. ``gates`` only sets m (the same spec may appear
    more than once, e.g. one gate applied to two systems).
    """
    how = _method(correction)
    if not 0.0 < level < 1.0:
        raise InputError(f"level must be strictly between 0 and 1, got {level!r}")
    cache: dict[tuple[int, float], Decision] = {}

    def at(i: int, lvl: float) -> Decision:
        if (i, lvl) not in cache:
            cache[(i, lvl)] = decide_at(i, lvl)
        return cache[(i, lvl)]

    m = len(gates)
    if m == 0:
        return []
    if how == "none":
        return [at(i, level) for i in range(m)]
    if how == "bonferroni":
        return [at(i, family_level(level, 1, m)) for i in range(m)]
    if how == "holm":
        return _holm(m, at, level)
    return _benjamini_hochberg(m, at, level)


def _holm(m: int, at: Callable[[int, float], Decision], level: float) -> list[Decision]:
    decided: dict[int, Decision] = {}
    undecided = list(range(m))
    while undecided:
        lvl = family_level(level, 1, len(undecided))
        now = {i: at(i, lvl) for i in undecided}
        passed = [i for i in undecided if now[i].outcome == "pass"]
        if not passed:
            decided.update(now)
            break
        decided.update((i, now[i]) for i in passed)
        undecided = [i for i in undecided if now[i].outcome != "pass"]
    return [decided[i] for i in range(m)]


def _benjamini_hochberg(
    m: int, at: Callable[[int, float], Decision], level: float
) -> list[Decision]:
    for k in range(m, 0, -1):
        lvl = family_level(level, k, m)
        now = [at(i, lvl) for i in range(m)]
        if sum(d.outcome == "pass" for d in now) >= k:
            return now
    # k = 1 failed: nothing passes; the k = 1 level is the Bonferroni level (already cached).
    return [at(i, family_level(level, 1, m)) for i in range(m)]
