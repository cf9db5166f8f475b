"""`ragstat interval FILE`: document-clustered intervals for one score column."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ragstat.cli import options as o
from ragstat.cli.runlog import absolute, headline, recorded, write_json
from ragstat.engine import get_executor
from ragstat.inference import METHODS
from ragstat.inference.design_analysis import analyze_design
from ragstat.outfolder import check_complete
from ragstat.records import aggregate_path, load_query_scores
from ragstat.records.weighted import expand_path, has_weight


def interval(
    file: Annotated[
        Path,
        typer.Argument(
            help="Per-query table (.parquet, .csv, .tsv, .jsonl), or a Parquet dataset: "
            "a folder or a glob, aggregated file by file"
        ),
    ],
    cluster: o.Cluster = "doc_id",
    score: o.Score = "hit",
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
    """Intervals for the micro and macro means, clustered by document."""
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
        with get_executor(workers, engine, scheduler) as executor:
            report, stats, rows = _analyze(file, settings, wanted, estimands, executor)
        log.config["seed"] = report.seed
        log.results = headline(report.to_dict())
        if log.out is not None:
            from ragstat.report import report_from_interval

            log.wrote(write_json(log.out / "result.json", report.to_dict()))
            log.write_report(
                report_from_interval(
                    report,
                    stats,
                    source=str(file),
                    design=design,
                    query_scores=rows,
                    created=log.started_at,
                )
            )
    o.emit(report, as_json, lambda: _render(report, file))


def _analyze(file: Path, a: dict, wanted, estimands, executor):
    cluster, score, system, design = a["cluster"], a["score"], a["system"], a["design"]
    strata, population = a["strata"], a["population"]
    population_file = a["population_file"] and Path(a["population_file"])
    stats = aggregate_path(
        file,
        executor=executor,
        cluster=cluster,
        score=score,
        stratum=o.strata_column(strata),
        position=a["position"],
        system=system,
    )
    stats = o.apply_score_range(stats, a["score_range"])
    weighted = has_weight(file)
    if weighted:  # sampled queries: totals expanded to n_d = Σ w (the study's estimator)
        stats = expand_path(file, stats, executor=executor, cluster=cluster, system=system)
    stats, counts = o.apply_design(
        stats, design, strata, population_file, population=population, methods=a["methods"]
    )
    srs = o.srs_options(
        design,
        wanted,
        population,
        a["bootstrap_reps"],
        stats,
        lambda: (
            load_query_scores(file, stats, cluster=cluster, score=score, system=system)
            if Path(file).is_file() and not weighted
            else None  # a dataset: the naive query bootstrap of non-0/1 scores is not run
        ),
    )
    report = analyze_design(
        stats,
        design=design,
        population_counts=counts,
        level=a["level"],
        estimands=estimands,
        seed=a["seed"],
        **srs,
    )
    return report, stats, srs.get("query_scores")


def _render(report, file: Path) -> None:
    from ragstat.cli.render import print_report

    print_report(report, source=str(file))
