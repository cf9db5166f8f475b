"""Document-clustered inference: estimators, variances, df, bootstrap, diagnostics."""

from ragstat.inference.analyze import APPLICABLE, DEFAULT_REPS, RECOMMENDED, analyze
from ragstat.inference.diagnostics import compute_diagnostics, deff, icc_anova
from ragstat.inference.estimators import fpc_factor, macro_mean, micro_mean
from ragstat.inference.results import (
    METHODS,
    NAIVE_METHODS,
    Diagnostics,
    EstimandResult,
    Interval,
    IntervalReport,
)
from ragstat.inference.variance import (
    df_bell_mccaffrey,
    df_imbens_kolesar,
    se_cr1,
    se_cr2,
    se_t_rates,
)

__all__ = [
    "APPLICABLE",
    "DEFAULT_REPS",
    "METHODS",
    "NAIVE_METHODS",
    "RECOMMENDED",
    "Diagnostics",
    "EstimandResult",
    "Interval",
    "IntervalReport",
    "analyze",
    "compute_diagnostics",
    "deff",
    "df_bell_mccaffrey",
    "df_imbens_kolesar",
    "fpc_factor",
    "icc_anova",
    "macro_mean",
    "micro_mean",
    "se_cr1",
    "se_cr2",
    "se_t_rates",
]
