"""Coverage simulation: verify every interval method on a census of the user's own data."""

from ragstat.simulation.census import Census, load_census
from ragstat.simulation.coverage import simulate as simulate_coverage
from ragstat.simulation.results import CensusSummary, CoverageReport, MethodCoverage
from ragstat.simulation.studies import study_census

__all__ = [
    "Census",
    "CensusSummary",
    "CoverageReport",
    "MethodCoverage",
    "load_census",
    "simulate_coverage",
    "study_census",
]
