"""Input caps: every file ragstat reads is a regular file, read within bounds.

Each cap fails at once with one line (an `InputError`, exit 2) that names the file, the
limit and the environment variable that changes it:

* ``RAGSTAT_MAX_DECOMPRESSED``: bytes one compressed file (gzip) or archive member
  (deflate, zstd) may expand to; default 2 GiB, or the memory budget when smaller;
* ``RAGSTAT_MAX_RATIO``: expansion ratio allowed beyond the first 32 MiB (default 200:1,
  a zero-filled "bomb" is ≈ 1,000:1, real logs 5–30:1);
* ``RAGSTAT_MAX_LINE``: bytes of one line of a text or JSONL file (default 64 MiB);
* ``RAGSTAT_MAX_JSON_DEPTH``: nesting of a JSON value (default 200);
* ``RAGSTAT_MAX_ZIP_MEMBERS``: members of one archive (default 100,000);
* integers longer than Python converts (4,300 digits; ``PYTHONINTMAXSTRDIGITS``).

:func:`regular_file` refuses FIFOs, devices and sockets *before* anything opens them
(opening a FIFO blocks); :func:`open_regular` opens with ``O_NONBLOCK`` and checks again.
"""

from __future__ import annotations

import json
import os
import re
import stat
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from ragstat.errors import InputError
from ragstat.resources import fmt_bytes, memory_budget, parse_bytes

__all__ = [
    "DECOMPRESSED_ENV",
    "DEPTH_ENV",
    "LINE_ENV",
    "MEMBERS_ENV",
    "RATIO_ENV",
    "Expansion",
    "check_depth",
    "chunks",
    "json_value",
    "max_line",
    "max_members",
    "open_regular",
    "read_all",
    "regular_file",
]

DECOMPRESSED_ENV = "RAGSTAT_MAX_DECOMPRESSED"
RATIO_ENV = "RAGSTAT_MAX_RATIO"
LINE_ENV = "RAGSTAT_MAX_LINE"
DEPTH_ENV = "RAGSTAT_MAX_JSON_DEPTH"
MEMBERS_ENV = "RAGSTAT_MAX_ZIP_MEMBERS"

_RATIO_FREE = 32 << 20  # output below this size is never held to the ratio
_CHUNK = 1 << 20
_GZIP_MAGIC = b"\x1f\x8b"
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_PAIR = re.compile(r"\[\]|\{\}")


def _env_int(name: str, default: int, size: bool = False) -> int:
    text = os.environ.get(name, "").strip()
    if not text:
        return default
    if size:
        return parse_bytes(text, name)
    try:
        value = int(float(text))
    except ValueError:
        value = 0
    if value <= 0:
        raise InputError(f"{name}={text!r} is not a positive number")
    return value


def max_decompressed() -> int:
    return _env_int(DECOMPRESSED_ENV, min(2 << 30, memory_budget()), size=True)


def max_line() -> int:
    return _env_int(LINE_ENV, 64 << 20, size=True)


def max_members() -> int:
    return _env_int(MEMBERS_ENV, 100_000)


def max_depth() -> int:
    return _env_int(DEPTH_ENV, 200)


def _kind(mode: int) -> str | None:
    for test, name in (
        (stat.S_ISFIFO, "a FIFO (named pipe)"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISDIR, "a folder"),
    ):
        if test(mode):
            return name
    return None if stat.S_ISREG(mode) else "not a regular file"


def regular_file(path: str | os.PathLike[str], what: str = "file") -> Path:
    """``path`` when it is a regular file (symlinks followed); else one-line `InputError`.
    Never opens it: a FIFO is refused without blocking."""
    path = Path(path)
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise InputError(f"{what} {path} does not exist (no such file); check the path") from None
    except OSError as exc:
        raise InputError(f"cannot read {what} {path}: {exc.strerror or exc}") from None
    kind = _kind(mode)
    if kind is not None:
        raise InputError(
            f"{what} {path} is {kind}, not a regular file; ragstat reads only regular files "
            "(copy the data into a file first)"
        )
    return path


def open_regular(path: str | os.PathLike[str], what: str = "file") -> IO[bytes]:
    """``path`` opened for binary reading, refused unless a regular file (checked before
    opening, and again on the open descriptor, which is opened non-blocking)."""
    path = regular_file(path, what)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise InputError(f"cannot read {what} {path}: {exc.strerror or exc}") from None
    kind = _kind(os.fstat(fd).st_mode)
    if kind is not None:
        os.close(fd)
        raise InputError(f"{what} {path} is {kind}, not a regular file")
    return os.fdopen(fd, "rb")


