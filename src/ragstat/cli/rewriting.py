"""`ragstat rewriting RUNS.jsonl`: query-rewriting methods against the baseline, slice by
slice, clustered by document (the work is in :mod:`ragstat.api.verbs.rewriting`)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ragstat.cli import options as o

if TYPE_CHECKING:  # the library is imported when the verb runs
    from ragstat.api.verbs.rewriting import RewritingReport


def _render(result: RewritingReport) -> None:
    """The decisions table, then one sentence per method."""
    from rich.table import Table

    from ragstat.cli.terminal import console, literal

    scale = result.unit_scale
    t = Table(title=literal(result.title().split("\n")[0]), title_justify="left")
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
    out = console()
    out.print(t)
    for line in result.sentences:
        out.print(literal(line))


def rewriting(
    file: Annotated[Path, typer.Argument(help="Per-query table: query_id, doc_id, slice, scores")],
    score: Annotated[str | None, typer.Option(help="Score column (long table) or its name")] = None,
    baseline: Annotated[str, typer.Option(help="The baseline method")] = "baseline",
    methods: Annotated[str | None, typer.Option(help="Method columns, comma-separated")] = None,
    min_gain: Annotated[
        float, typer.Option(help="Minimum useful gain, in the score's units (0.02 = 2 points)")
    ] = 0.0,
    level: o.Level = 0.95,
    bootstrap_reps: o.Reps = 1999,
    seed: o.Seed = None,
    as_json: o.Json = False,
) -> None:
    """Per method and slice: method − baseline, clustered by document, and the decision.

    Default path, fallback or neither per slice. Fields, examples, output: docs/formats.md.
    """
    from ragstat.api.verbs.rewriting import rewriting as decide_rewriting

    result = decide_rewriting(
        file, score=score, baseline=baseline,
        methods=None if methods is None else [m.strip() for m in methods.split(",") if m.strip()],
        min_gain=min_gain, level=level, bootstrap_reps=bootstrap_reps, seed=seed,
    )  # fmt: skip
    o.emit(result, as_json, lambda: _render(result))
