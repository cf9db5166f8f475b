"""Decisions made from intervals: release gates, non-inferiority and equivalence, and
multiple-comparison corrections across a family of gates."""

from ragstat.decisions.gates import (
    CORRECTIONS,
    KINDS,
    OUTCOMES,
    Decision,
    GateReport,
    GateResult,
    GateSpec,
    decide,
    decide_family,
    outcome,
)
from ragstat.decisions.multiplicity import adjust_pvalues

__all__ = [
    "CORRECTIONS",
    "KINDS",
    "OUTCOMES",
    "Decision",
    "GateReport",
    "GateResult",
    "GateSpec",
    "adjust_pvalues",
    "decide",
    "decide_family",
    "outcome",
]
