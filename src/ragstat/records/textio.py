"""Text and JSONL input files, read strictly: the one place that decodes a user's text file.

* lines are split on ``"\\n"`` only (a trailing ``"\\r"`` is dropped), never on the other
  characters `str.splitlines` treats as line breaks (U+2028, U+2029, U+0085, ``\\x0b``,
  ``\\x0c``, ``\\x1c``–``\\x1e``), which may sit inside a JSON string;
* bytes are decoded as UTF-8 (a leading byte-order mark is dropped); anything else is an
  `InputError` naming the file, the line and the byte offset;
* gzip files are recognised by their magic bytes (whatever the suffix) and read
  transparently, within the caps of :mod:`ragstat.resources.inputs` (decompressed size and
  ratio, line length, JSON depth); a damaged one is an `InputError`;
* only regular files are read: a FIFO, device or socket is refused before it is opened;
* a JSONL line must hold one JSON object; invalid JSON, nesting too deep for the parser,
  an integer too long to convert and a lone UTF-16 surrogate escape (``"\\udc80"``: not
  text, and it cannot be written back as UTF-8) are `InputError` s naming ``path:line``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ragstat.errors import InputError
from ragstat.resources.inputs import (
    LINE_ENV,
    chunks,
    json_value,
    max_line,
    open_regular,
    read_all,
    regular_file,
)

__all__ = [
    "iter_lines",
    "jsonl_objects",
    "lone_surrogate",
    "open_regular",
    "parse_json_line",
    "read_bytes",
    "read_json_file",
    "regular_file",
]

_GZIP_MAGIC = b"\x1f\x8b"
_BOM = b"\xef\xbb\xbf"
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


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


def _too_long(path: Path, what: str, limit: int) -> InputError:
    return InputError(
        f"{what} {path}: a line longer than {limit:,} bytes (the cap on one line); "
        f"set {LINE_ENV} (e.g. 512M) to read it"
    )


def _raw_lines(path: Path, what: str) -> Iterator[tuple[bytes, bool]]:
    """(line with its end, gzip?) of ``path``; a line longer than the cap is an error."""
    limit = max_line()
    with open_regular(path, what) as fh:
        gz = fh.read(2) == _GZIP_MAGIC
        fh.seek(0)
        buf = bytearray()
        for data in chunks(fh, f"{what} {path}"):
            buf += data
            start = 0
            while (end := buf.find(b"\n", start)) >= 0:
                if end - start > limit:
                    raise _too_long(path, what, limit)
                yield bytes(buf[start : end + 1]), gz
                start = end + 1
            del buf[:start]
            if len(buf) > limit:
                raise _too_long(path, what, limit)
        if buf:
            yield bytes(buf), gz


def iter_lines(path: str | Path, what: str = "file") -> Iterator[tuple[int, str]]:
    """(line number, text) of every line of ``path``, split on ``"\\n"`` only, without the
    line end (``"\\n"`` or ``"\\r\\n"``); UTF-8 (byte-order mark dropped), gzip read through
    within the caps of :mod:`ragstat.resources.inputs`; a FIFO or device is refused."""
    path = Path(path)
    offset = 0
    try:
        for lineno, (raw, gz) in enumerate(_raw_lines(path, what), 1):
            start = offset
            offset += len(raw)
            if lineno == 1 and raw.startswith(_BOM):
                raw, start = raw[len(_BOM) :], start + len(_BOM)
            text = _decode(raw, path, what, lineno, start, gz)
            yield lineno, text.removesuffix("\n").removesuffix("\r")
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


def parse_json_line(line: str, where: str) -> Any:
    """One JSON value from ``line``; every failure is an `InputError` starting ``where:``."""
    value = json_value(line, where)
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


def read_bytes(path: str | Path, what: str = "file") -> bytes:
    """The bytes of a whole regular file (gunzipped within the caps when gzip); a FIFO,
    device or unreadable file is an `InputError`."""
    return read_all(path, what)


def read_json_file(path: str | Path, what: str = "JSON file") -> Any:
    """The JSON value of a whole file: UTF-8 (gzip read through), every failure an
    `InputError` naming the file (and the line of a bad byte)."""
    path = Path(path)
    data = read_bytes(path, what)
    if data.startswith(_BOM):
        data = data[len(_BOM) :]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InputError(
            f"{what} {path}:{line}: not UTF-8 text (byte offset {exc.start}); re-encode it as UTF-8"
        ) from None
    if not text.strip():
        raise InputError(f"{what} {path} is empty")
    return parse_json_line(text, f"{what} {path}")
