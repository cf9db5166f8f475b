"""``ragstat.plan``: how many documents to label, and what a given K buys.

``h(K) = t(1 − α/2; K − 1) · S/√K · √(1 − K/M)``; the answer is the smallest K with
h(K) ≤ h. The minimum detectable paired difference is
``(t(1 − α/2) + t(power)) · S/√K · √(1 − K/M)``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scipy import stats as sps

from ragstat.api.arguments import level_value, real_number, whole_number
from ragstat.api.data import Data
from ragstat.api.design import PopulationCounts
from ragstat.api.verbs.plan_pilot import cluster_pilot, pilot_source, pilot_stats
from ragstat.errors import InputError
from ragstat.inference.planning import (
    ALLOCATIONS,
    Plan,
    allocate,
    half_width,
    minimum_detectable_difference,
    pilot_sd,
    plan_documents,
    stratum_sd,
)
from ragstat.inference.power import (
    ABDesign,
    PowerResult,
    Sizing,
    ab_assumptions,
    ab_units,
    golden_set,
    rate_sd,
    sizing_assumptions,
)
from ragstat.records import DocStats, read_population_counts
from ragstat.records.cells import check_non_numeric
from ragstat.tidy import Tidy, plain

__all__ = ["ABDesign", "Allocation", "GoldenSet", "PlanResult", "plan", "power"]


@dataclass(frozen=True)
class GoldenSet:
    """Golden-set sizing in queries from documents: ``queries_per_doc`` m, ``icc`` ρ (both
    estimated from the pilot when not given), a proportion ``rate`` p (σ² = p(1 − p)) or the
    plan's ``sd`` as the query-level SD; ``queries`` n to evaluate (or the plan's
    ``documents`` K: n = K·m, or its ``half_width_target``: the inverse)."""

    queries_per_doc: float | None = None
    icc: float | None = None
    rate: float | None = None
    queries: int | None = None


@dataclass(frozen=True)
class Allocation:
    """K split across strata (``documents``: stratum → K_h)."""

    method: str
    documents: dict[str, int]

    def to_dict(self) -> dict[str, Any]:
        return {"method": self.method, "documents": dict(self.documents)}


@dataclass(frozen=True, repr=False)
class PlanResult(Tidy):
    """A plan: documents for a target half-width, or what a given K achieves."""

    estimand: str
    level: float
    sd: float
    sd_source: str
    population: int | None
    paired: bool
    power: float
    documents: int
    minimum_detectable_difference: float
    plan: Plan | None = None
    achieved_half_width: float | None = None
    allocation: Allocation | None = None
    assumptions: tuple[str, ...] = field(default_factory=tuple)
    sizing: Sizing | None = None
    #: The range the score lies in ((0, 1) a rate, (−1, 1) a difference of rates; None
    #: unknown): half-widths are said in points for the first two.
    bounds: tuple[float, float] | None = None

    headline_columns = ("estimand", "documents", "half_width", "minimum_detectable_difference")

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "estimand": self.estimand,
            "level": self.level,
            "sd": self.sd,
            "sd_source": self.sd_source,
            "population": self.population,
            "paired": self.paired,
            "power": self.power,
        }
        if self.plan is not None:
            out["plan"] = self.plan.to_dict()
        else:
            out["achieved_half_width"] = self.achieved_half_width
        out["documents"] = self.documents
        out["minimum_detectable_difference"] = self.minimum_detectable_difference
        if self.allocation is not None:
            out["allocation"] = self.allocation.to_dict()
        if self.sizing is not None:
            out["sizing"] = self.sizing.to_dict()
        out["assumptions"] = list(self.assumptions)
        return out

    def rows(self) -> list[dict[str, Any]]:
        h = self.plan.achieved if self.plan is not None else self.achieved_half_width
        extra: dict[str, Any] = {}
        if self.sizing is not None:
            z = self.sizing
            extra = {
                "queries": z.queries,
                "queries_per_doc": z.queries_per_doc,
                "icc": z.icc,
                "deff": z.deff,
                "half_width_independent": z.half_width_independent,
            }
        return [
            extra
            | {
                "estimand": self.estimand,
                "level": self.level,
                "sd": plain(self.sd),
                "population": self.population,
                "documents": self.documents,
                "target_half_width": None if self.plan is None else self.plan.half_width,
                "half_width": plain(h),
                "power": self.power,
                "minimum_detectable_difference": plain(self.minimum_detectable_difference),
                "paired": self.paired,
            }
        ]

    def sentences(self) -> list[str]:
        """What the plan buys, in one plain sentence (said first)."""
        from ragstat.api.verbs.plan_words import plan_sentence

        return [plan_sentence(self)]

    def title(self) -> str:
        return f"plan ({self.estimand}, level {self.level:g}, S = {self.sd:.4g}: {self.sd_source})"


def _check(
    estimand: str, half_width_target: float | None, documents: int | None, sd: float | None,
    pilot: Data | None, allocation: str,
) -> None:  # fmt: skip
    if estimand not in ("micro", "macro"):
        raise InputError(f"--estimand must be micro or macro, got {estimand!r}")
    if (half_width_target is None) == (documents is None):
        raise InputError("give exactly one of --half-width (how many documents?) or --documents K")
    if (sd is None) == (pilot is None):
        raise InputError("give the between-document SD with exactly one of --sd or --pilot")
    if allocation not in ALLOCATIONS:
        raise InputError(f"--allocation must be one of {', '.join(ALLOCATIONS)}")


def _numbers(
    target: Any, documents: Any, sd: Any, level: Any, power: Any, non_numeric: str
) -> tuple[float | None, int | None, float | None, float, float]:
    """The plain arguments in their types: a Python caller's ``level="x"`` is an
    InputError here, not a TypeError in the computation (ranges are checked there)."""
    check_non_numeric(non_numeric)
    return (
        None if target is None else real_number(target, "half_width_target"),
        None if documents is None else whole_number(documents, "documents"),
        None if sd is None else real_number(sd, "sd"),
        level_value(level),
        level_value(power, "power", "0.8"),
    )


def plan(
    *,
    half_width_target: float | None = None,
    documents: int | None = None,
    sd: float | None = None,
    pilot: Data | None = None,
    pilot_b: Data | None = None,
    systems: str | tuple[str, str] | None = None,
    system: str | None = None,
    cluster: str = "doc_id",
    score: str | None = None,
    estimand: str = "macro",
    level: float = 0.95,
    population: int | None = None,
    power: float = 0.8,
    strata: str | None = None,
    population_file: PopulationCounts | None = None,
    allocation: str = "proportional",
    golden: GoldenSet | None = None,
    non_numeric: str = "error",
) -> PlanResult:
    """Documents needed for a target half-width (``half_width_target``), or the half-width
    a given number of ``documents`` achieves, with the minimum detectable difference.

    S is given (``sd``) or estimated from a ``pilot`` (one ``system``'s rows; two systems:
    ``pilot_b`` or ``systems``); ``population_file`` (path or {stratum: M}) splits K;
    ``golden`` sizes a golden set in queries from documents (see :class:`GoldenSet`). A
    pilot's score cell that is not a number is an error unless ``non_numeric="missing"``."""
    half_width_target, documents, sd, level, power = _numbers(
        half_width_target, documents, sd, level, power, non_numeric
    )
    if golden is not None:
        return _golden(golden, half_width_target, documents, sd, pilot, cluster, score, level,
                       power, non_numeric)  # fmt: skip
    _check(estimand, half_width_target, documents, sd, pilot, allocation)
    paired, source, stats = systems is not None or pilot_b is not None, "given (--sd)", None
    if pilot is not None:
        stats, paired = pilot_stats(
            pilot, pilot_b, systems, system, cluster, score, strata, non_numeric
        )
        sd, source = pilot_sd(stats, estimand), pilot_source(pilot, stats)
    if sd is None:  # unreachable after _check; keeps the type checker informed
        raise InputError("give --sd or --pilot")
    result = None
    if half_width_target is not None:
        result = plan_documents(half_width_target, sd, level=level, M=population, estimand=estimand)
    K = result.K if result is not None else int(documents or 0)
    return PlanResult(
        estimand=estimand, level=level, sd=sd, sd_source=source, population=population,
        paired=paired, power=power, documents=K,
        minimum_detectable_difference=minimum_detectable_difference(
            K, sd, level=level, power=power, M=population
        ),
        plan=result,
        achieved_half_width=None if result is not None else half_width(K, sd, level, population),
        allocation=_allocation(K, population_file, allocation, stats, estimand),
        assumptions=tuple(_assumptions(estimand, population, paired)),
        bounds=_bounds(stats, paired),
    )  # fmt: skip


