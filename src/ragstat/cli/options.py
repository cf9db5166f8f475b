"""Options shared by the verbs, and the design plumbing they have in common."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Annotated

import typer

from ragstat.errors import InputError
from ragstat.inference import DEFAULT_REPS, METHODS
from ragstat.inference.designs import DESIGNS, size_strata
from ragstat.inference.resampling import query_resampling_affordable
from ragstat.records import DocStats, read_population_counts

Cluster = Annotated[str, typer.Option(help="Column with the sampling unit (document)")]
Score = Annotated[
    str | None,
    typer.Option(
        help="Score column (0/1 hit, reciprocal rank, …); default: the only score column, "
        "or hit1 on the study's records"
    ),
]
Level = Annotated[float, typer.Option(help="Confidence level")]
ScoreRange = Annotated[
    str | None,
    typer.Option(
        "--score-range",
        help="LO,HI: the values the score can take (e.g. 0,1 or -inf,inf); default: inferred "
        "from the data — scores within [0, 1] get the bounded intervals (logit, Korn–Graubard)",
    ),
]
Population = Annotated[
    int | None, typer.Option(help="Population size M (documents) for the finite correction")
]
Methods = Annotated[
    str | None, typer.Option(help=f"Comma-separated subset of: {', '.join(METHODS)}")
]
Estimand = Annotated[str, typer.Option(help="micro, macro or micro,macro")]
Reps = Annotated[int, typer.Option(help="Bootstrap replicates")]
Seed = Annotated[
    int | None, typer.Option(help="Random seed (drawn and reported if omitted)", min=0)
]
Position = Annotated[
    str | None, typer.Option(help="Column with the query's position in its document")
]
Design = Annotated[str, typer.Option(help=f"Sampling design: {' | '.join(DESIGNS)}")]
Strata = Annotated[
    str | None,
    typer.Option(
        help="Stratum/type column, or size:T for documents with more than T queries vs the rest"
    ),
]
PopulationFile = Annotated[
    Path | None,
    typer.Option(help="Population documents per stratum/type (columns stratum|type, M)"),
]
Json = Annotated[bool, typer.Option("--json", help="Print one JSON object")]
Engine = Annotated[
    str,
    typer.Option(help="local (this machine) or dask (a Dask cluster: pip install ragstat[dask])"),
]
Scheduler = Annotated[
    str | None,
    typer.Option(
        help="Dask scheduler address (tcp://host:8786); default DASK_SCHEDULER_ADDRESS, "
        "else a LocalCluster on 127.0.0.1",
    ),
]
Workers = Annotated[
    int, typer.Option(help="Local processes (engine local) or LocalCluster workers (dask)", min=1)
]
Force = Annotated[
    bool,
    typer.Option(
        "--force", help="Write into an --out folder of another kind (its other files are kept)"
    ),
]
OutDir = Annotated[
    Path | None,
    typer.Option("--out", help="Folder for result.json, report.{json,md,html} and manifest.json"),
]

DEFAULTS = {"reps": DEFAULT_REPS}


def split(value: str | None, allowed: tuple[str, ...], what: str) -> list[str] | None:
    """Comma-separated choices, each checked against ``allowed``."""
    if value is None:
        return None
    items = [v.strip() for v in value.split(",") if v.strip()]
    bad = [v for v in items if v not in allowed]
    if bad or not items:
        raise InputError(f"--{what}: unknown value(s) {bad}; choose from {', '.join(allowed)}")
    return items


def strata_column(strata: str | None) -> str | None:
    """The column to read strata from (None for size:T strata, derived after aggregation)."""
    if strata is None or strata.startswith("size:"):
        return None
    return strata


def apply_design(
    stats: DocStats,
    design: str,
    strata: str | None,
    population_file: Path | None,
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
    return stats, read_population_counts(population_file)


def srs_options(
    design: str,
    methods: list[str] | None,
    population: int | None,
    reps: int,
    stats: DocStats,
    load_rows: Callable[[], object],
) -> dict:
    """Options of the SRS analysis; per-query rows only when the naive resampling can use them."""
    if design != "srs":
        return {}
    naive = methods is None or "query_bootstrap" in methods
    rows = None
    if naive and not stats.binary and query_resampling_affordable(stats.N, False):
        rows = load_rows()
    return {
        "methods": methods,
        "population": population,
        "bootstrap_reps": reps,
        "query_scores": rows,
    }


def emit(result, as_json: bool, render: Callable[[], None]) -> None:
    """One JSON object on stdout, or the readable rendering."""
    if as_json:
        typer.echo(json.dumps(result.to_dict(), ensure_ascii=False))
    else:
        render()


def parse_systems(systems: str | None) -> tuple[str, str] | None:
    """``A,B`` → ("A", "B"); anything but two non-empty names is an error."""
    if systems is None:
        return None
    pair = tuple(v.strip() for v in systems.split(","))
    if len(pair) != 2 or not all(pair):
        raise InputError(f"--systems expects two names, A,B; got {systems!r}")
    return pair


def apply_score_range(stats, value: str | None):
    """``stats`` with the declared score range ``LO,HI`` (checked against the data), or as
    observed when ``value`` is None."""
    if value is None:
        return stats
    parts = [p.strip() for p in value.split(",")]
    try:
        lo, hi = (float(p) for p in parts) if len(parts) == 2 else (None, None)
    except ValueError:
        lo = hi = None
    if lo is None or hi is None or math.isnan(lo) or math.isnan(hi) or not lo < hi:
        raise InputError(f"--score-range expects LO,HI with LO < HI (e.g. 0,1), got {value!r}")
    seen = stats.score_range
    if seen is not None and (seen[0] < lo or seen[1] > hi):
        raise InputError(
            f"--score-range {value}: the scores run from {seen[0]:g} to {seen[1]:g}, "
            "outside the declared range; fix the range or the data"
        )
    return replace(stats, score_range=(lo, hi))
