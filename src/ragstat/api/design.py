"""The design plumbing the verbs share: size strata, population counts, the score range,
and which options only the simple-random-sample analysis takes."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from ragstat.errors import InputError
from ragstat.inference.designs import DESIGNS, size_strata
from ragstat.inference.resampling import query_resampling_affordable
from ragstat.records import DocStats, read_population_counts

__all__ = [
    "PopulationCounts",
    "apply_design",
    "apply_score_range",
    "parse_score_range",
    "srs_options",
    "strata_column",
]

#: Population documents per stratum/type: a file (columns stratum|type, M) or a mapping.
PopulationCounts = str | Path | Mapping[str, int]


def strata_column(strata: str | None) -> str | None:
    """The column to read strata from (None for ``size:T`` strata, derived after aggregation)."""
    if strata is None or strata.startswith("size:"):
        return None
    return strata


def _counts(population_file: PopulationCounts) -> dict[str, int]:
    if isinstance(population_file, Mapping):
        return {str(k): int(v) for k, v in population_file.items()}
    return read_population_counts(population_file)


def apply_design(
    stats: DocStats,
    design: str,
    strata: str | None,
    population_file: PopulationCounts | None,
    **srs_only: object,
) -> tuple[DocStats, dict[str, int] | None]:
    """Attach size strata if asked for; read the population counts a design needs.

    ``srs_only`` are options that only the SRS analysis uses (an error otherwise).
    """
    if design not in DESIGNS:
        raise InputError(f"--design must be one of {', '.join(DESIGNS)}, got {design!r}")
    given = [name for name, value in srs_only.items() if value is not None]
    if design != "srs" and given:
        raise InputError(
            f"--{given[0]} applies to --design srs; a {design} design takes its population "
            "from --population-file and reports its design-based interval"
        )
    if strata is not None and strata.startswith("size:"):
        try:
            threshold = float(strata.split(":", 1)[1])
        except ValueError:
            raise InputError(f"--strata {strata!r}: expected size:T with a number T") from None
        stats = replace(stats, stratum=size_strata(stats.n, threshold))
    if design == "srs":
        if population_file is not None:
            raise InputError("--population-file applies to --design stratified or two-stage")
        return stats, None
    if strata is None:
        raise InputError(f"--design {design} needs --strata (a column, or size:T)")
    if population_file is None:
        raise InputError(f"--design {design} needs --population-file with M per stratum/type")
    return stats, _counts(population_file)


def srs_options(
    design: str,
    methods: Sequence[str] | None,
    population: int | None,
    reps: int,
    stats: DocStats,
    load_rows: Callable[[], object],
) -> dict[str, Any]:
    """Options of the SRS analysis; per-query rows only when the naive resampling can use them."""
    if design != "srs":
        return {}
    naive = methods is None or "query_bootstrap" in methods
    rows = None
    if naive and not stats.binary and query_resampling_affordable(stats.N, False):
        rows = load_rows()
    return {
        "methods": None if methods is None else list(methods),
        "population": population,
        "bootstrap_reps": reps,
        "query_scores": rows,
    }


def parse_score_range(value: str | Sequence[float] | None) -> tuple[float, float] | None:
    """``"LO,HI"`` or ``(lo, hi)`` → (lo, hi) with lo < hi; None stays None."""
    if value is None:
        return None
    parts = [p.strip() for p in value.split(",")] if isinstance(value, str) else list(value)
    try:
        lo, hi = (float(p) for p in parts) if len(parts) == 2 else (math.nan, math.nan)
    except (TypeError, ValueError):
        lo = hi = math.nan
    if math.isnan(lo) or math.isnan(hi) or not lo < hi:
        raise InputError(f"--score-range expects LO,HI with LO < HI (e.g. 0,1), got {value!r}")
    return lo, hi


def apply_score_range(stats: DocStats, value: str | Sequence[float] | None) -> DocStats:
    """``stats`` with the declared score range (checked against the data) as its known
    bounds — the range-respecting intervals work on it and every interval is checked
    against it; an infinite range declares that nothing is known — or as observed when
    ``value`` is None."""
    bounds = parse_score_range(value)
    if bounds is None:
        return stats
    lo, hi = bounds
    seen = stats.score_range
    if seen is not None and (seen[0] < lo or seen[1] > hi):
        raise InputError(
            f"--score-range {lo:g},{hi:g}: the scores run from {seen[0]:g} to {seen[1]:g}, "
            "outside the declared range; fix the range or the data"
        )
    return replace(stats, score_range=(lo, hi), bounds=(lo, hi))