class Expansion:
    """Counts what a decompressor produced from what it consumed; `InputError` past a cap."""

    def __init__(self, where: str, kind: str) -> None:
        self.where, self.kind = where, kind
        self.limit, self.ratio = max_decompressed(), _env_int(RATIO_ENV, 200)
        self.consumed = self.produced = 0

    def add(self, consumed: int, produced: int) -> None:
        self.consumed += consumed
        self.produced += produced
        if self.produced > self.limit:
            raise InputError(
                f"{self.where}: {self.kind} data expands beyond {fmt_bytes(self.limit)}, the cap "
                f"on decompressed size; set {DECOMPRESSED_ENV} (e.g. 8G) to read it"
            )
        if self.produced > _RATIO_FREE and self.produced > self.ratio * max(self.consumed, 1):
            raise InputError(
                f"{self.where}: {self.kind} data expands more than {self.ratio}:1 "
                f"({fmt_bytes(self.produced)} from {fmt_bytes(self.consumed)}), a compression "
                f"bomb; set {RATIO_ENV} (e.g. 2000) if it is genuine"
            )


def _gunzip(fh: IO[bytes], where: str) -> Iterator[bytes]:
    """Decompressed chunks of a (possibly multi-member) gzip stream, within the caps."""
    cap = Expansion(where, "gzip")
    d = zlib.decompressobj(31)
    try:
        while data := fh.read(1 << 16):
            while data:
                out = d.decompress(data, _CHUNK)
                used = len(data) - len(d.unconsumed_tail) - len(d.unused_data)
                cap.add(used, len(out))
                if out:
                    yield out
                if d.eof:
                    data = d.unused_data
                    d = zlib.decompressobj(31) if data.strip(b"\x00") else d
                    data = data if not d.eof else b""
                else:
                    data = d.unconsumed_tail
        if not d.eof:
            raise InputError(f"{where}: damaged gzip data (the stream ends early)")
    except zlib.error as exc:
        raise InputError(f"{where}: damaged gzip data ({exc})") from None


def chunks(fh: IO[bytes], where: str) -> Iterator[bytes]:
    """The bytes of an open file, gunzipped within the caps when it starts like gzip."""
    head = fh.read(2)
    if head == _GZIP_MAGIC:
        fh.seek(0)
        yield from _gunzip(fh, where)
        return
    if head:
        yield head
    while data := fh.read(_CHUNK):
        yield data


def read_all(path: str | os.PathLike[str], what: str = "file", gunzip: bool = True) -> bytes:
    """The bytes of a whole regular file, gunzipped (when ``gunzip`` and it is gzip) within
    the caps; at most ``RAGSTAT_MAX_DECOMPRESSED`` bytes."""
    path = Path(path)
    limit = max_decompressed()
    out = bytearray()
    try:
        with open_regular(path, what) as fh:
            stream = chunks(fh, f"{what} {path}") if gunzip else iter(lambda: fh.read(_CHUNK), b"")
            for data in stream:
                out += data
                if len(out) > limit:
                    raise InputError(
                        f"{what} {path}: larger than {fmt_bytes(limit)}, the cap on a file read "
                        f"whole; set {DECOMPRESSED_ENV} (e.g. 8G) to read it"
                    )
    except OSError as exc:
        raise InputError(f"cannot read {what} {path}: {exc.strerror or exc}") from None
    return bytes(out)


def check_depth(text: str, where: str) -> None:
    """`InputError` when JSON ``text`` nests deeper than the cap (strings ignored)."""
    limit = max_depth()
    if text.count("[") + text.count("{") <= limit:
        return
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    deep = False
    for _ in range(limit):  # each pass removes the innermost level
        brackets, before = _PAIR.sub("", brackets), brackets
        if not brackets or brackets == before:  # done, or unbalanced
            break
    else:
        deep = bool(_PAIR.search(brackets))
    if deep or re.search(rf"[\[{{]{{{limit + 1}}}", brackets):
        raise InputError(
            f"{where}: JSON nested more than {limit} levels deep; set "
            f"{DEPTH_ENV} (e.g. 1000) if it is genuine"
        )


def json_value(text: str | bytes, where: str) -> Any:
    """``json.loads`` with the caps: invalid JSON, nesting, huge integers → `InputError`."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InputError(f"{where}: not UTF-8 text (byte offset {exc.start})") from None
    check_depth(text, where)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        at = f"line {exc.lineno}, column {exc.colno}" if "\n" in text else f"column {exc.colno}"
        raise InputError(f"{where}: not valid JSON ({exc.msg} at {at})") from None
    except RecursionError:
        raise InputError(f"{where}: JSON nested too deeply to read") from None
    except ValueError as exc:  # an integer literal longer than Python converts
        raise InputError(
            f"{where}: unreadable JSON number ({str(exc).split(';')[0]}); set "
            "PYTHONINTMAXSTRDIGITS to read longer integers"
        ) from None
