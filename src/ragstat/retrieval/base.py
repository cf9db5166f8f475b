"""The retriever protocol: fit on chunk texts, search a batch of queries.

Ranking rule, shared by every retriever: score descending, then corpus order
(chunk index) ascending. Only chunks with a positive match are returned for
lexical retrievers; rows are padded with index −1 and score NaN.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

__all__ = ["Retriever", "SearchResult"]


@dataclass(frozen=True, eq=False)
class SearchResult:
    """Top-k per query: ``indices`` (Q × k, int64, −1 = empty slot) and ``scores`` (Q × k)."""

    indices: np.ndarray
    scores: np.ndarray


class Retriever(Protocol):
    name: str

    def fit(self, texts: Sequence[str]) -> Retriever:
        """Index the chunk texts (their order is the corpus order used to break ties)."""
        ...

    def search(
        self, queries: Sequence[str], k: int, exclude: np.ndarray | None = None
    ) -> SearchResult:
        """Top-k chunks per query; ``exclude[i]`` is a chunk index never returned for query i
        (−1 for none)."""
        ...
