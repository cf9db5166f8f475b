"""The ``ragstat`` console script: signals are handled before the heavy imports start, so
Ctrl-C at any moment ends in one line and exit 130, never a traceback."""

from __future__ import annotations

import sys

from ragstat.signals import exit_code, install, signal_name

__all__ = ["run"]


def run() -> None:
    install()
    try:
        from ragstat.cli import main
    except KeyboardInterrupt as exc:
        print(f"ragstat: interrupted by {signal_name(exc)} while starting", file=sys.stderr)
        sys.exit(exit_code(exc))
    sys.exit(main())
