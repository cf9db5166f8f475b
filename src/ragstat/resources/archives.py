"""Zip archives (inspect ``.eval`` logs) read within the caps of
:mod:`ragstat.resources.inputs`: a regular file only, at most ``RAGSTAT_MAX_ZIP_MEMBERS``
members, each member decompressed in chunks (deflate by :mod:`zipfile`, Zstandard —
which :mod:`zipfile` reads only from Python 3.14 — by pyarrow's streaming codec) and
stopped past the decompressed-size and ratio caps; a bad CRC, a truncated or damaged
member and an unsupported method are one-line `InputError` s naming the member.
"""

from __future__ import annotations

import zipfile
import zlib
from pathlib import Path
from typing import IO

from ragstat.errors import InputError
from ragstat.resources.inputs import MEMBERS_ENV, Expansion, max_members, open_regular

__all__ = ["ZSTD", "open_zip", "read_member"]

#: Zip compression method id of Zstandard.
ZSTD = 93
_CHUNK = 1 << 20
_ZIP_ERRORS = (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, RuntimeError)


class _Archive(zipfile.ZipFile):
    """A zip archive that closes the file it was given when it closes."""

    def __init__(self, fh: IO[bytes]) -> None:
        # Set first: a damaged archive fails inside ZipFile.__init__, and its __del__ then
        # calls close() (which, without the handle, printed a traceback to stderr).
        self.handle = fh
        super().__init__(fh)

    def close(self) -> None:
        try:
            super().close()
        finally:
            self.handle.close()


def open_zip(path: str | Path, what: str = "archive") -> zipfile.ZipFile:
    """``path`` opened as a zip archive (a regular file, within the member cap)."""
    path = Path(path)
    fh = open_regular(path, what)
    try:
        archive = _Archive(fh)
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as exc:
        fh.close()
        raise InputError(f"{what} {path}: not a readable zip archive ({exc})") from None
    count, limit = len(archive.infolist()), max_members()
    if count > limit:
        archive.close()
        raise InputError(
            f"{what} {path}: {count:,} archive members, over the cap of {limit:,}; "
            f"set {MEMBERS_ENV} to read it"
        )
    return archive


def _stream(archive: zipfile.ZipFile, info: zipfile.ZipInfo, where: str) -> IO[bytes]:
    """A Zstandard member's decompressing stream (pyarrow), from its raw bytes."""
    import pyarrow as pa

    fp = archive.fp
    if fp is None:
        raise InputError(f"{where}: the archive is closed")
    fp.seek(info.header_offset)
    local = fp.read(30)
    if local[:4] != b"PK\x03\x04":
        raise InputError(f"{where}: damaged archive (no local header)")
    skip = int.from_bytes(local[26:28], "little") + int.from_bytes(local[28:30], "little")
    fp.seek(info.header_offset + 30 + skip)
    raw = fp.read(info.compress_size)
    return pa.CompressedInputStream(pa.BufferReader(raw), "zstd")


def read_member(archive: zipfile.ZipFile, name: str, where: str) -> bytes:
    """Member ``name``, decompressed within the caps and CRC-checked; ``where`` names the
    archive in messages (the member's name is added)."""
    where = f"{where} (member {name})"
    try:
        info = archive.getinfo(name)
    except KeyError:
        raise InputError(f"{where}: no such member") from None
    cap = Expansion(where, "compressed")
    cap.add(info.compress_size, 0)
    out = bytearray()
    try:
        with _open(archive, info, where) as stream:
            while data := stream.read(_CHUNK):
                cap.add(0, len(data))
                out += data
    except _ZIP_ERRORS as exc:
        raise InputError(f"{where}: damaged archive member ({exc})") from None
    except Exception as exc:  # pyarrow's codec errors (ArrowException and kin)
        if not type(exc).__module__.startswith("pyarrow") and not isinstance(exc, OSError):
            raise
        raise InputError(f"{where}: damaged archive member ({exc})") from None
    if info.compress_type == ZSTD and zlib.crc32(out) != info.CRC:
        raise InputError(f"{where}: damaged archive member (bad CRC-32)")
    return bytes(out)


def _open(archive: zipfile.ZipFile, info: zipfile.ZipInfo, where: str) -> IO[bytes]:
    if info.compress_type == ZSTD:
        return _stream(archive, info, where)
    return archive.open(info)
