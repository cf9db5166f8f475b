"""One function per verb, taking paths or DataFrames and returning typed results.

Every result is a frozen dataclass with ``to_dict()`` (the command line's ``--json``),
``to_frame()`` (tidy: one row per estimand × method), a short ``repr`` and
``_repr_html_`` for notebooks. The command line only parses options, calls these and
renders what they return.
"""

from ragstat.api.compare import compare
from ragstat.api.interval import interval
from ragstat.api.plan import PlanResult, plan
from ragstat.api.simulate import simulate
from ragstat.api.study import StudyResult, study

__all__ = ["PlanResult", "StudyResult", "compare", "interval", "plan", "simulate", "study"]
