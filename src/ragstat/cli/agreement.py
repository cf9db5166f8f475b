"""`ragstat agreement TABLE --judge COL --human COL`: judge–human agreement (κ, α, AC1,
accuracy, precision/recall, confusion matrix, mean bias) with document-cluster intervals.
The work is :func:`ragstat.api.verbs.agreement.agreement`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ragstat.cli import options as o
from ragstat.cli.runlog import recorded, write_json
from ragstat.cli.verb import options_command, settings_of

if TYPE_CHECKING:  # the library is imported when the verb runs: a lean start for the others
    from ragstat.api.verbs.agreement import AgreementResult

Table = Annotated[
    Path,
    typer.Argument(
        metavar="TABLE",
        help="One row per item (.jsonl, .csv, .tsv, .parquet): the judge's label, the human "
        "label where one exists, the document",
    ),
]
Judge = Annotated[str, typer.Option(help="Column with the judge's label")]
Human = Annotated[str, typer.Option(help="Column with the human label (empty: not labelled)")]
Scale = Annotated[
    str,
    typer.Option(
        help="nominal | ordinal | interval: the labels' level of measurement (Krippendorff's "
        "α; ordinal and interval add weighted κ)"
    ),
]
Positive = Annotated[
    str | None,
    typer.Option(help="Label of the positive class for precision/recall (default: 1 or true)"),
]
Labels = Annotated[
    str | None,
    typer.Option(
        help="The judge's scale, comma-separated, lowest first: every label must be one of "
        "these (an ordinal scale of text labels needs it)"
    ),
]
SliceBy = Annotated[str | None, typer.Option(help="Field to report agreement by (slices)")]


@dataclass(frozen=True, kw_only=True)
class AgreementOptions(o.OutputOptions):
    file: Table
    judge: Judge
    human: Human
    cluster: o.Cluster = "doc_id"
    scale: Scale = "nominal"
    positive: Positive = None
    labels: Labels = None
    slice_by: SliceBy = None
    level: o.Level = 0.95
    bootstrap_reps: o.Reps = 1999
    seed: o.Seed = None

    def label_list(self) -> list[str] | None:
        if self.labels is None:
            return None
        from ragstat.resources.caps import LABELS_ENV, check_cap

        out = [t.strip() for t in self.labels.split(",") if t.strip()]
        check_cap(len(out), LABELS_ENV, "--labels has too many values", "give fewer")
        return out


@options_command(AgreementOptions)
def agreement(a: AgreementOptions) -> None:
    """How far the judge agrees with human labels: κ, α, AC1, accuracy, precision/recall,
    the confusion matrix and the mean bias, with intervals clustered by document.

    Input: one row per item with the judge's label, the human label where one exists and
    the document. Exit 0 with the statistics, 2 on bad input. Fields, examples, output:
    docs/formats/agreement.md.
    """
    from ragstat.api.verbs.agreement import agreement as agree

    settings = settings_of(a)
    with recorded("agreement", settings, inputs={"file": a.file}, out=a.out, force=a.force) as log:
        result = agree(
            a.file, judge=a.judge, human=a.human, cluster=a.cluster, scale=a.scale,
            positive=a.positive, labels=a.label_list(), slice_by=a.slice_by, level=a.level,
            bootstrap_reps=a.bootstrap_reps, seed=a.seed,
        )  # fmt: skip
        log.config["seed"] = result.seed
        log.results = _headline(result)
        if log.out is not None:
            log.wrote(write_json(log.out / "result.json", result.to_dict()))
    o.emit(result, a.as_json, lambda: _render(result))


def _headline(result: AgreementResult) -> dict[str, Any]:
    """Each statistic's estimate and interval: what a registry diff compares."""
    return {
        s.statistic: {
            "estimate": s.estimate,
            "method": s.method,
            "lower": s.lower,
            "upper": s.upper,
        }
        for s in result.overall.statistics
    }


def _render(result: AgreementResult) -> None:
    from ragstat.cli.terminal import console, literal
    from ragstat.tidy import text_table

    c = console()
    for line in repr(result).splitlines():
        c.print(literal(line))
    labels = [str(x) for x in result.labels]
    rows = [
        {"judge \\ human": lab, **dict(zip(labels, counts, strict=True))}
        for lab, counts in zip(labels, result.overall.confusion, strict=True)
    ]
    c.print("confusion matrix (rows: judge, columns: human):")
    for line in text_table(rows, ["judge \\ human", *labels]).splitlines():
        c.print(literal(f"  {line}"))
    c.print(literal(result.to_dict()["interval"]))
    for note in result.notes:
        c.print(literal(f"note: {note}"))
