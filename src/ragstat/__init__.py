"""ragstat: document-clustered uncertainty for retrieval and RAG evaluation.

The names below load on first use, so ``import ragstat`` (and the command line's
start) stays light.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ragstat.errors import BackendUnavailable, DesignError, InputError, RagstatError

if TYPE_CHECKING:
    from ragstat.api.sources import read_source
    from ragstat.api.verbs.agreement import agreement
    from ragstat.api.verbs.chunking import chunking
    from ragstat.api.verbs.compare import compare
    from ragstat.api.verbs.coverage import coverage
    from ragstat.api.verbs.evaluate import evaluate
    from ragstat.api.verbs.extraction import extraction
    from ragstat.api.verbs.filter_rule import filter_rule
    from ragstat.api.verbs.gate import gate
    from ragstat.api.verbs.generation import generation
    from ragstat.api.verbs.ingestion import ingestion, latency
    from ragstat.api.verbs.interval import interval
    from ragstat.api.verbs.judge_bias import judge_bias
    from ragstat.api.verbs.nuggets import nuggets
    from ragstat.api.verbs.ontology import ontology
    from ragstat.api.verbs.plan import plan
    from ragstat.api.verbs.ppi import ppi
    from ragstat.api.verbs.rewriting import rewriting
    from ragstat.api.verbs.routing import routing
    from ragstat.api.verbs.simulate import simulate
    from ragstat.api.verbs.split import split
    from ragstat.api.verbs.study import study
    from ragstat.inference import Interval, IntervalReport, analyze
    from ragstat.records import DocStats, aggregate_arrays, aggregate_file, aggregate_frame

__version__ = "0.1.0"

__all__ = [
    "BackendUnavailable",
    "DesignError",
    "DocStats",
    "InputError",
    "Interval",
    "IntervalReport",
    "RagstatError",
    "__version__",
    "aggregate_arrays",
    "aggregate_file",
    "aggregate_frame",
    "agreement",
    "analyze",
    "chunking",
    "compare",
    "coverage",
    "evaluate",
    "extraction",
    "filter_rule",
    "gate",
    "generation",
    "ingestion",
    "interval",
    "judge_bias",
    "latency",
    "nuggets",
    "ontology",
    "plan",
    "ppi",
    "read_source",
    "rewriting",
    "routing",
    "simulate",
    "split",
    "study",
]

_LAZY = {
    "chunking": "ragstat.api",
    "extraction": "ragstat.api",
    "nuggets": "ragstat.api",
    "read_source": "ragstat.api",
    "rewriting": "ragstat.api",
    "routing": "ragstat.api",
    "agreement": "ragstat.api",
    "judge_bias": "ragstat.api",
    "ppi": "ragstat.api",
    "split": "ragstat.api",
    "compare": "ragstat.api",
    "coverage": "ragstat.api",
    "evaluate": "ragstat.api",
    "filter_rule": "ragstat.api",
    "gate": "ragstat.api",
    "generation": "ragstat.api",
    "ingestion": "ragstat.api",
    "latency": "ragstat.api",
    "ontology": "ragstat.api",
    "interval": "ragstat.api",
    "plan": "ragstat.api",
    "simulate": "ragstat.api",
    "study": "ragstat.api",
    "Interval": "ragstat.inference",
    "IntervalReport": "ragstat.inference",
    "analyze": "ragstat.inference",
    "DocStats": "ragstat.records",
    "aggregate_arrays": "ragstat.records",
    "aggregate_file": "ragstat.records",
    "aggregate_frame": "ragstat.records",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'ragstat' has no attribute {name!r}")


def __dir__() -> list[str]:
    """Only the public names (``__all__``), not the helpers this module imports."""
    return sorted(__all__)
