"""Routing metrics (the RAG reference, query time): intent / router classification and
iterative search under budgets.

* :mod:`~ragstat.metrics.routing.intent` — accuracy, per-class precision / recall / F1,
  macro F1 (with a document-bootstrap interval) and the confusion matrix;
* :mod:`~ragstat.metrics.routing.budgets` — success by number of steps and by cost budget,
  and the step at which the success curve flattens.
"""

from ragstat.metrics.routing.budgets import SearchBudgets, search_budgets
from ragstat.metrics.routing.intent import (
    F1Interval,
    IntentClassification,
    f1_bootstrap,
    intent_classification,
)

__all__ = [
    "F1Interval",
    "IntentClassification",
    "SearchBudgets",
    "f1_bootstrap",
    "intent_classification",
    "search_budgets",
]
