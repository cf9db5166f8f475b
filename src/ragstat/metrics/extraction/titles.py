"""Title and heading extraction: exact match and normalised Levenshtein similarity.

    similarity(a, b) = 1 − Levenshtein(a, b) / max(|a|, |b|)      (1 when both are empty)

over Unicode code points, as ``rapidfuzz.distance.Levenshtein.normalized_similarity``;
exact match is ``a == b`` with nothing normalised (case, spaces and Unicode form count —
normalise before scoring if your policy says so). An item's title is a string, or a list
of headings compared position by position: the shorter list is padded with empty
headings, so a missing or an extra heading scores 0 on both measures. Each position is
one unit (a heading).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ragstat.arrays import frozen_array
from ragstat.errors import BackendUnavailable, InputError

__all__ = ["HeadingScores", "heading_scores", "normalized_similarity"]


def normalized_similarity(a: str, b: str) -> float:
    """1 − Levenshtein(a, b) / max(|a|, |b|); 1 for two empty strings."""
    try:
        from rapidfuzz.distance import Levenshtein
    except ImportError as exc:
        raise BackendUnavailable(
            "title similarity needs rapidfuzz: pip install 'ragstat[extraction]'"
        ) from exc
    longest = max(len(a), len(b))
    return 1.0 if longest == 0 else 1.0 - Levenshtein.distance(a, b) / longest


@dataclass(frozen=True)
class HeadingScores:
    """One row per heading position: its item, exact match (0/1) and similarity."""

    item_ids: tuple[str, ...]
    exact: np.ndarray
    similarity: np.ndarray


def _headings(value: Any, item: str, field: str) -> list[str]:
    values = [value] if isinstance(value, str) else value
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        raise InputError(f"item {item!r}: {field} must be text or a list of headings")
    return values


def heading_scores(pred: Mapping[str, Any], ref: Mapping[str, Any]) -> HeadingScores:
    """Exact match and similarity of every heading of every item of ``ref``."""
    ids: list[str] = []
    exact: list[bool] = []
    sim: list[float] = []
    for item, r in ref.items():
        if item not in pred:
            raise InputError(f"item {item!r}: title_ref without title_pred")
        ps, rs = _headings(pred[item], item, "title_pred"), _headings(r, item, "title_ref")
        n = max(len(ps), len(rs), 1)
        ps, rs = ps + [""] * (n - len(ps)), rs + [""] * (n - len(rs))
        for a, b in zip(ps, rs, strict=True):
            ids.append(item)
            exact.append(a == b)
            sim.append(normalized_similarity(a, b))
    return HeadingScores(tuple(ids), frozen_array(exact, float), frozen_array(sim, float))
