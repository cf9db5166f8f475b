"""Frozen result types shared by every inference routine."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from ragstat.inference.names import METHODS, NAIVE_METHODS
from ragstat.inference.provenance import SourceInfo
from ragstat.tidy import Tidy, plain

__all__ = [
    "METHODS",
    "NAIVE_METHODS",
    "DesignInfo",
    "Diagnostics",
    "EstimandResult",
    "Interval",
    "IntervalReport",
]


def _clean(value):
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


@dataclass(frozen=True)
class Interval:
    """A two-sided interval for one estimand by one method.

    ``available`` is False when the method cannot produce an interval on this
    sample (``reason`` says why); lower/upper are then None. Bootstrap methods
    report how many ``replicates`` were drawn and how many were ``discarded``.
    ``outside_range`` flags an interval that leaves the range the scores are
    known to lie in (e.g. a t interval below 0 for a rate): shown, never clipped.
    """

    method: str
    estimand: str
    estimate: float
    lower: float | None
    upper: float | None
    level: float
    reference: str
    se: float | None = None
    df: float | None = None
    naive: bool = False
    available: bool = True
    reason: str | None = None
    fpc: float | None = None
    replicates: int | None = None
    discarded: int | None = None
    outside_range: bool = False

    @classmethod
    def unavailable(
        cls, method: str, estimand: str, estimate: float, level: float, reference: str, reason: str
    ) -> Interval:
        return cls(
            method=method,
            estimand=estimand,
            estimate=estimate,
            lower=None,
            upper=None,
            level=level,
            reference=reference,
            naive=method in NAIVE_METHODS,
            available=False,
            reason=reason,
        )

    @property
    def width(self) -> float | None:
        if self.lower is None or self.upper is None:
            return None
        return self.upper - self.lower

    def covers(self, value: float) -> bool | None:
        if self.lower is None or self.upper is None:
            return None
        return self.lower <= value <= self.upper

    def flag_range(self, lo: float = 0.0, hi: float = 1.0) -> Interval:
        """This interval with ``outside_range`` set when lower < lo or upper > hi."""
        if self.lower is None or self.upper is None:
            return self
        return replace(self, outside_range=bool(self.lower < lo or self.upper > hi))

    def to_dict(self) -> dict:
        out = {k: _clean(v) for k, v in asdict(self).items()}
        out["width"] = _clean(self.width)
        return out


@dataclass(frozen=True)
class EstimandResult:
    """All intervals for one estimand (micro or macro) and the method the interval guide recommends."""

    estimand: str
    estimate: float
    intervals: tuple[Interval, ...]
    recommended: str | None = None
    #: Why ``recommended`` was chosen (e.g. its coverage on similar data), one sentence.
    recommendation_note: str | None = None

    def get(self, method: str) -> Interval:
        for iv in self.intervals:
            if iv.method == method:
                return iv
        raise KeyError(f"method {method!r} was not computed for {self.estimand}")

    def to_dict(self) -> dict:
        return {
            "estimate": self.estimate,
            "recommended": self.recommended,
            "recommendation_note": self.recommendation_note,
            "intervals": [iv.to_dict() for iv in self.intervals],
        }


@dataclass(frozen=True)
class Diagnostics:
    """Explain, never replace, the clustered calculation (the interval guide, "what to report")."""

    icc: float | None
    deff: float | None
    n_eff: float | None
    chunks_mean: float
    chunks_cv: float
    chunks_median: float
    chunks_top10_share: float
    share_rate0: float
    share_rate1: float
    lag1_autocorrelation: float | None
    moulton_rho: float | None
    moulton_sigma2: float | None

    def to_dict(self) -> dict:
        return {k: _clean(v) for k, v in asdict(self).items()}


@dataclass(frozen=True)
class DesignInfo:
    """The sampling design an `IntervalReport` assumed."""

    name: str
    groups: tuple[str, ...] = ()
    sampled: tuple[int, ...] = ()
    population: tuple[int, ...] = ()
    df_rule: str = "per method"

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "groups": [
                {"name": g, "sampled": k, "population": m}
                for g, k, m in zip(self.groups, self.sampled, self.population, strict=True)
            ],
            "df_rule": self.df_rule,
        }


def interval_rows(estimands: dict[str, EstimandResult]) -> list[dict[str, Any]]:
    """Tidy rows: one per estimand × method, the recommended one flagged."""
    rows = []
    for name, res in estimands.items():
        for iv in res.intervals:
            row: dict[str, Any] = {"estimand": name}
            row |= {k: plain(v) for k, v in iv.to_dict().items() if k != "estimand"}
            row["recommended"] = iv.method == res.recommended
            rows.append(row)
    return rows


def recommended_rows(estimands: dict[str, EstimandResult]) -> list[dict[str, Any]]:
    """The recommended interval of each estimand (the rows a short repr shows)."""
    return [r for r in interval_rows(estimands) if r["recommended"]]


@dataclass(frozen=True, repr=False)
class IntervalReport(Tidy):
    """Everything `ragstat interval` computes for one score.

    ``to_frame()`` has one row per estimand × method; ``repr`` shows the recommended ones.
    """

    score: str
    K: int
    N: int
    level: float
    seed: int | None
    population: int | None
    bootstrap_reps: int
    estimands: dict[str, EstimandResult]
    diagnostics: Diagnostics
    warnings: tuple[str, ...] = field(default_factory=tuple)
    design: DesignInfo = field(default_factory=lambda: DesignInfo("srs"))
    #: The other tool's file the table was read from (``--from``), else None.
    source: SourceInfo | None = None
    #: The range the estimand's values are known to lie in: (0, 1) for a rate, (−1, 1) for a
    #: difference of two rates, a declared ``--score-range``; None when nothing is known.
    bounds: tuple[float, float] | None = None

    def to_dict(self) -> dict:
        out = {
            "score": self.score,
            "bounds": None if self.bounds is None else list(self.bounds),
            "design": self.design.to_dict(),
            "K": self.K,
            "N": self.N,
            "level": self.level,
            "seed": self.seed,
            "population": self.population,
            "bootstrap_reps": self.bootstrap_reps,
            "estimands": {k: v.to_dict() for k, v in self.estimands.items()},
            "diagnostics": self.diagnostics.to_dict(),
            "warnings": list(self.warnings),
        }
        if self.source is not None:
            out["source"] = self.source.to_dict()
        return out

    def rows(self) -> list[dict[str, Any]]:
        return [{"score": self.score, **r} for r in interval_rows(self.estimands)]

    def headline_rows(self) -> list[dict[str, Any]]:
        return recommended_rows(self.estimands)

    def sentences(self) -> list[str]:
        """One plain sentence per estimand: its headline interval (`inference.headline`)."""
        from ragstat.inference.headline import describe, headlines

        return [describe(h, self.score) for h in headlines(self).values()]

    def title(self) -> str:
        return (
            f"{self.score}: K = {self.K} documents, N = {plain(self.N):g} queries, "
            f"{self.level:.0%} intervals ({self.design.name})"
        )
