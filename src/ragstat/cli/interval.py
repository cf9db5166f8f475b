"""`ragstat interval FILE`: document-clustered intervals for one score column."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ragstat.cli import options as o
from ragstat.cli.runlog import RunLog, headline, recorded, write_json
from ragstat.cli.sources import label, print_source
from ragstat.cli.verb import options_command, settings_of

if TYPE_CHECKING:
    from ragstat.api.verbs.interval import IntervalRun

File = Annotated[
    Path,
    typer.Argument(
        help="Per-query table (.parquet, .csv, .tsv, .jsonl), or a Parquet dataset: "
        "a folder or a glob, aggregated file by file"
    ),
]
System = Annotated[str | None, typer.Option(help="Keep rows of this system only")]


@dataclass(frozen=True, kw_only=True)
class IntervalOptions(
    o.AnalysisOptions,
    o.DesignOptions,
    o.EngineOptions,
    o.ScoreCellOptions,
    o.SourceOptions,
    o.OutputOptions,
):
    file: File
    cluster: o.Cluster = "doc_id"
    score: o.Score = None
    score_range: o.ScoreRange = None
    position: o.Position = None
    system: System = None


@options_command(IntervalOptions)
def interval(a: IntervalOptions) -> None:
    """Intervals for the micro and macro means, clustered by document.

    Input: one row per query with doc_id (the document: the cluster), a score column
    (hit, rr, …; default: the only one, hit1 on study records) and optional query_id,
    system, stratum, position, weight — or another tool's result file (--from). Fields,
    examples, output: docs/formats/interval.md.
    """
    from ragstat.api.verbs.interval import interval_run
    from ragstat.outfolder import check_complete

    methods, estimands = a.method_list(), a.estimand_list()
    check_complete(a.file if a.file.is_dir() else a.file.parent)  # not a killed run's leftovers
    settings = settings_of(a, exclude=("workers", "scheduler"))
    inputs = {"file": a.file, "population_file": a.population_file}
    with recorded("interval", settings, inputs=inputs, out=a.out, force=a.force) as log:
        data = a.source(a.file)
        run = interval_run(
            data,
            cluster=a.cluster,
            score=a.score,
            level=a.level,
            score_range=a.score_range,
            population=a.population,
            methods=methods,
            estimands=estimands,
            bootstrap_reps=a.bootstrap_reps,
            seed=a.seed,
            position=a.position,
            design=a.design,
            strata=a.strata,
            population_file=a.population_file,
            system=a.system,
            workers=a.workers,
            engine=a.engine,
            scheduler=a.scheduler,
            non_numeric=a.non_numeric,
        )
        _record(log, run, a, label(a.file, data))
    o.emit(run.report, a.as_json, lambda: _render(run, a.file, data, a.system))


def _record(log: RunLog, run: IntervalRun, a: IntervalOptions, source: str) -> None:
    report = run.report
    log.config["seed"] = report.seed
    log.config["score"] = run.roles.score
    log.results = headline(report.to_dict())
    if log.out is None:
        return
    from ragstat.report import report_from_interval

    log.wrote(write_json(log.out / "result.json", report.to_dict()))
    log.write_report(
        report_from_interval(
            report,
            run.stats,
            source=source,
            design=a.design,
            query_scores=run.query_scores,
            created=log.started_at,
        )
    )


def _render(run: IntervalRun, file: Path, data: object, system: str | None) -> None:
    from ragstat.cli.render import print_report

    shown = run.report.source or data  # with the tool's numbers beside ragstat's
    print_source(shown, systems=None if system is None else [system], score=run.report.score)
    print_report(run.report, source=str(file), subject=system)
