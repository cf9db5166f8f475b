"""`ragstat interval FILE`: document-clustered intervals for one score column."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ragstat.api.interval import interval_run
from ragstat.cli import options as o
from ragstat.cli.runlog import absolute, headline, recorded, write_json
from ragstat.inference import METHODS
from ragstat.outfolder import check_complete


def interval(
    file: Annotated[
        Path,
        typer.Argument(
            help="Per-query table (.parquet, .csv, .tsv, .jsonl), or a Parquet dataset: "
            "a folder or a glob, aggregated file by file"
        ),
    ],
    cluster: o.Cluster = "doc_id",
    score: o.Score = None,
    level: o.Level = 0.95,
    score_range: o.ScoreRange = None,
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
    engine: o.Engine = "local",
    scheduler: o.Scheduler = None,
    workers: o.Workers = 1,
    out: o.OutDir = None,
    force: o.Force = False,
    as_json: o.Json = False,
) -> None:
    """Intervals for the micro and macro means, clustered by document.

    Input: one row per query with doc_id (the document: the cluster), a score column
    (hit, rr, …; default: the only one, hit1 on study records) and optional query_id,
    system, stratum, position, weight. Fields, examples, output: docs/formats.md.
    """
    wanted = o.split(methods, METHODS, "methods")
    estimands = o.split(estimand, ("micro", "macro"), "estimand")
    settings = dict(
        file=absolute(file), cluster=cluster, score=score, level=level, population=population,
        methods=methods, estimand=estimand, bootstrap_reps=bootstrap_reps, seed=seed,
        position=position, design=design, strata=strata, system=system, engine=engine,
        score_range=score_range,
        population_file=absolute(population_file),
    )  # fmt: skip
    check_complete(file if file.is_dir() else file.parent)  # not a killed run's leftovers
    inputs = {"file": file, "population_file": population_file}
    with recorded("interval", settings, inputs=inputs, out=out, force=force) as log:
        run = interval_run(
            file,
            cluster=cluster,
            score=score,
            level=level,
            score_range=score_range,
            population=population,
            methods=wanted,
            estimands=estimands or ("micro", "macro"),
            bootstrap_reps=bootstrap_reps,
            seed=seed,
            position=position,
            design=design,
            strata=strata,
            population_file=population_file,
            system=system,
            workers=workers,
            engine=engine,
            scheduler=scheduler,
        )
        report = run.report
        log.config["seed"] = report.seed
        log.config["score"] = run.roles.score
        log.results = headline(report.to_dict())
        if log.out is not None:
            from ragstat.report import report_from_interval

            log.wrote(write_json(log.out / "result.json", report.to_dict()))
            log.write_report(
                report_from_interval(
                    report,
                    run.stats,
                    source=str(file),
                    design=design,
                    query_scores=run.query_scores,
                    created=log.started_at,
                )
            )
    o.emit(report, as_json, lambda: _render(report, file))


def _render(report, file: Path) -> None:
    from ragstat.cli.render import print_report

    print_report(report, source=str(file))
