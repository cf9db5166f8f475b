"""Chunking (SPEC.md §1): whitespace words, consecutive non-overlapping chunks.

A document's text is split on whitespace (``str.split()``); chunk ``p`` holds
words ``p·w … p·w + w − 1`` for ``w = chunk_words`` (default 100), the last chunk
holds the remainder, and the chunk text is its words joined by single spaces.
Chunk ids are ``f"{doc_id}#{position}"`` with positions from 0, so they are stable
across runs. A document with no words has no chunks. The query of a chunk is its
first ``query_words`` words (default 20).
"""

from __future__ import annotations

import operator
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from ragstat.arrays import frozen_array
from ragstat.corpus.document import Chunk, Corpus, Document
from ragstat.errors import InputError

__all__ = [
    "DEFAULT_CHUNK_WORDS",
    "DEFAULT_QUERY_WORDS",
    "ChunkTable",
    "check_sizes",
    "chunk_corpus",
    "chunk_document",
    "query_text",
    "split_words",
]

DEFAULT_CHUNK_WORDS = 100
DEFAULT_QUERY_WORDS = 20


def _positive_int(name: str, value: object) -> int:
    if isinstance(value, bool):
        raise InputError(f"{name} must be a positive integer, got {value!r}")
    try:
        number = operator.index(value)  # type: ignore[arg-type]  # ints and numpy integers, not floats
    except TypeError:
        raise InputError(f"{name} must be a positive integer, got {value!r}") from None
    if number <= 0:
        raise InputError(f"{name} must be a positive integer, got {number}; try the default")
    return number


def check_sizes(chunk_words: int, query_words: int) -> tuple[int, int]:
    """Validate ``chunk_words`` and ``query_words`` together (both > 0, query ≤ chunk)."""
    chunk = _positive_int("chunk_words", chunk_words)
    query = _positive_int("query_words", query_words)
    if query > chunk:
        raise InputError(
            f"query_words ({query}) is larger than chunk_words ({chunk}); a query is the start "
            "of a chunk, so use query_words <= chunk_words"
        )
    return chunk, query


def split_words(text: str) -> list[str]:
    """Whitespace-separated words (any run of Unicode whitespace separates)."""
    return text.split()


def _pieces(words: list[str], chunk_words: int) -> list[str]:
    return [" ".join(words[i : i + chunk_words]) for i in range(0, len(words), chunk_words)]


def chunk_document(doc: Document, chunk_words: int = DEFAULT_CHUNK_WORDS) -> list[Chunk]:
    """Consecutive non-overlapping chunks of ``chunk_words`` words (last = remainder)."""
    size = _positive_int("chunk_words", chunk_words)
    return [
        Chunk(f"{doc.doc_id}#{position}", doc.doc_id, position, text)
        for position, text in enumerate(_pieces(split_words(doc.text), size))
    ]


def query_text(chunk_text: str, query_words: int = DEFAULT_QUERY_WORDS) -> str:
    """The first ``query_words`` words of a chunk, joined by single spaces."""
    size = _positive_int("query_words", query_words)
    return " ".join(split_words(chunk_text)[:size])


@dataclass(frozen=True, eq=False)
class ChunkTable:
    """Every chunk of a corpus as parallel columns, in corpus order (the index order).

    Row ``i`` is chunk ``chunk_id[i]`` of document ``doc_id[i]`` (= corpus document
    ``doc_index[i]``) at ``position[i]``, with ``n_words[i]`` words. ``chunks_per_doc``
    has one entry per corpus document (0 for a document with no words), and
    ``doc_ids`` lists every document of the corpus, chunked or not.
    """

    chunk_id: tuple[str, ...]
    doc_id: tuple[str, ...]
    doc_index: np.ndarray
    position: np.ndarray
    text: tuple[str, ...]
    n_words: np.ndarray
    chunks_per_doc: np.ndarray
    doc_ids: tuple[str, ...]
    chunk_words: int

    def __len__(self) -> int:
        return len(self.chunk_id)

    def chunk(self, i: int) -> Chunk:
        """Row ``i`` as a :class:`Chunk`."""
        return Chunk(self.chunk_id[i], self.doc_id[i], int(self.position[i]), self.text[i])

    def chunks(self) -> Iterator[Chunk]:
        """Every row as a :class:`Chunk`, in table order."""
        return (self.chunk(i) for i in range(len(self)))

    def query_texts(self, query_words: int = DEFAULT_QUERY_WORDS) -> list[str]:
        """The query of every chunk (its first ``query_words`` words), in table order."""
        _, size = check_sizes(self.chunk_words, query_words)
        return [" ".join(text.split()[:size]) for text in self.text]


def chunk_corpus(corpus: Corpus, chunk_words: int = DEFAULT_CHUNK_WORDS) -> ChunkTable:
    """Chunk every document of ``corpus`` into a :class:`ChunkTable`."""
    size = _positive_int("chunk_words", chunk_words)
    chunk_id: list[str] = []
    doc_id: list[str] = []
    doc_index: list[int] = []
    position: list[int] = []
    text: list[str] = []
    n_words: list[int] = []
    per_doc: list[int] = []
    for d, doc in enumerate(corpus.documents):
        words = split_words(doc.text)
        pieces = _pieces(words, size)
        per_doc.append(len(pieces))
        for p, piece in enumerate(pieces):
            chunk_id.append(f"{doc.doc_id}#{p}")
            doc_id.append(doc.doc_id)
            doc_index.append(d)
            position.append(p)
            text.append(piece)
            n_words.append(min(size, len(words) - p * size))
    return ChunkTable(
        chunk_id=tuple(chunk_id),
        doc_id=tuple(doc_id),
        doc_index=frozen_array(doc_index, np.int64),
        position=frozen_array(position, np.int64),
        text=tuple(text),
        n_words=frozen_array(n_words, np.int64),
        chunks_per_doc=frozen_array(per_doc, np.int64),
        doc_ids=tuple(doc.doc_id for doc in corpus.documents),
        chunk_words=size,
    )
