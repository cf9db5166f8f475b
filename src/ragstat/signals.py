"""SIGINT and SIGTERM as exceptions, so an interrupted run cleans up and says so.

SIGINT already raises :class:`KeyboardInterrupt`; :func:`install` makes SIGTERM
raise :class:`Terminated`, a subclass, so one ``except KeyboardInterrupt`` (and
every ``finally``) handles both. The command line exits 130 or 143.
"""

from __future__ import annotations

import contextlib
import signal
from types import FrameType

__all__ = ["Terminated", "exit_code", "install", "received", "restore_defaults", "signal_name"]


class Terminated(KeyboardInterrupt):
    """The process received SIGTERM."""

    signal_name = "SIGTERM"


#: The last signal this process received (typer turns one that arrives while it parses the
#: command line into a bare exit code 130; this says which it was).
received: list[KeyboardInterrupt] = []


def _terminate(signum: int, frame: FrameType | None) -> None:
    received.append(Terminated())
    raise received[-1]


def _interrupt(signum: int, frame: FrameType | None) -> None:
    received.append(KeyboardInterrupt())
    raise received[-1]


def install() -> None:
    """Raise :class:`Terminated` on SIGTERM and :class:`KeyboardInterrupt` on SIGINT, noting
    which arrived (main thread only; elsewhere a no-op)."""
    received.clear()
    with contextlib.suppress(ValueError, OSError):  # not the main thread
        signal.signal(signal.SIGTERM, _terminate)
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            signal.signal(signal.SIGINT, _interrupt)


def restore_defaults() -> None:
    """For a forked worker: SIGTERM ends it quietly, Ctrl-C is left to the parent."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def signal_name(exc: BaseException) -> str:
    return getattr(exc, "signal_name", "SIGINT")


def exit_code(exc: BaseException) -> int:
    """128 + the signal's number, as a shell reports a process stopped by it."""
    return 128 + (signal.SIGTERM if isinstance(exc, Terminated) else signal.SIGINT)
