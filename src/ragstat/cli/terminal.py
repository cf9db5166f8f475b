"""What ragstat writes to a terminal: user text with its control characters made visible,
rich markup kept literal, and library warnings as one deduplicated line each.

A file name, doc id, ``--system`` value or error message can carry terminal escape
sequences (``ESC [31m``, ``ESC ] 0;title BEL``), carriage returns that overwrite a line,
line separators, or bidi overrides that reorder what a reader sees. ``safe`` turns every
such character into a visible escape (``\\x1b``, ``\\u202e``), so the terminal shows the
bytes instead of obeying them. JSON output needs none of this: ``json.dumps`` escapes
control characters itself.

Printed values are words, never Python reprs: :func:`plain_text` writes a mapping as
``key: value, …`` and a sequence as ``a, b``. On a terminal rich fits tables to its width;
piped or redirected, :func:`console` is wide and never wraps, so a line stays one line
for ``grep`` and friends.
"""

from __future__ import annotations

import contextlib
import logging
import sys
import warnings
from types import TracebackType
from typing import TYPE_CHECKING, TextIO

from ragstat.tidy import visible

if TYPE_CHECKING:
    from rich.console import Console
    from rich.text import Text

__all__ = [
    "PIPE_WIDTH",
    "WarningRouting",
    "console",
    "error_line",
    "literal",
    "markup",
    "plain_text",
    "route_warnings",
    "safe",
    "warning_line",
]

#: Width of a console that writes to a pipe or a file: no table is ever cut to fit.
PIPE_WIDTH = 100_000


def safe(text: object) -> str:
    """``str(text)`` with every control, separator and bidi character as a visible escape
    (:func:`ragstat.tidy.visible`, shared with the Markdown and HTML reports).

    >>> safe("a\\x1b[31mred\\u202e.csv")
    'a\\\\x1b[31mred\\\\u202e.csv'
    """
    return visible(text)


def markup(text: object) -> str:
    """``safe(text)`` for a rich markup string: ``[bold]`` in user text prints literally."""
    from rich.markup import escape

    return escape(safe(text))


def literal(text: object, style: str = "") -> Text:
    """User text as a rich ``Text``: never parsed for markup or emoji codes."""
    from rich.text import Text

    return Text(safe(text), style=style)


def console(stderr: bool = False) -> Console:
    """The rich console renderers print on: emoji codes such as ``:warning:`` stay text.

    On a terminal it has the terminal's width. Piped or redirected it is :data:`PIPE_WIDTH`
    wide and soft-wraps (never breaks a line), whatever ``COLUMNS`` says: rich would
    otherwise break every line at 80 columns.
    """
    from rich.console import Console

    out = Console(stderr=stderr, emoji=False)
    if out.is_terminal:
        return out
    return Console(stderr=stderr, emoji=False, width=PIPE_WIDTH, soft_wrap=True)


def plain_text(value: object, digits: int = 4) -> str:
    """A value as words for the terminal: ``{"single chunk": 74}`` → ``single chunk: 74``,
    a list or tuple → ``a, b``, None → ``—``, a float with ``digits`` significant digits,
    numpy scalars as Python numbers. Control characters are escaped (:func:`safe`)."""
    item = getattr(value, "item", None)
    if callable(item) and getattr(value, "ndim", None) == 0:
        value = item()
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.{digits}g}"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, dict):
        return ", ".join(f"{plain_text(k)}: {plain_text(v, digits)}" for k, v in value.items())
    if isinstance(value, (list, tuple, set, frozenset)):
        return ", ".join(plain_text(v, digits) for v in value)
    return safe(value)


def error_line(exc: object) -> str:
    """An exception's message (or a text) on one safe line: a message of several lines has
    them stripped and joined with "; " (stderr gets one line per error); other controls and
    separators are escaped (:func:`safe`); the type name stands in for an empty message."""
    text = str(exc)
    if "\n" in text:
        text = "; ".join(part.strip() for part in text.split("\n") if part.strip())
    if not text:
        text = type(exc).__name__ if isinstance(exc, BaseException) else ""
    return safe(text)


def warning_line(message: object) -> str:
    """A library's warning text as one line: whitespace runs (newlines too) become one space."""
    return safe(" ".join(str(message).split()))


class _LogToLine(logging.Handler):
    """Root-logger handler: each library record at WARNING or above as one warning line."""

    def __init__(self, routing: WarningRouting) -> None:
        super().__init__(logging.WARNING)
        self.routing = routing

    def emit(self, record: logging.LogRecord) -> None:
        try:
            message = record.getMessage()
        except Exception:  # a library's malformed format arguments
            message = str(record.msg)
        self.routing.emit(message)


class WarningRouting:
    """Installed by :func:`route_warnings`; ``restore()`` (or leaving a ``with``) undoes it."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream
        self.seen: set[str] = set()
        self._showwarning = warnings.showwarning
        self._handler = _LogToLine(self)
        root = logging.getLogger()
        # A routing already in place (main called again in one process) keeps the logging
        # side: a second root handler would print each record twice.
        self._owns_handler = not any(isinstance(h, _LogToLine) for h in root.handlers)
        warnings.showwarning = self.showwarning
        if self._owns_handler:
            root.addHandler(self._handler)

    def emit(self, message: object) -> None:
        """Write ``ragstat: warning: <message>`` unless this message was written already."""
        line = warning_line(message)
        if not line or line in self.seen:
            return
        self.seen.add(line)
        stream = self.stream if self.stream is not None else sys.stderr
        with contextlib.suppress(OSError, ValueError):  # stderr closed, a broken pipe
            print(f"ragstat: warning: {line}", file=stream, flush=True)

    def showwarning(
        self,
        message: Warning | str,
        category: type[Warning],
        filename: str,
        lineno: int,
        file: TextIO | None = None,
        line: str | None = None,
    ) -> None:
        """``warnings.showwarning`` replacement: the message only, no file, line or source."""
        self.emit(message)

    def restore(self) -> None:
        """Put back the previous ``warnings.showwarning`` and remove the logging handler."""
        if warnings.showwarning == self.showwarning:
            warnings.showwarning = self._showwarning
        if self._owns_handler:
            logging.getLogger().removeHandler(self._handler)

    def __enter__(self) -> WarningRouting:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.restore()


def route_warnings(stream: TextIO | None = None) -> WarningRouting:
    """Send library warnings (``warnings.warn`` and ``logging`` records at WARNING or above)
    to ``stream`` (default: ``sys.stderr`` at the time of writing) as one line each,
    ``ragstat: warning: <message>``, at most once per distinct message.

    Warning filters still decide what is shown (``-W error`` still raises). Use as
    ``with route_warnings(): ...`` to undo it on exit, or call ``.restore()``.
    """
    return WarningRouting(stream)
