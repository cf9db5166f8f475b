"""Names of the inference vocabulary that the command line needs at start.

A light module: it imports nothing, so ``ragstat --help`` can list the methods and
designs without loading numpy and scipy. The modules that compute import them from here
(``inference.results.METHODS``, ``inference.analyze.DEFAULT_REPS``,
``inference.designs.DESIGNS`` are these objects).
"""

from __future__ import annotations

__all__ = ["DEFAULT_REPS", "DESIGNS", "METHODS", "NAIVE_METHODS"]

#: Stable method names used in JSON and reports (DESIGN.md).
METHODS = (
    "wald_iid",
    "query_bootstrap",
    "cr1",
    "cr2_bm",
    "cr2_ik",
    "t_rates",
    "doc_bootstrap_percentile",
    "doc_bootstrap_t",
    "wald_effective_n",
    "logit",
    "korn_graubard",
    "logit_cr2_bm",
)
#: Methods that treat queries as independent: shown only for contrast.
NAIVE_METHODS = frozenset({"wald_iid", "query_bootstrap"})
#: Bootstrap replicates when none are asked for.
DEFAULT_REPS = 9_999
#: Sampling designs of ``--design``.
DESIGNS = ("srs", "stratified", "two-stage")
