"""Names of the inference vocabulary that the command line needs at start.

A light module: it imports nothing, so ``ragstat --help`` can list the methods and
designs without loading numpy and scipy. The modules that compute import them from here
(``inference.results.METHODS``, ``inference.analyze.DEFAULT_REPS``,
``inference.designs.DESIGNS`` are these objects).
"""

from __future__ import annotations

__all__ = ["DEFAULT_REPS", "DESIGNS", "METHODS", "NAIVE_METHODS", "SMALL_K_METHODS"]

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
    "cr3_bm",
    "wcr",
    "doc_bootstrap_bca",
    "beta_binomial",
    "doc_bootstrap_calibrated",
)
#: The small-K candidates (docs/guide/small-k-methods.md): computed when asked for by name
#: or when the built-in coverage table recommends one, not in every listing.
SMALL_K_METHODS = (
    "cr3_bm",
    "wcr",
    "doc_bootstrap_bca",
    "beta_binomial",
    "doc_bootstrap_calibrated",
)
#: Methods that treat queries as independent: shown only for contrast.
NAIVE_METHODS = frozenset({"wald_iid", "query_bootstrap"})
#: Bootstrap replicates when none are asked for.
DEFAULT_REPS = 9_999
#: Sampling designs of ``--design``.
DESIGNS = ("srs", "stratified", "two-stage")
