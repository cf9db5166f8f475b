"""Atomic file writes: write beside the target, then rename over it."""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path

from ragstat.errors import InputError

__all__ = ["atomic_write", "atomic_write_text", "current_umask"]


def current_umask() -> int:
    """The process's umask (read from /proc where possible: setting it is not thread-safe)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def atomic_write(path: str | Path, write: Callable[[Path], object]) -> Path:
    """Call ``write(tmp)`` on a temporary path in the target's folder, then rename it into place.

    A crash leaves either the old file or the new one, never a half-written file. A target
    that exists and is not a regular file (a device such as /dev/zero, a FIFO, a socket, a
    folder) is refused: renaming over it would replace the device node itself.
    """
    path = Path(path)
    _check_target(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    os.chmod(tmp, 0o666 & ~current_umask())  # mkstemp makes 0600; a file is as open() makes it
    try:
        write(Path(tmp))
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def _check_target(path: Path) -> None:
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    except OSError as exc:
        raise InputError(f"cannot write {path}: {exc.strerror or exc}") from exc
    if stat.S_ISREG(mode) or stat.S_ISLNK(mode):
        return
    kind = (
        "a folder" if stat.S_ISDIR(mode)
        else "a FIFO (named pipe)" if stat.S_ISFIFO(mode)
        else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
        else "not a regular file"
    )  # fmt: skip
    raise InputError(f"cannot write {path}: it is {kind}; give the path of a file to write")


def atomic_write_text(path: str | Path, text: str) -> Path:
    return atomic_write(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))
