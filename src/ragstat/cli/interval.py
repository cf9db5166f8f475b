"""`ragstat interval FILE`: document-clustered intervals for one score column."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ragstat.cli import options as o
from ragstat.inference import METHODS
from ragstat.inference.design_analysis import analyze_design
from ragstat.records import aggregate_file, load_query_scores


def interval(
    file: Annotated[Path, typer.Argument(help="Per-query table: .parquet, .csv, .tsv or .jsonl")],
    cluster: o.Cluster = "doc_id",
    score: o.Score = "hit",
    level: o.Level = 0.95,
    population: o.Population = None,
    methods: o.Methods = None,
    estimand: o.Estimand = "micro,macro",
    bootstrap_reps: o.Reps = o.DEFAULTS["reps"],
    seed: o.Seed = None,
    position: o.Position = None,
    design: o.Design = "srs",
    strata: o.Strata = None,
    population_file: o.PopulationFile = None,
    system: Annotated[str | None, typer.Option(help="Keep rows of this system only")] = None,
    as_json: o.Json = False,
) -> None:
    """Intervals for the micro and macro means, clustered by document."""
    wanted = o.split(methods, METHODS, "methods")
    estimands = o.split(estimand, ("micro", "macro"), "estimand")
    stats = aggregate_file(
        file,
        cluster=cluster,
        score=score,
        stratum=o.strata_column(strata),
        position=position,
        system=system,
    )
    stats, counts = o.apply_design(
        stats, design, strata, population_file, population=population, methods=methods
    )
    srs = o.srs_options(
        design,
        wanted,
        population,
        bootstrap_reps,
        stats,
        lambda: load_query_scores(file, stats, cluster=cluster, score=score, system=system),
    )
    report = analyze_design(
        stats,
        design=design,
        population_counts=counts,
        level=level,
        estimands=estimands,
        seed=seed,
        **srs,
    )
    o.emit(report, as_json, lambda: _render(report, file))


def _render(report, file: Path) -> None:
    from ragstat.cli.render import print_report

    print_report(report, source=str(file))
