"""Configuration of a self-retrieval study, recorded in every output."""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from ragstat.errors import InputError
from ragstat.selfretrieval.sampling import check_sample_spec

__all__ = ["RETRIEVERS", "StudyConfig"]

RETRIEVERS = ("bm25", "tfidf", "dense", "rrf")


@dataclass(frozen=True)
class StudyConfig:
    """How chunks, queries and rankings are made.

    ``index_single_chunk_docs``: documents with one chunk issue no query (a hit is
    impossible) but, by default, stay in the index as candidates — the corpus is
    the index; eligibility concerns only the queries.

    ``sample_queries``: None (every eligible chunk issues a query), an int N ≥ 1
    or a fraction in (0, 1]: the two-stage sample of :mod:`ragstat.selfretrieval.sampling`
    (every eligible document, then chunks within each), drawn with ``sample_seed``.
    """

    retrievers: tuple[str, ...] = ("bm25", "tfidf")
    chunk_words: int = 100
    query_words: int = 20
    k: int = 10
    stopwords: str | None = None
    stemmer: str | None = None
    bm25_k1: float = 1.2
    bm25_b: float = 0.75
    rrf_k: int = 60
    rrf_depth: int = 100
    rrf_with: tuple[str, ...] = ()
    index_single_chunk_docs: bool = True
    sample_queries: int | float | None = None
    sample_seed: int = 0

    def __post_init__(self) -> None:
        object.__setattr__(
            self, "retrievers", tuple(str(r).strip().lower() for r in self.retrievers)
        )
        for name in ("stopwords", "stemmer"):
            value = getattr(self, name)
            object.__setattr__(self, name, None if value in (None, "none") else str(value).lower())
        if not self.retrievers:
            raise InputError("choose at least one retriever")
        bad = [r for r in self.retrievers if r not in RETRIEVERS]
        if bad:
            raise InputError(f"unknown retriever(s) {bad}; choose from {', '.join(RETRIEVERS)}")
        if len(set(self.retrievers)) != len(self.retrievers):
            raise InputError(f"retrievers listed twice: {list(self.retrievers)}")
        if self.chunk_words <= 0 or self.query_words <= 0:
            raise InputError("--chunk-words and --query-words must be positive")
        if self.query_words > self.chunk_words:
            raise InputError(
                f"--query-words ({self.query_words}) cannot exceed --chunk-words ({self.chunk_words})"
            )
        for name in ("k", "rrf_depth", "rrf_k"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
                flag = "--k" if name == "k" else name
                raise InputError(f"{flag} must be a whole number ≥ 1, got {value!r}")
            object.__setattr__(self, name, int(value))
        object.__setattr__(self, "sample_queries", check_sample_spec(self.sample_queries))
        seed = self.sample_seed
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
            raise InputError(f"sample_seed must be a whole number ≥ 0, got {seed!r}")
        object.__setattr__(self, "sample_seed", int(seed))
        for name, value in (("stopwords", self.stopwords), ("stemmer", self.stemmer)):
            if value not in (None, "pt", "en"):
                raise InputError(f"--{name} must be pt, en or none, got {value!r}")

    def rrf_members(self) -> tuple[str, ...]:
        """What RRF fuses: ``rrf_with`` if set, else the other requested retrievers (topped up
        to two with BM25, then TF-IDF)."""
        if self.rrf_with:
            return self.rrf_with
        others = tuple(r for r in self.retrievers if r != "rrf")
        for fill in ("bm25", "tfidf"):
            if len(others) < 2 and fill not in others:
                others += (fill,)
        return others

    def to_dict(self) -> dict:
        out = asdict(self)
        out["retrievers"] = list(self.retrievers)
        out["rrf_members"] = list(self.rrf_members()) if "rrf" in self.retrievers else None
        out["analyzer"] = {
            "unicode": "NFKD accent folding",
            "case": "lower",
            "tokens": r"\w+",
            "stopwords": self.stopwords,
            "stemmer": self.stemmer,
        }
        return out
