"""The `ragstat` command line: one module per verb, errors as one line on stderr.

Exit codes (each means one thing):

====  ==================================================================================
0     the command did what was asked
1     a gate failed: ``ragstat gate`` blocks a release (nothing else exits 1)
2     bad input, a bad option or a machine error (disk full, permissions), said in one
      line ``ragstat: error: …`` on stderr
3     an internal error, a bug in ragstat: ``ragstat: internal error: … (set
      RAGSTAT_DEBUG=1 for a traceback)``
130   interrupted by SIGINT (Ctrl-C), DuckDB reads included
143   stopped by SIGTERM, DuckDB reads included
====  ==================================================================================
"""

from __future__ import annotations

import errno
import functools
import inspect
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
from ragstat.errors import RagstatError, missing_extra
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


def _print_version(value: bool) -> None:
    if value:
        from ragstat import __version__

        print(f"ragstat {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False,
        "--version",
        callback=_print_version,
        is_eager=True,
        help="Print ragstat's version and exit.",
    ),
) -> None:
    """Honest, document-clustered uncertainty for retrieval and RAG evaluation."""


for _name, _verb in _VERBS.items():
    app.command(_name)(_guarded(_verb))
app.add_typer(runs_app, name="runs")


def _interrupted(exc: BaseException) -> int:
    after = " (after its result was published)" if getattr(exc, "published", False) else ""
    print(f"ragstat: interrupted by {signal_name(exc)}{after}", file=sys.stderr)
    return exit_code(exc)


#: The exit codes (module docstring): a failing gate, bad input, a bug.
EXIT_GATE_FAILED, EXIT_BAD_INPUT, EXIT_INTERNAL = 1, 2, 3


def main(argv: list[str] | None = None) -> int:
    """Entry point: 0 ok; 1 a gate failed; user and machine errors → 2 with one line; a bug
    → 3; SIGINT/SIGTERM → 130/143 with one line (the module docstring's table)."""
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


def _not_utf8(argv: list[str] | None) -> str | None:
    """The error for the first argument that is not Unicode text, else None: Python decodes
    non-UTF-8 argv bytes to lone surrogates (surrogateescape), which DuckDB, JSON and every
    UTF-8 writer refuse far from the command line."""
    args = sys.argv[1:] if argv is None else argv
    for number, arg in enumerate(args, start=1):
        if isinstance(arg, str) and any("\ud800" <= c <= "\udfff" for c in arg):
            try:
                shown = arg.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
            except UnicodeEncodeError:  # a surrogate that was not an undecodable byte
                shown = arg.encode("utf-8", "backslashreplace").decode("utf-8")
            return f"argument {number} is not valid UTF-8: {safe(shown)}"
    return None


def _run(argv: list[str] | None) -> int:
    bad = _not_utf8(argv)
    if bad is not None:
        return _error(bad)
    set_argv(argv)
    try:
        code = app(args=argv, standalone_mode=False)
    except _Interrupted as exc:
        return _interrupted(exc.signal)
    except KeyboardInterrupt as exc:
        return _interrupted(exc)
    except (typer.Exit, SystemExit) as exc:
        if _pipe_closed(exc.__context__):  # click turns a closed stdout into exit 1
            return _quiet_stdout()
        code = getattr(exc, "exit_code", getattr(exc, "code", 0))
        return int(code or 0)
    except Exception as exc:  # user errors, usage errors (click, as bundled by typer), bugs
        if _pipe_closed(exc):
            return _quiet_stdout()
        return _failed(exc)
    if code == 130 and received:  # a signal while typer parsed the command line
        return _interrupted(received[-1])
    return code if isinstance(code, int) else 0


def _pipe_closed(exc: BaseException | None) -> bool:
    """The reader of stdout went away (``ragstat … | head -1``): EPIPE, not an error."""
    return isinstance(exc, BrokenPipeError) or (
        isinstance(exc, OSError) and exc.errno == errno.EPIPE
    )


def _quiet_stdout() -> int:
    """Exit 0 after the reader closed the pipe: what was wanted was read. stdout now points
    at the null device so the interpreter's final flush cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # stdout without a file descriptor (a test's capture)
        pass
    return 0


def _error(message: str) -> int:
    print(f"ragstat: error: {message}", file=sys.stderr)
    return EXIT_BAD_INPUT


def _query_interrupted(exc: BaseException) -> bool:
    """DuckDB stopped by a signal: its InterruptException, or an error (maybe re-raised as
    ours) whose message says "Query interrupted"."""
    chain = [exc, exc.__cause__, exc.__context__]
    return any(
        e is not None
        and (type(e).__name__ == "InterruptException" or "query interrupted" in str(e).lower())
        for e in chain
    )


def _failed(exc: Exception) -> int:
    if _query_interrupted(exc):
        return _interrupted(received[-1] if received else KeyboardInterrupt())
    if isinstance(exc, RagstatError):
        return _error(error_line(exc))
    extra = missing_extra(exc)
    if extra is not None:  # an optional package missing: name the extra that brings it
        return _error(error_line(extra))
    if isinstance(exc, OSError):  # the machine's, not ragstat's: disk full, permissions, …
        where = f" ({safe(exc.filename)})" if exc.filename else ""
        what = error_line(exc.strerror) if exc.strerror else error_line(exc)
        return _error(f"{what}{where}")
    return _other(exc)


def _usage(exc: Exception) -> int:
    """A click usage error as one line: its message and where the help is."""
    message = exc.format_message() if hasattr(exc, "format_message") else str(exc)
    ctx = getattr(exc, "ctx", None)
    path = getattr(ctx, "command_path", None) or "ragstat"
    return _error(f"{error_line(message)} (see '{safe(path)} --help')")


def _other(exc: Exception) -> int:
    cause = exc.__cause__ or exc.__context__
    if type(exc).__name__ == "Abort" and isinstance(cause, KeyboardInterrupt):
        return _interrupted(cause)
    if type(exc).__name__ == "NoArgsIsHelpError" and getattr(exc, "ctx", None) is not None:
        print(exc.ctx.get_help())  # type: ignore[attr-defined]
        return 0
    if hasattr(exc, "show") and isinstance(getattr(exc, "exit_code", None), int):
        return _usage(exc)  # click's UsageError (exit 2) and ClickException (exit 1): bad input
    if type(exc).__name__ == "Abort":
        return _error("aborted (no answer to a prompt)")
    if os.environ.get("RAGSTAT_DEBUG"):
        raise exc
    print(
        f"ragstat: internal error: {type(exc).__name__}: {error_line(exc)} "
        "(set RAGSTAT_DEBUG=1 for a traceback)",
        file=sys.stderr,
    )
    return EXIT_INTERNAL


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
