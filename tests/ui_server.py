"""`ragstat ui` in a subprocess on a free loopback port, for the tests that need a real
server (test_ui, test_ui_truth, test_ui_security, test_one_answer)."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

SERVE = (
    "import sys, uvicorn\n"
    "from ragstat.ui import create_app\n"
    "uvicorn.run(create_app(sys.argv[1]), host='127.0.0.1', port=int(sys.argv[2]),"
    " log_level='warning')\n"
)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def serve(registry: Path, env: Mapping[str, str] | None = None) -> Iterator[int]:
    """The view over ``registry``, listening; yields its port and stops it by its PID."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-c", SERVE, str(registry), str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env=None if env is None else {**os.environ, **env},
    )
    try:
        for _ in range(400):
            with contextlib.suppress(OSError):
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            if proc.poll() is not None:
                pytest.fail(f"server exited: {proc.stdout.read() if proc.stdout else ''}")
            time.sleep(0.05)
        yield port
    finally:
        os.kill(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
