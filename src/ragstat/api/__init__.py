"""One function per verb, taking paths or DataFrames and returning typed results.

Every result is a frozen dataclass with ``to_dict()`` (the command line's ``--json``),
``to_frame()`` (tidy: one row per estimand × method), a short ``repr`` and
``_repr_html_`` for notebooks. The command line only parses options, calls these and
renders what they return.
"""

# Imported eagerly on purpose: a function named like its module (``interval`` in
# ``ragstat/api/interval.py``) must be bound here before anything imports the module,
# or the package attribute would be the module, not the function.
from ragstat.api.compare import compare
from ragstat.api.evaluate import evaluate
from ragstat.api.evaluation import EvaluationReport
from ragstat.api.generation import generation
from ragstat.api.ingestion import ingestion, latency
from ragstat.api.interval import interval
from ragstat.api.items import ItemScores
from ragstat.api.ontology import ontology
from ragstat.api.plan import PlanResult, plan
from ragstat.api.simulate import simulate
from ragstat.api.study import StudyResult, study

__all__ = [
    "EvaluationReport",
    "ItemScores",
    "PlanResult",
    "StudyResult",
    "compare",
    "evaluate",
    "generation",
    "ingestion",
    "interval",
    "latency",
    "ontology",
    "plan",
    "simulate",
    "study",
]
