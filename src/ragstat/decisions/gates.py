"""Release gates: the public face of ``ragstat gate``'s decision core.

A gate compares the bound of a two-sided interval with a threshold (:class:`GateSpec`,
:func:`outcome`, rules and sources in :mod:`ragstat.decisions.spec`); a family of gates is
decided at corrected levels (:func:`decide_family`: Holm 1979, Bonferroni,
Benjamini–Hochberg 1995, in :mod:`ragstat.decisions.multiplicity`); the decided family is a
:class:`GateReport` of :class:`GateResult` (:mod:`ragstat.decisions.results`). Pure logic:
nothing here reads files or computes intervals; the caller's ``decide_at`` does.
"""

from __future__ import annotations

from ragstat.decisions.multiplicity import (
    CORRECTIONS,
    adjust_pvalues,
    decide_family,
    family_level,
)
from ragstat.decisions.results import GateReport, GateResult
from ragstat.decisions.spec import (
    ESTIMANDS,
    KINDS,
    OUTCOMES,
    PAIRED_KINDS,
    Decision,
    GateSpec,
    decide,
    level_text,
    number_text,
    outcome,
)

__all__ = [
    "CORRECTIONS",
    "ESTIMANDS",
    "KINDS",
    "OUTCOMES",
    "PAIRED_KINDS",
    "Decision",
    "GateReport",
    "GateResult",
    "GateSpec",
    "adjust_pvalues",
    "decide",
    "decide_family",
    "family_level",
    "level_text",
    "number_text",
    "outcome",
]
