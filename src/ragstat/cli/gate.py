"""`ragstat gate GATES.toml`: release gates on interval bounds; the exit code decides CI.

Exit 0 when every blocking gate passes, 1 when a blocking gate fails (or is
inconclusive and the file says inconclusive gates block), 2 on bad input.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ragstat.cli import options as o
from ragstat.cli.runlog import RunLog, recorded, write_json
from ragstat.cli.verb import options_command

if TYPE_CHECKING:
    from ragstat.decisions.gates import GateReport

GatesFile = Annotated[
    Path, typer.Argument(help="Gates file (TOML): inputs, level, correction, gates")
]
Markdown = Annotated[
    Path | None, typer.Option("--markdown", help="Write a Markdown summary (e.g. a CI job summary)")
]
Junit = Annotated[
    Path | None, typer.Option("--junit", help="Write JUnit XML: one test case per gate")
]


@dataclass(frozen=True, kw_only=True)
class GateOptions(o.OutputOptions):
    gates_file: GatesFile
    markdown: Markdown = None
    junit: Junit = None


@options_command(GateOptions)
def gate(a: GateOptions) -> None:
    """Decide release gates on interval bounds (at_least, at_most, not_worse_than_baseline,
    better_than_baseline, equivalent) with a family correction (holm, bonferroni, bh).

    Gates file: \\[inputs.NAME] (path, system …) and \\[\\[gates]] (name, kind, metric,
    threshold | margin, slice …). Fields, examples: docs/formats/gate.md.
    """
    from ragstat.api.verbs.gate import gate as decide
    from ragstat.api.verbs.gate import input_files, read_gates_file

    spec_file = read_gates_file(a.gates_file)  # bad input: exit 2 before anything is recorded
    inputs: dict[str, Path | None] = {"gates_file": a.gates_file, **input_files(spec_file)}
    settings = {"gates_file": str(a.gates_file.resolve())}
    with recorded("gate", settings, inputs=inputs, out=a.out, force=a.force) as log:
        result = decide(spec_file)  # the inputs read once, above
        log.config |= {"level": result.level, "correction": result.correction}
        log.results = {g.spec.name: g.decision.outcome for g in result.gates}
        log.decided(result.passed)
        _write(log, result, a)
    _side_files(result, a)
    if a.as_json:
        from ragstat.tidy import json_text

        typer.echo(json_text(result.to_dict()))
    else:
        _render(result)
    raise typer.Exit(result.exit_code())


def _write(log: RunLog, result: GateReport, a: GateOptions) -> None:
    if log.out is None:
        return
    from ragstat.atomic import atomic_write_text
    from ragstat.report.gate_summary import gates_markdown
    from ragstat.report.gates import report_from_gates

    log.wrote(write_json(log.out / "result.json", result.to_dict()))
    path = log.out / "gates.md"
    log.wrote(atomic_write_text(path, gates_markdown(result)))
    log.write_report(report_from_gates(result, source=result.source, created=log.started_at))


def _side_files(result: GateReport, a: GateOptions) -> None:
    from ragstat.atomic import atomic_write_text
    from ragstat.report.gate_summary import gates_junit, gates_markdown

    if a.markdown is not None:
        atomic_write_text(a.markdown, gates_markdown(result))
    if a.junit is not None:
        atomic_write_text(a.junit, gates_junit(result))


def _render(result: GateReport) -> None:
    from ragstat.cli.terminal import console, literal

    c = console()
    c.print(literal(result.verdict()))
    for g in result.gates:
        iv = g.decision.interval
        bounds = "no interval" if iv is None else f"[{iv.lower:.4g}, {iv.upper:.4g}]"
        why = f" — {g.decision.reason}" if g.decision.reason else ""
        c.print(
            literal(
                f"  {g.decision.outcome} · {g.spec.name}: {g.spec.kind} {g.spec.metric} "
                f"{bounds} at {g.decision.level:.4g} ({g.evidence}){why}"
            )
        )
