"""The retriever protocol: fit on chunk texts, search a batch of queries.

Ranking rule, shared by every retriever: score descending, then corpus order
(chunk index) ascending. Only chunks with a positive match are returned for
lexical retrievers; rows are padded with index −1 and score NaN.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np

from ragstat.atomic import atomic_write_text
from ragstat.errors import InputError

__all__ = ["Retriever", "SearchResult", "read_index_info", "write_index_info"]


def write_index_info(folder: Path, kind: str, info: dict) -> None:
    """``ragstat-KIND.json`` beside a saved index, written last and atomically: its presence
    says the index in ``folder`` is complete."""
    atomic_write_text(folder / f"ragstat-{kind}.json", json.dumps(info))


def read_index_info(folder: str | Path, kind: str, label: str) -> dict:
    """The info file :func:`write_index_info` wrote; a clear error when there is none."""
    path = Path(folder) / f"ragstat-{kind}.json"
    if not path.is_file():
        raise InputError(f"{folder} holds no saved {label} index ({path.name} is missing)")
    return json.loads(path.read_text(encoding="utf-8"))


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
