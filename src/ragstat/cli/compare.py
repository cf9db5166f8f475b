"""`ragstat compare A [B]`: paired comparison of two systems on the same queries."""

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
    from ragstat.api.verbs.compare import ComparisonRun

A = Annotated[Path, typer.Argument(help="Per-query table of system A (or of both, with --systems)")]
B = Annotated[
    Path | None,
    typer.Argument(help="Per-query table of system B (another tool's file: read like A)"),
]
FromB = Annotated[
    str | None,
    typer.Option("--from-b", help="B is another tool's file of another format than A's --from"),
]
Systems = Annotated[
    str | None,
    typer.Option(
        help="A,B: the two systems of a single table's system column (two tools' files: "
        "A's system and B's)"
    ),
]
QueryId = Annotated[str, typer.Option(help="Column that identifies a query in both tables")]
OnMissing = Annotated[
    str, typer.Option(help="Queries in one table only: error (default) or drop (counted)")
]
CompareDesign = Annotated[
    str,
    typer.Option(
        help="Sampling design: srs | stratified | two-stage | two-sample (independent arms of "
        "units, --cluster = the unit; one table with an arm column or two tables)"
    ),
]
Arm = Annotated[str, typer.Option(help="--design two-sample: the arm column of one table")]
PermutationReps = Annotated[
    int, typer.Option(help="Monte Carlo sign flips when exact enumeration is too large")
]


@dataclass(frozen=True, kw_only=True)
class CompareOptions(
    o.AnalysisOptions, o.DesignOptions, o.ScoreCellOptions, o.SourceOptions, o.OutputOptions
):
    a: A
    b: B = None
    from_b: FromB = None
    systems: Systems = None
    cluster: o.Cluster = "doc_id"
    score: o.Score = None
    score_range: o.ScoreRange = None
    query_id: QueryId = "query_id"
    on_missing: OnMissing = "error"
    permutation_reps: PermutationReps = 9_999
    design: CompareDesign = "srs"
    arm: Arm = "arm"


@options_command(CompareOptions)
def compare(a: CompareOptions) -> None:
    """Intervals for the difference A − B, clustered by document, and a sign-flip test.

    Input: per-query tables (query_id, doc_id, a score column; optional stratum, weight)
    for A and B, or one table with a system column and --systems A,B — or another tool's
    result file (--from) with two systems. Fields, examples, output: docs/formats/compare.md.
    """
    if a.design == "two-sample":
        _two_sample(a)
        return
    from ragstat.api.verbs.compare import compare_run

    methods, estimands = a.method_list(), a.estimand_list()
    inputs = {"a": a.a, "b": a.b, "population_file": a.population_file}
    with recorded("compare", settings_of(a), inputs=inputs, out=a.out, force=a.force) as log:
        data = a.source(a.a)
        data_b = a.source(a.b, a.from_b) if a.b is not None else None
        source = label(a.a, data) + (f" vs {label(a.b, data_b)}" if a.b else "")
        run = compare_run(
            data,
            data_b,
            systems=a.systems,
            cluster=a.cluster,
            score=a.score,
            query_id=a.query_id,
            on_missing=a.on_missing,
            level=a.level,
            population=a.population,
            methods=methods,
            estimands=estimands,
            bootstrap_reps=a.bootstrap_reps,
            permutation_reps=a.permutation_reps,
            seed=a.seed,
            design=a.design,
            strata=a.strata,
            population_file=a.population_file,
            score_range=a.score_range,
            non_numeric=a.non_numeric,
        )
        result = run.result
        log.config["seed"] = result.report.seed
        log.config["score"] = run.score
        log.results = headline(result.to_dict())
        _write(log, run, source)

    def render() -> None:
        paired = result.report.source  # both files' description when two were paired
        if paired is not None or data_b is None or not hasattr(data_b, "info"):
            print_source(paired or data, systems=result.systems, score=run.score)
        else:  # two tools' files described apart: each one's sentence and notes
            print_source(data, score=run.score)
            print_source(data_b, score=run.score)
        _render(result, source)

    o.emit(result, a.as_json, render)


def _two_sample(a: CompareOptions) -> None:
    """Independent arms: CR2 on y ~ arm clustered by unit (no pairing of queries)."""
    from ragstat.api.verbs.compare import compare_two_sample

    inputs = {"a": a.a, "b": a.b}
    with recorded("compare", settings_of(a), inputs=inputs, out=a.out, force=a.force) as log:
        result = compare_two_sample(
            a.a, a.b, systems=a.systems, arm=a.arm, cluster=a.cluster, score=a.score,
            level=a.level, non_numeric=a.non_numeric,
        )  # fmt: skip
        log.results = result.to_dict()
        if log.out is not None:
            log.wrote(write_json(log.out / "result.json", result.to_dict()))
    o.emit(result, a.as_json, lambda: _render_two_sample(result.to_dict(), a.score))


def _render_two_sample(d: dict, score: str | None) -> None:
    from ragstat.cli.render import two_sample_sentence
    from ragstat.cli.terminal import console, literal

    c = console()
    c.print(
        literal(two_sample_sentence(d, score or d.get("score")), "bold"),
        soft_wrap=True,
        emoji=False,
    )
    (x, y), (ka, kb) = d["arms"], d["units"]
    c.print(f"two-sample {x} − {y}: {ka} vs {kb} units ({d['rows'][0]:g} vs {d['rows'][1]:g} rows)")
    c.print(
        f"means {d['means'][0]:.4f} vs {d['means'][1]:.4f}; difference [bold]{d['estimate']:.4f}[/] "
        f"[{d['lower']:.4f}, {d['upper']:.4f}] ({d['level']:.0%}); CR2 SE {d['se']:.4f}, "
        f"Satterthwaite df {d['df']:.1f}, t = {d['t']:.3f}, p = {d['p']:.4g}"
    )


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
