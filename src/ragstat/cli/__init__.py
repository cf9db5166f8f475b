"""The `ragstat` command line: one module per verb, errors as one line on stderr."""

from __future__ import annotations

import functools
import inspect
import io
import os
import sys
import typing
from collections.abc import Callable
from typing import Any

import typer

from ragstat.cli import (
    agreement,
    chunking,
    compare,
    coverage,
    evaluate,
    extraction,
    filter_rule,
    gate,
    generation,
    ingestion,
    interval,
    judge_bias,
    nuggets,
    ontology,
    plan,
    ppi,
    report,
    rewriting,
    routing,
    simulate,
    split,
    study,
    ui,
)
from ragstat.cli.runlog import set_argv
from ragstat.cli.runs import runs_app
from ragstat.cli.terminal import error_line, route_warnings, safe
from ragstat.cli.verb import Group
from ragstat.errors import RagstatError
from ragstat.signals import exit_code, received, signal_name
from ragstat.signals import install as install_signals

__all__ = ["app", "main"]

app = typer.Typer(
    name="ragstat",
    cls=Group,
    help="Honest, document-clustered uncertainty for retrieval and RAG evaluation.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # click's plain help: typer's rich help imports ~0.2 s of rich
    context_settings={"max_content_width": 120},
)


class _Interrupted(Exception):
    """A signal that stopped a verb, carried past click (which would turn it into Abort)."""

    def __init__(self, signal: KeyboardInterrupt) -> None:
        super().__init__(signal_name(signal))
        self.signal = signal


def _guarded(fn: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(fn)
    def verb(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except KeyboardInterrupt as exc:
            raise _Interrupted(exc) from None

    # The annotations resolved once here: typer would evaluate their strings four times.
    verb.__signature__ = inspect.signature(fn, eval_str=True)  # type: ignore[attr-defined]
    verb.__annotations__ = typing.get_type_hints(fn, include_extras=True)
    del verb.__wrapped__  # typer reads the signature above
    return verb


_VERBS: dict[str, Callable[..., Any]] = {
    "interval": interval.interval,
    "compare": compare.compare,
    "plan": plan.plan,
    "evaluate": evaluate.evaluate,
    "agreement": agreement.agreement,
    "judge-bias": judge_bias.judge_bias,
    "ppi": ppi.ppi,
    "split": split.split,
    "coverage": coverage.coverage,
    "ui": ui.ui,
    "gate": gate.gate,
    "filter-rule": filter_rule.filter_rule,
    "generation": generation.generation,
    "ontology": ontology.ontology,
    "ingestion": ingestion.ingestion,
    "latency": ingestion.latency,
    "extraction": extraction.extraction,
    "routing": routing.routing,
    "nuggets": nuggets.nuggets,
    "chunking": chunking.chunking,
    "rewriting": rewriting.rewriting,
    "simulate": simulate.simulate,
    "study": study.study,
    "demo": study.demo,
    "report": report.report,
}
for _name, _verb in _VERBS.items():
    app.command(_name)(_guarded(_verb))
app.add_typer(runs_app, name="runs")


def _interrupted(exc: BaseException) -> int:
    after = " (after its result was published)" if getattr(exc, "published", False) else ""
    print(f"ragstat: interrupted by {signal_name(exc)}{after}", file=sys.stderr)
    return exit_code(exc)


def main(argv: list[str] | None = None) -> int:
    """Entry point: user errors → exit 2 with one line; SIGINT/SIGTERM → 130/143 with one
    line; internal errors → exit 1."""
    install_signals()
    _wide_help_when_piped()
    with route_warnings():
        return _run(argv)


#: ``--help`` width when stdout is not a terminal (a pager or a file does not wrap at 80).
PIPED_HELP_WIDTH = 160


def _wide_help_when_piped() -> None:
    """``--help`` is drawn 80 columns wide when piped; widen it unless COLUMNS is set."""
    info = getattr(app, "info", None)  # (tests may stand a function in for the app)
    if info is not None and not os.environ.get("COLUMNS") and not sys.stdout.isatty():
        info.context_settings = {
            **(info.context_settings or {}),
            "terminal_width": PIPED_HELP_WIDTH,
        }


def _run(argv: list[str] | None) -> int:
    set_argv(argv)
    try:
        code = app(args=argv, standalone_mode=False)
    except RagstatError as exc:
        print(f"ragstat: error: {error_line(exc)}", file=sys.stderr)
        return 2
    except _Interrupted as exc:
        return _interrupted(exc.signal)
    except KeyboardInterrupt as exc:
        return _interrupted(exc)
    except (typer.Exit, SystemExit) as exc:
        code = getattr(exc, "exit_code", getattr(exc, "code", 0))
        return int(code or 0)
    except OSError as exc:  # the machine's, not ragstat's: disk full, permissions, …
        where = f" ({safe(exc.filename)})" if exc.filename else ""
        what = safe(exc.strerror) if exc.strerror else error_line(exc)
        print(f"ragstat: error: {what}{where}", file=sys.stderr)
        return 2
    except Exception as exc:  # usage errors (click, as bundled by typer) and genuine bugs
        return _other(exc)
    if code == 130 and received:  # a signal while typer parsed the command line
        return _interrupted(received[-1])
    return code if isinstance(code, int) else 0


def _other(exc: Exception) -> int:
    cause = exc.__cause__ or exc.__context__
    if type(exc).__name__ == "Abort" and isinstance(cause, KeyboardInterrupt):
        return _interrupted(cause)
    if type(exc).__name__ == "InterruptException":  # DuckDB stopped by Ctrl-C
        return _interrupted(KeyboardInterrupt())
    if type(exc).__name__ == "NoArgsIsHelpError" and getattr(exc, "ctx", None) is not None:
        print(exc.ctx.get_help())  # type: ignore[attr-defined]
        return 0
    if hasattr(exc, "show") and isinstance(getattr(exc, "exit_code", None), int):
        buf = io.StringIO()
        exc.show(file=buf)  # a usage error: click's own message, escaped
        for line in buf.getvalue().splitlines():
            print(safe(line), file=sys.stderr)
        return int(exc.exit_code)  # type: ignore[attr-defined]
    if type(exc).__name__ == "Abort":
        print("ragstat: aborted", file=sys.stderr)
        return 1
    if os.environ.get("RAGSTAT_DEBUG"):
        raise exc
    print(
        f"ragstat: internal error: {type(exc).__name__}: {error_line(exc)} "
        "(set RAGSTAT_DEBUG=1 for a traceback)",
        file=sys.stderr,
    )
    return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
