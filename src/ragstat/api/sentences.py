"""Plain sentences for verbs whose numbers are not an `IntervalReport`'s (agreement
statistics): each read through :func:`ragstat.inference.headline.single_headline`, so the
same rules as every other output decide whether an interval is shown (none below four
documents, none when unavailable or outside the range, flags in words) and units come from
the range (points for a share in [0, 1])."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ragstat.inference.headline import describe, single_headline

__all__ = ["RATE_STATISTICS", "statistic_sentences"]

#: Agreement statistics that are shares in [0, 1] (shown in points).
RATE_STATISTICS = frozenset({"accuracy", "precision", "recall"})


def statistic_sentences(
    statistics: Iterable[Any], documents: int, level: float, question: str
) -> list[str]:
    """One sentence per statistic (``statistic``, ``estimate``, ``lower``, ``upper``,
    ``method``, ``reason``, ``discarded`` attributes) from ``documents`` documents."""
    out = []
    for s in statistics:
        bounds = (0.0, 1.0) if s.statistic in RATE_STATISTICS else None
        h = single_headline(
            s.estimate, s.method, s.lower, s.upper, K=documents, level=level, bounds=bounds,
            reason=s.reason, question=question,
        )  # fmt: skip
        out.append(describe(h, s.statistic))
    return out
