"""The `ragstat` command line: one module per verb, errors as one line on stderr."""

from __future__ import annotations

import os
import sys

import typer

from ragstat.cli import (
    compare,
    evaluate,
    generation,
    ingestion,
    interval,
    ontology,
    plan,
    report,
    simulate,
    study,
)
from ragstat.cli.runs import runs_app
from ragstat.errors import RagstatError

__all__ = ["app", "main"]

app = typer.Typer(
    name="ragstat",
    help="Honest, document-clustered uncertainty for retrieval and RAG evaluation.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.command("interval")(interval.interval)
app.command("compare")(compare.compare)
app.command("plan")(plan.plan)
app.command("evaluate")(evaluate.evaluate)
app.command("generation")(generation.generation)
app.command("ontology")(ontology.ontology)
app.command("ingestion")(ingestion.ingestion)
app.command("latency")(ingestion.latency)
app.command("simulate")(simulate.simulate)
app.command("study")(study.study)
app.command("demo")(study.demo)
app.command("report")(report.report)
app.add_typer(runs_app, name="runs")


def main(argv: list[str] | None = None) -> int:
    """Entry point: user errors → exit 2 with one line; internal errors → exit 1."""
    try:
        app(args=argv, standalone_mode=False)
    except RagstatError as exc:
        print(f"ragstat: error: {exc}", file=sys.stderr)
        return 2
    except (typer.Exit, SystemExit) as exc:
        code = getattr(exc, "exit_code", getattr(exc, "code", 0))
        return int(code or 0)
    except Exception as exc:  # usage errors (click, as bundled by typer) and genuine bugs
        if type(exc).__name__ == "NoArgsIsHelpError" and getattr(exc, "ctx", None) is not None:
            print(exc.ctx.get_help())
            return 0
        if hasattr(exc, "show") and isinstance(getattr(exc, "exit_code", None), int):
            exc.show()  # a usage error: click prints its own message
            return exc.exit_code
        if type(exc).__name__ == "Abort":
            print("ragstat: aborted", file=sys.stderr)
            return 1
        if os.environ.get("RAGSTAT_DEBUG"):
            raise
        print(
            f"ragstat: internal error: {type(exc).__name__}: {exc} "
            "(set RAGSTAT_DEBUG=1 for a traceback)",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
