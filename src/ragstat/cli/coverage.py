"""`ragstat coverage TABLE --dims intent,doc_type`: the coverage matrix of an evaluation set
(``ragstat.api.verbs.coverage``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ragstat.cli import options as o
from ragstat.cli.runlog import RunLog, recorded, write_json
from ragstat.cli.verb import options_command, settings_of

if TYPE_CHECKING:  # the library is imported when the verb runs: a lean start for the others
    from ragstat.api.verbs.coverage import CoverageMatrix

Table = Annotated[
    Path, typer.Argument(help="Query table (.parquet, .csv, .tsv, .jsonl): one row per query")
]
Dims = Annotated[
    str,
    typer.Option(help="Comma-separated dimension columns, e.g. intent,doc_type,ontology_branch"),
]
PilotScore = Annotated[
    str | None,
    typer.Option(help="Pilot score column: half-width per cell and documents needed"),
]
TargetHalfWidth = Annotated[
    float | None,
    typer.Option("--target-half-width", help="Target half-width h: documents needed per cell"),
]
CoverageEstimand = Annotated[str, typer.Option(help="macro or micro (as ragstat plan)")]


@dataclass(frozen=True, kw_only=True)
class CoverageOptions(o.ScoreCellOptions, o.OutputOptions):
    table: Table
    dims: Dims
    score: PilotScore = None
    cluster: o.Cluster = "doc_id"
    target_half_width: TargetHalfWidth = None
    estimand: CoverageEstimand = "macro"
    level: o.Level = 0.95


@options_command(CoverageOptions)
def coverage(a: CoverageOptions) -> None:
    """The coverage matrix: queries and documents per cell of the chosen dimensions, the
    empty cells, and per cell the half-width its documents give and the documents needed.

    Input: one row per query with the dimension columns, doc_id (the document) and,
    optionally, a pilot score column. Exit 2 on bad input. Fields, examples, output:
    docs/formats/coverage.md.
    """
    from ragstat.api.verbs.coverage import coverage as matrix_of

    settings = settings_of(a)
    with recorded("coverage", settings, inputs={"table": a.table}, out=a.out,
                  force=a.force) as log:  # fmt: skip
        result = matrix_of(
            a.table, dims=a.dims, score=a.score, cluster=a.cluster,
            target_half_width=a.target_half_width, estimand=a.estimand, level=a.level,
            non_numeric=a.non_numeric,
        )  # fmt: skip
        log.results = _headline(result)
        if log.out is not None:
            log.wrote(write_json(log.out / "result.json", result.to_dict()))
            _write_report(log, result)
    o.emit(result, a.as_json, lambda: _render(result))


def _write_report(log: RunLog, result: CoverageMatrix) -> None:
    log.write_report(result.report(created=log.started_at))


def _headline(result: CoverageMatrix) -> dict[str, Any]:
    """The counts a registry diff compares."""
    out = result.to_dict()
    return {"counts": out["counts"], "empty_cells": out["empty_cells"]}


def _render(result: CoverageMatrix) -> None:
    from ragstat.cli.terminal import console, literal

    c = console()
    for line in repr(result).splitlines():
        c.print(literal(line))
    empty = result.empty_cells
    c.print(literal(f"empty cells ({len(empty)}): " + ("; ".join(" × ".join(v) for v in empty)
                                                      or "none")))  # fmt: skip
    for note in result.notes:
        c.print(literal(f"  - {note}"))
