"""`ragstat interval FILE`: document-clustered intervals for one score column."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from ragstat.errors import InputError
from ragstat.inference import DEFAULT_REPS, METHODS, analyze
from ragstat.inference.resampling import query_resampling_affordable
from ragstat.records import aggregate_file, load_query_scores


def _split(value: str | None, allowed: tuple[str, ...], what: str) -> list[str] | None:
    if value is None:
        return None
    items = [v.strip() for v in value.split(",") if v.strip()]
    bad = [v for v in items if v not in allowed]
    if bad or not items:
        raise InputError(f"--{what}: unknown value(s) {bad}; choose from {', '.join(allowed)}")
    return items


def interval(
    file: Annotated[Path, typer.Argument(help="Per-query table: .parquet, .csv, .tsv or .jsonl")],
    cluster: Annotated[
        str, typer.Option(help="Column with the sampling unit (document)")
    ] = "doc_id",
    score: Annotated[str, typer.Option(help="Score column (0/1 hit, reciprocal rank, …)")] = "hit",
    level: Annotated[float, typer.Option(help="Confidence level")] = 0.95,
    population: Annotated[
        int | None, typer.Option(help="Population size M (documents) for the finite correction")
    ] = None,
    methods: Annotated[
        str | None, typer.Option(help=f"Comma-separated subset of: {', '.join(METHODS)}")
    ] = None,
    estimand: Annotated[str, typer.Option(help="micro, macro or micro,macro")] = "micro,macro",
    bootstrap_reps: Annotated[int, typer.Option(help="Bootstrap replicates")] = DEFAULT_REPS,
    seed: Annotated[
        int | None, typer.Option(help="Random seed (drawn and reported if omitted)")
    ] = None,
    position: Annotated[
        str | None, typer.Option(help="Column with the query's position in its document")
    ] = None,
    stratum: Annotated[str | None, typer.Option(help="Column with the document's stratum")] = None,
    system: Annotated[str | None, typer.Option(help="Keep rows of this system only")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object")] = False,
) -> None:
    """Intervals for the micro and macro means, clustered by document."""
    wanted = _split(methods, METHODS, "methods")
    estimands = _split(estimand, ("micro", "macro"), "estimand")
    stats = aggregate_file(
        file, cluster=cluster, score=score, stratum=stratum, position=position, system=system
    )
    query_scores = None
    naive_resampling = wanted is None or "query_bootstrap" in wanted
    if naive_resampling and not stats.binary and query_resampling_affordable(stats.N, False):
        query_scores = load_query_scores(file, stats, cluster=cluster, score=score, system=system)
    report = analyze(
        stats,
        level=level,
        methods=wanted,
        estimands=estimands,
        population=population,
        bootstrap_reps=bootstrap_reps,
        seed=seed,
        query_scores=query_scores,
    )
    if as_json:
        typer.echo(json.dumps(report.to_dict(), ensure_ascii=False))
    else:
        from ragstat.cli.render import print_report

        print_report(report, source=str(file))
