"""Text and JSONL input files, read strictly: the one place that decodes a user's text file.

* lines are split on ``"\\n"`` only (a trailing ``"\\r"`` is dropped), never on the other
  characters `str.splitlines` treats as line breaks (U+2028, U+2029, U+0085, ``\\x0b``,
  ``\\x0c``, ``\\x1c``–``\\x1e``), which may sit inside a JSON string;
* bytes are decoded as UTF-8 (a leading byte-order mark is dropped); anything else is an
  `InputError` naming the file, the line and the byte offset;
* gzip files are recognised by their magic bytes (whatever the suffix) and read
  transparently; a damaged one is an `InputError`;
* a JSONL line must hold one JSON object; invalid JSON, nesting too deep for the parser,
  an integer too long to convert and a lone UTF-16 surrogate escape (``"\\udc80"``: not
  text, and it cannot be written back as UTF-8) are `InputError` s naming ``path:line``.
"""

from __future__ import annotations

import gzip
import io
import json
import re
import zlib
from collections.abc import Iterator
from pathlib import Path

from ragstat.errors import InputError

__all__ = ["iter_lines", "jsonl_objects", "lone_surrogate", "parse_json_line", "read_json_file"]

_GZIP_MAGIC = b"\x1f\x8b"
_BOM = b"\xef\xbb\xbf"
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_GZIP_ERRORS = (gzip.BadGzipFile, EOFError, zlib.error)


def _open(path: Path, what: str) -> tuple[gzip.GzipFile | io.BufferedReader, io.BufferedReader]:
    """(stream, file): ``path`` opened for binary reading, the stream decompressing it when
    it starts with gzip's magic bytes (then both must be closed)."""
    if not path.is_file():
        raise InputError(f"{what} {path}: no such file (or it is a folder)")
    try:
        fh = path.open("rb")
    except OSError as exc:
        raise InputError(f"cannot read {what} {path}: {exc.strerror or exc}") from None
    if fh.peek(2)[:2] == _GZIP_MAGIC:
        return gzip.GzipFile(fileobj=fh, mode="rb"), fh
    return fh, fh


def _decode(raw: bytes, path: Path, what: str, lineno: int, offset: int, gz: bool) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        at = offset + exc.start
        byte = raw[exc.start : exc.start + 1].hex()
        hint = (
            "it looks UTF-16 encoded; re-save it as UTF-8"
            if lineno == 1 and raw[:2] in _UTF16_BOMS
            else "re-encode it as UTF-8, e.g. iconv -f latin1 -t utf-8"
        )
        raise InputError(
            f"{what} {path}:{lineno}: not UTF-8 text (byte 0x{byte} at byte offset {at}"
            f"{' of the decompressed data' if gz else ''}); {hint}"
        ) from None


def iter_lines(path: str | Path, what: str = "file") -> Iterator[tuple[int, str]]:
    """(line number, text) of every line of ``path``, split on ``"\\n"`` only, without the
    line end (``"\\n"`` or ``"\\r\\n"``); UTF-8 (byte-order mark dropped), gzip read through."""
    path = Path(path)
    stream, fh = _open(path, what)
    gz = stream is not fh
    offset = 0
    lineno = 0
    try:
        with fh, stream:
            for lineno, raw in enumerate(stream, 1):
                start = offset
                offset += len(raw)
                if lineno == 1 and raw.startswith(_BOM):
                    raw, start = raw[len(_BOM) :], start + len(_BOM)
                text = _decode(raw, path, what, lineno, start, gz)
                yield lineno, text.removesuffix("\n").removesuffix("\r")
    except _GZIP_ERRORS as exc:
        raise InputError(
            f"{what} {path}: damaged gzip data (at line {lineno + 1} of the decompressed text: "
            f"{exc}); decompress it to check it, or give the uncompressed file"
        ) from None
    except OSError as exc:
        raise InputError(f"cannot read {what} {path}: {exc.strerror or exc}") from None


def lone_surrogate(value: object) -> str | None:
    """The path (``.key[3].key``) of the first string holding a lone UTF-16 surrogate, else
    None: such a string (from a JSON escape like ``"\\udc80"``) is not Unicode text."""
    stack: list[tuple[str, object]] = [("", value)]
    while stack:
        where, item = stack.pop()
        if isinstance(item, str):
            if any("\ud800" <= c <= "\udfff" for c in item):
                return where or "(the value)"
        elif isinstance(item, dict):
            for k, v in item.items():
                if lone_surrogate(k) is not None:
                    return f"{where}.{k!r} (its name)"
                stack.append((f"{where}.{k}", v))
        elif isinstance(item, list):
            stack.extend((f"{where}[{i}]", v) for i, v in enumerate(item))
    return None


def parse_json_line(line: str, where: str) -> object:
    """One JSON value from ``line``; every failure is an `InputError` starting ``where:``."""
    try:
        value = json.loads(line)
    except json.JSONDecodeError as exc:
        at = f"line {exc.lineno}, column {exc.colno}" if "\n" in line else f"column {exc.colno}"
        raise InputError(f"{where}: not valid JSON ({exc.msg} at {at})") from None
    except RecursionError:
        raise InputError(f"{where}: JSON nested too deeply to read") from None
    except ValueError as exc:  # e.g. an integer literal longer than Python converts
        raise InputError(f"{where}: unreadable JSON value ({exc})") from None
    if _SURROGATE_ESCAPE.search(line):
        bad = lone_surrogate(value)
        if bad is not None:
            raise InputError(
                f"{where}: field {bad.lstrip('.')} holds a lone UTF-16 surrogate escape "
                "(such as \\udc80), which is not valid text; fix the JSON escape"
            )
    return value


def jsonl_objects(path: str | Path, what: str = "JSONL file") -> Iterator[tuple[int, dict]]:
    """(line number, object) of every non-blank line of a JSONL file."""
    path = Path(path)
    for lineno, line in iter_lines(path, what):
        if not line.strip():
            continue
        where = f"{path}:{lineno}"
        obj = parse_json_line(line, where)
        if not isinstance(obj, dict):
            raise InputError(
                f"{where}: expected a JSON object, got {_kind(obj)}; write one object per line"
            )
        yield lineno, obj


def _kind(value: object) -> str:
    names = {list: "an array", str: "a string", bool: "a boolean", type(None): "null"}
    return names.get(type(value), "a number")


def read_json_file(path: str | Path, what: str = "JSON file") -> object:
    """The JSON value of a whole (small) file: UTF-8, every failure an `InputError`."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read {what} {path}: {exc.strerror or exc}") from None
    if data.startswith(_BOM):
        data = data[len(_BOM) :]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InputError(
            f"{what} {path}:{line}: not UTF-8 text (byte offset {exc.start}); "
            "it must be the JSON file ragstat wrote"
        ) from None
    if not text.strip():
        raise InputError(f"{what} {path} is empty")
    return parse_json_line(text, f"{what} {path}")
