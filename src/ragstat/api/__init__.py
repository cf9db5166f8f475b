"""One function per verb, taking paths or DataFrames and returning typed results.

Every result is a frozen dataclass with ``to_dict()`` (the command line's ``--json``),
``to_frame()`` (tidy: one row per estimand × method), a short ``repr`` and
``_repr_html_`` for notebooks. The command line only parses options, calls these and
renders what they return. The implementations live in :mod:`ragstat.api.verbs` (one
module per verb); names load on first use, so a verb pays only for its own imports.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ragstat.api.evaluation import EvaluationReport
    from ragstat.api.items import ItemScores
    from ragstat.api.sources import Source, read_source
    from ragstat.api.verbs.agreement import AgreementResult, agreement
    from ragstat.api.verbs.chunking import ChunkingReport, chunking
    from ragstat.api.verbs.compare import compare
    from ragstat.api.verbs.coverage import CoverageMatrix, coverage
    from ragstat.api.verbs.evaluate import evaluate
    from ragstat.api.verbs.extraction import ExtractionScores, extraction
    from ragstat.api.verbs.filter_rule import FilterRuleResult, filter_rule
    from ragstat.api.verbs.gate import gate
    from ragstat.api.verbs.generation import generation
    from ragstat.api.verbs.ingestion import ingestion, latency
    from ragstat.api.verbs.interval import interval
    from ragstat.api.verbs.judge_bias import JudgeBiasResult, judge_bias
    from ragstat.api.verbs.nuggets import nuggets
    from ragstat.api.verbs.ontology import ontology
    from ragstat.api.verbs.plan import PlanResult, plan
    from ragstat.api.verbs.ppi import PPIResult, ppi
    from ragstat.api.verbs.rewriting import RewritingReport, rewriting
    from ragstat.api.verbs.routing import RoutingResult, routing
    from ragstat.api.verbs.simulate import simulate
    from ragstat.api.verbs.split import SplitResult, split
    from ragstat.api.verbs.study import StudyResult, study
    from ragstat.decisions.gates import GateReport

__all__ = [
    "AgreementResult",
    "ChunkingReport",
    "CoverageMatrix",
    "EvaluationReport",
    "ExtractionScores",
    "FilterRuleResult",
    "GateReport",
    "ItemScores",
    "JudgeBiasResult",
    "PPIResult",
    "PlanResult",
    "RewritingReport",
    "RoutingResult",
    "Source",
    "SplitResult",
    "StudyResult",
    "agreement",
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

_HOME = {
    "ChunkingReport": "ragstat.api.verbs.chunking",
    "chunking": "ragstat.api.verbs.chunking",
    "ExtractionScores": "ragstat.api.verbs.extraction",
    "extraction": "ragstat.api.verbs.extraction",
    "nuggets": "ragstat.api.verbs.nuggets",
    "RewritingReport": "ragstat.api.verbs.rewriting",
    "rewriting": "ragstat.api.verbs.rewriting",
    "RoutingResult": "ragstat.api.verbs.routing",
    "routing": "ragstat.api.verbs.routing",
    "Source": "ragstat.api.sources",
    "read_source": "ragstat.api.sources",
    "CoverageMatrix": "ragstat.api.verbs.coverage",
    "coverage": "ragstat.api.verbs.coverage",
    "SplitResult": "ragstat.api.verbs.split",
    "split": "ragstat.api.verbs.split",
    "JudgeBiasResult": "ragstat.api.verbs.judge_bias",
    "PPIResult": "ragstat.api.verbs.ppi",
    "judge_bias": "ragstat.api.verbs.judge_bias",
    "ppi": "ragstat.api.verbs.ppi",
    "AgreementResult": "ragstat.api.verbs.agreement",
    "agreement": "ragstat.api.verbs.agreement",
    "EvaluationReport": "ragstat.api.evaluation",
    "FilterRuleResult": "ragstat.api.verbs.filter_rule",
    "GateReport": "ragstat.decisions.gates",
    "filter_rule": "ragstat.api.verbs.filter_rule",
    "gate": "ragstat.api.verbs.gate",
    "ItemScores": "ragstat.api.items",
    "PlanResult": "ragstat.api.verbs.plan",
    "StudyResult": "ragstat.api.verbs.study",
    "compare": "ragstat.api.verbs.compare",
    "evaluate": "ragstat.api.verbs.evaluate",
    "generation": "ragstat.api.verbs.generation",
    "ingestion": "ragstat.api.verbs.ingestion",
    "interval": "ragstat.api.verbs.interval",
    "latency": "ragstat.api.verbs.ingestion",
    "ontology": "ragstat.api.verbs.ontology",
    "plan": "ragstat.api.verbs.plan",
    "simulate": "ragstat.api.verbs.simulate",
    "study": "ragstat.api.verbs.study",
}


def __getattr__(name: str) -> Any:
    if name in _HOME:
        value = getattr(importlib.import_module(_HOME[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'ragstat.api' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
