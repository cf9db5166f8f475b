"""Chunking checks (RAG reference, chunking section): structural cuts and lexical coherence.

* :mod:`~ragstat.metrics.chunking.boundaries` — cuts inside a sentence, a table or a list,
  orphan headings, chunk sizes;
* :mod:`~ragstat.metrics.chunking.coherence` — TF-IDF coherence inside a chunk and the
  similarity across its boundary.

Every kernel takes doc id → the document's chunks in order, as ``(item id, text)``, and
returns a frozen dataclass of item ids + read-only numpy arrays (``records()``: id → value).
"""

from ragstat.metrics.chunking.boundaries import (
    BoundaryChecks,
    boundary_checks,
    first_line,
    is_heading,
    is_list_item,
    is_table_row,
    last_line,
    list_cut,
    sentence_cut,
    table_cut,
)
from ragstat.metrics.chunking.coherence import LexicalCoherence, lexical_coherence, split_sentences

__all__ = [
    "BoundaryChecks",
    "LexicalCoherence",
    "boundary_checks",
    "first_line",
    "is_heading",
    "is_list_item",
    "is_table_row",
    "last_line",
    "lexical_coherence",
    "list_cut",
    "sentence_cut",
    "split_sentences",
    "table_cut",
]
