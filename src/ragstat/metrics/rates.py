"""Aggregate shares with a checked denominator, shared by the metric families.

A micro-averaged rate over items (``Σ num / Σ den``) with nothing in its
denominator is undefined: it raises instead of reporting a reassuring 0 or 1.
Per-item ratios that may be undefined are NaN instead (:mod:`ragstat.arrays`).
"""

from __future__ import annotations

from ragstat.errors import InputError

__all__ = ["f1", "rate"]


def rate(num: float, den: float, what: str) -> float:
    """``num / den``; InputError ``"{what}: empty denominator"`` when ``den == 0``."""
    if den == 0:
        raise InputError(f"{what}: empty denominator")
    return float(num) / float(den)


def f1(precision: float, recall: float) -> float:
    """``F1 = 2·P·R / (P + R)``, 0 when ``P + R = 0``."""
    return 0.0 if precision + recall == 0 else 2 * precision * recall / (precision + recall)