def _bounds(stats: DocStats | None, paired: bool) -> tuple[float, float] | None:
    """The pilot's known range: (0, 1) for rates, (−1, 1) for their differences; else None."""
    if stats is None:
        return None
    bounds = (-1.0, 1.0) if paired else (0.0, 1.0)
    return bounds if stats.scores_within(*bounds) else None


def _allocation(
    K: int,
    population_file: PopulationCounts | None,
    method: str,
    stats: DocStats | None,
    estimand: str,
) -> Allocation | None:
    """Split K across the strata of the population (Neyman: S_h from the pilot); None
    without a population file."""
    if population_file is None:
        return None
    counts = (
        {str(k): int(v) for k, v in population_file.items()}
        if isinstance(population_file, Mapping)
        else read_population_counts(Path(population_file))
    )
    by = None
    if method == "neyman":
        if stats is None or stats.stratum is None:
            raise InputError("Neyman allocation needs --pilot with --strata")
        by = stratum_sd(stats, estimand)
    return Allocation(method, allocate(K, counts, method, by))


def _assumptions(estimand: str, M: int | None, paired: bool) -> list[str]:
    return [
        "simple random sample of documents"
        + (
            f" from M = {M} (finite correction)"
            if M
            else " from a large population (no finite correction)"
        ),
        "h = t(1 − α/2; K − 1) · S/√K · √(1 − K/M); df K − 1, not the CR2 df",
        (
            "S = sd of per-document rates"
            if estimand == "macro"
            else "S = sd(u_d)/m̄, the ratio estimator's linearisation (u_d = s_d − R n_d)"
        ),
        "S is treated as known: a pilot's S is itself uncertain; coverage is not guaranteed",
        (
            "differences are paired per query (S is the SD of document differences)"
            if paired
            else "the detectable difference uses S as the SD of per-document differences"
        ),
    ]


