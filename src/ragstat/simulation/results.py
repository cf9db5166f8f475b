"""Result types of the coverage simulator."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

__all__ = ["CensusSummary", "CoverageReport", "MethodCoverage"]


def _clean(value):
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


@dataclass(frozen=True)
class CensusSummary:
    """The population the samples are drawn from, and its true values."""

    K: int
    N: int
    micro: float
    macro: float
    type_mean: float | None = None

    def to_dict(self) -> dict:
        return {k: _clean(v) for k, v in asdict(self).items()}


@dataclass(frozen=True)
class MethodCoverage:
    """How one interval method did over R samples of k documents.

    ``coverage`` counts an unavailable interval as a miss; ``coverage_available``
    is the coverage among available intervals only.
    """

    k: int
    estimand: str
    method: str
    reps: int
    coverage: float
    coverage_se: float
    coverage_available: float | None
    mean_width: float | None
    median_width: float | None
    bias: float
    rmse: float
    unavailable: float

    def to_dict(self) -> dict:
        return {k: _clean(v) for k, v in asdict(self).items()}


@dataclass(frozen=True)
class CoverageReport:
    census: CensusSummary
    design: str
    level: float
    seed: int
    reps: int
    bootstrap_reps: int
    results: tuple[MethodCoverage, ...]
    recommendation: dict = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict:
        return {
            "census": self.census.to_dict(),
            "design": self.design,
            "level": self.level,
            "seed": self.seed,
            "reps": self.reps,
            "bootstrap_reps": self.bootstrap_reps,
            "results": [r.to_dict() for r in self.results],
            "recommendation": self.recommendation,
            "notes": list(self.notes),
        }
