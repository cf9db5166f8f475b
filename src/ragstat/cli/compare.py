"""`ragstat compare A [B]`: paired comparison of two systems on the same queries."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ragstat.api.compare import ComparisonRun, compare_run
from ragstat.cli import options as o
from ragstat.cli.runlog import RunLog, absolute, headline, recorded, write_json
from ragstat.inference import METHODS


def compare(
    a: Annotated[
        Path, typer.Argument(help="Per-query table of system A (or of both, with --systems)")
    ],
    b: Annotated[Path | None, typer.Argument(help="Per-query table of system B")] = None,
    systems: Annotated[
        str | None, typer.Option(help="A,B: the two systems of a single table's system column")
    ] = None,
    cluster: o.Cluster = "doc_id",
    score: o.Score = None,
    query_id: Annotated[
        str, typer.Option(help="Column that identifies a query in both tables")
    ] = "query_id",
    on_missing: Annotated[
        str, typer.Option(help="Queries in one table only: error (default) or drop (counted)")
    ] = "error",
    level: o.Level = 0.95,
    population: o.Population = None,
    methods: o.Methods = None,
    estimand: o.Estimand = "micro,macro",
    bootstrap_reps: o.Reps = o.DEFAULTS["reps"],
    permutation_reps: Annotated[
        int, typer.Option(help="Monte Carlo sign flips when exact enumeration is too large")
    ] = 9_999,
    seed: o.Seed = None,
    design: o.Design = "srs",
    strata: o.Strata = None,
    population_file: o.PopulationFile = None,
    out: o.OutDir = None,
    force: o.Force = False,
    as_json: o.Json = False,
) -> None:
    """Intervals for the difference A − B, clustered by document, and a sign-flip test.

    Input: per-query tables (query_id, doc_id, a score column; optional stratum, weight)
    for A and B, or one table with a system column and --systems A,B. Fields, examples,
    output: docs/formats.md.
    """
    wanted = o.split(methods, METHODS, "methods")
    estimands = o.split(estimand, ("micro", "macro"), "estimand")
    settings = dict(
        a=absolute(a), b=absolute(b), systems=systems, cluster=cluster, score=score,
        query_id=query_id, on_missing=on_missing, level=level, population=population,
        methods=methods, estimand=estimand, bootstrap_reps=bootstrap_reps,
        permutation_reps=permutation_reps, seed=seed, design=design, strata=strata,
        population_file=absolute(population_file),
    )  # fmt: skip
    inputs = {"a": a, "b": b, "population_file": population_file}
    source = f"{a}" + (f" vs {b}" if b else "")
    with recorded("compare", settings, inputs=inputs, out=out, force=force) as log:
        run = compare_run(
            a,
            b,
            systems=systems,
            cluster=cluster,
            score=score,
            query_id=query_id,
            on_missing=on_missing,
            level=level,
            population=population,
            methods=wanted,
            estimands=estimands or ("micro", "macro"),
            bootstrap_reps=bootstrap_reps,
            permutation_reps=permutation_reps,
            seed=seed,
            design=design,
            strata=strata,
            population_file=population_file,
        )
        result = run.result
        log.config["seed"] = result.report.seed
        log.config["score"] = run.score
        log.results = headline(result.to_dict())
        if log.out is not None:
            _write(log, run, source)
    o.emit(result, as_json, lambda: _render(result, source))


def _write(log: RunLog, run: ComparisonRun, source: str) -> None:
    from ragstat.report import report_from_comparison

    if log.out is None:
        return
    log.wrote(write_json(log.out / "result.json", run.result.to_dict()))
    pairing = run.result.pairing
    lost = pairing.documents_lost if pairing is not None else 0
    log.write_report(
        report_from_comparison(
            run.result,
            run.stats,
            source=source,
            created=log.started_at,
            excluded={"documents with no matched query (dropped)": lost} if lost else None,
        )
    )


def _render(result, source: str) -> None:
    from ragstat.cli.render import print_comparison

    print_comparison(result, source=source)
