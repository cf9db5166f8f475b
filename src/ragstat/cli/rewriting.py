"""`ragstat rewriting RUNS.jsonl`: query-rewriting methods against the baseline, slice by
slice, clustered by document (the work is in :mod:`ragstat.api.verbs.rewriting`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ragstat.cli import items
from ragstat.cli import options as o
from ragstat.cli.verb import options_command

if TYPE_CHECKING:  # the library is imported when the verb runs
    from ragstat.api.verbs.rewriting import RewritingReport

File = Annotated[Path, typer.Argument(help="Per-query table: query_id, doc_id, slice, scores")]
Score = Annotated[str | None, typer.Option(help="Score column (long table) or its name")]
Baseline = Annotated[str, typer.Option(help="The baseline method")]
Methods = Annotated[str | None, typer.Option(help="Method columns, comma-separated")]
MinGain = Annotated[
    float, typer.Option(help="Minimum useful gain, in the score's units (0.02 = 2 points)")
]


@dataclass(frozen=True, kw_only=True)
class RewritingOptions(o.OutputOptions):
    file: File
    score: Score = None
    baseline: Baseline = "baseline"
    methods: Methods = None
    min_gain: MinGain = 0.0
    level: o.Level = 0.95
    bootstrap_reps: o.Reps = 1999
    seed: o.Seed = None
    non_numeric: o.NonNumeric = "error"

    def method_names(self) -> list[str] | None:
        if self.methods is None:
            return None
        from ragstat.resources.caps import check_list

        names = [m.strip() for m in self.methods.split(",") if m.strip()]
        check_list(names, "--methods")
        return names


def _render(result: RewritingReport) -> None:
    """One sentence per method first, then the decisions table and every flag."""
    from rich.table import Table

    from ragstat.cli.terminal import console, literal

    scale = result.unit_scale
    out = console()
    for line in result.sentences():
        out.print(literal(line))
    t = Table(title=literal(result.title()), title_justify="left")
    for col in ("method", "slice", "queries", "documents", "difference", "interval", "decision"):
        t.add_column(col, justify="left" if col in ("method", "slice", "decision") else "right")
    for d in result.decisions:
        span = (
            "—"
            if d.lower is None or d.upper is None
            else f"[{d.lower * scale:+.1f}, {d.upper * scale:+.1f}]"
        )
        diff = "—" if d.difference is None else f"{d.difference * scale:+.1f}"
        t.add_row(
            literal(d.method), literal(d.slice), str(d.queries), str(d.documents), diff, span,
            literal(d.decision),
        )  # fmt: skip
    out.print(t)
    for line in result.flags():
        out.print(literal(f"flag: {line}"))
    for note in result.notes:
        out.print(literal(f"note: {note}"))


def _describe(result: RewritingReport) -> tuple[dict[str, Any], str]:
    """Registry results (per method × slice: difference, bounds, decision) and summary."""
    results = {
        f"{d.method}:{d.slice}": {
            "estimate": d.difference, "method": d.interval_method, "lower": d.lower,
            "upper": d.upper, "decision": d.decision,
        }
        for d in result.decisions
    }  # fmt: skip
    more = {"Flags": result.flags(), "Notes": list(result.notes)}
    return results, items.markdown_summary(result, more)


@options_command(RewritingOptions)
def rewriting(a: RewritingOptions) -> None:
    """Per method and slice: method − baseline, clustered by document, and the decision.

    Default path, fallback or neither per slice. Fields, examples, output:
    docs/formats/rewriting.md.
    """
    from ragstat.api.verbs.rewriting import rewriting as decide_rewriting

    result = items.run_recorded(
        "rewriting", a, {"file": a.file},
        lambda: decide_rewriting(
            a.file, score=a.score, baseline=a.baseline, methods=a.method_names(),
            min_gain=a.min_gain, level=a.level, bootstrap_reps=a.bootstrap_reps, seed=a.seed,
            non_numeric=a.non_numeric,
        ),
        _describe,
    )  # fmt: skip
    o.emit(result, a.as_json, lambda: _render(result))
