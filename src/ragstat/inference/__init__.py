"""Document-clustered inference: estimators, variances, df, bootstrap, diagnostics.

The names below load on first use, so reading a constant (``METHODS``) does not import
numpy and scipy.
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import TYPE_CHECKING, Any

from ragstat.inference.names import DEFAULT_REPS

if TYPE_CHECKING:
    from ragstat.inference.analyze import APPLICABLE, RECOMMENDED, analyze
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

_LAZY = {
    "APPLICABLE": "analyze",
    "RECOMMENDED": "analyze",
    "analyze": "analyze",
    "compute_diagnostics": "diagnostics",
    "deff": "diagnostics",
    "icc_anova": "diagnostics",
    "fpc_factor": "estimators",
    "macro_mean": "estimators",
    "micro_mean": "estimators",
    "METHODS": "results",
    "NAIVE_METHODS": "results",
    "Diagnostics": "results",
    "EstimandResult": "results",
    "Interval": "results",
    "IntervalReport": "results",
    "df_bell_mccaffrey": "variance",
    "df_imbens_kolesar": "variance",
    "se_cr1": "variance",
    "se_cr2": "variance",
    "se_t_rates": "variance",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        module = importlib.import_module(f"{__name__}.{_LAZY[name]}")
        value = getattr(module, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


class _Package(types.ModuleType):
    """``ragstat.inference.analyze`` is the function, as it was when this package imported
    everything at once: importing the submodule of the same name must not rebind it."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "analyze" and isinstance(value, types.ModuleType):
            value = value.analyze
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
