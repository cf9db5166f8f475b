"""A run's output files read back safely: regular files reached through no symbolic link.

:func:`read_regular` opens every folder of an absolute path one by one, each relative to
the one before and without following links (``O_NOFOLLOW``), so a link planted anywhere on
the path — the file itself, its folder or a folder above — is refused, and nothing can be
swapped in between the checks; FIFOs and devices are refused without blocking. The file's
identity before the open (``lstat``) must be the one opened (``fstat``). Where the platform
has no ``dir_fd`` opens, each component is checked with ``lstat`` instead.

:func:`with_published_hashes` gives the registry the sha256 of each output file as the
run's published ``manifest.json`` lists them.
"""

from __future__ import annotations

import json
import os
import stat
from dataclasses import replace
from pathlib import Path

from ragstat.registry.manifest import MANIFEST_NAME, Manifest, output_folder

__all__ = [
    "MAX_MANIFEST",
    "UnsafeFile",
    "read_regular",
    "read_run_manifest",
    "with_published_hashes",
]

#: The largest manifest.json read back.
MAX_MANIFEST = 16 << 20
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_FLAGS = os.O_RDONLY | _NOFOLLOW | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
_DIR_FLAGS = _FLAGS | getattr(os, "O_DIRECTORY", 0)
_FILE_FLAGS = _FLAGS | getattr(os, "O_NONBLOCK", 0)


class UnsafeFile(Exception):
    """A file that is not read: why, in a sentence (``missing``: it is not there at all)."""

    def __init__(self, reason: str, missing: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.missing = missing


def _parts(path: Path) -> tuple[str, ...]:
    text = os.fspath(path)
    if not path.is_absolute() or os.path.normpath(text) != text:
        raise UnsafeFile(f"{path} is not a plain absolute path")
    return path.parts


def _why(exc: OSError, where: str) -> UnsafeFile:
    """An open's failure in words: a link, a missing file, or the system's reason."""
    try:
        if stat.S_ISLNK(os.lstat(where).st_mode):
            return UnsafeFile(f"{where} is a symbolic link")
    except OSError:
        pass
    if isinstance(exc, FileNotFoundError):
        return UnsafeFile(f"{where} does not exist", missing=True)
    if isinstance(exc, NotADirectoryError):
        return UnsafeFile(f"{where} is not a folder")
    return UnsafeFile(f"{where} cannot be opened ({exc.strerror or exc})")


def _open_at(parts: tuple[str, ...]) -> int:
    """The last part opened through folders opened one by one, no link followed."""
    fd = os.open(parts[0], _DIR_FLAGS)
    where = parts[0]
    try:
        for name in parts[1:-1]:
            where = os.path.join(where, name)
            try:
                nxt = os.open(name, _DIR_FLAGS, dir_fd=fd)
            except OSError as exc:
                raise _why(exc, where) from None
            os.close(fd)
            fd = nxt
        where = os.path.join(where, parts[-1])
        try:
            before = os.stat(parts[-1], dir_fd=fd, follow_symlinks=False)
            if stat.S_ISLNK(before.st_mode):
                raise UnsafeFile(f"{where} is a symbolic link")
            out = os.open(parts[-1], _FILE_FLAGS, dir_fd=fd)
        except OSError as exc:
            raise _why(exc, where) from None
    finally:
        os.close(fd)
    _same_file(out, before, where)
    return out


def _open_checked(parts: tuple[str, ...]) -> int:
    """The same without ``dir_fd``: each component checked with ``lstat``, then opened."""
    where = parts[0]
    for name in parts[1:]:
        where = os.path.join(where, name)
        try:
            st = os.lstat(where)
        except OSError as exc:
            raise _why(exc, where) from None
        if stat.S_ISLNK(st.st_mode):
            raise UnsafeFile(f"{where} is a symbolic link")
    try:
        out = os.open(where, _FILE_FLAGS)
    except OSError as exc:
        raise _why(exc, where) from None
    _same_file(out, st, where)
    return out


def _same_file(fd: int, before: os.stat_result, where: str) -> None:
    """The file opened must be the one checked (no swap between the check and the open)."""
    after = os.fstat(fd)
    if (after.st_dev, after.st_ino) != (before.st_dev, before.st_ino):
        os.close(fd)
        raise UnsafeFile(f"{where} changed while it was opened")
    if not stat.S_ISREG(after.st_mode):
        os.close(fd)
        raise UnsafeFile(f"{where} is not a regular file")


def read_regular(path: str | Path, limit: int) -> bytes:
    """The bytes of the regular file at the absolute ``path``, reached through no symbolic
    link; :class:`UnsafeFile` (saying why) for a link anywhere on the path, a file that is
    not regular or not there, or one larger than ``limit`` bytes."""
    parts = _parts(Path(path))
    if len(parts) < 2:
        raise UnsafeFile(f"{path} is not a file")
    dir_fd = os.open in os.supports_dir_fd and os.stat in os.supports_dir_fd and _NOFOLLOW
    fd = _open_at(parts) if dir_fd else _open_checked(parts)
    try:
        if os.fstat(fd).st_size > limit:
            raise UnsafeFile(f"{path} is larger than {limit:,} bytes")
        chunks, size = [], 0
        while block := os.read(fd, 1 << 20):
            chunks.append(block)
            size += len(block)
            if size > limit:
                raise UnsafeFile(f"{path} is larger than {limit:,} bytes")
        return b"".join(chunks)
    except OSError as exc:
        raise UnsafeFile(f"{path} cannot be read ({exc.strerror or exc})") from None
    finally:
        os.close(fd)


def read_run_manifest(folder: Path) -> dict:
    """``folder/manifest.json`` as a JSON object, read safely (:class:`UnsafeFile` else)."""
    where = folder / MANIFEST_NAME
    data = read_regular(where, MAX_MANIFEST)
    try:
        parsed = json.loads(data.decode("utf-8"))
    except (ValueError, RecursionError):
        raise UnsafeFile(f"{where} is not valid JSON") from None
    if not isinstance(parsed, dict):
        raise UnsafeFile(f"{where} is not a JSON object")
    return parsed


def with_published_hashes(m: Manifest) -> Manifest:
    """``m`` with the sha256 of its output files as its published ``manifest.json`` lists
    them, when ``m`` records none yet and that manifest is this run's; else ``m``."""
    folder = output_folder(m)
    if m.output_sha256 or m.status != "ok" or folder is None:
        return m
    try:
        published = read_run_manifest(folder)
    except UnsafeFile:
        return m
    hashes = published.get("output_sha256")
    if published.get("run_id") != m.run_id or not isinstance(hashes, dict):
        return m
    own = {p: h for p, h in hashes.items() if p in m.outputs and isinstance(h, str)}
    return replace(m, output_sha256=own) if own else m
