"""SIGINT and SIGTERM as exceptions, so an interrupted run cleans up and says so.

SIGINT already raises :class:`KeyboardInterrupt`; :func:`install` makes SIGTERM
raise :class:`Terminated`, a subclass, so one ``except KeyboardInterrupt`` (and
every ``finally``) handles both. The command line exits 130 or 143.
"""

from __future__ import annotations

import contextlib
import signal
from types import FrameType

__all__ = ["Terminated", "exit_code", "install", "signal_name"]


class Terminated(KeyboardInterrupt):
    """The process received SIGTERM."""

    signal_name = "SIGTERM"


def _terminate(signum: int, frame: FrameType | None) -> None:
    raise Terminated()


def install() -> None:
    """Raise :class:`Terminated` on SIGTERM (main thread only; elsewhere a no-op)."""
    with contextlib.suppress(ValueError, OSError):  # not the main thread
        signal.signal(signal.SIGTERM, _terminate)


def signal_name(exc: BaseException) -> str:
    return getattr(exc, "signal_name", "SIGINT")


def exit_code(exc: BaseException) -> int:
    """128 + the signal's number, as a shell reports a process stopped by it."""
    return 128 + (signal.SIGTERM if isinstance(exc, Terminated) else signal.SIGINT)
