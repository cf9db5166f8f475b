"""Decompression bombs, written once and cached: a single deflate stream of 1 GiB of zeros
(about 1 MB, made by streaming zlib chunks), wrapped as gzip and as a zip member; a
multi-member gzip of repeated valid lines; and an inspect ``.eval`` log with a bomb member."""

from __future__ import annotations

import os
import struct
import tempfile
import zipfile
import zlib
from pathlib import Path

GIB = 1 << 30
CHUNK = 1 << 20


def cache_dir() -> Path:
    where = Path(os.environ.get("RAGSTAT_HOSTILE_CACHE", Path(tempfile.gettempdir())))
    folder = where / "ragstat-hostile-cache"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def zeros_deflate() -> tuple[bytes, int]:
    """(raw deflate stream of 1 GiB of zeros, its CRC-32), cached on disk."""
    path = cache_dir() / "zeros-1gib.deflate"
    if not path.is_file():
        comp = zlib.compressobj(9, zlib.DEFLATED, -15)
        crc = 0
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        block = b"\0" * CHUNK
        with tmp.open("wb") as fh:
            for _ in range(GIB // CHUNK):
                fh.write(comp.compress(block))
                crc = zlib.crc32(block, crc)
            fh.write(comp.flush())
        path.with_suffix(".crc").write_text(str(crc))
        tmp.replace(path)
    return path.read_bytes(), int(path.with_suffix(".crc").read_text())


def gzip_zeros() -> bytes:
    """A gzip file of 1 GiB of zeros (one member, about 1 MB)."""
    raw, crc = zeros_deflate()
    header = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"
    return header + raw + struct.pack("<II", crc, GIB & 0xFFFFFFFF)


def gzip_lines(line: bytes, total: int = GIB) -> bytes:
    """A multi-member gzip of ``line`` repeated to ``total`` bytes (each member 4 MiB)."""
    line = line.rstrip(b"\n") + b"\n"
    block = line * max(1, (4 << 20) // len(line))
    member = zlib.compressobj(9, zlib.DEFLATED, 31)
    one = member.compress(block) + member.flush()
    return one * max(1, total // len(block))


def _local(info: zipfile.ZipInfo, method: int, crc: int, csize: int, usize: int) -> bytes:
    name = info.filename.encode()
    return (
        struct.pack(
            "<IHHHHHIIIHH", 0x04034B50, 20, 0, method, 0, 0x21, crc, csize, usize, len(name), 0
        )
        + name
    )


def _central(info: zipfile.ZipInfo, method: int, crc: int, cs: int, us: int, at: int) -> bytes:
    name = info.filename.encode()
    fields = (0x02014B50, 20, 20, 0, method, 0, 0x21, crc, cs, us, len(name), 0, 0, 0, 0, 0, at)
    return struct.pack("<IHHHHHHIIIHHHHHII", *fields) + name


def eval_with_bomb(original: bytes) -> bytes:
    """The inspect log's members copied raw, plus ``samples/zz_epoch_1.json`` of 1 GiB zeros."""
    import io

    src = zipfile.ZipFile(io.BytesIO(original))
    out, central = bytearray(), bytearray()
    members = []
    for info in src.infolist():
        start = info.header_offset
        name_len, extra_len = struct.unpack("<HH", original[start + 26 : start + 30])
        data = original[start + 30 + name_len + extra_len :][: info.compress_size]
        members.append((info, info.compress_type, info.CRC, data, info.file_size))
    raw, crc = zeros_deflate()
    members.append((zipfile.ZipInfo("samples/zz_epoch_1.json"), 8, crc, raw, GIB))
    for info, method, c, data, usize in members:
        at = len(out)
        out += _local(info, method, c, len(data), usize) + data
        central += _central(info, method, c, len(data), usize, at)
    eocd = struct.pack(
        "<IHHHHIIH", 0x06054B50, 0, 0, len(members), len(members), len(central), len(out), 0
    )
    return bytes(out + central + eocd)


def eval_bad_crc(original: bytes) -> bytes:
    """The log with one byte of its second member's compressed data flipped."""
    import io

    info = zipfile.ZipFile(io.BytesIO(original)).infolist()[1]
    start = info.header_offset
    name_len, extra_len = struct.unpack("<HH", original[start + 26 : start + 30])
    at = start + 30 + name_len + extra_len + info.compress_size // 2
    data = bytearray(original)
    data[at] ^= 0xFF
    return bytes(data)
