"""Evaluation sets: leak-free splits (connected components of shared groups), the
coverage matrix and sizing.

:func:`split_rows` assigns whole units — queries linked by any shared value of the
grouping columns — to named sets with target shares; :func:`check_leakage` counts the
group values two sets share, on the sets' rows. :func:`coverage_matrix` counts queries
and documents per cell of the chosen dimensions.
"""

from ragstat.testsets.coverage import Cell, Matrix, coverage_matrix
from ragstat.testsets.split import (
    Assignment,
    Leakage,
    assign_units,
    check_leakage,
    connected_units,
    split_rows,
    unit_strata,
)

__all__ = [
    "Assignment",
    "Cell",
    "Leakage",
    "Matrix",
    "assign_units",
    "check_leakage",
    "connected_units",
    "coverage_matrix",
    "split_rows",
    "unit_strata",
]
