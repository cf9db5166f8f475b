"""`ragstat ppi TABLE`: few human labels, many judge scores — clustered prediction-powered
inference (the twin is ``ragstat.api.verbs.ppi``)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

import typer

from ragstat.cli import options as o
from ragstat.cli.runlog import recorded, write_json
from ragstat.cli.verb import options_command, settings_of
from ragstat.errors import InputError

if TYPE_CHECKING:  # the library is imported when the verb runs: a lean start for the others
    from ragstat.api.verbs.ppi import PPIResult

Table = Annotated[
    Path,
    typer.Argument(
        help="One row per item (.parquet, .csv, .tsv, .jsonl): judge score, human "
        "label (empty where unlabelled), document"
    ),
]
Judge = Annotated[str, typer.Option(help="Column with the judge's score (every item)")]
Human = Annotated[str, typer.Option(help="Column with the human label (empty where unlabelled)")]
Systems = Annotated[
    str | None, typer.Option(help="A,B: the paired difference A − B, paired on query_id")
]
System = Annotated[str | None, typer.Option(help="Keep rows of this system only")]
Lambda = Annotated[
    str,
    typer.Option(
        "--lambda",
        help="auto (PPI++: minimise the variance), 0 (human-only), 1 (classic PPI) or a number",
    ),
]
PPIDesign = Annotated[
    str,
    typer.Option(
        "--design",
        help="same_documents (labels are a random subset of the same "
        "documents' items) or disjoint_documents",
    ),
]
Dist = Annotated[str, typer.Option(help="t (default) or normal (CR0, as ppi_py)")]
Method = Annotated[
    str,
    typer.Option(
        help="auto (the document jackknife, λ re-tuned, for same_documents with t; else "
        "CR1), jackknife or cr1"
    ),
]
TargetHalfWidth = Annotated[
    float | None,
    typer.Option("--target-half-width", help="Labels needed for this half-width"),
]


@dataclass(frozen=True, kw_only=True)
class PPIOptions(o.ScoreCellOptions, o.OutputOptions):
    table: Table
    judge: Judge
    human: Human
    cluster: o.Cluster = "doc_id"
    system: System = None
    systems: Systems = None
    lam: Lambda = "auto"
    design: PPIDesign = "same_documents"
    dist: Dist = "t"
    method: Method = "auto"
    level: o.Level = 0.95
    target_half_width: TargetHalfWidth = None

    def lam_value(self) -> float | Literal["auto"]:
        text = self.lam.strip().lower()
        if text == "auto":
            return "auto"
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not abs(value) <= 1e6:  # inference.ppi.MAX_ABS_LAMBDA
            raise InputError(
                f"--lambda: expected auto, 0, 1 or a number from -1e6 to 1e6, got {self.lam!r}"
            )
        return value

    def system_pair(self) -> tuple[str, ...] | None:
        if self.systems is None:
            return None
        names = tuple(s.strip() for s in self.systems.split(",") if s.strip())
        if len(names) != 2:
            raise InputError(f"--systems: expected A,B (two names), got {self.systems!r}")
        return names


@options_command(PPIOptions)
def ppi(a: PPIOptions) -> None:
    """Mean (or paired difference) from a judge on every item and a few human labels.

    Prediction-powered inference with PPI++ power tuning and a document-clustered
    variance; shows the human-only interval and the judge-only estimate beside it, and
    what the judge is worth in human labels. Fields, examples, output: docs/formats/ppi.md.
    """
    from ragstat.api.verbs.ppi import ppi as run_ppi

    lam, pair = a.lam_value(), a.system_pair()
    with recorded("ppi", settings_of(a), inputs={"table": a.table}, out=a.out,
                  force=a.force) as log:  # fmt: skip
        result = run_ppi(
            a.table, judge=a.judge, human=a.human, cluster=a.cluster, system=a.system,
            systems=pair, lam=lam, design=a.design, level=a.level,
            target_half_width=a.target_half_width, dist=a.dist, method=a.method,
            non_numeric=a.non_numeric,
        )  # fmt: skip
        log.results = _headline(result)
        if log.out is not None:
            log.wrote(write_json(log.out / "result.json", result.to_dict()))
    o.emit(result, a.as_json, lambda: _render(result))


def _headline(result: PPIResult) -> dict[str, Any]:
    d = result.to_dict()
    return {result.estimand: {**d["ppi"], "method": "ppi", "lambda": d["lambda"]},
            "human_only": d["human_only"], "effective_labels": d["effective_labels"]}  # fmt: skip


def _render(result: PPIResult) -> None:
    from ragstat.cli.terminal import console, literal

    c = console()
    for line in repr(result).splitlines():
        c.print(literal(line))
    j = result.analysis.judge_only
    c.print(literal(f"judge only (biased): {j.estimate:.4g}"))
    for note in result.notes:
        c.print(literal(f"  - {note}"))