def _sigma(
    rate: float | None, sd: float | None, pilot: Data | None, delta: float = 0.0
) -> tuple[float | None, str]:
    if sum(v is not None for v in (rate, sd, pilot)) != 1:
        raise InputError("give the spread with exactly one of --rate, --sd or --pilot")
    if rate is not None:
        return rate_sd(rate, delta), f"rate {rate:g}"
    return sd, "given (--sd)"


def _golden(
    g: GoldenSet, target: float | None, documents: int | None, sd: float | None,
    pilot: Data | None, cluster: str, score: str | None, level: float, power: float,
    non_numeric: str,
) -> PlanResult:  # fmt: skip
    """Golden-set sizing (see :class:`GoldenSet` and :mod:`ragstat.inference.power`)."""
    if sum(v is not None for v in (target, documents, g.queries)) != 1:
        raise InputError("give exactly one of --half-width, --queries or --documents")
    sigma, source = _sigma(g.rate, sd, pilot)
    m, icc = g.queries_per_doc, g.icc
    if pilot is not None:
        sigma, m0, _, rho, source = cluster_pilot(pilot, cluster, score, None, non_numeric)
        m, icc = m0 if m is None else m, rho if icc is None else icc
    m, icc = 1.0 if m is None else m, 0.0 if icc is None else icc
    n = g.queries if documents is None else math.ceil(documents * m - 1e-9)
    z = golden_set(
        float(sigma or 0), queries_per_doc=m, icc=icc, level=level, queries=n, target=target,
        rate=g.rate,
    )  # fmt: skip
    mdd = (z.z + float(sps.norm.ppf(power))) * z.half_width / z.z
    return PlanResult(
        "query mean", level, z.sd, source, None, False, power, z.documents, mdd,
        achieved_half_width=z.half_width, assumptions=sizing_assumptions(z), sizing=z,
        bounds=None if g.rate is None else (0.0, 1.0),
    )  # fmt: skip


def power(
    ab: ABDesign,
    *,
    pilot: Data | None = None,
    cluster: str = "user_id",
    score: str | None = None,
    system: str | None = None,
    non_numeric: str = "error",
) -> PowerResult:
    """Units per arm (and days at ``ab.traffic``) for an A/B test randomised by unit;
    σ, m̄, CV and ρ not given in ``ab`` come from a ``pilot`` event table clustered by
    its ``cluster`` (unit) column (``non_numeric`` as in :func:`plan`)."""
    check_non_numeric(non_numeric)
    sigma, source = _sigma(ab.rate, ab.sd, pilot, ab.mde)
    m, cv, icc = ab.events_per_unit, ab.cv, ab.icc
    if pilot is not None:
        sigma, m0, cv0, rho, source = cluster_pilot(pilot, cluster, score, system, non_numeric)
        m, cv, icc = (
            (m0 if m is None else m),
            (cv0 if cv is None else cv),
            (rho if icc is None else icc),
        )
    plan_ = ab_units(
        ab.mde, float(sigma or 0), events_per_unit=1.0 if m is None else m,
        cv=0.0 if cv is None else cv, icc=0.0 if icc is None else icc, power=ab.power,
        level=ab.level, sided=ab.sided, test=ab.test, unit=ab.unit, units_per_day=ab.traffic,
    )  # fmt: skip
    return PowerResult(plan_, source, ab_assumptions(plan_))
