"""Documents, chunks and the corpus fingerprint."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field

__all__ = ["Chunk", "Corpus", "Document", "Excluded", "fingerprint"]


@dataclass(frozen=True)
class Document:
    """One document of the corpus: the sampling unit."""

    doc_id: str
    text: str
    metadata: Mapping[str, object] = field(default_factory=dict)


@dataclass(frozen=True)
class Chunk:
    """A run of consecutive words of one document; ``chunk_id`` is ``doc_id#position``."""

    chunk_id: str
    doc_id: str
    position: int
    text: str


@dataclass(frozen=True)
class Excluded:
    """A document or file left out of the study, with the reason (never silent)."""

    source: str
    reason: str


def fingerprint(documents: tuple[Document, ...]) -> str:
    """sha256 over document ids and texts, in corpus order (length-prefixed, unambiguous)."""
    h = hashlib.sha256()
    for doc in documents:
        for part in (doc.doc_id, doc.text):
            data = part.encode("utf-8")
            h.update(len(data).to_bytes(8, "little"))
            h.update(data)
    return h.hexdigest()


@dataclass(frozen=True)
class Corpus:
    """Documents in a stable order, plus what was excluded while loading them."""

    documents: tuple[Document, ...]
    excluded: tuple[Excluded, ...] = ()
    source: str = ""
    #: Sub-folders not read: ragstat output folders (a study never reads its own output).
    skipped: tuple[str, ...] = ()

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.documents)

    def __len__(self) -> int:
        return len(self.documents)
