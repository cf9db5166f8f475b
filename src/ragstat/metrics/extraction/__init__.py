"""Structured extraction metrics (the RAG reference, ingestion and metadata extraction):

* :mod:`~ragstat.metrics.extraction.tables` — TEDS and TEDS-S of extracted tables;
* :mod:`~ragstat.metrics.extraction.entities` — mention spans and relation triples;
* :mod:`~ragstat.metrics.extraction.tags` — mentions from BIO/IOB tags (seqeval);
* :mod:`~ragstat.metrics.extraction.titles` — title and heading exact match, similarity;
* :mod:`~ragstat.metrics.extraction.matching` — precision/recall as 0/1 units, F1 and its
  cluster bootstrap.

apted, seqeval and rapidfuzz are imported when a kernel runs (``ragstat[extraction]``).
"""

from ragstat.metrics.extraction.entities import Span, parse_spans, relation_matches, span_matches
from ragstat.metrics.extraction.matching import Matching, Units, f1_bootstrap, f1_of
from ragstat.metrics.extraction.tables import TableScores, table_scores, teds
from ragstat.metrics.extraction.tags import SCHEMES, tag_matches
from ragstat.metrics.extraction.titles import HeadingScores, heading_scores, normalized_similarity

__all__ = [
    "SCHEMES",
    "HeadingScores",
    "Matching",
    "Span",
    "TableScores",
    "Units",
    "f1_bootstrap",
    "f1_of",
    "heading_scores",
    "normalized_similarity",
    "parse_spans",
    "relation_matches",
    "span_matches",
    "table_scores",
    "tag_matches",
    "teds",
]
