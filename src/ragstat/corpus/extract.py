"""Text extraction from file bytes: plain text, HTML and PDF.

Every extractor takes the file's bytes and returns its text, or raises
:class:`Unreadable` with a reason a person can act on. The loaders turn that into
an :class:`~ragstat.corpus.document.Excluded` entry, so no file is ever skipped
silently.

- ``.txt`` / ``.md``: strict UTF-8 (a leading byte-order mark is removed).
- ``.html`` / ``.htm``: UTF-8, or the charset the page declares in a ``<meta>``
  tag; parsed with selectolax's Lexbor parser, ``script``/``style``/``noscript``/
  ``template`` removed, text nodes joined with newlines.
- ``.pdf``: pypdf, page texts joined with newlines; a PDF with no extractable text
  (typically a scanned image) is unreadable.

:func:`extract` runs an extractor and keeps the warnings the reading library emits
(pypdf warns on a damaged PDF it can still read: a wrong ``startxref``, an object at the
wrong offset) with the file's text, so they are counted per file instead of spilling
on the terminal.
"""

from __future__ import annotations

import codecs
import io
import logging
import re
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

__all__ = [
    "EXTRACTORS",
    "LIBRARY_LOGGERS",
    "Extracted",
    "Unreadable",
    "decode_utf8",
    "extract",
    "html_to_text",
    "pdf_to_text",
]

#: Loggers of the libraries that read files; their records are kept per file.
LIBRARY_LOGGERS = ("pypdf",)

_HTML_DROP = ["script", "style", "noscript", "template"]
_META_CHARSET = re.compile(
    rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.IGNORECASE
)


class Unreadable(Exception):
    """A file whose text cannot be obtained; ``reason`` says why and what to do."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class Extracted:
    """A file's text and the warnings the library that read it emitted, in order."""

    text: str
    warnings: tuple[str, ...] = ()


class _Collect(logging.Handler):
    def __init__(self, out: list[str]) -> None:
        super().__init__(logging.WARNING)
        self.out = out

    def emit(self, record: logging.LogRecord) -> None:
        try:
            message = record.getMessage()
        except Exception:  # a library's malformed format arguments
            message = str(record.msg)
        self.out.append(f"{record.name.split('.')[0]}: {' '.join(message.split())}")


@contextmanager
def _library_warnings(out: list[str]) -> Iterator[None]:
    """Append to ``out`` every ``warnings.warn`` and every WARNING record of
    :data:`LIBRARY_LOGGERS` raised inside, and keep them from going anywhere else.

    Not thread-safe (``warnings.catch_warnings`` is process-wide): files are read one by one.
    """
    handler = _Collect(out)
    saved = []
    for name in LIBRARY_LOGGERS:
        logger = logging.getLogger(name)
        saved.append((logger, logger.propagate, logger.level))
        logger.addHandler(handler)
        logger.propagate = False
        logger.setLevel(logging.WARNING)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("always")
            warnings.showwarning = lambda message, category, *_: out.append(
                f"{category.__name__}: {' '.join(str(message).split())}"
            )
            yield
    finally:
        for logger, propagate, level in saved:
            logger.removeHandler(handler)
            logger.propagate = propagate
            logger.setLevel(level)


def extract(extractor: Callable[[bytes], str], data: bytes) -> Extracted:
    """``extractor(data)`` with the library warnings it raised (see :class:`Extracted`).

    An :class:`Unreadable` is raised again with the number of warnings and the first one
    added to its reason.
    """
    found: list[str] = []
    try:
        with _library_warnings(found):
            text = extractor(data)
    except Unreadable as exc:
        if not found:
            raise
        raise Unreadable(
            f"{exc.reason}; {len(found)} warning(s) while reading, the first: {found[0]}"
        ) from None
    return Extracted(text, tuple(found))


def decode_utf8(data: bytes) -> str:
    """Strict UTF-8 decoding (BOM removed); bad bytes raise :class:`Unreadable`."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        bad = data[exc.start : exc.start + 1].hex()
        raise Unreadable(
            f"not valid UTF-8 (byte 0x{bad} at offset {exc.start}); re-save the file as UTF-8"
        ) from None


def _decode_html(data: bytes) -> str:
    try:
        return decode_utf8(data)
    except Unreadable as utf8_error:
        match = _META_CHARSET.search(data[:4096])
        if match is None:
            raise Unreadable(
                f"{utf8_error.reason}, and the page declares no <meta charset>"
            ) from None
        name = match.group(1).decode("ascii")
        try:
            codecs.lookup(name)
            return data.decode(name)
        except (LookupError, UnicodeDecodeError) as exc:
            raise Unreadable(
                f"cannot decode with its declared charset {name!r} ({exc}); re-save it as UTF-8"
            ) from None


_HTML_BLOCKS = (
    "p, div, br, li, dt, dd, tr, th, td, h1, h2, h3, h4, h5, h6, section, article, header, "
    "footer, blockquote, pre, table, ul, ol, title, hr"
)


def html_to_text(data: bytes) -> str:
    """Visible text of an HTML page (scripts and styles removed)."""
    from selectolax.lexbor import LexborHTMLParser

    tree = LexborHTMLParser(_decode_html(data))
    tree.strip_tags(_HTML_DROP)
    root = tree.root
    if root is None:
        return ""
    for node in tree.css(_HTML_BLOCKS):  # line breaks at blocks only: inline tags join words
        node.insert_after("\n")
    lines = (" ".join(line.split()) for line in root.text(separator="").splitlines())
    return "\n".join(line for line in lines if line)


def pdf_to_text(data: bytes) -> str:
    """Text of every page of a PDF, joined by newlines."""
    from pypdf import PdfReader

    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not reader.decrypt(""):
            raise Unreadable("encrypted PDF; save a decrypted copy")
        pages = [page.extract_text() or "" for page in reader.pages]
    except Unreadable:
        raise
    except Exception as exc:
        # pypdf raises many exception types on malformed input (its own errors,
        # ValueError, KeyError, zlib errors …); the file is recorded as excluded.
        raise Unreadable(f"cannot read PDF ({type(exc).__name__}: {exc})") from None
    text = "\n".join(pages)
    if not text.strip():
        raise Unreadable(
            f"no extractable text in {len(pages)} page(s) (a scanned PDF? run OCR first)"
        )
    return text


EXTRACTORS: dict[str, Callable[[bytes], str]] = {
    ".txt": decode_utf8,
    ".md": decode_utf8,
    ".html": html_to_text,
    ".htm": html_to_text,
    ".pdf": pdf_to_text,
}
"""File extension (lowercase, with the dot) → extractor."""
