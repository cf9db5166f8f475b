"""Filter metrics (the RAG reference part 5): false exclusion by relevance predicates, kept apart
from entitlement, and the precision/recall of extracted filter predicates."""

from ragstat.metrics.filters.exclusion import (
    DocumentExclusions,
    FalseExclusion,
    RecallAtK,
    document_exclusions,
    false_exclusion,
    recall_at_k_correct,
    recall_at_k_filtered_gold,
    select_ids,
)
from ragstat.metrics.filters.predicates import PredicatePrecisionRecall, predicate_precision_recall

__all__ = [
    "DocumentExclusions",
    "FalseExclusion",
    "PredicatePrecisionRecall",
    "RecallAtK",
    "document_exclusions",
    "false_exclusion",
    "predicate_precision_recall",
    "recall_at_k_correct",
    "recall_at_k_filtered_gold",
    "select_ids",
]
